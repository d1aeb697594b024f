"""A throwaway Synapse homeserver on loopback (SQLite in a temporary folder) for tests and benchmarks.

Synapse lives in its own virtualenv (`scripts/setup.sh --test` installs it into
.cache/synapse-venv of the checkout, which scripts/test.sh names in MOVIEBOT_SYNAPSE_PYTHON)
because its pins differ from ours; MOVIEBOT_SYNAPSE_PYTHON may point at any interpreter
that has `synapse` installed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

SHARED_SECRET = "moviebot-test-registration"
CONFIG = """
server_name: "localhost"
pid_file: "{dir}/homeserver.pid"
listeners:
  - port: {port}
    bind_addresses: ["127.0.0.1"]
    type: http
    tls: false
    x_forwarded: false
    resources:
      - names: [client]
        compress: false
database:
  name: sqlite3
  args:
    database: "{dir}/homeserver.db"
media_store_path: "{dir}/media"
signing_key_path: "{dir}/signing.key"
registration_shared_secret: "{secret}"
report_stats: false
enable_metrics: false
trusted_key_servers: []
suppress_key_server_warning: true
presence:
  enabled: false
rc_message: {{per_second: 1000, burst_count: 1000}}
rc_login:
  address: {{per_second: 1000, burst_count: 1000}}
  account: {{per_second: 1000, burst_count: 1000}}
  failed_attempts: {{per_second: 1000, burst_count: 1000}}
rc_joins:
  local: {{per_second: 1000, burst_count: 1000}}
rc_invites:
  per_room: {{per_second: 1000, burst_count: 1000}}
  per_user: {{per_second: 1000, burst_count: 1000}}
"""


def synapse_python() -> str | None:
    """An interpreter with Synapse installed, or None."""
    candidates = [os.environ.get("MOVIEBOT_SYNAPSE_PYTHON", ""), str(Path.cwd() / ".cache" / "synapse-venv" / "bin" / "python")]
    for python in filter(None, candidates):
        if Path(python).is_file():
            return python
    try:
        import synapse  # noqa: F401

        return sys.executable
    except ImportError:
        return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalSynapse:
    """Start with `start()`, register users with `register()`, end with `stop()`."""

    def __init__(self, folder: Path, python: str):
        self.folder = Path(folder)
        self.python = python
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self, timeout: float = 120.0) -> LocalSynapse:
        self.folder.mkdir(parents=True, exist_ok=True)
        config = self.folder / "homeserver.yaml"
        config.write_text(CONFIG.format(dir=self.folder, port=self.port, secret=SHARED_SECRET), encoding="utf-8")
        subprocess.run([self.python, "-m", "synapse.app.homeserver", "--config-path", str(config), "--generate-keys"],
                       check=True, capture_output=True, cwd=self.folder)
        self.log = open(self.folder / "synapse.log", "wb")
        self.process = subprocess.Popen([self.python, "-m", "synapse.app.homeserver", "--config-path", str(config)],
                                        stdout=self.log, stderr=subprocess.STDOUT, cwd=self.folder)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Synapse exited: {(self.folder / 'synapse.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/_matrix/client/versions", timeout=2):
                    return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"Synapse did not start within {timeout:.0f} s")

    def register(self, user: str, password: str) -> str:
        """Register a local user with the shared secret; returns the full user id."""
        tool = Path(self.python).with_name("register_new_matrix_user")
        command = [str(tool)] if tool.is_file() else [self.python, "-m", "synapse._scripts.register_new_matrix_user"]
        subprocess.run([*command, "-u", user, "-p", password, "--no-admin", "-k", SHARED_SECRET, self.url],
                       check=True, capture_output=True)
        return f"@{user}:localhost"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if getattr(self, "log", None):
            self.log.close()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

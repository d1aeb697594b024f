"""The Docker image's build steps run here as in the image, so a broken step fails CI without a Docker engine."""

from __future__ import annotations

import os
import subprocess

import pytest

from conftest import REPO

pytestmark = pytest.mark.e2e


def test_dockerfile_runs_the_build_script_and_starts_a_connector():
    lines = [line.strip() for line in (REPO / "Dockerfile").read_text(encoding="utf-8").splitlines()]
    assert "RUN scripts/docker-build-steps.sh" in lines
    assert "MOVIEBOT_HOST=0.0.0.0 \\" in lines and "EXPOSE 8080" in lines
    cmd = next(line for line in lines if line.startswith("CMD"))
    assert "moviebot" in cmd and "MOVIEBOT_CONNECTOR:-serve" in cmd


@pytest.mark.timeout(2400)  # the first build of the demo KG (store, index, models) on 2 busy cores
def test_build_steps_succeed(cache_dir, tmp_path):
    env = {**os.environ, "MOVIEBOT_CACHE_DIR": str(cache_dir), "MOVIEBOT_DATA_DIR": str(tmp_path)}
    done = subprocess.run(["bash", str(REPO / "scripts" / "docker-build-steps.sh")], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "smoke test:" in done.stdout and "Gus Van Sant" in done.stdout

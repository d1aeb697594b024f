"""A private OpenLink Virtuoso instance serving a bundle's graph (Debian's `virtuoso-opensource-7-bin`).

Virtuoso is a real SPARQL server: the engine behind DBpedia's public endpoint, able to hold
graphs far beyond one machine's embedded store, and shared by every bot replica. This module
starts one as an ordinary process with everything in one folder (its ini file, database,
log, lock and transaction files), on chosen ports bound to 127.0.0.1, with the DBA password
it is given; bulk-loads a bundle's graph files with Virtuoso's own loader (`ld_dir` +
`rdf_loader_run`) into one named graph; and stops it by its pid. Used by
`moviebot kg serve-virtuoso`, the test fixture and the benchmarks.

The loader records the sha256 of the loaded files in a metadata graph, which the bot reads
as the endpoint's content fingerprint (bot.kg.store.RemoteGraph.fingerprint): the label
index and the models built on one graph are not reused for another behind the same URL.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bot.core.cache import combine, file_digest
from bot.core.errors import StoreError
from bot.kg.bundle import Bundle, is_safe_iri
from bot.kg.store import CONTENT_DIGEST, META_GRAPH

SERVER = "virtuoso-t"
ISQL = "isql-vt"
INSTALL_HINT = "install Debian's Virtuoso: apt-get install virtuoso-opensource-7-bin (scripts/setup.sh --test does)"
PROGRESS_POLL_S = 5.0  # a progress count during a bulk load that takes longer is skipped

INI = """\
[Database]
DatabaseFile = {dir}/virtuoso.db
ErrorLogFile = {dir}/virtuoso.log
LockFile = {dir}/virtuoso.lck
TransactionFile = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {dir}/virtuoso-temp.db
TransactionFile = {dir}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DisableUnixSocket = 1
DisableTcpSocket = 0
MaxClientConnections = 20
CheckpointInterval = 60
O_DIRECT = 0
CaseMode = 2
MaxStaticCursorRows = 5000
AllowOSCalls = 0
DirsAllowed = {dirs_allowed}
ThreadsPerQuery = {threads}
AsyncQueueMaxThreads = 10
NumberOfBuffers = {buffers}
MaxDirtyBuffers = {dirty_buffers}
MaxQueryMem = {query_mem}

[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {dir}/www
MaxClientConnections = 20
ServerThreads = 20
MaxKeepAlives = 20
KeepAliveTimeout = 30
EnabledDavVSP = 0
HTTPProxyEnabled = 0
Charset = UTF-8
EnabledGzipContent = 0

[SPARQL]
ResultSetMaxRows = {max_rows}
MaxSortedTopRows = 10000
MaxQueryCostEstimationTime = 400
MaxQueryExecutionTime = {max_seconds}
DefaultGraph = {graph}
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def virtuoso_installed() -> bool:
    return shutil.which(SERVER) is not None and shutil.which(ISQL) is not None


def graph_iri(bundle: Bundle) -> str:
    """The named graph a bundle is loaded into: urn:moviebot:<bundle name>."""
    name = urllib.parse.quote(bundle.name, safe="-._")
    return f"urn:moviebot:{name}"


def loaded_digest(bundle: Bundle, cache_dir: Path | None = None) -> str:
    """What a load of `bundle` records as its content: the sha256 of its graph files, combined."""
    return combine("graph", *(file_digest(f, cache_dir) for f in bundle.graph_files))


def _sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


@dataclass
class Virtuoso:
    """One Virtuoso server with its own folder. `start()`, `load(bundle)`, `stop()`; `url(graph)` is its endpoint.

    `max_rows` is the server's ResultSetMaxRows: the bot reads results larger than that in
    pages, so a low value works (and tests the paging), a high one is faster. `memory_mb`
    sizes the buffer pool (Virtuoso's rule of thumb: 8 KB pages, about two thirds of what it
    may use)."""

    folder: Path
    password: str
    graph: str = "urn:moviebot:default"
    http_port: int = 0
    sql_port: int = 0
    max_rows: int = 1_000_000
    max_seconds: int = 120
    memory_mb: int = 1024
    threads: int = 2
    dirs: tuple[Path, ...] = ()  # folders the loader may read besides the folder
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def sql_address(self) -> str:
        return f"127.0.0.1:{self.sql_port}"

    def url(self, graph: str | None = None) -> str:
        """The SPARQL endpoint, naming `graph` (default: the loaded one) as the default graph."""
        query = urllib.parse.urlencode({"default-graph-uri": graph or self.graph})
        return f"http://127.0.0.1:{self.http_port}/sparql?{query}"

    @property
    def log_file(self) -> Path:
        return self.folder / "virtuoso.log"

    def write_ini(self) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "www").mkdir(exist_ok=True)
        buffers = max(2000, self.memory_mb * 1024 * 2 // 3 // 8)
        dirs = ", ".join(dict.fromkeys([".", str(self.folder), *(str(Path(d).resolve()) for d in self.dirs)]))
        ini = INI.format(dir=self.folder, sql_port=self.sql_port, http_port=self.http_port, dirs_allowed=dirs, threads=self.threads,
                         buffers=buffers, dirty_buffers=buffers * 3 // 4, query_mem=f"{max(256, self.memory_mb // 2)}M",
                         max_rows=self.max_rows, max_seconds=self.max_seconds, graph=self.graph)
        path = self.folder / "virtuoso.ini"
        path.write_text(ini, encoding="utf-8")
        return path

    def start(self, timeout: float = 120.0) -> Virtuoso:
        """Start the server (creating the database on first start) and set the DBA password."""
        if not virtuoso_installed():
            raise StoreError(f"Virtuoso is not installed: {INSTALL_HINT}")
        self.folder = Path(self.folder).resolve()
        self.http_port = self.http_port or free_port()
        self.sql_port = self.sql_port or free_port()
        fresh = not (self.folder / "virtuoso.db").exists()
        ini = self.write_ini()
        out = open(self.folder / "virtuoso.out", "ab")
        self.process = subprocess.Popen([SERVER, "+foreground", "+configfile", str(ini)], cwd=self.folder,
                                        stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        out.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise StoreError(f"Virtuoso exited with {self.process.returncode}: {self._log_tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/sparql?query=ASK%7B%7D", timeout=2):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            self.stop()
            raise StoreError(f"Virtuoso did not answer on port {self.http_port} within {timeout:.0f} s: {self._log_tail()}")
        if fresh:  # a new database has the documented default password; replace it before anything else
            try:
                self.isql(f"USER_CHANGE_PASSWORD('dba', 'dba', {_sql_string(self.password)});", password="dba")
            except StoreError:
                self.stop()
                raise
        return self

    def _log_tail(self) -> str:
        for name in ("virtuoso.log", "virtuoso.out"):
            path = self.folder / name
            if path.is_file():
                return path.read_text(encoding="utf-8", errors="replace")[-1500:]
        return "(no log)"

    def isql(self, sql: str, password: str | None = None, timeout: float | None = None) -> str:
        """Run SQL statements with Virtuoso's isql client as dba; their output (StoreError when one fails)."""
        done = subprocess.run([ISQL, self.sql_address, "dba", password or self.password, "VERBOSE=OFF", "BANNER=OFF",
                               "ERRORS=STDOUT", f"EXEC={sql}"], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        output = done.stdout + done.stderr
        if done.returncode != 0 or "*** Error" in output:
            raise StoreError(f"Virtuoso refused {sql[:200]!r}: {output.strip()[-800:]}")
        return output

    def count(self, graph: str | None = None) -> int:
        """The triples in `graph` (default: the loaded one)."""
        output = self.isql(f"SPARQL SELECT COUNT(*) FROM <{graph or self.graph}> WHERE {{ ?s ?p ?o }};")
        numbers = [line.strip() for line in output.splitlines() if line.strip().isdigit()]
        if not numbers:
            raise StoreError(f"Virtuoso did not count the triples of {graph or self.graph}: {output[-300:]}")
        return int(numbers[-1])

    def _loaded_so_far(self) -> int | None:
        """The triples in the graph while the bulk loader runs, counted without waiting for the loader's locks: a
        committed-read COUNT queued behind them for ten minutes on a 2M-triple load (which itself took 20 s) and
        kept the load waiting until it finished. None when Virtuoso does not answer within a few seconds."""
        try:
            output = self.isql(f"SET ISOLATION = 'uncommitted'; SPARQL SELECT COUNT(*) FROM <{self.graph}> WHERE {{ ?s ?p ?o }};",
                               timeout=PROGRESS_POLL_S)
        except (StoreError, subprocess.TimeoutExpired):
            return None
        numbers = [line.strip() for line in output.splitlines() if line.strip().isdigit()]
        return int(numbers[-1]) if numbers else None

    def load(self, bundle: Bundle, graph: str | None = None, progress=None, cache_dir: Path | None = None) -> int:
        """Bulk-load the bundle's graph files into `graph` (replacing what it held) and record their digest;
        returns the number of triples loaded. `progress` (a rich Progress) shows the triples loaded so far."""
        self.graph = graph or graph_iri(bundle)
        if not is_safe_iri(self.graph):
            raise StoreError(f"not a graph IRI: {self.graph!r}")
        files = [Path(f).resolve() for f in bundle.graph_files]
        if not files:
            raise StoreError(f"{bundle.name} has no graph files to load")
        expected = sum(_lines(f) for f in files) if all(_is_ntriples(f) for f in files) else None
        # row-by-row autocommit without the transaction log: clearing millions of triples in one transaction would not fit
        self.isql(f"log_enable(3, 1); SPARQL CLEAR GRAPH <{self.graph}>; DELETE FROM DB.DBA.load_list WHERE ll_graph = {_sql_string(self.graph)};")
        statements = [f"ld_dir({_sql_string(str(f.parent))}, {_sql_string(f.name)}, {_sql_string(self.graph)});" for f in files]
        self.isql(" ".join(statements))
        task = progress.add_task(f"loading {bundle.name} into Virtuoso", total=expected) if progress is not None else None
        failure: list[BaseException] = []

        def run_loader() -> None:
            try:
                self.isql("rdf_loader_run(); checkpoint;")
            except BaseException as exc:  # noqa: BLE001 - reported by the caller's thread
                failure.append(exc)

        loader = threading.Thread(target=run_loader, name="virtuoso loader", daemon=True)
        loader.start()
        while loader.is_alive():
            loader.join(1.0)
            if task is not None and loader.is_alive() and (so_far := self._loaded_so_far()) is not None:
                progress.update(task, completed=so_far)
        if failure:
            raise StoreError(f"loading {bundle.name} into Virtuoso failed: {failure[0]}")
        errors = self.isql(f"SELECT ll_file, ll_error FROM DB.DBA.load_list WHERE ll_graph = {_sql_string(self.graph)} "
                           "AND ll_error IS NOT NULL;")
        bad = [line for line in errors.splitlines() if any(str(f) in line for f in files)]
        if bad:
            raise StoreError(f"Virtuoso could not load {bundle.name}: {' '.join(bad)[:800]}")
        loaded = self.count()
        if task is not None:
            progress.update(task, total=loaded, completed=loaded)
        digest = loaded_digest(bundle, cache_dir)
        self.isql(f"SPARQL DELETE WHERE {{ GRAPH <{META_GRAPH}> {{ <{self.graph}> <{CONTENT_DIGEST}> ?d }} }}; "
                  f"SPARQL INSERT DATA {{ GRAPH <{META_GRAPH}> {{ <{self.graph}> <{CONTENT_DIGEST}> \"{digest}\" }} }}; checkpoint;")
        return loaded

    def stop(self, timeout: float = 60.0) -> None:
        """Stop the server by its pid (SIGTERM lets it checkpoint; SIGKILL after `timeout`)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()

    def disk_bytes(self) -> int:
        """Bytes of the database files (what a deployment backs up)."""
        return sum(f.stat().st_size for f in self.folder.glob("virtuoso*.db") if f.is_file()) + \
            sum(f.stat().st_size for f in self.folder.glob("virtuoso*.trx") if f.is_file())

    def __enter__(self) -> Virtuoso:
        return self.start() if self.process is None else self

    def __exit__(self, *exc) -> None:
        self.stop()


def _is_ntriples(path: Path) -> bool:
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    return name.endswith(".nt")


def _lines(path: Path) -> int:
    """Lines of an N-Triples file (about its triples: the progress bar's total)."""
    import gzip

    opener = gzip.open if path.name.endswith(".gz") else open
    count = 0
    with opener(path, "rb") as fh:
        while chunk := fh.read(1 << 22):
            count += chunk.count(b"\n")
    return count

"""Access to the knowledge graph: a persistent Oxigraph store on disk, or a remote SPARQL endpoint.

Both answer SELECT queries with rows of `Node`s, so everything above this module is
indifferent to where the graph lives (a narrow store protocol: `select(query)` and `describe()`).
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import urllib.parse
import xml.parsers.expat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from bot.core.cache import building, byte_progress, combine, file_digest, read_manifest, write_manifest
from bot.core.errors import StoreError
from bot.kg.bundle import Bundle

XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
SPARQL_NS = "http://www.w3.org/2005/sparql-results# "  # expat's "namespace local-name" form
XML_LANG = "http://www.w3.org/XML/1998/namespace lang"
log = logging.getLogger(__name__)


class Node(NamedTuple):
    """An RDF term in a query result: an IRI or a literal with its datatype (a tuple: results can have many rows)."""

    value: str
    is_iri: bool
    datatype: str = ""
    lang: str = ""


class LocalGraph:
    """A built Oxigraph store, opened read-only (cheap: ~0.5 s for 2M triples).

    An open read-only store keeps reading the files it opened, so a store folder replaced by a
    rebuild (built beside it, then moved into place) would go on answering from the old graph:
    every query first checks that the folder is still the one that was opened and reopens it
    when it was replaced. A store that cannot be opened or read raises StoreError (the user
    gets a friendly reply), and the next query tries again, so the bot recovers without a restart.
    """

    def __init__(self, path: Path):
        self.path = path
        self.store = None
        self._identity: tuple[int, int] | None = None
        self._open()

    def _folder_identity(self) -> tuple[int, int] | None:
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_dev, stat.st_ino

    def _open(self) -> None:
        import pyoxigraph

        identity = self._folder_identity()
        try:
            store = pyoxigraph.Store.read_only(str(self.path))
        except OSError as exc:
            raise StoreError(f"cannot open the store at {self.path}: {exc}") from exc
        self.store, self._identity = store, identity

    def _current(self):
        identity = self._folder_identity()
        if identity is not None and identity != self._identity:
            log.warning("the store at %s was replaced (a rebuild?); reopening it", self.path)
            self._open()
        return self.store

    def select(self, query: str) -> list[dict[str, Node]]:
        return list(self.scan(query))

    def scan(self, query: str) -> Iterator[dict[str, Node]]:
        """The rows of `query` one by one, as the store yields them: a build-time read of a whole relation (see
        RemoteGraph.scan) never holds millions of rows in memory at once."""
        import pyoxigraph

        try:
            solutions = self._current().query(query)
        except SyntaxError as exc:
            raise StoreError(f"bad SPARQL: {exc}") from exc
        except OSError as exc:  # the store's files went away or cannot be read
            raise StoreError(f"cannot read the store at {self.path}: {exc}") from exc
        names = [v.value for v in solutions.variables]
        named, literal = pyoxigraph.NamedNode, pyoxigraph.Literal
        try:
            for solution in solutions:  # evaluated lazily: reading can fail here too
                row = {}
                for name in names:
                    term = solution[name]
                    if term is None:
                        continue
                    kind = type(term)
                    if kind is named:
                        row[name] = Node(term.value, True)
                    elif kind is literal:
                        row[name] = Node(term.value, False, term.datatype.value, term.language or "")
                    else:
                        row[name] = Node(str(term), False, "bnode")
                yield row
        except OSError as exc:
            raise StoreError(f"cannot read the store at {self.path}: {exc}") from exc

    def describe(self) -> str:
        return f"Oxigraph store {self.path}"


class EndpointTimeout(StoreError):
    """A remote endpoint did not answer within the time limit."""


class RemoteGraph:
    """A SPARQL 1.1 endpoint over HTTP (`oxigraph serve`, Virtuoso, Fuseki, Blazegraph).

    Queries go over a pool of kept-alive connections (urllib3), each with a time limit; a
    connection that cannot be made (the endpoint restarting) is retried with exponential
    backoff before the query fails with a StoreError, which the agent turns into "I cannot
    reach my knowledge graph right now"; the next query tries again, so the bot recovers by
    itself when the endpoint is back.

    The URL's own query parameters (`?default-graph-uri=urn:moviebot:demo`) are sent with
    every query: a Virtuoso endpoint's default dataset is the union of all its graphs,
    system graphs included, and this names the one graph the bot reads.

    Engine behaviour that would silently change answers is handled here, never in the
    (standard SPARQL 1.1) templates: Virtuoso cuts a result at its `ResultSetMaxRows` (and over
    HTTP at 2^20 = 1,048,576 rows whatever that setting says) and says so only in an
    `X-SPARQL-MaxRows` header, so such a result is read again in pages
    (the documented scrollable-cursor form: ORDER BY in a subquery, LIMIT/OFFSET outside);
    and it returns partial "anytime" results when a query runs past `MaxQueryExecutionTime`
    (an `X-SQL-State` header), which is an error here: a partial answer is a wrong answer.

    Questions' queries read JSON results. Build-time scans of millions of rows read the XML
    results format instead, parsed while they arrive: every SPARQL 1.1 endpoint serves it, and
    Virtuoso writes it about 3x faster than JSON (the 586k cast pairs of a 2M-triple graph: 5.9 s
    against 20.5 s; building from that endpoint took 126 s instead of 167 s).
    """

    MAX_PAGES = 1000  # a result of more pages than this is refused rather than read for minutes

    def __init__(self, url: str, timeout: float = 30.0, retries: int = 3, backoff: float = 0.5, connections: int = 4,
                 scan_timeout: float = 1800.0):
        import urllib3

        parts = urllib.parse.urlsplit(url)
        self.url = url
        self.endpoint = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        self.params = urllib.parse.parse_qsl(parts.query)  # e.g. default-graph-uri, sent with every query
        self.timeout = timeout
        self.scan_timeout = max(scan_timeout, timeout)
        # only failures to connect are retried: the query never reached the endpoint, so a retry cannot run it twice
        self.retry = urllib3.Retry(total=retries, connect=retries, read=0, status=0, other=0, redirect=0,
                                   backoff_factor=backoff, raise_on_status=False)
        self.http = urllib3.PoolManager(num_pools=2, maxsize=connections, retries=self.retry)

    def request(self, query: str, accept: str, timeout: float | None = None, params: list[tuple[str, str]] | None = None):
        """POST `query` (with the URL's parameters, or `params`); the urllib3 response, body not yet read
        (`preload_content=False`: the caller streams it and releases the connection)."""
        import urllib3

        body = urllib.parse.urlencode([("query", query), *(self.params if params is None else params)])
        try:
            return self.http.request(
                "POST", self.endpoint, body=body.encode(),
                headers={"Accept": accept, "Content-Type": "application/x-www-form-urlencoded"},
                timeout=urllib3.Timeout(total=timeout or self.timeout), preload_content=False,
            )
        except urllib3.exceptions.MaxRetryError as exc:
            if isinstance(exc.reason, urllib3.exceptions.TimeoutError) and not isinstance(exc.reason, urllib3.exceptions.NewConnectionError):
                raise EndpointTimeout(f"SPARQL endpoint {self.url} did not answer within {timeout or self.timeout:g} s") from exc
            raise StoreError(f"SPARQL endpoint {self.url} is unreachable: {exc.reason}") from exc
        except urllib3.exceptions.TimeoutError as exc:
            raise EndpointTimeout(f"SPARQL endpoint {self.url} did not answer within {timeout or self.timeout:g} s") from exc
        except urllib3.exceptions.HTTPError as exc:
            raise StoreError(f"SPARQL endpoint {self.url} is unreachable: {exc}") from exc

    def _read(self, query: str, accept: str, parse: Callable, params: list[tuple[str, str]] | None = None,
              timeout: float | None = None):
        """`parse(response)` of one request's body, read as it arrives (within `timeout`, default the per-query
        limit), and the response headers; a failed, partial or broken-off answer is a StoreError."""
        import urllib3

        timeout = timeout or self.timeout
        response = self.request(query, accept, timeout=timeout, params=params)
        try:
            if response.status >= 400:
                raise StoreError(f"SPARQL endpoint {self.url} answered {response.status}: {response.read()[:300]!r}")
            if response.headers.get("X-SQL-State"):  # Virtuoso's "anytime" partial result
                raise StoreError(f"SPARQL endpoint {self.url} returned a partial result ({response.headers.get('X-SQL-State')}: "
                                 f"{response.headers.get('X-SQL-Message', '')}); the query ran past the endpoint's time limit")
            return parse(response), response.headers
        except urllib3.exceptions.TimeoutError as exc:
            raise EndpointTimeout(f"SPARQL endpoint {self.url} did not answer within {timeout:g} s") from exc
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise StoreError(f"SPARQL endpoint {self.url} broke off its answer: {exc}") from exc
        finally:
            response.release_conn()

    def _json(self, query: str, params: list[tuple[str, str]] | None = None, timeout: float | None = None) -> tuple[dict, dict]:
        """The parsed JSON results of one request, and the response headers."""
        def parse(response) -> dict:
            data = response.read()
            try:
                return json.loads(data)
            except ValueError as exc:
                raise StoreError(f"SPARQL endpoint {self.url} sent no JSON results: {data[:200]!r}") from exc

        return self._read(query, "application/sparql-results+json", parse, params, timeout)

    def select(self, query: str, timeout: float | None = None) -> list[dict[str, Node]]:
        def fetch(text: str) -> tuple[list[str], list[dict[str, Node]], dict]:
            payload, headers = self._json(text, timeout=timeout)
            rows = [_row(binding) for binding in payload.get("results", {}).get("bindings", [])]
            return payload.get("head", {}).get("vars", []), rows, headers

        return self._whole(query, fetch)

    def scan(self, query: str) -> list[dict[str, Node]]:
        """A build-time read of a whole relation (every label, every pair of a property), within `scan_timeout`, in
        the XML results format parsed as it streams in (its pages too, when the endpoint cuts it).

        A question's query that takes longer than `timeout` is a failure the user is told about; a scan that
        builds the label index or the embeddings reads millions of rows once (~2.5M labels of a 20M-triple
        graph as one result take minutes over HTTP) and must not fail by that limit."""
        def parse(response) -> tuple[list[str], list[dict[str, Node]]]:
            try:
                return xml_results(response)
            except xml.parsers.expat.ExpatError as exc:
                raise StoreError(f"SPARQL endpoint {self.url} sent no XML results: {exc}") from exc

        def fetch(text: str) -> tuple[list[str], list[dict[str, Node]], dict]:
            (names, rows), headers = self._read(text, "application/sparql-results+xml", parse, timeout=self.scan_timeout)
            return names, rows, headers

        return self._whole(query, fetch)

    def _whole(self, query: str, fetch: Callable) -> list[dict[str, Node]]:
        """`fetch(query)`'s rows, or, when the endpoint cut them at its row limit (`X-SPARQL-MaxRows`), every row of
        the result read page by page in one fixed order (ORDER BY in a subquery, LIMIT/OFFSET outside)."""
        names, rows, headers = fetch(query)
        cap = headers.get("X-SPARQL-MaxRows")
        if not (cap and cap.isdigit() and len(rows) >= int(cap)):
            return rows
        page = int(cap)
        prologue, body = split_prologue(query)
        order = " ".join(f"?{name}" for name in names)
        if not order:
            raise StoreError(f"SPARQL endpoint {self.url} cut a result without variables at {page} rows")
        log.info("%s cuts results at %d rows; reading the result in pages", self.url, page)
        rows = []
        for n in range(self.MAX_PAGES):
            paged = f"{prologue}SELECT * WHERE {{ {{ SELECT * WHERE {{ {{ {body} }} }} ORDER BY {order} }} }} LIMIT {page} OFFSET {n * page}"
            chunk = fetch(paged)[1]
            rows += chunk
            if len(chunk) < page:
                return rows
        raise StoreError(f"SPARQL endpoint {self.url}: a result of more than {self.MAX_PAGES * page:,} rows")

    def fingerprint(self) -> str:
        """What the graph behind the endpoint holds, cheaply: the content digest its loader recorded
        (`moviebot kg serve-virtuoso` records the sha256 of the loaded files in a metadata graph),
        else the number of triples of each predicate."""
        graphs = [value for key, value in self.params if key == "default-graph-uri"]
        if graphs:
            query = f"SELECT ?digest WHERE {{ GRAPH <{META_GRAPH}> {{ <{graphs[0]}> <{CONTENT_DIGEST}> ?digest }} }}"
            try:
                rows = self._json(query, params=[("named-graph-uri", META_GRAPH)])[0]["results"]["bindings"]
            except (StoreError, KeyError):
                rows = []
            if len(rows) == 1:
                return "loaded:" + rows[0]["digest"]["value"]
        counts = sorted((row["p"].value, row["n"].value) for row in self.scan(PREDICATE_COUNTS) if "p" in row and "n" in row)
        return "counts:" + combine(*(f"{p} {n}" for p, n in counts))

    def close(self) -> None:
        self.http.clear()

    def describe(self) -> str:
        return f"SPARQL endpoint {self.url}"


META_GRAPH = "urn:moviebot:meta"  # where a moviebot loader records what it loaded into an endpoint
CONTENT_DIGEST = "urn:moviebot:contentDigest"  # <graph> this "sha256 of the loaded files"
PREDICATE_COUNTS = "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p"
_PROLOGUE = re.compile(r"^(?:\s+|#[^\n]*\n|(?:PREFIX\s+[^:\s]*:\s*<[^>]*>|BASE\s*<[^>]*>))*", re.I)


def split_prologue(query: str) -> tuple[str, str]:
    """(the PREFIX/BASE lines, the rest): a query's prologue cannot stand inside a subquery."""
    end = _PROLOGUE.match(query).end()
    return query[:end], query[end:]


def _term(kind: str, value: str, datatype: str = "", lang: str = "") -> Node:
    """A result term of either results format ("uri", "literal" or JSON's "typed-literal", else a blank node)."""
    if kind == "uri":
        return Node(value, True)
    if kind in ("literal", "typed-literal"):
        return Node(value, False, datatype or (RDF_LANG_STRING if lang else XSD + "string"), lang)
    return Node(value, False, "bnode")


def _row(binding: dict) -> dict[str, Node]:
    """One row of SPARQL JSON results."""
    return {name: _term(term.get("type", ""), term.get("value", ""), term.get("datatype", ""), term.get("xml:lang", ""))
            for name, term in binding.items()}


def xml_results(stream) -> tuple[list[str], list[dict[str, Node]]]:
    """(the variables, the rows) of SPARQL XML results read from `stream` as it arrives, with expat's callbacks
    (a scan holds millions of rows: no element tree is built; expat's callbacks took 7.5 s for 586k rows where
    ElementTree's iterparse took 11.2 s, on the same loaded machine)."""
    names: list[str] = []
    rows: list[dict[str, Node]] = []
    row: dict[str, Node] = {}
    binding, term, attrs, text = "", "", {}, []

    def start(tag: str, attributes: dict) -> None:
        nonlocal row, binding, term, attrs, text
        local = tag[len(SPARQL_NS) :] if tag.startswith(SPARQL_NS) else tag
        if local in ("uri", "literal", "bnode"):
            term, attrs, text = local, attributes, []
        elif local == "binding":
            binding = attributes.get("name", "")
        elif local == "result":
            row = {}
        elif local == "variable":
            names.append(attributes.get("name", ""))

    def end(tag: str) -> None:
        nonlocal term
        local = tag[len(SPARQL_NS) :] if tag.startswith(SPARQL_NS) else tag
        if local == term:
            row[binding] = _term(term, "".join(text), attrs.get("datatype", ""), attrs.get(XML_LANG, ""))
            term = ""
        elif local == "result":
            rows.append(row)

    def characters(data: str) -> None:
        if term:
            text.append(data)

    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    parser.buffer_text = True
    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, characters
    while chunk := stream.read(1 << 16):
        parser.Parse(chunk, False)
    parser.Parse(b"", True)
    return names, rows


def open_graph(bundle: Bundle, folder: Path, settings=None) -> LocalGraph | RemoteGraph:
    """The bundle's graph: its endpoint (with the settings' time limit and retries), else its built store in `folder`."""
    if bundle.endpoint:
        if settings is None:
            return RemoteGraph(bundle.endpoint)
        return RemoteGraph(bundle.endpoint, settings.kg_timeout_s, settings.kg_retries, settings.kg_backoff_s,
                           scan_timeout=settings.kg_scan_timeout_s)
    return LocalGraph(folder / "store" / "db")


def graph_hash(bundle: Bundle, cache_dir: Path, graph: RemoteGraph | None = None) -> str:
    """Hash of the graph data (file contents) plus the schema; for an endpoint, of what it holds
    (`RemoteGraph.fingerprint`), so models built on one graph are not reused for another behind the same URL."""
    if bundle.endpoint:
        graph = graph or RemoteGraph(bundle.endpoint)
        return combine("endpoint", graph.fingerprint(), bundle.schema_hash())
    digests = [file_digest(f, cache_dir) for f in bundle.graph_files]
    return combine("graph", *digests)


def _rdf_format(path: Path):
    import pyoxigraph

    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    suffix = name.rsplit(".", 1)[-1].lower()
    return {
        "nt": pyoxigraph.RdfFormat.N_TRIPLES,
        "ttl": pyoxigraph.RdfFormat.TURTLE,
        "nq": pyoxigraph.RdfFormat.N_QUADS,
        "trig": pyoxigraph.RdfFormat.TRIG,
        "n3": pyoxigraph.RdfFormat.N3,
        "rdf": pyoxigraph.RdfFormat.RDF_XML,
        "xml": pyoxigraph.RdfFormat.RDF_XML,
    }[suffix]


def build_store(bundle: Bundle, folder: Path, quiet: bool = False) -> Path:
    """Bulk-load the bundle's graph files into an Oxigraph store under `folder` (cached by content hash); return its path."""
    import pyoxigraph

    target = folder / "store"
    key = graph_hash(bundle, folder.parent)
    if target.is_dir() and read_manifest(target).get("key") == key:
        return target / "db"
    with building(target) as tmp:
        store = pyoxigraph.Store(str(tmp / "db"))
        total = sum(f.stat().st_size for f in bundle.graph_files)
        with byte_progress() as bar:
            task = bar.add_task("loading graph", total=total, visible=not quiet)
            for file in bundle.graph_files:
                with open(file, "rb") as raw:
                    fh = gzip.GzipFile(fileobj=raw) if file.name.endswith(".gz") else raw
                    try:
                        store.bulk_load(_ProgressReader(fh, raw, bar, task), _rdf_format(file), base_iri=file.as_uri())
                    except SyntaxError as exc:
                        raise StoreError(f"{file}: not valid RDF: {exc}") from exc
        store.optimize()
        store.flush()
        del store
        write_manifest(tmp, key=key, files=[str(f) for f in bundle.graph_files])
    return target / "db"


class _ProgressReader:
    """A binary reader that advances a progress bar by the bytes read from the file on disk."""

    def __init__(self, fh, raw, bar, task):
        self.fh, self.raw, self.bar, self.task = fh, raw, bar, task
        self.last = raw.tell()

    def read(self, size=-1):
        data = self.fh.read(size)
        pos = self.raw.tell()
        self.bar.advance(self.task, pos - self.last)
        self.last = pos
        return data

    def readinto(self, buffer):
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readable(self):
        return True

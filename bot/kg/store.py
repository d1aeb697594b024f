"""Access to the knowledge graph: a persistent Oxigraph store on disk, or a remote SPARQL endpoint.

Both answer SELECT queries with rows of `Node`s, so everything above this module is
indifferent to where the graph lives (a narrow store protocol: `select(query)` and `describe()`).
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import NamedTuple

from bot.core.cache import building, byte_progress, combine, file_digest, read_manifest, write_manifest
from bot.core.errors import StoreError
from bot.kg.bundle import Bundle

XSD = "http://www.w3.org/2001/XMLSchema#"
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
        import pyoxigraph

        try:
            solutions = self._current().query(query)
        except SyntaxError as exc:
            raise StoreError(f"bad SPARQL: {exc}") from exc
        except OSError as exc:  # the store's files went away or cannot be read
            raise StoreError(f"cannot read the store at {self.path}: {exc}") from exc
        names = [v.value for v in solutions.variables]
        named, literal = pyoxigraph.NamedNode, pyoxigraph.Literal
        rows = []
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
                rows.append(row)
        except OSError as exc:
            raise StoreError(f"cannot read the store at {self.path}: {exc}") from exc
        return rows


    def describe(self) -> str:
        return f"Oxigraph store {self.path}"


class RemoteGraph:
    """A SPARQL 1.1 endpoint over HTTP (e.g. `oxigraph serve`, Fuseki, Blazegraph)."""

    def __init__(self, url: str, timeout: float = 30.0):
        self.url = url
        self.timeout = timeout

    def select(self, query: str) -> list[dict[str, Node]]:
        request = urllib.request.Request(
            self.url,
            data=urllib.parse.urlencode({"query": query}).encode(),
            headers={
                "Accept": "application/sparql-results+json",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.load(response)
        except urllib.error.HTTPError as exc:
            raise StoreError(f"SPARQL endpoint {self.url} answered {exc.code}: {exc.read()[:300]!r}") from exc
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise StoreError(f"SPARQL endpoint {self.url} is unreachable: {exc}") from exc
        rows = []
        for binding in payload.get("results", {}).get("bindings", []):
            row = {}
            for name, term in binding.items():
                if term.get("type") == "uri":
                    row[name] = Node(term["value"], True)
                elif term.get("type") in ("literal", "typed-literal"):
                    row[name] = Node(term["value"], False, term.get("datatype", XSD + "string"), term.get("xml:lang", ""))
                else:
                    row[name] = Node(term.get("value", ""), False, "bnode")
            rows.append(row)
        return rows

    def describe(self) -> str:
        return f"SPARQL endpoint {self.url}"


def graph_hash(bundle: Bundle, cache_dir: Path) -> str:
    """Hash of the graph data (file contents) plus the schema, or of the endpoint URL."""
    if bundle.endpoint:
        return combine("endpoint", bundle.endpoint, bundle.schema_hash())
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

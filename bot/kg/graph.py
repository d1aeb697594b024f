"""Building and opening a knowledge graph: bundle + store + label index.

`build_graph()` does the slow steps once, with progress bars, into a cache folder named
after the hash of the graph; each artefact records the hash of its inputs in a manifest
(the graph, the schema and the code that builds it) and is rebuilt when they change.
`open_kg()` reopens the result in about a second. The models trained on a KG (question
classifier, NER tagger, embeddings) are built by their own layers into the same folder.
"""

from __future__ import annotations

import logging
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path

from bot.core.cache import code_digest, combine, gc_paused, keep_code_digests, progress, read_manifest, write_manifest
from bot.core.config import Settings
from bot.kg.bundle import Bundle, load_bundle
from bot.kg.film_table import FilmTable, build_film_table
from bot.kg.labels import LabelIndex, build_label_index
from bot.kg.store import LocalGraph, RemoteGraph, build_store, graph_hash, open_graph

log = logging.getLogger(__name__)
LABELS = "labels.pkl"
FILMS = "films.pkl"


@dataclass
class KG:
    """What every layer reads: the schema, the graph and the label index, with the build folder."""

    bundle: Bundle
    graph: LocalGraph | RemoteGraph
    labels: LabelIndex
    folder: Path  # the build cache folder
    key: str  # hash of the graph
    films_file: Path | None = None  # the saved film table (see `films`)
    loaded_films: FilmTable | None = field(default=None, repr=False)
    films_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def films(self) -> FilmTable:
        """The film table (bot.kg.film_table: each relation's films and values as arrays), loaded on first use:
        only compositional questions about hub values read it, and on a 20M-triple graph it is ~250 MB that every
        start would otherwise wait for."""
        if self.loaded_films is None:
            with self.films_lock:
                if self.loaded_films is None:
                    self.loaded_films = FilmTable.load(self.films_file) if self.films_file is not None else FilmTable()
        return self.loaded_films


def is_endpoint(kg: str) -> bool:
    return kg.startswith(("http://", "https://"))


def resolve_bundle(settings: Settings) -> Bundle:
    """The bundle named by settings.kg, or the schema bundle pointed at a remote endpoint."""
    if is_endpoint(settings.kg):
        schema = load_bundle(settings.schema)
        return Bundle(**{**schema.__dict__, "endpoint": settings.kg, "graph_files": ()})
    return load_bundle(settings.kg)


def cache_folder(bundle: Bundle, settings: Settings, graph: RemoteGraph | None = None) -> tuple[Path, str]:
    """The build folder of the bundle's graph (named after its content hash) and that hash.
    For an endpoint, `graph` (else a new connection) is asked what it holds."""
    root = Path(settings.cache_dir).expanduser()
    root.mkdir(parents=True, exist_ok=True)
    key = graph_hash(bundle, root, graph)
    return root / f"{bundle.name}-{key[:16]}", key


def artefact_fresh(folder: Path, name: str, key: str) -> bool:
    """Whether `folder/name` exists and the manifest says it was built from inputs hashing to `key`."""
    return (folder / name).exists() and read_manifest(folder).get(name) == key


def record_artefact(folder: Path, name: str, key: str) -> None:
    manifest = read_manifest(folder)
    manifest[name] = key
    write_manifest(folder, **manifest)


def _labels_key(bundle: Bundle, graph_key: str) -> str:
    from bot.core import english
    from bot.kg import families, labels, queries, variants

    return combine(graph_key, bundle.schema_hash(), code_digest(labels, queries, variants, english, families))


def _films_key(bundle: Bundle, graph_key: str) -> str:
    from bot.kg import film_table

    return combine(_labels_key(bundle, graph_key), code_digest(film_table))


def build_graph(settings: Settings, quiet: bool = False, force: bool = False) -> KG:
    """Build (or reuse) the store and the label index for settings.kg."""
    bundle = resolve_bundle(settings)
    remote = open_graph(bundle, Path(), settings) if bundle.endpoint else None
    folder, key = cache_folder(bundle, settings, remote)
    folder.mkdir(parents=True, exist_ok=True)
    if remote is not None:
        graph = remote
    else:
        if force and (folder / "store").exists():
            shutil.rmtree(folder / "store")
        graph = LocalGraph(build_store(bundle, folder, quiet=quiet))
    labels_key = _labels_key(bundle, key)
    if force or not artefact_fresh(folder, LABELS, labels_key):
        with progress() as bar:
            index = build_label_index(graph, bundle, bar if not quiet else None)
        index.save(folder / LABELS)
        record_artefact(folder, LABELS, labels_key)
    with gc_paused():
        labels = LabelIndex.load(folder / LABELS)
    films_key = _films_key(bundle, key)
    if force or not artefact_fresh(folder, FILMS, films_key):
        with progress() as bar:
            table = build_film_table(graph, bundle, labels, bar if not quiet else None)
        table.save(folder / FILMS)
        record_artefact(folder, FILMS, films_key)
    return KG(bundle, graph, labels, folder, key, folder / FILMS)


def open_kg(settings: Settings, build_if_missing: bool = True) -> KG:
    """Open a built KG; builds it first (with progress bars) when nothing fresh is cached."""
    keep_code_digests(Path(settings.cache_dir).expanduser())
    bundle = resolve_bundle(settings)
    remote = open_graph(bundle, Path(), settings) if bundle.endpoint else None
    folder, key = cache_folder(bundle, settings, remote)
    fresh = (bundle.endpoint or read_manifest(folder / "store").get("key") == key) and artefact_fresh(
        folder, LABELS, _labels_key(bundle, key)
    ) and artefact_fresh(folder, FILMS, _films_key(bundle, key))
    if not fresh:
        if not build_if_missing:
            raise FileNotFoundError(f"{bundle.name} is not built yet: run `moviebot build --kg {settings.kg}`")
        log.info("building %s (first use or changed inputs)", bundle.name)
        return build_graph(settings)
    graph = remote or LocalGraph(folder / "store" / "db")
    with gc_paused():
        labels = LabelIndex.load(folder / LABELS)
    return KG(bundle, graph, labels, folder, key, folder / FILMS)

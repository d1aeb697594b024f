"""Building and opening a knowledge graph: bundle + store + label index + trained models.

`build()` does every slow step once, with progress bars, into a cache folder named after
the hash of the graph; each artefact records the hash of its own inputs in a manifest and
is rebuilt when they change. `open_kg()` reopens the result in about a second.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from . import __version__
from .bundle import Bundle, load_bundle
from .cache import combine, progress, read_manifest, write_manifest
from .classify import ChainClassifier
from .config import Settings
from .labels import LabelIndex, build_label_index
from .store import LocalGraph, RemoteGraph, build_store, graph_hash

log = logging.getLogger(__name__)
CLASSIFIER_VERSION = "chain-clf-5"
LABELS_VERSION = "labels-2"  # roles per entity


@dataclass
class KG:
    """Everything the agent needs to read: the schema, the graph, the label index and the models."""

    bundle: Bundle
    graph: LocalGraph | RemoteGraph
    labels: LabelIndex
    classifier: ChainClassifier
    folder: Path  # the build cache folder
    key: str  # hash of the graph


def is_endpoint(kg: str) -> bool:
    return kg.startswith(("http://", "https://"))


def resolve_bundle(settings: Settings) -> Bundle:
    """The bundle named by settings.kg, or the schema bundle pointed at a remote endpoint."""
    if is_endpoint(settings.kg):
        schema = load_bundle(settings.schema)
        return Bundle(**{**schema.__dict__, "endpoint": settings.kg, "graph_files": ()})
    return load_bundle(settings.kg)


def cache_folder(bundle: Bundle, settings: Settings) -> tuple[Path, str]:
    root = Path(settings.cache_dir).expanduser()
    root.mkdir(parents=True, exist_ok=True)
    key = graph_hash(bundle, root)
    return root / f"{bundle.name}-{key[:16]}", key


def _artefact_fresh(folder: Path, name: str, key: str) -> bool:
    return (folder / name).exists() and read_manifest(folder).get(name) == key


def _record(folder: Path, name: str, key: str) -> None:
    manifest = read_manifest(folder)
    manifest[name] = key
    write_manifest(folder, **manifest)


def _labels_key(bundle: Bundle, graph_key: str) -> str:
    return combine(graph_key, bundle.schema_hash(), __version__, LABELS_VERSION)


def _classifier_key(bundle: Bundle) -> str:
    return combine(bundle.schema_hash(), CLASSIFIER_VERSION)


def build(settings: Settings, quiet: bool = False, force: bool = False) -> Path:
    """Build (or reuse) the store, label index and classifier for settings.kg; return the cache folder."""
    bundle = resolve_bundle(settings)
    folder, key = cache_folder(bundle, settings)
    folder.mkdir(parents=True, exist_ok=True)
    if bundle.endpoint:
        graph = RemoteGraph(bundle.endpoint)
    else:
        if force and (folder / "store").exists():
            import shutil

            shutil.rmtree(folder / "store")
        graph = LocalGraph(build_store(bundle, folder, quiet=quiet))
    labels_key, clf_key = _labels_key(bundle, key), _classifier_key(bundle)
    if force or not _artefact_fresh(folder, "labels.pkl", labels_key):
        with progress() as bar:
            index = build_label_index(graph, bundle, bar if not quiet else None)
        index.save(folder / "labels.pkl")
        _record(folder, "labels.pkl", labels_key)
    if force or not _artefact_fresh(folder, "classifier.pkl", clf_key):
        with progress() as bar:
            task = bar.add_task("question classifier", total=1, visible=not quiet)
            ChainClassifier.train(bundle).save(folder / "classifier.pkl")
            bar.advance(task)
        _record(folder, "classifier.pkl", clf_key)
    from .features import run_build_steps

    run_build_steps(settings, bundle, folder, key, quiet=quiet, force=force)
    return folder


def open_kg(settings: Settings, build_if_missing: bool = True) -> KG:
    """Open a built KG; builds it first (with progress bars) when nothing fresh is cached."""
    bundle = resolve_bundle(settings)
    folder, key = cache_folder(bundle, settings)
    fresh = (
        (bundle.endpoint or read_manifest(folder / "store").get("key") == key)
        and _artefact_fresh(folder, "labels.pkl", _labels_key(bundle, key))
        and _artefact_fresh(folder, "classifier.pkl", _classifier_key(bundle))
    )
    if not fresh:
        if not build_if_missing:
            raise FileNotFoundError(f"{bundle.name} is not built yet: run `moviebot build --kg {settings.kg}`")
        log.info("building %s (first use or changed inputs)", bundle.name)
        build(settings)
    graph = RemoteGraph(bundle.endpoint) if bundle.endpoint else LocalGraph(folder / "store" / "db")
    return KG(bundle, graph, LabelIndex.load(folder / "labels.pkl"), ChainClassifier.load(folder / "classifier.pkl"), folder, key)

"""The embeddings build step: validate the bundle's own vectors or train new ones, cached by their inputs.

A bundle may ship vectors (the demo KG's live in the top-level `embeddings/` folder): they are
used when the graph hash recorded beside them matches the graph and they cover it; otherwise a
warning says why and fresh ones are trained — stale vectors are never used silently.
"""

from __future__ import annotations

import importlib.util
import logging
from dataclasses import asdict
from pathlib import Path

from bot.answering.embeddings.transe import TransEConfig, TripleSet, entity_properties, epochs_for, graph_triples, train_transe
from bot.answering.embeddings.vectors import Embeddings
from bot.core.cache import building, code_digest, combine, file_digest, progress, read_manifest, write_manifest
from bot.core.errors import EmbeddingError
from bot.kg.bundle import Bundle

log = logging.getLogger(__name__)
FOLDER = "embeddings"


def training_code() -> str:
    """The code that reads the triples, trains and stores the vectors."""
    from bot.answering.embeddings import transe, vectors
    from bot.kg import queries

    return code_digest(transe, vectors, queries)


def config_from(settings) -> TransEConfig:
    return TransEConfig(
        dim=settings.embedding_dim,
        epochs=settings.embedding_epochs,
        max_samples=settings.embedding_max_samples,
        seed=settings.embedding_seed,
        threads=settings.torch_threads,
    )


def _open_graph(bundle: Bundle, folder: Path):
    from bot.kg.store import open_graph

    return open_graph(bundle, folder)


def check_against_graph(embeddings: Embeddings, data: TripleSet, max_missing: float) -> str | None:
    """Why `embeddings` do not fit the graph (None when they do)."""
    missing_rel = [r for r in data.relations if r not in embeddings.relation_row]
    if missing_rel:
        return f"{len(missing_rel)} of the graph's {len(data.relations)} relations have no vector (e.g. {missing_rel[0]})"
    missing = [e for e in data.entities if e not in embeddings.entity_row]
    if len(missing) > max_missing * max(1, len(data.entities)):
        return (
            f"{len(missing):,} of the graph's {len(data.entities):,} entities have no vector "
            f"(e.g. {', '.join(missing[:3])}); at most {max_missing:.0%} may be missing"
        )
    if missing:
        log.warning("shipped embeddings lack %d of %d graph entities (e.g. %s); predictions skip them", len(missing), len(data.entities), missing[0])
    return None


def shipped_embeddings(bundle: Bundle, key: str, data: TripleSet, max_missing: float) -> Embeddings | None:
    """The bundle's own vectors when they fit this graph; otherwise None and a warning that says why."""
    folder = bundle.embeddings
    if folder is None:
        return None
    try:
        built_from = read_manifest(folder).get("graph")
        if built_from and built_from != key:
            raise EmbeddingError(f"they were built from another graph (hash {built_from[:12]}, this graph is {key[:12]})")
        embeddings = Embeddings.load(folder)
        problem = check_against_graph(embeddings, data, max_missing)
        if problem:
            raise EmbeddingError(problem)
    except EmbeddingError as exc:
        log.warning("not using the embeddings shipped in %s: %s; training new ones instead", folder, exc)
        return None
    return embeddings


def artefact_key(settings, bundle: Bundle, key: str) -> str:
    """What the embeddings folder is keyed by: graph hash, relations, training settings and code, shipped files."""
    shipped = []
    if bundle.embeddings is not None:
        memo = Path(settings.cache_dir).expanduser()
        shipped = [file_digest(p, memo) for p in sorted(bundle.embeddings.glob("*")) if p.is_file()]
    return combine(training_code(), key, *entity_properties(bundle), config_from(settings).key(), str(settings.embedding_max_missing), *shipped)


def build_step(settings, bundle: Bundle, folder: Path, key: str, quiet: bool = False, force: bool = False) -> None:
    """Train (or validate the bundle's) embeddings into folder/embeddings, unless fresh ones are there."""
    target = folder / FOLDER
    wanted = artefact_key(settings, bundle, key)
    if not force and read_manifest(target).get("key") == wanted:
        return
    with progress() as bar:
        task = bar.add_task("embeddings: reading triples", total=None, visible=not quiet)
        data = graph_triples(_open_graph(bundle, folder), bundle)
        if len(data.triples) == 0:
            log.warning("the graph has no entity-to-entity triples: no embeddings")
            return
        embeddings = shipped_embeddings(bundle, key, data, settings.embedding_max_missing)
        source = f"bundle:{bundle.embeddings}" if embeddings is not None else "trained"
        if embeddings is None:
            if importlib.util.find_spec("torch") is None:
                log.warning("KG embeddings are off: torch is not installed (pip install -e '.[embeddings]')")
                return
            config = config_from(settings)
            bar.update(task, description=f"embeddings: TransE on {len(data.triples):,} triples", total=epochs_for(config, len(data.triples)), completed=0)
            embeddings = train_transe(data, config, on_epoch=lambda *_: bar.advance(task))
        with building(target) as tmp:
            embeddings.save(tmp)
            write_manifest(
                tmp,
                key=wanted,
                graph=key,
                code=training_code(),
                source=source,
                settings=asdict(config_from(settings)),
                triples=len(data.triples),
                entities=len(embeddings.entities),
            )


def load_embeddings(folder: Path, wanted: str) -> Embeddings:
    """The built embeddings in `folder`, refusing ones built for other inputs."""
    target = folder / FOLDER
    found = read_manifest(target).get("key")
    if found != wanted:
        raise EmbeddingError(f"the embeddings in {target} were built for other inputs or not at all")
    return Embeddings.load(target)

"""The demo KG's shipped TransE embeddings (embeddings/): current with the graph, used at start without training, reproducible."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from bot.answering.embeddings import artefacts
from bot.answering.embeddings.vectors import COURSE_FILES, Embeddings
from bot.core.cache import read_manifest
from bot.core.config import Settings
from bot.kg.bundle import load_bundle
from bot.kg.graph import build_graph
from bot.kg.store import graph_hash
from bot.resources import demo_embeddings, demo_kg

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
import train_demo_embeddings  # noqa: E402  (a script module, imported by path)

REGENERATE = "run `.venv/bin/python scripts/train_demo_embeddings.py` and commit embeddings/ (see kg/README.md)"


def test_the_demo_bundle_points_at_the_shipped_embeddings():
    assert load_bundle(demo_kg()).embeddings == demo_embeddings().resolve()


def test_shipped_embeddings_were_trained_from_the_current_demo_graph(tmp_path):
    """Fails when kg/graph.ttl (or deliberate_errors.ttl) changed and the embeddings were not regenerated."""
    recorded = read_manifest(demo_embeddings()).get("graph")
    current = graph_hash(load_bundle(demo_kg()), tmp_path)
    assert recorded == current, f"the demo graph changed since embeddings/ was trained (recorded {recorded}, graph {current}): {REGENERATE}"


def test_shipped_files_are_the_course_layout_and_small():
    folder = demo_embeddings()
    embeddings = Embeddings.load(folder)
    manifest = read_manifest(folder)
    assert embeddings.dim == manifest["settings"]["dim"] == 128
    assert embeddings.entity_vectors.dtype == np.float32
    assert len(embeddings.entities) == manifest["entities"] > 4000
    assert manifest["source"] == "trained" and manifest["settings"]["threads"] == 1
    assert sum((folder / name).stat().st_size for name in COURSE_FILES) < 4_000_000


@pytest.mark.integration
def test_the_demo_kg_uses_the_shipped_vectors_without_training(tmp_path, monkeypatch):
    def no_training(*args, **kwargs):
        raise AssertionError("the demo KG's embeddings were trained although shipped ones fit")

    monkeypatch.setattr(artefacts, "train_transe", no_training)
    settings = Settings(kg=str(demo_kg()), cache_dir=str(tmp_path / "cache"), features=("embeddings",))
    kg = build_graph(settings, quiet=True)
    artefacts.build_step(settings, kg.bundle, kg.folder, kg.key, quiet=True)
    manifest = read_manifest(kg.folder / artefacts.FOLDER)
    assert manifest["source"] == f"bundle:{demo_embeddings().resolve()}"
    built = artefacts.load_embeddings(kg.folder, manifest["key"])
    assert np.array_equal(built.entity_vectors, Embeddings.load(demo_embeddings()).entity_vectors)


@pytest.mark.integration
def test_training_twice_gives_identical_files_that_fit_the_graph(tmp_path):
    pytest.importorskip("torch")
    first = train_demo_embeddings.train(demo_kg(), tmp_path / "1")
    second = train_demo_embeddings.train(demo_kg(), tmp_path / "2")
    assert first == second
    for name in (*COURSE_FILES, train_demo_embeddings.MANIFEST):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name
    assert first["graph"] == graph_hash(load_bundle(demo_kg()), tmp_path)
    assert len(Embeddings.load(tmp_path / "1").entities) == first["entities"]

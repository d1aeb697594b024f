"""KG embeddings: course-layout files, cache keys, shipped vectors, link predictions and answers."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from bot.agent import build
from bot.answering.embeddings.artefacts import FOLDER, build_step
from bot.answering.embeddings.space import EmbeddingSpace
from bot.answering.embeddings.transe import TransEConfig, TripleSet, train_transe
from bot.answering.embeddings.vectors import COURSE_FILES, Embeddings
from bot.core.cache import read_manifest
from bot.core.errors import EmbeddingError
from bot.kg.bundle import load_bundle
from bot.kg.graph import cache_folder
from bot.kg.labels import LabelIndex

pytestmark = pytest.mark.integration

T = "http://test.invalid/"
P57 = "http://www.wikidata.org/prop/direct/P57"
P136 = "http://www.wikidata.org/prop/direct/P136"


def label_index(entries: dict[str, str]) -> LabelIndex:
    """A label index of IRIs -> class group (labels are the local names)."""
    index = LabelIndex()
    for i, (entity, group) in enumerate(entries.items()):
        index.iris.append(entity)
        index.labels.append(entity.rsplit("/", 1)[-1])
        index.groups.append(group)
        index.degree.append(1)
        index.years.append(None)
        index.by_iri[entity] = i
    return index


# ---------------------------------------------------------------- files


def test_course_layout_round_trip(tmp_path):
    emb = Embeddings([T + "a", T + "b"], [P57], np.array([[1, 0], [0, 1]], np.float32), np.array([[0.5, 0.5]], np.float32))
    emb.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(COURSE_FILES)
    assert (tmp_path / "entity_ids.del").read_text().splitlines() == [f"0\t{T}a", f"1\t{T}b"]
    again = Embeddings.load(tmp_path)
    assert again.entities == emb.entities and again.relations == [P57]
    assert np.array_equal(again.entity_vectors, emb.entity_vectors)


def test_ids_files_in_any_order_and_with_angle_brackets(tmp_path):
    Embeddings([T + "a", T + "b"], [P57], np.eye(2, dtype=np.float32), np.ones((1, 2), np.float32)).save(tmp_path)
    (tmp_path / "entity_ids.del").write_text(f"1\t<{T}b>\n0\t<{T}a>\n")
    assert Embeddings.load(tmp_path).entity_row == {T + "a": 0, T + "b": 1}


@pytest.mark.parametrize(
    "content, problem",
    [("0 http://x.invalid/a\n", "index<TAB>IRI"), ("0\thttp://x.invalid/a\n2\thttp://x.invalid/b\n", "indices")],
)
def test_malformed_ids_are_refused(tmp_path, content, problem):
    Embeddings([T + "a", T + "b"], [P57], np.eye(2, dtype=np.float32), np.ones((1, 2), np.float32)).save(tmp_path)
    (tmp_path / "entity_ids.del").write_text(content)
    with pytest.raises(EmbeddingError, match=problem):
        Embeddings.load(tmp_path)


def test_vectors_that_do_not_fit_their_ids_are_refused():
    with pytest.raises(EmbeddingError):
        Embeddings([T + "a"], [P57], np.eye(2, dtype=np.float32), np.ones((1, 2), np.float32))


# ---------------------------------------------------------------- training and search


def test_transe_learns_a_translation():
    """Films of two directors and two genres: the true director and genre must rank first for every training film."""
    rows = []
    for i in range(12):
        film = f"{T}film{i}"
        rows.append((film, P57, f"{T}director{i % 3}"))
        rows.append((film, P136, f"{T}genre{i % 2}"))
    data = TripleSet.from_iris(rows)
    emb = train_transe(data, TransEConfig(dim=16, epochs=150, batches=3, learning_rate=0.05))
    groups = {e: ("film" if "film" in e else "person" if "director" in e else "genre") for e in data.entities}
    space = EmbeddingSpace(emb, label_index(groups))
    from bot.kg.bundle import Relation

    director = Relation("director", P57, "forward", "entity", "person", "director", "directors", (), (), ())
    genre = Relation("genre", P136, "forward", "entity", "genre", "genre", "genres", (), (), ())
    for i in range(12):
        assert space.predict(f"{T}film{i}", director, k=1)[0][0] == f"{T}director{i % 3}"
        assert space.predict(f"{T}film{i}", genre, k=1)[0][0] == f"{T}genre{i % 2}"


def test_nearest_is_exact_and_restricted_to_the_group():
    entities = [T + "f1", T + "f2", T + "f3", T + "p1"]
    vectors = np.array([[0, 0], [1, 0], [3, 0], [0.1, 0]], np.float32)
    space = EmbeddingSpace(Embeddings(entities, [P57], vectors, np.array([[1, 0]], np.float32)), label_index({T + "f1": "film", T + "f2": "film", T + "f3": "film", T + "p1": "person"}))
    near = space.nearest(np.array([0.2, 0], np.float32), "film", 2)
    assert [e for e, _ in near] == [T + "f1", T + "f2"]
    assert near[0][1] == pytest.approx(0.2, abs=1e-5)
    assert [e for e, _ in space.nearest(np.array([0.2, 0], np.float32), "film", 2, exclude={T + "f1"})] == [T + "f2", T + "f3"]


def test_inverse_relations_predict_against_the_stored_direction():
    from bot.kg.bundle import Relation

    entities = [T + "film", T + "a", T + "b"]
    vectors = np.array([[1, 0], [2, 0], [0, 0]], np.float32)  # stored (value, P, film): value + r = film
    space = EmbeddingSpace(Embeddings(entities, [P57], vectors, np.array([[1, 0]], np.float32)), label_index({T + "film": "film", T + "a": "person", T + "b": "person"}))
    forward = Relation("x", P57, "forward", "entity", "person", "x", "xs", (), (), ())
    inverse = Relation("x", P57, "inverse", "entity", "person", "x", "xs", (), (), ())
    assert space.predict(T + "film", forward, k=1)[0][0] == T + "a"
    assert space.predict(T + "film", inverse, k=1)[0][0] == T + "b"


# ---------------------------------------------------------------- build step and cache


def _built(mini_settings) -> tuple[Path, str]:
    """The mini bundle's build folder (store, labels, embeddings with the default settings) and graph hash."""
    bundle = load_bundle(mini_settings.kg)
    folder, key = cache_folder(bundle, mini_settings)
    build(mini_settings, quiet=True)
    return folder, key


def _scratch(mini_settings, tmp_path: Path) -> tuple[Path, str]:
    """A build folder that shares the mini store (read-only) but has embeddings of its own."""
    folder, key = _built(mini_settings)
    scratch = tmp_path / "build"
    scratch.mkdir()
    (scratch / "store").symlink_to(folder / "store")
    return scratch, key


def test_build_writes_course_files_keyed_by_graph_and_settings(mini_settings):
    folder, key = _built(mini_settings)
    target = folder / FOLDER
    manifest = read_manifest(target)
    assert all((target / name).is_file() for name in COURSE_FILES)
    assert manifest["graph"] == key and manifest["source"] == "trained"
    emb = Embeddings.load(target)
    assert "http://test.invalid/gwh" in emb.entity_row and P57 in emb.relation_row
    assert "http://www.wikidata.org/entity/Q11424" not in emb.entity_row  # types are not relation triples


def test_fresh_embeddings_are_reused_and_changed_settings_retrain(mini_settings, tmp_path):
    scratch, key = _scratch(mini_settings, tmp_path)
    bundle = load_bundle(mini_settings.kg)
    build_step(mini_settings, bundle, scratch, key, quiet=True)
    target = scratch / FOLDER
    before = (target / "entity_embeds.npy").stat().st_mtime_ns
    build_step(mini_settings, bundle, scratch, key, quiet=True)
    assert (target / "entity_embeds.npy").stat().st_mtime_ns == before
    build_step(mini_settings.with_overrides(embedding_dim=16, embedding_epochs=5), bundle, scratch, key, quiet=True)
    assert read_manifest(target)["settings"]["dim"] == 16 and Embeddings.load(target).dim == 16


def _bundle_with_shipped(mini_bundle: Path, tmp_path: Path, embeddings: Embeddings, manifest: dict | None = None):
    copy = tmp_path / "bundle"
    shutil.copytree(mini_bundle, copy)
    (copy / "vectors").mkdir()
    embeddings.save(copy / "vectors")
    if manifest is not None:
        (copy / "vectors" / "manifest.json").write_text(json.dumps(manifest))
    toml = (copy / "bundle.toml").read_text().replace('graph = ["graph.ttl"]', 'graph = ["graph.ttl"]\nembeddings = "vectors"')
    (copy / "bundle.toml").write_text(toml)
    return load_bundle(copy)


def test_shipped_embeddings_that_fit_are_used(mini_settings, mini_bundle, tmp_path):
    scratch, key = _scratch(mini_settings, tmp_path)
    trained = Embeddings.load(_built(mini_settings)[0] / FOLDER)
    shipped = Embeddings(trained.entities, trained.relations, trained.entity_vectors * 2, trained.relation_vectors)
    build_step(mini_settings, _bundle_with_shipped(mini_bundle, tmp_path, shipped), scratch, key, quiet=True)
    assert read_manifest(scratch / FOLDER)["source"].startswith("bundle:")
    assert np.allclose(Embeddings.load(scratch / FOLDER).entity_vectors, shipped.entity_vectors)


@pytest.mark.parametrize("problem", ["missing entities", "other graph"])
def test_shipped_embeddings_that_do_not_fit_are_replaced_with_a_warning(mini_settings, mini_bundle, tmp_path, caplog, problem):
    scratch, key = _scratch(mini_settings, tmp_path)
    trained = Embeddings.load(_built(mini_settings)[0] / FOLDER)
    if problem == "missing entities":
        keep = len(trained.entities) // 2
        shipped = Embeddings(trained.entities[:keep], trained.relations, trained.entity_vectors[:keep], trained.relation_vectors)
        manifest, reason = None, "have no vector"
    else:
        shipped, manifest, reason = trained, {"graph": "0" * 64}, "another graph"
    bundle = _bundle_with_shipped(mini_bundle, tmp_path, shipped, manifest)
    with caplog.at_level(logging.WARNING, logger="bot.answering.embeddings.artefacts"):
        build_step(mini_settings, bundle, scratch, key, quiet=True)
    assert any(reason in r.getMessage() and "training new ones" in r.getMessage() for r in caplog.records)
    assert read_manifest(scratch / FOLDER)["source"] == "trained"
    assert len(Embeddings.load(scratch / FOLDER).entities) == len(trained.entities)


# ---------------------------------------------------------------- answers through the agent


def test_missing_triple_is_answered_by_a_labelled_prediction(mini_agent):
    reply = mini_agent.answer("What is the genre of Hamlet?")  # neither Hamlet has a genre in the graph
    assert reply.kind == "factual"
    assert "prediction from the KG embeddings" in reply.text and "not a stored fact" in reply.text
    assert reply.facts and all(f.source == "embedding" for f in reply.facts)
    assert [f.detail["rank"] for f in reply.facts] == list(range(1, len(reply.facts) + 1)) and len(reply.facts) <= 3
    labels = mini_agent.kg.labels
    assert all(labels.info(f.value)[1] == "genre" for f in reply.facts)
    distances = [f.detail["distance"] for f in reply.facts]
    assert distances == sorted(distances)


def test_stored_triples_and_literal_relations_are_not_predicted(mini_agent):
    assert all(f.source == "kg" for f in mini_agent.answer("Who directed Good Will Hunting?").facts)
    reply = mini_agent.answer("What was the box office of Milk?")  # a number relation: no embedding guess
    assert all(f.source != "embedding" for f in reply.facts) and "embeddings" not in reply.text


def test_embedding_view_on_request_names_top_three_and_the_graph(mini_agent):
    reply = mini_agent.answer("What do the embeddings say about the director of Milk?")
    assert reply.kind == "embedding"
    assert "prediction from the KG embeddings" in reply.text and "Gus Van Sant" in reply.text
    assert len(reply.facts) == 3 and all(f.source == "embedding" for f in reply.facts)
    labels = mini_agent.kg.labels
    assert all(labels.info(f.value)[1] == "person" for f in reply.facts)
    assert any(f.detail["in_graph"] for f in reply.facts) == ("http://test.invalid/gvs" in {f.value for f in reply.facts})


def test_embedding_view_of_a_film_lists_its_nearest_films(mini_agent):
    reply = mini_agent.answer("What do the embeddings say about Elephant?")
    assert reply.kind == "embedding" and reply.facts
    labels = mini_agent.kg.labels
    assert all(labels.info(f.value)[1] == "film" and f.value != "http://test.invalid/elephant" for f in reply.facts)

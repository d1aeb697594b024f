"""The synthetic KG generator at a tiny scale: seeded, valid RDF, Wikidata-shaped, with remakes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict

import pyoxigraph
import pytest

from bot.core.config import DEFAULT_KG
from bot.kg.bundle import load_bundle

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
from synth_kg import generate  # noqa: E402

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth")
    return out, generate(out, scale=0.003, seed=3)


def test_graph_parses_and_matches_the_report(tiny):
    out, report = tiny
    triples = list(pyoxigraph.parse(path=str(out / "graph.nt")))
    assert len(triples) == report.triples == len(set(triples))
    films = {str(t.subject) for t in triples if t.predicate.value == WDT + "P31" and t.object.value == WD + "Q11424"}
    people = {str(t.subject) for t in triples if t.predicate.value == WDT + "P31" and t.object.value == WD + "Q5"}
    assert (len(films), len(people)) == (report.films, report.people)


def test_every_film_has_the_core_properties(tiny):
    out, _ = tiny
    props = defaultdict(lambda: defaultdict(list))
    for t in pyoxigraph.parse(path=str(out / "graph.nt")):
        props[str(t.subject)][t.predicate.value].append(t.object)
    films = [s for s, p in props.items() if any(o.value == WD + "Q11424" for o in p[WDT + "P31"])]
    for film in films:
        p = props[film]
        assert len(p[LABEL]) == 1 and p[LABEL][0].language == "en"
        for prop in ("P57", "P58", "P161", "P136", "P577", "P495", "P364", "P2047", "P345"):
            assert p[WDT + prop], (film, prop)
        assert len(p[WDT + "P161"]) >= 3
        for person in p[WDT + "P57"] + p[WDT + "P161"]:
            assert any(o.value == WD + "Q5" for o in props[str(person)][WDT + "P31"])


def test_remakes_share_a_title_in_different_years(tiny):
    out, report = tiny
    by_title = defaultdict(set)
    labels, years = {}, {}
    for t in pyoxigraph.parse(path=str(out / "graph.nt")):
        if t.predicate.value == LABEL:
            labels[str(t.subject)] = t.object.value
        elif t.predicate.value == WDT + "P577":
            years[str(t.subject)] = t.object.value[:4]
    for film, year in years.items():
        by_title[labels[film]].add(year)
    shared = [title for title, ys in by_title.items() if len(ys) > 1]
    assert report.remakes > 0 and len(shared) > 0


def test_same_seed_same_graph_other_seed_other_graph(tiny, tmp_path):
    """Byte-identical output for a seed, also in another process (whose string hashing differs)."""
    out, _ = tiny
    script = f"import sys; sys.path.insert(0, {str(REPO / 'bench')!r}); from synth_kg import main; main([{str(tmp_path / 'again')!r}, '--scale', '0.003', '--seed', '3'])"
    subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "12345"})
    generate(tmp_path / "other", scale=0.003, seed=4)
    assert (tmp_path / "again" / "graph.nt").read_bytes() == (out / "graph.nt").read_bytes()
    assert (tmp_path / "other" / "graph.nt").read_bytes() != (out / "graph.nt").read_bytes()


def test_bundle_uses_the_demo_kg_schema(tiny):
    out, _ = tiny
    synth, demo = load_bundle(out), load_bundle(DEFAULT_KG)
    assert synth.relations
    for name, rel in synth.relations.items():
        twin = demo.relations[name]
        assert (rel.property, rel.direction, rel.kind) == (twin.property, twin.direction, twin.kind), name
        if rel.is_entity:
            assert set(synth.classes[rel.value_class]) <= set(demo.classes[twin.value_class]), name

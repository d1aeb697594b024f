"""Shared fixtures: a tiny test bundle, the real shared data, and built agents."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.agent import Agent
from bot.core.config import Settings

REPO = Path(__file__).resolve().parent.parent
# The Flair NER layer trains a model per KG (minutes on 2 cores), and LLM phrasing is slow and worded
# freely: only their own tests turn them on; the others use the features that need no long training.
# This also reaches CLI commands and subprocesses the tests start (Settings read MOVIEBOT_* variables).
CHEAP_FEATURES = ("crowd", "embeddings", "recommend", "images")
os.environ.setdefault("MOVIEBOT_FEATURES", ",".join(CHEAP_FEATURES))
os.environ.setdefault("MOVIEBOT_SYNAPSE_PYTHON", str(REPO / ".cache" / "synapse-venv" / "bin" / "python"))

SHARED = Path(os.environ.get("MOVIEBOT_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared_path(*parts: str) -> Path:
    """A file under ../shared/data; fails under CI=true when missing, skips elsewhere."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"shared data {path} is missing in CI")
        pytest.skip(f"shared data {path} is not available")
    return path


# the prefixes of the Wikidata-shaped test graphs
TTL_PREFIXES = r'''
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix t: <http://test.invalid/> .
'''
MINI_TTL = TTL_PREFIXES + r'''
t:gwh wdt:P31 wd:Q11424 ; rdfs:label "Good Will Hunting"@en ; wdt:P57 t:gvs ; wdt:P58 t:damon, t:affleck ;
  wdt:P161 t:damon, t:affleck, t:williams ; wdt:P577 "1997-12-05"^^xsd:date ; wdt:P136 t:drama ; wdt:P2142 "225933435"^^xsd:decimal .
t:milk wdt:P31 wd:Q11424 ; rdfs:label "Milk"@en ; wdt:P57 t:gvs ; wdt:P161 t:penn ; wdt:P577 "2008-11-26"^^xsd:date ; wdt:P136 t:drama .
t:elephant wdt:P31 wd:Q11424 ; rdfs:label "Elephant"@en ; wdt:P57 t:gvs ; wdt:P577 "2003"^^xsd:gYear ; wdt:P136 t:drama .
t:hamlet48 wdt:P31 wd:Q11424 ; rdfs:label "Hamlet"@en ; wdt:P57 t:olivier ; wdt:P577 "1948"^^xsd:gYear .
t:hamlet96 wdt:P31 wd:Q11424 ; rdfs:label "Hamlet"@en ; wdt:P57 t:branagh ; wdt:P161 t:branagh, t:williams ; wdt:P577 "1996"^^xsd:gYear .
t:quote wdt:P31 wd:Q11424 ; rdfs:label "Say \"Cheese\" {Now}"@en ; wdt:P57 t:slash ; wdt:P577 "2001"^^xsd:gYear .
t:gvs wdt:P31 wd:Q5 ; rdfs:label "Gus Van Sant"@en .
t:damon wdt:P31 wd:Q5 ; rdfs:label "Matt Damon"@en .
t:affleck wdt:P31 wd:Q5 ; rdfs:label "Ben Affleck"@en .
t:williams wdt:P31 wd:Q5 ; rdfs:label "Robin Williams"@en .
t:penn wdt:P31 wd:Q5 ; rdfs:label "Sean Penn"@en .
t:olivier wdt:P31 wd:Q5 ; rdfs:label "Laurence Olivier"@en .
t:branagh wdt:P31 wd:Q5 ; rdfs:label "Kenneth Branagh"@en .
t:slash wdt:P31 wd:Q5 ; rdfs:label "Back\\Slash O'Neil"@en .
t:drama wdt:P31 wd:Q201658 ; rdfs:label "drama film"@en .
'''

def bundle_toml(name: str, relations: dict[str, dict[str, str]], **bundle_keys: str) -> str:
    """A Wikidata-shaped test bundle.toml: film/person/genre classes and the given relation tables."""
    lines = ["[bundle]", f'name = "{name}"', 'graph = ["graph.ttl"]']
    lines += [f"{key} = {value}" for key, value in bundle_keys.items()]
    lines += [
        "", "[prefixes]", 'wd = "http://www.wikidata.org/entity/"', 'wdt = "http://www.wikidata.org/prop/direct/"',
        'ddis = "http://ddis.ch/atai/"', "", "[schema]", 'label = "rdfs:label"', 'type = "wdt:P31"', "", "[classes]",
        'film = ["wd:Q11424"]', 'person = ["wd:Q5"]', 'genre = ["wd:Q201658"]',
    ]
    for relation, table in relations.items():
        lines += ["", f"[relations.{relation}]", *(f'{key} = "{value}"' for key, value in table.items())]
    return "\n".join(lines) + "\n"


DIRECTOR = {"property": "wdt:P57", "value_class": "person"}
SCREENWRITER = {"property": "wdt:P58", "value_class": "person"}
CAST = {"property": "wdt:P161", "value_class": "person"}
GENRE = {"property": "wdt:P136", "value_class": "genre"}
DATE = {"property": "wdt:P577", "kind": "date"}
BOX_OFFICE = {"property": "wdt:P2142", "kind": "number"}
IMDB = {"property": "wdt:P345", "kind": "text"}

MINI_TOML = bundle_toml(
    "mini",
    {"director": DIRECTOR, "screenwriter": SCREENWRITER, "cast_member": CAST, "genre": GENRE,
     "publication_date": DATE, "box_office": BOX_OFFICE},
)


def write_mini_bundle(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "graph.ttl").write_text(MINI_TTL, encoding="utf-8")
    (folder / "bundle.toml").write_text(MINI_TOML, encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> Path:
    return Path(os.environ.get("MOVIEBOT_CACHE_DIR") or tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def mini_bundle(tmp_path_factory) -> Path:
    return write_mini_bundle(tmp_path_factory.mktemp("mini"))


@pytest.fixture(scope="session")
def mini_settings(mini_bundle, cache_dir) -> Settings:
    # the Flair NER layer and the LLM phraser have their own tests; the engine's tests run without them
    return Settings(kg=str(mini_bundle), cache_dir=str(cache_dir), features=CHEAP_FEATURES)


@pytest.fixture(scope="session")
def mini_agent(mini_settings) -> Agent:
    return Agent.from_settings(mini_settings)


@pytest.fixture(scope="session")
def metaqa_bundle(tmp_path_factory) -> Path:
    from bot.kg.importers.metaqa import import_metaqa

    out = tmp_path_factory.mktemp("metaqa")
    import_metaqa(shared_path("metaqa", "kb.txt"), out)
    return out


@pytest.fixture(scope="session")
def metaqa_agent(metaqa_bundle, cache_dir) -> Agent:
    return Agent.from_settings(Settings(kg=str(metaqa_bundle), cache_dir=str(cache_dir), features=CHEAP_FEATURES))


# fixtures that build a KG (a store, its label index and classifier, or a whole agent): a test that uses one is an
# integration test, so the fast tier builds no KG (readers are tested on small inputs there: tests/test_readers.py)
KG_FIXTURES = frozenset({"mini_agent", "mini_settings", "metaqa_agent", "crowd_agent", "pictures", "agent", "kg"})


@pytest.hookimpl(tryfirst=True)  # before the -m selection
def pytest_collection_modifyitems(config, items):
    """Mark the tests that build a KG as integration; run the tiers in order: fast tests first, then integration
    (KGs and models), then end-to-end (servers)."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        builds = KG_FIXTURES & used or {"mini_bundle", "cache_dir"} <= used  # (a command run on the mini bundle builds it)
        if builds and not item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.integration)
    tier = {"integration": 1, "e2e": 2}
    items.sort(key=lambda item: min((tier[m.name] for m in item.iter_markers() if m.name in tier), default=0))


@pytest.fixture(scope="session")
def virtuoso(tmp_path_factory):
    """A private Virtuoso server for the session (own folder, loopback ports, a random DBA password), stopped by pid.

    Its ResultSetMaxRows is low, so results larger than that (the label index's queries) are read in
    pages by RemoteGraph, as with a public endpoint's default limit."""
    import secrets

    from bot.kg.virtuoso import INSTALL_HINT, Virtuoso, virtuoso_installed
    from bot.resources import demo_kg

    if not virtuoso_installed():
        if os.environ.get("CI") == "true":
            pytest.fail(f"Virtuoso is missing in CI: {INSTALL_HINT}")
        pytest.skip("Virtuoso is not installed")
    server = Virtuoso(tmp_path_factory.mktemp("virtuoso"), secrets.token_urlsafe(12), max_rows=2000,
                      dirs=(tmp_path_factory.getbasetemp(), Path(demo_kg())))
    server.start()
    server.loaded = set()  # graphs loaded by virtuoso_url
    try:
        yield server
    finally:
        server.stop()


def virtuoso_url(server, bundle: Path, graph: str) -> str:
    """`bundle` loaded into `graph` of the session's Virtuoso (once per session), as an endpoint URL."""
    from bot.kg.bundle import load_bundle

    if graph not in server.loaded:
        server.load(load_bundle(bundle), graph)
        server.loaded.add(graph)
    return server.url(graph)


def start_synapse(folder: Path):
    """A private Synapse homeserver in `folder`; fails in CI (and skips elsewhere) when it is not installed."""
    from bot.chat.synapse import LocalSynapse, synapse_python

    python = synapse_python()
    if python is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Synapse is not installed (scripts/setup.sh --test installs it into .cache/synapse-venv)")
        pytest.skip("Synapse is not installed")
    return LocalSynapse(folder, python).start()

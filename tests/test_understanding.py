"""Understanding on a small KG: the KG's roles steer the chain, punctuation and film cues steer the title."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from bot.agent import Agent
from bot.core.config import Settings
from bot.kg.labels import LabelIndex

from conftest import CAST, CHEAP_FEATURES, DATE, DIRECTOR, SCREENWRITER, bundle_toml

TTL = r'''
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix t: <http://test.invalid/> .

t:up wdt:P31 wd:Q11424 ; rdfs:label "Up"@en ; wdt:P57 t:docter ; wdt:P161 t:asner ; wdt:P577 "2009"^^<http://www.w3.org/2001/XMLSchema#gYear> .
t:upbang wdt:P31 wd:Q11424 ; rdfs:label "Up!"@en ; wdt:P57 t:meyer ; wdt:P577 "1976"^^<http://www.w3.org/2001/XMLSchema#gYear> .
t:likeitis wdt:P31 wd:Q11424 ; rdfs:label "Like It Is"@en ; wdt:P57 t:oremland ; wdt:P161 t:daltrey ; wdt:P577 "1998"^^<http://www.w3.org/2001/XMLSchema#gYear> .
t:heat wdt:P31 wd:Q11424 ; rdfs:label "Heat"@en ; wdt:P57 t:mann ; wdt:P58 t:mann ; wdt:P161 t:deniro ; wdt:P577 "1995"^^<http://www.w3.org/2001/XMLSchema#gYear> .
t:ronin wdt:P31 wd:Q11424 ; rdfs:label "Ronin"@en ; wdt:P57 t:frankenheimer ; wdt:P58 t:mamet ; wdt:P161 t:deniro ; wdt:P577 "1998"^^<http://www.w3.org/2001/XMLSchema#gYear> .
t:zardoz wdt:P31 wd:Q11424 ; rdfs:label "Zardoz"@en ; wdt:P57 t:boorman ; wdt:P58 t:boorman ; wdt:P577 "1974"^^<http://www.w3.org/2001/XMLSchema#gYear> .
t:boorman wdt:P31 wd:Q5 ; rdfs:label "John Boorman"@en .
t:docter wdt:P31 wd:Q5 ; rdfs:label "Pete Docter"@en .
t:meyer wdt:P31 wd:Q5 ; rdfs:label "Russ Meyer"@en .
t:asner wdt:P31 wd:Q5 ; rdfs:label "Ed Asner"@en .
t:oremland wdt:P31 wd:Q5 ; rdfs:label "Paul Oremland"@en .
t:daltrey wdt:P31 wd:Q5 ; rdfs:label "Roger Daltrey"@en .
t:mann wdt:P31 wd:Q5 ; rdfs:label "Michael Mann"@en .
t:deniro wdt:P31 wd:Q5 ; rdfs:label "Robert De Niro"@en .
t:frankenheimer wdt:P31 wd:Q5 ; rdfs:label "John Frankenheimer"@en .
t:mamet wdt:P31 wd:Q5 ; rdfs:label "David Mamet"@en .
'''

RELATIONS = {"director": DIRECTOR, "screenwriter": SCREENWRITER, "cast_member": CAST, "publication_date": DATE}


@pytest.fixture(scope="module")
def agent(tmp_path_factory, cache_dir) -> Agent:
    folder = tmp_path_factory.mktemp("roles")
    (folder / "graph.ttl").write_text(TTL, encoding="utf-8")
    (folder / "bundle.toml").write_text(bundle_toml("roles", RELATIONS), encoding="utf-8")
    return Agent.from_settings(Settings(kg=str(folder), cache_dir=str(cache_dir), features=CHEAP_FEATURES))


def first_relation(reply) -> str:
    return reply.trace[0].detail["chain"].split(",")[0][:-1]


@pytest.mark.parametrize(
    "name, relations",
    [("Robert De Niro", {"cast_member"}), ("David Mamet", {"screenwriter"}), ("John Frankenheimer", {"director"}),
     ("Michael Mann", {"director", "screenwriter"})],
)
def test_a_vague_question_follows_a_relation_the_person_has(agent, name, relations):
    """"Worked on" names no role: the chain starts with a relation the KG shows the person in."""
    for question in (f"when were the movies {name} worked on released", f"the films of {name}, when were they released"):
        reply = agent.answer(question)
        assert first_relation(reply) in relations, (question, reply.trace[0].detail)
        assert reply.answers


def test_a_question_about_a_missing_relation_still_says_what_is_missing(agent):
    """Zardoz has no cast in the KG: "who starred in Zardoz" must not turn into another relation's answer."""
    reply = agent.answer("Who starred in Zardoz?")
    assert first_relation(reply) == "cast_member"
    assert "Zardoz" in reply.text
    assert all(fact.source != "kg" for fact in reply.facts)  # at most a labelled embedding prediction


def test_punctuation_the_user_typed_picks_the_title_with_it(agent):
    assert agent.answer("Who directed Up!").answers == ["Russ Meyer"]
    assert agent.answer("Who directed Up?").answers == ["Pete Docter"]
    assert agent.answer("what year was the film Up! released").answers == ["1976"]


def test_a_title_made_of_question_words_after_film_or_movie_is_a_title(agent):
    reply = agent.answer("the movie Like It Is starred who")
    assert reply.kind == "factual" and reply.answers == ["Roger Daltrey"]
    assert agent.answer("recommend movies like Heat").kind == "recommendation"


def _index(keys: list[str]) -> LabelIndex:
    return LabelIndex(by_norm={key: [i] for i, key in enumerate(keys)})


@settings(max_examples=60, deadline=None)
@given(
    keys=st.lists(st.text(alphabet="abcde ", min_size=1, max_size=24), min_size=1, max_size=60, unique=True),
    query=st.text(alphabet="abcde ", min_size=1, max_size=24),
    threshold=st.sampled_from([60.0, 75.0, 90.0, 100.0]),
)
@example(keys=["aaaaaaa"], query="aaa", threshold=60.0)  # the band's upper end, 3 * 1.4 / 0.6, is 6.999... in floating point
def test_fuzzy_search_over_a_length_band_finds_what_a_full_scan_finds(keys, query, threshold):
    full = process.extract(query, keys, scorer=fuzz.ratio, processor=None, score_cutoff=threshold, limit=None)
    found = _index(keys).fuzzy(query, threshold, limit=len(keys))
    assert sorted(found) == sorted((key, score) for key, score, _ in full)


def test_misspelt_question_words_are_read_as_the_words_they_misspell(mini_agent):
    classifier = mini_agent.understander.classifier
    assert classifier.spelled("directd") == "directed"
    assert classifier.spelled("screenplya") == "screenplay"
    assert classifier.spelled("heat") == "heat"  # short words are left alone
    assert classifier.spelled("zzzzzzz") == "zzzzzzz"
    reply = mini_agent.answer("who directd Good Will Hunting")
    assert reply.answers == ["Gus Van Sant"] and first_relation(reply) == "director"
    reply = mini_agent.answer("who wrot the screenplya of Good Will Hunting")
    assert sorted(reply.answers) == ["Ben Affleck", "Matt Damon"]

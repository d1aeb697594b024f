"""Comparisons answered on a few triples in memory (no built store): dates the graph has at different precisions."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from test_readers import MemoryGraph, written_bundle

from bot.answering.compose import ComposedAnswers
from bot.core.contracts import Comparison, LinkedEntity, Understanding
from bot.core.kinds import Kind
from bot.generation.composed import comparison_sentence

from conftest import DATE, DIRECTOR, TTL_PREFIXES

TTL = TTL_PREFIXES + r'''
t:shrek wdt:P31 wd:Q11424 ; rdfs:label "Shrek"@en ; wdt:P577 "2001-05-18"^^xsd:date .
t:monsters wdt:P31 wd:Q11424 ; rdfs:label "Monsters, Inc."@en ; wdt:P577 "2001"^^xsd:gYear .
t:heat wdt:P31 wd:Q11424 ; rdfs:label "Heat"@en ; wdt:P577 "1995"^^xsd:gYear .
'''
FILMS = {"shrek": "Shrek", "monsters": "Monsters, Inc.", "heat": "Heat"}


@pytest.fixture(scope="module")
def compare(tmp_path_factory):
    bundle = written_bundle(tmp_path_factory.mktemp("comparisons"), TTL, "comparisons", {"director": DIRECTOR, "publication_date": DATE})
    answers = ComposedAnswers(SimpleNamespace(bundle=bundle, graph=MemoryGraph(TTL)), single=None)

    def run(first: str, second: str, asked: str = ""):
        films = [LinkedEntity(FILMS[k], f"http://test.invalid/{k}", FILMS[k], 100.0, "film") for k in (first, second)]
        plan = Understanding("q", Kind.FACTUAL, entities=films, comparison=Comparison("publication_date", False, (0, 1), asked=asked))
        facts = answers.answer(plan)
        return facts, comparison_sentence(facts.result, facts, bundle)

    return run


def test_a_year_against_a_full_date_of_that_year_decides_nothing(compare):
    facts, sentence = compare("shrek", "monsters")
    assert facts.answers == [] and facts.result.undecided == ("Monsters, Inc.",)
    assert sentence.startswith("I cannot tell: my knowledge graph dates Monsters, Inc. only to the year"), sentence


def test_a_yes_no_comparison_on_too_coarse_dates_says_neither_yes_nor_no(compare):
    facts, sentence = compare("shrek", "monsters", asked="older")
    assert facts.answers == [] and not sentence.startswith(("Yes", "No")), sentence


def test_an_earlier_year_still_beats_a_full_date_of_a_later_year(compare):
    facts, sentence = compare("shrek", "heat")
    assert [a.label for a in facts.answers] == ["Heat"] and sentence.startswith("Heat is older"), sentence

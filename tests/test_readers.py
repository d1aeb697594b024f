"""The compositional constructions read clauses into typed plans, tested directly on a few triples held in memory: no
built store, no trained classifier (the end-to-end plans are tests/test_question_plan.py)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from pyoxigraph import RdfFormat, Store

from bot.core.contracts import Hop
from bot.core.terms import AggregateOp, Check, Group, Op
from bot.kg.bundle import load_bundle
from bot.kg.labels import build_label_index
from bot.kg.store import LocalGraph
from bot.understanding import compositions
from bot.understanding.compose import COMPOSITION_WORDS, Composer
from bot.understanding.constructions.clause import Clause, tokenise
from bot.understanding.lexicon import Lexicon
from bot.understanding.mentions import IndexMentions, template_vocabulary
from bot.understanding.names import NameFinder
from bot.understanding.vocabulary import GENERIC, STOP

from conftest import CAST, DATE, DIRECTOR, GENRE, TTL_PREFIXES, bundle_toml

TTL = TTL_PREFIXES + r'''
t:heat wdt:P31 wd:Q11424 ; rdfs:label "Heat"@en ; wdt:P57 t:mann ; wdt:P161 t:pacino, t:deniro ; wdt:P577 "1995-12-15"^^xsd:date ;
  wdt:P2047 "170"^^xsd:decimal ; wdt:P136 t:crime .
t:ronin wdt:P31 wd:Q11424 ; rdfs:label "Ronin"@en ; wdt:P57 t:frankenheimer ; wdt:P161 t:deniro ; wdt:P577 "1998-09-25"^^xsd:date ;
  wdt:P2047 "122"^^xsd:decimal ; wdt:P136 t:crime .
t:eraser wdt:P31 wd:Q11424 ; rdfs:label "Eraserhead"@en ; wdt:P57 t:lynch ; wdt:P577 "1977-03-19"^^xsd:date ; wdt:P2047 "89"^^xsd:decimal ;
  wdt:P136 t:horror .
t:blue wdt:P31 wd:Q11424 ; rdfs:label "Blue Velvet"@en ; wdt:P57 t:lynch ; wdt:P577 "1986-09-19"^^xsd:date ; wdt:P2047 "120"^^xsd:decimal ;
  wdt:P136 t:crime .
t:mann wdt:P31 wd:Q5 ; rdfs:label "Michael Mann"@en .
t:frankenheimer wdt:P31 wd:Q5 ; rdfs:label "John Frankenheimer"@en .
t:lynch wdt:P31 wd:Q5 ; rdfs:label "David Lynch"@en .
t:pacino wdt:P31 wd:Q5 ; rdfs:label "Al Pacino"@en .
t:deniro wdt:P31 wd:Q5 ; rdfs:label "Robert De Niro"@en .
t:crime wdt:P31 wd:Q201658 ; rdfs:label "crime film"@en .
t:horror wdt:P31 wd:Q201658 ; rdfs:label "horror film"@en .
'''
DURATION = {"property": "wdt:P2047", "kind": "number"}


class MemoryGraph(LocalGraph):
    """A few triples in an in-memory Oxigraph store, read like a built one."""

    def __init__(self, ttl: str):
        self.path = Path("(memory)")
        self.store = Store()
        self.store.load(ttl.encode(), RdfFormat.TURTLE)
        self._identity = None

    def _current(self):
        return self.store


def written_bundle(folder: Path, ttl: str, name: str, relations: dict[str, dict[str, str]]):
    """The bundle of a test graph written into `folder` with the given relation tables."""
    (folder / "graph.ttl").write_text(ttl, encoding="utf-8")
    (folder / "bundle.toml").write_text(bundle_toml(name, relations), encoding="utf-8")
    return load_bundle(folder)


def composition_reader(folder: Path, ttl: str, name: str, relations: dict[str, dict[str, str]]):
    """text -> (the composition the constructions read, the constructions tried), on a test graph without a built store."""
    bundle = written_bundle(folder, ttl, name, relations)
    graph = MemoryGraph(ttl)
    kg = SimpleNamespace(bundle=bundle, graph=graph, labels=build_label_index(graph, bundle))
    wording = template_vocabulary(bundle)  # what the chain classifier keeps as question wording
    lexicon = Lexicon.from_bundle(bundle, wording)
    names = NameFinder(kg, lexicon, IndexMentions(kg.labels, wording | COMPOSITION_WORDS | STOP | GENERIC), wording, 90.0)
    composer = Composer(kg, lexicon, wording)

    def read(text: str):
        toks = tokenise(text)
        clause = Clause(text, toks, 0, len(toks), names.candidate_spans(text, toks))
        composition, attempts = compositions.read(composer, clause, names.name_like)
        return composition, [a.construction for a in attempts]

    return read


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    return composition_reader(tmp_path_factory.mktemp("readers"), TTL, "readers", {"director": DIRECTOR, "cast_member": CAST, "genre": GENRE,
                                                                                   "publication_date": DATE, "duration": DURATION})


def test_a_comparison_names_its_films_and_the_measure(reader):
    composition, tried = reader("Which is longer, Heat or Ronin?")
    assert tried[-1] == "comparison" and composition.comparison.relation == "duration" and composition.comparison.greater
    assert [e.label for e in composition.entities] == ["Heat", "Ronin"]


def test_a_yes_no_comparison_asks_about_the_first_film(reader):
    composition, _ = reader("Is Heat older than Ronin?")
    assert composition.comparison.relation == "publication_date" and not composition.comparison.greater and composition.comparison.asked


def test_a_count_of_a_persons_films_is_a_count_over_their_role(reader):
    composition, tried = reader("How many films did David Lynch direct?")
    assert tried == ["count"] and composition.aggregate.op is AggregateOp.COUNT
    assert [(c.relations, c.op) for c in composition.constraints] == [(("director",), Op.IN)]


def test_a_superlative_orders_a_persons_films_by_the_measure(reader):
    composition, _ = reader("What is David Lynch's longest film?")
    assert composition.aggregate.op is AggregateOp.MAX and composition.aggregate.relation == "duration"
    assert composition.constraints[0].values == ("http://test.invalid/lynch",)


def test_a_yes_no_question_about_a_films_director_checks_that_value(reader):
    composition, tried = reader("Did David Lynch direct Eraserhead?")
    assert tried == ["verification"] and composition.verification.relation == "director"
    assert composition.verification.op is Check.EQUALS and [e.label for e in composition.entities] == ["Eraserhead", "David Lynch"]


def test_a_statement_with_a_confirmation_tag_is_checked_like_a_yes_no_question(reader):
    for said in ("Eraserhead was directed by David Lynch, right?", "Eraserhead was directed by David Lynch, wasn't it?"):
        composition, tried = reader(said)
        assert tried == ["verification"] and composition.verification.relation == "director"
        assert [e.label for e in composition.entities] == ["Eraserhead", "David Lynch"]
    assert reader("Eraserhead was directed by David Lynch")[0] is None  # no tag: a statement, no check
    assert reader("Eraserhead is David Lynch's crime film, right?")[0] is None  # two values: no one check to make


def test_a_year_asked_of_a_film_is_a_literal_check(reader):
    composition, _ = reader("Was Heat released in 1995?")
    assert composition.verification.op is Check.EQUALS and composition.verification.literal == "1995"


def test_what_two_films_share_is_read_before_anything_else(reader):
    composition, tried = reader("Who acted in both Heat and Ronin?")
    assert tried == ["shared"] and composition.shared.chain[0].relation == "cast_member"


def test_conditions_on_a_genre_and_a_decade_are_a_film_list(reader):
    composition, tried = reader("crime films from the 90s")
    assert tried == ["conditions"]
    ops = {(c.relations[0], c.op) for c in composition.constraints}
    assert ops == {("genre", Op.IN), ("publication_date", Op.YEAR_FROM), ("publication_date", Op.YEAR_UNTIL)}


def test_a_negated_genre_leaves_it_out(reader):
    composition, _ = reader("films by David Lynch that are not horror")
    assert ("genre", Op.NOT_IN) in [(c.relations[0], c.op) for c in composition.constraints]


def test_which_of_those_points_at_the_conversations_films(reader):
    composition, _ = reader("which of those is the longest?")
    assert [c.op for c in composition.constraints] == [Op.EARLIER] and composition.aggregate.op is AggregateOp.MAX


@pytest.mark.parametrize("said", ["only the ones after 1980", "just those after 1980", "the ones after 1980?"])
def test_a_clause_that_narrows_the_list_filters_the_conversations_films(reader, said):
    composition, _ = reader(said)
    assert composition is not None and [c.op for c in composition.constraints] == [Op.EARLIER, Op.YEAR_FROM], said


def test_a_plain_fact_question_is_no_composition(reader):
    composition, _ = reader("Who directed Heat?")
    assert composition is None


def test_the_entities_of_a_reading_are_typed_by_group(reader):
    composition, _ = reader("How many crime films are there?")
    assert all(e.group == Group.GENRE for e in composition.entities)


def test_an_ask_phrasing_of_common_words_evidences_its_relation_only_when_all_its_words_are_said(tmp_path):
    rating = {"property": "wdt:P444", "kind": "text", "asks": "what do people think of {film}"}
    lexicon = Lexicon.from_bundle(written_bundle(tmp_path, TTL, "opinions", {"director": DIRECTOR, "review_score": rating}))
    chain = (Hop("review_score", True),)
    assert not lexicon.explain(["what", "do", "people", "think", "of"], chain, False, set()).unevidenced
    assert lexicon.explain(["what", "do", "people", "say"], chain, False, set()).unevidenced == ("review_score",)

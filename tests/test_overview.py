"""The overview construction: which clauses ask for an overview of a film or person (read without a built store)."""

from __future__ import annotations

import pytest

from bot.core.contracts import LinkedEntity
from bot.kg.bundle import load_bundle
from bot.understanding.constructions.clause import Clause
from bot.understanding.constructions.overview import OverviewReader
from bot.understanding.lexicon import Lexicon

from conftest import REPO


@pytest.fixture(scope="module")
def reader() -> OverviewReader:
    bundle = load_bundle(REPO / "kg")
    return OverviewReader(bundle, Lexicon.from_bundle(bundle))


def read(reader: OverviewReader, text: str, name: str, group: str = "film"):
    start = text.index(name)
    entity = LinkedEntity(name, f"http://test.invalid/{name.replace(' ', '_')}", name, 100.0, group, start, start + len(name))
    return reader.read(Clause.of(text), entity)


@pytest.mark.parametrize("text", ["tell me about Heat", "What do you know about Heat?", "Heat?", "info on Heat", "give me the rundown on Heat",
                                  "could you tell me a bit about Heat please", "Heat info please", "what can you tell us about Heat",
                                  "actually, tell me about Heat first", "tell me about Heat instead"])
def test_a_request_for_nothing_but_the_film_is_an_overview(reader, text):
    overview = read(reader, text, "Heat")
    assert overview is not None and overview.topic == 0
    assert overview.relations[0] == reader.bundle.date_relation.name  # the year first, then its directors, genres, cast, running time
    assert "director" in overview.relations and len(overview.most) == len(overview.relations)


@pytest.mark.parametrize("text", ["what is Heat about", "who directed Heat", "Heat", "the movie Heat", "what do people think of Heat",
                                  "what about Heat", "i mean the Heat one",
                                  "tell me about Heat's plot", "when was Heat released", "what was Heat in, then?"])
def test_a_clause_that_asks_something_else_is_no_overview(reader, text):
    assert read(reader, text, "Heat") is None


def test_a_person_is_summarised_by_their_roles(reader):
    overview = read(reader, "Who is Jane Campion?", "Jane Campion", "person")
    assert overview is not None and "director" in overview.relations and overview.known_for > 0


def test_a_genre_gets_no_overview(reader):
    assert read(reader, "tell me about horror", "horror", "genre") is None



def first_clause(text: str, name: str, length: int) -> tuple[Clause, LinkedEntity]:
    """The first `length` words of `text` as a clause of the whole message, and the film `name` in it."""
    start = text.index(name)
    clause = Clause(text, Clause.of(text).tokens, 0, length)
    return clause, LinkedEntity(name, "http://test.invalid/Heat", name, 100.0, "film", start, start + len(name))


def test_only_a_question_mark_of_its_own_clause_asks_for_the_film(reader):
    assert reader.read(*first_clause("Heat. who directed it?", "Heat", 1)) is None  # the mark is the next clause's
    assert reader.read(*first_clause("Heat? who directed it?", "Heat", 1)) is not None

"""Recommendations on the demo KG: what they never recommend (seeds, their series, seen and excluded films, films
recommended before), the conditions they keep, the request's own words, the conversation around them, and no message
that breaks them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.agent import Agent
from bot.core.config import Settings
from bot.core.contracts import Message
from bot.core.kinds import Kind
from bot.core.text import normalize
from bot.dialogue.dialogue import Dialogue
from bot.resources import demo_kg

from conftest import CHEAP_FEATURES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def agent(cache_dir) -> Agent:
    return Agent.from_settings(Settings(kg=str(demo_kg()), cache_dir=str(cache_dir), features=CHEAP_FEATURES))


@pytest.fixture
def chat(agent):
    dialogue = Dialogue(agent)

    def say(text: str):
        return dialogue.reply(Message("room", "ann", text))

    return say


def films_titled(agent, *titles: str) -> set[str]:
    labels = agent.kg.labels
    return {labels.iris[i] for t in titles for i in labels.lookup(normalize(t)) if labels.groups[i] == "film"}


def series_films(agent, series_label: str) -> set[str]:
    kg = agent.kg
    series = [kg.labels.iris[i] for i in kg.labels.lookup(normalize(series_label)) if kg.labels.groups[i] == "series"]
    prop = kg.bundle.relations["part_of_the_series"].property
    return {row["film"].value for row in kg.graph.select(f"SELECT ?film WHERE {{ ?film <{prop}> <{series[0]}> }}")}


def picks(reply) -> set[str]:
    return {f.subject for f in reply.facts}


def minutes(agent, iri: str) -> float:
    table, labels = agent.kg.films, agent.kg.labels
    at = int(np.searchsorted(table.films, labels.by_iri[iri]))
    return float(table.literal["duration"].low[at])


# --- never recommended --------------------------------------------------------------------------------------------


def test_a_franchise_named_as_the_seed_never_recommends_its_own_films(agent):
    reply = agent.answer("my cousin can't get enough of the star wars movies, suggestions?")
    assert reply.kind == Kind.RECOMMENDATION and picks(reply), reply.text
    saga = {agent.kg.labels.iris[i] for i in agent.kg.labels.starting_with("star wars ") if agent.kg.labels.groups[i] == "film"}
    assert len(saga) >= 3 and not picks(reply) & saga, reply.text


def test_a_film_seed_never_brings_back_the_other_films_of_its_series(agent):
    reply = agent.answer("Anything in the spirit of Hot Fuzz?")
    assert picks(reply) and not picks(reply) & series_films(agent, "Three Flavours Cornetto trilogy"), reply.text


def test_a_partial_title_shared_by_several_films_names_them_all(agent):
    reply = agent.answer("films similar to lord of the rings please")
    trilogy = {f for f in films_titled(agent, "The Lord of the Rings: The Two Towers", "The Lord of the Rings: The Return of the King",
                                         "The Lord of the Rings: The Fellowship of the Ring")}
    assert len(trilogy) == 3 and picks(reply) and not picks(reply) & trilogy, reply.text
    assert "The Lord of the Rings films" in reply.text


def test_films_the_person_has_seen_are_never_recommended(agent):
    reply = agent.answer("suggest something like Alien, we already watched Aliens and Blade Runner")
    assert picks(reply) and not picks(reply) & films_titled(agent, "Alien", "Aliens", "Blade Runner"), reply.text


def test_a_catalogue_said_with_not_leaves_out_the_films_it_lists_and_says_how(agent):
    reply = agent.answer("like Your Name please, but nothing from Ghibli")
    assert picks(reply) and not picks(reply) & series_films(agent, "Studio Ghibli Feature Films"), reply.text
    assert "Studio Ghibli Feature Films" in reply.text


def test_a_series_excluded_by_its_word_is_left_out_not_someone_of_that_name(agent):
    reply = agent.answer("anything like Skyfall, but no more Bond films")
    assert picks(reply) and not picks(reply) & series_films(agent, "EON James Bond series"), reply.text
    assert "Samantha Bond" not in reply.text


def test_films_recommended_before_do_not_come_back_in_the_conversation(chat):
    first = chat("what would you suggest after Heat?")
    again = chat("more like that")
    assert first.answers and again.answers and not set(first.answers) & set(again.answers)


# --- conditions ---------------------------------------------------------------------------------------------------


def test_nothing_longer_than_a_limit_keeps_every_pick_under_it(agent):
    reply = agent.answer("a scary movie for tonight, nothing longer than 95 minutes")
    assert picks(reply) and all(minutes(agent, f) <= 95 for f in picks(reply)), reply.answers


def test_nothing_too_long_is_the_documented_two_hours(agent):
    reply = agent.answer("something like Gladiator but nothing too long")
    assert picks(reply) and all(minutes(agent, f) <= 120 for f in picks(reply)), reply.text


def test_nothing_scary_leaves_horror_out(agent):
    reply = agent.answer("films like Jurassic Park, nothing scary")
    horror = {row["film"].value for row in agent.kg.graph.select(
        "SELECT ?film WHERE { ?film <http://www.wikidata.org/prop/direct/P136> <http://moviebot.invalid/entity/genre-horror> }")}
    assert picks(reply) and not picks(reply) & horror, reply.text


def test_not_by_a_person_leaves_their_films_out(agent):
    reply = agent.answer("recommend films like Jaws that aren't by Steven Spielberg")
    spielberg = {row["film"].value for row in agent.kg.graph.select(
        "SELECT ?film WHERE { ?film <http://www.wikidata.org/prop/direct/P57> ?d . ?d <http://www.w3.org/2000/01/rdf-schema#label> \"Steven Spielberg\"@en }")}
    assert spielberg and picks(reply) and not picks(reply) & spielberg, reply.text


def test_a_requested_count_is_kept(agent):
    assert len(agent.answer("recommend two movies like Heat").answers) == 2
    assert len(agent.answer("I need 7 westerns for a marathon").answers) == 7


# --- the message's own words ---------------------------------------------------------------------------------------


def test_the_story_around_a_seed_is_neither_a_seed_nor_reported_missing(agent):
    reply = agent.answer("finally got round to Jaws yesterday evening and loved it, what now?")
    assert [e.label for e in reply.entities] == ["Jaws"]
    assert "could not find" not in reply.text and "don't have" not in reply.text, reply.text


def test_an_unknown_seed_is_named_and_never_replaced(agent):
    reply = agent.answer("any movies like Blorptastic Voyage?")
    assert "I don't have \"Blorptastic Voyage\"" in reply.text and not reply.answers, reply.text


def test_with_no_seed_left_the_genre_named_is_offered(agent):
    reply = agent.answer("a comedy like Blorptastic Voyage please")
    assert "I don't have \"Blorptastic Voyage\"" in reply.text and reply.answers, reply.text


def test_an_exclusion_the_graph_cannot_check_is_said(agent):
    reply = agent.answer("something like Heat but nothing from Blumhouse")
    assert "nothing to check \"not Blumhouse\"" in reply.text and reply.answers, reply.text


def test_a_word_of_the_request_is_no_title_even_when_a_film_is_called_so(agent):
    reply = agent.answer("I hate horror, but suggest something like Jaws")
    assert [e.label for e in reply.entities if e.group == "film"] == ["Jaws"], reply.text
    horror = {row["film"].value for row in agent.kg.graph.select(
        "SELECT ?film WHERE { ?film <http://www.wikidata.org/prop/direct/P136> <http://moviebot.invalid/entity/genre-horror> }")}
    assert picks(reply) and not picks(reply) & horror, reply.text


def test_a_common_word_after_no_is_no_person_and_what_the_graph_lacks_is_said(agent):
    reply = agent.answer("suggest an old war movie that isn't too long, and no black and white")
    assert not any(e.group == "person" for e in reply.entities), reply.entities
    assert "\"not black and white\"" in reply.text and reply.answers, reply.text


def test_shorter_than_the_seed_is_compared_with_its_running_time_or_said_uncheckable(agent):
    reply = agent.answer("something similar to Gladiator but shorter")
    (seed,) = films_titled(agent, "Gladiator")
    assert picks(reply) and all(minutes(agent, f) < minutes(agent, seed) for f in picks(reply)), reply.text
    untimed = agent.answer("something similar to Lawrence of Arabia but shorter")  # the graph has no running time for it
    assert "nothing to check \"shorter than Lawrence of Arabia\"" in untimed.text, untimed.text


# --- the conversation ---------------------------------------------------------------------------------------------


def test_a_refinement_adds_its_condition_to_the_last_request(chat, agent):
    chat("I liked Ratatouille, anything similar?")
    reply = chat("not animated though")
    animated = {row["film"].value for row in agent.kg.graph.select(
        "SELECT ?film WHERE { ?film <http://www.wikidata.org/prop/direct/P136> <http://moviebot.invalid/entity/genre-animated> }")}
    assert reply.kind == Kind.RECOMMENDATION and picks(reply) and not picks(reply) & animated, reply.text
    assert "Ratatouille" in reply.text


def test_something_older_compares_with_the_last_picks(chat, agent):
    first = chat("suggest films like Inception")
    older = chat("something older")
    labels = agent.kg.labels
    before = sorted(labels.years[labels.by_iri[f.subject]] for f in first.facts)
    assert older.facts and all(labels.years[labels.by_iri[f.subject]] < before[len(before) // 2] for f in older.facts), older.text


def test_films_seen_after_the_picks_are_left_out_next_time(chat):
    first = chat("what should I watch if I liked Jaws?")
    seen = first.answers[:2]
    reply = chat(f"we've already seen {seen[0]} and {seen[1]}")
    assert reply.kind == Kind.RECOMMENDATION and reply.answers and not set(reply.answers) & set(first.answers), reply.text


def test_why_that_one_gives_the_graphs_reasons(chat):
    first = chat("recommend movies like Casablanca")
    reason = first.facts[1].detail["because"]
    reply = chat("why the second one?")
    assert first.answers[1] in reply.text and reason.split(" with ")[0].replace("shares ", "") in reply.text, reply.text


def test_a_question_about_a_pick_by_its_place_is_about_that_film(chat):
    first = chat("recommend movies like Casablanca")
    reply = chat("who directed the third one?")
    assert reply.kind == Kind.FACTUAL and first.answers[2] in reply.text, reply.text


def test_a_question_about_something_else_is_no_refinement(chat):
    chat("anything like Heat?")
    reply = chat("who directed Collateral?")
    assert reply.kind == Kind.FACTUAL and reply.answers == ["Michael Mann"]


# --- no message breaks it -----------------------------------------------------------------------------------------

FRAGMENTS = ["something like", "recommend", "I've seen", "not", "nothing over", "no", "but", "and", "isn't another", "without",
             "more like that", "3", "minutes", "from the 80s", "animated", "scary", "Pixar", "all of those", "his", "her",
             "?", ",", "!", "Zorblax", "loved it", "last night", "a couple of", "films", "why", "the second one", "by"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_random_recommendation_messages_never_crash_and_never_recommend_their_seed(agent, data):
    labels = agent.kg.labels
    films = [labels.labels[i] for i in labels.films_by_fame()[:150]]
    seed = data.draw(st.sampled_from(films))
    noise = data.draw(st.lists(st.sampled_from(FRAGMENTS + films[:20]), max_size=8))
    text = " ".join(["something like", seed, *noise])
    reply = agent.answer(text)
    assert reply.kind not in (Kind.ERROR,) and reply.text and "Traceback" not in reply.text, text
    if reply.kind == Kind.RECOMMENDATION:
        named = {e.iri for e in reply.entities if e.group == "film"}
        assert not picks(reply) & named, text

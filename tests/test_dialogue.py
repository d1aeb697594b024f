"""Conversation state, follow-ups and clarification (bot/dialogue/) on the mini KG."""

from __future__ import annotations

import pytest

from bot.core.contracts import Message, Referents, Reply
from bot.dialogue.dialogue import Dialogue


@pytest.fixture
def chat(mini_agent):
    dialogue = Dialogue(mini_agent)

    def say(text: str, room: str = "room") -> Reply:
        return dialogue.reply(Message(room, "ann", text))

    say.dialogue = dialogue
    return say


def note(reply: Reply) -> dict:
    return next((s.detail for s in reply.trace if s.stage == "dialogue"), {})


def steps(reply: Reply) -> list[str]:
    return [s.stage for s in reply.trace]


def test_a_pronoun_is_the_last_entity_of_its_type(chat):
    assert chat("Who directed Good Will Hunting?").answers == ["Gus Van Sant"]
    wrote = chat("And who wrote it?")
    assert sorted(wrote.answers) == ["Ben Affleck", "Matt Damon"]
    assert note(wrote)["referents"] == ["it = Good Will Hunting"]
    directed = chat("What else did he direct?")  # "he": the single person answer two turns back, not the two writers
    assert set(directed.answers) == {"Milk", "Elephant"}  # "else": not the film already talked about
    assert note(directed)["referents"] == ["he = Gus Van Sant"]


def test_a_name_in_the_message_wins_over_the_conversation(chat):
    chat("Who directed Good Will Hunting?")
    reply = chat("Who directed Milk and who starred in it?")
    assert reply.answers == ["Gus Van Sant", "Sean Penn"]
    assert "referents" not in note(reply)


def test_a_message_read_alone_takes_the_referents_it_is_given(mini_agent):
    hamlet = next(e for e in mini_agent.read("Who directed Hamlet 1996?").plan.entities if e.label == "Hamlet")
    reading = mini_agent.read("who starred in that one?", Referents(film=hamlet, topic=hamlet))
    assert [e.iri for e in reading.plan.entities] == [hamlet.iri]
    assert not reading.plan.entities[0].alternatives  # a referent is no namesake to ask about again


def test_a_follow_up_that_names_nothing_asks_about_the_last_topic(chat):
    chat("who wrote Good Will Hunting")
    assert chat("the director?").answers == ["Gus Van Sant"]
    assert "1997" in chat("and when did it come out").answers[0]


def test_another_name_asks_the_last_question_again(chat):
    chat("Who starred in Milk?")
    other = chat("what about Good Will Hunting then?")
    assert set(other.answers) == {"Matt Damon", "Ben Affleck", "Robin Williams"}
    assert note(other)["edit"].startswith("another topic")


def test_rooms_have_separate_memories(chat):
    chat("Who directed Good Will Hunting?", room="a")
    chat("Who directed Milk?", room="b")
    assert "Robin Williams" in chat("Who starred in it?", room="a").answers
    assert chat("Who starred in it?", room="b").answers == ["Sean Penn"]


def test_a_title_is_not_taken_for_a_pronoun(chat):
    chat("Who directed Good Will Hunting?")
    reply = chat("Who directed His Girl Friday?")
    assert "referents" not in note(reply) and "Gus Van Sant" not in reply.answers


def test_same_title_films_are_clarified_and_resolved(chat):
    question = chat("Who directed Hamlet?")
    assert question.kind == "clarify"
    assert "1948" in question.text and "1996" in question.text and question.text.endswith("?")
    answer = chat("the 1948 one")
    assert answer.answers == ["Laurence Olivier"]
    again = chat("Who directed Hamlet?")
    assert again.kind == "clarify"
    assert chat("the newest").answers == ["Kenneth Branagh"]
    # the chosen film is the conversation's topic now
    assert "Robin Williams" in chat("Who starred in it?").answers


def test_a_clarification_is_answered_by_a_person_of_the_film(chat):
    assert chat("who directed hamlet").kind == "clarify"
    assert chat("the one Robin Williams is in").answers == ["Kenneth Branagh"]


def test_the_other_one_corrects_a_namesake_after_the_answer(chat):
    assert chat("Who directed Hamlet 1996?").answers == ["Kenneth Branagh"]
    corrected = chat("sorry, I meant the other one")
    assert corrected.answers == ["Laurence Olivier"]
    assert note(corrected)["edit"].startswith("correction")


def test_a_correction_of_a_name_asks_the_question_again_about_it(chat):
    assert chat("who wrote Good Will Huntingdon Abbey?").answers == []
    assert sorted(chat("oops, I meant Good Will Hunting").answers) == ["Ben Affleck", "Matt Damon"]


def test_a_year_in_the_question_needs_no_clarification(chat):
    assert chat("Who directed Hamlet 1996?").answers == ["Kenneth Branagh"]


def test_an_unrelated_answer_to_a_clarification_is_a_new_question(chat):
    assert chat("Who directed Hamlet?").kind == "clarify"
    assert chat("Who directed Milk?").answers == ["Gus Van Sant"]
    assert chat("1948").answers != ["Laurence Olivier"]


def test_a_misspelt_title_is_answered_under_the_title_it_was_read_as(chat):
    reply = chat("Who directed Good Wll Huntng?")
    assert reply.answers == ["Gus Van Sant"] and "Good Will Hunting" in reply.text
    assert note(chat("And who wrote it?"))["referents"] == ["it = Good Will Hunting"]


def test_a_superlative_after_a_list_ranks_that_list(chat):
    assert set(chat("which films did Gus Van Sant direct?").answers) == {"Good Will Hunting", "Milk", "Elephant"}
    newest = chat("which is the newest")
    assert newest.answers == ["Milk"] and note(newest)["edit"] == "over the last list"
    assert chat("and the oldest?").answers == ["Good Will Hunting"]


def test_name_them_lists_what_was_counted(chat):
    assert chat("how many films did Gus Van Sant direct?").answers[0] in ("3", "three")
    assert set(chat("name them").answers) == {"Good Will Hunting", "Milk", "Elephant"}


def test_liked_films_accumulate_into_recommendation_requests(chat):
    noted = chat("I loved Milk and Elephant.")
    assert noted.kind == "memory" and "Milk" in noted.text and "Elephant" in noted.text
    chat("I also liked Good Will Hunting")
    request = chat("What should I watch?")
    assert note(request)["recommendation"]["seeds"] == ["Milk", "Elephant", "Good Will Hunting"]  # the liked films go by
    assert note(request)["liked"] == ["Milk (2008)", "Elephant (2003)", "Good Will Hunting (1997)"]
    # a request naming its own films starts a new list unless the user says "also"
    fresh = chat("Recommend movies like Good Will Hunting")
    assert note(fresh)["liked"] == ["Good Will Hunting (1997)"]
    chat("Reset")
    assert note(chat("What should I watch?"))["recommendation"]["seeds"] == []


def test_a_sparql_query_is_no_turn_and_no_answer_to_a_clarification(chat):
    assert chat("Who directed Hamlet?").kind == "clarify"
    reply = chat('SELECT ?x WHERE { ?x <http://www.w3.org/2000/01/rdf-schema#label> "Milk"@en }')
    assert reply.kind == "sparql" and "dialogue" not in steps(reply)
    assert chat("the 1948 one").answers != ["Laurence Olivier"]  # the clarification was left for the query


def test_a_follow_up_whose_lookup_fails_gets_a_friendly_reply_and_the_room_goes_on(chat, monkeypatch):
    from bot.core.errors import StoreError

    assert chat("who directed hamlet").kind == "clarify"

    def unreachable(*args, **kwargs):
        raise StoreError("the endpoint went away")

    monkeypatch.setattr(chat.dialogue.follow, "linked", unreachable)
    reply = chat("the one Robin Williams is in")
    assert reply.kind == "error" and "Traceback" not in reply.text and reply.text
    monkeypatch.undo()
    assert chat("Who directed Milk?").answers == ["Gus Van Sant"]

"""Conversation memory and clarification (bot/dialogue.py) on the mini KG."""

from __future__ import annotations

import pytest

from bot.core.contracts import Message, Reply
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


def test_follow_ups_use_the_previous_turns(chat):
    assert chat("Who directed Good Will Hunting?").answers == ["Gus Van Sant"]
    wrote = chat("And who wrote it?")
    assert sorted(wrote.answers) == ["Ben Affleck", "Matt Damon"]
    assert "Good Will Hunting" in note(wrote)["rewrite"]
    directed = chat("What else did he direct?")  # "he": the single person answer two turns back
    assert set(directed.answers) == {"Milk", "Elephant"}  # "else": not the film already talked about
    about = chat("What about Milk?")  # the last question about a film, asked about Milk
    assert note(about)["rewrite"] == "And who wrote Milk?"
    assert chat("What about Elephant?").kind == "factual"


def test_rooms_have_separate_memories(chat):
    chat("Who directed Good Will Hunting?", room="a")
    chat("Who directed Milk?", room="b")
    assert "Good Will Hunting" in note(chat("Who starred in it?", room="a"))["rewrite"]
    assert "Milk" in note(chat("Who starred in it?", room="b"))["rewrite"]


def test_a_title_is_not_taken_for_a_pronoun(chat):
    chat("Who directed Good Will Hunting?")
    reply = chat("Who directed His Girl Friday?")
    assert "Gus Van Sant's" not in note(reply).get("rewrite", "")


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


def test_a_year_in_the_question_needs_no_clarification(chat):
    assert chat("Who directed Hamlet 1996?").answers == ["Kenneth Branagh"]


def test_an_unrelated_answer_to_a_clarification_is_a_new_question(chat):
    assert chat("Who directed Hamlet?").kind == "clarify"
    assert chat("Who directed Milk?").answers == ["Gus Van Sant"]
    assert chat("1948").kind != "factual" or chat("1948").answers != ["Laurence Olivier"]


def test_a_misspelt_title_is_answered_under_the_title_it_was_read_as(chat):
    reply = chat("Who directed Good Wll Huntng?")
    assert reply.answers == ["Gus Van Sant"] and "Good Will Hunting" in reply.text
    assert "Good Will Hunting" in note(chat("And who wrote it?"))["rewrite"]


def test_liked_films_accumulate_into_recommendation_requests(chat):
    noted = chat("I loved Milk.")
    assert noted.kind == "memory" and "Milk" in noted.text
    chat("I also liked Elephant")
    request = chat("What should I watch?")
    assert note(request)["recommendation"]["seeds"] == ["Milk", "Elephant"]  # the liked films are the request's seeds
    assert note(request)["liked"] == ["Milk (2008)", "Elephant (2003)"]
    # a request naming its own films starts a new list unless the user says "also"
    fresh = chat("Recommend movies like Good Will Hunting")
    assert note(fresh)["liked"] == ["Good Will Hunting (1997)"]
    chat("Reset")
    assert note(chat("What should I watch?"))["recommendation"]["seeds"] == []

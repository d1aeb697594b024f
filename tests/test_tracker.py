"""The conversation state (bot/dialogue/tracker.py) on hand-made plans: no KG, no store."""

from __future__ import annotations

import json

from bot.core.contracts import Aggregate, Answer, Ask, Facts, Hop, LinkedEntity, Understanding, from_data, to_data
from bot.core.kinds import Kind
from bot.dialogue.tracker import KEEP_TURNS, MAX_LIKED, Act, Option, Tracker

GROUPS = {"f:heat": "film", "f:ronin": "film", "f:casino": "film", "f:a": "film", "f:b": "film", "p:mann": "person",
          "p:deniro": "person", "p:pacino": "person", "p:frankenheimer": "person", "g:crime": "genre", "s:heat": "series"}


class Kinds:
    """The class groups of the entities above; no namesakes."""

    @staticmethod
    def group(iri: str | None) -> str:
        return GROUPS.get(iri or "", "")

    @staticmethod
    def namesake(entity: LinkedEntity, group: str) -> LinkedEntity | None:
        return None

    @staticmethod
    def year(iri: str) -> int | None:
        return {"f:heat": 1995, "f:ronin": 1998, "f:casino": 1995}.get(iri)


KINDS = Kinds()


def entity(iri: str, label: str, group: str | None = None, **more) -> LinkedEntity:
    return LinkedEntity(label, iri, label, 100.0, group or GROUPS[iri], **more)


def asked(topic: LinkedEntity, relation: str = "director", to_value: bool = True) -> Understanding:
    chain = (Hop(relation, to_value),)
    return Understanding(f"who is the {relation} of {topic.label}", Kind.FACTUAL, chain, [topic], 0.9, asks=[Ask(chain, 0)])


def answers(*pairs: tuple[str, str]) -> Facts:
    return Facts(Kind.FACTUAL, "", [Answer(label, iri) for iri, label in pairs])


HEAT, RONIN = entity("f:heat", "Heat", year=1995), entity("f:ronin", "Ronin")
MANN, DENIRO, PACINO = entity("p:mann", "Michael Mann"), entity("p:deniro", "Robert De Niro"), entity("p:pacino", "Al Pacino")


def test_a_single_answer_is_what_he_refers_to_and_the_question_topic_what_it_refers_to():
    tracker = Tracker("room")
    tracker.answered(asked(HEAT), answers(("p:mann", "Michael Mann")))
    referents = tracker.referents(KINDS)
    assert referents.film.iri == "f:heat" and referents.he.iri == "p:mann" and referents.she.iri == "p:mann"
    assert referents.topic.iri == "f:heat"
    assert [a.iri for a in referents.answers] == ["p:mann"]  # a singular "they"


def test_the_latest_turn_wins_and_several_answers_are_no_single_referent():
    tracker = Tracker()
    tracker.answered(asked(HEAT), answers(("p:mann", "Michael Mann")))
    tracker.answered(asked(RONIN, "cast_member"), answers(("p:deniro", "Robert De Niro"), ("p:pacino", "Al Pacino")))
    referents = tracker.referents(KINDS)
    assert referents.film.iri == "f:ronin"
    assert referents.person.iri == "p:mann"  # two cast members answered: not one person; the one before is
    assert [a.iri for a in referents.answers] == ["p:deniro", "p:pacino"]  # "did they ..."


def test_a_person_called_she_is_not_who_he_means():
    tracker = Tracker()
    tracker.answered(asked(HEAT), answers(("p:mann", "Michael Mann")))
    tracker.answered(asked(MANN, "cast_member", to_value=False), answers(("f:heat", "Heat"), ("f:ronin", "Ronin")), called={"p:deniro": "she"})
    tracker.answered(asked(DENIRO, "director", to_value=False), answers(("f:casino", "Casino"), ("f:ronin", "Ronin")), called={"p:deniro": "she"})
    referents = tracker.referents(KINDS)
    assert referents.she.iri == "p:deniro"
    assert referents.he.iri == "p:mann"  # the user called De Niro "she": "he" is the person before him


def test_two_films_talked_about_are_what_both_refers_to():
    tracker = Tracker()
    tracker.answered(asked(HEAT), answers(("p:mann", "Michael Mann")))
    tracker.answered(asked(RONIN), answers(("p:frankenheimer", "John Frankenheimer")))
    assert [f.iri for f in tracker.referents(KINDS).films] == ["f:heat", "f:ronin"]
    tracker.answered(asked(MANN, "director", to_value=False), answers(("f:heat", "Heat"), ("f:ronin", "Ronin"), ("f:casino", "Casino")))
    assert tracker.referents(KINDS).films == ()  # after a list of three, "both" points at no two films


def test_those_are_the_films_of_the_last_list_or_else_of_the_last_turns():
    tracker = Tracker()
    tracker.answered(asked(HEAT), answers(("p:mann", "Michael Mann")))
    tracker.answered(asked(RONIN), answers(("p:frankenheimer", "John Frankenheimer")))
    assert tracker.last_films(KINDS) == ["f:ronin", "f:heat"]
    tracker.answered(asked(DENIRO, "cast_member", to_value=False), answers(("f:casino", "Casino"), ("f:heat", "Heat")))
    assert tracker.last_films(KINDS) == ["f:casino", "f:heat"]


def test_a_reset_forgets_the_turns_and_the_liked_films():
    tracker = Tracker()
    tracker.likes([Option("f:heat", "Heat", 1995)])
    tracker.answered(asked(HEAT), answers(("p:mann", "Michael Mann")))
    tracker.reset()
    assert tracker.turns() == [] and tracker.liked() == [] and tracker.referents(KINDS).film is None


def test_liked_films_accumulate_newest_last_and_a_fresh_list_replaces_them():
    tracker = Tracker()
    tracker.likes([Option("f:heat", "Heat", 1995), Option("f:ronin", "Ronin", 1998)])
    tracker.likes([Option("f:heat", "Heat", 1995)])
    assert [o.iri for o in tracker.liked()] == ["f:ronin", "f:heat"]
    tracker.likes([Option(f"f:{n}", f"Film {n}", 2000) for n in range(MAX_LIKED + 3)])
    assert len(tracker.liked()) == MAX_LIKED and tracker.liked()[-1].iri == f"f:{MAX_LIKED + 2}"
    tracker.starts_liking([Option("f:casino", "Casino", 1995)])
    assert [o.iri for o in tracker.liked()] == ["f:casino"]


def test_a_clarification_is_pending_only_until_the_user_says_something():
    tracker = Tracker()
    tracker.asked_back(asked(HEAT), 0, [Option("f:heat", "Heat", 1995), Option("f:heat86", "Heat", 1986)])
    assert tracker.pending().options[1].year == 1986
    tracker.said("who directed Ronin?")
    assert tracker.pending() is None


def test_old_turns_are_dropped_but_liked_films_are_kept():
    tracker = Tracker()
    tracker.likes([Option("f:heat", "Heat", 1995)])
    for n in range(KEEP_TURNS + 5):
        tracker.said(f"question {n}")
        tracker.answered(asked(RONIN), answers(("p:frankenheimer", "John Frankenheimer")))
    assert len(tracker.turns()) == KEEP_TURNS
    assert [o.iri for o in tracker.liked()] == ["f:heat"]
    assert sum(e.act == Act.MESSAGE for e in tracker.events) <= KEEP_TURNS


def test_the_state_goes_to_json_and_back_as_it_was():
    tracker = Tracker("!room:example.org")
    tracker.said("who directed Heat?")
    plan = asked(HEAT)
    plan.aggregate = Aggregate("max", "duration")
    tracker.answered(plan, answers(("p:mann", "Michael Mann")), called={"p:mann": "he"})
    tracker.likes([Option("f:ronin", "Ronin", 1998)])
    tracker.asked_back(asked(HEAT), 0, [Option("f:heat", "Heat", 1995)])
    again = from_data(Tracker, json.loads(json.dumps(to_data(tracker))))
    assert again == tracker
    assert again.referents(KINDS) == tracker.referents(KINDS)
    assert again.pending().options[0].year == 1995 and isinstance(again.turns()[0][0].chain[0], Hop)


def test_it_after_a_topic_named_like_a_film_is_that_film():
    class WithNamesakes(Kinds):
        @staticmethod
        def namesake(entity: LinkedEntity, group: str) -> LinkedEntity | None:
            return entity_like if group == "film" and entity.label == "Coraline" else None

    entity_like = LinkedEntity("Coraline", "f:coraline", "Coraline", 100.0, "film")
    novel = LinkedEntity("Coraline", "w:coraline", "Coraline", 100.0, "work")
    tracker = Tracker()
    tracker.answered(asked(HEAT), answers(("p:mann", "Michael Mann")))
    tracker.answered(Understanding("tell me about Coraline", Kind.FACTUAL, entities=[novel]), Facts(Kind.FACTUAL, ""))
    assert tracker.referents(WithNamesakes()).film.iri == "f:coraline"
    assert tracker.referents(KINDS).film.iri == "f:heat"


def test_the_one_person_among_mixed_answers_is_he_and_a_series_talked_about_is_it():
    tracker = Tracker()
    tracker.answered(asked(RONIN), answers(("p:frankenheimer", "John Frankenheimer")))
    tracker.answered(asked(HEAT, "overview"), answers(("f:heat", "Heat"), ("p:mann", "Michael Mann")))
    assert tracker.referents(KINDS).he.iri == "p:mann"
    saga = LinkedEntity("The Heat Saga", "s:heat", "The Heat Saga", 100.0, "series")
    tracker.answered(Understanding("tell me about The Heat Saga", Kind.FACTUAL, entities=[saga]), Facts(Kind.FACTUAL, ""))
    assert tracker.referents(KINDS).film.iri == "s:heat"


def test_the_two_films_a_request_named_are_both_even_after_a_longer_answer():
    tracker = Tracker()
    request = Understanding("I liked Heat and Ronin, anything similar?", Kind.RECOMMENDATION, entities=[HEAT, RONIN])
    tracker.answered(request, answers(("f:casino", "Casino"), ("f:a", "A"), ("f:b", "B")))
    assert [f.iri for f in tracker.referents(KINDS).films] == ["f:heat", "f:ronin"]


def test_the_films_of_the_last_list_come_with_their_years():
    tracker = Tracker()
    tracker.answered(asked(DENIRO, "cast_member", to_value=False), answers(("f:heat", "Heat"), ("f:ronin", "Ronin")))
    assert [(f.label, f.year) for f in tracker.referents(KINDS).listed] == [("Heat", 1995), ("Ronin", 1998)]

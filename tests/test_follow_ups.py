"""Follow-ups as edits of typed plans (bot/dialogue/follow_ups.py), on hand-made plans: no KG, no store."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from bot.core.contracts import Aggregate, Answer, Ask, Constraint, Facts, Hop, LinkedEntity, Understanding, Verification
from bot.core.kinds import Kind
from bot.dialogue.follow_ups import FollowUps, names_only, with_entity
from bot.dialogue.tracker import Tracker

INFO = {"f:heat": ("Heat", "film", 5, 1995), "f:heat86": ("Heat", "film", 1, 1986), "f:ronin": ("Ronin", "film", 3, 1998),
        "f:casino": ("Casino", "film", 3, 1995), "p:mann": ("Michael Mann", "person", 9, None),
        "p:deniro": ("Robert De Niro", "person", 9, None), "p:reynolds": ("Burt Reynolds", "person", 2, None)}
LINKED = {"p:reynolds": {"f:heat86"}, "p:deniro": {"f:heat", "f:ronin", "f:casino"}}


class Graph:
    """Answers the one query the follow-ups send: which of some films a person is linked to."""

    def select(self, query: str) -> list[dict]:
        person = next(p for p in LINKED if p in query)
        return [{"film": SimpleNamespace(value=f)} for f in sorted(LINKED[person]) if f"<{f}>" in query]


AGENT = SimpleNamespace(
    kg=SimpleNamespace(labels=SimpleNamespace(info=INFO.get, lookup=lambda norm: []), graph=Graph()),
    understander=SimpleNamespace(lexicon=SimpleNamespace(relations_of=lambda word: frozenset({"cast_member"}) if word == "starred" else frozenset()),
                                 composer=SimpleNamespace(roles_of=lambda entity: {"cast_member"})),
)
FOLLOW = FollowUps(AGENT)


def entity(iri: str, start: int = 0, end: int = 0, **more) -> LinkedEntity:
    label, group, _, year = INFO[iri]
    return LinkedEntity(label, iri, label, 100.0, group, start, end, year, **more)


def relation(topic: LinkedEntity, name: str = "director", text: str = "") -> Understanding:
    chain = (Hop(name, True),)
    return Understanding(text or f"Who is the {name} of {topic.label}?", Kind.FACTUAL, chain, [topic], 0.9, asks=[Ask(chain, 0)])


def named(text: str, *iris: str) -> Understanding:
    """A message read as names only ("And Ronin?"): its entities at their places, no asks."""
    found = [entity(iri, text.index(INFO[iri][0]), text.index(INFO[iri][0]) + len(INFO[iri][0])) for iri in iris]
    return Understanding(text, Kind.FACTUAL, entities=found, unclear="what you would like to know about it")


def films(*iris: str) -> Facts:
    return Facts(Kind.FACTUAL, "", [Answer(INFO[i][0], i) for i in iris])


def conversation(*turns: tuple[Understanding, Facts]) -> Tracker:
    tracker = Tracker()
    for plan, facts in turns:
        tracker.answered(plan, facts)
    return tracker


def test_a_new_entity_takes_every_place_of_the_old_one_in_the_plan():
    heat = entity("f:heat", 17, 21)
    plan = Understanding("Is De Niro in Heat and who directed Heat", Kind.FACTUAL, entities=[heat, entity("f:heat", 36, 40)],
                         constraints=[Constraint(("director",), "in", ("f:heat",), "Heat")])
    edited = with_entity(plan, 0, entity("f:ronin"))
    assert [e.iri for e in edited.entities] == ["f:ronin", "f:ronin"]
    assert [(e.start, e.end) for e in edited.entities] == [(17, 21), (36, 40)]  # where the old name was said
    assert edited.constraints[0].values == ("f:ronin",) and edited.constraints[0].said == "Ronin"


def test_only_names_with_words_that_move_the_conversation_are_a_change_of_topic():
    assert names_only(named("And Ronin?", "f:ronin"))
    assert names_only(named("ok, what about Ronin then?", "f:ronin"))
    assert not names_only(named("who lensed Ronin?", "f:ronin"))


def test_and_another_film_asks_the_last_question_about_it():
    tracker = conversation((relation(entity("f:heat"), "composer"), Facts(Kind.FACTUAL, "")))
    edited = FOLLOW.another_topic(named("and Ronin?", "f:ronin"), tracker)
    assert edited.chain == (Hop("composer", True),) and [e.iri for e in edited.entities] == ["f:ronin"]


def test_another_person_skips_the_questions_about_films_to_the_last_one_about_a_person():
    about_mann = relation(entity("p:mann"), "director")
    about_mann.asks = [Ask((Hop("director", False),), 0)]
    about_mann.chain = (Hop("director", False),)
    tracker = conversation((about_mann, films("f:heat")), (relation(entity("f:ronin")), Facts(Kind.FACTUAL, "")))
    edited = FOLLOW.another_topic(named("what about Robert De Niro?", "p:deniro"), tracker)
    assert edited.chain == (Hop("director", False),) and edited.entities[0].iri == "p:deniro"


def test_another_film_after_a_yes_no_check_checks_it():
    check = Understanding("Is Robert De Niro in Heat?", Kind.FACTUAL, (), [entity("p:deniro"), entity("f:heat")],
                          verification=Verification("cast_member", topic=1, value=0))
    edited = FOLLOW.another_topic(named("and Casino?", "f:casino"), conversation((check, Facts(Kind.FACTUAL, ""))))
    assert [e.iri for e in edited.entities] == ["p:deniro", "f:casino"] and edited.verification == check.verification


def test_a_superlative_without_its_films_after_a_list_is_over_that_list():
    tracker = conversation((relation(entity("p:deniro")), films("f:heat", "f:ronin", "f:casino")))
    longest = Understanding("which is longest", Kind.FACTUAL, aggregate=Aggregate("max", "duration"))
    scoped = FOLLOW.over_the_list(longest, longest.text, tracker)
    assert scoped.constraints[-1].op == "earlier"
    assert FOLLOW.resolve_sets(scoped, tracker).constraints[-1].values == ("f:heat", "f:ronin", "f:casino")
    ever = Understanding("which is the longest ever", Kind.FACTUAL, aggregate=Aggregate("max", "duration"))
    assert FOLLOW.over_the_list(ever, ever.text, tracker) is ever


def test_a_superlative_without_its_films_and_no_list_before_is_asked_back():
    tracker = conversation((relation(entity("f:heat")), Facts(Kind.FACTUAL, "", [Answer("Michael Mann", "p:mann")])))
    longest = Understanding("and the oldest?", Kind.FACTUAL, aggregate=Aggregate("min", "date"))
    said = FOLLOW.resolve_sets(FOLLOW.over_the_list(longest, longest.text, tracker), tracker)
    assert isinstance(said, str) and "not a list of films" not in said and "Which films" in said


def test_what_else_leaves_out_the_film_the_conversation_is_about():
    tracker = conversation((relation(entity("f:casino"), "cast_member"), films()), (relation(entity("f:heat")), films()))
    chain = (Hop("director", False),)
    plan = Understanding("what else did Michael Mann direct", Kind.FACTUAL, chain, [entity("p:mann")], asks=[Ask(chain, 0, others=True)])
    assert set(FOLLOW.without_earlier(plan, tracker).asks[0].excluded) == {"f:heat"}


def test_name_them_after_a_count_lists_what_was_counted():
    count = Understanding("how many films did De Niro star in", Kind.FACTUAL, entities=[entity("p:deniro")],
                          constraints=[Constraint(("cast_member",), "in", ("p:deniro",))], aggregate=Aggregate("count"))
    listed = FOLLOW.list_them("ok, name them", conversation((count, Facts(Kind.FACTUAL, "", [Answer("3")]))))
    assert listed.aggregate is None and listed.constraints == count.constraints


def test_the_one_with_a_person_or_a_year_corrects_the_namesake():
    heat = entity("f:heat", alternatives=[{"iri": "f:heat86", "label": "Heat", "year": 1986, "group": "film"}])
    tracker = conversation((relation(heat), Facts(Kind.FACTUAL, "", [Answer("Michael Mann", "p:mann")])))
    by_person = FOLLOW.correction(named("no, the one with Burt Reynolds", "p:reynolds"), "no, the one with Burt Reynolds", tracker)
    assert by_person.entities[0].iri == "f:heat86" and by_person.chain == (Hop("director", True),)
    by_year = FOLLOW.correction(Understanding("the 1986 one", Kind.UNKNOWN), "the 1986 one", tracker)
    assert by_year.entities[0].iri == "f:heat86"
    other = FOLLOW.correction(Understanding("i meant the other one", Kind.UNKNOWN), "i meant the other one", tracker)
    assert other.entities[0].iri == "f:heat86" and other.entities[0].alternatives[0]["iri"] == "f:heat"  # and back again later


def test_a_correction_of_a_name_the_graph_lacked_asks_that_question_again_with_the_name():
    missed = Understanding("who directed the Roninn?", Kind.UNKNOWN, not_found=["Roninn"])
    again = FOLLOW.correction(named("sorry, I meant Ronin", "f:ronin"), "sorry, I meant Ronin", conversation((missed, Facts(Kind.UNKNOWN, ""))))
    assert again == "who directed Ronin?"


def test_a_question_of_its_own_is_no_correction():
    heat = entity("f:heat", alternatives=[{"iri": "f:heat86", "label": "Heat", "year": 1986, "group": "film"}])
    tracker = conversation((relation(heat), Facts(Kind.FACTUAL, "")))
    own = relation(entity("f:casino"), text="which one of the two is longer, Casino?")
    assert FOLLOW.correction(own, own.text, tracker) is None


def test_name_them_after_a_count_that_was_not_understood_asks_for_the_list_instead():
    missed = Understanding("How many Lynch films has Al Pacino been in?", Kind.FACTUAL, entities=[entity("p:deniro")],
                           unclear='how "lynch" fits the question')
    assert FOLLOW.list_them("which ones?", conversation((missed, Facts(Kind.FACTUAL, "")))) == "which Lynch films has Al Pacino been in?"


def test_what_else_did_a_person_do_is_their_films_in_their_main_role_and_else_leaves_some_out():
    composer = SimpleNamespace(roles_of=lambda person: {"director", "cast_member"}, main_roles=lambda person, roles: {"cast_member", "director"})
    agent = SimpleNamespace(kg=SimpleNamespace(labels=AGENT.kg.labels, graph=Graph(), bundle=SimpleNamespace(relations={"director": 0, "cast_member": 1})),
                            understander=SimpleNamespace(lexicon=AGENT.understander.lexicon, composer=composer))
    follow = FollowUps(agent)
    plan = named("what else did Michael Mann do?", "p:mann")
    edited = follow.what_else(plan, plan.text)
    assert edited.chain == (Hop("director", False),) and edited.asks[0].others  # of his main roles, the bundle's first
    assert follow.what_else(named("who else starred with Michael Mann", "p:mann"), "") is None  # "starred" names a role


def test_another_name_after_a_name_the_graph_lacked_asks_that_question_about_it():
    missed = Understanding("who scored Roninn?", Kind.UNKNOWN, not_found=["Roninn"])
    assert FOLLOW.another_topic(named("ok, what about Ronin", "f:ronin"), conversation((missed, Facts(Kind.UNKNOWN, "")))) == "who scored Ronin?"


def _two_role_follow_ups() -> FollowUps:
    """Follow-ups over a graph where Michael Mann directs most of his films and acts in a few."""
    composer = SimpleNamespace(roles_of=lambda person: {"director", "cast_member"}, main_roles=lambda person, roles: {"director"})
    relations = {"director": SimpleNamespace(value_class="person"), "cast_member": SimpleNamespace(value_class="person"),
                 "genre": SimpleNamespace(value_class="genre")}
    agent = SimpleNamespace(kg=SimpleNamespace(labels=AGENT.kg.labels, graph=Graph(), bundle=SimpleNamespace(relations=relations)),
                            understander=SimpleNamespace(lexicon=AGENT.understander.lexicon, composer=composer))
    return FollowUps(agent)


def test_what_else_about_a_person_just_answered_keeps_the_role_the_answer_gave_them():
    follow = _two_role_follow_ups()
    cast = relation(entity("f:ronin"), "cast_member", "who acted in Ronin?")
    tracker = conversation((cast, Facts(Kind.FACTUAL, "", [Answer("Michael Mann", "p:mann")])))
    plan = named("his other stuff, Michael Mann?", "p:mann")
    edited = follow.what_else(plan, plan.text, tracker)
    assert edited.chain == (Hop("cast_member", False),) and edited.asks[0].others  # not his main role, directing
    directed = conversation((relation(entity("f:heat"), "director"), Facts(Kind.FACTUAL, "", [Answer("Michael Mann", "p:mann")])))
    assert follow.what_else(plan, plan.text, directed).chain == (Hop("director", False),)
    assert follow.what_else(named("Michael Mann?", "p:mann"), "", tracker) is None  # no "else", "other" or "more": no films asked


def test_what_was_a_person_in_asks_for_the_films_they_acted_in():
    follow = _two_role_follow_ups()
    tracker = conversation((relation(entity("f:heat"), "director"), Facts(Kind.FACTUAL, "", [Answer("Michael Mann", "p:mann")])))
    edited = follow.what_else(named("what was Michael Mann in then?", "p:mann"), "", tracker)
    assert edited.chain == (Hop("cast_member", False),) and not edited.asks[0].others


def test_who_else_is_in_the_film_leaves_out_the_people_the_conversation_named():
    follow = _two_role_follow_ups()
    check = Understanding("Is Robert De Niro in Heat?", Kind.FACTUAL, entities=[entity("p:deniro"), entity("f:heat")])
    tracker = conversation((check, Facts(Kind.FACTUAL, "", [Answer("yes")])))
    edited = follow.who_else(named("who else is in Heat?", "f:heat"), "", tracker)
    assert edited.chain == (Hop("cast_member", True),) and edited.asks[0].excluded == ("p:deniro",)
    assert follow.who_else(named("what else is Heat?", "f:heat"), "", tracker) is None  # asks for no people
    assert follow.who_else(named("who is in Heat?", "f:heat"), "", tracker) is None  # no "else": the reader's question


def test_those_after_a_superlative_over_a_list_is_still_that_list():
    listed = Understanding("Which films did Robert De Niro star in?", Kind.FACTUAL, entities=[entity("p:deniro")])
    oldest = Understanding("which of those is the oldest?", Kind.FACTUAL, constraints=[Constraint((), "among", ("f:heat", "f:ronin", "f:casino"))],
                           aggregate=Aggregate("min", "date"))
    tracker = conversation((listed, films("f:heat", "f:ronin", "f:casino")), (oldest, films("f:heat")))
    assert tracker.last_films(FOLLOW) == ["f:heat", "f:ronin", "f:casino"]


def test_who_else_read_as_a_chain_through_other_films_is_the_films_people_instead():
    follow = _two_role_follow_ups()
    tracker = conversation((relation(entity("f:heat"), "cast_member"), Facts(Kind.FACTUAL, "", [Answer("Robert De Niro", "p:deniro")])))
    chain = (Hop("director", True), Hop("director", False), Hop("cast_member", True))  # "the cast of the other films of its director"
    misread = Understanding("who else starred in Heat?", Kind.FACTUAL, chain, [entity("f:heat", 20, 24)], 0.6, asks=[Ask(chain, 0)])
    edited = follow.who_else(misread, "", tracker)
    assert edited.chain == (Hop("cast_member", True),) and edited.asks[0].excluded == ("p:deniro",)
    direct = replace(misread, chain=chain[-1:], asks=[Ask(chain[-1:], 0)])
    assert follow.who_else(direct, "", tracker) is None  # a question the reader read as asked is left as it is


def test_who_else_alone_after_a_question_about_a_films_people_asks_it_again_without_those_answered():
    follow = _two_role_follow_ups()
    tracker = conversation((relation(entity("f:heat"), "cast_member"), Facts(Kind.FACTUAL, "", [Answer("Robert De Niro", "p:deniro")])))
    edited = follow.who_else(Understanding("who else?", Kind.FACTUAL, unclear='how "else" fits'), "", tracker)
    assert edited.chain == (Hop("cast_member", True),) and [e.iri for e in edited.entities] == ["f:heat"]
    assert edited.asks[0].excluded == ("p:deniro",)
    after_a_date = conversation((relation(entity("f:heat"), "publication_date"), Facts(Kind.FACTUAL, "", [Answer("1995")])))
    assert follow.who_else(Understanding("who else?", Kind.FACTUAL), "", after_a_date) is None  # no people were asked for

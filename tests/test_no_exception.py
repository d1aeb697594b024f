"""No exception reaches a person: random plans over every construction, operator and value type, and random noisy
messages, on the demo KG. Every reply is of a known kind and says something in words; none is "something went wrong".

A plan the answerers cannot serve (a year condition with a value that is no number, a condition on the conversation's
films that was never resolved) must be said in words (bot.core.errors.PlanError), not crash.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.agent import Agent
from bot.core.config import Settings
from bot.core.contracts import (
    Aggregate,
    Ask,
    Collaboration,
    Comparison,
    Constraint,
    Conversation,
    Hop,
    LinkedEntity,
    Message,
    Overview,
    Shared,
    Understanding,
    Verification,
)
from bot.core.kinds import Kind
from bot.core.terms import AggregateOp, Check, Group, Op
from bot.dialogue.dialogue import Dialogue
from bot.generation.templates import template_sentence
from bot.resources import demo_kg
from bot.understanding.questions import supported_chains

from conftest import CHEAP_FEATURES

pytestmark = pytest.mark.integration  # the demo KG's store, label index and classifier

ERROR_WORDS = ("went wrong", "Traceback", "Error", "exception", "KeyError", "None")
RUNS = settings(max_examples=int(__import__("os").environ.get("REG_EXAMPLES", 150)), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def agent(cache_dir) -> Agent:
    return Agent.from_settings(Settings(kg=str(demo_kg()), cache_dir=str(cache_dir), features=CHEAP_FEATURES))


@pytest.fixture(scope="module")
def graph(agent):
    """What the strategies draw from: entities by group, the relations, the chains the templates serve."""
    labels, bundle = agent.kg.labels, agent.kg.bundle
    by_group: dict[str, list[int]] = {}
    for i, group in enumerate(labels.groups):
        by_group.setdefault(group or "other", []).append(i)
    return Drawn({"labels": labels, "groups": {g: ids[:400] for g, ids in by_group.items()}, "relations": list(bundle.relations),
            "literal": [name for name, rel in bundle.relations.items() if rel.kind in ("date", "year", "number")],
            "chains": [c.hops for c in supported_chains(bundle)]})


class Drawn(dict):
    """What the strategies draw from (shown short when a case fails)."""

    def __repr__(self) -> str:
        return "<the demo KG's entities, relations and chains>"


def entity(graph, i: int) -> LinkedEntity:
    labels = graph["labels"]
    return LinkedEntity(labels.labels[i], labels.iris[i], labels.labels[i], 100.0, labels.groups[i], year=labels.years[i])


@st.composite
def entities(draw, graph, groups=None) -> LinkedEntity:
    group = draw(st.sampled_from(groups or sorted(graph["groups"])))
    return entity(graph, draw(st.sampled_from(graph["groups"][group])))


@st.composite
def values(draw, graph, op: Op) -> tuple[str, ...]:
    """Values of the kind the operator takes -- and, now and then, of a kind it does not."""
    kind = draw(st.sampled_from(["right", "right", "right", "wrong", "empty"]))
    if kind == "empty":
        return ()
    iris = op.on_set == (kind == "right")
    if iris:
        return tuple(e.iri for e in draw(st.lists(entities(graph, [Group.FILM] if op in (Op.AMONG, Op.NOT_AMONG) else None), min_size=1, max_size=4)))
    number = draw(st.one_of(st.integers(-5, 3000), st.floats(allow_nan=False, allow_infinity=False, width=32), st.sampled_from(["1990", "abc", ""])))
    return (str(number),)


@st.composite
def constraints(draw, graph) -> Constraint:
    op = draw(st.sampled_from(list(Op)))
    relations = () if op in (Op.AMONG, Op.NOT_AMONG) or op.conversational else tuple(
        draw(st.lists(st.sampled_from(graph["relations"]), min_size=1, max_size=2, unique=True)))
    return Constraint(relations, op, draw(values(graph, op)), draw(st.sampled_from(["", "from the 90s", "comedies", "not X"])),
                      draw(st.booleans()))


@st.composite
def plans(draw, graph) -> Understanding:
    """A plan of each shape the constructions read, with random operators, relations and values."""
    shape = draw(st.sampled_from(["films", "count", "any", "most", "ordered", "comparison", "verification", "literal", "shared",
                                  "value_count", "overview", "collaboration", "chain"]))
    relation = draw(st.sampled_from(graph["relations"] + graph["literal"]))  # (the date and number relations twice as often)
    text = f"a random {shape} plan"
    if shape in ("films", "count", "any", "most", "ordered"):
        aggregate = {"films": None, "count": Aggregate(AggregateOp.COUNT), "any": Aggregate(AggregateOp.ANY),
                     "most": Aggregate(AggregateOp.MOST, relation),
                     "ordered": Aggregate(draw(st.sampled_from([AggregateOp.MAX, AggregateOp.MIN])), relation,
                                          draw(st.sampled_from([(), ("*count",), ("http://test.invalid/award",)])))}[shape]
        return Understanding(text, Kind.FACTUAL, constraints=draw(st.lists(constraints(graph), min_size=1, max_size=3)), aggregate=aggregate)
    if shape == "comparison":
        items = draw(st.lists(entities(graph), min_size=2, max_size=3))
        return Understanding(text, Kind.FACTUAL, entities=items, comparison=Comparison(
            relation, draw(st.booleans()), tuple(range(len(items))), draw(st.booleans()), (), draw(st.sampled_from(["", "yes"]))))
    if shape in ("verification", "literal"):
        topic = draw(entities(graph, draw(st.sampled_from([[Group.FILM], None]))))
        if shape == "verification":
            value = draw(entities(graph))
            check = Verification(";".join(draw(st.lists(st.sampled_from(graph["relations"]), min_size=1, max_size=2, unique=True))), 0, 1,
                                 draw(st.sampled_from([Check.EQUALS, Check.ANY])))
            return Understanding(text, Kind.FACTUAL, entities=[topic, value], verification=check)
        check = Verification(draw(st.sampled_from(graph["literal"] + [relation])), 0, None, draw(st.sampled_from(list(Check))),
                             draw(st.sampled_from(["1990", "120", "abc", "", "-3", "1e400"])))
        return Understanding(text, Kind.FACTUAL, entities=[topic], verification=check)
    if shape == "shared":
        items = draw(st.lists(entities(graph), min_size=2, max_size=3))
        return Understanding(text, Kind.FACTUAL, entities=items,
                             shared=Shared(draw(st.sampled_from(graph["chains"])), tuple(range(len(items))), draw(st.booleans())))
    if shape == "collaboration":
        items = draw(st.lists(entities(graph, draw(st.sampled_from([[Group.PERSON], None]))), min_size=1, max_size=3))
        roles, partner_roles = (tuple(draw(st.lists(st.sampled_from(graph["relations"]), max_size=2, unique=True))) for _ in range(2))
        return Understanding(text, Kind.FACTUAL, entities=items, collaboration=Collaboration(
            0, roles, partner_roles, tuple(range(1, len(items))), draw(st.booleans())))
    if shape == "value_count":
        return Understanding(text, Kind.FACTUAL, (Hop(relation, True),), [draw(entities(graph))], asks=[Ask((Hop(relation, True),), 0)],
                             aggregate=Aggregate(AggregateOp.COUNT, relation))
    if shape == "overview":
        relations = tuple(draw(st.lists(st.sampled_from(graph["relations"]), max_size=4, unique=True)))
        return Understanding(text, Kind.FACTUAL, entities=[draw(entities(graph))],
                             overview=Overview(0, relations, tuple(draw(st.integers(0, 5)) for _ in relations), draw(st.integers(0, 5))))
    chain = draw(st.sampled_from(graph["chains"]))
    return Understanding(text, Kind.FACTUAL, chain, [draw(entities(graph))], asks=[Ask(chain, 0, None, text, 0.5, draw(st.booleans()))])


@given(data=st.data())
@RUNS
def test_every_plan_is_answered_in_words(agent, graph, data):
    plan = data.draw(plans(graph))
    conversation = Conversation()
    if data.draw(st.booleans()):  # a conversation whose last answer listed films ("which of those ...")
        films = [data.draw(entities(graph, [Group.FILM])) for _ in range(3)]
        conversation.remember(Understanding("earlier", Kind.FACTUAL, entities=films), agent._facts(
            Understanding("earlier", Kind.FACTUAL, constraints=[Constraint((), Op.AMONG, tuple(f.iri for f in films))]), Conversation()))
    facts = agent._facts(plan, conversation)
    sentence = template_sentence(facts, agent.kg.bundle).text
    assert facts.kind in set(Kind) and sentence.strip(), (plan, facts)
    assert not any(word in sentence for word in ERROR_WORDS), (plan, sentence)


WORDS = ("who directed", "when was", "released", "longest", "how many", "films", "with", "not", "and", "or", "?", "the", "of",
         "those", "it", "tell me about", "which is older", "both", "than", "2 hours", "90s", "before 1980", "recommend", "like",
         "show me", "didn't", "Heat", "heat", "The Godfather", "Steven Spielberg", "spielberg", "comedy", "horror", "Oscars",
         "SELECT", "{", "}", "'", "\"", "!!", "...", "&", "1984", "-1", "ünïcödé", "\u200b", "😀", "lonest", "dirceted")


@given(parts=st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=8)), min_size=1, max_size=10), follow=st.booleans())
@RUNS
def test_every_noisy_message_gets_one_reply_of_a_known_kind(agent, parts, follow):
    text = " ".join(parts)
    dialogue = Dialogue(agent)
    if follow:  # a follow-up after a list of films
        dialogue.reply(Message("room", "ann", "Which films did Steven Spielberg direct?"))
    reply = dialogue.reply(Message("room", "ann", text))
    assert reply.kind in set(Kind) and reply.kind is not Kind.ERROR and not reply.error, (text, reply.text)
    assert reply.text.strip() and "went wrong" not in reply.text, (text, reply.text)

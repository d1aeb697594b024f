"""The typed terms of a plan: every operator one part writes is one another part can serve, or is refused in words."""

from __future__ import annotations

import json

import pytest

from bot.core.contracts import Aggregate, Constraint, Verification, from_data, to_data
from bot.core.errors import PlanError
from bot.core.terms import AggregateOp, Check, Op
from bot.kg import queries
from bot.kg.bundle import load_bundle

from conftest import REPO


@pytest.fixture(scope="module")
def bundle():
    return load_bundle(REPO / "kg")


def constraint_for(op: Op, bundle) -> Constraint:
    """A condition with `op` of the kind of value the operator takes, on a relation of the demo bundle."""
    film = "http://www.wikidata.org/entity/Q47703"
    if op in (Op.AMONG, Op.NOT_AMONG):
        return Constraint((), op, (film,))
    if op.conversational:
        return Constraint((), op, ())
    if op.on_year:
        return Constraint((bundle.date_relation.name,), op, ("1990",), "from the 1990s")
    if op.on_number:
        number = next(name for name, rel in bundle.relations.items() if rel.kind == "number")
        return Constraint((number,), op, ("120",), "over two hours")
    return Constraint(("director",), op, ("http://www.wikidata.org/entity/Q25191",), "Christopher Nolan")


@pytest.mark.parametrize("op", list(Op), ids=str)
def test_every_condition_operator_becomes_sparql_or_is_refused_in_words(op, bundle):
    condition = constraint_for(op, bundle)
    if op.conversational:
        with pytest.raises(PlanError) as refused:
            queries.films_where(bundle, [condition])
        assert "cannot answer" in refused.value.user_message and "earlier" in refused.value.user_message
        return
    where = queries.films_where(bundle, [condition])
    assert "?film" in where
    if op.on_year or op.on_number:
        assert op.symbol in where


def test_an_operator_nobody_can_serve_fails_where_it_is_written():
    with pytest.raises(ValueError):
        Constraint(("director",), "earler", ())
    with pytest.raises(ValueError):
        Aggregate("avg")
    with pytest.raises(ValueError):
        Verification("director", 0, None, "~")


def test_operators_written_as_their_names_are_the_typed_members():
    assert Constraint(("genre",), "not_in", ()).op is Op.NOT_IN
    assert Aggregate("most", "director").op is AggregateOp.MOST
    assert Verification("duration", 0, None, ">").op is Check.GT
    assert Op.NOT_IN == "not_in"  # members compare with (and serialise as) their names


@pytest.mark.parametrize("op", list(Op), ids=str)
def test_a_condition_keeps_its_typed_operator_through_json(op, bundle):
    condition = constraint_for(op, bundle)
    again = from_data(Constraint, json.loads(json.dumps(to_data(condition))))
    assert again == condition and again.op is op


def test_year_and_number_operators_say_which_side_passes():
    assert [op for op in Op if (op.on_year or op.on_number) and op.greater] == [Op.YEAR_FROM, Op.GT, Op.GE]
    assert all(op.on_set or op.on_year or op.on_number or op.conversational for op in Op)

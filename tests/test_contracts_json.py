"""Every contract dataclass survives JSON and back with every field set, so no field (not even a future one) silently drops.

The instances are built from the type hints, each field given a value other than its
default: a field the serialisation forgot would come back as its default and fail here.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import json
import typing
from types import UnionType
from typing import Any

import pytest

from bot.core import contracts, results
from bot.core.contracts import from_data, to_data
from bot.dialogue import tracker

CONTRACTS = [c for _, c in inspect.getmembers(contracts, inspect.isclass) if dataclasses.is_dataclass(c) and c.__module__ == contracts.__name__]
MEMORY = [tracker.Tracker, tracker.Event, tracker.Option]
RESULTS = list(results.RESULTS.values())


class Sampler:
    """Values for type hints, each one different from the last (so no field equals its default by chance)."""

    def __init__(self):
        self.n = 0

    def next(self) -> int:
        self.n += 1
        return self.n

    def value(self, kind: Any, depth: int = 0) -> Any:
        origin = typing.get_origin(kind)
        if kind is Any:
            return {"nested": ["plain", self.next(), {"deeper": True}]}
        if origin in (typing.Union, UnionType):
            return self.value(next(k for k in typing.get_args(kind) if k is not type(None)), depth)
        if origin is list:
            (item,) = typing.get_args(kind)
            return [] if depth > 2 and dataclasses.is_dataclass(item) else [self.value(item, depth + 1)]
        if origin is tuple:
            args = typing.get_args(kind)
            if len(args) == 2 and args[1] is Ellipsis:
                return (self.value(args[0], depth + 1), self.value(args[0], depth + 1))
            return tuple(self.value(a, depth + 1) for a in args)
        if origin is dict:
            _, item = typing.get_args(kind)
            return {f"key{self.next()}": self.value(item, depth + 1)}
        if kind is dict:
            return {f"key{self.next()}": f"value {self.next()}", "list": [self.next()]}
        if kind is bool:
            return True
        if kind is int:
            return self.next() + 100
        if kind is float:
            return self.next() + 0.25
        if kind is str:
            return f"text {self.next()}"
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            return list(kind)[-1]  # (defaults are first members)
        if dataclasses.is_dataclass(kind) and hasattr(kind, "variant"):  # a base class: each of its forms in turn
            return self.instance(RESULTS[self.next() % len(RESULTS)], depth + 1)
        if dataclasses.is_dataclass(kind):
            return self.instance(kind, depth + 1)
        raise TypeError(f"no sample value for {kind!r}: extend the sampler")

    def instance(self, kind: type, depth: int = 0):
        hints = typing.get_type_hints(kind)
        values = {}
        for f in dataclasses.fields(kind):
            if not f.init:
                continue
            value = self.value(hints[f.name], depth)
            if hints[f.name] is bool:
                value = not (f.default if f.default is not dataclasses.MISSING else False)
            values[f.name] = value
        return kind(**values)


def defaults(kind: type) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(kind):
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def test_the_contracts_module_has_the_dataclasses_the_pipeline_passes():
    names = {c.__name__ for c in CONTRACTS}
    assert {"Message", "Understanding", "Facts", "Sentence", "Reply", "Conversation", "LinkedEntity", "Ask", "Constraint",
            "Aggregate", "Comparison", "Verification", "Hop", "Answer", "Fact", "TraceStep"} <= names


@pytest.mark.parametrize("kind", CONTRACTS + MEMORY + RESULTS, ids=lambda k: k.__name__)
def test_every_field_round_trips_through_json(kind):
    original = Sampler().instance(kind)
    for name, default in defaults(kind).items():
        assert getattr(original, name) != default, f"{kind.__name__}.{name} was sampled as its default"
    text = json.dumps(to_data(original))
    assert from_data(kind, json.loads(text)) == original


def test_a_conversation_with_turns_and_nested_parts_round_trips():
    sampler = Sampler()
    conversation = contracts.Conversation("!room:example.org", [(sampler.instance(contracts.Understanding), sampler.instance(contracts.Facts))
                                                               for _ in range(3)], keep=5)
    again = from_data(contracts.Conversation, json.loads(json.dumps(to_data(conversation))))
    assert again == conversation
    assert isinstance(again.turns[0], tuple) and isinstance(again.turns[0][1].parts[0], contracts.Facts)
    assert isinstance(again.turns[0][0].chain[0], contracts.Hop)


def test_data_written_by_an_older_version_without_a_new_field_gets_its_default():
    data = to_data(contracts.LinkedEntity("Heat", "http://x.invalid/heat", "Heat", 99.0, "film"))
    del data["selected_by"]
    assert from_data(contracts.LinkedEntity, data).selected_by == ""

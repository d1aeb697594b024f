"""Counts and group counts: "How many films did Kubrick direct?", "How many Oscars did Aliens win?", "How many directors does
The Little Mermaid have?", "the number of comedies from the 90s"."""

from __future__ import annotations

from bot.core.terms import Form
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "count", "how many films meet conditions, or how many values one film has",
    ("How many films did Kubrick direct?", "How many Oscars did Aliens win?", "How many comedies are from the 90s?"),
    forms=(Form.FILM_COUNT, Form.VALUE_COUNT),
)
PIVOTS: tuple[tuple[str, str], ...] = tuple(tuple(pair) for pair in CONSTRUCTION.data["patterns"]["pivots"])

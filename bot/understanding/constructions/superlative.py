"""Superlatives and orderings over a set of films: "What is Spielberg's longest film?", "the highest grossing comedy", "Who
directed the most films?", "Which of those is the oldest?"."""

from __future__ import annotations

import re

from bot.core.terms import Form, Measure
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "superlative", "the film(s) with the greatest or smallest value, or the value most films share",
    ("What is Spielberg's longest film?", "Who directed the most films?", "Which film won the most Oscars?"),
    forms=(Form.ORDERED, Form.MOST),
)
SUPERLATIVES: dict[str, tuple[Measure, str]] = {word: (Measure(measure), op) for word, (measure, op) in CONSTRUCTION.data["superlatives"].items()}
WORDS = {name: frozenset(words) for name, words in CONSTRUCTION.data["words"].items()}
GLOBAL_SCOPE = re.compile(r"\b(?:" + "|".join(CONSTRUCTION.data["patterns"]["global_scope"]) + ")", re.I)

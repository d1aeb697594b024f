"""Comparisons of two or more names on a date, a number or a count: "Which is longer, Titanic or Avatar?", "Is Heat older
than Ronin?", "Which film has more Oscars, A or B?", "Did David Lynch direct more films than Norman Jewison?"."""

from __future__ import annotations

from bot.core.terms import Form, Measure
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "comparison", "which of two or more films (or people) has the greater or smaller value or count",
    ("Which is longer, Titanic or Avatar?", "Is Heat older than Ronin?", "Which came out first, Alien or Blade Runner?"),
    forms=(Form.COMPARISON, Form.ORDERED),
)
COMPARATIVES: dict[str, tuple[Measure, bool]] = {word: (Measure(measure), greater) for word, (measure, greater) in CONSTRUCTION.data["comparatives"].items()}
WORDS = {name: frozenset(words) for name, words in CONSTRUCTION.data["words"].items()}

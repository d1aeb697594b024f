"""Yes/no questions: "Did Ridley Scott direct Alien?", "Was Parasite released in 2019?", "Is Heat longer than two hours?",
"Did Brad Pitt and Edward Norton ever star together?"."""

from __future__ import annotations

from bot.core.terms import Form
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "verification", "whether a film has a value (an entity, a year, a number), or whether any film meets conditions",
    ("Did Ridley Scott direct Alien?", "Was Parasite released in 2019?", "Did Brad Pitt and Edward Norton ever star together?"),
    forms=(Form.VERIFICATION, Form.ANY),
)
WORDS = {name: frozenset(words) for name, words in CONSTRUCTION.data["words"].items()}

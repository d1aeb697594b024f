"""Recommendation requests: "Given that I like The Lion King and Pocahontas, can you recommend some movies?", "a 70s horror
film for tonight"."""

from __future__ import annotations

from bot.core.kinds import Kind
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "recommendation", "films like the ones named, or meeting the conditions said",
    ("Given that I like The Lion King, Pocahontas and Beauty and the Beast, can you recommend some movies?",
     "Recommend movies similar to Hamlet and Othello", "any good horror films from the 70s?"),
    kind=Kind.RECOMMENDATION,
)

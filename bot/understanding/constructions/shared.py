"""What several names share: "Who acted in both The Godfather and Heat?", "Were Alien and Blade Runner directed by the same
person?", "Which actors worked in films by both Scorsese and Coppola?"."""

from __future__ import annotations

from bot.core.terms import Form
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "shared", "the values two or more films (or people's films) have in common along one relation",
    ("Who acted in both The Godfather and Heat?", "Were Alien and Blade Runner directed by the same person?"),
    forms=(Form.SHARED,),
)
SHARED_WORDS = frozenset(CONSTRUCTION.data["words"]["shared"])

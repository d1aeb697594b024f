"""An overview of a film or a person: "Tell me about Heat", "What do you know about Jane Campion?", "Heat?"."""

from __future__ import annotations

from bot.core.terms import Form
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "overview", "a short summary of one film (year, directors, genres, top-billed cast, running time) or one person "
    "(roles with counts, best-known films)",
    ("Tell me about Heat", "What do you know about Jane Campion?", "Heat?", "info on Casablanca"),
    forms=(Form.OVERVIEW,),
)

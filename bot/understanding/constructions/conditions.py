"""Films that meet conditions: a genre, a decade or years, a running time, a rating, a country, people in their roles,
"both", "without", "other than": "comedies from the 90s", "R-rated war films", "Nolan films other than Inception"."""

from __future__ import annotations

from bot.core.terms import Form
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "conditions", "the films that meet every condition the words set",
    ("comedies from the 90s", "films Tom Hanks made after 2000", "films with both Robert De Niro and Al Pacino",
     "Nolan films other than Inception", "which films won best picture?"),
    forms=(Form.FILMS,),
)
COUNTRY_ADJECTIVES: dict[str, str] = dict(CONSTRUCTION.data["country_adjectives"])
SUBGENRES: dict[str, str] = dict(CONSTRUCTION.data["subgenres"])
WORDS = {name: frozenset(words) for name, words in CONSTRUCTION.data["words"].items()}

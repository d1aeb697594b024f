"""A person's films in one of their roles: "What films did Julia Roberts star in?", "the movies of Bong Joon-ho" (the role
most of their films have when no word names one)."""

from __future__ import annotations

from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "person_films", "the films of a person, in the role the words name or the one most of their films have",
    ("What films did Julia Roberts star in?", "the movies of Bong Joon-ho", "Which films did Clyde Geronimi direct?"),
)

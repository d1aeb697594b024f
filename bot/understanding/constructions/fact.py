"""A fact or a relation chain from a named entity: "Who directed Good Will Hunting?", "What genres are the films written by
Quentin Tarantino?", "Who acted in the films directed by the director of The Bridge on the River Kwai?"."""

from __future__ import annotations

from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "fact", "a relation chain of one to three hops from a linked entity",
    ("Who directed Good Will Hunting?", "When was Inception released?", "What genres are the films written by Quentin Tarantino?",
     "Who directed Inception and when was it released?"),
)

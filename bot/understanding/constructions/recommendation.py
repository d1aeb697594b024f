"""Recommendation requests: "Given that I like The Lion King and Pocahontas, can you recommend some movies?", "a 70s horror
film for tonight". The reader is the request reader of bot.understanding.recommendation_request (seeds, seen and
excluded films, conditions, counts: a typed RecommendationRequest); its cues join the recommendation cue
(bot.understanding.cues)."""

from __future__ import annotations

from bot.core.kinds import Kind
from bot.understanding.constructions.base import Construction
from bot.understanding.recommendation_request import RecommendationReader

CONSTRUCTION = Construction(
    "recommendation", "films like the ones named, or meeting the conditions said",
    ("Given that I like The Lion King, Pocahontas and Beauty and the Beast, can you recommend some movies?",
     "Recommend movies similar to Hamlet and Othello", "any good horror films from the 70s?"),
    kind=Kind.RECOMMENDATION,
)
READER = RecommendationReader  # built with the Understander it reads for (bot.understanding.parser)

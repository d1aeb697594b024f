"""The construction registry: every question shape the bot reads (bot/understanding/constructions/, one module each).

Adding a construction: a module under constructions/ with its `CONSTRUCTION` declaration and reader, its data file
(`<name>.toml`), its entry below, and its test; a new result form also needs its typed result (bot.core.results), its
answerer (bot.answering.compose) and its sentence (bot.generation.composed.RENDERERS). tests/test_constructions.py
checks that every module is registered and every form it declares can be answered and said.
"""

from __future__ import annotations

from bot.understanding.constructions import (
    collaboration,
    comparison,
    conditions,
    count,
    fact,
    multimedia,
    overview,
    person_films,
    recommendation,
    shared,
    smalltalk,
    sparql_query,
    superlative,
    verification,
)
from bot.understanding.constructions.base import Construction

REGISTRY: dict[str, Construction] = {
    module.CONSTRUCTION.name: module.CONSTRUCTION
    for module in (sparql_query, smalltalk, recommendation, multimedia, shared, collaboration, count, comparison, verification, superlative,
                   conditions, overview, person_films, fact)
}

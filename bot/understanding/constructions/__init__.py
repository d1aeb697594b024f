"""The construction registry: every question shape the bot reads, one module each (see base.py for what one declares).

Adding a construction: a module here with its `CONSTRUCTION` and reader, its data file (`<name>.toml`), its entry in
REGISTRY below, and its test; a new result form also needs its result (bot.core.results), answerer and sentence.
"""

from __future__ import annotations

from bot.understanding.constructions import (
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
    for module in (sparql_query, smalltalk, recommendation, multimedia, shared, count, comparison, verification, superlative,
                   conditions, overview, person_films, fact)
}

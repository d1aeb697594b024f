"""A SPARQL query typed into the chat (bot.understanding.sparql_message): answered with its results, run read-only."""

from __future__ import annotations

from bot.core.kinds import Kind
from bot.understanding.constructions.base import Construction

CONSTRUCTION = Construction(
    "sparql_query", "a SPARQL query pasted as is, in a code fence or in quotes",
    ('SELECT ?name WHERE { ?film rdfs:label "The Bridge on the River Kwai"@en ; wdt:P57 ?d . ?d rdfs:label ?name }',),
    kind=Kind.SPARQL,
)

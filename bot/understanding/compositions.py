"""Reading a clause as a composition: the compositional constructions, tried in order.

Each construction (bot/understanding/constructions/) says whether its cues are in the clause (`cued`) and reads it
(`read`); the first that reads wins, most specific first: what several names share, who works with a person the most, a count, a comparison, a yes/no
check, a superlative, and films under conditions last. Every attempt is kept with what it read, so a trace (and a
learned scorer, later) sees the readings that were tried and not only the one chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.text import contracted_not
from bot.understanding.compose import ComposedClause, Composer, Composition
from bot.understanding.constructions import collaboration, comparison, conditions, count, shared, superlative, verification
from bot.understanding.constructions.clause import Clause
from bot.understanding.vocabulary import YES_NO_START

ORDER = (shared, collaboration, count, comparison, verification, superlative, conditions)  # the first that reads wins


@dataclass
class Attempt:
    """One compositional construction tried on a clause, and what it read (None: its cues were there, no reading)."""

    construction: str
    reading: Composition | None


def view(composer: Composer, clause: Clause, name_like) -> ComposedClause:
    """The clause with its names and the quantities stated in it (up to its end: "... longer than 2 hours")."""
    text, toks, a, b = clause.text, clause.tokens, clause.start, clause.end
    names, quants = composer.names_and_quantities(text[: toks[b - 1][2]], toks, clause.spans, a, b, name_like)
    quants = [q for q in quants if q.start >= toks[a][1]]
    return ComposedClause(text, toks, a, b, clause.spans, names, quants)


def read(composer: Composer, clause: Clause, name_like) -> tuple[Composition | None, list[Attempt]]:
    """The clause's composition (or None) and every construction tried for it."""
    seen = view(composer, clause, name_like)
    attempts: list[Attempt] = []
    reading = None
    for module in ORDER:
        if module.cued(seen):
            reading = module.read(composer, seen)
            attempts.append(Attempt(module.CONSTRUCTION.name, reading))
            if reading is not None:
                break
    if reading is not None:
        toks, a, b = seen.tokens, seen.start, seen.end
        for q in seen.quants:
            reading.used |= {k for k in range(a, b) if toks[k][1] >= q.start and toks[k][2] <= q.end}
        start = next((k for k in range(a, b) if toks[k][0] == seen.first), a)
        if seen.first in YES_NO_START and start + 1 < b and contracted_not(toks, start + 1):
            reading.used |= {start, start + 1}  # the "n't" of the opening "didn't"
    return reading, attempts

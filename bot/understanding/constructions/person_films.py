"""A person's films in one of their roles: "What films did Julia Roberts star in?", "the movies of Bong Joon-ho" (the role
most of their films have when no word names one). Read as a relation chain from the person (bot.understanding.constructions.fact);
this module chooses the role when the words leave it open."""

from __future__ import annotations

from dataclasses import replace

from bot.core.contracts import Hop, chain_code, parse_chain
from bot.core.terms import Group
from bot.understanding.compose import Composer
from bot.understanding.constructions.base import Construction
from bot.understanding.constructions.fact import Candidate, ChainReader

CONSTRUCTION = Construction(
    "person_films", "the films of a person, in the role the words name or the one most of their films have",
    ("What films did Julia Roberts star in?", "the movies of Bong Joon-ho", "Which films did Clyde Geronimi direct?"),
)


def main_role_reading(reader: ChainReader, composer: Composer, best: Candidate, toks, a: int, b: int) -> Candidate:
    """"The films of Bong Joon-ho": when no word says which of a person's roles the question goes through,
    a role most of their films have (he directed more than he produced), the bundle's first of those -- not
    whichever role the classifier happened to rank first."""
    if best.entity is None or best.entity.group != Group.PERSON or ";" in best.chain:
        return best
    chain = parse_chain(best.chain)
    first = chain[0].relation
    if chain[0].to_value or reader.lexicon.cues.get(first, frozenset()) & set(reader.content(toks, a, b, best)):
        return best
    roles = {r for r in composer.roles_of(best.entity)}
    if len(roles) < 2:
        return best
    counts = composer.films_per_role(best.entity, roles)
    top = max(counts.values(), default=0)
    order = list(reader.kg.bundle.relations)
    # the roles with at least half as many films as the commonest (as Composer.main_roles), and of those the one
    # the bundle lists first: Andrew Stanton wrote four films and directed two, and "his movies" are those he directed
    main = min((r for r in counts if counts[r] * 2 >= top), key=lambda r: order.index(r) if r in order else len(order), default=first)
    if main == first:
        return best
    code = chain_code((Hop(main, False), *chain[1:]))
    if code not in reader.chain_start:
        return best
    candidate = replace(best, chain=code)
    candidate.explanation = reader.explain(toks, a, b, candidate, best.entity)
    return candidate if candidate.explanation.penalty <= best.explanation.penalty else best

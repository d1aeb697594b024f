"""Superlatives and orderings over a set of films: "What is Spielberg's longest film?", "the highest grossing comedy", "Who
directed the most films?", "Which of those is the oldest?"."""

from __future__ import annotations

from bot.core.contracts import Aggregate
from bot.core.terms import AggregateOp, Form, Group, Measure
from bot.understanding.compose import (
    AWARD_COUNT_WORDS,
    MONEY_WORDS,
    ORDINALS,
    OSCAR_WORDS,
    SUPERLATIVES,
    ComposedClause,
    Composer,
    Composition,
    global_scope,
)
from bot.understanding.constructions.base import Construction
from bot.understanding.constructions.conditions import scope
from bot.understanding.vocabulary import FILM_WORDS

CONSTRUCTION = Construction(
    "superlative", "the film(s) with the greatest or smallest value, or the value most films share",
    ("What is Spielberg's longest film?", "Who directed the most films?", "Which film won the most Oscars?"),
    forms=(Form.ORDERED, Form.MOST),
)
WORDS = CONSTRUCTION.words
MOST_AWARDS = "max_count"  # the film with the most awards: the greatest number of values, read as AggregateOp.MAX with families


def cued(view: ComposedClause) -> bool:
    return any(w in SUPERLATIVES or w in ORDINALS for w in view.cue_words) or "most" in view.cue_words


def ranked(view: ComposedClause) -> tuple[int, set[int]]:
    """The rank an ordinal asks for and its tokens: "her second film" (2; "second"), "the third longest" (3), "Tarantino's
    sophomore feature" (2; "sophomore", "feature"). An ordinal inside a name ("The Second Mother") or before a title ("the
    second Halloween": the series' order) ranks nothing here."""
    toks, a, b = view.tokens, view.start, view.end
    named = {k for n in view.names for k in n.tokens}
    for k in range(a, b - 1):
        if toks[k][0] not in ORDINALS or k in named or k + 1 in named:
            continue
        if toks[k + 1][0] in SUPERLATIVES:
            return ORDINALS[toks[k][0]], {k}
        noun = next((j for j in range(k + 1, min(b, k + 3)) if toks[j][0] in FILM_WORDS | WORDS["ranked"] and j not in named), None)
        if noun is not None:
            return ORDINALS[toks[k][0]], {k} | ({noun} if toks[noun][0] in WORDS["ranked"] else set())
    return 1, set()


def read(ctx: Composer, view: ComposedClause) -> Composition | None:
    text, toks, a, b, names = view.text, view.tokens, view.start, view.end, view.names
    words = [toks[k][0] for k in range(a, b)]
    reading = Composition()
    op, relation = "", ""
    rank, rank_tokens = ranked(view)
    for k in range(a, b):
        word = toks[k][0]
        if word in SUPERLATIVES and not (word == "recent" and toks[k - 1][0] != "most"):
            kind, op = SUPERLATIVES[word][0], SUPERLATIVES[word][1]
            if kind == Measure.MONEY and not set(words) & MONEY_WORDS:
                continue
            relation = ctx.relation_of(kind)
            reading.used |= {k, k - 1} if word == "recent" else {k}
            if kind == Measure.MONEY:  # "the highest grossing film": the money words say what is highest
                reading.used |= {j for j in range(a, b) if toks[j][0] in MONEY_WORDS}
            break
    if not relation and "most" in words:
        if set(words) & MONEY_WORDS:
            relation, op = ctx.money, AggregateOp.MAX
            reading.used |= {k for k in range(a, b) if toks[k][0] in MONEY_WORDS | {"most"}}
        elif set(words) & AWARD_COUNT_WORDS:
            relation, op = ctx.award, MOST_AWARDS
            reading.used |= {k for k in range(a, b) if toks[k][0] in AWARD_COUNT_WORDS | {"most"}}
        else:
            named = {k for n in names for k in n.tokens}
            relations, verb = asked_values(ctx, toks, a, b, named) or ctx.clause_verb_relations(toks, a, b, named)
            counted = [k for k in range(a, b) if toks[k][0] in FILM_WORDS | WORDS["counted"]]
            if relations and (counted or "who" in words or "which" in words):
                relation, op = relations[0], AggregateOp.MOST
                # every word of the counted relation ("which actor appears most in Tarantino films") is the
                # question's, none the named person's role
                verb |= {k for k in range(a, b) if k not in named and relation in ctx.lexicon.relations_of(toks[k][0])}
                reading.used |= verb | set(counted) | {k for k in range(a, b) if toks[k][0] in ("most", "often")}
    if not relation and rank > 1:  # "her second film": by release
        relation, op = ctx.relation_of(Measure.DATE), AggregateOp.MIN
    if not relation or rank > 1 and op not in (AggregateOp.MAX, AggregateOp.MIN):
        return None
    reading.used |= rank_tokens
    if not scope(ctx, view, names, reading):
        return None
    if op == AggregateOp.MOST:
        # "which actor appears most often with De Niro": the named person is not one of the answers
        reading.aggregate = Aggregate(AggregateOp.MOST, relation)
    elif op == MOST_AWARDS:
        reading.aggregate = Aggregate(AggregateOp.MAX, relation, ctx.oscars if set(words) & OSCAR_WORDS else ("*count",))
    else:
        reading.aggregate = Aggregate(op, relation, rank=rank)
    reading.relations.add(relation)
    reading.used |= global_scope(text, toks, a, b)
    return reading


def asked_values(ctx: Composer, toks, a: int, b: int, named: set[int]) -> tuple[tuple[str, ...], set[int]] | None:
    """"Which play has been adapted the most", "which book was adapted most often": the noun after "which" names the
    values counted -- works, not the people the words could also cue ("play" is an actor's verb too, "adapted" an
    author's). The relation of things (not people) that the noun and another word of the clause both cue, if one."""
    for k in range(a + 1, b):
        before = k - 1
        while before > a and before in named:  # "which Shakespeare play": a name may stand between
            before -= 1
        if toks[before][0] not in ("which", "what") or k in named:
            continue
        cued_by = [k] + [j for j in range(a, b) if j != k and j not in named]
        owners = [r for r in ctx.lexicon.relations_of(toks[k][0])
                  if (rel := ctx.bundle.relations.get(r)) is not None and rel.is_entity and rel.value_class != Group.PERSON
                  and any(r in ctx.lexicon.relations_of(toks[j][0]) for j in cued_by[1:])]
        if len(owners) == 1:
            return (owners[0],), {k} | {j for j in cued_by[1:] if owners[0] in ctx.lexicon.relations_of(toks[j][0])}
    return None


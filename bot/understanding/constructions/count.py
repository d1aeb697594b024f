"""Counts and group counts: "How many films did Kubrick direct?", "How many Oscars did Aliens win?", "How many directors does
The Little Mermaid have?", "the number of comedies from the 90s"."""

from __future__ import annotations

from bot.core.contracts import Aggregate, Ask, Constraint, Hop
from bot.core.terms import AggregateOp, Form, Group, Op
from bot.understanding.compose import AWARD_COUNT_WORDS, OSCAR_WORDS, ComposedClause, Composer, Composition, global_scope
from bot.understanding.constructions.base import Construction
from bot.understanding.constructions.conditions import scope
from bot.understanding.vocabulary import FILM_WORDS, SET_WORDS, STOP

CONSTRUCTION = Construction(
    "count", "how many films meet conditions, or how many values one film has",
    ("How many films did Kubrick direct?", "How many Oscars did Aliens win?", "How many comedies are from the 90s?"),
    forms=(Form.FILM_COUNT, Form.VALUE_COUNT),
)
PIVOTS: tuple[tuple[str, str], ...] = tuple(tuple(pair) for pair in CONSTRUCTION.data["patterns"]["pivots"])


def count_pivot(words: list[str]) -> int | None:
    """Where "how many" / "the number of" / "count of" ends: the counted noun follows."""
    for k in range(1, len(words)):
        if (words[k - 1], words[k]) in PIVOTS:
            return k
    return None


def cued(view: ComposedClause) -> bool:
    words = view.cue_words
    return "how" in words and "many" in words or count_pivot(words) is not None


def read(ctx: Composer, view: ComposedClause) -> Composition | None:
    text, toks, a, b, names = view.text, view.tokens, view.start, view.end, view.names
    words = [toks[k][0] for k in range(a, b)]
    many = count_pivot(words)
    if many is None:
        return None  # "how" and "many" apart ("how did so many people like it"): no count asked
    noun = words[many + 1] if many + 1 < len(words) else ""
    if noun == "of" and many + 2 < len(words) and words[many + 2] in SET_WORDS:
        noun = "films"  # "how many of them star X": of the films just listed
    reading = Composition(used={a + many, a + many - 1})
    films = [n for n in names if n.entity.group == Group.FILM]
    counted = [w for w in words[many + 1 : many + 3] if w not in STOP]
    if set(counted) & AWARD_COUNT_WORDS and len(films) == 1 and ctx.award:
        reading.entities.append(films[0].entity)
        reading.used |= set(films[0].tokens) | {a + k for k in range(many + 1, min(len(words), many + 3)) if words[k] in AWARD_COUNT_WORDS | {"academy"}}
        families = ctx.oscars if set(counted) & OSCAR_WORDS or "academy" in words else ()
        reading.asks.append(Ask((Hop(ctx.award, True),), 0, None, text[toks[a][1] : toks[b - 1][2]]))
        reading.aggregate = Aggregate(AggregateOp.COUNT, ctx.award, families)
        reading.relations.add(ctx.award)
        return reading
    valued = [name for name, r in ctx.bundle.relations.items() if r.value_class not in (None, Group.FILM)
              and noun in {r.noun, r.plural, *r.synonyms, *(s + "s" for s in r.synonyms)}] if noun else []
    if len(films) == 1 and len(names) == 1 and noun not in FILM_WORDS and len(valued) == 1:
        # "how many directors does The Little Mermaid have": the values of one relation of one film
        relation = valued[0]
        reading.entities.append(films[0].entity)
        reading.used |= set(films[0].tokens) | {a + many + 1}
        reading.asks.append(Ask((Hop(relation, True),), 0, None, text[toks[a][1] : toks[b - 1][2]]))
        reading.aggregate = Aggregate(AggregateOp.COUNT, relation)
        reading.relations.add(relation)
        return reading
    people = [n for n in names if n.entity.group == Group.PERSON]
    named_noun = any(n.span.tok_start == a + many + 1 and (n.entity.group not in (Group.FILM, Group.PERSON) or  # "how many dramas"
                         # "how many Nolan films did Hans Zimmer score": one person's films that another one shares
                         len(people) >= 2 and n.entity.group == Group.PERSON and n.span.tok_end < b and toks[n.span.tok_end][0] in FILM_WORDS)
                     for n in names)
    if noun not in FILM_WORDS and not named_noun and not (names and noun in ("", "times")) and not set(words) & {"been"}:
        return None
    reading.used |= {a + k for k, w in enumerate(words) if w in FILM_WORDS}
    if not scope(ctx, view, names, reading):
        return None
    people = [c for c in reading.constraints if c.op is Op.IN and any(r in ctx.person_relations for r in c.relations)]
    if len(people) == 1 and len(names) == 1:
        verb, used = ctx.clause_verb_relations(toks, a, b, set(reading.used))
        if verb:
            reading.constraints[reading.constraints.index(people[0])] = Constraint(verb, Op.IN, people[0].values, people[0].said)
            reading.used |= used
            reading.relations |= set(verb)
    reading.aggregate = Aggregate(AggregateOp.COUNT)
    reading.used |= global_scope(text, toks, a, b)
    return reading

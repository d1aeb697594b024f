"""Comparisons of two or more names on a date, a number or a count: "Which is longer, Titanic or Avatar?", "Is Heat older
than Ronin?", "Which film has more Oscars, A or B?", "Did David Lynch direct more films than Norman Jewison?"."""

from __future__ import annotations

from bot.core.contracts import Aggregate, Comparison, Constraint
from bot.core.terms import AggregateOp, Form, Group, Measure, Op
from bot.understanding.compose import (
    AWARD_COUNT_WORDS,
    COMPARATIVES,
    MONEY_WORDS,
    OSCAR_WORDS,
    SUPERLATIVES,
    ComposedClause,
    Composer,
    Composition,
    Name,
)
from bot.understanding.constructions import count
from bot.understanding.constructions.base import Construction
from bot.understanding.constructions.conditions import set_reference
from bot.understanding.vocabulary import FILM_WORDS

CONSTRUCTION = Construction(
    "comparison", "which of two or more films (or people) has the greater or smaller value or count",
    ("Which is longer, Titanic or Avatar?", "Is Heat older than Ronin?", "Which came out first, Alien or Blade Runner?"),
    forms=(Form.COMPARISON, Form.ORDERED),
)
WORDS = CONSTRUCTION.words
MOST = WORDS["more"]
BEFORE_AFTER = WORDS["before_after"]


def came_first(words: list[str]) -> bool:
    return bool(WORDS["came_first"] & set(words) and WORDS["release"] & set(words)
                and {"or", "and"} & set(words))


def two_films(names: list[Name]) -> bool:
    return sum(n.entity.group == Group.FILM for n in names) >= 2


def more_money(words: list[str]) -> bool:
    return bool(MOST & set(words) and MONEY_WORDS & set(words))


def more_of(words: list[str]) -> bool:
    return "more" in words and bool(set(words) & (AWARD_COUNT_WORDS | FILM_WORDS | {"screenplays", "scripts"}))


def restricts(toks, name: Name, a: int, b: int) -> bool:
    """Whether a person's name restricts the films counted rather than naming an item compared: "X films", "X's films",
    "(worked) with X", "(shot) for X"."""
    after = toks[name.span.tok_end][0] if name.span.tok_end < b else ""
    before = toks[name.span.tok_start - 1][0] if name.span.tok_start > a else ""
    return after in FILM_WORDS or after == "s" or before in ("with", "for")


def cued(view: ComposedClause) -> bool:
    """A comparative, "more money", "more Oscars", "which came first", or two films and a superlative; a count is read first
    ("how many more ...")."""
    words, names = view.cue_words, view.names
    if count.cued(view):
        return False
    return (any(w in COMPARATIVES for w in view.unstated) or more_money(words) or more_of(words) or came_first(words)
            or two_films(names) and bool(set(words) & (BEFORE_AFTER | {"recent", "most", *SUPERLATIVES})))


def read(ctx: Composer, view: ComposedClause) -> Composition | None:
    toks, a, b, names, yes_no = view.tokens, view.start, view.end, view.names, view.yes_no
    inside = view.titled
    words = [toks[k][0] for k in range(a, b) if k not in inside]
    films = [n for n in names if n.entity.group == Group.FILM]
    people = [n for n in names if n.entity.group == Group.PERSON]
    used: set[int] = set()
    relation, greater, count, families = "", True, False, ()
    for k in range(a, b):
        word = toks[k][0]
        if k in inside:
            continue
        if word in COMPARATIVES:
            kind, greater = COMPARATIVES[word]
            relation = ctx.relation_of(kind)
            used.add(k)
            break
        if word in BEFORE_AFTER and len(films) >= 2:  # "Was Tsotsi released before X?"
            relation, greater = ctx.date, word in WORDS["after"]
            used.add(k)
            break
        if word == "recent" and k > a and toks[k - 1][0] in ("more", "most", "less", "least") and len(films) >= 2:
            relation, greater = ctx.date, toks[k - 1][0] in ("more", "most")  # "which is more recent, A or B?"
            used |= {k - 1, k}
            break
        if word in SUPERLATIVES and len(films) >= 2 and SUPERLATIVES[word][0] != Measure.MONEY:
            kind, op = SUPERLATIVES[word]  # "which of these is the longest: A, B or C?"
            relation, greater = ctx.relation_of(kind), op == AggregateOp.MAX
            used.add(k)
            break
    if not relation and "first" in words and set(words) & WORDS["release"]:
        relation, greater = ctx.date, False
        used |= {k for k in range(a, b) if toks[k][0] == "first" and k not in inside}
    if not relation and more_money(words):
        relation, greater = ctx.money, "less" not in words
        used |= {k for k in range(a, b) if toks[k][0] in MONEY_WORDS | MOST}
    if not relation and "more" in words and set(words) & AWARD_COUNT_WORDS and len(films) >= 2:
        relation, count = ctx.award, True
        families = ctx.oscars if set(words) & OSCAR_WORDS else ()
        used |= {k for k in range(a, b) if toks[k][0] in AWARD_COUNT_WORDS | MOST}
    if not relation and "more" in words and len(people) >= 2:
        relations, verb = ctx.clause_verb_relations(toks, a, b, {k for n in people for k in n.tokens})
        run_together = any(x.span.tok_end == y.span.tok_start for x, y in zip(people, people[1:]))  # "David Lynch" as two surnames
        if not relations or run_together or any(restricts(toks, n, a, b) for n in people):
            return None  # ("more Spielberg films, A or B": counts over one person's films, the collaboration construction's)
        relation, count = relations[0], True
        used |= verb | {k for k in range(a, b) if toks[k][0] in MOST | FILM_WORDS | {"screenplays", "scripts"}}
        items = people
    else:
        items = films
    if relation and not count and not items and not yes_no:
        pointer = set_reference(toks, a, b, names)
        if pointer:  # "which one is longer?" after two films: the greater of the films talked about
            reading = Composition(used=used | pointer)
            reading.constraints.append(Constraint((), Op.EARLIER, (), "of those films"))
            reading.aggregate = Aggregate(AggregateOp.MAX if greater else AggregateOp.MIN, relation)
            reading.relations.add(relation)
            return reading
    if not relation or len(items) < 2:
        return None
    if items is films and people:
        # "Which film did Ridley Scott direct first, Alien or Blade Runner?": the films are compared; the person and
        # the role said are context
        _, verb = ctx.clause_verb_relations(toks, a, b, {k for n in names for k in n.tokens})
        used |= verb | {k for n in people for k in n.tokens}
    reading = Composition(entities=[n.entity for n in items], used=used | {k for n in items for k in n.tokens})
    reading.relations.add(relation)
    reading.comparison = Comparison(relation, greater, tuple(range(len(items))), count, families, "yes" if yes_no else "")
    return reading

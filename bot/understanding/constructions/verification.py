"""Yes/no questions: "Did Ridley Scott direct Alien?", "Was Parasite released in 2019?", "Is Heat longer than two hours?",
"Did Brad Pitt and Edward Norton ever star together?"."""

from __future__ import annotations

from bot.core.contracts import Aggregate, Ask, Hop, Verification
from bot.core.terms import AggregateOp, Check, Form, Group, Measure, Op
from bot.core.text import contracted_not
from bot.understanding.compose import OSCAR_WORDS, ComposedClause, Composer, Composition
from bot.understanding.constructions.base import Construction
from bot.understanding.constructions.conditions import scope
from bot.understanding.vocabulary import ANY_ROLE_WORDS, QUESTION_WORDS, YES_NO_START

CONSTRUCTION = Construction(
    "verification", "whether a film has a value (an entity, a year, a number), or whether any film meets conditions",
    ("Did Ridley Scott direct Alien?", "Was Parasite released in 2019?", "Did Brad Pitt and Edward Norton ever star together?"),
    forms=(Form.VERIFICATION, Form.ANY),
)
WORDS = CONSTRUCTION.words
TAG_PRONOUNS = frozenset({"it", "he", "she", "they", "that"})  # "wasn't it", "didn't he"
ANY_FILM_WORDS = WORDS["any_film"]


def cued(view: ComposedClause) -> bool:
    return view.yes_no or bool(confirmation_tag(view)) or bool(open_alternative(view))


def confirmation_tag(view: ComposedClause) -> set[int]:
    """The tokens of a tag that turns the statement before it into a yes/no question: "..., right?", "..., correct?",
    "..., wasn't it?" (a statement a person wants checked is checked, never read as a description of the film)."""
    toks, a, b = view.tokens, view.start, view.end
    if b - a >= 4 and toks[b - 1][0] in TAG_PRONOUNS and contracted_not(toks, b - 2):
        return {b - 3, b - 2, b - 1}
    if b - a >= 3 and toks[b - 1][0] in WORDS["tag"] and view.first not in YES_NO_START and view.first not in QUESTION_WORDS:
        return {b - 1}
    return set()


def open_alternative(view: ComposedClause) -> set[int]:
    """The tokens of a last alternative that names nothing ("..., or was it someone else?", "... or not?"): the question
    stays a yes/no one, and its "no" says who or what it was."""
    toks, a, b = view.tokens, view.start, view.end
    at = next((k for k in range(b - 1, a, -1) if toks[k][0] == "or"), None)
    if at is None or at == b - 1:
        return set()
    after = [toks[k][0] for k in range(at + 1, b)]
    if not set(after) <= WORDS["open_alternative"] or not set(after) & WORDS["open_alternative_needs"]:
        return set()
    return set(range(at, b))


def read(ctx: Composer, view: ComposedClause) -> Composition | None:
    """A check of one film's value, else whether any film meets the conditions two or more people set."""
    return read_check(ctx, view) or read_any_film(ctx, view)


def read_check(ctx: Composer, view: ComposedClause) -> Composition | None:
    text, toks, a, b, names, quants = view.text, view.tokens, view.start, view.end, view.names, view.quants
    films = [n for n in names if n.entity.group == Group.FILM]
    others = [n for n in names if n.entity.group != Group.FILM]
    if len(films) != 1:
        return None
    film = films[0]
    tag = confirmation_tag(view) if not view.yes_no else set()
    if tag and len(others) > 1:
        return None  # "Throne of Blood is Kurosawa's King Lear, right?": a statement about more than one value is no one check
    reading = Composition(entities=[film.entity], used=set(film.tokens) | tag | open_alternative(view))
    words = {toks[k][0] for k in range(a, b)}
    if others:
        value = others[0]
        reading.entities.append(value.entity)
        reading.used |= set(value.tokens)
        if value.entity.group == Group.PERSON:
            relations, used = ctx.clause_verb_relations(toks, a, b, set(film.tokens) | set(value.tokens))
            if not relations:
                relations = tuple(r for r in ctx.person_relations if {"starred", "actors"} & ctx.lexicon.cues.get(r, frozenset())) if (
                    words & WORDS["acting"]) else tuple(ctx.person_relations)
            reading.used |= used
            reading.relations |= set(relations)
            reading.verification = Verification(";".join(relations), 0, 1)
            return reading
        relation = ctx.by_group.get(value.entity.group)
        if not relation:
            return None
        alternatives = [n for n in others if n.entity.group == value.entity.group]
        if len(alternatives) >= 2 and "or" in words:
            # "is the Big Lebowski a comedy or a drama (or what)": which of them -- its values, not a yes
            reading.entities = [film.entity]
            reading.used |= {k for n in alternatives for k in n.tokens} | {k for k in range(a, b) if toks[k][0] in WORDS["alternatives"]}
            reading.asks.append(Ask((Hop(relation, True),), 0, None, text[toks[a][1] : toks[b - 1][2]]))
            reading.relations.add(relation)
            return reading
        families = ctx.genre_family(value.entity) if value.entity.group == Group.GENRE else ()
        reading.relations.add(relation)
        reading.verification = Verification(relation, 0, 1, families=families)
        return reading
    if quants:
        q = quants[0]
        relation = ctx.relation_of(q.kind)
        if not relation:
            return None
        reading.relations.add(relation)
        if q.kind == Measure.DATE:
            years = [int(x.value) for x in quants if x.kind == Measure.DATE]
            op = Check.EQUALS if len(set(years)) == 1 and len(years) == 2 else (Check.YEAR_FROM if q.op == Op.YEAR_FROM else Check.YEAR_UNTIL)
            reading.verification = Verification(relation, 0, None, op, str(min(years) if op is not Check.YEAR_UNTIL else max(years)))
        else:
            reading.verification = Verification(relation, 0, None, q.op, str(int(q.value)))
        return reading
    if ctx.award and words & WORDS["winning"]:
        reading.relations.add(ctx.award)
        families = ctx.oscars if words & OSCAR_WORDS else ()
        # "did X win any awards": which ones -- the awards are the answer, not a bare yes ("an Oscar" is a yes or no)
        reading.verification = Verification(ctx.award, 0, None, Check.ANY, "", families, listed=not families and bool(words & WORDS["any_value"]))
        return reading
    return None


def read_any_film(ctx: Composer, view: ComposedClause) -> Composition | None:
    """'Did Brad Pitt and Edward Norton star together in anything?': whether any film meets the conditions two or
    more people set (yes, with the films; or no) -- not each one's co-stars."""
    toks, a, b, names = view.tokens, view.start, view.end, view.names
    people = [n for n in names if n.entity.group == Group.PERSON]
    if len(people) < 2 or len(people) != len(names):
        return None
    between = range(people[0].span.tok_end, people[-1].span.tok_start)
    verb_between = any(ctx.lexicon.relations_of(toks[k][0]) or toks[k][0] in ANY_ROLE_WORDS for k in between)
    if not verb_between and not {toks[k][0] for k in range(a, b)} & (ANY_FILM_WORDS | {"with"}):
        return None  # "are Ridley Scott and James Cameron both directors?" asks about each one's role, not a film of both
    reading = Composition()
    if not scope(ctx, view, names, reading) or not reading.constraints:
        return None
    reading.aggregate = Aggregate(AggregateOp.ANY)
    reading.used |= {k for k in range(a, b) if toks[k][0] in ANY_FILM_WORDS}
    return reading

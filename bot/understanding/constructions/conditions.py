"""Films that meet conditions: a genre, a decade or years, a running time, a rating, a country, people in their roles,
"both", "without", "other than": "comedies from the 90s", "R-rated war films", "Nolan films other than Inception"."""

from __future__ import annotations

from dataclasses import replace

from bot.core.contracts import Constraint
from bot.core.terms import Form, Group, Op
from bot.understanding.compose import SUPERLATIVES, ComposedClause, Composer, Composition, Name, excluding_words, negates
from bot.understanding.constructions.base import Construction
from bot.understanding.vocabulary import FILM_WORDS, OTHER_WORDS, SET_WORDS

CONSTRUCTION = Construction(
    "conditions", "the films that meet every condition the words set",
    ("comedies from the 90s", "films Tom Hanks made after 2000", "films with both Robert De Niro and Al Pacino",
     "Nolan films other than Inception", "which films won best picture?"),
    forms=(Form.FILMS,),
)
WORDS = CONSTRUCTION.words


def scope(ctx: Composer, view: ComposedClause, names: list[Name], reading: Composition) -> bool:
    """The films a superlative, count or filter is over: conditions from the clause's names and quantities,
    and the conversation's films when the clause points back at them ("which of those", "any other")."""
    toks, a, b, quants = view.tokens, view.start, view.end, view.quants
    people = [n for n in names if n.entity.group == Group.PERSON]
    pointer = set_reference(toks, a, b, names)
    if pointer:
        reading.constraints.append(Constraint((), Op.EARLIER, (), "of those films"))
        reading.used |= pointer
    others = other_films(toks, a, b)
    if others and not pointer:
        reading.constraints.append(Constraint((), Op.NOT_EARLIER, (), "other"))
        reading.used |= others
    left_out = []
    for name in names:
        if name.entity.group == Group.FILM:
            said = excluding_words(toks, a, name.span.tok_start)
            if not said:
                return False  # a title in the clause: not a question over a set of films
            left_out.append(name.entity)  # "Spielberg films besides Jaws": the set without that film
            reading.used |= said | set(name.tokens)
            continue
        if name.entity.group == Group.PERSON and len(people) == 1 and ctx.several_roles(toks, a, b, names):
            # "films that James Mangold both wrote and directed": one condition per role
            for relation, k in ctx.several_roles(toks, a, b, names):
                reading.constraints.append(Constraint((relation,), Op.IN, name.entity.iris, name.entity.label, named_role=True))
                reading.used.add(k)
                reading.relations.add(relation)
            reading.used |= set(name.tokens) | {k for k in range(a, b) if toks[k][0] in ("both", "and", "as", "well")}
            reading.entities.append(name.entity)
            continue
        if name.entity.group == Group.PERSON:
            relations, used = ctx.person_relations_for(toks, name, a, b, [n for n in names if n is not name], reading.used)
            # "without X", "not X", and "not directed by X": the negation may stand before the role words too
            said_from = min([name.span.tok_start, *(k for k in used if k < name.span.tok_start)])
            before = set(range(max(a, said_from - 2), said_from)) | set(range(max(a, name.span.tok_start - 2), name.span.tok_start))
            negation = {k for k in before if negates(toks, k) and not any(k in n.tokens for n in names)}
            negated = bool(negation)
            reading.used |= negation
            films_after = name.span.tok_end < b and toks[name.span.tok_end][0] in FILM_WORDS  # "a good Ian McShane movie"
            reading.constraints.append(Constraint(relations, Op.NOT_IN if negated else Op.IN, name.entity.iris,
                                                  ("not " if negated else "") + name.entity.label, named_role=bool(used) or films_after))
            reading.used |= used | set(name.tokens)
            reading.relations |= set(relations)
            reading.entities.append(name.entity)
            continue
        constraint = ctx.value_constraint(name)
        if constraint is None:
            return False
        # "not horror", "but not a comedy", "without an R rating": the films outside the value
        negation = {k for k in range(max(a, name.span.tok_start - 3), name.span.tok_start)
                    if negates(toks, k) and not any(k in n.tokens for n in names)}
        if negation:
            constraint = replace(constraint, op=Op.NOT_IN, said=f"not {constraint.said}")
            reading.used |= negation
        reading.constraints.append(constraint)
        reading.used |= set(name.tokens)
        reading.relations |= set(constraint.relations)
        reading.entities.append(name.entity)
    for said, constraint in ctx.country_adjectives(toks, a, b, reading.used):
        reading.constraints.append(constraint)
        reading.used |= said
        reading.relations |= set(constraint.relations)
    extra = ctx.quantity_constraints(quants)
    if extra is None:
        return False
    reading.constraints += extra
    reading.relations |= {r for c in extra for r in c.relations}
    reading.used |= _said_again(toks, a, b, extra)
    if left_out:
        if not any(c.op not in (Op.NOT_AMONG, Op.NOT_EARLIER) for c in reading.constraints):
            return False  # "films other than Heat" names no set to take them from
        reading.constraints.append(Constraint((), Op.NOT_AMONG, tuple(e.iri for e in left_out), "other than"))
        reading.entities += left_out
    if len(people) > 1:
        reading.used |= {k for k in range(a, b) if toks[k][0] in ("both", "together", "and")}
    return True


def set_reference(toks, a: int, b: int, names: list[Name]) -> set[int]:
    """The tokens that point back at the films the conversation listed: "which of those", "among them",
    "those films", and "which one" or "the first one" when the clause names nothing itself."""
    found: set[int] = set()
    if any(n.entity.group == Group.FILM for n in names):
        return found  # "which of these is the most recent: A, B or C": the films are named
    for k in range(a, b):
        word, before = toks[k][0], toks[k - 1][0] if k > a else ""
        after = toks[k + 1][0] if k + 1 < b else ""
        if word in SET_WORDS and before in ("of", "among", "from", "between"):
            found |= {k - 1, k}
        elif word in ("those", "these") and after in FILM_WORDS:
            found |= {k, k + 1}
        elif word == "one" and before == "which" and not names:
            found |= {k - 1, k}
        elif word in ("one", "ones") and before in SUPERLATIVES and not names:
            found.add(k)  # "when was the first one released", "the longest ones": of the films just listed
    return found | narrowing_the_list(toks, a, b, names)


def narrowing_the_list(toks, a: int, b: int, names: list[Name]) -> set[int]:
    """The opening tokens of a clause that narrows the films the conversation listed: "only the ones after 2005", "just
    those from the 90s", "the ones with Pacino" (a condition follows; the clause names no film)."""
    if any(n.entity.group == Group.FILM for n in names):
        return set()
    for k in range(a, min(b - 1, a + 3)):
        if toks[k][0] == "ones" or toks[k][0] in SET_WORDS:
            return set(range(a, k + 1)) if all(toks[j][0] in WORDS["narrowing"] for j in range(a, k)) else set()
    return set()


# "anything more recent, after 2010?": a comparative that only says again which way a year condition goes
LATER, EARLIER = frozenset({"newer", "later", "recent"}), frozenset({"older", "earlier"})


def _said_again(toks, a: int, b: int, conditions: list[Constraint]) -> set[int]:
    """The tokens of "more recent", "newer", "older" beside a year condition of the same direction (none of another)."""
    ops = {c.op for c in conditions}
    agreeing = (LATER if Op.YEAR_FROM in ops else frozenset()) | (EARLIER if Op.YEAR_UNTIL in ops else frozenset())
    said = {k for k in range(a, b) if toks[k][0] in agreeing}
    return said | {k - 1 for k in said if k > a and toks[k - 1][0] == "more"}


def other_films(toks, a: int, b: int) -> set[int]:
    """'any other films', 'what else': the films already talked about are left out."""
    return {k for k in range(a, b) if toks[k][0] in OTHER_WORDS or toks[k][0] == "more" and k + 1 < b and toks[k + 1][0] in FILM_WORDS}


def read(ctx: Composer, view: ComposedClause) -> Composition | None:
    toks, a, b, names, quants = view.tokens, view.start, view.end, view.names, view.quants
    words = [toks[k][0] for k in range(a, b)]
    people = [n for n in names if n.entity.group == Group.PERSON]
    values = [n for n in names if n.entity.group not in (Group.FILM, Group.PERSON)]
    # "Palme d'Or winners": the films that won it
    winners = {k for k in range(a, b) if toks[k][0] in WORDS["winners"] and any(n.entity.group == Group.AWARD for n in values)}
    asks_films = (bool(set(words) & FILM_WORDS) or any(ctx.is_genre_word(w) for w in words)
                  or words[:1] in (["which"], ["any"], ["anything"], ["ones"], ["what"]) or bool(winners)
                  or bool(narrowing_the_list(toks, a, b, names)))
    material = (bool(quants) or bool(values) or len(people) >= 2 or bool(ctx.country_adjectives(toks, a, b, set()))
                or bool(set_reference(toks, a, b, names)) or len(people) == 1 and bool(ctx.several_roles(toks, a, b, names)))
    if not asks_films or not material:
        return None
    reading = Composition()
    if not scope(ctx, view, names, reading):
        return None
    if not reading.constraints:
        return None
    reading.used |= winners
    return reading


def cued(view: ComposedClause) -> bool:
    """Any clause may list films under conditions (read last: the other compositions are more specific)."""
    return True

"""Collaborations: who works with one person the most ("Who has Scorsese worked with the most?", "Who is Nolan's go-to
composer?", "Who does Spielberg usually work with as cinematographer?"), and which of several people shares more of one
person's films ("Has Scorsese worked with De Niro more often than with DiCaprio?", "Who has shot more Spielberg films,
Janusz Kamiński or Dean Cundey?").

The films are the person's films in their main roles (or the role said beside their name); the others' roles are the ones
the words name ("composer", "shot", "acted"), or any role when they name none ("worked with"). Each count is of shared
films in the graph; a comparison never falls back on each person's films overall.
"""

from __future__ import annotations

from bot.core.contracts import Collaboration
from bot.core.terms import Form, Group
from bot.understanding.compose import SUPERLATIVES, ComposedClause, Composer, Composition, Name
from bot.understanding.constructions import superlative
from bot.understanding.constructions.base import Construction
from bot.understanding.vocabulary import ANY_ROLE_WORDS, FILM_WORDS, STOP

CONSTRUCTION = Construction(
    "collaboration", "who works with one person the most (in a role, or in any), or which of several people shares more of one person's films",
    ("Who has Martin Scorsese worked with the most?", "Who is Christopher Nolan's go-to composer?",
     "Has Scorsese worked with De Niro more often than with DiCaprio?", "Who has shot more Spielberg films, Janusz Kamiński or Dean Cundey?"),
    forms=(Form.COLLABORATORS, Form.COLLABORATION_COUNTS),
)
WORDS = CONSTRUCTION.words
TOGETHER, USUAL, MORE, COMPARED, NO_ROLE = WORDS["together"], WORDS["usual"], WORDS["more"], WORDS["compared"], WORDS["no_role"]
USUAL_PHRASES: tuple[tuple[str, ...], ...] = tuple(tuple(p) for p in CONSTRUCTION.data["patterns"]["usual"])


def usual_words(words: list[tuple[int, str]]) -> set[int]:
    """The positions of "usual", "go-to", "the most" ... among (position, word) pairs."""
    found = {k for k, w in words if w in USUAL}
    for n in range(len(words)):
        for phrase in USUAL_PHRASES:
            if tuple(w for _, w in words[n : n + len(phrase)]) == phrase:
                found |= {k for k, _ in words[n : n + len(phrase)]}
    return found


def cued(view: ComposedClause) -> bool:
    words = set(view.cue_words)
    return bool(words & (TOGETHER | USUAL | MORE) or "go" in words)


def role_words(ctx: Composer, view: ComposedClause, named: set[int]) -> list[tuple[int, tuple[str, ...]]]:
    """The words that name a person relation ("composer", "shot", "acted"), each with its relations: a word several relations
    share is the one whose noun it is ("director"), else it names none."""
    rels = ctx.bundle.relations
    found = []
    for k in view.positions:
        word = view.tokens[k][0]
        if k in named or word in NO_ROLE or word in ANY_ROLE_WORDS or word in TOGETHER:
            continue
        owners = sorted(r for r in ctx.lexicon.relations_of(word) if r in ctx.person_relations)
        if len(owners) > 1:
            owners = [r for r in owners if word in (rels[r].noun, rels[r].plural, r)] or owners
        if len(owners) > 1:
            owners = [r for r in owners if not rels[r].derived] or owners
        if owners:
            found.append((k, tuple(owners)))
    return found


def person_roles(ctx: Composer, person: Name, roles: list[tuple[int, tuple[str, ...]]]) -> tuple[tuple[str, ...], set[int]]:
    """The person's roles on the films looked at: a role word right beside the name ("films Spielberg directed"), else the
    roles most of their films have."""
    beside = [(k, owners) for k, owners in roles if k in (person.span.tok_start - 1, person.span.tok_end)]
    has = ctx.roles_of(person.entity)
    for k, owners in beside:
        mine = tuple(r for r in owners if r in has)
        if mine:
            return mine, {k}
    return tuple(sorted(ctx.main_roles(person.entity, has))), set()


def asks_for_film(view: ComposedClause, roles: list[tuple[int, tuple[str, ...]]]) -> bool:
    """'Which Nolan film has the most actors?', 'Which of Spielberg's films has the most actors?': a film is asked for, not
    a person (the film word comes before any role word after "which"/"what")."""
    role_at = {k for k, _ in roles}
    for k in view.positions:
        if view.tokens[k][0] in WORDS["film_question"]:
            for j in range(k + 1, view.end):
                if j in role_at:
                    return False
                if view.tokens[j][0] in FILM_WORDS:
                    return True
            return False
    return False


def orders_films(view: ComposedClause, named: set[int]) -> bool:
    """'the main actor of Nolan's most recent film', 'his longest film': a superlative other than "most" (or "most" before
    an adjective) orders films; no collaboration is asked."""
    toks = view.tokens
    for k in view.positions:
        word = toks[k][0]
        if k in named:
            continue
        if word in SUPERLATIVES and word not in MORE:
            return True
        if word == "most" and k + 1 < view.end and k + 1 not in named:
            after = toks[k + 1][0]
            if after.isalpha() and after not in STOP | FILM_WORDS | USUAL | TOGETHER and not view.titled & {k + 1}:
                return True  # "most recent", "most famous"
    return False


def compared_pair(view: ComposedClause, people: list[Name]) -> tuple[Name, Name, bool] | None:
    """The two people a comparison is between: adjacent names joined by "or", "than", "vs" ("A or B", "A more often than
    (with) B"), and whether "than" joins them (a yes/no question about the first; "did X work more with A or B" asks which)."""
    toks = view.tokens
    for first, second in zip(people, people[1:]):
        between = {toks[k][0] for k in range(first.span.tok_end, second.span.tok_start)}
        if between & COMPARED:
            return first, second, "than" in between
    return None


def run_together(people: list[Name]) -> bool:
    """Two person names with nothing between them ("David Lynch" read as Keith David and Brian Lynch when the graph has no
    David Lynch): no collaboration is read from them."""
    return any(first.span.tok_end == second.span.tok_start for first, second in zip(people, people[1:]))


def read(ctx: Composer, view: ComposedClause) -> Composition | None:
    names = view.names
    people = [n for n in names if n.entity.group == Group.PERSON]
    if not people or len(people) != len(names) or run_together(people):
        return None
    named = {k for n in names for k in n.tokens}
    words = [(k, view.tokens[k][0]) for k in view.positions if k not in named]
    said = {w for _, w in words}
    roles = role_words(ctx, view, named)
    if asks_for_film(view, roles) or orders_films(view, named):
        return None
    if superlative.asked_values(ctx, view.tokens, view.start, view.end, named):
        return None  # "which Shakespeare story was adapted the most": works are counted, not the people on the films
    used = named | {k for k, w in words if w in TOGETHER | FILM_WORDS}
    if len(people) == 1:
        usual = usual_words(words)
        if not usual or view.yes_no or not (said & TOGETHER or roles):
            return None
        person = people[0]
        mine, beside = person_roles(ctx, person, roles)
        partner_roles = tuple(sorted({r for k, owners in roles if k not in beside for r in owners}))
        if not partner_roles and not said & TOGETHER:
            return None
        if not beside:  # "which actor appears most in Robert Wise films": the films he directed, not the one he acted in
            mine = tuple(r for r in mine if r not in partner_roles) or mine
        plan = Collaboration(0, mine, partner_roles or tuple(ctx.person_relations))
        reading = Composition(entities=[person.entity], used=used | usual | beside | {k for k, _ in roles}, collaboration=plan)
        reading.relations |= set(mine) | set(partner_roles)
        return reading
    pair = compared_pair(view, people)
    if pair is None or len(people) != 3 or not said & MORE:
        return None
    first, second, than = pair
    person = next(n for n in people if n is not first and n is not second)
    mine, beside = person_roles(ctx, person, roles)
    partner_roles = tuple(sorted({r for k, owners in roles if k not in beside for r in owners}))
    if not beside:
        mine = tuple(r for r in mine if r not in partner_roles) or mine
    plan = Collaboration(0, mine, partner_roles or tuple(ctx.person_relations), (1, 2), view.yes_no and than)
    more = {k for k, w in words if w in MORE | COMPARED}
    reading = Composition(entities=[person.entity, first.entity, second.entity], used=used | more | beside | {k for k, _ in roles},
                          collaboration=plan)
    reading.relations |= set(mine) | set(partner_roles)
    return reading

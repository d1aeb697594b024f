"""What several names share: "Who acted in both The Godfather and Heat?", "Were Alien and Blade Runner directed by the same
person?", "Which actors worked in films by both Scorsese and Coppola?"."""

from __future__ import annotations

from bot.core.contracts import Ask, Hop, LinkedEntity, Shared
from bot.core.terms import Form, Group
from bot.understanding.compose import ComposedClause, Composer, Composition
from bot.understanding.constructions.base import Construction
from bot.understanding.vocabulary import YES_NO_START

CONSTRUCTION = Construction(
    "shared", "the values two or more films (or people's films) have in common along one relation",
    ("Who acted in both The Godfather and Heat?", "Were Alien and Blade Runner directed by the same person?"),
    forms=(Form.SHARED,),
)
SHARED_WORDS = CONSTRUCTION.words["shared"]


def cued(view: ComposedClause) -> bool:
    # ("were both Alien and Aliens released in the 80s?" checks each film against a date: no shared value)
    return bool(set(view.cue_words) & SHARED_WORDS) and not view.quants


def read(ctx: Composer, view: ComposedClause) -> Composition | None:
    """'Who acted in both The Godfather and Heat?', 'Were Alien and Blade Runner directed by the same person?',
    'Which genres do Heat and Ronin share?': the values two or more films have in common along the one relation
    the clause's words name. Read before a comparison or a chain, which would answer each film on its own
    (or, for "the same director", the films that share the first one's director)."""
    toks, a, b, names = view.tokens, view.start, view.end, view.names
    if len(names) < 2 or any(n.entity.group != Group.FILM for n in names):
        return None
    named = {k for n in names for k in n.tokens}
    relations: set[str] = set()
    used = {k for k in range(a, b) if toks[k][0] in SHARED_WORDS or toks[k][0] == "in" and k + 1 < b and toks[k + 1][0] == "common"}
    for k in range(a, b):
        if k in named or k in used:
            continue
        word = toks[k][0]
        owners = {r for r in ctx.lexicon.relations_of(word) if r in ctx.bundle.relations and ctx.bundle.relations[r].is_entity}
        if len(owners) > 1:  # "director" cues the director and the director of photography: the one it names
            rels = ctx.bundle.relations
            owners = {r for r in owners if word in (rels[r].noun, rels[r].plural, r)} or owners
        relations |= owners
        used |= {k} if owners else set()
    if len(relations) != 1:
        return None  # no relation named, or several: not guessed
    relation = relations.pop()
    reading = Composition(entities=[n.entity for n in names], used=used | named, relations={relation})
    reading.shared = Shared((Hop(relation, True),), tuple(range(len(names))), view.yes_no)
    return reading


def shared_asks(toks, asks: list[Ask], entities: list[LinkedEntity]) -> Shared | None:
    """'Which actors appeared in films by both Scorsese and Coppola?': one clause asking the same chain of two or
    more names with "both" (or "in common") wants what the answers have in common, not each name's answers."""
    words = {t[0] for t in toks}
    if not words & {"both", "common"} or len(asks) < 2 or toks[0][0] in YES_NO_START:
        return None  # (a yes/no "are X and Y both directors?", "were both released in the 80s?" checks each one)
    if any(a.after is not None or a.chain != asks[0].chain or a.text != asks[0].text for a in asks):
        return None
    topics = tuple(sorted(dict.fromkeys(a.topic for a in asks), key=lambda t: entities[t].start))  # in the order said
    if len(topics) != len(asks) or len({entities[t].group for t in topics}) != 1:
        return None
    return Shared(asks[0].chain, topics)

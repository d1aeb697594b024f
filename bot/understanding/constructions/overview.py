"""An overview of a film or a person: "Tell me about Heat", "What do you know about Jane Campion?", "Heat?", "info on
Casablanca".

A clause is an overview request when it names one film or person and every other word is request wording ("tell me",
"what do you know", "the rundown", "info") or a function word, or that is the name alone asked about ("Heat?"); "about" and "on" only before the name ("what is Heat
about" asks for its plot, which the graph lacks). Any question the other constructions read comes first: "tell me who
directed Heat" is a fact. The plan (`Overview`) carries the relations to report, chosen here from the bundle (by the
class of their values and their cue words, overview.toml), so the answerer (bot.answering.compose) only looks them up
and the sentence (bot.generation.composed) only says them.
"""

from __future__ import annotations

from bot.core.contracts import LinkedEntity, Overview
from bot.core.terms import Form, Group
from bot.kg.bundle import Bundle
from bot.understanding.constructions.base import Construction
from bot.understanding.constructions.clause import Clause
from bot.understanding.lexicon import Lexicon
from bot.understanding.reader import context_of
from bot.understanding.vocabulary import GENERIC, STOP, YES_NO_START

CONSTRUCTION = Construction(
    "overview", "a short summary of one film (year, directors, genres, top-billed cast, running time) or one person "
    "(roles with counts, best-known films)",
    ("Tell me about Heat", "What do you know about Jane Campion?", "Heat?", "info on Casablanca", "give me the rundown on Inception"),
    forms=(Form.OVERVIEW,),
)
ASKS = CONSTRUCTION.words["asks"]
BEFORE_NAME = CONSTRUCTION.words["before_name"]
ALLOWED = (ASKS | STOP | GENERIC) - CONSTRUCTION.words["never"]
AFTER_NAME = CONSTRUCTION.words["after_name"]
ASKING = CONSTRUCTION.words["asking"]
ELLIPTIC = tuple(tuple(pair) for pair in CONSTRUCTION.data["patterns"]["elliptic"])
KNOWN_FOR = int(CONSTRUCTION.data["person"]["known_for"])


def film_slots(bundle: Bundle, lexicon: Lexicon) -> tuple[tuple[str, int], ...]:
    """(relation, how many values to name) for each slot of a film's overview that the bundle has, in order."""
    chosen: list[tuple[str, int]] = []
    for slot in CONSTRUCTION.data["film"]:
        cues = set(slot.get("cues", ()))
        fitting = [name for name, rel in bundle.relations.items() if not rel.derived and name not in dict(chosen)
                   and (rel.value_class == slot["value_class"] if "value_class" in slot else rel.kind == slot["kind"])
                   and (not cues or cues & lexicon.cues.get(name, frozenset()))]
        if fitting:
            chosen.append((fitting[0], int(slot["most"])))
    return tuple(chosen)


class OverviewReader:
    """Reads overview requests against one bundle."""

    def __init__(self, bundle: Bundle, lexicon: Lexicon):
        self.bundle = bundle
        self.lexicon = lexicon
        self.film = film_slots(bundle, lexicon)
        self.person = tuple(name for name, rel in bundle.relations.items() if rel.value_class == Group.PERSON and not rel.derived)

    def read(self, clause: Clause, entity: LinkedEntity, described: frozenset[int] = frozenset()) -> Overview | None:
        """The overview of `entity` when the clause asks for nothing but it (the entity linked from a name in the clause);
        `described`: the tokens of a description that picked or confirmed it ("Hamlet, the 1948 one")."""
        if entity.group not in (Group.FILM, Group.PERSON):
            return None
        name = clause.at(entity.start, entity.end)
        if not name or name.start < clause.start or name.stop > clause.end:
            return None
        # a question mark of this clause (up to the next clause's first word): "I saw Heat. who directed it?" asks nothing of Heat
        clause_end = clause.tokens[clause.end].start if clause.end < len(clause.tokens) else len(clause.text)
        marked = "?" in clause.text[clause.tokens[name.stop - 1].end : clause_end]
        if not marked and not any(clause.tokens[k].text in ASKING for k in clause.positions if k not in name):
            return None  # a name not asked about ("Heat", "the movie Inside, when was it released?"; "Heat?" is asked)
        words = clause.words
        if words and words[0] in YES_NO_START and words[1:2] != ["you"]:
            return None  # "is the piano ok for kids?": a yes/no question, whatever else it says ("could you tell me ..." asks)
        if any(tuple(words[i : i + len(p)]) == p for p in ELLIPTIC for i in range(len(words))):
            return None  # "what about Heat": the last question again
        said_nothing = context_of(clause.tokens)  # "I just saw it."
        if any(k in said_nothing for k in name):
            return None  # a name said in passing ("you're a legend"), not asked about
        said_nothing |= described
        for k in clause.positions:
            if k in name or k in said_nothing:
                continue
            word = clause.tokens[k].text
            if k > name.start and word not in AFTER_NAME:
                return None  # "what is Heat about" (its plot), "what was he in", "the Samuel Bayer one"
            if word not in ALLOWED and word not in BEFORE_NAME and not (k > name.start and word in AFTER_NAME):
                return None  # a word that asks something else ("who directed", "plot", "rundown of its cast")
        if entity.group == Group.FILM:
            relations, most = zip(*self.film) if self.film else ((), ())
            date = self.bundle.date_relation
            return Overview(0, ((date.name,) if date else ()) + tuple(relations), ((1,) if date else ()) + tuple(most))
        return Overview(0, self.person, known_for=KNOWN_FOR)

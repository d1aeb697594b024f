"""The reader: what each word of a message does, learned from generated text, so the parser can read people who write
differently from the project's own wording.

1. Chat spelling is read as the words it stands for (spelling.py: "whos in heat n who did the music").
2. A role tagger (tagger.py, a CRF trained on the bundle's generated questions augmented with stories, politeness,
   hedges, descriptions, typos, chat shorthand and non-native wording: corpus.py, augment.py) labels each word as
   part of a name, of the question, of a description of a film ("the 1995 one", "Mann's"), or context that asks
   nothing ("I finally watched it last night"). The parser accounts for the question's words and the descriptions;
   context words need no explanation, so a word nobody foresaw in a story no longer turns a plain question into a
   decline — while an unforeseen word where the question asks ("who lensed X") still does.
3. A calibrated trust model (trust.py) decides whether a reading that still leaves a word unknown is answered: a
   logistic model over the reading's features and what the tagger says of that word, fitted on generated questions
   whose right reading is known, with the threshold at which 98 % of held-out answered readings are right.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from bot.core.text import Token
from bot.understanding.reader.corpus import Role
from bot.understanding.reader.spelling import Respelling, respell
from bot.understanding.reader.tagger import RoleTagger, Tagged

CONTEXT_CONFIDENCE = 0.75  # a word is context only when the tagger gives that role at least this probability,
ASKING_CONTEXT_CONFIDENCE = 0.95  # and a question word or a relation's cue word only when it is all but sure
DESCRIPTION_CONFIDENCE = 0.7  # a word describes a film when the tagger gives that role at least this probability
NAME_CONFIDENCE = 0.9  # a word typed in lower case is written as a name when the tagger is this sure
NEVER_DESCRIBING = frozenset("who whom whose what which when where why how whoever whatever whichever".split())


@dataclass
class Reading:
    """A message's words by role: the tokens that ask nothing and those that describe a film."""

    tagged: Tagged | None
    text: str = ""  # the message as read
    context: frozenset[int] = frozenset()
    description: frozenset[int] = frozenset()
    named: frozenset[int] = frozenset()  # the words the tagger is sure are part of a name

    def to_trace(self, toks: list[Token]) -> list[list[str]]:
        if self.tagged is None:
            return []
        return [[t, r.value, f"{c:.2f}"] for (t, _, _), r, c in zip(toks, self.tagged.roles, self.tagged.confidence)]


# the message being read and what the reader found in it: set by the understander for each message, read by the clause
# readers of that message (a context variable: each thread or task reads its own message)
_READING: ContextVar[tuple[list, Reading] | None] = ContextVar("reading", default=None)


def reading_message(toks: list, reading: Reading) -> None:
    """Record what the reader found in the message whose tokens are `toks` (the list object itself identifies it)."""
    _READING.set((toks, reading))


def context_of(toks: list) -> frozenset[int]:
    """The tokens of the message being read that ask nothing (a story, a hedge, politeness)."""
    read = _READING.get()
    return read[1].context if read is not None and read[0] is toks else frozenset()


def current_reading() -> tuple[list, Reading] | None:
    """The message being read (its tokens) and what the reader found in it."""
    return _READING.get()


def named_of(toks: list) -> frozenset[int]:
    """The tokens of the message being read that are part of a name, as the tagger reads them ("nolan directed
    titanic": "titanic" is a name, though typed in lower case)."""
    read = _READING.get()
    return read[1].named if read is not None and read[0] is toks else frozenset()


def description_of(toks: list) -> frozenset[int]:
    """The tokens of the message being read that describe a film ("the 1996 one", "Branagh's")."""
    read = _READING.get()
    return read[1].description if read is not None and read[0] is toks else frozenset()


class Reader:
    """Chat spelling and word roles for one KG (the tagger is optional: without it every word is a question word)."""

    def __init__(self, tagger: RoleTagger | None, names_of):
        self.tagger = tagger
        self.names_of = names_of  # (text, toks) -> per-token "B"/"I"/"" of exact labels

    def respell(self, text: str, protected: list[tuple[int, int]]) -> Respelling:
        return respell(text, protected)

    def read(self, text: str, toks: list[Token]) -> Reading:
        if self.tagger is None or not toks:
            return Reading(None, text)
        tagged = self.tagger.tag(text, toks, self.names_of(text, toks))
        asking = self.tagger.features.v.cues | NEVER_DESCRIBING
        context = frozenset(k for k, m in enumerate(tagged.marginals)
                            if m[Role.CTX] >= (ASKING_CONTEXT_CONFIDENCE if toks[k][0] in asking else CONTEXT_CONFIDENCE))
        description = frozenset(k for k, m in enumerate(tagged.marginals)
                                if m[Role.DESC] >= DESCRIPTION_CONFIDENCE and toks[k][0] not in NEVER_DESCRIBING)
        named = frozenset(k for k, m in enumerate(tagged.marginals) if m[Role.NAME] >= NAME_CONFIDENCE)
        return Reading(tagged, text, context, description, named)

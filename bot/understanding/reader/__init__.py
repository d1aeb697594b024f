"""The reader: what each word of a message does, learned from generated text, so the parser can read people who write
differently from the project's own wording.

1. Chat spelling is read as the words it stands for (spelling.py: "whos in heat n who did the music").
2. A role tagger (tagger.py, a CRF trained on the bundle's generated questions augmented with stories, politeness,
   hedges, descriptions, typos, chat shorthand and non-native wording: corpus.py, augment.py) labels each word as
   part of a name, of the question, of a description of a film ("the 1995 one", "Mann's"), or context that asks
   nothing ("I finally watched it last night"). The parser accounts for the question's words and the descriptions;
   context words need no explanation, so a word nobody foresaw in a story no longer turns a plain question into a
   decline — while an unforeseen word where the question asks ("who lensed X") still does.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.text import Token
from bot.understanding.reader.corpus import Role
from bot.understanding.reader.spelling import Respelling, respell
from bot.understanding.reader.tagger import RoleTagger, Tagged

CONTEXT_CONFIDENCE = 0.6  # a word is context only when the tagger gives that role at least this probability


@dataclass
class Reading:
    """A message's words by role: the tokens that ask nothing and those that describe a film."""

    tagged: Tagged | None
    context: frozenset[int] = frozenset()
    description: frozenset[int] = frozenset()

    def to_trace(self, toks: list[Token]) -> list[list[str]]:
        if self.tagged is None:
            return []
        return [[t, r.value, f"{c:.2f}"] for (t, _, _), r, c in zip(toks, self.tagged.roles, self.tagged.confidence)]


class Reader:
    """Chat spelling and word roles for one KG (the tagger is optional: without it every word is a question word)."""

    def __init__(self, tagger: RoleTagger | None, names_of):
        self.tagger = tagger
        self.names_of = names_of  # (text, toks) -> per-token "B"/"I"/"" of exact labels

    def respell(self, text: str, protected: list[tuple[int, int]]) -> Respelling:
        return respell(text, protected)

    def read(self, text: str, toks: list[Token]) -> Reading:
        if self.tagger is None or not toks:
            return Reading(None)
        tagged = self.tagger.tag(text, toks, self.names_of(text, toks))
        context = frozenset(k for k, m in enumerate(tagged.marginals) if m[Role.CTX] >= CONTEXT_CONFIDENCE)
        description = frozenset(k for k, r in enumerate(tagged.roles) if r is Role.DESC)
        return Reading(tagged, context, description)

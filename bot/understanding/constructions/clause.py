"""The units a reader works on: a `Token` (a folded word and where it stands) and a `Clause` (one question of a message).

A clause is a token range of the message with the name spans found in it; readers ask it for its words, the words
outside its names, and the text a range of tokens was written as, instead of passing `(text, toks, spans, a, b)` along.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from bot.core.text import tokens
from bot.understanding.mentions import Span


class Token(NamedTuple):
    """One word of the message: folded ("amelie"), with its character offsets into the message."""

    text: str
    start: int
    end: int


def tokenise(text: str) -> list[Token]:
    return [Token(*t) for t in tokens(text)]


@dataclass(frozen=True)
class Clause:
    """Tokens `start`..`end` (exclusive) of a message, and the name spans of the message."""

    text: str  # the whole message
    tokens: list[Token]
    start: int
    end: int
    spans: list[Span] = field(default_factory=list)

    @classmethod
    def of(cls, text: str, spans: list[Span] = ()) -> Clause:
        """The whole of `text` as one clause."""
        toks = tokenise(text)
        return cls(text, toks, 0, len(toks), list(spans))

    @cached_property
    def words(self) -> list[str]:
        return [t.text for t in self.tokens[self.start : self.end]]

    @property
    def positions(self) -> range:
        return range(self.start, self.end)

    @property
    def said(self) -> str:
        """The clause as written."""
        return self.written(self.start, self.end) if self.end > self.start else ""

    def written(self, a: int, b: int) -> str:
        """Tokens a..b as written (with what stands between them)."""
        return self.text[self.tokens[a].start : self.tokens[b - 1].end]

    def at(self, start: int, end: int) -> range:
        """The token positions inside the character range start..end (a name's span); empty when none."""
        inside = [k for k, t in enumerate(self.tokens) if t.start >= start and t.end <= end]
        return range(inside[0], inside[-1] + 1) if inside else range(0)

    def inside(self) -> list[Span]:
        """The name spans that lie within the clause."""
        return [s for s in self.spans if self.start <= s.tok_start and s.tok_end <= self.end]

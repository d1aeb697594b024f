"""What a construction declares: the question shape it reads, its words as data, and the forms its answers take.

A construction is one question shape ("which is longer, A or B?", "how many films did X direct?", "tell me
about X") as one unit: its module under bot/understanding/constructions/ holds its reader (clause -> typed plan
node), its data file beside it (`<name>.toml`: cue words and patterns, in the spirit of spaCy's Matcher patterns
and Rasa's lookup tables) and its `CONSTRUCTION` declaration. Words several constructions read are in the shared
vocabulary (bot/understanding/vocabulary.toml). The forms a construction's answers take each have one typed
result (bot.core.results), one answerer (bot.answering.compose) and one sentence (bot.generation.templates);
tests/test_constructions.py checks that every declared form has all three.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bot.core.kinds import Kind
from bot.core.terms import Form

HERE = Path(__file__).parent


@cache
def construction_data(name: str) -> dict:
    """The data file of construction `name` (an empty table when it has none)."""
    path = HERE / f"{name}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@dataclass(frozen=True)
class Construction:
    """One question shape."""

    name: str  # also the name of its module and its data file
    asks: str  # what such a question asks, for people reading the registry
    examples: tuple[str, ...]  # questions of this shape (any graph's names; the README and the readers' tests use them)
    kind: Kind = Kind.FACTUAL  # the kind of reply it gets
    forms: tuple[Form, ...] = ()  # the compositional result forms of its answers; () for a relation chain or a kind of its own

    @property
    def data(self) -> dict:
        return construction_data(self.name)

    @property
    def words(self) -> dict[str, frozenset[str]]:
        """The word lists of its data file's [words] table, as sets."""
        return {name: frozenset(words) for name, words in self.data.get("words", {}).items()}

"""The shared vocabulary of question understanding: word classes and the sets built from them, pronouns, number words,
and the one spell-corrector.

The words live in `vocabulary.toml` (data, not code): each word class is written once and each set a reader uses is
a union of classes and single words, so "please" or "those" is not listed again in ten places that then drift apart.
A construction's own words are in its data file (bot/understanding/constructions/*.toml).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from functools import cache
from pathlib import Path

MIN_SPELLED = 5  # shorter words are not spell-corrected ("Heat" is no typo of "heard")
SPELLING_MEMO = 10_000  # corrected words remembered per speller


@cache
def _data() -> dict:
    return tomllib.loads((Path(__file__).with_name("vocabulary.toml")).read_text(encoding="utf-8"))


def expand(entries: Iterable[str], classes: dict[str, str], tables: dict[str, dict]) -> frozenset[str]:
    """The words of a set written as data: "@class" is every word of a word class, "#table" every key of a table
    (the pronouns), anything else the word (or phrase) itself."""
    out: set[str] = set()
    for entry in entries:
        if entry.startswith("@"):
            out.update(classes[entry[1:]].split())
        elif entry.startswith("#"):
            out.update(tables[entry[1:]])
        else:
            out.add(entry)
    return frozenset(out)


def word_class(name: str) -> frozenset[str]:
    """The words of one class of vocabulary.toml."""
    return frozenset(_data()["classes"][name].split())


def word_set(name: str) -> frozenset[str]:
    """One of the [sets] of vocabulary.toml."""
    data = _data()
    return expand(data["sets"][name], data["classes"], data)


STOP = word_set("stop")
GENERIC = word_set("generic")
FILLER_START = word_set("filler_start")
YES_NO_START = word_set("yes_no_start")
QUESTION_START = word_set("question_start")
TITLE_FUNCTION_WORDS = word_set("title_function_words")
LIST_WORDS = word_set("list_words")
FILM_WORDS = word_set("film_words")
ANY_ROLE_WORDS = word_set("any_role_words")
SHARE_CUES = word_set("share_cues")
EXCLUDING = word_set("excluding")
QUESTION_WORDS = word_class("question_words")
NEGATIONS = word_class("negations")
SET_WORDS = word_class("set_pronouns")
HEADING_WORDS = word_class("headings")
OTHER_WORDS = word_class("other_words")
ROLE_VERBS = word_class("role_verbs")
WORK_VERBS = word_class("work_verbs")
FILM_NOUNS = word_class("film_nouns")
PRONOUNS: dict[str, str] = dict(_data()["pronouns"])  # word -> "thing" | "person" | "any"
NUMBER_WORDS: dict[str, int] = dict(_data()["numbers"])  # "two" -> 2


def phrases(*path: str) -> dict[str, tuple[tuple[str, ...], ...]]:
    """A table of phrases (what they point at -> its phrases as word tuples), "@class" words expanded: `path` names it
    ("referring"; "referring", "clause_final")."""
    classes, table = _data()["classes"], _data()
    for key in path:
        table = table[key]

    def each(phrase: str) -> list[tuple[str, ...]]:
        out: list[tuple[str, ...]] = [()]
        for word in phrase.split():
            options = classes[word[1:]].split() if word.startswith("@") else [word]
            out = [done + (option,) for done in out for option in options]
        return out

    return {key: tuple(p for phrase in said for p in each(phrase)) for key, said in table.items() if isinstance(said, list)}


class Speller:
    """A misspelt word of `vocabulary` read as the word it misspells ("lonest" -> "longest", "directd" -> "directed"):
    one edit (a swap counts as one) from a word of five letters or more, two from one of nine or more (of words as close,
    the longer), keeping the first letter (typos rarely change it, and other words do: "bother" is not "other"). A shorter
    word that is no ordinary English word (`ordinary`) is corrected only into one of `short_targets` (the relation cues)
    that it is with one letter dropped ("wrot" -> "wrote", but "heat" is no "heart"); others never (a four-letter word is
    as often a name or chat as a slip). Names are matched by the label index, not here."""

    def __init__(self, vocabulary: Iterable[str], short_targets: Iterable[str] = (), ordinary: frozenset[str] = frozenset()):
        self.vocabulary = frozenset(w for w in vocabulary if w.isalpha())
        self.by_first: dict[str, list[str]] = {}
        for word in sorted(w for w in self.vocabulary if len(w) >= MIN_SPELLED):
            self.by_first.setdefault(word[0], []).append(word)
        # four-letter slips of five-letter cues: each cue with one letter (not the first) dropped
        self.dropped: dict[str, str] = {}
        for target in sorted(t for t in short_targets if len(t) == MIN_SPELLED and t.isalpha()):
            for k in range(1, len(target)):
                if (slip := target[:k] + target[k + 1 :]) not in ordinary:
                    self.dropped.setdefault(slip, target)
        self.memo: dict[str, str] = {}

    def __call__(self, word: str) -> str:
        if word in self.vocabulary or not word.isalpha():
            return word
        if len(word) < MIN_SPELLED:
            return self.dropped.get(word, word)
        if word not in self.memo:
            from rapidfuzz import process
            from rapidfuzz.distance import OSA

            near = process.extract(word, self.by_first.get(word[0], ()), scorer=OSA.distance, score_cutoff=2 if len(word) >= 9 else 1, limit=None)
            # the closest; of words as close, the longer (a dropped letter is the commonest slip: "directd" is "directed")
            best = min(near, key=lambda match: (match[1], -len(match[0]), match[0]), default=None)
            self.memo[word] = best[0] if best is not None else word
            if len(self.memo) > SPELLING_MEMO:
                self.memo.pop(next(iter(self.memo)))
        return self.memo[word]

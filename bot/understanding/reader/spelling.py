"""Chat spelling read as the words it stands for: "whos in heat n who did the music" -> "who's in heat and who did
the music".

People who type on phones or in a hurry write "u", "w", "abt", "smth", "whos", "r", "+"; the rest of the reader knows
the words they stand for. The table is data (spelling.toml): plain replacements, replacements guarded by the
neighbouring words ("rated r" keeps its letter, "dir by" is "directed by"), marks read as words, and list markers
("1) ... 2) ...") read as the ends of questions. A token is
replaced only where it was typed in lower case (or capitalised at the start of a sentence: "Whos ..."), and never
inside a name the caller protects (the exact KG labels of the message: the film "Her" or "Us" stays a title).
Every replacement is kept, so the reply trace shows what was read.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TABLE = Path(__file__).with_name("spelling.toml")
# a word, with a chat slash form ("w/", "w/o") or an apostrophe inside ("it's" is one token here)
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?(?:/o\b|/(?=\s|$))?", re.UNICODE)
_SENTENCE_END = re.compile(r"(?:^|[.!?]\s*)$")


@dataclass(frozen=True)
class Guarded:
    """A replacement that depends on the neighbouring tokens."""

    to: str
    only_before: frozenset[str] = frozenset()
    only_after: frozenset[str] = frozenset()
    not_before: frozenset[str] = frozenset()
    not_after: frozenset[str] = frozenset()

    def holds(self, before: str, after: str) -> bool:
        """`before` / `after`: the previous / next token in lower case ("" at the ends)."""
        if self.only_before and after not in self.only_before:
            return False
        if self.only_after and before not in self.only_after:
            return False
        return after not in self.not_before and before not in self.not_after


@dataclass(frozen=True)
class SpellingTable:
    words: dict[str, str]
    guarded: dict[str, tuple[Guarded, ...]]
    marks: dict[str, str]
    list_markers: tuple[re.Pattern, ...] = ()

    @classmethod
    def read(cls, path: Path = TABLE) -> SpellingTable:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        guarded = {key: tuple(Guarded(rule["to"], *(frozenset(rule.get(name, ())) for name in
                                                    ("only_before", "only_after", "not_before", "not_after")))
                              for rule in rules)
                   for key, rules in data.get("guarded", {}).items()}
        markers = tuple(re.compile(p) for p in data.get("lists", {}).get("markers", ()))
        return cls(dict(data.get("words", {})), guarded, dict(data.get("marks", {})), markers)

    def replacement(self, word: str, before: str, after: str) -> str | None:
        """What the lower-case token `word` stands for between `before` and `after`, or None."""
        for rule in self.guarded.get(word, ()):
            if rule.holds(before, after):
                return rule.to
        return self.words.get(word)


@cache
def default_table() -> SpellingTable:
    return SpellingTable.read()


@dataclass(frozen=True)
class Respelling:
    """A message as the reader reads it, and what was read differently from how it was typed."""

    text: str
    changes: tuple[tuple[str, str], ...] = ()  # (as typed, as read)


def respell(text: str, protected: list[tuple[int, int]] = (), table: SpellingTable | None = None) -> Respelling:
    """`text` with chat spelling replaced; `protected`: character ranges (names) left exactly as typed."""
    table = table or default_table()
    found = list(_TOKEN.finditer(text))
    lowered = [m.group().casefold() for m in found]
    pieces, changes, last = [], [], 0
    for n, match in enumerate(found):
        typed = match.group()
        start, end = match.span()
        if any(a < end and start < b for a, b in protected):
            continue
        sentence_start = bool(_SENTENCE_END.search(text[:start]))
        if typed != typed.lower() and not (sentence_start and typed[1:] == typed[1:].lower()):
            continue  # "Her", "Up", "W." as typed in a sentence: a title or a letter, not chat spelling
        before = lowered[n - 1] if n > 0 and not re.search(r"[.!?;,]", text[found[n - 1].end() : start]) else ""
        after = lowered[n + 1] if n + 1 < len(found) and not re.search(r"[.!?;,]", text[end : found[n + 1].start()]) else ""
        read = table.replacement(lowered[n], before, after)
        if read is None or read == typed:
            continue
        if typed[:1].isupper():
            read = read[:1].upper() + read[1:]
        pieces += [text[last:start], read]
        changes.append((typed, read))
        last = end
    out = "".join(pieces) + text[last:]
    for mark, word in table.marks.items():
        pattern = re.compile(rf"(?<=\w)\s*{re.escape(mark)}\s*(?=\w)")
        if pattern.search(out):
            out = pattern.sub(f" {word} ", out)
            changes.append((mark, word))
    for marker in table.list_markers:
        for typed in marker.findall(out):
            changes.append((typed.strip(), ";"))
        out = marker.sub(";", out)
    return Respelling(out, tuple(changes))

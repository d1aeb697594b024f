"""Tokenising and normalising text the same way for questions and KG labels."""

from __future__ import annotations

import re
import unicodedata

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


def fold(token: str) -> str:
    """Lowercase and strip accents: 'Amélie' -> 'amelie'."""
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def tokens(text: str) -> list[tuple[str, int, int]]:
    """(folded token, start, end) for every word of `text`, offsets into `text`."""
    return [(fold(m.group()), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def normalize(text: str) -> str:
    """The key labels and question spans are compared by."""
    return " ".join(t for t, _, _ in tokens(text))


def clean_message(text: str) -> str:
    """Drop control characters (keeping newlines as spaces) so nothing odd reaches logs or queries."""
    return "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text).strip()

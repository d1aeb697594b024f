"""The one tokeniser, and the text helpers every layer shares.

Questions, KG labels, classifier features, NER input and the phrasing guard all split text
with the same word pattern, so a span found by one layer lines up with what the next one
sees: `tokens` gives folded words with character offsets; `tokens(text, marks=True)` keeps
punctuation marks as tokens of their own (how the NER tagger reads a sentence).
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_WORD_OR_MARK = re.compile(r"[^\W_]+|[^\w\s]|_", re.UNICODE)
YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")

Token = tuple[str, int, int]  # (text, start, end), offsets into the tokenised string


def fold(token: str) -> str:
    """Lowercase and strip accents: 'Amélie' -> 'amelie'."""
    decomposed = unicodedata.normalize("NFKD", token)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def tokens(text: str, folded: bool = True, marks: bool = False) -> list[Token]:
    """(token, start, end) for every word of `text` (and every punctuation mark with `marks`),
    folded unless `folded` is False."""
    pattern = _WORD_OR_MARK if marks else _WORD
    if folded:
        return [(fold(m.group()), m.start(), m.end()) for m in pattern.finditer(text)]
    return [(m.group(), m.start(), m.end()) for m in pattern.finditer(text)]


def words(text: str) -> list[str]:
    """The folded words of `text`."""
    return [fold(m.group()) for m in _WORD.finditer(text)]


def normalize(text: str) -> str:
    """The key labels and question spans are compared by."""
    return " ".join(words(text))


_SCRIPT = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.I | re.S)
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")


def clean_message(text: str) -> str:
    """Drop control characters (keeping newlines as spaces) and markup (HTML tags, script and style
    elements), so nothing odd reaches logs or queries and pasted markup is not read as words."""
    text = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text)
    return re.sub(r"\s{2,}", " ", _TAG.sub(" ", _SCRIPT.sub(" ", text))).strip()


def contracted_not(toks: list[Token], k: int) -> bool:
    """Whether token k is the "t" of "don't", "isn't", "didn't" (tokens() splits them into "don", "t")."""
    return 0 < k < len(toks) and toks[k][0] == "t" and toks[k - 1][0].endswith("n")


def join_labels(labels: list[str], limit: int = 12) -> str:
    """'A', 'A and B', 'A, B and C', 'A, B, … and 7 more'."""
    if not labels:
        return ""
    if len(labels) > limit:
        return ", ".join(labels[:limit]) + f" and {len(labels) - limit} more"
    if len(labels) == 1:
        return labels[0]
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def join_or(items: list[str]) -> str:
    """'A', 'A or B', 'A, B or C'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]

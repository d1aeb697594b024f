"""Dates, decades, durations and sums of money written in a question, read as conditions on films.

"from the 90s", "in the nineties", "after 2000", "since 1995", "from 1995 on", "before 1970", "in 1937", "from 1982" (that
year: "Ridley Scott films from 1982" are not his films since then),
"between 1990 and 2000"; "longer than 2 hours", "over 150 minutes", "under 90 minutes";
"grossed more than $500 million". Each reading keeps the character range it was read from, so
the parser can count those words as explained.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.terms import Measure, Op

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                "a": 1, "an": 1, "half": 0.5}
DECADE_WORDS = {"twenties": 1920, "thirties": 1930, "forties": 1940, "fifties": 1950, "sixties": 1960, "seventies": 1970,
                "eighties": 1980, "nineties": 1990, "noughties": 2000, "aughts": 2000}
_YEAR = r"(1[89]\d\d|20\d\d)"
DECADE = re.compile(r"(?:\bthe\s+)?(?:\b(1[89]\d0|20[0-2]0)s\b|(?<![\w])['’]?([0-9]0)['’]?s\b|\b(" + "|".join(DECADE_WORDS) + r")\b)", re.I)
BETWEEN = re.compile(rf"\b(?:between|from)\s+{_YEAR}\s+(?:and|to|-|–)\s+{_YEAR}\b", re.I)
AFTER = re.compile(rf"\b(after|since|post|later than|newer than)\s+(?:the\s+year\s+)?{_YEAR}\b"
                   rf"|\b(from)\s+(?:the\s+year\s+)?{_YEAR}\s+(?:on|onwards?|forwards?|and later|or later|up to now)\b", re.I)
BEFORE = re.compile(rf"\b(before|prior to|pre|until|earlier than|older than)\s+(?:the\s+year\s+)?{_YEAR}\b", re.I)
IN_YEAR = re.compile(rf"\b(?:in|of|during|from)\s+(?:the\s+year\s+)?{_YEAR}\b", re.I)
_AMOUNT = r"(\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|an?|half)"
LONGER = re.compile(rf"\b(longer than|more than|over|greater than|at least|above|exceeding|upwards of)\s+(?:an?\s+)?{_AMOUNT}\s*(?:and a half\s+)?(hours?|hrs?|h|minutes?|mins?)\b", re.I)
SHORTER = re.compile(rf"\b(shorter than|less than|under|below|at most|no more than|within)\s+(?:an?\s+)?{_AMOUNT}\s*(?:and a half\s+)?(hours?|hrs?|h|minutes?|mins?)\b", re.I)
MONEY = re.compile(r"\b(more than|over|at least|above|less than|under|below)\s+\$?\s?(\d+(?:[.,]\d+)?)\s*(billion|bn|million|m|thousand|k)?\s*(?:dollars|usd|\$)?", re.I)
MONEY_CUE = re.compile(r"\b(gross\w*|earn\w*|made|make|box office|money|revenue)\b", re.I)


@dataclass(frozen=True)
class Quantity:
    """One condition read from the question: on a kind of value ('date', 'duration', 'money')."""

    kind: Measure  # what the quantity measures: a date, a duration or money
    op: Op  # YEAR_FROM / YEAR_UNTIL (dates) or GT / LT (numbers)
    value: float
    start: int  # character range in the question
    end: int
    said: str


def decade_start(match: re.Match) -> int | None:
    if match.group(1):
        return int(match.group(1))
    if match.group(2):
        tens = int(match.group(2))
        return 2000 + tens if tens <= 20 else 1900 + tens  # "the 90s" -> 1990s, "the 00s" / "10s" / "20s" -> 2000s ...
    return DECADE_WORDS[match.group(3).lower()]


def _amount(text: str) -> float:
    text = text.lower()
    return float(NUMBER_WORDS[text]) if text in NUMBER_WORDS else float(text.replace(",", "."))


def quantities(text: str, skip: list[tuple[int, int]] = ()) -> list[Quantity]:
    """Every date, decade, duration and money condition in `text` outside the `skip` ranges (names)."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = list(skip)

    def free(m: re.Match) -> bool:
        return all(m.end() <= a or m.start() >= b for a, b in taken)

    def add(kind, op, value, m):
        found.append(Quantity(kind, op, value, m.start(), m.end(), m.group(0).strip()))
        taken.append((m.start(), m.end()))

    for m in BETWEEN.finditer(text):
        if free(m):
            low, high = sorted((int(m.group(1)), int(m.group(2))))
            add(Measure.DATE, Op.YEAR_FROM, low, m)
            found.append(Quantity(Measure.DATE, Op.YEAR_UNTIL, high, m.start(), m.end(), m.group(0).strip()))
    for m in DECADE.finditer(text):
        if free(m):
            start = decade_start(m)
            if start is not None:
                add(Measure.DATE, Op.YEAR_FROM, start, m)
                found.append(Quantity(Measure.DATE, Op.YEAR_UNTIL, start + 9, m.start(), m.end(), m.group(0).strip()))
    for m in LONGER.finditer(text):
        if free(m):
            minutes = _amount(m.group(2)) * (60 if m.group(3).lower().startswith("h") else 1) + (30 if "half" in m.group(0).lower() else 0)
            add(Measure.DURATION, Op.GT, minutes, m)
    for m in SHORTER.finditer(text):
        if free(m):
            minutes = _amount(m.group(2)) * (60 if m.group(3).lower().startswith("h") else 1) + (30 if "half" in m.group(0).lower() else 0)
            add(Measure.DURATION, Op.LT, minutes, m)
    if MONEY_CUE.search(text):
        for m in MONEY.finditer(text):
            if free(m) and (m.group(3) or "$" in m.group(0) or "dollar" in m.group(0).lower()):
                scale = {"billion": 1e9, "bn": 1e9, "million": 1e6, "m": 1e6, "thousand": 1e3, "k": 1e3}.get((m.group(3) or "").lower(), 1)
                greater = m.group(1).lower() in ("more than", "over", "at least", "above")
                add(Measure.MONEY, Op.GT if greater else Op.LT, _amount(m.group(2)) * scale, m)
    for m in AFTER.finditer(text):
        if free(m):
            word, year = (m.group(1) or m.group(3)).lower(), int(m.group(2) or m.group(4))
            add(Measure.DATE, Op.YEAR_FROM, year + (0 if word in ("since", "from") else 1), m)
    for m in BEFORE.finditer(text):
        if free(m):
            word = m.group(1).lower()
            add(Measure.DATE, Op.YEAR_UNTIL, int(m.group(2)) - (0 if word == "until" else 1), m)
    for m in IN_YEAR.finditer(text):
        if free(m):
            year = int(m.group(1))
            add(Measure.DATE, Op.YEAR_FROM, year, m)
            found.append(Quantity(Measure.DATE, Op.YEAR_UNTIL, year, m.start(), m.end(), m.group(0).strip()))
    return found

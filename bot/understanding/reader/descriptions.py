"""Descriptions that say which film is meant: "the 1978 Carpenter one", "Branagh's Hamlet", "hamlet with mel gibson",
"Seven, the Fincher one", "the Halloween from '18".

The role tagger marks the words of a description (Role.DESC); this module reads what they say — years (two-digit
ones too), people, genres, "the original" / "the remake" — and checks it against the graph for each film the
title may name. A description picks the one film it fits among namesakes, confirms a film that has no namesake
(its words are then accounted for, not unknown), and when it fits none of them, says so: the bot never answers
about a film the person did not describe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.core.text import Token

ORIGINAL = frozenset({"original", "first", "earliest", "oldest", "old", "classic", "og"})
REMAKE = frozenset({"remake", "newest", "newer", "latest", "new", "recent", "modern", "reboot"})
ORDER_WORDS = ORIGINAL | REMAKE  # which of a title's films: "the original", "the remake"
_TWO_DIGITS = re.compile(r"^\d{2}$")


@dataclass(frozen=True)
class FilmOption:
    """A film the title may name."""

    iri: str
    label: str
    year: int | None


@dataclass
class Described:
    """What a description says, and the films it fits."""

    tokens: frozenset[int]  # the description's tokens
    years: tuple[int, ...] = ()
    people: tuple[tuple[str, str], ...] = ()  # (IRI, label) of the people it names
    genres: tuple[tuple[str, str], ...] = ()
    order: str = ""  # "original" | "remake"
    fits: list[FilmOption] = field(default_factory=list)

    @property
    def says_anything(self) -> bool:
        return bool(self.years or self.people or self.genres or self.order)

    def film_described(self, title: str) -> str:
        """The film the description asks for, as the reply names what it could not find: "Ronin (1975)",
        "Halloween (1981) with Jamie Lee Curtis"."""
        said = f"{title} ({self.years[0]})" if self.years else title
        if self.people:
            said += " with " + " and ".join(label for _, label in self.people)
        if self.genres:
            said += " (" + ", ".join(label for _, label in self.genres) + ")"
        return said


def two_digit_year(word: str) -> int | None:
    """'84 or "from 84" or "the 84 one": the year 1984 (2-digit years of films: 30-99 -> 19xx, else 20xx)."""
    if not _TWO_DIGITS.match(word):
        return None
    value = int(word)
    return 1900 + value if value >= 30 else 2000 + value


def read_description(text: str, toks: list[Token], positions: frozenset[int], people: list[tuple[int, int, str, str]],
                     genres: list[tuple[int, int, str, str]]) -> Described:
    """What the description tokens at `positions` say. `people` / `genres`: (start token, end token, IRI, label) of the
    names the message links inside them."""
    years, order = [], ""
    for k in sorted(positions):
        word = toks[k][0]
        before = text[toks[k - 1][2] : toks[k][1]] if k else ""
        if re.fullmatch(r"(1[89]|20)\d\d", word):
            years.append(int(word))
        elif (year := two_digit_year(word)) is not None and ("'" in before or "’" in before or k - 1 not in positions or
                                                                     (k and toks[k - 1][0] in ("from", "the", "in", "of"))):
            # "'84", "from 84", "the 84 one", or two digits right after the title ("nightmare on elm street 84")
            years.append(year)
        elif word in ORIGINAL:
            order = "original"
        elif word in REMAKE:
            order = "remake"
    inside = [(iri, label) for a, b, iri, label in people if a in positions and b - 1 in positions]
    kinds = [(iri, label) for a, b, iri, label in genres if a in positions and b - 1 in positions]
    return Described(positions, tuple(years), tuple(dict.fromkeys(inside)), tuple(dict.fromkeys(kinds)), order)


def check(described: Described, films: list[FilmOption], linked, genre_of) -> Described:
    """The films the description fits. `linked(film_iris, person_iri)` -> the films the person worked on;
    `genre_of(film_iri)` -> the film's genre IRIs."""
    fitting = list(films)
    if described.years:
        fitting = [f for f in fitting if f.year is not None and any(abs(f.year - y) <= 1 for y in described.years)]
    for person_iri, _ in described.people:
        with_person = linked(tuple(f.iri for f in fitting), person_iri) if fitting else frozenset()
        fitting = [f for f in fitting if f.iri in with_person]
    for genre_iri, _ in described.genres:
        fitting = [f for f in fitting if genre_iri in genre_of(f.iri)]
    if described.order and len(fitting) > 1 and all(f.year for f in fitting):
        fitting = [min(fitting, key=lambda f: f.year) if described.order == "original" else max(fitting, key=lambda f: f.year)]
    described.fits = fitting
    return described

"""The other ways people write a title or a name: generated variants of KG labels.

People drop a title's article ("hangover"), keep only its subtitle ("return of the jedi") or
its main title ("kill bill"), write "and" for "&", "2" for "II", "schindlers" for
"Schindler's", and call a director by the surname alone ("Nolan's films"). The label index
keeps these variants apart from the real labels (and aliases): a variant never hides an
entity whose own label is the same words, and the linker trusts it a little less.

Variants are normalised (bot.core.text.normalize) word strings.
"""

from __future__ import annotations

import re

from bot.core.text import normalize

ARTICLES = ("the", "a", "an")
ROMAN = {"ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8", "ix": "9", "x": "10"}
ARABIC = {v: k for k, v in ROMAN.items()}
NUMBERED = ("part", "episode", "chapter", "volume", "vol")  # words a sequel number follows
SUBTITLE = re.compile(r"\s*(?::|\s[–—-]\s|\bor:)\s*")  # "Title: Subtitle", "Title – Subtitle", "Dr. Strangelove or: How ..."
PARTICLES = ("von", "van", "de", "del", "della", "da", "di", "du", "le", "la", "der", "den", "ter", "st")
NAME_SUFFIXES = ("jr", "sr", "ii", "iii")
STOP = frozenset("the a an of and or in on at to for with from by is it its".split())
MIN_SUBTITLE_WORDS = 2
MIN_ACRONYM, MAX_ACRONYM = 3, 6


def _without_article(norm: str) -> str:
    first, _, rest = norm.partition(" ")
    return rest if first in ARTICLES and rest else ""


def _number_forms(norm: str) -> set[str]:
    """'part ii' <-> 'part 2', and a trailing 'ii' <-> '2' ('halloween ii', 'toy story 2')."""
    words = norm.split()
    out = set()
    for i, word in enumerate(words):
        trailing_or_numbered = i == len(words) - 1 or (i > 0 and words[i - 1] in NUMBERED)
        if i > 0 and trailing_or_numbered and (word in ROMAN or word in ARABIC):
            swapped = ROMAN.get(word) or ARABIC.get(word)
            out.add(" ".join(words[:i] + [swapped] + words[i + 1 :]))
    return out


def _without_part(norm: str) -> str:
    """'the godfather part 2' -> 'the godfather 2': the word before a sequel number, dropped as people do."""
    return re.sub(r"\b(?:part|chapter|episode|vol|volume) (\d+)$", r"\1", norm) if re.search(r"\b(?:part|chapter|episode|vol|volume) \d+$", norm) else ""


def _acronym(norm: str) -> str:
    """'the lord of the rings' -> 'lotr': the initials of a title of three words or more (without its article), as fans
    abbreviate it; not when the initials spell an ordinary word ("ADA") or are shorter than three letters."""
    words = norm.split()
    if words and words[0] in ARTICLES:
        words = words[1:]
    if len(words) < 3 or not all(w[:1].isalpha() for w in words):
        return ""
    initials = "".join(w[0] for w in words)
    from bot.core.english import common_words

    return initials if MIN_ACRONYM <= len(initials) <= MAX_ACRONYM and initials not in STOP and initials not in common_words() else ""


def _significant(norm: str, min_words: int) -> bool:
    words = norm.split()
    return len(words) >= min_words and any(w not in STOP and len(w) > 2 for w in words)


def title_variants(label: str) -> set[str]:
    """How people may write a film title: without the article, with 'and' for '&', with the other
    kind of sequel number, joined possessives, and its main title or its subtitle alone."""
    forms = {normalize(label)}
    if "&" in label:
        forms.add(normalize(label.replace("&", " and ")))
    if " and " in f" {label.casefold()} ":
        forms.add(normalize(re.sub(r"\band\b", "&", label, flags=re.I)))
    if re.search(r"\w's\b", label):
        forms.add(normalize(re.sub(r"(\w)'s\b", r"\1s", label)))
    parts = [p for p in SUBTITLE.split(label) if p.strip()]
    if len(parts) > 1:
        main, subtitle = normalize(parts[0]), normalize(parts[-1])
        real_subtitle = _significant(subtitle, MIN_SUBTITLE_WORDS) and subtitle.split()[0] not in NUMBERED
        # a one-word main title stands alone only beside a real subtitle ("Atlantis: The Lost Empire",
        # not "Mission: Impossible")
        if _significant(main, 2) or (real_subtitle and len(main) >= 6 and " " not in main):
            forms.add(main)
        if real_subtitle:
            forms.add(subtitle)
        if len(parts) > 2 and _significant(main, 1):
            forms.add(f"{main} {subtitle}")  # "John Wick: Chapter 3 – Parabellum" is also "John Wick: Parabellum"
    for form in list(forms):
        forms |= _number_forms(form)
    forms |= {short for form in list(forms) if (short := _without_part(form))}
    for form in list(forms):
        bare = _without_article(form)
        if bare and _significant(bare, 1):
            forms.add(bare)
    if initials := _acronym(normalize(parts[0] if len(parts) > 1 else label)):
        forms.add(initials)  # the (main) title's initials: "lotr" for every "The Lord of the Rings: ..." film, "bttf"
    forms.discard(normalize(label))
    return {f for f in forms if f}


def name_variants(label: str) -> set[str]:
    """How people may refer to a person: by the surname (with its particles: 'del toro', 'von trier')."""
    words = normalize(label).split()
    while words and words[-1] in NAME_SUFFIXES:
        words = words[:-1]
    if len(words) < 2:
        return set()
    start = len(words) - 1
    while start > 1 and words[start - 1] in PARTICLES:
        start -= 1
    surname = " ".join(words[start:])
    forms = {surname} if len(surname) >= 3 and surname not in STOP else set()
    if start < len(words) - 1:
        forms.add(words[-1])  # "toro" as well as "del toro"
    return {f for f in forms if len(f) >= 3}


# what people call a genre in chat ("sci-fi", "a scary movie", "rom-coms"), by the genre's own name
GENRE_SYNONYMS = {
    "science fiction": ("sci fi", "scifi", "sf"), "horror": ("scary", "horrors"), "comedy": ("funny", "comedic"),
    "romantic comedy": ("rom com", "romcom", "rom coms", "romcoms"), "animation": ("animated", "cartoon", "cartoons", "anime"),
    "animated": ("animation", "cartoon", "cartoons"), "documentary": ("documentaries", "docs", "doc"),
    "thriller": ("suspense",), "romance": ("romantic", "love story", "love stories"), "action": ("action packed",),
    "musical": ("musicals",), "drama": ("sad films", "sad movies", "sad film", "sad movie", "tearjerker", "tearjerkers", "weepie", "weepies"), "war": ("war films", "war movies"), "crime": ("gangster", "gangster films", "mob"),
}


def genre_variants(label: str) -> set[str]:
    """The plural people use for a genre noun: 'comedies', 'thrillers', 'westerns' (not for adjectives: 'animated');
    a genre labelled the Wikidata way, 'drama film', is also 'drama', 'dramas' and 'drama films'; and what people
    call some genres in chat ("sci-fi", "scary")."""
    norm = normalize(label)
    base = re.sub(r" (?:film|movie)$", "", norm)
    forms = {base, f"{base} films", f"{base} movies"} | _genre_plural(base) if base != norm and base else _genre_plural(norm)
    return forms | set(GENRE_SYNONYMS.get(base or norm, ()))


def _genre_plural(norm: str) -> set[str]:
    if " " in norm:  # "romantic comedy" -> "romantic comedies"
        head, _, last = norm.rpartition(" ")
        return {f"{head} {plural}" for plural in _genre_plural(last)}
    if not norm or norm.endswith(("ed", "al", "ic", "s", "ing")):
        return set()
    if norm.endswith("y") and not norm.endswith(("ay", "ey", "oy", "uy")):
        return {norm[:-1] + "ies"}
    return {norm + "s"}


def award_variants(label: str) -> set[str]:
    """'Academy Award for Best Picture' is also 'the Oscar for Best Picture', 'the Best Picture Oscar' and, as people
    say it of the Oscars, 'Best Picture' alone (a variant: another award's own label 'Best Picture' comes first)."""
    match = re.match(r"(?i)academy award for (.+)", label.strip())
    if not match:
        return set()
    category = normalize(match.group(1))
    return {category, f"oscar for {category}", f"{category} oscar", f"oscar for the {category}", f"academy award for the {category}"}

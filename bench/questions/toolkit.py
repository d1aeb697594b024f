"""What the held-out question patterns are written with: expectation terms, noise, surface forms, picks.

Why a module of its own: `patterns.py` (the hand-written questions) and `generate.py` (building,
writing, validating) both use it.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field

from demo_graph import DemoKG, P, Unusable, fold

NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
# Words an `any` term may look for in a reply's text besides KG values.
WORDING_WORDS = {"prediction", "predicted", "film", "films", "movie", "movies", "director", "only", "no other",
                 "nothing else", "none", "picture", "pictures", "image", "images"}


# ---- expectations -------------------------------------------------------------------------------

def _values(values) -> str:
    out = []
    for value in values:
        value = str(value).replace("&", "and").strip()
        if not value or ";" in value or "|" in value:
            raise Unusable(f"value {value!r} cannot be written in an expectation")
        out.append(value)
    if not out:
        raise Unusable("no values")
    return ";".join(dict.fromkeys(out))


def only(values) -> str:
    return "only:" + _values(values)


def all_(values) -> str:
    return "all:" + _values(values)


def any_(values) -> str:
    return "any:" + _values(values)


def top(values) -> str:
    return "top:" + _values(values)


def notany(values) -> str:
    return "notany:" + _values(values)


def both(*terms: str) -> str:
    return " & ".join(terms)


def either(*alternatives: str) -> str:
    return " || ".join(alternatives)


def count_terms(*numbers: int) -> str:
    """A count: the digits or the word of every acceptable number."""
    words = []
    for n in sorted(set(numbers)):
        words.append(str(n))
        if n < len(NUMBER_WORDS):
            words.append(NUMBER_WORDS[n])
    return any_(words)


def listing(values: list[str]) -> str:
    """Every value and nothing else: the complete answer."""
    return both(all_(values), only(values))


def complete(values: list[str], up_to: int = 5) -> str:
    """A short list must come whole (a reply naming one of four films answered another question); a long
    one may be cut, as a chat reply does, but every answer must be right."""
    return listing(values) if len(values) <= up_to else only(values)


def bounded(strict: list[str], lenient: list[str], up_to: int = 5) -> str:
    """A limit read either way ("after 2000" with or without 2000): the strict list whole, nothing beyond the lenient one."""
    return both(all_(strict), only(lenient)) if len(strict) <= up_to else only(lenient)


# ---- noise ----------------------------------------------------------------------------------------

KEYBOARD = {"a": "s", "s": "a", "e": "r", "r": "e", "i": "o", "o": "i", "n": "m", "m": "n", "t": "r", "l": "k",
            "u": "y", "c": "v", "d": "s", "h": "j", "g": "h", "p": "o", "b": "v", "k": "l", "y": "t"}
PREFIXES = ["hey, ", "hi! ", "quick question: ", "ok so ", "hello bot, ", "sorry to bother you but ", "question - ",
            "yo ", "Please help me with this: ", "I was wondering, ", "Factual question: ", "hmm, ", "Bot, ",
            "can you answer this: ", "random question but "]
SUFFIXES = [" thanks!", " pls", " please", " thx", " :)", " ??", " (just curious)", " thank you", " ty", "!!"]


def typo(word: str, rng: random.Random) -> str:
    """One keyboard slip inside a word: two letters swapped, one dropped, one doubled or a neighbour key."""
    i = rng.randrange(1, len(word) - 2)
    op = rng.choice(["swap", "drop", "double", "near"])
    if op == "swap" and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if op == "drop":
        return word[:i] + word[i + 1:]
    if op == "near" and word[i].lower() in KEYBOARD:
        return word[:i] + KEYBOARD[word[i].lower()] + word[i + 1:]
    return word[:i] + word[i] + word[i:]


def typo_in(text: str, rng: random.Random) -> str | None:
    """`text` with a slip in one of its longer words, or None when it has no word long enough."""
    words = text.split(" ")
    long = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    if not long:
        return None
    i = rng.choice(long)
    words[i] = typo(words[i], rng)
    return " ".join(words)


@dataclass
class Row:
    category: str
    question: str
    expect: str
    tags: list[str] = field(default_factory=list)
    key: str = ""  # the question before sentence noise: two rows never ask the same thing

    def __post_init__(self):
        self.key = self.key or self.question


class Gen:
    """The seeded picker and writer: films, people and their surface forms, noise, rows."""

    def __init__(self, kg: DemoKG, seed: int):
        self.kg = kg
        self.rng = random.Random(seed)
        self.used: Counter[str] = Counter()
        self._cycles: dict[str, list[str]] = {}

    # picking ------------------------------------------------------------------------------

    def pick(self, pool, limit: int = 2):
        """A random element of pool, preferring ones used fewer than `limit` times in the whole set."""
        pool = sorted(pool) if isinstance(pool, (set, frozenset)) else list(pool)
        if not pool:
            raise Unusable("empty pool")
        fresh = [x for x in pool if self.used[x] < limit]
        choice = self.rng.choice(fresh or pool)
        self.used[choice] += 1
        return choice

    def film(self, needs: tuple[str, ...] = (), pool=None, unique: bool = True) -> str:
        """A film with a unique title (so no year is needed) that has every relation in `needs`."""
        film = self.pick(pool if pool is not None else self.kg.films())
        label = self.kg.label(film)
        if unique and not self.kg.title_unique(film):
            raise Unusable("shared title")
        if len(label) <= 3 and self.rng.random() < 0.8:
            raise Unusable("very short title")
        for relation in needs:
            if not self.kg.objects(film, relation):
                raise Unusable(f"no {relation}")
        return film

    def person(self, relation: str, low: int = 1, high: int = 1000) -> str:
        return self.pick(self.kg.role_people(relation, low, high))

    def phrase(self, key: str, phrasings: list[str]) -> str:
        """The next of a list of phrasings, in a shuffled round so every phrasing gets used."""
        queue = self._cycles.get(key)
        if not queue:
            queue = list(phrasings)
            self.rng.shuffle(queue)
            self._cycles[key] = queue
        return queue.pop()

    # surface forms ------------------------------------------------------------------------

    def _free(self, text: str, film: str | None = None) -> bool:
        """True when text names no other film or entity of the graph (so a short form stays unambiguous)."""
        key = fold(text)
        if film is not None and key == fold(self.kg.label(film)):
            return True
        # "Avengers" (for "Avengers: Endgame") also names "The Avengers": a label without its article counts too
        own = fold(self.kg.label(film)) if film is not None else None
        bare_labels = {re.sub(r"^(?:the|a|an) ", "", label) for label in self.kg.all_labels() if label != own}
        return key not in self.kg.all_labels() and key not in bare_labels and len(key) >= 4

    def title(self, film: str, tags: list[str], plain: bool = False) -> str:
        """How a person would type the film's title: exact, lowercase, a typo, no article, no subtitle ..."""
        label = self.kg.label(film)
        forms: list[tuple[str, str, float]] = [("exact", label, 0.5)]
        if plain:
            tags.append("title=exact")
            return label
        if label.startswith("The ") and self._free(label[4:], film):
            forms.append(("noarticle", label[4:], 0.12))
        for sep in (" – ", ": ", " or: "):
            if sep in label:
                head, _, tail = label.partition(sep)
                if len(tail.split()) >= 2 and not re.match(r"(Part|Episode|Chapter)\b", tail) and self._free(tail, film):
                    forms.append(("subtitle", tail, 0.15))
                if len(head) > 4 and not any(fold(o).startswith(fold(head)) for o in self.kg.film_labels() if fold(o) != fold(label)) \
                        and self._free(head, film) and not head[:1].isdigit() and "Episode" not in head:
                    forms.append(("head", head, 0.15))
        bare = re.sub(r"[:,.!'’]", "", label).replace(" – ", " ").replace("  ", " ")
        if bare != label and self._free(bare, film):
            forms.append(("nopunct", bare.lower(), 0.12))
        slipped = typo_in(label, self.rng)
        if slipped and fold(slipped) not in self.kg.all_labels():
            forms.append(("typo", slipped, 0.2))
        if self.rng.random() < 0.06:
            forms.append(("curly", f"\u201c{label}\u201d", 0.3))
        names, texts, weights = zip(*forms)
        i = self.rng.choices(range(len(forms)), weights=weights)[0]
        tags.append(f"title={names[i]}")
        return texts[i]

    def name(self, person: str, tags: list[str], plain: bool = False) -> str:
        """How a person would type a name: exact, lowercase, a typo, or the surname alone for a well-known one."""
        label = self.kg.label(person)
        if plain:
            return label
        r = self.rng.random()
        surname = label.split()[-1]
        if r < 0.12 and len(label.split()) >= 2 and self._unique_surname(surname) and self._prolific(person):
            tags.append("name=surname")
            return surname
        if r < 0.27:
            slipped = typo_in(label, self.rng)
            if slipped and fold(slipped) not in self.kg.all_labels():
                tags.append("name=typo")
                return slipped
        if r < 0.45:
            tags.append("name=lower")
            return label.lower()
        return label

    def _unique_surname(self, surname: str) -> bool:
        key = fold(surname)
        return len(key) >= 4 and sum(1 for p in self.kg.person_label_counts() if p.split()[-1] == key) == 1 \
            and key not in self.kg.all_labels()

    def _prolific(self, person: str) -> bool:
        n = self.kg.ask(f"SELECT ?v WHERE {{ ?v ?r <{person}> ; wdt:P31 wd:Q11424 }}", crowd=True)
        return len(n) >= 5

    # rows ---------------------------------------------------------------------------------

    def noisy(self, question: str, tags: list[str], level: float = 1.0) -> str:
        """Sentence-level noise: lowercase, no question mark, a prefix or a trailing politeness."""
        rng = self.rng
        if rng.random() < 0.15 * level:
            question = rng.choice(PREFIXES) + question[:1].lower() + question[1:]
            tags.append("prefix")
        if rng.random() < 0.3 * level:
            question = question.lower()
            tags.append("lower")
        if question.endswith("?") and rng.random() < 0.3 * level:
            question = question[:-1]
            tags.append("noq")
        if rng.random() < 0.12 * level:
            question = question + rng.choice(SUFFIXES)
            tags.append("suffix")
        return question

    def row(self, category: str, question: str, expect: str, tags: list[str], level: float = 1.0) -> Row:
        return Row(category, self.noisy(question, tags, level), expect, tags, key=question)


# ---- helpers over the graph -----------------------------------------------------------------------

def people_films(kg: DemoKG, person: str, relations: tuple[str, ...]) -> list[str]:
    """Film IRIs where person holds one of the relations."""
    props = ", ".join(P[r] for r in relations)
    return kg.ask(f"SELECT DISTINCT ?v WHERE {{ ?v ?r <{person}> ; wdt:P31 wd:Q11424 FILTER(?r IN ({props})) }}")


def films_of_people(kg: DemoKG, people: list[str], relation: str) -> list[str]:
    out: set[str] = set()
    for p in people:
        out |= set(kg.subjects(relation, p))
    return sorted(out)


def labels_of(kg: DemoKG, films, relation: str) -> list[str]:
    out: set[str] = set()
    for f in films:
        out |= set(kg.objects(f, relation))
    return sorted(out)


def durations(kg: DemoKG, films) -> dict[str, int]:
    out = {}
    for f in films:
        try:
            out[f] = kg.duration(f)
        except Unusable:
            pass
    return out


def years(kg: DemoKG, films) -> dict[str, int]:
    return {f: y for f in films if (y := kg.year_of_any(f)) is not None}


def winners(scores: dict[str, int], highest: bool = True) -> list[str]:
    if not scores:
        raise Unusable("nothing to compare")
    best = max(scores.values()) if highest else min(scores.values())
    return [k for k, v in scores.items() if v == best]

"""Training sentences for the NER tagger, generated from the KG.

The bundle's question phrasings (`QuestionGenerator`) plus recommendation, picture and
small-talk templates, filled with the KG's film titles (tagged MISC) and person names (PER)
and mixed with made-up names of random syllables, lower-cased and misspelt copies, so the
model learns the wording around a name rather than "unknown word = title".
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from bot.core.kinds import Kind
from bot.core.text import tokens
from bot.kg.bundle import Bundle
from bot.understanding.questions import ENT, QuestionGenerator, supported_chains

TITLE, PERSON = "MISC", "PER"  # the tags of film titles and person names (CoNLL's names)
_SLOT = re.compile(r"\{(film|person)\}")


def words(text: str) -> list[str]:
    """The words of `text` as the tagger sees them: punctuation marks are words of their own, case is kept."""
    return [w for w, _, _ in tokens(text, folded=False, marks=True)]


RECOMMEND_TEMPLATES = (
    "given that I like {film}, {film} and {film}, can you recommend some movies?",
    "given that I like {film} and {film}, what should I watch",
    "I liked {film} and {film}, what should I watch next",
    "recommend movies like {film}",
    "can you recommend films similar to {film}",
    "can you suggest something like {film} and {film}",
    "I love {film}, {film} and {film}. What else would I like?",
    "I enjoyed {film}; suggest something similar",
    "what should I see if I liked {film}",
    "since I loved {film} and {film}, which movies would you recommend",
    "recommend me some films with {person}",
    "I like movies by {person}, what should I watch",
    "suggest a film similar to {film} directed by {person}",
    "give me movies similar to {film}",
    "if I liked {film}, what else should I watch",
    "my favourite films are {film} and {film}, any recommendations?",
)
MULTIMEDIA_TEMPLATES = (
    "what does {person} look like",
    "show me a picture of {person}",
    "let me know what {person} looks like",
    "can I see a photo of {person}",
    "do you have an image of {person}",
    "show me {person}",
    "picture of {person}",
    "what did {person} look like in {film}",
    "show me the poster of {film}",
    "what does the poster of {film} look like",
    "I want to see a photo of {person}",
    "show me a pic of {person} please",
)
TWO_ENTITY_TEMPLATES = (
    "did {person} direct {film}",
    "did {person} act in {film}",
    "is {person} in {film}",
    "was {film} written by {person}",
    "who directed {film} and {film}",
    "did {person} and {person} work together",
)
SMALLTALK = (
    "hello", "hi there", "hey", "good morning", "good evening", "thanks", "thank you so much", "bye",
    "see you later", "how are you", "how are you doing today", "who are you", "what can you do", "help",
    "what can I ask you", "nice to meet you", "that's great", "ok cool", "tell me a joke", "I like movies",
    "recommend me a good movie", "what is your favourite film", "what films do you know",
    "can you help me find a movie", "which movies are popular", "what should I watch tonight",
    "I'm bored", "awesome, thanks!", "good night", "who made you", "do you like films?",
    "what is the best movie of all time", "show me a picture", "what genres do you know",
)
_ONSETS = ("b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p",
           "pr", "r", "s", "sh", "st", "t", "th", "tr", "v", "w", "z", "")
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "o", "ai", "ei", "ou", "ia", "y", "ee")
_CODAS = ("", "", "", "n", "r", "l", "s", "k", "m", "th", "nd", "x", "t")
_TITLE_WORDS = ("the", "of", "and", "a", "in", "return", "night", "love", "last", "man", "story", "city",
                "war", "king", "day", "house", "life", "girl", "dead", "world", "part", "episode", "secret")
_NUMERALS = ("2", "3", "II", "III", "IV", "VI", "1984", "101", "Part 2", "Part II", "Chapter 3")


def _syllables(rng: random.Random, low: int = 1, high: int = 3) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(rng.randint(low, high)))


def made_up_word(rng: random.Random) -> str:
    word = _syllables(rng)
    return word[:1].upper() + word[1:] if word else "Zo"


def made_up_person(rng: random.Random) -> str:
    """A name of random syllables, sometimes with an initial, an apostrophe or a hyphen."""
    first, last = made_up_word(rng), made_up_word(rng)
    roll = rng.random()
    if roll < 0.15:
        return f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {last}"
    if roll < 0.22:
        return f"{first} O'{last}"
    if roll < 0.3:
        return f"{first} {last}-{made_up_word(rng)}"
    if roll < 0.4:
        return f"{first} {made_up_word(rng)} {last}"
    return f"{first} {last}"


def made_up_title(rng: random.Random, vocabulary: list[str]) -> str:
    """A title of random syllables and title words, with colons, dashes, numbers and apostrophes."""

    def word() -> str:
        if vocabulary and rng.random() < 0.35:
            return rng.choice(vocabulary)
        return made_up_word(rng) if rng.random() < 0.7 else rng.choice(_TITLE_WORDS).capitalize()

    main = " ".join(word() for _ in range(rng.randint(1, 3)))
    if rng.random() < 0.3:
        main = "The " + main
    return decorate_title(rng, main, lambda: " ".join(word() for _ in range(rng.randint(1, 3))))


def decorate_title(rng: random.Random, title: str, subtitle) -> str:
    """Sequel numbers, subtitles after a colon or dash, possessives: how NER learns to keep titles whole."""
    roll = rng.random()
    if roll < 0.15:
        return f"{title}: {subtitle()}"
    if roll < 0.22:
        return f"{title} - {subtitle()}"
    if roll < 0.3:
        return f"{title} {rng.choice(_NUMERALS)}"
    if roll < 0.35:
        return f"{made_up_word(rng)}'s {title}"
    if roll < 0.38:
        return f"{title}: Episode {rng.choice(_NUMERALS)} – {subtitle()}"
    return title


def typo(rng: random.Random, text: str, edits: int) -> str:
    """`text` with `edits` random character edits (delete, insert, substitute, swap) inside its words."""
    changed = _edit(rng, text, edits)
    while changed == text and any(a.isalpha() and b.isalpha() for a, b in zip(text, text[1:])):
        changed = _edit(rng, text, edits)  # two edits can undo each other
    return changed


def _edit(rng: random.Random, text: str, edits: int) -> str:
    chars = list(text)
    for _ in range(edits):
        spots = [i for i, c in enumerate(chars[:-1]) if c.isalpha() and chars[i + 1].isalpha()]
        if not spots:
            break
        i = rng.choice(spots)
        op = rng.randrange(4)
        letter = rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != chars[i].lower()])
        if op == 0 and len(chars) > 4:
            del chars[i]
        elif op == 1:
            chars.insert(i, letter)
        elif op == 3 and chars[i] != chars[i + 1]:
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        else:
            chars[i] = letter
    return "".join(chars)


@dataclass
class NerExample:
    """One training sentence: its words and the (start, end, tag) word spans of its names."""

    words: list[str]
    spans: list[tuple[int, int, str]]


class NerDataGenerator:
    """Questions of every kind, filled with the KG's titles and names and with made-up ones."""

    MADE_UP_PERSONS = 0.4
    MADE_UP_TITLES = 0.25
    TWO_ENTITIES = "two entities"  # yes/no and paired questions: not a kind of their own yet
    KIND_WEIGHTS = {Kind.FACTUAL: 0.7, Kind.RECOMMENDATION: 0.1, Kind.MULTIMEDIA: 0.08, TWO_ENTITIES: 0.05, Kind.SMALLTALK: 0.07}

    def __init__(self, bundle: Bundle, titles: list[str], persons: list[str], seed: int = 0):
        self.rng = random.Random(seed)
        self.questions = QuestionGenerator(bundle, seed=seed)
        self.chains = [c for c in supported_chains(bundle) if c.start in ("film", "person")]
        self.titles = sorted(set(titles))
        self.persons = sorted(set(persons))
        self.vocabulary = sorted({w for t in self.titles[:5000] for w in words(t) if w.isalpha() and len(w) > 2})

    def title(self) -> str:
        if not self.titles or self.rng.random() < self.MADE_UP_TITLES:
            return made_up_title(self.rng, self.vocabulary)
        title = self.rng.choice(self.titles)
        if self.rng.random() < 0.1:
            title = decorate_title(self.rng, title, lambda: made_up_title(self.rng, self.vocabulary))
        return title

    def person(self) -> str:
        if not self.persons or self.rng.random() < self.MADE_UP_PERSONS:
            return made_up_person(self.rng)
        return self.rng.choice(self.persons)

    def template(self) -> str:
        kind = self.rng.choices(list(self.KIND_WEIGHTS), weights=list(self.KIND_WEIGHTS.values()))[0]
        if kind == Kind.FACTUAL and self.chains:
            chain = self.rng.choice(self.chains)
            slot = "{film}" if chain.start == "film" else "{person}"
            return re.sub(rf"\b{ENT}\b", slot, self.questions.question(chain, ENT))
        if kind == Kind.RECOMMENDATION:
            return self.rng.choice(RECOMMEND_TEMPLATES)
        if kind == Kind.MULTIMEDIA:
            return self.rng.choice(MULTIMEDIA_TEMPLATES)
        if kind == self.TWO_ENTITIES:
            return self.rng.choice(TWO_ENTITY_TEMPLATES)
        return self.rng.choice(SMALLTALK)

    def name(self, slot: str) -> tuple[str, str]:
        name, tag = (self.title(), TITLE) if slot == "film" else (self.person(), PERSON)
        roll = self.rng.random()
        if roll < 0.15:
            name = name.lower()
        elif roll < 0.27:
            name = typo(self.rng, name, self.rng.randint(1, 2))
        return name, tag

    def example(self) -> NerExample:
        parts = _SLOT.split(self.template())
        out: list[str] = []
        spans = []
        for i, part in enumerate(parts):
            if i % 2 == 0:
                out += words(part)
                continue
            name, tag = self.name(part)
            name_words = words(name)
            if name_words:
                spans.append((len(out), len(out) + len(name_words), tag))
                out += name_words
        roll = self.rng.random()
        if roll < 0.25:
            out = [w.lower() for w in out]
        elif roll < 0.6 and out:
            out[0] = out[0][:1].upper() + out[0][1:]
        if out and out[-1] not in "?.!" and self.rng.random() < 0.4:
            out.append("?")
        return NerExample(out, spans)

    def examples(self, n: int) -> list[NerExample]:
        return [self.example() for _ in range(n)]



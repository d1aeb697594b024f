"""The reader's training text: questions generated from the bundle's phrasings and the question shapes, augmented
the way people actually write, with the role of every word.

A question is a list of pieces, each with the role its words play:

    NAME  a title or a name ("Heat", "Michael Mann", "drama")
    ASK   the question itself: what is asked and about which films ("who composed the music for", "longer than")
    DESC  a description that says which film is meant ("the 1995 one", "Mann's", "with Al Pacino")
    CTX   everything that asks nothing: a story, a reason, a greeting, politeness, a hedge, a sign-off

Relation chains come from the bundle's phrasings (bot.understanding.questions, which also trains the chain
classifier); the other shapes, and the context, politeness, descriptions and chat spelling people wrap them in, from
augment.toml. Slots are filled with the KG's own titles, names, years and facts, so a description of a film is
true of it. Content words of the stories are random words of the KG's titles: the tagger has to learn a word's
role from where it stands and what surrounds it, not from the word.
"""

from __future__ import annotations

import random
import re
import tomllib
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from pathlib import Path

from bot.core.text import tokens
from bot.kg import queries
from bot.understanding.ner.sentences import made_up_person, made_up_title, typo
from bot.understanding.questions import ENT, QuestionGenerator, supported_chains

AUGMENT = Path(__file__).with_name("augment.toml")
_SLOT = re.compile(r"\{(\w+)\}")
SHAPES = ("chain", "comparison", "superlative", "count", "conditions", "yesno", "shared", "overview", "recommendation",
          "multimedia", "smalltalk", "fragment", "unsupported")
# how often each shape is generated: relation chains are most of what people ask
SHAPE_WEIGHTS = (0.40, 0.05, 0.06, 0.05, 0.07, 0.06, 0.03, 0.07, 0.07, 0.02, 0.03, 0.06, 0.03)


class Role(StrEnum):
    """What a word of a message does."""

    NAME = "name"
    ASK = "ask"
    DESC = "desc"
    CTX = "ctx"


@dataclass
class Piece:
    text: str
    role: Role
    slot: str = ""  # for names: the slot they fill ("film", "person", ...)
    label: str = ""  # for names: the KG label the typed name stands for


@dataclass
class Example:
    """One generated message: its pieces, and the augmentation styles that shaped it."""

    pieces: list[Piece]
    styles: list[str] = field(default_factory=list)
    gold: tuple[str, str] | None = None  # a relation chain's question: (chain code, the KG label of its topic)

    @property
    def text(self) -> str:
        return self._joined()[0]

    def _joined(self) -> tuple[str, list[tuple[int, int, Role]]]:
        """The message, and where each piece stands in it."""
        text, bounds = "", []
        for piece in self.pieces:
            if text and piece.text and not text.endswith((" ", "(", "\n")) and not piece.text.startswith((" ", ",", "?", "!", ".", ":", ";", ")", "\n")):
                text += " "
            bounds.append((len(text), len(text) + len(piece.text), piece.role))
            text += piece.text
        return text, bounds

    def roles(self) -> tuple[str, list[tuple[str, int, int]], list[Role]]:
        """The message, its tokens (bot.core.text.tokens) and the role of each."""
        text, bounds = self._joined()
        toks = tokens(text)
        return text, toks, [next((role for a, b, role in bounds if a <= start < b), Role.CTX) for _, start, _ in toks]


@cache
def augment_data() -> dict:
    with open(AUGMENT, "rb") as fh:
        return tomllib.load(fh)


@dataclass
class Film:
    title: str
    year: int | None
    directors: list[str]
    cast: list[str]
    genres: list[str]


class KgFacts:
    """What the generator fills slots with: titles with a few true facts, names, genres; read once from the KG."""

    def __init__(self, kg, limit: int = 4000):
        labels, bundle = kg.labels, kg.bundle
        by_film: dict[str, Film] = {}
        for i, group in enumerate(labels.groups):
            if group == "film" and len(by_film) < limit:
                iri = labels.iris[i]
                info = labels.info(iri)
                by_film[iri] = Film(labels.labels[i], info[3] if info else None, [], [], [])
        self.persons = sorted({labels.labels[i] for i, g in enumerate(labels.groups) if g == "person"})[:20000]
        self.genres = sorted({labels.labels[i] for i, g in enumerate(labels.groups) if g == "genre"})
        for rel in bundle.relations.values():
            if rel.derived or not rel.is_entity or rel.value_class not in ("person", "genre"):
                continue
            noun = (rel.noun + " " + " ".join(rel.cues)).lower()
            target = "directors" if "direct" in noun else "cast" if "cast" in noun or "actor" in noun else "genres" if rel.value_class == "genre" else None
            if target is None:
                continue
            film_side, value_side = ("?s", "?o") if rel.direction == "forward" else ("?o", "?s")
            query = (f"SELECT ({film_side} AS ?film) ({value_side} AS ?value) WHERE {{ ?s {queries.relation_path(rel)} ?o }} "
                     f"LIMIT {limit * 8}")
            for row in kg.graph.select(query):
                film = by_film.get(row["film"].value)
                value = labels.label_of(row["value"].value) if row.get("value") is not None else None
                if film is not None and value:
                    getattr(film, target).append(value)
        # words of titles that are no name themselves: what a story's content words are drawn from
        words = {w for f in by_film.values() for w, _, _ in tokens(f.title) if w.isalpha() and len(w) > 3 and not labels.lookup_any(w)}
        self._set(list(by_film.values()), self.persons, self.genres, sorted(words))

    def _set(self, films: list[Film], persons: list[str], genres: list[str], words: list[str]) -> None:
        self.films, self.persons, self.genres, self.words = films, persons, genres, words or ["thing"]
        self.by_title = {f.title: f for f in films}

    @classmethod
    def of(cls, films: list[Film], persons: list[str], genres: list[str], words: list[str]) -> KgFacts:
        """Facts given directly (tests, and KGs read some other way)."""
        facts = cls.__new__(cls)
        facts._set(films, persons, genres, words)
        return facts


class Generator:
    """Labelled questions of every shape (bot.understanding.reader.augment wraps and varies them)."""

    def __init__(self, bundle, facts: KgFacts, seed: int = 0):
        self.rng = random.Random(seed)
        self.facts = facts
        self.questions = QuestionGenerator(bundle, seed=seed)
        self.chains = [c for c in supported_chains(bundle) if c.start in ("film", "person", "genre")]
        self.relations = [r for r in bundle.relations.values() if not r.derived]
        self.data = augment_data()

    # --- slots -----------------------------------------------------------------------------

    def film(self) -> Film:
        return self.rng.choice(self.facts.films)

    def fill(self, slot: str, film: Film | None = None) -> tuple[str, Role, str]:
        """(the slot's text as typed, its role, the KG label it stands for)."""
        rng = self.rng
        if slot == "film":
            title = (film or self.film()).title
            return self.as_typed(title, film is None), Role.NAME, title
        if slot == "person":
            name = rng.choice(self.facts.persons)
            return self.as_typed(name, True, person=True), Role.NAME, name
        if slot == "genre":
            genre = rng.choice(self.facts.genres) if self.facts.genres else "drama"
            return re.sub(r"\s+film$", "", genre), Role.NAME, genre
        if slot == "year":
            return str(rng.randint(1930, 2024)), Role.ASK, ""
        if slot == "decade":
            return rng.choice(("80s", "1990s", "the 70s", "2000s", "60s")), Role.ASK, ""
        if slot == "number":
            return str(rng.choice((90, 100, 120, 150, 180))), Role.ASK, ""
        if slot == "word":
            return rng.choice(self.facts.words), Role.CTX, ""
        raise KeyError(slot)

    def as_typed(self, name: str, replaceable: bool, person: bool = False) -> str:
        """A name as people type it: often exact, else misspelt, shortened, lower-cased or one the KG lacks
        (so the tagger learns a name from where it stands, not only from the label index)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.12 and replaceable:
            return made_up_person(rng) if person else made_up_title(rng, self.facts.words)
        if roll < 0.32:
            return typo(rng, name, rng.randint(1, 2))
        if roll < 0.42:
            words = name.split()
            if person and len(words) > 1:
                return words[-1] if rng.random() < 0.7 else words[0]  # "Nolan", "Keanu"
            if ":" in name:
                return name.split(":")[0]  # a title without its subtitle
            if len(words) > 2 and words[0].lower() == "the":
                return " ".join(words[1:])
        return name

    def template(self, text: str, role: Role = Role.ASK) -> list[Piece]:
        """A template's words as `role`, its slots filled (names as NAME)."""
        pieces: list[Piece] = []
        parts = _SLOT.split(text)
        for n, part in enumerate(parts):
            if n % 2 == 0:
                if part.strip():
                    pieces.append(Piece(part.strip(), role))
                continue
            value, slot_role, label = self.fill(part)
            pieces.append(Piece(value, slot_role if role is Role.ASK or slot_role is Role.NAME else role, part, label))
        return pieces

    # --- questions -----------------------------------------------------------------------------

    def question(self) -> Example:
        shape = self.rng.choices(SHAPES, weights=SHAPE_WEIGHTS)[0]
        if shape == "chain":
            chain = self.rng.choice(self.chains)
            text = self.questions.question(chain, ENT)
            slot = "film" if chain.start == "film" else chain.start
            pieces = self.template(text.replace(ENT, "{" + slot + "}"))
            topic = next((p.label for p in pieces if p.role is Role.NAME), "")
            return Example(pieces, [shape], (chain.code, topic))
        elif shape == "fragment":
            rel = self.rng.choice(self.relations)
            verb = self.rng.choice([w for w in rel.cues if w.endswith("ed")] or ["made"])
            text = self.rng.choice(self.data["questions"]["fragments"]).replace("{noun}", self.rng.choice((rel.noun, *rel.synonyms)))
            pieces = self.template(text.replace("{verb}", verb))
        else:
            pieces = self.template(self.rng.choice(self.data["questions"][shape]), Role.CTX if shape == "smalltalk" else Role.ASK)
        return Example(pieces, [shape])

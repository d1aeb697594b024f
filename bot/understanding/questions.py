"""Questions generated from a bundle's relation phrasings.

They train the relation-chain classifier (and the NER model): every chain the
answering templates support gets questions composed from the phrasings, e.g.
asks(genre) o films(written_by) -> "what genres are the films written by ENT".
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.core.contracts import Hop, chain_code
from bot.kg.bundle import Bundle, Relation

ENT = "ENT"  # placeholder for the topic entity in classifier training text
FILM_SLOTS = ("{e}", "{e}", "{e}", "the movie {e}", "the film {e}", "movie {e}", "film {e}")
VALUE_SLOTS = ("{e}", "{e}", "{e}", "the {noun} {e}")
GENERIC_FILMS = ("the films of {value}", "{value}'s films", "the movies by {value}", "films for {value}", "the movies {value} worked on")
FILM_LIST_FRAMES = ("what are {np}", "which are {np}", "list {np}", "name {np}", "show me {np}", "{np}", "what are some of {np}", "tell me {np}")
SHARE_FRAMES = (
    "the films that share {plural} with {film}", "the movies that share {plural} with {film}",
    "the films with the same {noun} as {film}", "movies with the same {noun} as {film}",
    "the films that have the same {noun} as {film}", "the movies which share the same {noun} of {film}",
    "the films that share the same {noun} of {film}", "the other films of the {noun} of {film}",
    "the films whose {plural} also worked on {film}", "the movies whose {plural} also appear in {film}",
    "the films whose {noun} also made {film}",
)
SHARE_QUESTIONS = (
    "which films share the same {noun} of {film}", "which movies have the same {noun} as {film}",
    "what other films share {plural} with {film}", "which movies share {plural} with {film}",
    "what are the films that have the same {noun} as {film}",
)
# a value's noun typed as the whole question ("heat director", "frozen exec producer?", "alien writers"): some of every
# relation's questions are asked this way
TERSE_ASKS = ("{film} {noun}", "{film} {noun}?", "{film} {plural}", "{noun} {film}")
TERSE_SHARE = 0.08
VALUE_NPS = ("the {noun} of {film}", "{film}'s {noun}", "the {plural} of {film}", "{film} {plural}", "the {film} {noun}")
# the people someone has worked with, asked without naming the shared films ("which directors has X worked with")
WORKED_WITH = (
    "which {plural} has {value} worked with", "which {plural} did {value} work with", "who are the {plural} {value} has worked with",
    "what {plural} has {value} worked with", "{plural} who worked with {value}", "with which {plural} has {value} worked",
    "which {plural} has {value} made films with", "who are the {plural} that worked with {value}",
)
# people named by the people of their films ("the directors that the actors in their movies also appear in X"):
# {plural} asked for, {via} the shared people, {film} the topic
THROUGH_PEOPLE = (
    "who are the {plural} that the {via} in their films also appear in {film}",
    "who are the {plural} that the {via} in their movies also appear in the movie {film}",
    "which {plural} made films whose {via} also appear in {film}",
)
# the kinds of film someone makes ("what kind of movies does X make")
WORKS_IN = (
    "what kind of movies does {value} make", "what kind of films does {value} make", "what genres does {value} work in",
    "what kinds of films has {value} done", "what type of movies is {value} in", "what genres of films has {value} been in",
)


@dataclass(frozen=True)
class Chain:
    """A relation path the answering templates can execute, with the group of its topic entity."""

    hops: tuple[Hop, ...]
    start: str  # class group of the topic entity

    @property
    def code(self) -> str:
        return chain_code(self.hops)


def supported_chains(bundle: Bundle) -> list[Chain]:
    """1-hop both ways; and, bridging through people (who connect films), value->film->value,
    film->value->film and film->value->film->value."""
    rels = list(bundle.relations.values())
    entity_rels = [r for r in rels if r.is_entity]
    people = [r for r in entity_rels if r.value_class == "person"]
    chains = [Chain((Hop(r.name, True),), "film") for r in rels]
    chains += [Chain((Hop(r.name, False),), r.value_class) for r in entity_rels]
    chains += [Chain((Hop(r1.name, False), Hop(r2.name, True)), r1.value_class) for r1 in people for r2 in rels]
    chains += [Chain((Hop(r.name, True), Hop(r.name, False)), "film") for r in people]
    chains += [Chain((Hop(r1.name, True), Hop(r1.name, False), Hop(r2.name, True)), "film") for r1 in people for r2 in rels]
    return chains


class QuestionGenerator:
    """Composes natural-ish questions for a chain from the bundle's phrasings."""

    def __init__(self, bundle: Bundle, seed: int = 0):
        self.bundle = bundle
        self.rng = random.Random(seed)

    def _pick(self, options):
        return self.rng.choice(options)

    def film_ref(self, entity: str) -> str:
        return self._pick(FILM_SLOTS).format(e=entity)

    def nouns(self, rel: Relation) -> tuple[str, str]:
        """A (singular, plural) noun for the relation's value, synonyms included."""
        noun = self._pick((rel.noun, *rel.synonyms))
        return noun, (rel.plural if noun == rel.noun else noun + "s")

    def value_np(self, rel: Relation, film: str) -> str:
        noun, plural = self.nouns(rel)
        return self._pick(VALUE_NPS).format(noun=noun, plural=plural, film=film)

    def value_ref(self, rel: Relation, entity: str) -> str:
        return self._pick(VALUE_SLOTS).format(e=entity, noun=self.nouns(rel)[0])

    def films_np(self, rel: Relation, value: str) -> str:
        if rel.is_entity and self.rng.random() < 0.15:
            return self._pick(GENERIC_FILMS).format(value=value, noun=self.nouns(rel)[0])
        return self._pick(rel.films).replace("{value}", value)

    def share_np(self, rel: Relation, film: str) -> str:
        if self.rng.random() < 0.5:
            noun, plural = self.nouns(rel)
            return self._pick(SHARE_FRAMES).format(noun=noun, plural=plural, film=film)
        return self.films_np(rel, self.value_np(rel, film))

    def ask(self, rel: Relation, film_np: str) -> str:
        if self.rng.random() < TERSE_SHARE:
            noun, plural = self.nouns(rel)
            return self._pick(TERSE_ASKS).format(noun=noun, plural=plural, film=film_np)
        return self._pick(rel.asks).replace("{film}", film_np)

    def find(self, rel: Relation, value: str) -> str:
        if rel.finds and self.rng.random() < 0.6:
            return self._pick(rel.finds).replace("{value}", value)
        return self._pick(FILM_LIST_FRAMES).format(np=self.films_np(rel, value))

    def question(self, chain: Chain, entity: str = ENT) -> str:
        rel = [self.bundle.relations[h.relation] for h in chain.hops]
        pattern = tuple(h.to_value for h in chain.hops)
        if pattern == (True,):
            return self.ask(rel[0], self.film_ref(entity))
        if pattern == (False,):
            return self.find(rel[0], self.value_ref(rel[0], entity))
        if pattern == (False, True):
            value = self.value_ref(rel[0], entity)
            if rel[0] is rel[1] and self.rng.random() < 0.5:
                return self._pick(rel[0].peers).replace("{value}", value)
            if rel[0] is not rel[1] and rel[1].value_class == "person" and self.rng.random() < 0.25:
                return self._pick(WORKED_WITH).format(plural=self.nouns(rel[1])[1], value=value)
            if rel[1].value_class == "genre" and self.rng.random() < 0.25:
                return self._pick(WORKS_IN).format(value=value)
            return self.ask(rel[1], self.films_np(rel[0], value))
        if pattern == (True, False):
            film = self.film_ref(entity)
            roll = self.rng.random()
            if roll < 0.3:
                noun, plural = self.nouns(rel[0])
                return self._pick(SHARE_QUESTIONS).format(noun=noun, plural=plural, film=film)
            if roll < 0.6:
                return self.find(rel[0], self.value_np(rel[0], film))
            return self._pick(FILM_LIST_FRAMES).format(np=self.share_np(rel[0], film))
        if pattern == (True, False, True):
            if rel[0].value_class == "person" and rel[2].value_class == "person" and rel[0] is not rel[2] and self.rng.random() < 0.3:
                return self._pick(THROUGH_PEOPLE).format(plural=self.nouns(rel[2])[1], via=self.nouns(rel[0])[1],
                                                         film=self.film_ref(entity))
            return self.ask(rel[2], self.share_np(rel[0], self.film_ref(entity)))
        raise ValueError(f"unsupported chain {chain.code}")

    def dataset(self, per_chain: int) -> tuple[list[str], list[str]]:
        """(texts, chain codes) with `per_chain` questions for every supported chain."""
        texts, labels = [], []
        for chain in supported_chains(self.bundle):
            seen = set()
            for _ in range(per_chain * 3):
                q = self.question(chain)
                if q in seen:
                    continue
                seen.add(q)
                texts.append(q)
                labels.append(chain.code)
                if len(seen) >= per_chain:
                    break
        return texts, labels

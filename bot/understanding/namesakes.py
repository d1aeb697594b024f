"""Films that share a title, told apart by the question: a year ("Hamlet 1996"), "the original" / "the remake", a person
named with it ("Olivier's Hamlet", "the Halloween with Donald Pleasence") or the exact spelling ("Up" / "Up!"); and a
description beside a title ("the 1978 Carpenter one", "w <actor>"), which picks the film it fits, confirms a film that
has no namesake, or asks for a film the graph does not have (bot.understanding.reader.descriptions)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache

from bot.core.terms import Group
from bot.core.text import YEAR
from bot.kg import queries
from bot.kg.graph import KG
from bot.understanding.constructions.fact import Candidate
from bot.understanding.mentions import Span
from bot.understanding.names import NameFinder
from bot.understanding.reader import context_of, description_of
from bot.understanding.reader.descriptions import ORDER_WORDS, FilmOption, check, read_description
from bot.understanding.vocabulary import word_set

# the words of a description that claims nothing about the film ("the dark knight one")
CLAIMLESS = frozenset({"the", "a", "one", "version", "film", "movie", "that", "this"})
ORIGINAL_WORDS = word_set("original_words")
REMAKE_WORDS = word_set("remake_words")
POLITENESS = word_set("politeness")  # words between a title and its description that ask nothing ("..., please, the 1992 one")


class NamesakeChoice:
    """Chooses among a reading's namesake films by the clause's other words."""

    def __init__(self, kg: KG, names: NameFinder, explain: Callable):
        self.kg = kg
        self.names = names
        self.explain = explain  # (toks, a, b, candidate, entity) -> Explanation: the chosen film's reading is checked again
        # the graph is read-only, so these answers never go stale
        self.films_linked = lru_cache(maxsize=1024)(self._films_linked)
        self.genres_of = lru_cache(maxsize=1024)(self._genres_of)
        self.genre = next((name for name, rel in kg.bundle.relations.items() if rel.value_class == Group.GENRE and rel.direction == "forward"), "")

    def choose(self, best: Candidate, text: str, toks, clause_spans: list[Span], a: int, b: int) -> Candidate:
        """Films that share a title are told apart by a year, by 'the original' / 'the remake', or by a person
        the question names with it ("Olivier's Hamlet", "the Halloween with Donald Pleasence")."""
        entity = best.entity
        if best.span is None or entity is None or entity.group != Group.FILM or not entity.alternatives:
            return best
        films = [{"iri": entity.iri, "label": entity.label, "year": entity.year}] + [
            alt for alt in entity.alternatives if alt.get("group") == Group.FILM and alt.get("year")]
        if len(films) < 2 or not entity.year:
            return best
        years = {int(y) for y in YEAR.findall(text)}
        content = [toks[k][0] for k in range(a, b) if not best.span.tok_start <= k < best.span.tok_end]
        chosen, by, used = None, "", set()
        dated = [f for f in films if f["year"] in years]
        if dated:
            if dated[0]["iri"] == entity.iri:
                return replace(best, entity=replace(entity, selected_by="year"))
            chosen, by = dated[0], "year"
        elif set(content) & ORIGINAL_WORDS:
            chosen, by = min(films, key=lambda f: f["year"]), "original"
            used = {k for k in range(a, b) if toks[k][0] in ORIGINAL_WORDS}
        elif set(content) & REMAKE_WORDS:
            chosen, by = max(films, key=lambda f: f["year"]), "newest"
            used = {k for k in range(a, b) if toks[k][0] in REMAKE_WORDS}
        else:
            for span in clause_spans:
                if span is best.span or span.tok_start < best.span.tok_end and best.span.tok_start < span.tok_end:
                    continue
                person = self.names.link(text, span, Group.PERSON, [])
                if person is None:
                    continue
                with_person = self.films_linked(tuple(f["iri"] for f in films), person.iri)
                linked = [f for f in films if f["iri"] in with_person]
                if len(linked) == 1:
                    chosen, by, used = linked[0], "person", set(range(span.tok_start, span.tok_end))
                    break
        if chosen is None:
            chosen = self._spelled_exactly(text, toks, best.span, films)
            by = "spelling"
        if chosen is None:
            return best
        others = [alt for alt in [{"iri": entity.iri, "label": entity.label, "year": entity.year, "degree": None, "group": "film"},
                                  *entity.alternatives] if alt["iri"] != chosen["iri"]]
        picked = replace(entity, iri=chosen["iri"], label=chosen["label"], year=chosen["year"], alternatives=others, selected_by=by)
        candidate = replace(best, entity=picked, selectors=best.selectors | frozenset(used))
        candidate.explanation = self.explain(toks, a, b, candidate, picked)
        return candidate

    def described(self, best: Candidate, text: str, toks, clause_spans: list[Span], a: int, b: int) -> Candidate:
        """A description beside the film, as the reader marked it (or a person's name with "'s" right before the title),
        picks the film it fits among namesakes or confirms the one film of that title; its words are then accounted
        for. A description that fits none of the films makes the reading ask for the film it describes, which the graph
        does not have (`Candidate.contradicted`): it is said, never ignored."""
        entity, span = best.entity, best.span
        if span is None or entity is None or entity.group != Group.FILM:
            return best
        marked = description_of(toks) | self._possessor(text, toks, span, clause_spans, a)
        asking_nothing = context_of(toks) | frozenset(k for k in range(a, b) if toks[k][0] in POLITENESS)
        positions = _beside(marked, span.tok_start, span.tok_end, a, b, asking_nothing - marked)
        if any(k < span.tok_start and self.names.lexicon.is_cue(toks[k][0]) and toks[k][0] not in ORDER_WORDS for k in positions):
            # a description before a title is a possessive, a year or a word ("Branagh's", "the 1996", "the Zeffirelli");
            # "spielberg directed alien" is a claim about the film, not which film
            positions = frozenset(k for k in positions if k > span.tok_start)
        if not positions:
            return best
        people, kinds = [], []
        for other in clause_spans:
            if other.tok_start in positions and other.tok_end - 1 in positions:
                for group, found in ((Group.PERSON, people), (Group.GENRE, kinds)):
                    linked = self.names.link(text, other, group, [])
                    if linked is not None:
                        found.append((other.tok_start, other.tok_end, linked.iri, linked.label))
        description = read_description(text, toks, positions, people, kinds)
        if not description.says_anything and not all(toks[k][0] in CLAIMLESS for k in positions):
            return best  # words the tagger took for a description that claim nothing checkable: the reading explains them
        if description.says_anything:
            films = [FilmOption(entity.iri, entity.label, entity.year)] + [
                FilmOption(alt["iri"], alt["label"], alt.get("year")) for alt in entity.alternatives if alt.get("group") == Group.FILM]
            fits = check(description, films, self.films_linked, self.genres_of).fits
            if not fits:
                return replace(best, contradicted=description.film_described(entity.label))
            chosen = next((f for f in fits if f.iri == entity.iri), fits[0])
            if chosen.iri != entity.iri:
                others = [alt for alt in [{"iri": entity.iri, "label": entity.label, "year": entity.year, "degree": None, "group": "film"},
                                          *entity.alternatives] if alt["iri"] != chosen.iri]
                entity = replace(entity, iri=chosen.iri, label=chosen.label, year=chosen.year, alternatives=others)
            if len(fits) == 1:
                entity = replace(entity, selected_by="description")
        candidate = replace(best, entity=entity, selectors=best.selectors | positions)
        if candidate.chain:  # (an overview's name has no chain to account for the words)
            candidate.explanation = self.explain(toks, a, b, candidate, entity)
        return candidate

    def _possessor(self, text: str, toks, span: Span, clause_spans: list[Span], a: int) -> frozenset[int]:
        """The tokens of a person's name with "'s" right before a title ("Edward Berger's All Quiet ..."): whose film it is,
        a description (checked like any other) even where the tagger took it for part of the title."""
        k = span.tok_start - 1
        if k >= a and {"'", "’"} & set(text[toks[k][2] : span.start]):  # a plural's "'" ("the Coens' Fargo")
            for other in clause_spans:
                if other.tok_end == k + 1 and self.names.link(text, other, Group.PERSON, []) is not None:
                    return frozenset(range(other.tok_start, k + 1))
        if k <= a or toks[k][0] != "s" or not {"'", "’"} & set(text[toks[k - 1][2] : toks[k][1]]):
            return frozenset()
        for other in clause_spans:
            if other.tok_end == k and self.names.link(text, other, Group.PERSON, []) is not None:
                return frozenset(range(other.tok_start, k + 1))
        return frozenset()

    def _genres_of(self, film: str) -> frozenset[str]:
        """The genres of a film (cached in __init__)."""
        if not self.genre:
            return frozenset()
        rows = self.kg.graph.select(queries.values_of(film, self.kg.bundle.relations[self.genre].property))
        return frozenset(r["value"].value for r in rows if r.get("value") is not None)

    def _films_linked(self, films: tuple[str, ...], person: str) -> frozenset[str]:
        """Those of `films` that `person` is linked to (cached in __init__: the clause's best readings often share
        their film and ask again)."""
        rows = self.kg.graph.select(queries.films_linked_to(list(films), person))
        return frozenset(r["film"].value for r in rows if r.get("film") is not None)

    @staticmethod
    def _spelled_exactly(text: str, toks, span: Span, films: list[dict]) -> dict | None:
        """The one namesake whose title is exactly what was typed ("Up" rather than "Up!", "Brüno" rather
        than "Bruno"); none when the spelling does not tell them apart."""
        start, end = toks[span.tok_start][1], toks[span.tok_end - 1][2]
        if len({f["label"] for f in films}) < 2:
            return None
        for typed in (text[start:end + 1], text[start:end]):  # with a trailing "!" first
            for same in (str, str.casefold):  # "LUV" rather than "Luv"; then regardless of case
                exact = [f for f in films if same(f["label"]) == same(typed)]
                if len(exact) == 1:
                    return exact[0]
        return None


def _beside(marked: frozenset[int], start: int, end: int, a: int, b: int, between: frozenset[int] = frozenset()) -> frozenset[int]:
    """The marked tokens that touch the name at tokens start..end (right after or right before it, within the clause);
    after it, words that ask nothing (`between`: "Paris, Texas, please, the Wenders one") may stand between."""
    found = set()
    k = end
    while k < b and k in between and k + 1 < b and k + 1 in marked | between:
        k += 1
    while k < b and k in marked:
        found.add(k)
        k += 1
    k = start - 1
    while k >= a and k in marked:
        found.add(k)
        k -= 1
    return frozenset(found)

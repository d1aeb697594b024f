"""Films that share a title, told apart by the question: a year ("Hamlet 1996"), "the original" / "the remake", a person
named with it ("Olivier's Hamlet", "the Halloween with Donald Pleasence") or the exact spelling ("Up" / "Up!")."""

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
from bot.understanding.vocabulary import word_set

ORIGINAL_WORDS = word_set("original_words")
REMAKE_WORDS = word_set("remake_words")


class NamesakeChoice:
    """Chooses among a reading's namesake films by the clause's other words."""

    def __init__(self, kg: KG, names: NameFinder, explain: Callable):
        self.kg = kg
        self.names = names
        self.explain = explain  # (toks, a, b, candidate, entity) -> Explanation: the chosen film's reading is checked again
        # the graph is read-only, so these answers never go stale
        self.films_linked = lru_cache(maxsize=1024)(self._films_linked)

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

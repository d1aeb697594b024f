"""Films named by their place in a series: "the first Harry Potter film", "the third Alien movie", "the latest
Shrek one".

The KG's series relation (a bundle relation whose values are of the class group "series", e.g. Wikidata P179)
gives the members; their order is their release order in the graph. An ordinal phrase becomes one span naming
the film, so every other reading (relations, compositions, dialogue) works on the film itself. When the graph
holds fewer films of the series than the ordinal asks for, the phrase is not guessed at: `shortfall` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.text import Token, normalize
from bot.kg import queries
from bot.understanding.lexicon import FILM_WORDS
from bot.understanding.mentions import Span

ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5,
    "sixth": 6, "6th": 6, "seventh": 7, "7th": 7, "eighth": 8, "8th": 8, "ninth": 9, "9th": 9, "tenth": 10, "10th": 10,
    "last": -1, "latest": -1, "newest": -1, "original": 1,
}
ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth",
                 9: "ninth", 10: "tenth", -1: "latest"}
ENTRY_WORDS = FILM_WORDS | {"one", "installment", "instalment", "entry", "part", "episode", "chapter"}


@dataclass(frozen=True)
class OrdinalPhrase:
    """An ordinal, a series name and (optionally) a film word: tokens start..end."""

    start: int
    end: int
    ordinal: int
    series: int  # label-index id of the series
    span: Span  # the series name's span


class SeriesOrdinals:
    """Reads ordinal phrases against one KG's series relation (none: the KG has no series, nothing happens)."""

    def __init__(self, kg):
        self.kg = kg
        self.relation = next((r for r in kg.bundle.relations.values() if r.value_class == "series"), None)

    def phrases(self, toks: list[Token], spans: list[Span]) -> list[OrdinalPhrase]:
        if self.relation is None:
            return []
        groups = self.kg.labels.groups
        found = []
        for k, (word, _, _) in enumerate(toks):
            ordinal = ORDINALS.get(word)
            if ordinal is None:
                continue
            for span in spans:
                if span.tok_start != k + 1:
                    continue
                series = [i for i in span.ids if groups[i] == "series"]
                if not series:
                    continue
                end = span.tok_end
                if end < len(toks) and toks[end][0] in ENTRY_WORDS:
                    end += 1
                elif any(groups[i] == "film" for i in span.ids):
                    continue  # "the first Alien": maybe the film Alien; "the first Alien film" is the series
                found.append(OrdinalPhrase(k, end, ordinal, series[0], span))
                break
        return found

    def members(self, series: int) -> list[int]:
        """The series' films in the graph, in release order (undated ones last)."""
        labels = self.kg.labels
        rows = self.kg.graph.select(queries.films_with_value(self.kg.bundle, self.relation.name, labels.iris[series]))
        films = []
        for row in rows:
            node = row.get("film")
            idx = labels.by_iri.get(node.value) if node is not None else None
            if idx is not None and idx not in films:
                films.append(idx)
        return sorted(films, key=lambda i: (labels.info(labels.iris[i])[3] or 10_000, labels.labels[i]))

    def resolve(self, text: str, toks: list[Token], spans: list[Span]) -> list[Span]:
        """`spans` with each resolvable ordinal phrase replaced by a span of the film it names."""
        for phrase in self.phrases(toks, spans):
            films = self.members(phrase.series)
            if phrase.ordinal > len(films) or not films:
                continue
            film = films[phrase.ordinal - 1] if phrase.ordinal > 0 else films[-1]
            named = Span(phrase.start, phrase.end, toks[phrase.start][1], toks[phrase.end - 1][2],
                         normalize(self.kg.labels.labels[film]), [film], 100.0, "series", "film")
            spans = [s for s in spans if s.tok_end <= phrase.start or s.tok_start >= phrase.end] + [named]
        return spans

    def shortfall(self, toks: list[Token], spans: list[Span]) -> tuple[int, str] | None:
        """(series id, what is missing) for an ordinal phrase the graph cannot fill ("a third film of the
        Harry Potter series: my knowledge graph has 2")."""
        for phrase in self.phrases(toks, spans):
            films = self.members(phrase.series)
            if phrase.ordinal > len(films):
                label = self.kg.labels.labels[phrase.series]
                have = ", ".join(self.kg.labels.labels[f] for f in films) or "none"
                return phrase.series, (f"a {ORDINAL_WORDS[phrase.ordinal]} film of the {label} series "
                                       f"(it has {len(films)}: {have})")
        return None

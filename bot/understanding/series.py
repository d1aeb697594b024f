"""Films named by their place in a series: "the first Harry Potter film", "the third Alien movie", "the latest
Shrek one", and by a number after a name several films share: "lotr 2" (the second "The Lord of the Rings: ..." film),
"avatar 2".

The KG's series relation (a bundle relation whose values are of the class group "series", e.g. Wikidata P179)
gives the members; their order is their release order in the graph. An ordinal phrase becomes one span naming
the film, so every other reading (relations, compositions, dialogue) works on the film itself. When the graph
holds fewer films of the series than the ordinal asks for, or films titled like the series that it leaves out would
change the pick, the phrase is not guessed at: `shortfall` says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.terms import Group
from bot.core.text import Token, join_labels, normalize
from bot.kg import queries
from bot.understanding.lexicon import FILM_WORDS
from bot.understanding.mentions import Span

ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5,
    "sixth": 6, "6th": 6, "seventh": 7, "7th": 7, "eighth": 8, "8th": 8, "ninth": 9, "9th": 9, "tenth": 10, "10th": 10,
    "last": -1, "latest": -1, "newest": -1, "original": 1, "earliest": 1, "oldest": 1,
}
ORDINAL_WORDS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth",
                 9: "ninth", 10: "tenth", -1: "latest"}
ENTRY_WORDS = FILM_WORDS | {"one", "installment", "instalment", "entry", "part", "episode", "chapter"}
NUMBERED = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "ii": 2, "iii": 3, "iv": 4, "vi": 6}  # "lotr 2", "lotr ii" ("I" is a pronoun)
NUMBER_NAMES = {2: ("2", "ii", "two"), 3: ("3", "iii", "three"), 4: ("4", "iv", "four"), 5: ("5", "v", "five"), 6: ("6", "vi", "six")}


@dataclass(frozen=True)
class OrdinalPhrase:
    """An ordinal, a series name and (optionally) a film word: tokens start..end."""

    start: int
    end: int
    ordinal: int
    series: int | None  # label-index id of the series; None: a film title with a film word ("the second Toy Story movie")
    span: Span  # the series name's span
    numbered: bool = False  # a number after a name several films share ("lotr 2"): the nth of those films


class SeriesOrdinals:
    """Reads ordinal phrases against one KG's series relation (none: the KG has no series, nothing happens)."""

    def __init__(self, kg):
        self.kg = kg
        self.relation = next((r for r in kg.bundle.relations.values() if r.value_class == Group.SERIES), None)

    def phrases(self, toks: list[Token], spans: list[Span]) -> list[OrdinalPhrase]:
        if self.relation is None:
            return []
        groups = self.kg.labels.groups
        found = []
        for k, (word, _, _) in enumerate(toks):
            ordinal, start = ORDINALS.get(word), k
            if word == "recent" and k > 0 and toks[k - 1][0] == "most":
                ordinal, start = -1, k - 1  # "the most recent Star Wars film"
            if ordinal is None:
                continue
            for span in spans:
                if span.tok_start != k + 1:
                    continue
                series = [i for i in span.ids if groups[i] == Group.SERIES]
                end = span.tok_end
                entry = end < len(toks) and toks[end][0] in ENTRY_WORDS
                film = any(groups[i] == Group.FILM for i in span.ids)
                # "the first Alien": maybe the film Alien; "the first Alien film" and "the third Alien" are the series
                if series and (entry or not film or ordinal > 1):
                    found.append(OrdinalPhrase(start, end + entry, ordinal, series[0], span))
                    break
                if not series and film and (entry or ordinal > 1):  # "the 3rd Toy Story": no title starts so, it counts films
                    found.append(OrdinalPhrase(start, end + entry, ordinal, None, span))
                    break
        return found + self._numbered_names(toks, spans, found)

    def _numbered_names(self, toks: list[Token], spans: list[Span], taken: list[OrdinalPhrase]) -> list[OrdinalPhrase]:
        """A sequel number right after a name that several films share and no title with that number has ("lotr 2",
        "avatar 2"): the nth of them. ("toy story 2" is a title of its own, and its span is longer.)"""
        groups = self.kg.labels.groups
        found = []
        for span in spans:
            k = span.tok_end
            if k >= len(toks) or any(p.start <= span.tok_start < p.end for p in taken):
                continue
            number = NUMBERED.get(toks[k][0])
            films = [i for i in span.ids if groups[i] == Group.FILM]
            if number is None or len(films) < 2 or any(s.tok_start <= span.tok_start and k < s.tok_end for s in spans):
                continue
            if toks[k - 1][2] < toks[k][1] and toks[k - 1][2] != toks[k][1] - 1:
                continue  # only a space between the name and its number ("lotr 2", not "lotr? 2 of them")
            found.append(OrdinalPhrase(span.tok_start, k + 1, number, None, span, numbered=True))
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
        return self._in_release_order(films)

    def _in_release_order(self, films: list[int]) -> list[int]:
        labels = self.kg.labels
        return sorted(films, key=lambda i: (labels.info(labels.iris[i])[3] or 10_000, labels.labels[i]))

    def _titled_alike(self, name: str, members: list[int]) -> list[int]:
        """Films whose title starts with `name` but that are not among `members` ("Star Wars: Episode IV – A New Hope"
        when the graph's Star Wars series holds only The Force Awakens)."""
        labels = self.kg.labels
        return [i for i in labels.starting_with(normalize(name) + " ") if labels.groups[i] == Group.FILM and i not in members]

    def _choice(self, phrase: OrdinalPhrase) -> tuple[int | None, str]:
        """(the film the phrase names, "") or (None, what the graph cannot tell). An ordinal is only answered when the
        films titled like the series but left out of it would not change the pick: a graph that lists only the
        newest Star Wars film in its Star Wars series would otherwise call it the first."""
        if phrase.numbered:
            films = self._in_release_order([i for i in phrase.span.ids if self.kg.labels.groups[i] == Group.FILM])
            return (films[phrase.ordinal - 1], "") if phrase.ordinal <= len(films) else (None, "")
        if phrase.series is None:
            return self._numbered(phrase)
        labels = self.kg.labels
        films = self.members(phrase.series)
        label, word = labels.labels[phrase.series], ORDINAL_WORDS[phrase.ordinal]
        have = join_labels([labels.labels[f] for f in films]) or "none"
        if phrase.ordinal > len(films):
            return None, f"a {word} film of the {label} series (it has {len(films)}: {have})"
        film = films[phrase.ordinal - 1] if phrase.ordinal > 0 else films[-1]
        if outside := self._titled_alike(labels.labels[phrase.series], films):
            every = self._in_release_order(films + outside)
            if (every[phrase.ordinal - 1] if phrase.ordinal > 0 else every[-1]) != film:
                return None, (f"which film is the {word} of the {label} series (the series lists {have}; "
                              f"{join_labels([labels.labels[f] for f in outside], limit=3)} {'is' if len(outside) == 1 else 'are'} not in it)")
        return film, ""

    def _numbered(self, phrase: OrdinalPhrase) -> tuple[int | None, str]:
        """An ordinal before a film title that names no series ("the second Toy Story movie"): the film numbered so
        ("Toy Story 2", "... Part II", "... Part Two"), or for "first" the title itself when no film titled like it is
        older. Release order among titles that merely start alike ("Batman", "Batman Begins") is not trusted."""
        labels = self.kg.labels
        named = [i for i in phrase.span.ids if labels.groups[i] == Group.FILM]
        title = labels.labels[named[0]]
        family = self._in_release_order(named + self._titled_alike(title, named))
        if phrase.ordinal == 1 and family and family[0] in named:
            return family[0], ""
        norm = normalize(title)
        wanted = {f"{norm} {n}" for n in NUMBER_NAMES.get(phrase.ordinal, ())} | {f"{norm} part {n}" for n in NUMBER_NAMES.get(phrase.ordinal, ())}
        numbered = [i for i in family if normalize(labels.labels[i]) in wanted]
        if len(numbered) == 1:
            return numbered[0], ""
        return None, f"which film is the {ORDINAL_WORDS[phrase.ordinal]} {title} film (it has no {title} series to order them by)"

    def resolve(self, text: str, toks: list[Token], spans: list[Span]) -> list[Span]:
        """`spans` with each resolvable ordinal phrase replaced by a span of the film it names."""
        for phrase in self.phrases(toks, spans):
            film, _ = self._choice(phrase)
            if film is None:
                continue
            named = Span(phrase.start, phrase.end, toks[phrase.start][1], toks[phrase.end - 1][2],
                         normalize(self.kg.labels.labels[film]), [film], 100.0, "series", "film")
            spans = [s for s in spans if s.tok_end <= phrase.start or s.tok_start >= phrase.end] + [named]
        return spans

    def shortfall(self, toks: list[Token], spans: list[Span]) -> tuple[int, str] | None:
        """(series or film id, what is missing) for an ordinal phrase the graph cannot fill ("a third film of the
        Harry Potter series: my knowledge graph has 2") or cannot order for sure (see _choice)."""
        for phrase in self.phrases(toks, spans):
            film, missing = self._choice(phrase)
            if film is None and missing:
                named = phrase.series if phrase.series is not None else next(i for i in phrase.span.ids if self.kg.labels.groups[i] == Group.FILM)
                return named, missing
        return None

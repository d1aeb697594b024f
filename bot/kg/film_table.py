"""The film table: each relation's films and values as arrays, for compositional questions about hub values.

A condition on a hub value (the ~6,000 films of a genre in a 2M-triple graph) makes Oxigraph look up every one
of those films again for each other condition or aggregate joined to it (3-5 µs a lookup: 20-60 ms a query,
and a reply needs a count and a list). The graph is read-only and every build artefact is keyed by its
content, so those joins can be done once, at build time, with the same SPARQL the answers would run
(`?film <path> ?value` per relation): which films have each value, the values of each film, and each film's
smallest and largest number, year and date string. Sets of films are then numpy operations.

The table only finds *which* films answer and how many (bot.answering.compose decides when: a hub, where
SPARQL is slow); what a reply shows of them (a duration, a date) is still read from the store for those
films alone. It covers a relation only when it can answer for it exactly as the SPARQL templates do (every
film and value is in the label index, every number parses), and a condition on any other relation stays
with SPARQL; tests/test_film_table.py checks the two agree on every form.
"""

from __future__ import annotations

import logging
import pickle
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bot.core.contracts import Constraint, Hop
from bot.kg import queries
from bot.kg.bundle import Bundle
from bot.kg.labels import LabelIndex, Strings
from bot.kg.store import Node

log = logging.getLogger(__name__)

NUMBER_OPS = (">", ">=", "<", "<=")
YEAR_OPS = ("year>=", "year<=")


@dataclass
class EntityColumn:
    """The (film, value) pairs of an entity relation, without repeats: by film (CSR over film positions) and by
    value (sorted value ids with their films). `complete`: every value is an entity of the label index, so counts
    over the values (who directed the most films) are exact."""

    film_ptr: np.ndarray  # int64, films + 1: the values of film position f are values[film_ptr[f]:film_ptr[f+1]]
    values: np.ndarray  # int32 label ids
    value_ids: np.ndarray  # int32 sorted unique label ids of the values
    value_ptr: np.ndarray  # int64, len(value_ids) + 1
    value_films: np.ndarray  # int32 film positions, by value
    complete: bool


@dataclass
class LiteralColumn:
    """Each film's smallest and largest number (or year), and its smallest and largest value as a string (the
    order of STR(?value), for dates), of a number, date or year relation. NaN / -1 where the film has none."""

    low: np.ndarray  # float64: numbers, or years (the first four characters as an integer)
    high: np.ndarray
    text_low: np.ndarray  # int32 rank of the smallest STR(value) in `texts` (sorted), -1 for none
    text_high: np.ndarray
    texts: list[str]
    text_day: np.ndarray  # int32 per text: the rank of its first ten characters (a date's day), for ties
    numeric: bool  # a number relation (low/high are numbers) rather than a date or year one (low/high are years)
    exact: bool  # a number relation whose every value parses as xsd:decimal does (else number conditions stay with SPARQL)

    def answers(self, op: str) -> bool:
        """Whether conditions or orderings of kind `op` ("number", "year", "date") read this column as SPARQL would."""
        return self.exact if op == "number" else not self.numeric


@dataclass
class TermColumn:
    """Every literal value of a relation whose values are literals, per film: the RDF terms a chain's last hop reaches
    ("when were the films directed by X released"), each term once per film, as the template's GROUP BY ?answer
    tells them apart (lexical form, datatype and language)."""

    film_ptr: np.ndarray  # int64, films + 1: the terms of film position f are values[film_ptr[f]:film_ptr[f+1]]
    values: np.ndarray  # int32 positions in `terms`
    terms: Strings  # "lexical form\x00datatype\x00language" of each distinct term
    years: np.ndarray  # float64 per term: its year as a year condition reads it (first four characters), NaN for none

    def node(self, term: int) -> Node:
        value, datatype, lang = self.terms[term].rsplit("\x00", 2)
        return Node(value, False, datatype, lang)


@dataclass
class FilmTable:
    films: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # label ids of the films, sorted
    fame_rank: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # per film position: its place in LabelIndex.fame order
    entity: dict[str, EntityColumn] = field(default_factory=dict)
    literal: dict[str, LiteralColumn] = field(default_factory=dict)
    terms: dict[str, TermColumn] = field(default_factory=dict)

    # ------------------------------------------------------------------ what it can answer

    def covers(self, constraints: Iterable[Constraint], ordered: Iterable[str] = (), counted: Iterable[str] = ()) -> bool:
        """Whether every constraint can be evaluated here, the films can be ordered by the `ordered` relations, and
        the values of the `counted` relations can be counted."""
        for c in constraints:
            if c.op in ("in", "not_in"):
                if not c.relations or any(r not in self.entity for r in c.relations):
                    return False
            elif c.op in NUMBER_OPS or c.op in YEAR_OPS:
                need = "number" if c.op in NUMBER_OPS else "year"
                if not c.relations or any(r not in self.literal or not self.literal[r].answers(need) for r in c.relations):
                    return False
                if c.op in YEAR_OPS and any(r not in self.terms for r in c.relations):
                    return False  # a year range is read from every date of a film
            else:  # among / not_among: a few given films, which SPARQL checks in a millisecond
                return False
        return all(r in self.literal and self.literal[r].answers("number" if self.literal[r].numeric else "date") for r in ordered) and \
            all(r in self.entity and self.entity[r].complete for r in counted)

    # ------------------------------------------------------------------ sets of films

    def matching(self, constraints: Iterable[Constraint], labels: LabelIndex) -> np.ndarray:
        """A boolean mask over the film positions: the films that meet every constraint (as bot.kg.queries.films_where)."""
        mask = np.ones(len(self.films), dtype=bool)
        constraints = list(constraints)
        value_of = queries.same_value(constraints)
        for n, c in enumerate(constraints):
            if c.op in YEAR_OPS:
                if value_of[n] != n:
                    continue  # tested with the constraint it shares its date with
                bounds = [d for m, d in enumerate(constraints) if value_of[m] == n]
                mask &= self._with_year_in(c.relations, max((float(int(float(d.values[0]))) for d in bounds if d.op == "year>="), default=-np.inf),
                                           min((float(int(float(d.values[0]))) for d in bounds if d.op == "year<="), default=np.inf))
            elif c.op in ("in", "not_in"):
                ids = [labels.by_iri.get(v) for v in c.values]
                hit = self._with_values(c.relations, [i for i in ids if i is not None])
                mask &= hit if c.op == "in" else ~hit
            else:
                literal = float(c.values[0])
                hit = np.zeros(len(self.films), dtype=bool)
                for r in c.relations:
                    column = self.literal[r]
                    with np.errstate(invalid="ignore"):  # NaN (no value) compares false, as an unbound value filters out
                        if c.op in (">", ">="):
                            hit |= (column.high > literal) if c.op == ">" else (column.high >= literal)
                        else:
                            hit |= (column.low < literal) if c.op == "<" else (column.low <= literal)
                mask &= hit
        return mask

    def _with_year_in(self, relations: Iterable[str], low: float, high: float) -> np.ndarray:
        """The films with a date (or year) of `relations` whose year lies in [low, high]: one date meets both ends."""
        hit = np.zeros(len(self.films), dtype=bool)
        for r in relations:
            column = self.terms[r]
            with np.errstate(invalid="ignore"):
                years = column.years[column.values]
                inside = (years >= low) & (years <= high)
            films = np.repeat(np.arange(len(self.films)), np.diff(column.film_ptr))
            hit[films[inside]] = True
        return hit

    def start_size(self, constraints: Iterable[Constraint], labels: LabelIndex) -> int:
        """How many films the SPARQL of `constraints` starts from (and joins everything else to): the films of its
        rarest value condition (at most), or every film when there is none."""
        sizes = [len(self.films)]
        for c in constraints:
            if c.op == "in":
                ids = [i for i in (labels.by_iri.get(v) for v in c.values) if i is not None]
                sizes.append(sum(len(self._films_with(r, v)) for r in c.relations for v in ids))
        return min(sizes)

    def _films_with(self, relation: str, value_id: int) -> np.ndarray:
        """The positions of the films whose `relation` has the value `value_id` (none when no film has it)."""
        return _value_films(self.entity[relation], value_id)

    def _with_values(self, relations: Iterable[str], value_ids: list[int]) -> np.ndarray:
        hit = np.zeros(len(self.films), dtype=bool)
        for r in relations:
            for v in value_ids:
                hit[self._films_with(r, v)] = True
        return hit

    def best_known(self, mask: np.ndarray, limit: int) -> list[int]:
        """The label ids of the `limit` best known films in `mask` (LabelIndex.fame order)."""
        positions = np.flatnonzero(mask)
        if len(positions) > limit:
            ranks = self.fame_rank[positions]
            positions = positions[np.argpartition(ranks, limit - 1)[:limit]]
        positions = positions[np.argsort(self.fame_rank[positions], kind="stable")]
        return self.films[positions].tolist()

    # ------------------------------------------------------------------ relation chains

    WALKED = ((False, True), (True, False), (True, False, True))  # the multi-hop chain templates' hop patterns

    def chain_answers(self, chain: Sequence[Hop], start: int) -> list[tuple[int | Node, int]] | None:
        """Each answer of a multi-hop relation chain from the entity `start` (a label id) with its support, counted as its
        template counts them (templates/*.json: distinct films; between two films, distinct shared values): a label id,
        or the literal's Node when the last hop reaches literals (a release date, a running time).

        None when the table cannot answer it exactly: another hop pattern, a relation it leaves out or one with a value
        it does not know (an unlabelled node, an IRI among literals), or a film chain whose start is no film. The caller
        checks that `start` has the class its template asks of it. A 3-hop chain through a film's cast reaches hundreds
        of answers, which Oxigraph groups in 7-13 ms on a 20M-triple graph; these arrays take well under a millisecond."""
        pattern = tuple(hop.to_value for hop in chain)
        terms = self.terms.get(chain[-1].relation) if chain[-1].to_value else None
        columns = [self.entity.get(hop.relation) for hop in (chain[:-1] if terms is not None else chain)]
        if pattern not in self.WALKED or not len(self.films) or any(c is None or not c.complete for c in columns):
            return None
        last = terms if terms is not None else columns[-1]
        if pattern == (False, True):  # a value's films, then their values (the start among them: the caller decides)
            return self._counted(last, _films_of(columns[0], [start]))
        at = int(np.searchsorted(self.films, np.int32(start)))  # (a Python int would copy the array to int64 first)
        if at == len(self.films) or self.films[at] != start:
            return None
        shared = columns[0].values[columns[0].film_ptr[at] : columns[0].film_ptr[at + 1]]
        reached = _films_of(columns[1], shared.tolist())  # once per shared value (a column holds no pair twice)
        reached = reached[reached != at]
        if pattern == (True, False):  # the other films sharing a value, by how many values they share
            films, support = np.unique(reached, return_counts=True)
            return list(zip(self.films[films].tolist(), support.tolist()))
        return self._counted(last, np.unique(reached))

    @staticmethod
    def _counted(column: EntityColumn | TermColumn, films: np.ndarray) -> list[tuple[int | Node, int]]:
        """The values of `column` for `films` (each film once) with how many of the films have each."""
        answers, support = np.unique(_pairs_at(column, films)[1], return_counts=True)
        if isinstance(column, TermColumn):
            return [(column.node(term), n) for term, n in zip(answers.tolist(), support.tolist())]
        return list(zip(answers.tolist(), support.tolist()))

    # ------------------------------------------------------------------ aggregates

    def _pairs(self, relation: str, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(film positions, value ids) of `relation` for the films in `mask`."""
        return _pairs_at(self.entity[relation], np.flatnonzero(mask))

    def most_common(self, relation: str, mask: np.ndarray, exclude: Iterable[int], limit: int) -> tuple[list[int], int]:
        """The values of `relation` shared by the most films in `mask` (label ids, at most `limit`, by IRI) and how many
        films each has: "who directed the most comedies". `exclude`: label ids not counted (the genre asked about)."""
        _, values = self._pairs(relation, mask)
        if len(values) and (excluded := np.fromiter(exclude, dtype=np.int32)).size:
            values = values[~np.isin(values, excluded)]
        if not len(values):
            return [], 0
        ids, counts = np.unique(values, return_counts=True)
        top = int(counts.max())
        return sorted(ids[counts == top].tolist())[:limit], top  # label ids are in IRI order

    def most_values(self, relation: str, mask: np.ndarray, families: Iterable[int], limit: int) -> tuple[list[int], int]:
        """The films in `mask` with the most values of `relation` (only `families` counted when given): label ids of
        the films, at most `limit`, by IRI, and their count ("which comedy won the most Oscars")."""
        films, values = self._pairs(relation, mask)
        if (wanted := np.fromiter(families, dtype=np.int32)).size:
            films = films[np.isin(values, wanted)]
        if not len(films):
            return [], 0
        positions, counts = np.unique(films, return_counts=True)
        top = int(counts.max())
        return sorted(self.films[positions[counts == top]].tolist())[:limit], top

    def extreme(self, relation: str, mask: np.ndarray, greatest: bool, date: bool, limit: int, rank: int = 1) -> list[int]:
        """The films in `mask` with the greatest (or smallest) value of `relation`, label ids by IRI, at most `limit`:
        numbers compared as numbers, dates as strings to their first ten characters (as bot.answering.compose reads
        the ordered rows). At `rank` 2 the films with the next value once those are left out ("her second film"), and
        so on; none when fewer values are left."""
        for _ in range(rank - 1):
            mask = mask & ~np.isin(self.films, self.extreme(relation, mask, greatest, date, len(self.films)))
        column = self.literal[relation]
        if date:
            ranks = column.text_high if greatest else column.text_low
            chosen = mask & (ranks >= 0)
            if not chosen.any():
                return []
            best = int(ranks[chosen].max() if greatest else ranks[chosen].min())
            tied = chosen & (column.text_day[np.maximum(ranks, 0)] == column.text_day[best])
        else:
            values = column.high if greatest else column.low
            chosen = mask & ~np.isnan(values)
            if not chosen.any():
                return []
            best = values[chosen].max() if greatest else values[chosen].min()
            tied = chosen & (values == best)
        return sorted(self.films[tied].tolist())[:limit]

    # ------------------------------------------------------------------ saving

    def save(self, path: Path) -> None:
        with open(path, "wb") as fh:
            pickle.dump(self, fh, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, path: Path) -> FilmTable:
        with open(path, "rb") as fh:
            table = pickle.load(fh)
        if not isinstance(table, cls):
            raise TypeError(f"{path} holds no film table")
        return table


def build_film_table(graph, bundle: Bundle, labels: LabelIndex, progress=None) -> FilmTable:
    """Read every relation's (film, value) pairs with the answers' own property paths and keep them as columns.

    Films are the label index's films (the entities typed with a film class); a film-side node of another class
    is left out, as the films' class test of the SPARQL does. A relation with a film-side node or an entity value
    the label index does not know is left out whole (its conditions stay with SPARQL); typed films without a label
    make the table empty."""
    task = progress.add_task("film table", total=len(bundle.relations) + 1) if progress else None
    films = np.array([i for i, group in enumerate(labels.groups) if group == "film"], dtype=np.int32)
    typed = sum(1 for _ in graph.scan(queries.compose_query("list_all", bundle, (), frozenset(), **{"$limit": str(len(films) + 1)})))
    if progress:
        progress.advance(task)
    if typed != len(films):
        log.warning("%d films have no label: the film table is left empty (compositional questions use SPARQL alone)", typed - len(films))
        return FilmTable()
    position = np.full(len(labels.iris), -1, dtype=np.int64)
    position[films] = np.arange(len(films))
    by_fame = labels.films_by_fame()
    fame_rank = np.empty(len(films), dtype=np.int32)
    fame_rank[position[np.array(by_fame, dtype=np.int64)]] = np.arange(len(by_fame))
    table = FilmTable(films, fame_rank)
    by_iri = {iri: i for i, iri in enumerate(labels.iris)}
    for rel in bundle.relations.values():
        query = f"SELECT ?film ?value WHERE {{ ?film {queries.hop_path(bundle, Hop(rel.name, True))} ?value }}"
        rows = graph.scan(query)
        if rel.is_entity:
            table.entity[rel.name] = _entity_column(rows, by_iri, position, len(films))
        else:
            pairs = list(_film_rows(rows, by_iri, position))
            # a relation with an IRI among its literals is left out whole: SPARQL compares and groups it in ways the table does not copy
            if all(value is not None and not value.is_iri for _, value in pairs):
                table.terms[rel.name] = _term_column(pairs, len(films))
                if rel.kind in ("number", "date", "year"):
                    table.literal[rel.name] = _literal_column(pairs, len(films), rel.kind == "number")
        if progress:
            progress.advance(task)
    return table


def _pairs_at(column: EntityColumn | TermColumn, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(film positions, value ids) of a column for the films at `positions`."""
    starts, ends = column.film_ptr[positions], column.film_ptr[positions + 1]
    sizes = ends - starts
    if not sizes.sum():
        return np.zeros(0, np.int64), np.zeros(0, np.int32)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes) + np.arange(sizes.sum())
    return np.repeat(positions, sizes), column.values[offsets]


def _value_films(column: EntityColumn, value_id: int) -> np.ndarray:
    """The positions of the films with the value `value_id` in a column (none when no film has it)."""
    # searched as the array's own type: with a Python int, numpy first copies the whole array to int64 (~0.3 ms at 20M)
    at = int(np.searchsorted(column.value_ids, np.int32(value_id)))
    if at < len(column.value_ids) and column.value_ids[at] == value_id:
        return column.value_films[column.value_ptr[at] : column.value_ptr[at + 1]]
    return column.value_films[:0]


def _films_of(column: EntityColumn, value_ids: list[int]) -> np.ndarray:
    """The positions of the films with each of `value_ids` in a column, one after another (a film once per value)."""
    return np.concatenate([_value_films(column, v) for v in value_ids] or [column.value_films[:0]]).astype(np.int64)


def _film_rows(rows, by_iri: dict[str, int], position: np.ndarray) -> Iterator[tuple[int, Node | None]]:
    """(film position, value) of each row whose film is one of the films. A film-side node the label index does not
    know is no film (every typed film has a label), and the SPARQL's class test leaves it out too."""
    for row in rows:
        film = row.get("film")
        idx = by_iri.get(film.value) if film is not None and film.is_iri else None
        at = int(position[idx]) if idx is not None else -1
        if at >= 0:
            yield at, row.get("value")


def _entity_column(rows, by_iri: dict[str, int], position: np.ndarray, count: int) -> EntityColumn:
    films, values = array("q"), array("q")
    complete = True
    for at, value in _film_rows(rows, by_iri, position):
        idx = by_iri.get(value.value) if value is not None and value.is_iri else None
        if idx is None:
            complete = False  # a literal or unlabelled value: counts over the values would miss it
            continue
        films.append(at)
        values.append(idx)
    span = max(len(by_iri), 1)
    pairs = np.unique(np.frombuffer(films, dtype=np.int64) * span + np.frombuffer(values, dtype=np.int64))  # sorted by film, then value
    by_film, by_film_values = pairs // span, pairs % span
    film_ptr = np.searchsorted(by_film, np.arange(count + 1)).astype(np.int64)
    order = np.lexsort((by_film, by_film_values))
    value_ids, starts = np.unique(by_film_values[order], return_index=True)
    value_ptr = np.concatenate((starts, [len(order)])).astype(np.int64)
    return EntityColumn(film_ptr, by_film_values.astype(np.int32), value_ids.astype(np.int32), value_ptr,
                        by_film[order].astype(np.int32), complete)


def _term_column(pairs: list[tuple[int, Node]], count: int) -> TermColumn:
    ids: dict[str, int] = {}
    films, values = array("q"), array("q")
    for at, value in pairs:
        films.append(at)
        values.append(ids.setdefault(f"{value.value}\x00{value.datatype}\x00{value.lang}", len(ids)))
    span = max(len(ids), 1)
    unique = np.unique(np.frombuffer(films, dtype=np.int64) * span + np.frombuffer(values, dtype=np.int64))  # by film, then term
    years = np.array([year if (year := _as_year(term)) is not None else np.nan for term in ids], dtype=np.float64)
    return TermColumn(np.searchsorted(unique // span, np.arange(count + 1)).astype(np.int64), (unique % span).astype(np.int32),
                      Strings(ids, findable=False), years)


def _literal_column(pairs: list[tuple[int, Node]], count: int, numeric: bool) -> LiteralColumn:
    """`numeric`: the values are numbers (compared as xsd:decimal), else dates or years (compared by their year and
    ordered as strings). The values are literals (build_film_table leaves a relation with an IRI value out)."""
    low, high = np.full(count, np.nan), np.full(count, np.nan)
    text_low: dict[int, str] = {}
    text_high: dict[int, str] = {}
    exact = numeric
    for at, value in pairs:
        text = value.value
        if text_low.get(at, text) >= text:
            text_low[at] = text
        if text_high.get(at, text) <= text:
            text_high[at] = text
        number = _as_number(text) if numeric else _as_year(text)
        if number is None and numeric:
            exact = False  # xsd:decimal fails on it: ordering by the numbers would not be what SPARQL does
        if number is not None:
            low[at] = number if np.isnan(low[at]) else min(low[at], number)
            high[at] = number if np.isnan(high[at]) else max(high[at], number)
    texts = sorted({*text_low.values(), *text_high.values()})
    rank = {t: i for i, t in enumerate(texts)}
    ranks_low, ranks_high = np.full(count, -1, dtype=np.int32), np.full(count, -1, dtype=np.int32)
    for at, text in text_low.items():
        ranks_low[at] = rank[text]
    for at, text in text_high.items():
        ranks_high[at] = rank[text]
    days = {day: i for i, day in enumerate(sorted({t[:10] for t in texts}))}
    return LiteralColumn(low, high, ranks_low, ranks_high, texts, np.array([days[t[:10]] for t in texts], dtype=np.int32), numeric, exact)


def _as_number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _as_year(text: str) -> float | None:
    """The year of a date as the year condition reads it: its first four characters as an integer."""
    try:
        return float(int(text[:4]))
    except ValueError:
        return None

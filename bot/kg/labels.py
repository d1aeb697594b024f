"""The label index: every labelled entity with its class group, degree and year.

Entity linking works on this in-memory index (dict lookups of normalised n-grams and
rapidfuzz over the label list) instead of SPARQL REGEX scans, which cost seconds.
Besides the labels and aliases (`by_norm`), it keeps generated variants (`variants`: a title
without its article or subtitle, a person's surname, see bot.kg.variants) apart, so the linker
can trust them less, and a variant never shadows an entity whose own label says the same.
"""

from __future__ import annotations

import bisect
import pickle
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz, process

from bot.core.text import normalize
from bot.kg import queries
from bot.kg.bundle import Bundle
from bot.kg.store import Node
from bot.kg.variants import award_variants, genre_variants, name_variants, title_variants

GROUP_PRIORITY = ("film", "person")
_YEAR = re.compile(r"^(-?\d{4})")


class _SortedKeys:
    """Lookups by binary search over a sorted list of strings (the read-only maps below)."""

    __slots__ = ("keys",)

    def _find(self, key) -> int:
        if not isinstance(key, str):
            return -1
        i = bisect.bisect_left(self.keys, key)
        return i if i < len(self.keys) and self.keys[i] == key else -1

    def __contains__(self, key) -> bool:
        return self._find(key) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys)

    def __len__(self) -> int:
        return len(self.keys)


class SortedIds(_SortedKeys, Mapping[str, list[int]]):
    """A read-only map from strings to entity ids: a sorted key list and one flat id array.

    The saved form of `by_norm` and `variants`. A dict of millions of keys costs seconds to
    unpickle (every key hashed and inserted, every id list a container the garbage collector then
    walks); a list of strings and two numpy arrays load in a fraction of that, and a lookup is a
    binary search (a few microseconds)."""

    __slots__ = ("starts", "ids")

    def __init__(self, mapping: Mapping[str, Sequence[int]]):
        self.keys = sorted(mapping)
        sizes = np.fromiter((len(mapping[k]) for k in self.keys), dtype=np.int64, count=len(self.keys))
        self.starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        self.ids = np.fromiter((i for k in self.keys for i in mapping[k]), dtype=np.int32, count=int(self.starts[-1]))

    def __getstate__(self):
        return self.keys, self.starts, self.ids

    def __setstate__(self, state):
        self.keys, self.starts, self.ids = state

    def __getitem__(self, key: str) -> list[int]:
        i = self._find(key)
        if i < 0:
            raise KeyError(key)
        return self.ids[self.starts[i] : self.starts[i + 1]].tolist()


class SortedPositions(_SortedKeys, Mapping[str, int]):
    """A read-only map from each string of a sorted list to its position: `by_iri` as a binary search
    over the entities' IRIs (which the index keeps sorted), so it costs no memory and no load time."""

    __slots__ = ()

    def __init__(self, keys: list[str]):
        self.keys = keys

    def __getstate__(self):
        return self.keys

    def __setstate__(self, state):
        self.keys = state

    def __getitem__(self, key: str) -> int:
        i = self._find(key)
        if i < 0:
            raise KeyError(key)
        return i


@dataclass
class LabelIndex:
    iris: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # display label per entity
    groups: list[str] = field(default_factory=list)  # class group per entity ("" if none)
    degree: list[int] = field(default_factory=list)
    years: list[int | None] = field(default_factory=list)
    # a dict while built (and in tests), a SortedIds / SortedPositions once saved and loaded
    by_norm: Mapping[str, list[int]] = field(default_factory=dict)  # normalised label or alias -> entity ids
    variants: Mapping[str, list[int]] = field(default_factory=dict)  # generated variant -> entity ids (no label says it)
    by_iri: Mapping[str, int] = field(default_factory=dict)
    max_tokens: int = 1
    # per entity, a bit per (relation, side) it takes part in: bit 2*r for subject, 2*r+1 for object
    roles: list[int] = field(default_factory=list)
    role_bits: dict[tuple[str, str], int] = field(default_factory=dict)  # (relation name, "s"|"o") -> bit
    # relations whose every film-side node is typed as a film: a condition on one needs no class test in SPARQL
    film_only: frozenset[str] = frozenset()

    @property
    def keys_by_length(self) -> tuple[list[str], list[int]]:
        """Normalised labels sorted by length, and their lengths (for `band`)."""
        sorted_keys = getattr(self, "_sorted_keys", None)
        if sorted_keys is None:
            keys = sorted({*self.by_norm, *self.variants}, key=len)
            sorted_keys = self._sorted_keys = (keys, [len(k) for k in keys])
        return sorted_keys

    def band(self, low: float, high: float) -> list[str]:
        """Normalised labels and variants whose length lies in [low, high]: the only ones a length-bounded score can reach."""
        keys, lengths = self.keys_by_length
        return keys[bisect.bisect_left(lengths, low) : bisect.bisect_right(lengths, high)]

    def lookup(self, norm: str) -> list[int]:
        """The entities whose label or alias is `norm`."""
        return self.by_norm.get(norm, [])

    def lookup_variant(self, norm: str) -> list[int]:
        """The entities a generated variant `norm` stands for (none when a label says `norm`)."""
        return self.variants.get(norm, [])

    def lookup_any(self, norm: str) -> list[int]:
        """The entities a label, alias or variant `norm` stands for (labels first: a variant never shadows a label)."""
        return self.by_norm.get(norm) or self.variants.get(norm, [])

    def fuzzy(self, norm: str, threshold: float, limit: int = 5) -> list[tuple[str, float]]:
        """Normalised labels and variants within `threshold` (rapidfuzz ratio, 0-100) of `norm`, best first."""
        if not norm:
            return []
        # ratio = 100 * (1 - distance / (la + lb)) and distance >= |la - lb|, so lb lies in a band around la
        t = threshold / 100
        # (widened by a hair: 3 * (2 - 0.6) / 0.6 is 6.999... in floating point, and a 7-letter label scores 60 exactly)
        slack = 1e-6
        keys = self.band(len(norm) * t / (2 - t) - slack, len(norm) * (2 - t) / t + slack) if t > 0 else self.keys_by_length[0]
        hits = process.extract(norm, keys, scorer=fuzz.ratio, processor=None, score_cutoff=threshold, limit=limit)
        return [(key, score) for key, score, _ in hits]

    def starting_with(self, prefix: str) -> list[int]:
        """The entities with a label or alias that starts with `prefix` (normalised), without a scan of every label."""
        keys = self.by_norm.keys if isinstance(self.by_norm, SortedIds) else sorted(self.by_norm)
        found = []
        at = bisect.bisect_left(keys, prefix)
        while at < len(keys) and keys[at].startswith(prefix):
            found.extend(i for i in self.by_norm[keys[at]] if i not in found)
            at += 1
        return found

    def fame(self, idx: int) -> tuple[int, str, str]:
        """The sort key of the order answers list films in: best known first (most facts), then label and IRI."""
        return -self.degree[idx], self.labels[idx], self.iris[idx]

    def films_by_fame(self) -> list[int]:
        """The films in `fame` order (sorted once, on first use)."""
        ranked = getattr(self, "_films_by_fame", None)
        if ranked is None:
            ranked = self._films_by_fame = sorted((i for i, group in enumerate(self.groups) if group == "film"), key=self.fame)
        return ranked

    def has_role(self, idx: int, relation: str, side: str) -> bool:
        """Whether entity `idx` is the subject ("s") or object ("o") of some `relation` triple."""
        bit = self.role_bits.get((relation, side))
        return bit is not None and bool(self.roles[idx] >> bit & 1)

    def label_of(self, iri: str) -> str | None:
        idx = self.by_iri.get(iri)
        return self.labels[idx] if idx is not None else None

    def info(self, iri: str) -> tuple[str, str, int, int | None] | None:
        idx = self.by_iri.get(iri)
        if idx is None:
            return None
        return self.labels[idx], self.groups[idx], self.degree[idx], self.years[idx]

    def save(self, path: Path) -> None:
        """Pickle the index in its compact read-only form (see SortedIds)."""
        state = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        for name in ("by_norm", "variants"):
            if not isinstance(state[name], SortedIds):
                state[name] = SortedIds(state[name])
        if all(self.by_iri.get(iri) == i for i, iri in enumerate(self.iris)) and all(a < b for a, b in zip(self.iris, self.iris[1:])):
            state["by_iri"] = SortedPositions(self.iris)  # pickled as a reference to the same list
        with open(path, "wb") as fh:
            pickle.dump(state, fh, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, path: Path) -> LabelIndex:
        with open(path, "rb") as fh:
            state = pickle.load(fh)
        index = cls()
        index.__dict__.update(state)
        return index


def _lang_ok(node: Node, language: str) -> bool:
    return not node.lang or node.lang.split("-")[0].lower() == language


def build_label_index(graph, bundle: Bundle, progress=None) -> LabelIndex:
    """Collect labels, class groups, relation degrees and film years with a few SPARQL queries."""
    steps = 3 + len(bundle.relations)
    task = progress.add_task("label index", total=steps) if progress else None

    def tick():
        if progress:
            progress.advance(task)

    label_rows = graph.scan(queries.all_labels(bundle))
    tick()
    labels: dict[str, list[str]] = defaultdict(list)
    preferred: dict[str, str] = {}
    for row in label_rows:
        s, l = row.get("s"), row.get("l")
        if s is None or l is None or not s.is_iri or l.is_iri or not _lang_ok(l, bundle.language):
            continue
        labels[s.value].append(l.value)
        if "alias" in row:
            continue  # an alias links the entity but is never its display label
        if l.lang or s.value not in preferred:
            preferred.setdefault(s.value, l.value)
    class_group = {iri: group for group, iris in bundle.classes.items() for iri in iris}
    groups: dict[str, str] = {}
    for row in graph.scan(queries.all_types(bundle)):
        s, c = row.get("s"), row.get("c")
        if s is None or c is None:
            continue
        group = class_group.get(c.value)
        if group is None:
            continue
        current = groups.get(s.value)
        if current is None or (group in GROUP_PRIORITY and (current not in GROUP_PRIORITY or GROUP_PRIORITY.index(group) < GROUP_PRIORITY.index(current))):
            groups[s.value] = group
    tick()
    degree: dict[str, int] = defaultdict(int)
    roles: dict[str, int] = defaultdict(int)
    role_bits: dict[tuple[str, str], int] = {}
    film_only: set[str] = set()
    for rel in bundle.relations.values():
        film_side = "s" if rel.direction == "forward" else "o"
        only_films = True
        for side in ("s", "o"):
            bit = role_bits[rel.name, side] = len(role_bits)
            for row in graph.scan(queries.role_counts(rel, side)):
                node = row.get(side)
                if side == film_side and (node is None or not node.is_iri or groups.get(node.value) != "film"):
                    only_films = False
                if node is not None and node.is_iri:
                    if not rel.derived:  # its triples are counted under the relations it is made of
                        degree[node.value] += int(row["n"].value)
                    roles[node.value] |= 1 << bit
        if only_films:
            film_only.add(rel.name)
        tick()
    years: dict[str, int] = {}
    date_rel = bundle.date_relation
    if date_rel is not None:
        for row in graph.scan(queries.dated_films(date_rel)):
            f, v = row.get("film"), row.get("value")
            if f is None or v is None:
                continue
            match = _YEAR.match(v.value)
            if match:
                year = int(match.group(1))
                years[f.value] = min(year, years.get(f.value, year))
    tick()
    index = LabelIndex()
    by_norm: dict[str, list[int]] = defaultdict(list)
    variants: dict[str, list[int]] = defaultdict(list)
    for iri in sorted(labels):
        if iri not in preferred:
            preferred[iri] = labels[iri][0]  # an entity with aliases only
        idx = len(index.iris)
        index.iris.append(iri)
        index.labels.append(preferred.get(iri, labels[iri][0]))
        index.groups.append(groups.get(iri, ""))
        index.degree.append(degree.get(iri, 0))
        index.years.append(years.get(iri))
        index.roles.append(roles.get(iri, 0))
        index.by_iri[iri] = idx
        make_variants = {"film": title_variants, "person": name_variants, "genre": genre_variants, "award": award_variants}.get(index.groups[idx])
        for label in set(labels[iri]):
            norm = normalize(label)
            if norm:
                by_norm[norm].append(idx)
                index.max_tokens = max(index.max_tokens, norm.count(" ") + 1)
            for variant in make_variants(label) if make_variants else ():
                if idx not in variants[variant]:
                    variants[variant].append(idx)
                    index.max_tokens = max(index.max_tokens, variant.count(" ") + 1)
    index.by_norm = dict(by_norm)
    index.variants = {key: ids for key, ids in variants.items() if key not in by_norm}
    index.role_bits = role_bits
    index.film_only = frozenset(film_only)
    return index

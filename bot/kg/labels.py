"""The label index: every labelled entity with its class group, degree and year.

Entity linking works on this in-memory index (dict lookups of normalised n-grams and
rapidfuzz over the label list) instead of SPARQL REGEX scans, which cost seconds.
Besides the labels and aliases (`by_norm`), it keeps generated variants (`variants`: a title
without its article or subtitle, a person's surname, see bot.kg.variants) apart, so the linker
can trust them less, and a variant never shadows an entity whose own label says the same.
"""

from __future__ import annotations

import bisect
import math
import operator
import pickle
import re
import zlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz, process

from bot.core.text import normalize
from bot.kg import queries
from bot.kg.bundle import Bundle
from bot.kg.families import family_groups
from bot.kg.store import Node
from bot.kg.variants import STOP as VARIANT_STOP
from bot.kg.variants import award_variants, genre_variants, name_variants, title_variants

MIN_FIRST_NAME = 4  # shorter first names ("Tom", "Ava") are read as nicknames of no one
FIRST_NAME_DEGREE = 3  # a person called by the first name alone has at least this many triples of films
GROUP_PRIORITY = ("film", "person")
_YEAR = re.compile(r"^(-?\d{4})")


class Strings(Sequence[str]):
    """A read-only list of strings kept as one UTF-8 buffer and an offsets array, with a hash table to find one.

    The saved form of the label index's millions of strings (IRIs, display labels, normalised keys).
    A list of Python strings unpickles object by object (about half a second for each of these
    lists on a 20M-triple graph, most of the cold start); a buffer and two arrays load at the
    speed of a file read, and a string is decoded only when it is read (well under a microsecond).
    `position` finds a string through an open-addressing table of its CRC-32 (at most half full, so
    a lookup reads one or two slots and compares the bytes); `findable=False` leaves the table out
    for a list that is only read by position (the display labels)."""

    __slots__ = ("_state", "_buffer", "_offsets", "_slots", "_mask")

    def __init__(self, items: Iterable[str], findable: bool = True):
        encoded = [item.encode() for item in items]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
        slots = _hash_slots(np.fromiter(map(zlib.crc32, encoded), dtype=np.int64, count=len(encoded))) if findable else None
        self.__setstate__((b"".join(encoded), offsets, slots))

    def __getstate__(self):
        return self._state

    def __setstate__(self, state):
        self._state = state
        self._buffer, offsets, slots = state
        # read through memoryviews: indexing one gives a Python int at list speed (a numpy scalar costs ten times more)
        self._offsets = memoryview(offsets)
        self._slots = memoryview(slots) if slots is not None else None
        self._mask = len(slots) - 1 if slots is not None else 0

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i):
        if i.__class__ is int and i >= 0:  # the common case first: past the end, offsets[i + 1] raises IndexError
            return self._buffer[self._offsets[i] : self._offsets[i + 1]].decode()
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = operator.index(i)  # a numpy integer too
        if not -len(self) <= i < len(self):
            raise IndexError("string index out of range")
        return self[i % len(self)]

    def __iter__(self) -> Iterator[str]:
        buffer, offsets = self._buffer, self._offsets
        return (buffer[offsets[i] : offsets[i + 1]].decode() for i in range(len(self)))

    def position(self, key) -> int:
        """Where `key` is in the list, or -1."""
        if self._slots is None:
            raise TypeError("these strings were saved without their hash table (findable=False)")
        if not isinstance(key, str):
            return -1
        try:
            data = key.encode()
        except UnicodeEncodeError:  # a lone surrogate: no stored string has one
            return -1
        slots, offsets, buffer, mask = self._slots, self._offsets, self._buffer, self._mask
        slot = zlib.crc32(data) & mask
        while (i := slots[slot]) >= 0:
            if buffer[offsets[i] : offsets[i + 1]] == data:
                return i
            slot = (slot + 1) & mask
        return -1

    def __contains__(self, key) -> bool:
        return self.position(key) >= 0

    def index(self, key, start: int = 0, stop: int | None = None) -> int:
        i = self.position(key)
        if i < start or (stop is not None and i >= stop):
            raise ValueError(f"{key!r} is not in the list")
        return i


def _hash_slots(hashes: np.ndarray) -> np.ndarray:
    """An open-addressing table (linear probing) of the positions 0..n-1 by their hashes: a power of two of at least
    twice n slots, -1 where empty. Filled in rounds: the items whose slot is free take it (the first of several that
    want the same one), the others try the next slot, so every slot between an item's own and where it lies is taken."""
    size = 1 << max(1, int(2 * len(hashes)).bit_length())
    table = np.full(size, -1, dtype=np.int32)
    pending = np.arange(len(hashes), dtype=np.int64)
    slot = hashes & (size - 1)
    while len(pending):
        free = table[slot] == -1
        wanted, first = np.unique(slot[free], return_index=True)
        table[wanted] = pending[free][first]
        placed = np.zeros(len(pending), dtype=bool)
        placed[np.flatnonzero(free)[first]] = True
        pending, slot = pending[~placed], (slot[~placed] + 1) & (size - 1)
    return table


class _KeyedByStrings:
    """The read-only maps of a saved index (below): their keys are `Strings`, found by hash."""

    __slots__ = ("keys",)

    def __contains__(self, key) -> bool:
        return self.keys.position(key) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys)

    def __len__(self) -> int:
        return len(self.keys)


class SortedIds(_KeyedByStrings, Mapping[str, list[int]]):
    """A read-only map from strings to entity ids: the sorted keys as `Strings` and one flat id array.

    The saved form of `by_norm` and `variants`. A dict of millions of keys costs seconds to
    unpickle (every key hashed and inserted, every id list a container the garbage collector then
    walks); a buffer and a few numpy arrays load in a fraction of that, and a lookup is a hash
    probe (a few microseconds). The keys stay sorted for prefix searches (`LabelIndex.starting_with`)."""

    __slots__ = ("starts", "ids", "_starts", "_ids")

    def __init__(self, mapping: Mapping[str, Sequence[int]]):
        keys = sorted(mapping)
        sizes = np.fromiter((len(mapping[k]) for k in keys), dtype=np.int64, count=len(keys))
        starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        ids = np.fromiter((i for k in keys for i in mapping[k]), dtype=np.int32, count=int(starts[-1]))
        self.__setstate__((Strings(keys), starts, ids))

    def __getstate__(self):
        return self.keys, self.starts, self.ids

    def __setstate__(self, state):
        self.keys, self.starts, self.ids = state
        self._starts, self._ids = memoryview(self.starts), memoryview(self.ids)  # Python ints at list speed

    def __getitem__(self, key: str) -> list[int]:
        i = self.keys.position(key)
        if i < 0:
            raise KeyError(key)
        return self._ids[self._starts[i] : self._starts[i + 1]].tolist()


class Positions(_KeyedByStrings, Mapping[str, int]):
    """A read-only map from each string of a `Strings` to its position: `by_iri` over the entities' own IRIs,
    so it costs no memory and no load time of its own."""

    __slots__ = ()

    def __init__(self, keys: Strings):
        self.keys = keys

    def __getstate__(self):
        return self.keys

    def __setstate__(self, state):
        self.keys = state

    def __getitem__(self, key: str) -> int:
        i = self.keys.position(key)
        if i < 0:
            raise KeyError(key)
        return i


class KeysByLength:
    """The normalised labels and variants ordered by length, each length decoded on its first use.

    Fuzzy search reads only the lengths a score can reach (`LabelIndex.band`). On a 20M-triple
    graph, sorting the four million keys by length at the first typo took four seconds; the order
    is now computed when the index is saved, and a length's keys are decoded (and kept) when a
    search first reaches it."""

    def __init__(self, labels: Sequence[str], variants: Sequence[str]):
        taken = set(labels)
        self.sources = (labels, variants)
        keys = [*((0, i, key) for i, key in enumerate(labels)), *((1, i, key) for i, key in enumerate(variants) if key not in taken)]
        keys.sort(key=lambda item: (len(item[2]), item[2]))
        self.source = np.fromiter((source for source, _, _ in keys), dtype=np.int8, count=len(keys))
        self.at = np.fromiter((i for _, i, _ in keys), dtype=np.int32, count=len(keys))
        lengths = np.fromiter((len(key) for _, _, key in keys), dtype=np.int64, count=len(keys))
        # starts[n]: the first key of length >= n (one entry past the longest length)
        self.starts = np.searchsorted(lengths, np.arange(int(lengths[-1]) + 2 if len(keys) else 1))
        self._decoded: dict[int, list[str]] = {}

    def __getstate__(self):
        return self.sources, self.source, self.at, self.starts

    def __setstate__(self, state):
        self.sources, self.source, self.at, self.starts = state
        self._decoded = {}

    def of_length(self, n: int) -> list[str]:
        keys = self._decoded.get(n)
        if keys is None:
            span = slice(int(self.starts[n]), int(self.starts[n + 1]))
            keys = self._decoded[n] = [self.sources[s][i] for s, i in zip(self.source[span].tolist(), self.at[span].tolist())]
        return keys

    def band(self, low: float, high: float) -> list[str]:
        """The keys whose length lies in [low, high]."""
        found: list[str] = []
        for n in range(max(math.ceil(low), 0), math.floor(min(high, len(self.starts) - 2)) + 1):
            found += self.of_length(n)
        return found


@dataclass
class LabelIndex:
    # lists while built (and in tests), Strings once saved and loaded
    iris: Sequence[str] = field(default_factory=list)
    labels: Sequence[str] = field(default_factory=list)  # display label per entity
    groups: list[str] = field(default_factory=list)  # class group per entity ("" if none)
    degree: list[int] = field(default_factory=list)
    years: list[int | None] = field(default_factory=list)
    # dicts while built (and in tests), a SortedIds / Positions once saved and loaded
    by_norm: Mapping[str, list[int]] = field(default_factory=dict)  # normalised label or alias -> entity ids
    variants: Mapping[str, list[int]] = field(default_factory=dict)  # generated variant -> entity ids (no label says it)
    by_iri: Mapping[str, int] = field(default_factory=dict)
    max_tokens: int = 1
    # per entity, a bit per (relation, side) it takes part in: bit 2*r for subject, 2*r+1 for object
    roles: list[int] = field(default_factory=list)
    role_bits: dict[tuple[str, str], int] = field(default_factory=dict)  # (relation name, "s"|"o") -> bit
    # relations whose every film-side node is typed as a film: a condition on one needs no class test in SPARQL
    film_only: frozenset[str] = frozenset()
    # a family's names ("the coens", "wachowski sisters") -> its members (bot.kg.families)
    families: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def by_length(self) -> KeysByLength:
        """Normalised labels and variants by length (saved with the index; made on first use while building and in tests)."""
        by_length = getattr(self, "_by_length", None)
        if by_length is None:
            by_length = self._by_length = KeysByLength(list(self.by_norm), list(self.variants))
        return by_length

    def band(self, low: float, high: float) -> list[str]:
        """Normalised labels and variants whose length lies in [low, high]: the only ones a length-bounded score can reach."""
        return self.by_length.band(low, high)

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
        keys = self.band(len(norm) * t / (2 - t) - slack, len(norm) * (2 - t) / t + slack) if t > 0 else self.band(0, math.inf)
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
        """Pickle the index in its compact read-only form (see Strings, SortedIds and KeysByLength)."""
        state = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        for name in ("iris", "labels"):
            if not isinstance(state[name], Strings):
                state[name] = Strings(state[name], findable=name == "iris")  # labels are only read by position
        for name in ("by_norm", "variants"):
            if not isinstance(state[name], SortedIds):
                state[name] = SortedIds(state[name])
        if all(self.by_iri.get(iri) == i for i, iri in enumerate(self.iris)):
            state["by_iri"] = Positions(state["iris"])  # pickled as a reference to the same strings
        state["_by_length"] = KeysByLength(state["by_norm"].keys, state["variants"].keys)
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


def first_names(index: LabelIndex) -> dict[str, int]:
    """First names that name one person of the graph and nothing else: people call some by the first name alone
    ("anything with Keanu?"). Only people with a few films (the well-known are called so), and not a first name two
    people share, one that is an ordinary word ("Grace", "Will"), or a short one."""
    from bot.core.english import common_words

    ordinary = common_words()
    people: dict[str, list[int]] = defaultdict(list)
    for idx, (label, group) in enumerate(zip(index.labels, index.groups)):
        words = normalize(label).split()
        if group == "person" and len(words) >= 2 and words[0].isalpha():
            people[words[0]].append(idx)
    return {first: ids[0] for first, ids in people.items()
            if len(ids) == 1 and len(first) >= MIN_FIRST_NAME and first not in ordinary and first not in VARIANT_STOP
            and index.degree[ids[0]] >= FIRST_NAME_DEGREE}


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
    for first, idx in first_names(index).items():  # "movies with keanu": the one person of that first name
        if first not in variants:
            variants[first].append(idx)
    index.families = {name: members for name, members in family_groups(graph, bundle, index.iris, index.labels, index.groups).items()
                      if name not in by_norm}  # ("the Coens" as a film's title stays that film)
    for name, members in index.families.items():
        variants[name] = list(members)
    index.by_norm = dict(by_norm)
    index.variants = {key: ids for key, ids in variants.items() if key not in by_norm}
    index.role_bits = role_bits
    index.film_only = frozenset(film_only)
    return index

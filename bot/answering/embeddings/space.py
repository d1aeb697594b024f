"""The embedding space at answer time: nearest entities of a class group, and link predictions."""

from __future__ import annotations

import logging

import numpy as np

from bot.answering.embeddings.artefacts import artefact_key, build_step, load_embeddings
from bot.answering.embeddings.vectors import Embeddings
from bot.core.errors import EmbeddingError
from bot.kg.bundle import Relation
from bot.kg.labels import LabelIndex

log = logging.getLogger(__name__)
TOP_PREDICTIONS = 3


class EmbeddingSpace:
    """The vectors joined with the label index: nearest entities of one class group, fast.

    Each group's vectors sit in one matrix with precomputed squared norms, so a query is one
    matrix-vector product and an argpartition, whatever the size of the graph.
    """

    def __init__(self, embeddings: Embeddings, labels: LabelIndex):
        self.embeddings = embeddings
        self.labels = labels
        groups: dict[str, list[int]] = {}
        for row, entity in enumerate(embeddings.entities):
            idx = labels.by_iri.get(entity)
            if idx is not None:
                groups.setdefault(labels.groups[idx] or "", []).append(row)
        self._group_rows = {g: np.array(rows, dtype=np.int64) for g, rows in groups.items()}
        self._matrices: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def rows(self, group: str) -> np.ndarray:
        return self._group_rows.get(group, np.zeros(0, np.int64))

    def matrix(self, group: str) -> tuple[np.ndarray, np.ndarray]:
        """(vectors, squared norms) of the group's entities, in the order of `rows(group)`."""
        if group not in self._matrices:
            vectors = np.ascontiguousarray(self.embeddings.entity_vectors[self.rows(group)])
            self._matrices[group] = (vectors, np.einsum("ij,ij->i", vectors, vectors))
        return self._matrices[group]

    def vector(self, entity: str) -> np.ndarray | None:
        row = self.embeddings.entity_row.get(entity)
        return None if row is None else self.embeddings.entity_vectors[row]

    def distances(self, query: np.ndarray, group: str) -> np.ndarray:
        """Euclidean distance from `query` to every entity of `group`."""
        vectors, norms = self.matrix(group)
        squared = norms - 2.0 * (vectors @ query) + float(query @ query)
        return np.sqrt(np.maximum(squared, 0.0))

    def nearest(self, query: np.ndarray, group: str, k: int, exclude: set[str] = frozenset()) -> list[tuple[str, float]]:
        """The k entities of `group` nearest to `query` (IRI, distance), nearest first."""
        rows = self.rows(group)
        if len(rows) == 0 or k <= 0:
            return []
        dist = self.distances(query, group)
        take = min(len(rows), k + len(exclude))
        top = np.argpartition(dist, take - 1)[:take] if take < len(rows) else np.arange(len(rows))
        top = top[np.argsort(dist[top], kind="stable")]
        out = []
        for i in top:
            entity = self.embeddings.entities[rows[i]]
            if entity not in exclude:
                out.append((entity, float(dist[i])))
            if len(out) == k:
                break
        return out

    def target(self, subject: str, relation: Relation) -> np.ndarray | None:
        """Where the value of (subject, relation) should lie: s + r, or s - r for an inverse relation."""
        s = self.vector(subject)
        r_row = None if relation.derived else self.embeddings.relation_row.get(relation.property)
        if s is None or r_row is None:
            return None
        r = self.embeddings.relation_vectors[r_row]
        return s + r if relation.direction == "forward" else s - r

    def predict(self, subject: str, relation: Relation, k: int = TOP_PREDICTIONS) -> list[tuple[str, float]]:
        """The k most likely values of (subject, relation) among entities of the relation's value group."""
        query = self.target(subject, relation)
        if query is None or not relation.value_class:
            return []
        return self.nearest(query, relation.value_class, k, exclude={subject})


_SPACES: dict[tuple[str, str], EmbeddingSpace] = {}


def space_for(kg, settings) -> EmbeddingSpace | None:
    """The KG's embedding space (loaded once per built KG and shared by the features that use it),
    or None when no embeddings can be built."""
    wanted = artefact_key(settings, kg.bundle, kg.key)
    cache_key = (str(kg.folder), wanted)
    if cache_key not in _SPACES:
        try:
            embeddings = load_embeddings(kg.folder, wanted)
        except EmbeddingError:
            build_step(settings, kg.bundle, kg.folder, kg.key)
            try:
                embeddings = load_embeddings(kg.folder, wanted)
            except EmbeddingError as exc:
                log.warning("embeddings are off: %s", exc)
                return None
        _SPACES.clear()  # one KG per process is the common case; keep memory bounded
        _SPACES[cache_key] = EmbeddingSpace(embeddings, kg.labels)
    return _SPACES[cache_key]

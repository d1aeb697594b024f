"""KG embedding vectors in the university course's layout.

`entity_ids.del` / `relation_ids.del` hold `index<TAB>IRI` lines, `entity_embeds.npy` /
`relation_embeds.npy` the vectors (row i belongs to IRI i), so course artefacts drop in
unchanged; a manifest beside them names the graph hash and settings they were made from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bot.core.errors import EmbeddingError

ENTITY_IDS = "entity_ids.del"
RELATION_IDS = "relation_ids.del"
ENTITY_VECTORS = "entity_embeds.npy"
RELATION_VECTORS = "relation_embeds.npy"
COURSE_FILES = (ENTITY_IDS, RELATION_IDS, ENTITY_VECTORS, RELATION_VECTORS)


@dataclass
class Embeddings:
    """Entity and relation vectors with their IRIs (row i of a matrix belongs to IRI i)."""

    entities: list[str]
    relations: list[str]
    entity_vectors: np.ndarray  # (entities, dim) float32
    relation_vectors: np.ndarray  # (relations, dim) float32
    entity_row: dict[str, int] = field(init=False, repr=False)
    relation_row: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self):
        if self.entity_vectors.shape[0] != len(self.entities) or self.relation_vectors.shape[0] != len(self.relations):
            raise EmbeddingError(
                f"{len(self.entities)} entity ids for {self.entity_vectors.shape[0]} vectors, "
                f"{len(self.relations)} relation ids for {self.relation_vectors.shape[0]} vectors"
            )
        if self.entity_vectors.ndim != 2 or self.relation_vectors.ndim != 2 or self.entity_vectors.shape[1] != self.relation_vectors.shape[1]:
            raise EmbeddingError(f"vector shapes {self.entity_vectors.shape} and {self.relation_vectors.shape} do not fit together")
        self.entity_row = {e: i for i, e in enumerate(self.entities)}
        self.relation_row = {r: i for i, r in enumerate(self.relations)}

    @property
    def dim(self) -> int:
        return int(self.entity_vectors.shape[1])

    def save(self, folder: Path) -> None:
        _write_ids(folder / ENTITY_IDS, self.entities)
        _write_ids(folder / RELATION_IDS, self.relations)
        np.save(folder / ENTITY_VECTORS, self.entity_vectors.astype(np.float32))
        np.save(folder / RELATION_VECTORS, self.relation_vectors.astype(np.float32))

    @classmethod
    def load(cls, folder: Path) -> Embeddings:
        missing = [name for name in COURSE_FILES if not (folder / name).is_file()]
        if missing:
            raise EmbeddingError(f"{folder} lacks {', '.join(missing)}")
        try:
            entity_vectors = np.load(folder / ENTITY_VECTORS).astype(np.float32, copy=False)
            relation_vectors = np.load(folder / RELATION_VECTORS).astype(np.float32, copy=False)
        except (OSError, ValueError) as exc:
            raise EmbeddingError(f"{folder}: cannot read the vectors ({exc})") from exc
        return cls(_read_ids(folder / ENTITY_IDS), _read_ids(folder / RELATION_IDS), entity_vectors, relation_vectors)


def _write_ids(path: Path, iris: list[str]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for index, value in enumerate(iris):
            fh.write(f"{index}\t{value}\n")


def _read_ids(path: Path) -> list[str]:
    """`index<TAB>IRI` lines (IRIs may be written <like this>) -> IRIs in index order."""
    by_index: dict[int, str] = {}
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            index, sep, value = line.partition("\t")
            if not sep or not index.strip().isdigit():
                raise EmbeddingError(f"{path}:{number}: expected 'index<TAB>IRI', got {line[:80]!r}")
            by_index[int(index)] = value.strip().removeprefix("<").removesuffix(">")
    if sorted(by_index) != list(range(len(by_index))):
        raise EmbeddingError(f"{path}: the indices are not 0..{len(by_index) - 1}")
    return [by_index[i] for i in range(len(by_index))]

"""KG embeddings: TransE vectors for entities and relations, and link predictions from them.

The vectors are trained at build time on the bundle's entity-valued relation triples and
stored in the course layout (`entity_ids.del` / `relation_ids.del` with `index<TAB>IRI`,
`entity_embeds.npy` / `relation_embeds.npy`), so course artefacts drop in unchanged, with a
manifest naming the graph hash and the training settings they were made from. A bundle may
ship its own vectors: they are checked against the graph and, when they do not match, a
warning says why and fresh ones are trained — stale vectors are never used silently.

At answer time a prediction for (film, relation) is the nearest entity of the relation's
value group to `film + relation` (TransE: head + relation ≈ tail). It answers when neither
the graph nor the crowd has the triple, and on request ("what do the embeddings say about …").
"""

from __future__ import annotations

import importlib.util
import json
import logging
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .bundle import Bundle, Relation
from .cache import building, combine, file_digest, progress, read_manifest, write_manifest
from .contracts import Answer, Fact, Facts, Hop, Understanding
from .generation import join_labels
from .labels import LabelIndex
from .retrieval import iri
from .text import normalize

log = logging.getLogger(__name__)

VERSION = "transe-1"
FOLDER = "embeddings"
ENTITY_IDS = "entity_ids.del"
RELATION_IDS = "relation_ids.del"
ENTITY_VECTORS = "entity_embeds.npy"
RELATION_VECTORS = "relation_embeds.npy"
COURSE_FILES = (ENTITY_IDS, RELATION_IDS, ENTITY_VECTORS, RELATION_VECTORS)
TOP_PREDICTIONS = 3


class EmbeddingError(ValueError):
    """Embedding files are missing, malformed or do not fit the graph."""


# ---------------------------------------------------------------- storage (course layout)


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
    def load(cls, folder: Path) -> "Embeddings":
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


# ---------------------------------------------------------------- training input


@dataclass
class TripleSet:
    """The graph's entity-to-entity relation triples as integer ids."""

    entities: list[str]
    relations: list[str]  # property IRIs
    triples: np.ndarray  # (n, 3) int64: head, relation, tail

    @classmethod
    def from_iris(cls, rows: list[tuple[str, str, str]]) -> "TripleSet":
        entities = sorted({s for s, _, _ in rows} | {o for _, _, o in rows})
        relations = sorted({p for _, p, _ in rows})
        e_row = {e: i for i, e in enumerate(entities)}
        r_row = {r: i for i, r in enumerate(relations)}
        triples = np.array([(e_row[s], r_row[p], e_row[o]) for s, p, o in rows], dtype=np.int64).reshape(-1, 3)
        return cls(entities, relations, triples)


def entity_properties(bundle: Bundle) -> list[str]:
    return sorted({rel.property for rel in bundle.relations.values() if rel.is_entity})


def graph_triples(graph, bundle: Bundle) -> TripleSet:
    """Every stored (subject, property, object) between IRIs over the bundle's entity relations."""
    rows: list[tuple[str, str, str]] = []
    for prop in entity_properties(bundle):
        query = f"SELECT ?s ?o WHERE {{ ?s {iri(prop)} ?o . FILTER(isIRI(?s) && isIRI(?o)) }}"
        rows += [(r["s"].value, prop, r["o"].value) for r in graph.select(query) if "s" in r and "o" in r]
    return TripleSet.from_iris(rows)


# ---------------------------------------------------------------- TransE


@dataclass(frozen=True)
class TransEConfig:
    """Training settings; all of them are part of the cache key."""

    dim: int = 128
    epochs: int = 12
    batches: int = 64  # mini-batches per epoch, so small graphs get as many steps as large ones
    max_batch_size: int = 8192
    max_samples: int = 3_000_000  # caps epochs x triples, so a 2M-triple graph trains in minutes, not an hour
    learning_rate: float = 0.01
    margin: float = 1.0  # distance below which a triple counts as true
    scale: float = 4.0  # sharpness of the logistic loss around the margin
    adversarial: float = 1.0  # temperature of the self-adversarial weights of the negatives
    negatives: int = 8  # per positive
    typed_share: float = 0.5  # share of negatives drawn from the relation's own heads/tails
    seed: int = 0
    threads: int = 1

    def key(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if k != "threads"}, sort_keys=True)


def _pools(triples: np.ndarray, n_relations: int, column: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Concatenated distinct heads (column 0) or tails (2) per relation, with offsets and sizes."""
    pools, sizes = [], []
    for r in range(n_relations):
        values = np.unique(triples[triples[:, 1] == r, column])
        pools.append(values)
        sizes.append(len(values))
    sizes_arr = np.array(sizes, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes_arr)[:-1]]).astype(np.int64)
    return np.concatenate(pools) if pools else np.zeros(0, np.int64), offsets, sizes_arr


class _RowAdam:
    """Adam that touches only the rows a batch used (lazy, like SparseAdam), so a step costs
    O(batch) instead of O(entities) — what keeps training fast on large graphs."""

    def __init__(self, table, lr: float, betas=(0.9, 0.999), eps: float = 1e-8):
        import torch

        self.table, self.lr, self.betas, self.eps = table, lr, betas, eps
        self.m = torch.zeros_like(table)
        self.v = torch.zeros_like(table)
        self.steps = torch.zeros(table.shape[0], dtype=table.dtype)

    def step(self, rows, grad) -> None:
        b1, b2 = self.betas
        t = self.steps.index_select(0, rows).add_(1)
        self.steps.index_copy_(0, rows, t)
        t = t.unsqueeze(1)
        m = self.m.index_select(0, rows).mul_(b1).add_(grad, alpha=1 - b1)
        v = self.v.index_select(0, rows).mul_(b2).addcmul_(grad, grad, value=1 - b2)
        self.m.index_copy_(0, rows, m)
        self.v.index_copy_(0, rows, v)
        update = (m / (1 - b1**t)) / ((v / (1 - b2**t)).sqrt_().add_(self.eps))
        self.table.index_copy_(0, rows, self.table.index_select(0, rows) - self.lr * update)


def epochs_for(config: TransEConfig, triples: int) -> int:
    return max(1, min(config.epochs, config.max_samples // max(1, triples)))


def train_transe(data: TripleSet, config: TransEConfig, on_epoch=None) -> Embeddings:
    """TransE (L2 distance, unit-norm entities) with a logistic loss, vectorised over mini-batches.

    Negatives replace the head or the tail of each positive; half of them are drawn from the
    entities that fill that slot of the same relation (people for a director, genres for a
    genre), which teaches the ranking among candidates of the right type that answers need.
    """
    import torch

    torch.set_num_threads(max(1, config.threads))
    generator = torch.Generator().manual_seed(config.seed)
    n_ent, n_rel = len(data.entities), len(data.relations)
    bound = 6.0 / config.dim**0.5
    normalize, logsigmoid = torch.nn.functional.normalize, torch.nn.functional.logsigmoid
    entities = normalize(torch.empty(n_ent, config.dim).uniform_(-bound, bound, generator=generator), dim=1)
    relations = normalize(torch.empty(n_rel, config.dim).uniform_(-bound, bound, generator=generator), dim=1)
    entity_optimizer = _RowAdam(entities, config.learning_rate)
    relation_optimizer = _RowAdam(relations, config.learning_rate)
    all_relations = torch.arange(n_rel)
    triples = torch.from_numpy(data.triples)
    pools = [tuple(torch.from_numpy(a) for a in _pools(data.triples, n_rel, column)) for column in (0, 2)]
    k = config.negatives
    batch_size = max(1, min(config.max_batch_size, -(-len(triples) // config.batches)))
    for epoch in range(epochs_for(config, len(triples))):
        order = torch.randperm(len(triples), generator=generator)
        for start in range(0, len(triples), batch_size):
            batch = triples.index_select(0, order[start : start + batch_size])
            h, r, t = batch[:, 0], batch[:, 1], batch[:, 2]
            rk = r.repeat_interleave(k)
            corrupt_tail = torch.rand(len(rk), generator=generator) < 0.5
            typed = torch.rand(len(rk), generator=generator) < config.typed_share
            replacement = torch.randint(n_ent, (len(rk),), generator=generator)
            for column, (pool, offsets, sizes) in zip((0, 2), pools):
                pick = typed & (corrupt_tail if column == 2 else ~corrupt_tail)
                chosen = rk[pick]
                slot = offsets.index_select(0, chosen) + (torch.rand(len(chosen), generator=generator) * sizes.index_select(0, chosen)).long()
                replacement[pick] = pool.index_select(0, slot)
            neg_h = torch.where(corrupt_tail, h.repeat_interleave(k), replacement)
            neg_t = torch.where(corrupt_tail, replacement, t.repeat_interleave(k))
            rows, index = torch.unique(torch.cat([h, t, neg_h, neg_t]), return_inverse=True)
            e = entities.index_select(0, rows).requires_grad_()
            rel = relations.clone().requires_grad_()
            pos_head, pos_tail = e.index_select(0, index[: 2 * len(h)]).split(len(h))
            neg_head, neg_tail = e.index_select(0, index[2 * len(h) :]).split(len(rk))
            pos = (pos_head + rel.index_select(0, r) - pos_tail).norm(dim=1)
            neg = (neg_head + rel.index_select(0, rk) - neg_tail).norm(dim=1).view(-1, k)
            # self-adversarial negative sampling (Sun et al., RotatE): hard negatives weigh more
            weights = torch.softmax(config.adversarial * (config.margin - neg), dim=1).detach()
            loss = -(logsigmoid(config.scale * (config.margin - pos)).mean() + (weights * logsigmoid(config.scale * (neg - config.margin))).sum(1).mean()) / 2
            loss.backward()
            with torch.no_grad():
                entity_optimizer.step(rows, e.grad)
                entities.index_copy_(0, rows, normalize(entities.index_select(0, rows), dim=1))
                relation_optimizer.step(all_relations, rel.grad)
        if on_epoch is not None:
            on_epoch(epoch, loss.item())
    return Embeddings(list(data.entities), list(data.relations), entities.numpy().astype(np.float32), relations.numpy().astype(np.float32))


# ---------------------------------------------------------------- build step


def config_from(settings) -> TransEConfig:
    return TransEConfig(
        dim=settings.embedding_dim,
        epochs=settings.embedding_epochs,
        max_samples=settings.embedding_max_samples,
        seed=settings.embedding_seed,
        threads=settings.torch_threads,
    )


def _open_graph(bundle: Bundle, folder: Path):
    from .store import LocalGraph, RemoteGraph

    return RemoteGraph(bundle.endpoint) if bundle.endpoint else LocalGraph(folder / "store" / "db")


def check_against_graph(embeddings: Embeddings, data: TripleSet, max_missing: float) -> str | None:
    """Why `embeddings` do not fit the graph (None when they do)."""
    missing_rel = [r for r in data.relations if r not in embeddings.relation_row]
    if missing_rel:
        return f"{len(missing_rel)} of the graph's {len(data.relations)} relations have no vector (e.g. {missing_rel[0]})"
    missing = [e for e in data.entities if e not in embeddings.entity_row]
    if len(missing) > max_missing * max(1, len(data.entities)):
        return (
            f"{len(missing):,} of the graph's {len(data.entities):,} entities have no vector "
            f"(e.g. {', '.join(missing[:3])}); at most {max_missing:.0%} may be missing"
        )
    if missing:
        log.warning("shipped embeddings lack %d of %d graph entities (e.g. %s); predictions skip them", len(missing), len(data.entities), missing[0])
    return None


def shipped_embeddings(bundle: Bundle, key: str, data: TripleSet, max_missing: float) -> Embeddings | None:
    """The bundle's own vectors when they fit this graph; otherwise None and a warning that says why."""
    folder = bundle.embeddings
    if folder is None:
        return None
    try:
        built_from = read_manifest(folder).get("graph")
        if built_from and built_from != key:
            raise EmbeddingError(f"they were built from another graph (hash {built_from[:12]}, this graph is {key[:12]})")
        embeddings = Embeddings.load(folder)
        problem = check_against_graph(embeddings, data, max_missing)
        if problem:
            raise EmbeddingError(problem)
    except EmbeddingError as exc:
        log.warning("not using the embeddings shipped in %s: %s; training new ones instead", folder, exc)
        return None
    return embeddings


def artefact_key(settings, bundle: Bundle, key: str) -> str:
    """What the embeddings folder is keyed by: graph hash, relations, training settings, shipped files."""
    shipped = []
    if bundle.embeddings is not None:
        memo = Path(settings.cache_dir).expanduser()
        shipped = [file_digest(p, memo) for p in sorted(bundle.embeddings.glob("*")) if p.is_file()]
    return combine(VERSION, key, *entity_properties(bundle), config_from(settings).key(), str(settings.embedding_max_missing), *shipped)


def build_step(settings, bundle: Bundle, folder: Path, key: str, quiet: bool = False, force: bool = False) -> None:
    """Train (or validate the bundle's) embeddings into folder/embeddings, unless fresh ones are there."""
    target = folder / FOLDER
    wanted = artefact_key(settings, bundle, key)
    if not force and read_manifest(target).get("key") == wanted:
        return
    with progress() as bar:
        task = bar.add_task("embeddings: reading triples", total=None, visible=not quiet)
        data = graph_triples(_open_graph(bundle, folder), bundle)
        if len(data.triples) == 0:
            log.warning("the graph has no entity-to-entity triples: no embeddings")
            return
        embeddings = shipped_embeddings(bundle, key, data, settings.embedding_max_missing)
        source = f"bundle:{bundle.embeddings}" if embeddings is not None else "trained"
        if embeddings is None:
            if importlib.util.find_spec("torch") is None:
                log.warning("KG embeddings are off: torch is not installed (pip install -e '.[embeddings]')")
                return
            config = config_from(settings)
            bar.update(task, description=f"embeddings: TransE on {len(data.triples):,} triples", total=epochs_for(config, len(data.triples)), completed=0)
            embeddings = train_transe(data, config, on_epoch=lambda *_: bar.advance(task))
        with building(target) as tmp:
            embeddings.save(tmp)
            write_manifest(
                tmp,
                key=wanted,
                graph=key,
                version=VERSION,
                source=source,
                settings=asdict(config_from(settings)),
                triples=len(data.triples),
                entities=len(embeddings.entities),
            )


def load_embeddings(folder: Path, wanted: str) -> Embeddings:
    """The built embeddings in `folder`, refusing ones built for other inputs."""
    target = folder / FOLDER
    found = read_manifest(target).get("key")
    if found != wanted:
        raise EmbeddingError(f"the embeddings in {target} were built for other inputs or not at all")
    return Embeddings.load(target)


# ---------------------------------------------------------------- search


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
        r_row = self.embeddings.relation_row.get(relation.property)
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


# ---------------------------------------------------------------- answers

_SPACES: dict[tuple[str, str], EmbeddingSpace] = {}


def space_for(agent) -> EmbeddingSpace | None:
    """The agent's embedding space (loaded once per built KG), or None when no embeddings are built."""
    kg = agent.kg
    wanted = artefact_key(agent.settings, kg.bundle, kg.key)
    cache_key = (str(kg.folder), wanted)
    if cache_key not in _SPACES:
        try:
            embeddings = load_embeddings(kg.folder, wanted)
        except EmbeddingError:
            build_step(agent.settings, kg.bundle, kg.folder, kg.key)
            try:
                embeddings = load_embeddings(kg.folder, wanted)
            except EmbeddingError as exc:
                log.warning("embeddings are off: %s", exc)
                return None
        _SPACES.clear()  # one KG per process is the common case; keep memory bounded
        _SPACES[cache_key] = EmbeddingSpace(embeddings, kg.labels)
    return _SPACES[cache_key]


def predictable(understanding: Understanding, bundle: Bundle) -> Relation | None:
    """The relation of a 1-hop film -> entity-value question, else None."""
    if len(understanding.chain) != 1 or not understanding.entities:
        return None
    hop = understanding.chain[0]
    relation = bundle.relations.get(hop.relation)
    if not hop.to_value or relation is None or not relation.is_entity or understanding.entities[0].group != "film":
        return None
    return relation


def prediction_facts(space: EmbeddingSpace, understanding: Understanding, relation: Relation, kind: str) -> Facts | None:
    """The top predictions for the question's (film, relation) as embedding-sourced Facts."""
    topic = understanding.entities[0]
    predictions = space.predict(topic.iri, relation)
    if not predictions:
        return None
    labels = space.labels
    answers, facts = [], []
    for rank, (entity, distance) in enumerate(predictions, 1):
        label = labels.label_of(entity) or entity
        answers.append(Answer(label, entity, support=0, score=round(distance, 4)))
        facts.append(
            Fact(topic.iri, topic.label, Hop(relation.name, True).code, entity, label, "embedding", {"rank": rank, "distance": round(distance, 4)})
        )
    return Facts(kind, understanding.text, answers, facts, understanding.entities, understanding.chain, source="embedding")


def _ranked(answers: list[Answer]) -> str:
    first, rest = answers[0], answers[1:]
    text = f"most likely {first.label}"
    if rest:
        text += f", then {join_labels([a.label for a in rest])}"
    return text


def fallback_sentence(facts: Facts, relation: Relation) -> str:
    topic = facts.topic[0].label
    return (
        f"The knowledge graph has no {relation.noun} for {topic}, so here is a prediction from the KG embeddings "
        f"(not a stored fact): {_ranked(facts.answers)}."
    )


class EmbeddingAnswers:
    """Link-prediction answers: the fallback for missing triples and the 'embedding' question kind."""

    # "what do the embeddings say about", "according to the embeddings", "(embeddings)", ...
    REQUEST = re.compile(
        r"\b(what (do|does|would) (the |your |my )?(kg |graph )?embeddings? (say|predict|think|suggest)( about)?|"
        r"according to (the |your )?(kg |graph )?embeddings?|"
        r"(using|with|from|by) (the |your )?(kg |graph )?embeddings?|"
        r"(kg |graph )?embeddings?( prediction)?)\b[\s:,]*",
        re.I,
    )
    WH_START = re.compile(r"^\s*(who|what|which|when|where|how|whom|whose|is|are|did|does|do|list|name|tell|give|show)\b", re.I)

    def __init__(self, agent, space: EmbeddingSpace | None):
        self.agent = agent
        self.space = space

    def fallback(self, understanding: Understanding, facts: Facts) -> Facts | None:
        relation = predictable(understanding, self.agent.kg.bundle)
        space = self.space
        if space is None or relation is None:
            return None
        predicted = prediction_facts(space, understanding, relation, "factual")
        if predicted is None:
            return None
        predicted.message = fallback_sentence(predicted, relation)
        predicted.extra["graph_sparql"] = facts.extra.get("sparql", "")
        return predicted

    def handle(self, understanding: Understanding, conversation) -> Facts:
        """'What do the embeddings say about the director of X?' — predictions next to what the graph says."""
        space = self.space
        if space is None:
            return Facts("embedding", understanding.text, message="I have no KG embeddings for this knowledge graph, so I cannot make predictions.")
        rest = self.REQUEST.sub(" ", understanding.text).strip(" ?.!,:;")
        question = rest if not rest or self.WH_START.match(rest) else "what is " + rest
        inner = self.agent.understander.understand(question) if question else None
        named_only = inner is not None and inner.entities and normalize(inner.entities[0].text) == normalize(rest)
        relation = predictable(inner, self.agent.kg.bundle) if inner is not None and inner.kind == "factual" and not named_only else None
        if relation is not None:
            return self._predict(space, inner, relation)
        entities = inner.entities if inner is not None and inner.entities else understanding.entities
        if entities:
            return self._neighbours(space, understanding, entities[0])
        return Facts(
            "embedding",
            understanding.text,
            message="Which film should I ask the embeddings about? For example: \"What do the embeddings say about the director of Inception?\"",
        )

    def _predict(self, space: EmbeddingSpace, inner: Understanding, relation: Relation) -> Facts:
        topic = inner.entities[0]
        predicted = prediction_facts(space, inner, relation, "embedding")
        if predicted is None:
            return Facts("embedding", inner.text, topic=inner.entities, message=f"I have no embedding for {topic.label}, so I cannot predict its {relation.noun}.")
        graph_facts, _ = self.agent.retriever.answer(inner)
        stored = {a.iri for a in graph_facts.answers}
        for fact in predicted.facts:
            fact.detail["in_graph"] = fact.value in stored
        sentence = f"A prediction from the KG embeddings for the {relation.noun} of {topic.label}: {_ranked(predicted.answers)}."
        if graph_facts.answers:
            sentence += f" The knowledge graph itself says {join_labels([a.label for a in graph_facts.answers])}."
        else:
            sentence += f" The knowledge graph has no {relation.noun} for it."
        predicted.message = sentence
        return predicted

    def _neighbours(self, space: EmbeddingSpace, understanding: Understanding, entity) -> Facts:
        vector = space.vector(entity.iri)
        if vector is None:
            return Facts("embedding", understanding.text, topic=[entity], message=f"I have no embedding for {entity.label}.")
        group = entity.group or ""
        near = space.nearest(vector, group, TOP_PREDICTIONS, exclude={entity.iri})
        labels = space.labels
        answers = [Answer(labels.label_of(e) or e, e, support=0, score=round(d, 4)) for e, d in near]
        facts = [
            Fact(entity.iri, entity.label, "nearest", a.iri, a.label, "embedding", {"rank": i, "distance": a.score})
            for i, a in enumerate(answers, 1)
        ]
        kind = {"person": "people", "": "entities"}.get(group, f"{group.replace('_', ' ')}s")
        message = (
            f"In the KG embeddings, the {kind} closest to {entity.label} are {join_labels([a.label for a in answers])}."
            if answers
            else f"The KG embeddings have no other {kind} to compare {entity.label} with."
        )
        return Facts("embedding", understanding.text, answers, facts, [entity], source="embedding", message=message)


def install(agent) -> None:
    """Load (or, on first use of a KG, train) the embeddings now, so no answer waits for them."""
    answers = EmbeddingAnswers(agent, space_for(agent))
    agent.fallbacks.append(answers.fallback)
    agent.handlers["embedding"] = answers.handle

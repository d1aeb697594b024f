"""TransE: vectors for entities and relations such that head + relation ≈ tail, trained on the KG.

Trained at build time on the bundle's entity-valued relation triples (a compact torch
implementation: PyKEEN would pull in seventeen more packages for the same model).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import numpy as np

from bot.answering.embeddings.vectors import Embeddings
from bot.kg import queries
from bot.kg.bundle import Bundle


@dataclass
class TripleSet:
    """The graph's entity-to-entity relation triples as integer ids."""

    entities: list[str]
    relations: list[str]  # property IRIs
    triples: np.ndarray  # (n, 3) int64: head, relation, tail

    @classmethod
    def from_iris(cls, rows: list[tuple[str, str, str]]) -> TripleSet:
        entities = sorted({s for s, _, _ in rows} | {o for _, _, o in rows})
        relations = sorted({p for _, p, _ in rows})
        e_row = {e: i for i, e in enumerate(entities)}
        r_row = {r: i for i, r in enumerate(relations)}
        triples = np.array([(e_row[s], r_row[p], e_row[o]) for s, p, o in rows], dtype=np.int64).reshape(-1, 3)
        return cls(entities, relations, triples)


def entity_properties(bundle: Bundle) -> list[str]:
    return sorted({rel.property for rel in bundle.relations.values() if rel.is_entity and not rel.derived})


def graph_triples(graph, bundle: Bundle) -> TripleSet:
    """Every stored (subject, property, object) between IRIs over the bundle's entity relations."""
    rows: list[tuple[str, str, str]] = []
    for prop in entity_properties(bundle):
        rows += [(r["s"].value, prop, r["o"].value) for r in graph.scan(queries.entity_pairs(prop)) if "s" in r and "o" in r]
    return TripleSet.from_iris(rows)


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

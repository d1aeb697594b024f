"""Link prediction on the MetaQA KB: filtered hits@1/10 and MRR per relation, and training time.

2% of the (film, relation, object) entity triples are held out before TransE is trained on
the rest; each held-out triple is scored as tail prediction (film, relation, ?), ranking the
true object against (a) every entity and (b) the entities of the relation's value group (what
the bot does), with the other known objects of (film, relation) filtered out.

    .venv/bin/python bench/linkpred.py [--kb ../shared/data/metaqa/kb.txt] [--epochs 12] [--dim 128]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.answering.embeddings.transe import TransEConfig, TripleSet, graph_triples, train_transe  # noqa: E402
from bot.kg.bundle import load_bundle  # noqa: E402
from bot.kg.importers.metaqa import import_metaqa  # noqa: E402
from bot.kg.labels import build_label_index  # noqa: E402
from bot.kg.store import LocalGraph, build_store  # noqa: E402

DEFAULT_KB = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "metaqa" / "kb.txt"


def split(data: TripleSet, share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    test = rng.random(len(data.triples)) < share
    return data.triples[~test], data.triples[test]


def filtered_ranks(vectors, relations, test, known, candidates: np.ndarray | None, chunk: int = 256) -> np.ndarray:
    """1-based filtered rank of each test tail among `candidates` (all entities when None)."""
    pool = vectors if candidates is None else vectors[candidates]
    pool_norms = np.einsum("ij,ij->i", pool, pool)
    position = None if candidates is None else {int(c): i for i, c in enumerate(candidates)}
    ranks = []
    for start in range(0, len(test), chunk):
        part = test[start : start + chunk]
        queries = vectors[part[:, 0]] + relations[part[:, 1]]
        dist = pool_norms[None, :] - 2.0 * queries @ pool.T + np.einsum("ij,ij->i", queries, queries)[:, None]
        for row, (h, r, t) in enumerate(part):
            true = dist[row, t if position is None else position[int(t)]]
            others = [o for o in known[(int(h), int(r))] if o != t]
            if position is not None:
                others = [position[o] for o in others if o in position]
            d = dist[row].copy()
            d[others] = np.inf
            ranks.append(1 + int((d < true).sum()))
    return np.array(ranks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, default=DEFAULT_KB)
    parser.add_argument("--epochs", type=int, default=TransEConfig.epochs)
    parser.add_argument("--dim", type=int, default=TransEConfig.dim)
    parser.add_argument("--holdout", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    if not args.kb.is_file():
        sys.exit(f"{args.kb} does not exist")

    with tempfile.TemporaryDirectory(prefix="linkpred-") as tmp:
        out = Path(tmp) / "metaqa"
        import_metaqa(args.kb, out)
        bundle = load_bundle(out)
        graph = LocalGraph(build_store(bundle, Path(tmp) / "build"))
        labels = build_label_index(graph, bundle)
        data = graph_triples(graph, bundle)
    train, test = split(data, args.holdout, args.seed)
    print(f"triples: {len(data.triples):,} (train {len(train):,}, held out {len(test):,}); entities {len(data.entities):,}")

    config = TransEConfig(dim=args.dim, epochs=args.epochs, seed=args.seed, threads=args.threads)
    started, cpu_started = time.perf_counter(), time.process_time()
    embeddings = train_transe(TripleSet(data.entities, data.relations, train), config)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    print(f"training: {seconds:.1f} s wall, {cpu:.1f} s CPU for {args.epochs} epochs, dim {args.dim}, {args.threads} thread(s)")

    known: dict[tuple[int, int], list[int]] = defaultdict(list)
    for h, r, t in data.triples:
        known[(int(h), int(r))].append(int(t))
    name_of = {rel.property: name for name, rel in bundle.relations.items()}
    group_of = {rel.property: rel.value_class for rel in bundle.relations.values()}
    entity_group = np.array([labels.groups[labels.by_iri[e]] if e in labels.by_iri else "" for e in data.entities])
    vectors, relations = embeddings.entity_vectors, embeddings.relation_vectors

    print(f"\n{'relation':<16}{'n':>6}  {'hits@1':>7}{'hits@10':>8}{'MRR':>7}   typed: {'hits@1':>7}{'hits@10':>8}{'MRR':>7}")
    for r, prop in enumerate(data.relations):
        part = test[test[:, 1] == r]
        if len(part) == 0:
            continue
        every = filtered_ranks(vectors, relations, part, known, None)
        typed = filtered_ranks(vectors, relations, part, known, np.flatnonzero(entity_group == group_of[prop]))
        every_text, typed_text = (f"{(x <= 1).mean():>7.3f}{(x <= 10).mean():>8.3f}{(1 / x).mean():>7.3f}" for x in (every, typed))
        print(f"{name_of[prop]:<16}{len(part):>6}  {every_text}          {typed_text}")


if __name__ == "__main__":
    main()

"""Per-question latency without the LLM (p50 / p95 / max, wall clock and CPU) on MetaQA and the 2M-triple synthetic KG.

MetaQA questions are dev questions (brackets stripped) spread over the three hops; the
synthetic KG's questions are generated from its labels with the bundle's phrasings
(bot/questions.py), one random supported chain and topic entity each. CPU time is shown
beside wall time because on a shared machine wall time also measures the neighbours.

    .venv/bin/python bench/latency.py                     # both KGs, 300 questions each
    .venv/bin/python bench/latency.py --kg synth -n 1000
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from metaqa_accuracy import SHARED, bench_agent, dev_questions, metaqa_settings  # noqa: E402

from synth_kg import synth_settings  # noqa: E402

WARMUP = 10
TARGET_P95_MS = 50.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def through_people(chain, bundle) -> bool:
    """True when every hop but a final film->value hop goes through people, as in the MetaQA dev questions."""
    hops = chain.hops[:-1] if chain.hops[-1].to_value else chain.hops
    return all(bundle.relations[h.relation].value_class == "person" for h in hops)


def synth_questions(agent, n: int, seed: int, mix: str) -> list[tuple[str, int]]:
    """(question, hops) generated from the KG's labels for random supported chains.

    The topic entity of each question has the chain's first relation, so questions have
    answers, as MetaQA's do. mix "metaqa": chains shaped like MetaQA's (multi-hop paths go
    through people); mix "uniform": every supported chain, including paths through hub
    values such as a genre or a language shared by thousands of films.
    """
    from bot.kg.queries import iri
    from bot.understanding.parser import topic_role
    from bot.understanding.questions import QuestionGenerator, supported_chains

    rng = random.Random(seed)
    labels = agent.kg.labels
    bundle = agent.kg.bundle
    topics: dict[tuple[str, str], list[int]] = {}

    def topics_for(chain) -> list[int]:
        role = topic_role(bundle, chain.hops[0])
        if role not in topics:
            relation, side = role
            rows = agent.kg.graph.select(f"SELECT DISTINCT ?{side} WHERE {{ ?s {iri(bundle.relations[relation].property)} ?o }}")
            ids = (labels.by_iri.get(row[side].value) for row in rows if side in row)
            topics[role] = sorted(i for i in ids if i is not None)
        return [i for i in topics[role] if labels.groups[i] == chain.start]

    chains = [c for c in supported_chains(bundle) if mix == "uniform" or through_people(c, bundle)]
    pools = {c.code: topics_for(c) for c in chains}
    chains = [c for c in chains if pools[c.code]]
    generator = QuestionGenerator(bundle, seed=seed)
    out = []
    for _ in range(n):
        chain = rng.choice(chains)
        out.append((generator.question(chain, labels.labels[rng.choice(pools[chain.code])]), len(chain.hops)))
    return out


def metaqa_questions(n: int) -> list[tuple[str, int]]:
    from bot.replay import strip_brackets

    out = []
    for hop in (1, 2, 3):
        questions, _ = dev_questions(SHARED / "metaqa", hop, max(1, n // 3))
        out += [(strip_brackets(q), hop) for q, _ in questions]
    return out


def measure(agent, questions: list[tuple[str, int]]) -> dict:
    """Answer every question once (after a warm-up) and collect wall/CPU times and stage times."""
    for question, _ in questions[:WARMUP]:
        agent.answer(question)
    wall, cpu, answered = [], [], 0
    by_hops: dict[int, list[float]] = defaultdict(list)
    stages: dict[str, list[float]] = defaultdict(list)
    for question, hops in questions:
        w0, c0 = time.perf_counter(), time.process_time()
        reply = agent.answer(question)
        w, c = (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000
        wall.append(w)
        cpu.append(c)
        by_hops[hops].append(w)
        answered += bool(reply.answers)
        for step in reply.trace:
            stages[step.stage].append(step.ms)
    return {"wall": wall, "cpu": cpu, "by_hops": by_hops, "stages": stages, "answered": answered}


def report(name: str, m: dict) -> None:
    wall, cpu = m["wall"], m["cpu"]
    p95 = percentile(wall, 0.95)
    print(f"\n{name}: {len(wall)} questions, {m['answered'] / len(wall):.1%} answered")
    print(f"  wall ms: p50 {statistics.median(wall):6.1f}  p95 {p95:6.1f}  max {max(wall):7.1f}")
    print(f"  CPU ms:  p50 {statistics.median(cpu):6.1f}  p95 {percentile(cpu, 0.95):6.1f}  max {max(cpu):7.1f}")
    for hops, values in sorted(m["by_hops"].items()):
        print(f"  {hops}-hop wall ms: p50 {statistics.median(values):6.1f}  p95 {percentile(values, 0.95):6.1f}  (n={len(values)})")
    for stage, values in m["stages"].items():
        print(f"  stage {stage:<12} p50 {statistics.median(values):6.1f}  p95 {percentile(values, 0.95):6.1f}")
    cpu_ok, wall_ok = percentile(cpu, 0.95) <= TARGET_P95_MS, p95 <= TARGET_P95_MS
    print(f"  target p95 <= {TARGET_P95_MS:.0f} ms: CPU {'met' if cpu_ok else 'NOT met'}, wall {'met' if wall_ok else 'NOT met'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kg", choices=("metaqa", "synth", "both"), default="both")
    parser.add_argument("-n", "--questions", type=int, default=300, help="questions per KG")
    parser.add_argument("--scale", type=float, default=1.0, help="synthetic KG scale (1.0 = ~2M triples)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--mix", choices=("metaqa", "uniform"), default="metaqa",
                        help="synthetic question chains: MetaQA-shaped (through people) or all supported chains")
    parser.add_argument("--features", action="store_true", help="also install the optional features (NER, embeddings, ...)")
    args = parser.parse_args(argv)
    if args.kg in ("metaqa", "both"):
        with metaqa_settings() as settings:
            agent = bench_agent(settings, args.features)
            report("MetaQA KB", measure(agent, metaqa_questions(args.questions)))
    if args.kg in ("synth", "both"):
        agent = bench_agent(synth_settings(args.scale, args.seed), args.features)
        questions = synth_questions(agent, args.questions, args.seed, args.mix)
        report(f"synthetic KG (scale {args.scale}, {args.mix} mix)", measure(agent, questions))
    return 0


if __name__ == "__main__":
    sys.exit(main())

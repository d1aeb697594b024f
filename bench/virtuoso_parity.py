"""Answer parity: the same questions through the embedded store and through Virtuoso, compared answer by answer.

Starts a private Virtuoso (bot.kg.virtuoso) in a temporary folder, loads the demo KG and the
MetaQA KB into it, and asks every question of `../shared/data/questions/dev.tsv` (demo KG)
and of MetaQA dev (all three hops, brackets stripped) twice: of an agent on the embedded
Oxigraph store and of one on the Virtuoso endpoint. A question counts as a mismatch when the
answers, the reply text or the reply kind differ; each mismatch is printed with both replies.

    .venv/bin/python bench/virtuoso_parity.py                 # everything (~40k questions)
    .venv/bin/python bench/virtuoso_parity.py --limit 300     # 300 evenly spaced per file
    .venv/bin/python bench/virtuoso_parity.py --max-rows 1000 # Virtuoso cuts results at 1,000 rows: paging
"""

from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from metaqa_accuracy import SHARED, evenly_spaced  # noqa: E402

ENGINE_ONLY = ()  # the answering engine alone: the optional features' models are trained per graph


def demo_questions(path: Path = SHARED / "questions" / "dev.tsv") -> list[str]:
    """The questions of the demo KG's question file (id, category, question, expectation, tags)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) >= 3:
            out.append(cells[2])
    return out


def metaqa_questions(hop: int, data: Path = SHARED / "metaqa") -> list[str]:
    from bot.replay import read_questions, strip_brackets

    return [strip_brackets(q) for q, _ in read_questions(data / f"{hop}-hop" / "qa_dev.txt")]


@dataclass
class Mismatch:
    question: str
    local: tuple
    remote: tuple

    def reason(self) -> str:
        if self.local[2] != self.remote[2]:
            return f"kind {self.local[2]} vs {self.remote[2]}"
        if self.local[0] != self.remote[0]:
            if sorted(self.local[0]) == sorted(self.remote[0]):
                return "same answers, other order"
            return "other answers"
        return "same answers, other wording"


def reply_key(reply) -> tuple:
    return (reply.answers, reply.text, reply.kind)


def compare(local_agent, remote_agent, questions: list[str], on_progress=None) -> tuple[list[Mismatch], list[float], list[float]]:
    """Ask each question of both agents (a fresh conversation each); the mismatches and both latencies (ms)."""
    mismatches, local_ms, remote_ms = [], [], []
    for question in questions:
        local, remote = local_agent.answer(question), remote_agent.answer(question)
        local_ms.append(local.latency_ms)
        remote_ms.append(remote.latency_ms)
        if reply_key(local) != reply_key(remote):
            mismatches.append(Mismatch(question, reply_key(local), reply_key(remote)))
        if on_progress:
            on_progress()
    return mismatches, local_ms, remote_ms


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")


def main(argv: list[str] | None = None) -> int:
    from bot.agent import Agent
    from bot.core.cache import progress
    from bot.core.config import load_settings
    from bot.kg.bundle import load_bundle
    from bot.kg.importers.metaqa import import_metaqa
    from bot.kg.virtuoso import Virtuoso
    from bot.resources import demo_kg

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="questions per file, evenly spaced (0 = all)")
    parser.add_argument("--max-rows", type=int, default=1_000_000, help="Virtuoso's ResultSetMaxRows")
    parser.add_argument("--show", type=int, default=20, help="mismatches printed per file")
    args = parser.parse_args(argv)
    settings = load_settings().without("phrasing").with_overrides(features=ENGINE_ONLY)
    with tempfile.TemporaryDirectory(prefix="parity-") as tmp:
        metaqa = Path(tmp) / "metaqa"
        import_metaqa(SHARED / "metaqa" / "kb.txt", metaqa)
        with Virtuoso(Path(tmp) / "virtuoso", secrets.token_urlsafe(12), max_rows=args.max_rows, dirs=(Path(tmp), demo_kg())) as server:
            started = time.perf_counter()
            with progress() as bar:
                for bundle, graph in ((demo_kg(), "urn:moviebot:demo"), (metaqa, "urn:moviebot:metaqa")):
                    server.load(load_bundle(bundle), graph, progress=bar)
            print(f"Virtuoso up and loaded in {time.perf_counter() - started:.1f} s (ResultSetMaxRows {args.max_rows:,})")
            files = [("demo KG, dev.tsv", demo_kg(), "urn:moviebot:demo", demo_questions())]
            files += [(f"MetaQA dev {hop}-hop", metaqa, "urn:moviebot:metaqa", metaqa_questions(hop)) for hop in (1, 2, 3)]
            total_questions = total_mismatches = 0
            agents: dict[str, tuple] = {}
            for name, bundle, graph, questions in files:
                if graph not in agents:
                    local = Agent.from_settings(settings.with_overrides(kg=str(bundle)))
                    remote = Agent.from_settings(settings.with_overrides(kg=server.url(graph), schema=str(bundle)))
                    agents[graph] = (local, remote)
                local, remote = agents[graph]
                questions = evenly_spaced(questions, args.limit)
                with progress(transient=True) as bar:
                    task = bar.add_task(name, total=len(questions))
                    mismatches, local_ms, remote_ms = compare(local, remote, questions, lambda bar=bar, task=task: bar.advance(task))
                total_questions += len(questions)
                total_mismatches += len(mismatches)
                print(f"\n{name}: {len(questions):,} questions, {len(mismatches)} mismatches; latency p50 / p95 ms: "
                      f"embedded {statistics.median(local_ms):.1f} / {p95(local_ms):.1f}, "
                      f"Virtuoso {statistics.median(remote_ms):.1f} / {p95(remote_ms):.1f}")
                for reason, count in Counter(m.reason() for m in mismatches).most_common():
                    print(f"  {count:>5}  {reason}")
                for m in mismatches[: args.show]:
                    print(f"  - {m.question!r}\n      embedded: {m.local[1][:200]!r}\n      Virtuoso: {m.remote[1][:200]!r}")
            print(f"\ntotal: {total_questions:,} questions, {total_mismatches} mismatches (target 0)")
    return 0 if total_mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

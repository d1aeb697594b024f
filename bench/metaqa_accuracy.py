"""MetaQA dev accuracy per hop (topic-entity brackets stripped): hits@1 and answer-set F1, per hop and per type.

Imports the MetaQA KB into a temporary bundle, builds it (cached by content hash in the
moviebot cache folder, so later runs only replay) and replays the dev questions through
the agent without the LLM.

    .venv/bin/python bench/metaqa_accuracy.py                 # 1000 evenly spaced questions per hop
    .venv/bin/python bench/metaqa_accuracy.py --limit 0       # every dev question (~40k, about 15 min)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from bot.core.config import Settings, load_settings

SHARED = Path(os.environ.get("MOVIEBOT_SHARED_DATA", Path(__file__).resolve().parent.parent.parent / "shared" / "data"))


def evenly_spaced(items: list, limit: int) -> list:
    """`limit` items spread over the whole list (dev files are partly grouped by type), or all."""
    if not limit or limit >= len(items):
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


@contextmanager
def metaqa_settings(data: Path = SHARED / "metaqa"):
    """Settings for the MetaQA KB imported into a temporary bundle (its build is cached by content)."""
    from bot.kg.importers.metaqa import import_metaqa

    kb = data / "kb.txt"
    if not kb.is_file():
        sys.exit(f"{kb} is missing: set MOVIEBOT_SHARED_DATA to the folder that holds metaqa/kb.txt")
    with tempfile.TemporaryDirectory(prefix="metaqa-bundle-") as tmp:
        import_metaqa(kb, Path(tmp))
        yield load_settings().with_overrides(kg=tmp).without("phrasing")


def bench_agent(settings: Settings, features: bool):
    """An agent on the KG; without `features` only the answering engine (no NER, embeddings, crowd, images, LLM).

    The optional features train models at build time (NER, KG embeddings) that take long on
    big KGs; the engine figures leave them out unless asked to.
    """
    from bot.agent import Agent

    agent = Agent.from_settings(settings if features else settings.with_overrides(features=()))
    agent.wait_ready()  # features that load in the background (the NER tagger)
    return agent


def dev_questions(data: Path, hop: int, limit: int) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """(questions with gold answers, question types) of the hop's dev split, sampled evenly."""
    from bot.replay import read_questions

    folder = data / f"{hop}-hop"
    questions = read_questions(folder / "qa_dev.txt")
    types = (folder / "qa_dev_qtype.txt").read_text(encoding="utf-8").splitlines()[: len(questions)]
    pairs = evenly_spaced(list(zip(questions, types)), limit)
    return [q for q, _ in pairs], [t for _, t in pairs]


def run(settings: Settings, data: Path, hops: list[int], limit: int, per_type: bool, features: bool) -> None:
    from bot.dialogue.dialogue import Dialogue
    from bot.replay import replay

    started = time.perf_counter()
    agent = bench_agent(settings, features)
    print(f"agent ready in {time.perf_counter() - started:.1f} s ({agent.kg.graph.describe()}, "
          f"{'with the installed features' if features else 'engine only'})")
    print(f"{'hop':<6}{'n':>7}{'hits@1':>9}{'F1':>8}{'p50 ms':>9}{'p95 ms':>9}")
    for hop in hops:
        questions, types = dev_questions(data, hop, limit)
        result = replay(Dialogue(agent), questions, None, types, strip=True)
        s, lat = result.overall.summary(), result.latency()
        print(f"{hop}-hop{s['n']:>7}{s['hits@1']:>9.4f}{s['f1']:>8.4f}{lat['p50_ms']:>9.1f}{lat['p95_ms']:>9.1f}", flush=True)
        if per_type:
            for qtype, score in sorted(result.by_type.items()):
                t = score.summary()
                print(f"      {qtype:<36}{t['n']:>6}{t['hits@1']:>9.4f}{t['f1']:>8.4f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=1000, help="questions per hop, evenly spaced (0 = all)")
    parser.add_argument("--hops", default="1,2,3", help="comma-separated hops to replay")
    parser.add_argument("--no-types", action="store_true", help="skip the per-question-type lines")
    parser.add_argument("--features", action="store_true", help="also install the optional features (NER, embeddings, ...)")
    parser.add_argument("--data", type=Path, default=SHARED / "metaqa", help="folder with kb.txt and {1,2,3}-hop/")
    args = parser.parse_args(argv)
    hops = [int(h) for h in args.hops.split(",") if h.strip()]
    with metaqa_settings(args.data) as settings:
        run(settings, args.data, hops, args.limit, not args.no_types, args.features)
    return 0


if __name__ == "__main__":
    sys.exit(main())

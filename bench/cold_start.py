"""Cold start on the 2M-triple synthetic KG: process start -> first answer with a built store.

Times `moviebot ask --no-llm` as a fresh process several times (median, wall and CPU), then,
again in fresh processes, where the time goes: imports, opening the store, loading the
label index and the classifier, installing the features, and the first answer.
Target: a median cold start of at most 3 s.

By default the optional features (NER, KG embeddings, crowd, images) are left out, as in
the other engine benchmarks: `moviebot ask` runs with an empty feature list. With
`--features` the real `moviebot ask` runs with every installed feature; the first build
then also trains the NER model and the KG embeddings, which takes long on 2M triples.
The NER tagger loads on a background thread (Flair and torch take seconds to import):
the first answer does not wait for it, and the phases show when it is ready.

    .venv/bin/python bench/cold_start.py            # builds the synthetic KG first if needed
    .venv/bin/python bench/cold_start.py --runs 9 --features
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth_kg import synth_settings  # noqa: E402

TARGET_S = 3.0
MOVIEBOT = str(Path(sys.executable).with_name("moviebot"))


# Runs in a fresh interpreter; prints one JSON object of (wall s, CPU s) per phase.
PHASES = r"""
import json, sys, time
marks = []
def mark(name):
    marks.append((name, time.perf_counter(), time.process_time()))
mark("start")
from bot.agent import Agent
from bot.core.config import load_settings
mark("imports")
from bot.kg.graph import cache_folder, resolve_bundle
from bot.kg.labels import LabelIndex
from bot.understanding.classifier import ChainClassifier
from bot.kg.store import LocalGraph
settings = load_settings().with_overrides(kg=sys.argv[1]).without("phrasing")
bundle = resolve_bundle(settings)
folder, _ = cache_folder(bundle, settings)
mark("bundle")
LocalGraph(folder / "store" / "db")
mark("store open")
LabelIndex.load(folder / "labels.pkl")
mark("label index")
ChainClassifier.load(folder / "classifier.pkl")
mark("classifier")
from bot.kg.graph import open_kg
agent = Agent(open_kg(settings, build_if_missing=False), settings)
mark("open_kg + Agent() (repeats the loads)")
agent.load_features()
mark("features")
agent.answer(sys.argv[2])
mark("first answer")
if agent._background:
    agent.wait_ready()
    mark("background loads (NER tagger) ready")
print(json.dumps([(b[0], b[1] - a[1], b[2] - a[2]) for a, b in zip(marks, marks[1:])]))
"""


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def ask_runs(kg: str, question: str, runs: int, env: dict, features: bool) -> tuple[list[float], list[float], str]:
    walls, cpus, answer = [], [], ""
    for _ in range(runs):
        c0, w0 = child_cpu(), time.perf_counter()
        done = subprocess.run([MOVIEBOT, "--no-llm", "ask", "--kg", kg, question], capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - w0)
        cpus.append(child_cpu() - c0)
        if done.returncode != 0:
            sys.exit(f"moviebot ask failed ({done.returncode}): {done.stderr[-800:]}")
        answer = done.stdout.strip()
    return walls, cpus, answer


def phase_runs(kg: str, question: str, runs: int, env: dict, features: bool) -> dict[str, tuple[list[float], list[float]]]:
    phases: dict[str, tuple[list[float], list[float]]] = {}
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", PHASES, kg, question], capture_output=True, text=True, env=env)
        if done.returncode != 0:
            sys.exit(f"phase run failed: {done.stderr[-800:]}")
        for name, wall, cpu in json.loads(done.stdout.strip().splitlines()[-1]):
            walls, cpus = phases.setdefault(name, ([], []))
            walls.append(wall)
            cpus.append(cpu)
    return phases


def main(argv: list[str] | None = None) -> int:
    from bot.agent import build
    from bot.kg.graph import open_kg

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0, help="synthetic KG scale (1.0 = ~2M triples)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--features", action="store_true", help="run the real `moviebot ask` with every installed feature")
    args = parser.parse_args(argv)
    settings = synth_settings(args.scale, args.seed)
    if not args.features:
        settings = settings.with_overrides(features=())
    build(settings)
    labels = open_kg(settings, build_if_missing=False).labels
    film = max((i for i, g in enumerate(labels.groups) if g == "film"), key=lambda i: labels.degree[i])
    question = f"Who directed {labels.labels[film]}?"
    env = {**os.environ, "MOVIEBOT_CACHE_DIR": settings.cache_dir, "MOVIEBOT_FEATURES": ",".join(settings.features)}
    print(f"KG: {settings.kg} ({'with the installed features' if args.features else 'engine only'})\nquestion: {question}")
    ask_runs(settings.kg, question, 1, env, args.features)  # warm the OS file cache once
    walls, cpus, answer = ask_runs(settings.kg, question, args.runs, env, args.features)
    print(f"answer: {answer}")
    median = statistics.median(walls)
    print(f"\n`moviebot ask --no-llm` x{args.runs}: wall median {median:.2f} s (min {min(walls):.2f}, max {max(walls):.2f}); "
          f"CPU median {statistics.median(cpus):.2f} s")
    print(f"target <= {TARGET_S:.0f} s: wall {'met' if median <= TARGET_S else 'NOT met'}, "
          f"CPU {'met' if statistics.median(cpus) <= TARGET_S else 'NOT met'}")
    print("\nwhere the time goes (fresh process each run; medians, wall s / CPU s):")
    for name, (pw, pc) in phase_runs(settings.kg, question, args.runs, env, args.features).items():
        print(f"  {name:<32} {statistics.median(pw):6.2f} / {statistics.median(pc):5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

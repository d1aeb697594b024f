"""SPARQL typed into the chat: what the worker processes cost, per query and at a timeout.

Chat queries run in worker processes that open the store read-only (bot/answering/sparql.py),
so a query past the time limit can be stopped by killing its worker. This prints what that
design costs:

* worker start: process start to "store open, ready" (median / p95 over fresh workers);
* the first chat query of a process (rdflib's SPARQL grammar is built on first use);
* per query, warm: check (rdflib parse) + run in the worker + wording, for course-style
  queries (median / p95 wall), and the worker's own run time;
* a timeout: a cross product with a 1 s limit — how far past the limit the reply comes, and
  how long the next query waits for the replacement worker (started in the background);
* the worker's resident memory after the queries.

    .venv/bin/python bench/sparql_chat.py                 # the demo KG
    .venv/bin/python bench/sparql_chat.py --kg synth      # the 2M-triple synthetic KG (built on first use)
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth_kg import synth_settings  # noqa: E402

CROSS_PRODUCT = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line(name: str, values: list[float], unit: str = "ms") -> None:
    print(f"  {name:<62} median {statistics.median(values):8.1f} {unit}   p95 {percentile(values, 0.95):8.1f} {unit}   (n={len(values)})")


def course_queries(kg, rng: random.Random, n: int) -> dict[str, list[str]]:
    """Course-style queries about films picked at random from the label index."""
    films = [i for i, group in enumerate(kg.labels.groups) if group == "film"]
    titles = [kg.labels.labels[i].replace("\\", "").replace('"', "") for i in rng.sample(films, min(n, len(films)))]
    director = next(r.property for r in kg.bundle.relations.values() if r.name == "director")
    label = kg.bundle.label_predicate
    language = kg.bundle.language
    return {
        "director by tagged label": [f'SELECT ?name WHERE {{ ?m <{label}> "{t}"@{language} ; <{director}> ?d . ?d <{label}> ?name }}'
                                     for t in titles],
        "director by plain label (explained)": [f'SELECT ?name WHERE {{ ?m <{label}> "{t}" ; <{director}> ?d . ?d <{label}> ?name }}'
                                                for t in titles],
        "ASK": [f'ASK {{ ?m <{label}> "{t}"@{language} }}' for t in titles],
        "50 of all directed films (table, counted)": [f"SELECT ?m ?d WHERE {{ ?m <{director}> ?d }}"] * len(titles),
    }


def rss_mb(pid: int) -> float:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) / 1024
    return float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kg", choices=("demo", "synth"), default="demo")
    parser.add_argument("-n", type=int, default=40, help="queries per kind")
    parser.add_argument("--starts", type=int, default=10, help="fresh workers started to time the start")
    args = parser.parse_args(argv)

    from bot.agent import Timer
    from bot.answering.sparql import LocalRunner, SparqlAnswerer
    from bot.core.config import load_settings
    from bot.kg.graph import build_graph
    from bot.understanding.sparql_message import check_query, sparql_message

    settings = synth_settings() if args.kg == "synth" else load_settings().without("phrasing")
    kg = build_graph(settings)
    print(f"{kg.bundle.name}: {kg.graph.describe()}, {len(kg.labels.iris):,} labelled entities")

    started = time.perf_counter()
    check_query(sparql_message("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"))
    print(f"  {'first check in this process (rdflib import, grammar)':<62} once   {(time.perf_counter() - started) * 1000:8.1f} ms")

    starts = []
    for _ in range(args.starts):
        runner = LocalRunner(kg.graph.path, settings.sparql_memory_mb)
        _, notes = runner.run("ASK { ?s ?p ?o }", "ASK", 1, 1, 5.0)
        starts.append(notes["worker_start_ms"])
        isolated = notes["network_isolated"]
        runner.close()
    line(f"worker start (network namespace: {'yes' if isolated else 'no'})", starts)

    answerer = SparqlAnswerer(kg, settings)
    rng = random.Random(7)
    pid = None
    for name, texts in course_queries(kg, rng, args.n).items():
        walls, runs = [], []
        for text in texts:
            timer = Timer()
            t0 = time.perf_counter()
            reply = answerer.answer(sparql_message(text), "", timer)
            walls.append((time.perf_counter() - t0) * 1000)
            step = timer.steps[-1].detail
            runs.append(step.get("run_ms", 0.0))
            pid = step.get("worker", pid)
            if not reply.answers and "ASK" not in name:
                print(f"    (no answer: {reply.text[:100]})")
        line(f"{name}: reply", walls)
        line(f"{name}: the query in the worker", runs)

    limit = 1.0
    slow = SparqlAnswerer(kg, settings.with_overrides(sparql_time_limit_s=limit))
    overshoot, waits = [], []
    for _ in range(3):
        timer = Timer()
        t0 = time.perf_counter()
        reply = slow.answer(sparql_message(CROSS_PRODUCT), "", timer)
        overshoot.append((time.perf_counter() - t0 - limit) * 1000)
        assert "stopped it" in reply.text, reply.text
        timer = Timer()
        slow.answer(sparql_message("ASK { ?s ?p ?o }"), "", timer)
        waits.append(timer.steps[-1].detail["worker_wait_ms"])
    line(f"cross product, {limit:g} s limit: reply after the limit", overshoot)
    line("next query's wait for the replacement worker", waits)
    slow.close()
    if pid:
        print(f"  {'worker resident memory after the queries':<62} {rss_mb(pid):8.1f} MB")
    answerer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

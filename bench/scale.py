"""The scaling curve: synthetic KGs of 0.2M, 2M and 20M triples, embedded Oxigraph store vs Virtuoso.

For each scale (bench/synth_kg.py --scale 0.1 / 1 / 10) and each engine:

* build / load: embedded, Oxigraph's bulk load into the store; Virtuoso, its bulk loader
  (ld_dir + rdf_loader_run) into a private server; then, for both, the label index and the
  question classifier (built from the store, or over HTTP from the endpoint);
* disk: the store folder, or Virtuoso's database files;
* cold start: `moviebot ask --no-llm` from process start to the answer, median of --runs;
* latency p50 / p95 (ms, wall) per question in one warm process, for the MetaQA-shaped mix
  (bench/latency.py's generated questions through people) and for compositional forms
  (counts, superlatives, comparisons, yes/no, constraints);
* RSS of the bot process after the questions (and of the Virtuoso server).

Build times are measured when a build happens and kept with the results in
$MOVIEBOT_CACHE_DIR/bench/scale-results.json, so later runs re-measure only the rest
(`--rebuild` measures the builds again). The table goes to stdout and into bench/README.md
(between the scale-table markers), the curve to bench/scale.png when matplotlib is installed.
The machine's load average is printed with the figures: on a shared machine wall times also
measure the neighbours.

    .venv/bin/python bench/scale.py                        # 0.1, 1 and 10 (20M triples: ~3 GB of N-Triples)
    .venv/bin/python bench/scale.py --scales 0.1,1 -n 300
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency import synth_questions  # noqa: E402

from synth_kg import synth_settings  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MOVIEBOT = str(Path(sys.executable).with_name("moviebot"))
MARK_START, MARK_END = "<!-- scale-table -->", "<!-- /scale-table -->"
WARMUP = 10


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# ---------------------------------------------------------------------------------------------- questions


def compositional_questions(agent, n: int, seed: int) -> list[str]:
    """Counts, superlatives, comparisons, yes/no and constraint questions about the KG's directors, actors and films."""
    from bot.kg.queries import iri

    rng = random.Random(seed)
    bundle, labels = agent.kg.bundle, agent.kg.labels
    director = iri(bundle.relations["director"].property)
    cast = iri(bundle.relations["cast_member"].property)
    pairs = agent.kg.graph.select(f"SELECT ?f ?p WHERE {{ ?f {director} ?p }} LIMIT 20000")
    actors = agent.kg.graph.select(f"SELECT DISTINCT ?p WHERE {{ ?f {cast} ?p }} LIMIT 20000")
    unique = [(r["f"].value, r["p"].value) for r in pairs if len(labels.lookup(_norm(labels.label_of(r["f"].value) or ""))) == 1]
    films = [f for f, _ in unique]
    people = [labels.label_of(p) for _, p in unique]
    actor_names = [labels.label_of(r["p"].value) for r in actors]
    genres = [labels.labels[i] for i, g in enumerate(labels.groups) if g == "genre"]
    forms = [
        lambda: f"How many films has {rng.choice(people)} directed?",
        lambda: f"What is {rng.choice(people)}'s longest film?",
        lambda: f"Which is longer, {labels.label_of(rng.choice(films))} or {labels.label_of(rng.choice(films))}?",
        lambda: f"Is {labels.label_of(rng.choice(films))} older than {labels.label_of(rng.choice(films))}?",
        lambda: (lambda f, p: f"Did {labels.label_of(p)} direct {labels.label_of(f)}?")(*rng.choice(unique)),
        lambda: f"films {rng.choice(actor_names)} made after {rng.randint(1960, 2010)}",
        lambda: f"{rng.choice(genres)}s from the {rng.choice(['70', '80', '90'])}s",
    ]
    return [rng.choice(forms)() for _ in range(n)]


def _norm(text: str) -> str:
    from bot.core.text import normalize

    return normalize(text)


# ---------------------------------------------------------------------------------------------- worker


def worker(args) -> int:
    """In a fresh process: open the agent, (write the questions,) answer them, print figures as JSON."""
    from bot.agent import Agent
    from bot.core.config import load_settings

    started = time.perf_counter()
    settings = load_settings().without("phrasing").with_overrides(kg=args.kg, schema=args.schema, features=())
    agent = Agent.from_settings(settings)
    opened_s = time.perf_counter() - started
    qfile = Path(args.questions)
    if args.make_questions:
        mix = [q for q, _ in synth_questions(agent, args.n, args.seed, "metaqa")]
        qfile.write_text(json.dumps({"metaqa": mix, "compositional": compositional_questions(agent, args.n, args.seed)}), encoding="utf-8")
    sets = json.loads(qfile.read_text(encoding="utf-8"))
    out = {"open_s": opened_s, "entities": len(agent.kg.labels.iris)}
    for name, questions in sets.items():
        for question in questions[:WARMUP]:
            agent.answer(question)
        wall, answered, errors = [], 0, 0
        for question in questions:
            t0 = time.perf_counter()
            reply = agent.answer(question)
            wall.append((time.perf_counter() - t0) * 1000)
            answered += bool(reply.answers)
            errors += reply.error
        out[name] = {"n": len(wall), "p50_ms": statistics.median(wall), "p95_ms": percentile(wall, 0.95), "max_ms": max(wall),
                     "answered": answered / len(wall), "errors": errors}
    out["rss_mb"] = rss_mb()
    print(json.dumps(out))
    return 0


def run_worker(kg: str, schema: str, questions: Path, make: bool, n: int, seed: int, env: dict) -> dict:
    command = [sys.executable, __file__, "--worker", "--kg", kg, "--schema", schema, "--questions", str(questions), "-n", str(n),
               "--seed", str(seed), *(["--make-questions"] if make else [])]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"worker failed on {kg}: {done.stderr[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cold_starts(kg: str, question: str, runs: int, env: dict) -> list[float]:
    walls = []
    for _ in range(runs + 1):  # the first run warms the OS file cache
        t0 = time.perf_counter()
        done = subprocess.run([MOVIEBOT, "--no-llm", "ask", "--kg", kg, question], capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - t0)
        if done.returncode != 0:
            sys.exit(f"moviebot ask failed on {kg}: {done.stderr[-800:]}")
    return walls[1:]


# ---------------------------------------------------------------------------------------------- one scale


def measure_scale(scale: float, args, results: dict) -> dict:
    from bot.agent import build
    from bot.core.cache import progress
    from bot.kg.bundle import load_bundle
    from bot.kg.graph import cache_folder, resolve_bundle
    from bot.kg.store import build_store
    from bot.kg.virtuoso import Virtuoso

    settings = synth_settings(scale, args.seed).with_overrides(features=())
    bundle = load_bundle(settings.kg)
    triples = sum(1 for _ in open(bundle.graph_files[0], "rb"))
    key = f"{scale:g}"
    row = results.setdefault(key, {"scale": scale})
    row.update(triples=triples, nt_bytes=bundle.graph_files[0].stat().st_size)
    env = {**os.environ, "MOVIEBOT_FEATURES": "", "MOVIEBOT_CACHE_DIR": settings.cache_dir}
    print(f"\n== scale {scale:g}: {triples:,} triples (load average {loadavg()})", flush=True)

    # embedded
    folder, _ = cache_folder(resolve_bundle(settings), settings)
    if args.rebuild or "embedded_load_s" not in row or not (folder / "store").is_dir():
        if (folder / "store").exists():
            shutil.rmtree(folder / "store")
        t0 = time.perf_counter()
        build_store(bundle, folder)
        row["embedded_load_s"] = time.perf_counter() - t0
        for artefact in ("labels.pkl", "classifier.pkl"):  # built again (and timed) from the new store
            (folder / artefact).unlink(missing_ok=True)
        t0 = time.perf_counter()
        build(settings)
        row["embedded_index_s"] = time.perf_counter() - t0
    else:
        build(settings)
    row["embedded_disk_bytes"] = folder_bytes(folder / "store")
    qfile = Path(settings.cache_dir) / "bench" / f"scale-questions-{key}-seed{args.seed}-n{args.n}.json"
    embedded = run_worker(settings.kg, settings.kg, qfile, not qfile.is_file(), args.n, args.seed, env)
    question = json.loads(qfile.read_text())["metaqa"][0]
    row["embedded"] = embedded
    row["embedded_cold_s"] = statistics.median(cold_starts(settings.kg, question, args.runs, env))
    print(f"embedded: load {row['embedded_load_s']:.1f} s + index {row['embedded_index_s']:.1f} s, disk {row['embedded_disk_bytes'] / 1e6:,.0f} MB, "
          f"cold start {row['embedded_cold_s']:.2f} s, RSS {embedded['rss_mb']:,.0f} MB, "
          f"mix p50/p95 {embedded['metaqa']['p50_ms']:.1f}/{embedded['metaqa']['p95_ms']:.1f} ms, "
          f"compositional {embedded['compositional']['p50_ms']:.1f}/{embedded['compositional']['p95_ms']:.1f} ms", flush=True)
    if args.no_virtuoso:
        return row

    # Virtuoso
    vfolder = Path(settings.cache_dir) / "bench" / f"virtuoso-scale{key}-seed{args.seed}"
    password_file = vfolder.parent / f"{vfolder.name}.password"
    if args.rebuild and vfolder.exists():
        shutil.rmtree(vfolder)
    password = password_file.read_text().strip() if password_file.is_file() and vfolder.exists() else secrets.token_urlsafe(12)
    password_file.write_text(password)
    server = Virtuoso(vfolder, password, graph="urn:moviebot:synth", memory_mb=args.virtuoso_mb, max_rows=10_000_000,
                      dirs=(bundle.root,))
    t0 = time.perf_counter()
    server.start()
    row["virtuoso_start_s"] = time.perf_counter() - t0
    try:
        if args.rebuild or "virtuoso_load_s" not in row or server.count() != row.get("virtuoso_triples"):
            t0 = time.perf_counter()
            with progress() as bar:
                row["virtuoso_triples"] = server.load(bundle, "urn:moviebot:synth", progress=bar)
            row["virtuoso_load_s"] = time.perf_counter() - t0
            remote = settings.with_overrides(kg=server.url(), schema=settings.kg)
            t0 = time.perf_counter()
            build(remote, force=True)
            row["virtuoso_index_s"] = time.perf_counter() - t0
        else:
            build(settings.with_overrides(kg=server.url(), schema=settings.kg))  # (re)builds what changed code made stale, untimed
        row["virtuoso_disk_bytes"] = server.disk_bytes()
        remote_env = {**env, "MOVIEBOT_SCHEMA": settings.kg}
        virtuoso = run_worker(server.url(), settings.kg, qfile, False, args.n, args.seed, remote_env)
        row["virtuoso"] = virtuoso
        row["virtuoso_cold_s"] = statistics.median(cold_starts(server.url(), question, args.runs, remote_env))
        row["virtuoso_server_rss_mb"] = rss_mb(server.process.pid)
    finally:
        server.stop()
    row["loadavg"] = loadavg()
    print(f"Virtuoso: start {row['virtuoso_start_s']:.1f} s, load {row['virtuoso_load_s']:.1f} s + index {row['virtuoso_index_s']:.1f} s, "
          f"disk {row['virtuoso_disk_bytes'] / 1e6:,.0f} MB, cold start {row['virtuoso_cold_s']:.2f} s, bot RSS {virtuoso['rss_mb']:,.0f} MB, "
          f"server RSS {row['virtuoso_server_rss_mb']:,.0f} MB, mix p50/p95 {virtuoso['metaqa']['p50_ms']:.1f}/{virtuoso['metaqa']['p95_ms']:.1f} ms, "
          f"compositional {virtuoso['compositional']['p50_ms']:.1f}/{virtuoso['compositional']['p95_ms']:.1f} ms", flush=True)
    return row


# ---------------------------------------------------------------------------------------------- report


def table(results: dict) -> str:
    def cell(row, engine, path, fmt):
        value = row.get(engine, {})
        for part in path:
            value = value.get(part, {}) if isinstance(value, dict) else {}
        return fmt.format(value) if isinstance(value, (int, float)) else "—"

    lines = ["| scale | triples | engine | load s | index + classifier s | disk MB | cold start s | bot RSS MB | mix p50 / p95 ms | "
             "compositional p50 / p95 ms | answered (mix / comp.) |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for key in sorted(results, key=float):
        row = results[key]
        for engine in ("embedded", "virtuoso"):
            if engine not in row:
                continue
            server = f" (+ server {row['virtuoso_server_rss_mb']:,.0f})" if engine == "virtuoso" and "virtuoso_server_rss_mb" in row else ""
            lines.append(
                f"| {row['scale']:g} | {row['triples']:,} | {'Oxigraph (embedded)' if engine == 'embedded' else 'Virtuoso 7.2'} | "
                f"{row.get(engine + '_load_s', float('nan')):.1f} | {row.get(engine + '_index_s', float('nan')):.1f} | "
                f"{row.get(engine + '_disk_bytes', 0) / 1e6:,.0f} | {row.get(engine + '_cold_s', float('nan')):.2f} | "
                f"{cell(row, engine, ['rss_mb'], '{:,.0f}')}{server} | "
                f"{cell(row, engine, ['metaqa', 'p50_ms'], '{:.1f}')} / {cell(row, engine, ['metaqa', 'p95_ms'], '{:.1f}')} | "
                f"{cell(row, engine, ['compositional', 'p50_ms'], '{:.1f}')} / {cell(row, engine, ['compositional', 'p95_ms'], '{:.1f}')} | "
                f"{cell(row, engine, ['metaqa', 'answered'], '{:.0%}')} / {cell(row, engine, ['compositional', 'answered'], '{:.0%}')} |")
    return "\n".join(lines)


def plot(results: dict, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    keys = sorted(results, key=float)
    x = [results[k]["triples"] / 1e6 for k in keys]
    panels = [("cold start (s)", lambda r, e: r.get(f"{e}_cold_s")), ("bot RSS (MB)", lambda r, e: r.get(e, {}).get("rss_mb")),
              ("MetaQA-shaped p95 (ms)", lambda r, e: r.get(e, {}).get("metaqa", {}).get("p95_ms")),
              ("compositional p95 (ms)", lambda r, e: r.get(e, {}).get("compositional", {}).get("p95_ms")),
              ("load + index (s)", lambda r, e: (r.get(f"{e}_load_s") or 0) + (r.get(f"{e}_index_s") or 0) or None),
              ("disk (MB)", lambda r, e: (r.get(f"{e}_disk_bytes") or 0) / 1e6 or None)]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    for ax, (title, get) in zip(axes.flat, panels):
        for engine, label in (("embedded", "Oxigraph (embedded)"), ("virtuoso", "Virtuoso")):
            points = [(xi, get(results[k], engine)) for xi, k in zip(x, keys) if get(results[k], engine) is not None]
            if points:
                ax.plot(*zip(*points), marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("million triples")
        ax.grid(True, which="both", alpha=0.3)
    axes.flat[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def write_readme(text: str, readme: Path = ROOT / "bench" / "README.md") -> None:
    content = readme.read_text(encoding="utf-8")
    block = f"{MARK_START}\n{text}\n{MARK_END}"
    if MARK_START in content:
        content = re.sub(re.escape(MARK_START) + r".*?" + re.escape(MARK_END), lambda _: block, content, flags=re.S)
    else:
        content = content.rstrip("\n") + "\n\n" + block + "\n"
    readme.write_text(content, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="0.1,1,10", help="synthetic KG scales (1 = ~2M triples)")
    parser.add_argument("-n", type=int, default=300, help="questions per set")
    parser.add_argument("--runs", type=int, default=3, help="cold starts per engine and scale")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--virtuoso-mb", type=int, default=4096, help="Virtuoso's buffer memory")
    parser.add_argument("--rebuild", action="store_true", help="measure the builds and loads again")
    parser.add_argument("--no-virtuoso", action="store_true", help="the embedded store only")
    parser.add_argument("--no-readme", action="store_true", help="do not write the table into bench/README.md")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--make-questions", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--kg", help=argparse.SUPPRESS)
    parser.add_argument("--schema", help=argparse.SUPPRESS)
    parser.add_argument("--questions", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    from bot.core.config import load_settings

    results_file = Path(load_settings().cache_dir).expanduser() / "bench" / "scale-results.json"
    results_file.parent.mkdir(parents=True, exist_ok=True)
    results = json.loads(results_file.read_text()) if results_file.is_file() else {}
    for scale in (float(s) for s in args.scales.split(",") if s.strip()):
        measure_scale(scale, args, results)
        results_file.write_text(json.dumps(results, indent=2))
    text = table(results)
    print("\n" + text)
    print(f"\nload average at the end: {loadavg()}")
    if plot(results, ROOT / "bench" / "scale.png"):
        print("curve: bench/scale.png")
    if not args.no_readme:
        write_readme(text)
        print("table written to bench/README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Recommendation sanity, diversity and latency.

For directors with at least 4 films, two of their films are given as liked films and the
top 10 recommendations are checked: does another film by the same director, or a film of
the liked films' main genre, appear? It prints the hit rates (with the same figures for 10
random films as a baseline), the average number of distinct directors in the top 10, and
the latency of the whole recommendation handler (ranking + explanation query) at the chat
default of 5 films.

    .venv/bin/python bench/recommend.py --kg /tmp/metaqa-bundle [--pairs 300]
    .venv/bin/python bench/recommend.py --kg /tmp/synth2m --director director --genre genre --epochs 1
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.agent import Agent  # noqa: E402
from bot.answering.embeddings.space import space_for  # noqa: E402
from bot.answering.recommend import Recommender  # noqa: E402
from bot.core.config import Settings  # noqa: E402
from bot.core.contracts import LinkedEntity, Understanding  # noqa: E402
from bot.kg.graph import KG, open_kg  # noqa: E402
from bot.kg.queries import iri  # noqa: E402


def open_light_kg(settings: Settings) -> KG:
    """The KG built by the real pipeline (only the embeddings feature is needed here)."""
    return open_kg(settings)


def pairs_of(graph, bundle, director_rel: str, genre_rel: str) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """director -> films, film -> genres."""
    def values(rel_name: str) -> dict[str, set[str]]:
        rel = bundle.relations[rel_name]
        film, value = ("?s", "?o") if rel.direction == "forward" else ("?o", "?s")
        out = defaultdict(set)
        for row in graph.select(f"SELECT {film} {value} WHERE {{ ?s {iri(rel.property)} ?o }}"):
            out[row[film[1:]].value].add(row[value[1:]].value)
        return out

    by_director = defaultdict(list)
    for film, directors in values(director_rel).items():
        for d in directors:
            by_director[d].append(film)
    return by_director, values(genre_rel)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kg", required=True, help="bundle folder (e.g. from `moviebot import metaqa`)")
    parser.add_argument("--cache-dir", default="/tmp/moviebot-bench-cache")
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--director", default="directed_by", help="relation name of the director")
    parser.add_argument("--genre", default="has_genre", help="relation name of the genre")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--diversity", type=float, default=Settings.recommend_diversity)
    parser.add_argument("--epochs", type=int, default=Settings.embedding_epochs, help="TransE epochs (quality only; latency depends on the graph size)")
    args = parser.parse_args()

    settings = Settings(kg=str(Path(args.kg).resolve()), cache_dir=args.cache_dir, features=("embeddings",), embedding_epochs=args.epochs)
    started = time.perf_counter()
    kg = open_light_kg(settings)
    agent = Agent(kg, settings)
    recommender = Recommender(agent, space_for(agent.kg, settings), diversity=args.diversity)
    top10 = Recommender(agent, space_for(agent.kg, settings), count=10, diversity=args.diversity)
    print(f"opened {kg.bundle.name} in {time.perf_counter() - started:.1f} s; films with vectors: {len(recommender.ranker.iris):,}")

    by_director, genres = pairs_of(kg.graph, kg.bundle, args.director, args.genre)
    director_of = defaultdict(set)
    for d, films in by_director.items():
        for f in films:
            director_of[f].add(d)
    eligible = sorted(d for d, films in by_director.items() if len([f for f in films if f in recommender.ranker.position]) >= 4)
    rng = random.Random(args.seed)
    chosen = rng.sample(eligible, min(args.pairs, len(eligible)))
    print(f"directors with >= 4 films: {len(eligible):,}; sampled {len(chosen)}")

    labels = kg.labels
    all_films = recommender.ranker.iris
    hits = Counter()
    distinct_directors, latencies, cpu_times = [], [], []
    for d in chosen:
        films = sorted(f for f in by_director[d] if f in recommender.ranker.position)
        liked = rng.sample(films, 2)
        genre_counts = Counter(g for f in liked for g in genres.get(f, ()))
        main_genre = min(genre_counts, key=lambda g: (-genre_counts[g], labels.info(g)[2] if labels.info(g) else 0)) if genre_counts else None
        entities = [LinkedEntity(labels.label_of(f), f, labels.label_of(f), 100.0, "film") for f in liked]
        understanding = Understanding("recommend films like " + " and ".join(e.label for e in entities), "recommendation", entities=entities)

        top = [a.iri for a in top10.handle(understanding, None).answers]
        t0, c0 = time.perf_counter(), time.process_time()
        recommender.handle(understanding, None)
        latencies.append((time.perf_counter() - t0) * 1000)
        cpu_times.append((time.process_time() - c0) * 1000)

        for name, picks in (("model", top), ("random", rng.sample(all_films, 10))):
            same_director = any(d in director_of[p] for p in picks)
            same_genre = main_genre is not None and any(main_genre in genres.get(p, ()) for p in picks)
            hits[name, "director"] += same_director
            hits[name, "genre"] += same_genre
            hits[name, "either"] += same_director or same_genre
        distinct_directors.append(len({x for p in top for x in director_of[p]}))

    n = len(chosen)
    print(f"\n{'top 10 of':<12}{'same director':>15}{'main genre':>12}{'either':>9}")
    for name in ("model", "random"):
        print(f"{name:<12}{hits[name, 'director'] / n:>15.3f}{hits[name, 'genre'] / n:>12.3f}{hits[name, 'either'] / n:>9.3f}")
    print(f"distinct directors in the top 10: {statistics.mean(distinct_directors):.2f} (mean)")
    for name, values in (("wall", latencies), ("CPU", cpu_times)):
        values.sort()
        p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
        print(f"recommendation {name} time (5 films, ranking + explanation query): median {statistics.median(values):.1f} ms, p95 {p95:.1f} ms, max {values[-1]:.1f} ms")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()

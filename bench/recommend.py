"""Recommendation sanity, diversity and latency; with --loo, a leave-one-out test of the rankings on the demo KG.

--loo (on the demo KG by default): for every director and screenwriter with at least three films, each film in turn is
hidden and the others are the seeds; the hidden film should rank among the top picks. The three rankings of
bot.answering.recommend (the mean embedding's nearest films, the graph-overlap baseline, their combination) are compared
by hit@5, hit@10 and MRR@10 (MMR off: the ranking itself), with the distinct directors of the top 10 (MMR on) as the
diversity each keeps. A hidden film in a seed's series is skipped (the recommender never recommends those). Then the
whole recommendation request -- reading the message, ranking, the explanation query -- is timed on requests written from
the graph's own names (films, a genre and a decade, a person, running times, exclusions), without the LLM.

    .venv/bin/python bench/recommend.py --loo

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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.agent import Agent  # noqa: E402
from bot.answering.embeddings.space import space_for  # noqa: E402
from bot.answering.recommend import COMBINED, EMBEDDING, OVERLAP, Recommender  # noqa: E402
from bot.core.config import Settings  # noqa: E402
from bot.core.contracts import LinkedEntity, Understanding  # noqa: E402
from bot.core.text import normalize  # noqa: E402
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


def films_of_people(kg, relation: str, position: dict[str, int]) -> dict[str, list[str]]:
    """person -> their films (with vectors) in `relation`, from the film table."""
    table, labels = kg.films, kg.labels
    column = table.entity[relation]
    out: dict[str, list[str]] = defaultdict(list)
    owners = np.repeat(np.arange(len(table.films)), np.diff(column.film_ptr))
    for film_at, value in zip(owners, column.values):
        film = labels.iris[table.films[film_at]]
        if film in position:
            out[labels.iris[value]].append(film)
    return out


def leave_one_out(agent, rankings: tuple[str, ...], relations: tuple[str, ...], min_films: int, diversity: float,
                  limit: int = 0, seed: int = 0) -> None:
    space = space_for(agent.kg, agent.settings)
    recommenders = {r: Recommender(agent, space, count=10, diversity=0.0, ranking=r) for r in rankings}
    ranker0 = next(iter(recommenders.values())).ranker
    kg, labels = agent.kg, agent.kg.labels
    sets = next(iter(recommenders.values())).sets
    cases = []
    for relation in relations:
        for person, films in films_of_people(kg, relation, ranker0.position).items():
            films = sorted(set(films))
            if len(films) < min_films:
                continue
            for hidden in films:
                seeds = [f for f in films if f != hidden]
                series = {m for f in seeds for s in sets.series_of(f) for m in sets.members(s)}
                if hidden in series:
                    continue
                cases.append((relation, person, hidden, seeds))
    total = len(cases)
    if limit and total > limit:
        cases = random.Random(seed).sample(cases, limit)
    print(f"leave-one-out cases: {len(cases)} of {total} ({' and '.join(relations)} with >= {min_films} films on {kg.bundle.name})")
    director_of = films_of_people(kg, relations[0], ranker0.position)
    directors = defaultdict(set)
    for d, films in director_of.items():
        for f in films:
            directors[f].add(d)
    print(f"\n{'ranking':<11}{'hit@5':>7}{'hit@10':>8}{'MRR@10':>8}{'directors in top 10':>21}{'p95 ms':>8}")
    for ranking, recommender in recommenders.items():
        ranker = recommender.ranker
        hits5 = hits10 = rr = 0.0
        varied, times = [], []
        for _relation, _person, hidden, seeds in cases:
            blocked = {ranker.position[f] for f in seeds} | {ranker.position[labels.iris[i]] for f in seeds
                                                             for i in labels.lookup(normalize(labels.label_of(f) or ""))
                                                             if labels.iris[i] in ranker.position}
            t0 = time.perf_counter()
            picks, _ = ranker.rank(seeds, blocked, 10, 0.0, None, ranking)
            times.append((time.perf_counter() - t0) * 1000)
            order = [p.iri for p in picks]
            if hidden in order:
                at = order.index(hidden)
                hits5 += at < 5
                hits10 += 1
                rr += 1.0 / (at + 1)
            mixed, _ = ranker.rank(seeds, blocked, 10, diversity, None, ranking)
            varied.append(len({d for p in mixed for d in directors[p.iri]}))
        n = max(1, len(cases))
        times.sort()
        print(f"{ranking:<11}{hits5 / n:>7.3f}{hits10 / n:>8.3f}{rr / n:>8.3f}{statistics.mean(varied):>21.2f}"
              f"{times[min(len(times) - 1, int(0.95 * (len(times) - 1)))]:>8.1f}")


def request_latency(agent, n: int, seed: int) -> None:
    """The whole recommendation request (read, ranked, explained), timed through the agent without the LLM."""
    rng = random.Random(seed)
    labels = agent.kg.labels
    films = [labels.labels[i] for i in labels.films_by_fame()[:300]]
    genres = sorted({labels.labels[i] for i, g in enumerate(labels.groups) if g == "genre"})
    people = [labels.labels[i] for i in sorted((i for i, g in enumerate(labels.groups) if g == "person"), key=lambda i: -labels.degree[i])[:100]]
    shapes = [
        lambda: f"something like {rng.choice(films)} please",
        lambda: f"I loved {rng.choice(films)} and {rng.choice(films)}, what should I watch next?",
        lambda: f"recommend a {rng.choice(genres)} film from the {rng.choice([70, 80, 90])}s",
        lambda: f"I'm a big fan of {rng.choice(people)}, any recommendations?",
        lambda: f"films like {rng.choice(films)} but nothing over {rng.choice([90, 100, 120])} minutes",
        lambda: f"anything similar to {rng.choice(films)} that isn't by {rng.choice(people)}?",
        lambda: f"suggest 3 {rng.choice(genres)} movies, I've already seen {rng.choice(films)}",
    ]
    times = []
    for k in range(n):
        text = shapes[k % len(shapes)]()
        t0 = time.perf_counter()
        reply = agent.answer(text)
        times.append((time.perf_counter() - t0) * 1000)
        assert reply.kind != "error", (text, reply.text)
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    print(f"\nrecommendation requests through the agent (n={n}, no LLM): median {statistics.median(times):.1f} ms, "
          f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms (target p95 <= 50 ms)")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kg", help="bundle folder (e.g. from `moviebot import metaqa`); --loo: the demo KG when not given")
    parser.add_argument("--loo", action="store_true", help="leave-one-out comparison of the rankings, and request latency")
    parser.add_argument("--min-films", type=int, default=3)
    parser.add_argument("--requests", type=int, default=300, help="--loo: recommendation requests timed through the agent")
    parser.add_argument("--relations", default="director,screenwriter", help="--loo: whose bodies of work (the first: diversity)")
    parser.add_argument("--cases", type=int, default=0, help="--loo: at most this many cases (a seeded sample; 0 = all)")
    parser.add_argument("--cache-dir", default="/tmp/moviebot-bench-cache")
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--director", default="directed_by", help="relation name of the director")
    parser.add_argument("--genre", default="has_genre", help="relation name of the genre")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--diversity", type=float, default=Settings.recommend_diversity)
    parser.add_argument("--epochs", type=int, default=Settings.embedding_epochs, help="TransE epochs (quality only; latency depends on the graph size)")
    args = parser.parse_args()
    if args.loo:
        where = {"kg": str(Path(args.kg).resolve()), "cache_dir": args.cache_dir, "embedding_epochs": args.epochs} if args.kg else {}
        settings = Settings(**where, features=("embeddings", "recommend"))
        agent = Agent.from_settings(settings)
        leave_one_out(agent, (EMBEDDING, OVERLAP, COMBINED), tuple(args.relations.split(",")), args.min_films, args.diversity,
                      args.cases, args.seed)
        if args.requests:
            request_latency(agent, args.requests, args.seed)
        return
    if not args.kg:
        parser.error("--kg is required without --loo")

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

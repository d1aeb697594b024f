"""Recommendations: films near the mean embedding of the films someone likes, diversified
with MMR and explained by what they share with those films in the graph.

"Given that I like A, B and C, recommend …", "movies similar to X", "something like X and Y":
the liked films' TransE vectors are averaged (per theme when the films have little in
common), the nearest films are ranked by a vectorised distance over the film matrix, the
liked films and their same-title duplicates and remakes are left out, and maximal marginal
relevance keeps five results from being five sequels. Each pick is explained by one SPARQL
query over the neighbours it shares with a liked film ("same director as A", "shares the
genre and two cast members with B"), preferring rare shared neighbours over common ones.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from bot.answering.compose import best_matching_films
from bot.answering.embeddings.space import EmbeddingSpace, space_for
from bot.core.contracts import Answer, Constraint, Fact, Facts, LinkedEntity, RecommendationRequest, Seed, Understanding
from bot.core.features import Contribution, Feature
from bot.core.kinds import Kind
from bot.core.text import join_labels, normalize
from bot.kg import queries
from bot.kg.bundle import Bundle
from bot.understanding.recommendation_words import is_catalogue

CANDIDATES = 200  # nearest films considered by MMR
CONDITION_POOL = 5000  # the best-known films meeting a recommendation's conditions ("like Heat but from the 2000s") ranked by closeness
TOGETHER_PERCENTILE = 5.0  # liked films closer than this percentile of random film pairs form one theme
CALIBRATION_PAIRS = 4000
MIN_FILMS_FOR_THEMES = 50  # below this, random pairs say too little to call two films unrelated
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
MAX_REASON_PARTS = 3
EMBEDDING, OVERLAP, COMBINED = "embedding", "overlap", "combined"  # how films are ranked (bench/recommend.py compares them)
OVERLAP_WEIGHT = 2.0  # in "combined": the overlap's z-score against the distance's (bench/recommend.py --loo: 0.5-4 within noise)
PERSON_SEEDS = 8  # a person as a seed: their best-known films in their role
SEEN_FILMS = 2000  # "I've seen all his films": every film of the person (up to this many)
MAX_SERIES = 500  # films of one series


@dataclass
class Pick:
    iri: str
    label: str
    year: int | None
    distance: float  # to the query vector of its theme
    theme: int


@dataclass
class Shared:
    relation: str
    value: str
    label: str
    degree: int

    @property
    def weight(self) -> float:
        """Rare shared neighbours say more than common ones (a director vs the genre 'drama')."""
        return 1.0 / math.log2(2 + self.degree)


class GraphOverlap:
    """What films share in the graph: each film's (relation, value) pairs of the entity relations the reasons are made
    of, as arrays over the ranker's films. A film's overlap with some films is the sum, over the values it shares with
    them, of 1/log2(2 + the films with that value), once per film that has it: a shared director says more than a
    shared country. Built from the film table on the first recommendation (numpy only: 20 ms on the demo KG, 0.17 s on
    MetaQA's 16k films)."""

    def __init__(self, table, labels, iris: list[str], relations: list[str]):
        position = np.full(len(table.films), -1, dtype=np.int64)  # film table position -> ranker position
        for p, iri in enumerate(iris):
            idx = labels.by_iri.get(iri)
            at = int(np.searchsorted(table.films, idx)) if idx is not None else len(table.films)
            if at < len(table.films) and table.films[at] == idx:
                position[at] = p
        films, features, offset = [], [], 0
        for relation in relations:
            column = table.entity.get(relation)
            if column is None or not len(column.values):
                continue
            owner = position[np.repeat(np.arange(len(table.films)), np.diff(column.film_ptr))]
            values, feature = np.unique(column.values, return_inverse=True)
            keep = owner >= 0
            films.append(owner[keep])
            features.append(feature[keep] + offset)
            offset += len(values)
        films_of = np.concatenate(films) if films else np.zeros(0, np.int64)
        feature_of = np.concatenate(features) if features else np.zeros(0, np.int64)
        order = np.lexsort((feature_of, films_of))
        pairs = np.unique(np.stack([films_of[order], feature_of[order]]), axis=1) if len(order) else np.zeros((2, 0), np.int64)
        self.film_ptr = np.searchsorted(pairs[0], np.arange(len(iris) + 1))  # CSR over the ranker's films
        self.features = pairs[1]
        holders = np.bincount(self.features, minlength=offset)
        self.weight = 1.0 / np.log2(2.0 + holders)
        self.count = offset

    def scores(self, films: list[int]) -> np.ndarray:
        """Each film's overlap with `films` (ranker positions)."""
        query = np.zeros(self.count + 1)
        for f in films:
            np.add.at(query, self.features[self.film_ptr[f] : self.film_ptr[f + 1]], 1.0)
        query[: self.count] *= self.weight
        per_pair = query[self.features] if len(self.features) else np.zeros(0)
        sums = np.add.reduceat(np.append(per_pair, 0.0), self.film_ptr[:-1]) if len(per_pair) else np.zeros(len(self.film_ptr) - 1)
        sums[self.film_ptr[:-1] == self.film_ptr[1:]] = 0.0  # (reduceat gives an empty row the next row's first value)
        return sums


def _z(values: np.ndarray) -> np.ndarray:
    spread = values.std()
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)


class FilmRanker:
    """Nearest films to theme vectors, with MMR diversification, over one embedding space."""

    def __init__(self, space: EmbeddingSpace, overlap: Callable[[list[str]], GraphOverlap] | None = None):
        """`overlap`: makes the graph overlap over the ranker's films, on first use (on a 2M-triple graph it takes about a
        second, which a start of the bot should not wait for)."""
        self.space = space
        self._make_overlap = overlap
        self._overlap: GraphOverlap | None = None
        self._lock = threading.Lock()
        self.rows = space.rows("film")
        self.vectors, self.norms = space.matrix("film")
        self.iris = [space.embeddings.entities[r] for r in self.rows]
        self.position = {e: i for i, e in enumerate(self.iris)}
        self._together: float | None = None

    @property
    def overlap(self) -> GraphOverlap | None:
        if self._overlap is None and self._make_overlap is not None:
            with self._lock:
                if self._overlap is None:
                    self._overlap = self._make_overlap(self.iris)
        return self._overlap

    def together_distance(self) -> float:
        """How close two films must be to count as one theme: a low percentile of random film pairs."""
        if self._together is None:
            rng = np.random.default_rng(0)
            n = len(self.iris)
            if n < MIN_FILMS_FOR_THEMES:
                self._together = math.inf
            else:
                a, b = rng.integers(0, n, CALIBRATION_PAIRS), rng.integers(0, n, CALIBRATION_PAIRS)
                keep = a != b
                gaps = np.linalg.norm(self.vectors[a[keep]] - self.vectors[b[keep]], axis=1)
                self._together = float(np.percentile(gaps, TOGETHER_PERCENTILE))
        return self._together

    def themes(self, liked: list[str]) -> list[list[str]]:
        """Liked films grouped so that each film is close to some other film of its group."""
        groups: list[list[str]] = []
        limit = self.together_distance()
        for film in liked:
            v = self.vectors[self.position[film]]
            for group in groups:
                if min(np.linalg.norm(self.vectors[self.position[g]] - v) for g in group) <= limit:
                    group.append(film)
                    break
            else:
                groups.append([film])
        return sorted(groups, key=len, reverse=True)

    def relevance(self, themes: list[list[str]], ranking: str = EMBEDDING, weight: float = OVERLAP_WEIGHT) -> np.ndarray:
        """How far each film is from each theme (themes x films, lower is closer), in embedding distance units so that
        MMR weighs novelty the same way whatever ranks: the distance to the theme's mean vector ("embedding"), what the
        film shares with the theme's films in the graph, rare values counting most ("overlap"), or the distance's z-score
        less `weight` times the overlap's ("combined")."""
        queries = np.stack([self.vectors[[self.position[f] for f in theme]].mean(axis=0) for theme in themes])
        # squared distances from each theme vector to every film: one matrix product over the film matrix
        squared = self.norms[None, :] - 2.0 * (queries @ self.vectors.T) + np.einsum("ij,ij->i", queries, queries)[:, None]
        distance = np.sqrt(np.maximum(squared, 0.0))
        if ranking == EMBEDDING or self.overlap is None:
            return distance
        out = np.empty_like(distance)
        for n, theme in enumerate(themes):
            shared = _z(self.overlap.scores([self.position[f] for f in theme]))
            mean, spread = distance[n].mean(), distance[n].std() or 1.0
            combined = -shared if ranking == OVERLAP else _z((distance[n] - mean) / spread - weight * shared)
            out[n] = mean + spread * combined  # (a unit spread: the same trade-off against novelty as the distances')
        return out

    def rank(self, liked: list[str], exclude: set[int], count: int, diversity: float,
             only: set[int] | None = None, ranking: str = EMBEDDING) -> tuple[list[Pick], list[list[str]]]:
        """The `count` picks closest to the liked films' themes, kept varied; never those in `exclude`, and only those
        in `only` when it is given (the films that meet the question's conditions)."""
        themes = self.themes(liked)
        squared = self.relevance(themes, ranking)
        if exclude:
            squared[:, list(exclude)] = np.inf
        if only is not None:
            outside = np.ones(squared.shape[1], dtype=bool)
            outside[list(only)] = False
            squared[:, outside] = np.inf
        pools = []
        for row in squared:
            take = min(CANDIDATES, len(row))
            top = np.argpartition(row, take - 1)[:take] if take < len(row) else np.arange(len(row))
            pools.append(top[np.isfinite(row[top])])
        candidates = np.unique(np.concatenate(pools))
        if len(candidates) == 0:
            return [], themes
        dist = squared[:, candidates]  # themes x candidates
        vectors = self.vectors[candidates]
        closest_pick = np.full(len(candidates), np.inf)  # distance of each candidate to the nearest pick so far
        taken = np.zeros(len(candidates), bool)
        titles: set[str] = set()
        labels = self.space.labels
        picks: list[Pick] = []
        while len(picks) < count and not taken.all():
            theme = len(picks) % len(themes)
            relevance = dist[theme]
            novelty = np.where(np.isfinite(closest_pick), closest_pick, 0.0)
            score = (1 - diversity) * relevance - diversity * novelty
            score[taken | ~np.isfinite(relevance)] = np.inf
            best = int(np.argmin(score))
            if not np.isfinite(score[best]):
                break
            taken[best] = True
            entity = self.iris[candidates[best]]
            info = labels.info(entity)
            label, year = (info[0], info[3]) if info else (entity, None)
            if normalize(label) in titles:
                continue
            titles.add(normalize(label))
            picks.append(Pick(entity, label, year, float(relevance[best]), theme))
            closest_pick = np.minimum(closest_pick, np.linalg.norm(vectors - vectors[best], axis=1))
        return picks, themes


def shared_neighbours(graph, bundle: Bundle, picks: list[str], liked: list[str]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(pick, liked film) -> [(property, value)] they share: one query fetches every triple around the
    picks and the liked films (bot.kg.queries.neighbourhoods); the shared neighbours are the intersection."""
    forward = {r.property for r in bundle.relations.values() if r.is_entity and not r.derived and r.direction == "forward"}
    inverse = {r.property for r in bundle.relations.values() if r.is_entity and not r.derived and r.direction == "inverse"}
    if not picks or not liked or not (forward or inverse):
        return {}
    films = list(dict.fromkeys(picks + liked))
    neighbours: dict[str, set[tuple[str, str]]] = {f: set() for f in films}
    for row in graph.select(queries.neighbourhoods(films, bool(forward), bool(inverse))):
        if not all(k in row for k in ("film", "p", "v", "out")):
            continue
        prop = row["p"].value
        if prop in (forward if row["out"].value == "true" else inverse):
            neighbours[row["film"].value].add((prop, row["v"].value))
    return {(p, f): sorted(neighbours[p] & neighbours[f]) for p in picks for f in liked if neighbours[p] & neighbours[f]}


def reason(shared: list[Shared], liked_label: str, bundle: Bundle) -> str:
    """'same director as A (X)' or 'shares the genre Drama and two cast members (Y and Z) with B'.

    Relations are named in the bundle's order (director before cast before tags), at most three
    of them, and a value already named under an earlier relation is not repeated (a tag that
    spells the director's name).
    """
    order = {name: i for i, name in enumerate(bundle.relations)}
    by_relation: dict[str, list[Shared]] = {}
    named: set[str] = set()
    for s in sorted(shared, key=lambda s: (order.get(s.relation, len(order)), s.degree, s.label)):
        if s.label.casefold() not in named:
            named.add(s.label.casefold())
            by_relation.setdefault(s.relation, []).append(s)
    parts = list(by_relation.values())[:MAX_REASON_PARTS]
    if len(parts) == 1 and len(parts[0]) == 1:
        only = parts[0][0]
        return f"same {bundle.relations[only.relation].noun} as {liked_label} ({only.label})"
    phrases = []
    for values in parts:
        rel = bundle.relations[values[0].relation]
        if len(values) == 1:
            phrases.append(f"the {rel.noun} {values[0].label}")
        else:
            phrases.append(f"{NUMBER_WORDS.get(len(values), str(len(values)))} {rel.plural} ({join_labels([s.label for s in values], limit=3)})")
    return f"shares {join_labels(phrases)} with {liked_label}"


@dataclass
class Plan:
    """What one recommendation works from: the seed films (with vectors), how the reply names the seeds, the films
    never to recommend (and why), the conditions on the picks, and the notes the reply starts with."""

    seeds: list[LinkedEntity] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # the seeds as the reply says them ("The Lord of the Rings films")
    blocked: set[str] = field(default_factory=set)  # film IRIs: seeds, their series, seen, excluded, recommended before
    conditions: list[Constraint] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    count: int = 5
    offered: str = ""  # no seed was left: the picks are well-known films of what the message named


class FilmSets:
    """The films behind a seed, a series, a person's role or a set of conditions, from the film table (exact, and
    fast on a hub) or the store."""

    def __init__(self, kg):
        self.kg = kg
        self.labels = kg.labels
        self.series = next((name for name, r in kg.bundle.relations.items() if r.value_class == "series"), "")

    def of(self, seed: Seed, limit: int) -> list[str]:
        """The films a seed stands for: itself, a partial title's films, a series' films, a person's best-known films in
        their roles."""
        if seed.kind in ("film", "films"):
            return list(seed.iris)
        if seed.kind == "series":
            return self.members(seed.iris[0])
        if seed.kind == "person" and seed.roles:
            return [iri for iri, _ in best_matching_films(self.kg, [Constraint(seed.roles, "in", seed.iris)], limit)[0]]
        return []

    def members(self, series: str) -> list[str]:
        if not self.series:
            return []
        return [iri for iri, _ in best_matching_films(self.kg, [Constraint((self.series,), "in", (series,))], MAX_SERIES)[0]]

    def series_of(self, film: str) -> list[str]:
        """The series a film belongs to, catalogues (a studio's list) left out: "a film of a seed's series"."""
        if not self.series:
            return []
        prop = self.kg.bundle.relations[self.series].property
        found = [row["value"].value for row in self.kg.graph.select(queries.values_of(film, prop)) if "value" in row]
        return [s for s in found if not is_catalogue(self.labels.label_of(s) or "")]


class Recommender:
    """The 'recommendation' handler: (understanding, conversation) -> Facts."""

    def __init__(self, agent, space: EmbeddingSpace | None, count: int | None = None, diversity: float | None = None,
                 ranking: str | None = None):
        self.agent = agent
        self.space = space
        self.count = count or agent.settings.recommend_count
        self.diversity = agent.settings.recommend_diversity if diversity is None else diversity
        bundle = agent.kg.bundle
        self.relation_of = {(r.property): name for name, r in bundle.relations.items() if r.is_entity and not r.derived}
        self.ranking = agent.settings.recommend_ranking if ranking is None else ranking
        overlap = None
        if self.ranking != EMBEDDING:
            kg, relations = agent.kg, sorted(self.relation_of.values())
            overlap = lambda films: GraphOverlap(kg.films, kg.labels, films, relations)  # noqa: E731
        self.ranker = FilmRanker(space, overlap) if space is not None else None
        self.sets = FilmSets(agent.kg)

    # -- what to work from

    @staticmethod
    def request_of(understanding: Understanding) -> RecommendationRequest:
        """The request as read; a plan made without the request reader (benchmarks) recommends from its films."""
        if understanding.recommendation is not None:
            return understanding.recommendation
        return RecommendationRequest(seeds=tuple(Seed("film", (e.iri,), e.label, e.text) for e in understanding.entities if e.group == "film"),
                                     conditions=tuple(understanding.constraints))

    def plan(self, request: RecommendationRequest, text: str = "") -> Plan:
        labels = self.agent.kg.labels
        plan = Plan(count=request.count or self.count, conditions=list(request.conditions))
        named, fuzzy = [], []
        for seed in request.seeds:
            films = self.sets.of(seed, PERSON_SEEDS)
            if not films:
                plan.notes.append(f"My knowledge graph has no films for {seed.label}.")
                continue
            plan.blocked |= set(films) if seed.kind != "person" else set()
            named.append(seed.label)
            if seed.score < 100 and seed.kind == "film":
                fuzzy.append(f"\"{seed.said}\" as {seed.label}")
            for film in films:
                info = labels.info(film)
                if info is not None:
                    plan.seeds.append(LinkedEntity(info[0], film, info[0], seed.score, "film", year=info[3]))
        plan.names = named
        for film in list(plan.seeds):  # a seed's series and remakes: "something like Terminator 2" is no Terminator
            plan.blocked |= self._same_titles(film.label) | {f for s in self.sets.series_of(film.iri) for f in self.sets.members(s)}
        seen = [f for seed in request.seen for f in self.sets.of(seed, SEEN_FILMS)]
        excluded = [f for seed in request.excluded for f in self.sets.of(seed, SEEN_FILMS)]
        plan.blocked |= set(seen) | set(excluded)
        if not request.again:
            plan.blocked |= set(request.recommended)
        liked_seen = [s for s in request.seen if s.iris not in {e.iris for e in request.excluded}]
        if not plan.seeds and not plan.conditions and liked_seen:  # "I've seen Vertigo and Psycho, what else?": what was seen is liked
            seeds = [f for seed in liked_seen for f in self.sets.of(seed, PERSON_SEEDS)]
            plan.seeds = [LinkedEntity(info[0], f, info[0], 100.0, "film", year=info[3]) for f in dict.fromkeys(seeds)
                          if (info := labels.info(f)) is not None]
            plan.names = [s.label for s in liked_seen]
        missing = [s for s in plan.seeds if self.ranker is not None and s.iri not in self.ranker.position]
        if missing and len(missing) == len(plan.seeds):
            plan.notes.append(f"I have no embedding for {join_labels([e.label for e in missing])}.")
        plan.seeds = [s for s in dict((s.iri, s) for s in plan.seeds).values() if s not in missing]
        plan.notes[:0] = self._request_notes(request, plan, fuzzy, text)
        return plan

    def _request_notes(self, request: RecommendationRequest, plan: Plan, fuzzy: list[str], text: str) -> list[str]:
        notes = []
        if request.unknown:
            names = join_labels([f"\"{n}\"" for n in request.unknown])
            notes.append(f"I don't have {names} in my knowledge graph" + (", so I went by the others." if plan.seeds else "."))
        if fuzzy:
            notes.append("I read " + join_labels(fuzzy) + ".")
        for seed in request.excluded:  # (said once: a follow-up that keeps the exclusion does not repeat it)
            if seed.kind == "series" and is_catalogue(seed.label) and seed.said.casefold() in text.casefold():
                notes.append(f"My graph has no studios, so for \"not {seed.said}\" I left out the films it lists in {seed.label}.")
        for said in request.unchecked:
            notes.append(f"My knowledge graph has nothing to check \"{said}\" with, so I could not take it into account.")
        return notes

    def _same_titles(self, label: str) -> set[str]:
        """The films with the same title (remakes, duplicates)."""
        labels = self.agent.kg.labels
        return {labels.iris[i] for i in labels.lookup(normalize(label)) if labels.groups[i] == "film"}

    # -- answering

    def handle(self, understanding: Understanding, conversation) -> Facts:
        if self.ranker is None:
            return Facts(Kind.RECOMMENDATION, understanding.text, message="I have no KG embeddings for this knowledge graph, so I cannot recommend films yet.")
        request = self.request_of(understanding)  # (the conversation's part is in it: bot.dialogue.recommendations)
        plan = self.plan(request, understanding.text)
        if not plan.seeds and plan.conditions:
            return self._by_conditions(understanding, request, plan)
        if not plan.seeds:
            ask = "Tell me one or more films you like, for example \"Recommend movies like The Matrix and Heat\"."
            return Facts(Kind.RECOMMENDATION, understanding.text, topic=understanding.entities, message=" ".join(plan.notes + [ask]))
        exclude = {self.ranker.position[f] for f in plan.blocked if f in self.ranker.position}
        said = join_labels(list(dict.fromkeys(c.said for c in plan.conditions if c.said)))
        only = {self.ranker.position[iri] for iri, _ in best_matching_films(self.agent.kg, plan.conditions, CONDITION_POOL)[0]
                if iri in self.ranker.position} if plan.conditions else None
        picks, themes = self.ranker.rank([f.iri for f in plan.seeds], exclude, plan.count, self.diversity, only, self.ranking)
        if not picks:
            none = f"I found no other films for {said} to recommend." if only is not None else "I found no other films to recommend."
            return Facts(Kind.RECOMMENDATION, understanding.text, topic=plan.seeds, message=" ".join(plan.notes + [none]))
        facts = self._facts(understanding, plan, picks, themes)
        if only is not None:  # (in brackets, the phrasing model keeps the lead-in as written: the conditions stay said)
            condition = said if said.startswith("not ") else f"for {said}"  # "(for comedy)", "(not horror)"
            facts.message = facts.message.replace("you might enjoy:", f"you might enjoy these films ({condition}):", 1)
        return facts

    def _by_conditions(self, understanding: Understanding, request: RecommendationRequest, plan: Plan) -> Facts:
        """'A 70s horror film', 'a western not by Clint Eastwood', 'something with Julia Roberts in it' (no film to go
        by): the best-known films that meet the conditions and were not seen, excluded or recommended before."""
        kg = self.agent.kg
        found = best_matching_films(kg, plan.conditions, plan.count + len(plan.blocked) + 1)[0]
        films = [(iri, label) for iri, label in found if iri not in plan.blocked][: plan.count]
        said = join_labels(list(dict.fromkeys(c.said for c in plan.conditions if c.said)))
        if not films:
            return Facts(Kind.RECOMMENDATION, understanding.text,
                         message=" ".join(plan.notes + [f"I found no other films in my knowledge graph for {said}."]))
        answers = [Answer(label, iri) for iri, label in films]
        facts = [Fact(iri, label, "matches", iri, label, "kg", {"conditions": [c.said for c in plan.conditions]}) for iri, label in films]
        lines = [f"{n}. {label}" + (f" ({kg.labels.years[kg.labels.by_iri[iri]]})" if kg.labels.years[kg.labels.by_iri[iri]] else "")
                 for n, (iri, label) in enumerate(films, 1)]
        message = "\n".join(([" ".join(plan.notes)] if plan.notes else []) +
                            [f"Some of the best-known films in my knowledge graph for {said}:", *lines])
        return Facts(Kind.RECOMMENDATION, understanding.text, answers, facts, understanding.entities, message=message)

    def _facts(self, understanding: Understanding, plan: Plan, picks: list[Pick], themes: list[list[str]]) -> Facts:
        bundle = self.agent.kg.bundle
        film_label = {f.iri: f.label for f in plan.seeds}
        shared = shared_neighbours(self.agent.kg.graph, bundle, [p.iri for p in picks], [f.iri for f in plan.seeds])
        answers, facts, lines = [], [], []
        for rank, pick in enumerate(picks, 1):
            anchor, values = self._best_anchor(pick, themes, shared)
            because = (
                reason(values, film_label[anchor], bundle)
                if values
                else f"close to {film_label[anchor]} in the KG embeddings, though the graph shows no neighbour they share"
            )
            name = f"{pick.label} ({pick.year})" if pick.year else pick.label
            lines.append(f"{rank}. {name}: {because}.")
            answers.append(Answer(pick.label, pick.iri, support=len(values), score=round(pick.distance, 4)))
            facts.append(
                Fact(
                    pick.iri,
                    pick.label,
                    "similar_to",
                    anchor,
                    film_label[anchor],
                    "embedding",
                    {
                        "rank": rank,
                        "distance": round(pick.distance, 4),
                        "because": because,
                        "shared": [{"relation": s.relation, "value": s.value, "label": s.label} for s in values],
                    },
                )
            )
        liked_names = join_labels(plan.names or [f.label for f in plan.seeds])
        several = len(plan.names) > 1 or len(plan.seeds) > 1 and not plan.names
        intro = f"Since you like {liked_names}, you might enjoy:" if several else f"If you like {liked_names}, you might enjoy:"
        if len(themes) > 1 and len(plan.names) != 1:
            intro = f"Your films have little in common, so here are picks for each of them ({liked_names}):"
        closing = "(Picked by closeness in the KG embeddings, kept varied; the reasons come from the graph.)"
        message = "\n".join([" ".join(plan.notes)] if plan.notes else []) + ("\n" if plan.notes else "") + "\n".join([intro, *lines, closing])
        return Facts(Kind.RECOMMENDATION, understanding.text, answers, facts, plan.seeds, source="embedding", message=message, extra={"themes": themes})

    def _best_anchor(self, pick: Pick, themes: list[list[str]], shared) -> tuple[str, list[Shared]]:
        """The liked film whose shared neighbours with `pick` are rarest (its own theme's nearest film if none)."""
        labels = self.agent.kg.labels
        best, best_values, best_weight = None, [], 0.0
        for film in [f for theme in themes for f in theme]:
            values = []
            for prop, value in shared.get((pick.iri, film), []):
                info = labels.info(value)
                relation = self.relation_of.get(prop)
                if info is None or relation is None:
                    continue
                values.append(Shared(relation, value, info[0], info[2]))
            weight = sum(v.weight for v in values)
            if weight > best_weight:
                best, best_values, best_weight = film, values, weight
        if best is None:
            vector = self.ranker.vectors[self.ranker.position[pick.iri]]
            theme = themes[pick.theme]
            best = min(theme, key=lambda f: float(np.linalg.norm(self.ranker.vectors[self.ranker.position[f]] - vector)))
        return best, best_values


def load(agent) -> Contribution:
    return Contribution(handlers={Kind.RECOMMENDATION: Recommender(agent, space_for(agent.kg, agent.settings)).handle},
                        offers=("recommend films like the ones you name",))


FEATURE = Feature(
    name="recommend",
    summary="recommendations near the mean embedding of the liked films, diversified and explained",
    requires=(),
    settings="recommend",
    load=load,
)

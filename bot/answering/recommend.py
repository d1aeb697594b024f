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
from dataclasses import dataclass, field

import numpy as np

from bot.answering.compose import best_matching_films
from bot.answering.embeddings.space import EmbeddingSpace, space_for
from bot.core.contracts import Answer, Fact, Facts, LinkedEntity, Understanding
from bot.core.features import Contribution, Feature
from bot.core.kinds import Kind
from bot.core.text import contracted_not, join_labels, normalize, tokens
from bot.kg import queries
from bot.kg.bundle import Bundle
from bot.understanding.lexicon import GENERIC, STOP
from bot.understanding.mentions import IndexMentions
from bot.understanding.quantities import quantities

# words of a recommendation request that are not names (besides the question-wording vocabulary)
REQUEST_WORDS = frozenset(
    """given since as because i i'm im me my we us you your like liked likes love loved loves enjoy enjoyed enjoys adore
    adored fan really also too recommend recommended recommendation recommendations suggest suggestion suggestions similar
    something anything some few more other others else another watch watched see seen based taste tastes kind sort type
    movie movies film films flick flicks show shows what which should could would can will please thanks thank maybe
    and or but with the a an of to for in on it that this these those them then so good great best favourite favorite
    favourites favorites fav favs looking look vein style spirit mood next already both tonight today weekend kids
    children date night scary funny sad romantic fun light feel all are were is was am be""".split()
)
CANDIDATES = 200  # nearest films considered by MMR
CONDITION_POOL = 5000  # the best-known films meeting a recommendation's conditions ("like Heat but from the 2000s") ranked by closeness
TOGETHER_PERCENTILE = 5.0  # liked films closer than this percentile of random film pairs form one theme
CALIBRATION_PAIRS = 4000
MIN_FILMS_FOR_THEMES = 50  # below this, random pairs say too little to call two films unrelated
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
MAX_REASON_PARTS = 3


@dataclass
class Liked:
    """The films a message says someone likes, and what could not be used."""

    films: list[LinkedEntity] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)  # spans that name nothing in the graph
    not_films: list[LinkedEntity] = field(default_factory=list)  # entities that are not films
    no_vector: list[LinkedEntity] = field(default_factory=list)  # films the embeddings do not cover


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


class FilmRanker:
    """Nearest films to theme vectors, with MMR diversification, over one embedding space."""

    def __init__(self, space: EmbeddingSpace):
        self.space = space
        self.rows = space.rows("film")
        self.vectors, self.norms = space.matrix("film")
        self.iris = [space.embeddings.entities[r] for r in self.rows]
        self.position = {e: i for i, e in enumerate(self.iris)}
        self._together: float | None = None

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

    def rank(self, liked: list[str], exclude: set[int], count: int, diversity: float,
             only: set[int] | None = None) -> tuple[list[Pick], list[list[str]]]:
        """The `count` picks closest to the liked films' themes, kept varied; never those in `exclude`, and only those
        in `only` when it is given (the films that meet the question's conditions)."""
        themes = self.themes(liked)
        queries = np.stack([self.vectors[[self.position[f] for f in theme]].mean(axis=0) for theme in themes])
        # squared distances from each theme vector to every film: one matrix product over the film matrix
        squared = self.norms[None, :] - 2.0 * (queries @ self.vectors.T) + np.einsum("ij,ij->i", queries, queries)[:, None]
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
        dist = np.sqrt(np.maximum(squared[:, candidates], 0.0))  # themes x candidates
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


class Recommender:
    """The 'recommendation' handler: (understanding, conversation) -> Facts."""

    def __init__(self, agent, space: EmbeddingSpace | None, count: int | None = None, diversity: float | None = None):
        self.agent = agent
        self.space = space
        self.count = count or agent.settings.recommend_count
        self.diversity = agent.settings.recommend_diversity if diversity is None else diversity
        self.ranker = FilmRanker(space) if space is not None else None
        self.request_mentions = IndexMentions(agent.kg.labels, agent.understander.vocabulary | REQUEST_WORDS | STOP | GENERIC)
        bundle = agent.kg.bundle
        self.relation_of = {(r.property): name for name, r in bundle.relations.items() if r.is_entity and not r.derived}

    # -- reading the request

    def liked(self, understanding: Understanding, conversation) -> Liked:
        result = Liked()
        for entity in understanding.entities:
            film = entity if entity.group == "film" else self._as_film(entity)
            if film is None:
                result.not_films.append(entity)
            elif film.iri not in {f.iri for f in result.films}:
                result.films.append(film)
        result.not_found = self._unexplained(understanding)
        if not understanding.entities and not result.not_found and conversation is not None and conversation.turns:
            previous = conversation.turns[-1][1]
            result.films = [e for e in previous.topic if e.group == "film"]
        result.no_vector = [f for f in result.films if f.iri not in self.ranker.position] if self.ranker else list(result.films)
        result.films = [f for f in result.films if f not in result.no_vector]
        return result

    def _as_film(self, entity: LinkedEntity) -> LinkedEntity | None:
        """The same label read as a film, when one of its alternatives is a film."""
        labels = self.agent.kg.labels
        for alt in entity.alternatives:
            idx = labels.by_iri.get(alt["iri"])
            if idx is not None and labels.groups[idx] == "film":
                return LinkedEntity(entity.text, alt["iri"], labels.labels[idx], entity.score, "film", entity.start, entity.end, labels.years[idx])
        return None

    def _unexplained(self, understanding: Understanding) -> list[str]:
        """Name-like runs of the message that no linked entity covers."""
        text = understanding.text
        covered = [(e.start, e.end) for e in understanding.entities] + [(q.start, q.end) for q in quantities(text)]  # "under 100 minutes"
        # tokens inside a linked entity count as wording, so runs stop at them
        spell = self.agent.understander.speller  # "Any fils like Zootopia": a misspelt request word is no name
        words = tokens(text)
        # a contraction's "don" of "don't" is wording too (the tokens are "don", "t")
        toks = [("and", s, e) if any(a <= s and e <= b for a, b in covered)
                or contracted_not(words, k + 1) else (spell(t), s, e)
                for k, (t, s, e) in enumerate(words)]

        def title_word(i: int) -> bool:  # a capitalised word of a name that is also question wording ("Star" Wars)
            word, start, _ = toks[i]
            return text[start].isupper() and word not in REQUEST_WORDS

        names = []
        for a, b in self.request_mentions.residual_runs(toks):
            while a > 0 and title_word(a - 1):
                a -= 1
            while b < len(toks) and title_word(b):
                b += 1
            names.append(text[toks[a][1] : toks[b - 1][2]])
        return names

    # -- answering

    def handle(self, understanding: Understanding, conversation) -> Facts:
        if self.ranker is None:
            return Facts(Kind.RECOMMENDATION, understanding.text, message="I have no KG embeddings for this knowledge graph, so I cannot recommend films yet.")
        liked = self.liked(understanding, conversation)
        if not liked.films and understanding.constraints:
            return self._by_conditions(understanding, liked, conversation)
        # a name the request sets a condition with is no liked film left out: "not by Coppola", "but not horror",
        # "but a comedy" (a person given beside the films without a "not" may be one more liked name, and is left out)
        conditional = {v for c in understanding.constraints if c.op == "not_in" or self._value_condition(c) for v in c.values}
        liked.not_films = [e for e in liked.not_films if e.iri not in conditional]
        notes = self._notes(liked)
        if not liked.films:
            ask = "Tell me one or more films you like, for example \"Recommend movies like The Matrix and Heat\"."
            return Facts(Kind.RECOMMENDATION, understanding.text, topic=understanding.entities, message=" ".join(notes + [ask]))
        exclude = self._same_titles(liked.films) | self._shown_before(understanding, conversation)
        # "movies like Heat but from the 2000s": the picks come from the films that meet the conditions on films
        # ("any other films like it" refers to the conversation: the liked films are left out anyway), not from a
        # name given as a liked film that is no film ("like ... and terminator": the series, which the notes mention)
        left_out = {e.iri for e in liked.not_films}
        conditions = [c for c in understanding.constraints if c.op not in ("earlier", "not_earlier") and not set(c.values) & left_out]
        said = join_labels(list(dict.fromkeys(c.said for c in conditions if c.said)))
        only = {self.ranker.position[iri] for iri, _ in self._films_meeting(conditions, CONDITION_POOL)
                if iri in self.ranker.position} if conditions else None
        picks, themes = self.ranker.rank([f.iri for f in liked.films], exclude, self.count, self.diversity, only)
        if not picks:
            none = f"I found no films {said} to recommend." if only is not None else "I found no other films to recommend."
            return Facts(Kind.RECOMMENDATION, understanding.text, topic=liked.films, message=" ".join(notes + [none]))
        facts = self._facts(understanding, liked, picks, themes, notes)
        if only is not None:  # (in brackets, the phrasing model keeps the lead-in as written: the conditions stay said)
            condition = said if said.startswith("not ") else f"for {said}"  # "(for comedy)", "(not horror)"
            facts.message = facts.message.replace("you might enjoy:", f"you might enjoy these films ({condition}):", 1)
        return facts

    def _value_condition(self, constraint) -> bool:
        """A condition on a genre, country, language, rating or award of the films (not on a person or a series)."""
        rels = self.agent.kg.bundle.relations
        return bool(constraint.relations) and all(r in rels and rels[r].value_class not in (None, "person", "film", "series")
                                                  for r in constraint.relations)

    def _shown_before(self, understanding: Understanding, conversation) -> set[int]:
        """'More like that': the films recommended in the previous turn are not recommended again."""
        if understanding.entities or conversation is None or not conversation.turns:
            return set()
        previous = conversation.turns[-1][1]
        if previous.kind != Kind.RECOMMENDATION:
            return set()
        return {self.ranker.position[a.iri] for a in previous.answers if a.iri in self.ranker.position}

    def _by_conditions(self, understanding: Understanding, liked: Liked, conversation) -> Facts:
        """'I'm a big fan of Tim Burton', 'a 70s horror film': films like a person's films, or the best-known films that
        meet the conditions."""
        kg = self.agent.kg
        people = [c for c in understanding.constraints if c.op == "in" and all(kg.bundle.relations[r].value_class == "person" for r in c.relations)]
        shown_before = self._shown_before(understanding, conversation)
        if people and len(people) == len(understanding.constraints) and not any(c.named_role for c in people):
            # "I'm a fan of Tim Burton": films like theirs ("something with Billy Crudup in it" asks for his films)
            seeds = self._films_meeting(people, 8)
            liked = Liked(films=[LinkedEntity(label, iri, label, 100.0, "film", year=kg.labels.years[kg.labels.by_iri[iri]])
                                 for iri, label in seeds if iri in self.ranker.position])
            if liked.films:
                exclude = self._same_titles(liked.films) | shown_before
                picks, themes = self.ranker.rank([f.iri for f in liked.films], exclude, self.count, self.diversity)
                if picks:
                    facts = self._facts(understanding, liked, picks, themes, [])
                    who = join_labels([c.said for c in people])
                    facts.message = facts.message.replace("you might enjoy:", f"(films of {who}), you might enjoy:", 1)
                    return facts
        films = [(iri, label) for iri, label in self._films_meeting(understanding.constraints, 40)
                 if self.ranker.position.get(iri) not in shown_before][: self.count]
        said = join_labels(list(dict.fromkeys(c.said for c in understanding.constraints if c.said)))
        if not films:
            return Facts(Kind.RECOMMENDATION, understanding.text, message=f"I found no films in my knowledge graph for {said}.")
        answers = [Answer(label, iri) for iri, label in films]
        facts = [Fact(iri, label, "matches", iri, label, "kg", {"conditions": [c.said for c in understanding.constraints]}) for iri, label in films]
        lines = [f"{n}. {label}" + (f" ({kg.labels.years[kg.labels.by_iri[iri]]})" if kg.labels.years[kg.labels.by_iri[iri]] else "")
                 for n, (iri, label) in enumerate(films, 1)]
        message = "\n".join([f"Some of the best-known films in my knowledge graph for {said}:", *lines])
        return Facts(Kind.RECOMMENDATION, understanding.text, answers, facts, understanding.entities, message=message)

    def _films_meeting(self, constraints, limit: int) -> list[tuple[str, str]]:
        """The best-known films (most connected in the graph) that meet every condition."""
        return best_matching_films(self.agent.kg, constraints, limit)[0]

    def _same_titles(self, films: list[LinkedEntity]) -> set[int]:
        """Film-matrix positions of the liked films and of every film with the same title (remakes, duplicates)."""
        labels = self.agent.kg.labels
        out = set()
        for film in films:
            out.add(self.ranker.position[film.iri])
            for idx in labels.lookup(normalize(film.label)):
                position = self.ranker.position.get(labels.iris[idx])
                if position is not None:
                    out.add(position)
        return out

    def _notes(self, liked: Liked) -> list[str]:
        notes = []
        quoted = lambda names: join_labels([f"\"{n}\"" for n in names])  # noqa: E731
        if liked.not_found:
            notes.append(f"I could not find {quoted(liked.not_found)} in my knowledge graph" + (", so I went by the others." if liked.films else "."))
        for entity in liked.not_films:
            what = f"a {entity.group.replace('_', ' ')}, not a film" if entity.group else "not a film"
            notes.append(f"In my knowledge graph \"{entity.text}\" is {what}, so I left it out.")
        if liked.no_vector:
            notes.append(f"I have no embedding for {join_labels([e.label for e in liked.no_vector])}.")
        fuzzy = [f for f in liked.films if f.score < 100]
        if fuzzy:
            notes.append("I read " + join_labels([f"\"{f.text}\" as {f.label}" for f in fuzzy]) + ".")
        return notes

    def _facts(self, understanding: Understanding, liked: Liked, picks: list[Pick], themes: list[list[str]], notes: list[str]) -> Facts:
        bundle = self.agent.kg.bundle
        film_label = {f.iri: f.label for f in liked.films}
        shared = shared_neighbours(self.agent.kg.graph, bundle, [p.iri for p in picks], [f.iri for f in liked.films])
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
        liked_names = join_labels([f.label for f in liked.films])
        intro = f"Since you like {liked_names}, you might enjoy:" if len(liked.films) > 1 else f"If you like {liked_names}, you might enjoy:"
        if len(themes) > 1:
            intro = f"Your films have little in common, so here are picks for each of them ({liked_names}):"
        closing = "(Picked by closeness in the KG embeddings, kept varied; the reasons come from the graph.)"
        message = "\n".join([" ".join(notes)] if notes else []) + ("\n" if notes else "") + "\n".join([intro, *lines, closing])
        return Facts(Kind.RECOMMENDATION, understanding.text, answers, facts, liked.films, source="embedding", message=message, extra={"themes": themes})

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

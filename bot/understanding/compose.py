"""The composition context: what compositional readers know about one KG, and the plan a composition reads into.

A *composition* is a clause read as a yes/no check, a comparison, a superlative, a count, a list of films under
conditions or what several names share; each of those question shapes is a construction of its own
(bot/understanding/constructions/), and bot.understanding.compositions tries them in order. They share this context:

    "Did Ridley Scott direct Alien?"              -> Verification(director, Alien, Ridley Scott)
    "Which is longer, Titanic or Avatar?"         -> Comparison(duration, greater, [Titanic, Avatar])
    "What is Spielberg's longest film?"          -> Aggregate(max, duration) over Constraint(director in {Spielberg})
    "How many Oscars did Aliens win?"            -> Aggregate(count, families=Academy Awards) over the ask award_received+
    "comedies from the 90s directed by X"        -> Constraint(genre in comedies), Constraint(date 1990-1999), Constraint(director in {X})

Relations are found by their cue words in the bundle's own phrasings (bot.understanding.lexicon), never by fixed
property IRIs, so any KG with a date, a running time or awards is read the same way: the clause's names and the
quantities written in it (bot.understanding.quantities), the roles people take in films, genres read broadly. A
reading must account for the clause's words like any other; otherwise the parser falls back to reading a relation
chain, or says what it could not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property

from bot.core.contracts import (
    Aggregate,
    Ask,
    Collaboration,
    Comparison,
    Constraint,
    LinkedEntity,
    Overview,
    Shared,
    Understanding,
    Verification,
)
from bot.core.kinds import Kind
from bot.core.terms import AggregateOp, Group, Op
from bot.core.text import contracted_not
from bot.kg import queries
from bot.understanding.constructions.base import construction_data
from bot.understanding.constructions.clause import Clause
from bot.understanding.lexicon import Lexicon
from bot.understanding.linking import link_span
from bot.understanding.mentions import Span
from bot.understanding.quantities import Quantity, quantities
from bot.understanding.vocabulary import ANY_ROLE_WORDS, EXCLUDING, FILLER_START, FILM_WORDS, GENERIC, NEGATIONS, STOP, YES_NO_START, word_class

COMPARATIVES = {word: tuple(value) for word, value in construction_data("comparison")["comparatives"].items()}
SUPERLATIVES = {word: tuple(value) for word, value in construction_data("superlative")["superlatives"].items()}
ORDINALS: dict[str, int] = dict(construction_data("superlative")["ordinals"])  # "second" -> 2: a rank in an order
COUNTRY_ADJECTIVES: dict[str, str] = dict(construction_data("conditions")["country_adjectives"])
SUBGENRES: dict[str, str] = dict(construction_data("conditions")["subgenres"])
GLOBAL_SCOPE = re.compile(r"\b(?:" + "|".join(construction_data("superlative")["patterns"]["global_scope"]) + ")", re.I)
MONEY_WORDS = word_class("money_words")
AWARD_COUNT_WORDS = word_class("award_words")
OSCAR_WORDS = word_class("oscar_words")
# words that may be wording rather than names ("older", "longest", "hours": a misspelt title is looked for between them)
COLLABORATION_WORDS = frozenset(construction_data("collaboration")["words"]["together"]) | frozenset(
    construction_data("collaboration")["words"]["usual"])  # "collaborated", "go-to", "usually"
COMPOSITION_WORDS = frozenset(COMPARATIVES) | frozenset(SUPERLATIVES) | frozenset(ORDINALS) | MONEY_WORDS | AWARD_COUNT_WORDS | word_class("units") | frozenset(
    "recent often times together both without excluding".split())
# "alongside X" leaves X out of a cast ("who starred alongside X in Heat") but is no exclusion of a film set ("films with X alongside Y")
FILM_EXCLUDING = EXCLUDING - {"alongside"}


def negates(toks, k: int) -> bool:
    """Whether token k says "not": a negation word, or the "t" of "don't", "isn't", "aren't"."""
    return toks[k][0] in NEGATIONS or contracted_not(toks, k)


def excluding_words(toks, a: int, start: int, phrases: frozenset[str] = FILM_EXCLUDING) -> set[int]:
    """The tokens of "apart from", "besides", "other than" ... (one of `phrases`) right before token `start`."""
    for size in (2, 1):
        if start - size >= a and " ".join(toks[k][0] for k in range(start - size, start)) in phrases:
            return set(range(start - size, start))
    return set()


def global_scope(text: str, toks, a: int, b: int) -> set[int]:
    """The tokens of the clause's words that say "the whole graph" ("in your database", "of all time")."""
    found: set[int] = set()
    for match in GLOBAL_SCOPE.finditer(text, toks[a][1], toks[b - 1][2]):
        found |= {k for k in range(a, b) if toks[k][1] >= match.start() and toks[k][2] <= match.end()}
    return found


@dataclass
class Composition:
    """A clause read as a compositional question (exactly one of the slots besides `constraints` at most)."""

    entities: list[LinkedEntity] = field(default_factory=list)
    asks: list[Ask] = field(default_factory=list)
    constraints: list[Constraint] = field(default_factory=list)
    aggregate: Aggregate | None = None
    comparison: Comparison | None = None
    verification: Verification | None = None
    shared: Shared | None = None
    overview: Overview | None = None
    collaboration: Collaboration | None = None
    used: set[int] = field(default_factory=set)  # tokens the reading accounts for
    relations: set[str] = field(default_factory=set)  # relations whose cues the question may use
    not_found: str = ""  # a name the question compares or checks that the graph does not have

    @property
    def answer_group(self) -> str | None:
        """What the composition answers with that a later pronoun may stand for ("which of Nolan's films is the longest,
        and who scored it?"): films for a list, a superlative or a comparison of films; None for a count, a check, a
        summary or values."""
        if self.verification or self.overview or self.collaboration or self.shared:
            return None
        if self.comparison is not None:
            films = all(self.entities[i].group == Group.FILM for i in self.comparison.entities)
            return Group.FILM if films and not self.comparison.asked else None
        return Group.FILM if self.aggregate is None or self.aggregate.op in (AggregateOp.MAX, AggregateOp.MIN) else None


@dataclass
class Name:
    span: Span
    entity: LinkedEntity

    @property
    def tokens(self) -> range:
        return range(self.span.tok_start, self.span.tok_end)


@dataclass(frozen=True)
class ComposedClause(Clause):
    """A clause (its tokens spelling-corrected) with the names and quantities a composition reads."""

    names: list[Name] = field(default_factory=list)
    quants: list[Quantity] = field(default_factory=list)

    @cached_property
    def first(self) -> str:
        """The first word after fillers ("ok so, did ..." -> "did")."""
        return next((w for w in self.words if w not in FILLER_START), "")

    @property
    def yes_no(self) -> bool:
        return self.first in YES_NO_START

    @cached_property
    def titled(self) -> set[int]:
        """The tokens of names written as names: their words cue nothing ("X-Men: First Class")."""
        return title_tokens(self.text, self.names)

    @cached_property
    def cue_words(self) -> list[str]:
        """The clause's words outside the names written as names."""
        return [self.tokens[k][0] for k in self.positions if k not in self.titled]

    @cached_property
    def unstated(self) -> list[str]:
        """The cue words outside the quantities too ("longer than two hours" compares no films)."""
        stated = {k for k in self.positions for q in self.quants if q.start <= self.tokens[k][1] and self.tokens[k][2] <= q.end}
        return [self.tokens[k][0] for k in self.positions if k not in self.titled and k not in stated]


def title_tokens(text: str, names: list[Name]) -> set[int]:
    """The tokens of names written as names (several words, or capitalised): their words cue nothing
    ("X-Men: First Class"); a lowercase word that is also a surname ("shorter") still does."""
    return {k for n in names if n.span.length > 1 or text[n.span.start].isupper() for k in n.tokens}


class Composer:
    """What compositional readers know about one KG: its date, duration, money and award relations, the roles people
    take, genres read broadly, and how a clause's names and quantities become conditions."""

    def __init__(self, kg, lexicon: Lexicon, wording: frozenset[str]):
        self.kg = kg
        self.labels = kg.labels
        self.bundle = kg.bundle
        self.lexicon = lexicon
        self.wording = wording
        self._families: dict[str, tuple[str, ...]] = {}  # genre IRI -> the genre and its kinds (the graph is read-only)
        self._groups: dict[str, list[int]] = {}
        rels = self.bundle.relations
        self.person_relations = [n for n, r in rels.items() if r.value_class == Group.PERSON]
        self.by_group = {}
        for name, rel in rels.items():
            if rel.value_class and rel.value_class not in (Group.PERSON, Group.FILM):
                self.by_group.setdefault(rel.value_class, name)
        date = self.bundle.date_relation
        self.date = date.name if date else ""
        self.duration = self._number_relation({"long", "runtime", "minutes", "duration"})
        self.money = self._number_relation({"gross", "grossed", "money", "box", "office", "earn"})
        self.award = self.by_group.get(Group.AWARD, "")
        self.oscars = tuple(sorted(self.labels.iris[i] for i in self.labels.starting_with("academy award") if self.labels.groups[i] == Group.AWARD))

    def _number_relation(self, cues: set[str]) -> str:
        best = max(((len(self.lexicon.cues.get(n, frozenset()) & cues), n) for n, r in self.bundle.relations.items() if r.kind == "number"),
                   default=(0, ""))
        return best[1] if best[0] else ""

    def relation_of(self, kind: str) -> str:
        return {"date": self.date, "duration": self.duration, "money": self.money}[kind]

    def names_and_quantities(self, text: str, toks, spans, a: int, b: int, name_like) -> tuple[list[Name], list[Quantity]]:
        """The clause's names and the dates, durations and sums it states. A name typed as one (several words, or
        not in lower case) keeps its words; a lowercase word that is also a name yields to a quantity around it ("shorter
        than 100 minutes" is no film of the composer Clinton Shorter)."""
        names = self._names(text, toks, spans, a, b, name_like)
        typed = [n for n in names if n.span.length > 1 or not text[n.span.start].islower()]  # ("2012", "1920s": no case to tell)
        quants = quantities(text, [(n.span.start, n.span.end) for n in typed])
        kept = [n for n in names if n in typed or not any(q.start < n.span.end and n.span.start < q.end for q in quants)]
        return kept, quants


    def _names(self, text, toks, spans, a, b, name_like) -> list[Name]:
        """The clause's names, longest first and not overlapping; a genre, country or language word counts too
        unless it is a relation cue of its own ("music" asks for the composer)."""
        chosen: list[Name] = []
        years = [int(y) for y in re.findall(r"\b(1[89]\d\d|20\d\d)\b", text)]
        for span in sorted((s for s in spans if a <= s.tok_start and s.tok_end <= b and s.ids), key=lambda s: (-s.length, -s.fuzzy_score)):
            if any(span.tok_start < n.span.tok_end and n.span.tok_start < span.tok_end for n in chosen):
                continue
            entity = link_span(span, text, self.labels, None, years)
            if entity is None:
                continue
            if entity.group == Group.FILM and span.tok_start > a and toks[span.tok_start - 1][0] in ("from", "in"):
                place = next((g for g in (Group.COUNTRY, Group.LANGUAGE) if any(self.labels.groups[i] == g for i in span.ids)), None)
                if place is not None:  # "films from Brazil": the country, not the film Brazil
                    entity = link_span(span, text, self.labels, place, years)
            word_only = not name_like(toks, span) and not self._listed_title(text, toks, span, a, b)
            lowercase_guess = span.length == 1 and not text[span.start].isupper() and span.source == "fuzzy"
            if entity.group in (Group.FILM, Group.PERSON) and (word_only or lowercase_guess):
                continue
            if entity.group not in (Group.FILM, Group.PERSON) and not (entity.group == self._rating_group() and self._rated(toks, span)):
                words = [toks[k][0] for k in range(span.tok_start, span.tok_end)]
                if span.length == 1 and (self.lexicon.is_cue(words[0]) or words[0] in STOP or len(words[0]) < 2):
                    continue
                if all(w in STOP or w in GENERIC or w in FILM_WORDS or (w in self.wording and entity.group != Group.GENRE) for w in words):
                    continue  # question wording that is also a label ("film", "the story" are tags of MetaQA films)
            chosen.append(Name(span, entity))
        return sorted(chosen, key=lambda n: n.span.tok_start)

    @staticmethod
    def _listed_title(text: str, toks, span: Span, a: int, b: int) -> bool:
        """A title made of a question word, capitalised inside a list of names: "Which is longer, Her or Being
        John Malkovich?"."""
        if not text[span.start].isupper() or span.tok_start == a:
            return False
        near = {toks[k][0] for k in (span.tok_start - 1, span.tok_end) if a <= k < b}
        gaps = text[toks[span.tok_start - 1][2] : span.start] + (text[span.end : toks[span.tok_end][1]] if span.tok_end < b else "")
        return bool(near & ({"or", "and", "vs", "versus", "than"} | set(COMPARATIVES))) or "," in gaps

    def _rating_group(self) -> str:
        rel = self.bundle.relations.get(self.lexicon_relation("rated"))
        return rel.value_class if rel else ""

    def lexicon_relation(self, word: str) -> str:
        owners = sorted(self.lexicon.relations_of(word))
        return owners[0] if owners else ""

    @staticmethod
    def _rated(toks, span: Span) -> bool:
        near = [toks[k][0] for k in range(max(0, span.tok_start - 2), min(len(toks), span.tok_end + 2))]
        return "rated" in near or "rating" in near

    def person_relations_for(self, toks, name: Name, a: int, b: int, others: list[Name],
                             taken: set[int] = frozenset()) -> tuple[tuple[str, ...], set[int]]:
        """The relations a person takes part in, as the clause words say ("directed by X", "starring X", "X scored"),
        with the tokens that said it; all of the person's roles when the words say "made", and the roles most
        of their films have when the words say nothing ("Almodóvar's longest film": the films he directed,
        not the one he produced)."""
        used: set[int] = set()
        any_role = False
        near = list(range(max(a, name.span.tok_start - 3), name.span.tok_start)) + list(range(name.span.tok_end, min(b, name.span.tok_end + 2)))
        blocked = {k for o in others for k in o.tokens} | set(taken)  # ("which actors has Scorsese worked with most": counted)
        has = self.roles_of(name.entity)
        others_have = set().union(*(self.roles_of(o.entity) for o in others if o.entity.group == Group.PERSON))
        for k in sorted(near, key=lambda k: abs(k - name.span.tok_start)):
            if k in blocked:
                continue
            word = toks[k][0]
            if k >= name.span.tok_end and k + 1 < b and toks[k + 1][0] == "by":
                continue  # "Anthony Quinn movies directed by David Lean": the role of the name after "by"
            if word in ANY_ROLE_WORDS:
                used.add(k)  # "films BD Wong made": any role the person has
                any_role = True
                continue
            owners = [r for r in self.lexicon.relations_of(word) if r in self.person_relations]
            if owners and has and not has & set(owners) and others_have & set(owners):
                continue  # "films Hans Zimmer scored for Christopher Nolan": the other name's role, which this one never has
            if owners:
                used.add(k)
                return tuple(sorted(owners)), used
            if word == "with" and k == name.span.tok_start - 1:
                used.add(k)
                cast = [r for r in self.person_relations if {"starred", "actors"} & self.lexicon.cues.get(r, frozenset())]
                if not has or has & set(cast) or not cast:
                    return tuple(cast or self.person_relations), used
                # "films Tom Hanks made with Spielberg": someone who never acted takes part in the roles they have
        roles = has
        if len(roles) > 1 and not any_role:
            roles = self.main_roles(name.entity, roles)
        return tuple(sorted(roles)) or tuple(self.person_relations), used

    def films_per_role(self, entity: LinkedEntity, roles: set[str]) -> dict[str, int]:
        """How many films the person has in each of `roles`."""
        rows = self.kg.graph.select(queries.films_per_role(self.bundle, entity.iri, sorted(roles)))
        return {str(r["relation"].value): int(r["n"].value) for r in rows if r.get("relation") is not None}

    def main_roles(self, entity: LinkedEntity, roles: set[str]) -> set[str]:
        """The roles that hold at least half as many of the person's films as their commonest role."""
        counts = self.films_per_role(entity, roles)
        top = max(counts.values(), default=0)
        return {rel for rel, n in counts.items() if n * 2 >= top} or roles

    def several_roles(self, toks, a: int, b: int, names: list[Name]) -> list[tuple[str, int]]:
        """Two or more roles joined for one person ("both wrote and directed", "write as well as direct"):
        (relation, token) each, or [] when the words name fewer."""
        named = {k for n in names for k in n.tokens}
        people = [n for n in names if n.entity.group == Group.PERSON]
        has = self.roles_of(people[0].entity) if len(people) == 1 else set()
        found: list[tuple[str, int]] = []
        for k in range(a, b):
            if k in named or toks[k][0] in ANY_ROLE_WORDS:
                continue
            owners = sorted(r for r in self.lexicon.relations_of(toks[k][0]) if r in self.person_relations)
            owners = [r for r in owners if r in has] or owners  # "wrote": the screenplay, for someone who writes screenplays
            owners = [r for r in owners if not self.bundle.relations[r].derived] or owners
            if len(owners) == 1 and owners[0] not in {r for r, _ in found}:
                found.append((owners[0], k))
        joined = any(toks[k][0] in ("and", "both") for k in range(a, b)) or any(
            (toks[k][0], toks[k + 1][0]) == ("as", "well") for k in range(a, b - 1))
        return found if len(found) >= 2 and joined else []

    def roles_of(self, entity: LinkedEntity) -> set[str]:
        idx = self.labels.by_iri.get(entity.iri)
        if idx is None:
            return set()
        out = set()
        for rel in self.person_relations:
            side = "o" if self.bundle.relations[rel].direction == "forward" else "s"
            if self.labels.has_role(idx, rel, side):
                out.add(rel)
        return out

    def clause_verb_relations(self, toks, a: int, b: int, skip: set[int]) -> tuple[tuple[str, ...], set[int]]:
        """Person relations named anywhere in the clause ("did X score", "how many films did X direct")."""
        for k in range(a, b):
            if k in skip:
                continue
            word = toks[k][0]
            owners = [r for r in self.lexicon.relations_of(word) if r in self.person_relations]
            if owners and word not in ANY_ROLE_WORDS:
                return tuple(sorted(owners)), {k}
        return (), set()

    def genre_family(self, entity: LinkedEntity) -> tuple[str, ...]:
        """A genre read broadly: 'comedy' also counts romantic comedy, black comedy and comedy-drama; 'horror' slashers."""
        if entity.iri not in self._families:
            head = entity.label.casefold()
            out = [entity.iri]
            for i in self._members(entity.group):
                low = self.labels.labels[i].casefold()
                if i != self.labels.by_iri.get(entity.iri) and (re.search(rf"\b{re.escape(head)}\b", low) or SUBGENRES.get(low) == head):
                    out.append(self.labels.iris[i])
            self._families[entity.iri] = tuple(out)
        return self._families[entity.iri]

    def _members(self, group: str) -> list[int]:
        """The label index's entities of one class group (a few dozen genres among millions of labels), found once."""
        if group not in self._groups:
            self._groups[group] = [i for i, g in enumerate(self.labels.groups) if g == group]
        return self._groups[group]

    def value_constraint(self, name: Name) -> Constraint | None:
        """A genre, country, language, rating, award or series named as a condition on films."""
        relation = self.by_group.get(name.entity.group)
        if not relation:
            return None
        values = self.genre_family(name.entity) if name.entity.group == Group.GENRE else (name.entity.iri,)
        return Constraint((relation,), Op.IN, values, name.entity.label)

    def quantity_constraints(self, quants: list[Quantity]) -> list[Constraint] | None:
        out = []
        for q in quants:
            relation = self.relation_of(q.kind)
            if not relation:
                return None
            value = str(int(q.value)) if float(q.value).is_integer() else str(q.value)
            out.append(Constraint((relation,), q.op, (value,), q.said))
        return out

    def country_adjectives(self, toks, a: int, b: int, taken: set[int]) -> list[tuple[set[int], Constraint]]:
        """'American films', 'French comedies', 'comedies that are not American': (the tokens that said it, the condition)."""
        relation = self.by_group.get(Group.COUNTRY)
        out = []
        if not relation:
            return out
        for k in range(a, b):
            if k in taken or toks[k][0] not in COUNTRY_ADJECTIVES:
                continue
            nxt = toks[k + 1][0] if k + 1 < b else ""
            before = toks[k - 1][0] if k > a else ""
            negated = k > a and negates(toks, k - 1)
            predicate = negated or before in {"are", "is", "was", "were"}  # "films that are (not) French"
            if predicate or nxt in FILM_WORDS or nxt in self.lexicon.cues.get(self.by_group.get(Group.GENRE, ""), frozenset()) or self.is_genre_word(nxt):
                ids = [i for i in self.labels.lookup(COUNTRY_ADJECTIVES[toks[k][0]].casefold()) if self.labels.groups[i] == Group.COUNTRY]
                if ids:
                    said = ("not " if negated else "") + toks[k][0].capitalize()
                    out.append(({k - 1, k} if negated else {k}, Constraint((relation,), Op.NOT_IN if negated else Op.IN, (self.labels.iris[ids[0]],), said)))
        return out

    def is_genre_word(self, word: str) -> bool:
        return any(self.labels.groups[i] == Group.GENRE for i in self.labels.lookup_any(word))


def composed_understanding(text, entities, asks, composition: Composition, offset: int, missing: str, not_found) -> Understanding:
    def shifted(indices):
        return tuple(i + offset for i in indices)

    comparison = composition.comparison
    if comparison is not None:
        comparison = replace(comparison, entities=shifted(comparison.entities))
    verification = composition.verification
    if verification is not None:
        verification = replace(verification, topic=verification.topic + offset,
                               value=None if verification.value is None else verification.value + offset)
    shared = composition.shared
    if shared is not None:
        shared = replace(shared, entities=shifted(shared.entities))
    overview = composition.overview
    if overview is not None:
        overview = replace(overview, topic=overview.topic + offset)
    collaboration = composition.collaboration
    if collaboration is not None:
        collaboration = replace(collaboration, person=collaboration.person + offset, partners=shifted(collaboration.partners))
    first = asks[0].chain if asks else ()
    return Understanding(text, Kind.FACTUAL, first, entities, 1.0, list(not_found), asks=asks, constraints=list(composition.constraints),
                         aggregate=composition.aggregate, comparison=comparison, verification=verification, shared=shared, overview=overview,
                         collaboration=collaboration, missing=missing)

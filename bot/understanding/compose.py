"""Compositional questions: yes/no checks, comparisons, superlatives, counts, and films that meet conditions.

    "Did Ridley Scott direct Alien?"              -> Verification(director, Alien, Ridley Scott)
    "Which is longer, Titanic or Avatar?"         -> Comparison(duration, greater, [Titanic, Avatar])
    "What is Spielberg's longest film?"          -> Aggregate(max, duration) over Constraint(director in {Spielberg})
    "How many Oscars did Aliens win?"            -> Aggregate(count, families=Academy Awards) over the ask award_received+
    "comedies from the 90s directed by X"        -> Constraint(genre in comedies), Constraint(date 1990-1999), Constraint(director in {X})

The reader works on one clause with its linked names and the quantities written in it
(bot.understanding.quantities). Relations are found by their cue words in the bundle's own
phrasings (bot.understanding.lexicon), never by fixed property IRIs, so any KG with a date, a
running time or awards is read the same way. A reading must account for the clause's words like
any other parse; otherwise the parser falls back to reading a relation chain, or says what it could
not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from bot.core.contracts import Aggregate, Ask, Comparison, Constraint, Hop, LinkedEntity, Overview, Shared, Verification
from bot.core.text import Token, contracted_not
from bot.kg import queries
from bot.understanding.constructions.comparison import COMPARATIVES
from bot.understanding.constructions.comparison import WORDS as COMPARISON_WORDS
from bot.understanding.constructions.conditions import COUNTRY_ADJECTIVES, SUBGENRES
from bot.understanding.constructions.shared import SHARED_WORDS
from bot.understanding.constructions.superlative import GLOBAL_SCOPE, SUPERLATIVES
from bot.understanding.constructions.verification import WORDS as VERIFICATION_WORDS
from bot.understanding.lexicon import Lexicon
from bot.understanding.linking import link_span
from bot.understanding.mentions import Span
from bot.understanding.quantities import Quantity, quantities
from bot.understanding.vocabulary import (
    ANY_ROLE_WORDS,
    EXCLUDING,
    FILLER_START,
    FILM_WORDS,
    GENERIC,
    NEGATIONS,
    OTHER_WORDS,
    SET_WORDS,
    STOP,
    YES_NO_START,
    word_class,
)

MONEY_WORDS = word_class("money_words")
AWARD_COUNT_WORDS = word_class("award_words")
OSCAR_WORDS = word_class("oscar_words")
MOST = COMPARISON_WORDS["more"]
BEFORE_AFTER = COMPARISON_WORDS["before_after"]
ANY_FILM_WORDS = VERIFICATION_WORDS["any_film"]


def negates(toks, k: int) -> bool:
    """Whether token k says "not": a negation word, or the "t" of "don't", "isn't", "aren't"."""
    return toks[k][0] in NEGATIONS or contracted_not(toks, k)


# "alongside X" leaves X out of a cast ("who starred alongside X in Heat") but is no exclusion of a film set ("films with X alongside Y")
FILM_EXCLUDING = EXCLUDING - {"alongside"}


def excluding_words(toks, a: int, start: int, phrases: frozenset[str] = FILM_EXCLUDING) -> set[int]:
    """The tokens of "apart from", "besides", "other than" ... (one of `phrases`) right before token `start`."""
    for size in (2, 1):
        if start - size >= a and " ".join(toks[k][0] for k in range(start - size, start)) in phrases:
            return set(range(start - size, start))
    return set()

COMPOSITION_WORDS = frozenset(COMPARATIVES) | frozenset(SUPERLATIVES) | MONEY_WORDS | AWARD_COUNT_WORDS | word_class("units") | frozenset(
    "recent often times together both without excluding".split())


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
    used: set[int] = field(default_factory=set)  # tokens the reading accounts for
    relations: set[str] = field(default_factory=set)  # relations whose cues the question may use
    not_found: str = ""  # a name the question compares or checks that the graph does not have


@dataclass
class Name:
    span: Span
    entity: LinkedEntity

    @property
    def tokens(self) -> range:
        return range(self.span.tok_start, self.span.tok_end)


def global_scope(text: str, toks, a: int, b: int) -> set[int]:
    """The tokens of the clause's words that say "the whole graph" ("in your database", "of all time")."""
    found: set[int] = set()
    for match in GLOBAL_SCOPE.finditer(text, toks[a][1], toks[b - 1][2]):
        found |= {k for k in range(a, b) if toks[k][1] >= match.start() and toks[k][2] <= match.end()}
    return found


class Composer:
    """Reads the compositional forms of a clause against one KG."""

    def __init__(self, kg, lexicon: Lexicon, wording: frozenset[str]):
        self.kg = kg
        self.labels = kg.labels
        self.bundle = kg.bundle
        self.lexicon = lexicon
        self.wording = wording
        self._families: dict[str, tuple[str, ...]] = {}  # genre IRI -> the genre and its kinds (the graph is read-only)
        self._groups: dict[str, list[int]] = {}
        rels = self.bundle.relations
        self.person_relations = [n for n, r in rels.items() if r.value_class == "person"]
        self.by_group = {}
        for name, rel in rels.items():
            if rel.value_class and rel.value_class not in ("person", "film"):
                self.by_group.setdefault(rel.value_class, name)
        date = self.bundle.date_relation
        self.date = date.name if date else ""
        self.duration = self._number_relation({"long", "runtime", "minutes", "duration"})
        self.money = self._number_relation({"gross", "grossed", "money", "box", "office", "earn"})
        self.award = self.by_group.get("award", "")
        self.oscars = tuple(sorted(self.labels.iris[i] for i in self.labels.starting_with("academy award") if self.labels.groups[i] == "award"))

    def _number_relation(self, cues: set[str]) -> str:
        best = max(((len(self.lexicon.cues.get(n, frozenset()) & cues), n) for n, r in self.bundle.relations.items() if r.kind == "number"),
                   default=(0, ""))
        return best[1] if best[0] else ""

    def relation_of(self, kind: str) -> str:
        return {"date": self.date, "duration": self.duration, "money": self.money}[kind]

    # --- the clause ---------------------------------------------------------------------

    def read(self, text: str, toks: list[Token], spans: list[Span], a: int, b: int, name_like) -> Composition | None:
        words = [toks[k][0] for k in range(a, b)]
        start = 0
        while start < len(words) and words[start] in FILLER_START:
            start += 1
        names, quants = self._names_and_quantities(text[: toks[b - 1][2]], toks, spans, a, b, name_like)
        quants = [q for q in quants if q.start >= toks[a][1]]
        first = words[start] if start < len(words) else ""
        inside = self.title_tokens(text, names)
        words = [toks[k][0] for k in range(a, b) if k not in inside]  # a title's words cue nothing ("X-Men: First Class")
        stated = {k for k in range(a, b) for q in quants if q.start <= toks[k][1] and toks[k][2] <= q.end}
        unstated = [toks[k][0] for k in range(a, b) if k not in inside and k not in stated]  # "longer than two hours" compares no films
        # ("were both Alien and Aliens released in the 80s?" checks each film against a date: no shared value)
        reading = self._shared(toks, a, b, names, first in YES_NO_START) if set(words) & SHARED_WORDS and not quants else None
        if reading is None and ("how" in words and "many" in words or self._count_pivot(words) is not None):
            reading = self._count(text, toks, a, b, names, quants)
        elif reading is None and (any(w in COMPARATIVES for w in unstated) or self._more_money(words) or self._more_of(words) or self._came_first(words)
              or self._two_films(names) and bool(set(words) & (BEFORE_AFTER | {"recent", "most", *SUPERLATIVES}))):
            reading = self._comparison(text, toks, a, b, names, first in YES_NO_START)
        if reading is None and first in YES_NO_START:
            reading = self._verification(text, toks, a, b, names, quants) or self._any_film(text, toks, a, b, names, quants)
        if reading is None and (any(w in SUPERLATIVES for w in words) or "most" in words):
            reading = self._superlative(text, toks, a, b, names, quants)
        if reading is None:
            reading = self._filter(text, toks, a, b, names, quants)
        if reading is not None:
            for q in quants:
                reading.used |= {k for k in range(a, b) if toks[k][1] >= q.start and toks[k][2] <= q.end}
            if first in YES_NO_START and a + start + 1 < b and contracted_not(toks, a + start + 1):
                reading.used |= {a + start, a + start + 1}  # the "n't" of the opening "didn't"
        return reading

    def _names_and_quantities(self, text: str, toks, spans, a: int, b: int, name_like) -> tuple[list[Name], list[Quantity]]:
        """The clause's names and the dates, durations and sums it states. A name typed as one (several words, or
        not in lower case) keeps its words; a lowercase word that is also a name yields to a quantity around it ("shorter
        than 100 minutes" is no film of the composer Clinton Shorter)."""
        names = self._names(text, toks, spans, a, b, name_like)
        typed = [n for n in names if n.span.length > 1 or not text[n.span.start].islower()]  # ("2012", "1920s": no case to tell)
        quants = quantities(text, [(n.span.start, n.span.end) for n in typed])
        kept = [n for n in names if n in typed or not any(q.start < n.span.end and n.span.start < q.end for q in quants)]
        return kept, quants

    @staticmethod
    def title_tokens(text: str, names: list[Name]) -> set[int]:
        """The tokens of names written as names (several words, or capitalised): their words cue nothing
        ("X-Men: First Class"); a lowercase word that is also a surname ("shorter") still does."""
        return {k for n in names if n.span.length > 1 or text[n.span.start].isupper() for k in n.tokens}

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
            if entity.group == "film" and span.tok_start > a and toks[span.tok_start - 1][0] in ("from", "in"):
                place = next((g for g in ("country", "language") if any(self.labels.groups[i] == g for i in span.ids)), None)
                if place is not None:  # "films from Brazil": the country, not the film Brazil
                    entity = link_span(span, text, self.labels, place, years)
            word_only = not name_like(toks, span) and not self._listed_title(text, toks, span, a, b)
            lowercase_guess = span.length == 1 and not text[span.start].isupper() and span.source == "fuzzy"
            if entity.group in ("film", "person") and (word_only or lowercase_guess):
                continue
            if entity.group not in ("film", "person") and not (entity.group == self._rating_group() and self._rated(toks, span)):
                words = [toks[k][0] for k in range(span.tok_start, span.tok_end)]
                if span.length == 1 and (self.lexicon.is_cue(words[0]) or words[0] in STOP or len(words[0]) < 2):
                    continue
                if all(w in STOP or w in GENERIC or w in FILM_WORDS or (w in self.wording and entity.group != "genre") for w in words):
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

    # --- relations of people ----------------------------------------------------------

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
        others_have = set().union(*(self.roles_of(o.entity) for o in others if o.entity.group == "person"))
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

    def _several_roles(self, toks, a: int, b: int, names: list[Name]) -> list[tuple[str, int]]:
        """Two or more roles joined for one person ("both wrote and directed", "write as well as direct"):
        (relation, token) each, or [] when the words name fewer."""
        named = {k for n in names for k in n.tokens}
        people = [n for n in names if n.entity.group == "person"]
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

    # --- conditions -------------------------------------------------------------------

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
        values = self.genre_family(name.entity) if name.entity.group == "genre" else (name.entity.iri,)
        return Constraint((relation,), "in", values, name.entity.label)

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
        relation = self.by_group.get("country")
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
            if predicate or nxt in FILM_WORDS or nxt in self.lexicon.cues.get(self.by_group.get("genre", ""), frozenset()) or self._is_genre_word(nxt):
                ids = [i for i in self.labels.lookup(COUNTRY_ADJECTIVES[toks[k][0]].casefold()) if self.labels.groups[i] == "country"]
                if ids:
                    said = ("not " if negated else "") + toks[k][0].capitalize()
                    out.append(({k - 1, k} if negated else {k}, Constraint((relation,), "not_in" if negated else "in", (self.labels.iris[ids[0]],), said)))
        return out

    def _is_genre_word(self, word: str) -> bool:
        return any(self.labels.groups[i] == "genre" for i in self.labels.lookup_any(word))

    def conditions(self, text: str, toks: list[Token], spans: list[Span], name_like) -> list[Constraint]:
        """The conditions a recommendation request names besides its films: 'a 70s horror film', 'a fan of Tim Burton'."""
        a, b = 0, len(toks)
        names, quants = self._names_and_quantities(text, toks, spans, a, b, name_like)
        names = [n for n in names if n.entity.group != "film"]
        reading = Composition()
        if not self._scope(text, toks, a, b, names, quants, reading):
            return []
        # "what other films would you recommend", "the kids have seen all of those": a recommendation never returns the
        # films it starts from, and its "those" are the films it names, not the conversation's last list
        return [c for c in reading.constraints if not c.op.conversational]

    # --- the forms ----------------------------------------------------------------------

    def _verification(self, text, toks, a, b, names: list[Name], quants: list[Quantity]) -> Composition | None:
        films = [n for n in names if n.entity.group == "film"]
        others = [n for n in names if n.entity.group != "film"]
        if len(films) != 1:
            return None
        film = films[0]
        reading = Composition(entities=[film.entity], used=set(film.tokens))
        words = {toks[k][0] for k in range(a, b)}
        if others:
            value = others[0]
            reading.entities.append(value.entity)
            reading.used |= set(value.tokens)
            if value.entity.group == "person":
                relations, used = self.clause_verb_relations(toks, a, b, set(film.tokens) | set(value.tokens))
                if not relations:
                    relations = tuple(r for r in self.person_relations if {"starred", "actors"} & self.lexicon.cues.get(r, frozenset())) if (
                        words & {"in", "star", "starred", "act", "acted", "appear", "appeared"}) else tuple(self.person_relations)
                reading.used |= used
                reading.relations |= set(relations)
                reading.verification = Verification(";".join(relations), 0, 1)
                return reading
            relation = self.by_group.get(value.entity.group)
            if not relation:
                return None
            alternatives = [n for n in others if n.entity.group == value.entity.group]
            if len(alternatives) >= 2 and "or" in words:
                # "is the Big Lebowski a comedy or a drama (or what)": which of them -- its values, not a yes
                reading.entities = [film.entity]
                reading.used |= {k for n in alternatives for k in n.tokens} | {k for k in range(a, b) if toks[k][0] in ("or", "what")}
                reading.asks.append(Ask((Hop(relation, True),), 0, None, text[toks[a][1] : toks[b - 1][2]]))
                reading.relations.add(relation)
                return reading
            families = self.genre_family(value.entity) if value.entity.group == "genre" else ()
            reading.relations.add(relation)
            reading.verification = Verification(relation, 0, 1, families=families)
            return reading
        if quants:
            q = quants[0]
            relation = self.relation_of(q.kind)
            if not relation:
                return None
            reading.relations.add(relation)
            if q.kind == "date":
                years = [int(x.value) for x in quants if x.kind == "date"]
                op = "=" if len(set(years)) == 1 and len(years) == 2 else ("year>=" if q.op == "year>=" else "year<=")
                reading.verification = Verification(relation, 0, None, op, str(min(years) if op != "year<=" else max(years)))
            else:
                reading.verification = Verification(relation, 0, None, q.op, str(int(q.value)))
            return reading
        if self.award and words & {"win", "won", "oscar", "oscars", "awards", "award"}:
            reading.relations.add(self.award)
            families = self.oscars if words & OSCAR_WORDS else ()
            reading.verification = Verification(self.award, 0, None, "any", "", families)
            return reading
        return None

    def _shared(self, toks, a: int, b: int, names: list[Name], asked: bool) -> Composition | None:
        """'Who acted in both The Godfather and Heat?', 'Were Alien and Blade Runner directed by the same person?',
        'Which genres do Heat and Ronin share?': the values two or more films have in common along the one relation
        the clause's words name. Read before a comparison or a chain, which would answer each film on its own
        (or, for "the same director", the films that share the first one's director)."""
        if len(names) < 2 or any(n.entity.group != "film" for n in names):
            return None
        named = {k for n in names for k in n.tokens}
        relations: set[str] = set()
        used = {k for k in range(a, b) if toks[k][0] in SHARED_WORDS or toks[k][0] == "in" and k + 1 < b and toks[k + 1][0] == "common"}
        for k in range(a, b):
            if k in named or k in used:
                continue
            word = toks[k][0]
            owners = {r for r in self.lexicon.relations_of(word) if r in self.bundle.relations and self.bundle.relations[r].is_entity}
            if len(owners) > 1:  # "director" cues the director and the director of photography: the one it names
                rels = self.bundle.relations
                owners = {r for r in owners if word in (rels[r].noun, rels[r].plural, r)} or owners
            relations |= owners
            used |= {k} if owners else set()
        if len(relations) != 1:
            return None  # no relation named, or several: not guessed
        relation = relations.pop()
        reading = Composition(entities=[n.entity for n in names], used=used | named, relations={relation})
        reading.shared = Shared((Hop(relation, True),), tuple(range(len(names))), asked)
        return reading

    @staticmethod
    def _came_first(words: list[str]) -> bool:
        return bool({"first", "earlier", "later", "last"} & set(words) and {"came", "come", "released", "premiered", "out"} & set(words)
                    and {"or", "and"} & set(words))

    @staticmethod
    def _two_films(names: list[Name]) -> bool:
        return sum(n.entity.group == "film" for n in names) >= 2

    def _more_money(self, words: list[str]) -> bool:
        return bool(MOST & set(words) and MONEY_WORDS & set(words))

    def _more_of(self, words: list[str]) -> bool:
        return "more" in words and bool(set(words) & (AWARD_COUNT_WORDS | FILM_WORDS | {"screenplays", "scripts"}))

    def _comparison(self, text, toks, a, b, names: list[Name], yes_no: bool) -> Composition | None:
        inside = self.title_tokens(text, names)
        words = [toks[k][0] for k in range(a, b) if k not in inside]
        films = [n for n in names if n.entity.group == "film"]
        people = [n for n in names if n.entity.group == "person"]
        used: set[int] = set()
        relation, greater, count, families = "", True, False, ()
        for k in range(a, b):
            word = toks[k][0]
            if k in inside:
                continue
            if word in COMPARATIVES:
                kind, greater = COMPARATIVES[word]
                relation = self.relation_of(kind)
                used.add(k)
                break
            if word in BEFORE_AFTER and len(films) >= 2:  # "Was Tsotsi released before X?"
                relation, greater = self.date, word in ("after", "since")
                used.add(k)
                break
            if word == "recent" and k > a and toks[k - 1][0] in ("more", "most", "less", "least") and len(films) >= 2:
                relation, greater = self.date, toks[k - 1][0] in ("more", "most")  # "which is more recent, A or B?"
                used |= {k - 1, k}
                break
            if word in SUPERLATIVES and len(films) >= 2 and SUPERLATIVES[word][0] != "money":
                kind, op = SUPERLATIVES[word]  # "which of these is the longest: A, B or C?"
                relation, greater = self.relation_of(kind), op == "max"
                used.add(k)
                break
        if not relation and "first" in words and set(words) & {"came", "come", "released", "out", "premiered"}:
            relation, greater = self.date, False
            used |= {k for k in range(a, b) if toks[k][0] == "first" and k not in inside}
        if not relation and self._more_money(words):
            relation, greater = self.money, "less" not in words
            used |= {k for k in range(a, b) if toks[k][0] in MONEY_WORDS | MOST}
        if not relation and "more" in words and set(words) & AWARD_COUNT_WORDS and len(films) >= 2:
            relation, count = self.award, True
            families = self.oscars if set(words) & OSCAR_WORDS else ()
            used |= {k for k in range(a, b) if toks[k][0] in AWARD_COUNT_WORDS | MOST}
        if not relation and "more" in words and len(people) >= 2:
            relations, verb = self.clause_verb_relations(toks, a, b, {k for n in people for k in n.tokens})
            if not relations:
                return None
            relation, count = relations[0], True
            used |= verb | {k for k in range(a, b) if toks[k][0] in MOST | FILM_WORDS | {"screenplays", "scripts"}}
            items = people
        else:
            items = films
        if relation and not count and not items and not yes_no:
            pointer = self.set_reference(toks, a, b, names)
            if pointer:  # "which one is longer?" after two films: the greater of the films talked about
                reading = Composition(used=used | pointer)
                reading.constraints.append(Constraint((), "earlier", (), "of those films"))
                reading.aggregate = Aggregate("max" if greater else "min", relation)
                reading.relations.add(relation)
                return reading
        if not relation or len(items) < 2:
            return None
        if items is films and people:
            # "Which film did Ridley Scott direct first, Alien or Blade Runner?": the films are compared; the person and
            # the role said are context
            _, verb = self.clause_verb_relations(toks, a, b, {k for n in names for k in n.tokens})
            used |= verb | {k for n in people for k in n.tokens}
        reading = Composition(entities=[n.entity for n in items], used=used | {k for n in items for k in n.tokens})
        reading.relations.add(relation)
        reading.comparison = Comparison(relation, greater, tuple(range(len(items))), count, families, "yes" if yes_no else "")
        return reading

    @staticmethod
    def set_reference(toks, a: int, b: int, names: list[Name]) -> set[int]:
        """The tokens that point back at the films the conversation listed: "which of those", "among them",
        "those films", and "which one" or "the first one" when the clause names nothing itself."""
        found: set[int] = set()
        if any(n.entity.group == "film" for n in names):
            return found  # "which of these is the most recent: A, B or C": the films are named
        for k in range(a, b):
            word, before = toks[k][0], toks[k - 1][0] if k > a else ""
            after = toks[k + 1][0] if k + 1 < b else ""
            if word in SET_WORDS and before in ("of", "among", "from", "between"):
                found |= {k - 1, k}
            elif word in ("those", "these") and after in FILM_WORDS:
                found |= {k, k + 1}
            elif word == "one" and before == "which" and not names:
                found |= {k - 1, k}
            elif word in ("one", "ones") and before in SUPERLATIVES and not names:
                found.add(k)  # "when was the first one released", "the longest ones": of the films just listed
        return found

    @staticmethod
    def other_films(toks, a: int, b: int) -> set[int]:
        """'any other films', 'what else': the films already talked about are left out."""
        return {k for k in range(a, b) if toks[k][0] in OTHER_WORDS or toks[k][0] == "more" and k + 1 < b and toks[k + 1][0] in FILM_WORDS}

    def _scope(self, text, toks, a, b, names: list[Name], quants: list[Quantity], reading: Composition) -> bool:
        """The films a superlative, count or filter is over: conditions from the clause's names and quantities,
        and the conversation's films when the clause points back at them ("which of those", "any other")."""
        people = [n for n in names if n.entity.group == "person"]
        pointer = self.set_reference(toks, a, b, names)
        if pointer:
            reading.constraints.append(Constraint((), "earlier", (), "of those films"))
            reading.used |= pointer
        others = self.other_films(toks, a, b)
        if others and not pointer:
            reading.constraints.append(Constraint((), "not_earlier", (), "other"))
            reading.used |= others
        left_out = []
        for name in names:
            if name.entity.group == "film":
                said = excluding_words(toks, a, name.span.tok_start)
                if not said:
                    return False  # a title in the clause: not a question over a set of films
                left_out.append(name.entity)  # "Spielberg films besides Jaws": the set without that film
                reading.used |= said | set(name.tokens)
                continue
            if name.entity.group == "person" and len(people) == 1 and self._several_roles(toks, a, b, names):
                # "films that James Mangold both wrote and directed": one condition per role
                for relation, k in self._several_roles(toks, a, b, names):
                    reading.constraints.append(Constraint((relation,), "in", (name.entity.iri,), name.entity.label, named_role=True))
                    reading.used.add(k)
                    reading.relations.add(relation)
                reading.used |= set(name.tokens) | {k for k in range(a, b) if toks[k][0] in ("both", "and", "as", "well")}
                reading.entities.append(name.entity)
                continue
            if name.entity.group == "person":
                relations, used = self.person_relations_for(toks, name, a, b, [n for n in names if n is not name], reading.used)
                # "without X", "not X", and "not directed by X": the negation may stand before the role words too
                said_from = min([name.span.tok_start, *(k for k in used if k < name.span.tok_start)])
                before = set(range(max(a, said_from - 2), said_from)) | set(range(max(a, name.span.tok_start - 2), name.span.tok_start))
                negation = {k for k in before if negates(toks, k) and not any(k in n.tokens for n in names)}
                negated = bool(negation)
                reading.used |= negation
                films_after = name.span.tok_end < b and toks[name.span.tok_end][0] in FILM_WORDS  # "a good Ian McShane movie"
                reading.constraints.append(Constraint(relations, "not_in" if negated else "in", (name.entity.iri,),
                                                      ("not " if negated else "") + name.entity.label, named_role=bool(used) or films_after))
                reading.used |= used | set(name.tokens)
                reading.relations |= set(relations)
                reading.entities.append(name.entity)
                continue
            constraint = self.value_constraint(name)
            if constraint is None:
                return False
            # "not horror", "but not a comedy", "without an R rating": the films outside the value
            negation = {k for k in range(max(a, name.span.tok_start - 3), name.span.tok_start)
                        if negates(toks, k) and not any(k in n.tokens for n in names)}
            if negation:
                constraint = replace(constraint, op="not_in", said=f"not {constraint.said}")
                reading.used |= negation
            reading.constraints.append(constraint)
            reading.used |= set(name.tokens)
            reading.relations |= set(constraint.relations)
            reading.entities.append(name.entity)
        for said, constraint in self.country_adjectives(toks, a, b, reading.used):
            reading.constraints.append(constraint)
            reading.used |= said
            reading.relations |= set(constraint.relations)
        extra = self.quantity_constraints(quants)
        if extra is None:
            return False
        reading.constraints += extra
        reading.relations |= {r for c in extra for r in c.relations}
        if left_out:
            if not any(c.op not in ("not_among", "not_earlier") for c in reading.constraints):
                return False  # "films other than Heat" names no set to take them from
            reading.constraints.append(Constraint((), "not_among", tuple(e.iri for e in left_out), "other than"))
            reading.entities += left_out
        if len(people) > 1:
            reading.used |= {k for k in range(a, b) if toks[k][0] in ("both", "together", "and")}
        return True

    def _superlative(self, text, toks, a, b, names, quants) -> Composition | None:
        words = [toks[k][0] for k in range(a, b)]
        reading = Composition()
        op, relation = "", ""
        for k in range(a, b):
            word = toks[k][0]
            if word in SUPERLATIVES and not (word == "recent" and toks[k - 1][0] != "most"):
                kind, op = SUPERLATIVES[word][0], SUPERLATIVES[word][1]
                if kind == "money" and not set(words) & MONEY_WORDS:
                    continue
                relation = self.relation_of(kind)
                reading.used |= {k, k - 1} if word == "recent" else {k}
                if kind == "money":  # "the highest grossing film": the money words say what is highest
                    reading.used |= {j for j in range(a, b) if toks[j][0] in MONEY_WORDS}
                break
        if not relation and "most" in words:
            if set(words) & MONEY_WORDS:
                relation, op = self.money, "max"
                reading.used |= {k for k in range(a, b) if toks[k][0] in MONEY_WORDS | {"most"}}
            elif set(words) & AWARD_COUNT_WORDS:
                relation, op = self.award, "max_count"
                reading.used |= {k for k in range(a, b) if toks[k][0] in AWARD_COUNT_WORDS | {"most"}}
            else:
                named = {k for n in names for k in n.tokens}
                relations, verb = self.clause_verb_relations(toks, a, b, named)
                counted = [k for k in range(a, b) if toks[k][0] in FILM_WORDS | {"screenplays", "scripts", "often", "times"}]
                if relations and (counted or "who" in words or "which" in words):
                    relation, op = relations[0], "most"
                    # every word of the counted relation ("which actor appears most in Tarantino films") is the
                    # question's, none the named person's role
                    verb |= {k for k in range(a, b) if k not in named and relation in self.lexicon.relations_of(toks[k][0])}
                    reading.used |= verb | set(counted) | {k for k in range(a, b) if toks[k][0] in ("most", "often")}
        if not relation:
            return None
        if not self._scope(text, toks, a, b, names, quants, reading):
            return None
        if op == "most":
            # "which actor appears most often with De Niro": the named person is not one of the answers
            reading.aggregate = Aggregate("most", relation)
        elif op == "max_count":
            reading.aggregate = Aggregate("max", relation, self.oscars if set(words) & OSCAR_WORDS else ("*count",))
        else:
            reading.aggregate = Aggregate(op, relation)
        reading.relations.add(relation)
        reading.used |= global_scope(text, toks, a, b)
        return reading

    @staticmethod
    def _count_pivot(words: list[str]) -> int | None:
        """Where "how many" / "the number of" / "count of" ends: the counted noun follows."""
        for k in range(1, len(words)):
            if (words[k - 1], words[k]) in (("how", "many"), ("number", "of"), ("count", "of"), ("count", "the"), ("count", "all")):
                return k
        return None

    def _count(self, text, toks, a, b, names, quants) -> Composition | None:
        words = [toks[k][0] for k in range(a, b)]
        many = self._count_pivot(words)
        noun = words[many + 1] if many + 1 < len(words) else ""
        if noun == "of" and many + 2 < len(words) and words[many + 2] in SET_WORDS:
            noun = "films"  # "how many of them star X": of the films just listed
        reading = Composition(used={a + many, a + many - 1})
        films = [n for n in names if n.entity.group == "film"]
        counted = [w for w in words[many + 1 : many + 3] if w not in STOP]
        if set(counted) & AWARD_COUNT_WORDS and len(films) == 1 and self.award:
            reading.entities.append(films[0].entity)
            reading.used |= set(films[0].tokens) | {a + k for k in range(many + 1, min(len(words), many + 3)) if words[k] in AWARD_COUNT_WORDS | {"academy"}}
            families = self.oscars if set(counted) & OSCAR_WORDS or "academy" in words else ()
            reading.asks.append(Ask((Hop(self.award, True),), 0, None, text[toks[a][1] : toks[b - 1][2]]))
            reading.aggregate = Aggregate("count", self.award, families)
            reading.relations.add(self.award)
            return reading
        valued = [name for name, r in self.bundle.relations.items() if r.value_class not in (None, "film")
                  and noun in {r.noun, r.plural, *r.synonyms, *(s + "s" for s in r.synonyms)}] if noun else []
        if len(films) == 1 and len(names) == 1 and noun not in FILM_WORDS and len(valued) == 1:
            # "how many directors does The Little Mermaid have": the values of one relation of one film
            relation = valued[0]
            reading.entities.append(films[0].entity)
            reading.used |= set(films[0].tokens) | {a + many + 1}
            reading.asks.append(Ask((Hop(relation, True),), 0, None, text[toks[a][1] : toks[b - 1][2]]))
            reading.aggregate = Aggregate("count", relation)
            reading.relations.add(relation)
            return reading
        named_noun = any(n.span.tok_start == a + many + 1 and n.entity.group not in ("film", "person") for n in names)  # "how many dramas"
        if noun not in FILM_WORDS and not named_noun and not (names and noun in ("", "times")) and not set(words) & {"been"}:
            return None
        reading.used |= {a + k for k, w in enumerate(words) if w in FILM_WORDS}
        if not self._scope(text, toks, a, b, names, quants, reading):
            return None
        people = [c for c in reading.constraints if c.op == "in" and any(r in self.person_relations for r in c.relations)]
        if len(people) == 1 and len(names) == 1:
            verb, used = self.clause_verb_relations(toks, a, b, set(reading.used))
            if verb:
                reading.constraints[reading.constraints.index(people[0])] = Constraint(verb, "in", people[0].values, people[0].said)
                reading.used |= used
                reading.relations |= set(verb)
        reading.aggregate = Aggregate("count")
        reading.used |= global_scope(text, toks, a, b)
        return reading

    def _any_film(self, text, toks, a, b, names, quants) -> Composition | None:
        """'Did Brad Pitt and Edward Norton star together in anything?': whether any film meets the conditions two or
        more people set (yes, with the films; or no) -- not each one's co-stars."""
        people = [n for n in names if n.entity.group == "person"]
        if len(people) < 2 or len(people) != len(names):
            return None
        between = range(people[0].span.tok_end, people[-1].span.tok_start)
        verb_between = any(self.lexicon.relations_of(toks[k][0]) or toks[k][0] in ANY_ROLE_WORDS for k in between)
        if not verb_between and not {toks[k][0] for k in range(a, b)} & (ANY_FILM_WORDS | {"with"}):
            return None  # "are Ridley Scott and James Cameron both directors?" asks about each one's role, not a film of both
        reading = Composition()
        if not self._scope(text, toks, a, b, names, quants, reading) or not reading.constraints:
            return None
        reading.aggregate = Aggregate("any")
        reading.used |= {k for k in range(a, b) if toks[k][0] in ANY_FILM_WORDS}
        return reading

    def _filter(self, text, toks, a, b, names, quants) -> Composition | None:
        words = [toks[k][0] for k in range(a, b)]
        people = [n for n in names if n.entity.group == "person"]
        values = [n for n in names if n.entity.group not in ("film", "person")]
        asks_films = bool(set(words) & FILM_WORDS) or any(self._is_genre_word(w) for w in words) or words[:1] in (["which"], ["any"], ["what"])
        material = (bool(quants) or bool(values) or len(people) >= 2 or bool(self.country_adjectives(toks, a, b, set()))
                    or bool(self.set_reference(toks, a, b, names)) or len(people) == 1 and bool(self._several_roles(toks, a, b, names)))
        if not asks_films or not material:
            return None
        reading = Composition()
        if not self._scope(text, toks, a, b, names, quants, reading):
            return None
        if not reading.constraints:
            return None
        return reading

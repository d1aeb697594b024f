"""A fact or a relation chain from a named entity: "Who directed Good Will Hunting?", "What genres are the films written by
Quentin Tarantino?", "Who acted in the films directed by the director of The Bridge on the River Kwai?".

Each clause is read jointly for its entity and relation chain: every candidate span is masked in turn ("who directed
ENT"), the chain classifier (bot.understanding.classifier) scores the masked wording, and each (entity, chain)
candidate must account for the clause's words (bot.understanding.lexicon): a cue of another relation, a word the graph
cannot serve or a relation nothing asks for is held against it. A chain whose first relation the entity never takes
part in is ROLE_ODDS times less likely, so "the movies Ann Lee worked on" follows the relation Ann Lee actually has. A
clause may ask for several relations of one film ("the director, the year and the runtime of X"), one relation of
several films ("When were A and B released?"), or refer back with a pronoun. Each candidate exposes its features
(`Candidate.features`) for the scorer that ranks them (bot.understanding.scoring).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import combinations

from bot.core.contracts import Hop, LinkedEntity, chain_code, parse_chain
from bot.core.terms import AnswerType, Group
from bot.core.text import YEAR
from bot.core.text import words as split_words
from bot.kg.graph import KG
from bot.understanding.classifier import ChainClassifier
from bot.understanding.constructions.base import Construction
from bot.understanding.constructions.clause import Token
from bot.understanding.lexicon import PLACE_GROUPS, WEAK_CUES, Explanation, Lexicon, expected_answer
from bot.understanding.linking import Namesakes, link_span, namesakes
from bot.understanding.mentions import Span
from bot.understanding.names import NameFinder
from bot.understanding.questions import ENT, supported_chains
from bot.understanding.reader import context_of, named_of
from bot.understanding.vocabulary import FILM_WORDS, PRONOUNS, QUESTION_WORDS, Speller

CONSTRUCTION = Construction(
    "fact", "a relation chain of one to three hops from a linked entity",
    ("Who directed Good Will Hunting?", "When was Inception released?", "What genres are the films written by Quentin Tarantino?",
     "Who directed Inception and when was it released?"),
)
MAX_CHAINS_PER_SPAN = 12  # chains scored per span (by classifier probability) before the explanation check
LENGTH_WEIGHT = 1.0  # log-probability bonus per token of the span
WORDING_PENALTY = 2.5  # spans made only of question wording ("who", "film") are unlikely names
MAX_ROLE_NAMESAKES = 3  # people of one name whose roles are read as chains ("Stephen King": the author, not an actor of that name)
ROLE_ODDS = 20.0  # how much likelier a chain is when the KG shows the entity in its first relation
FAME_WEIGHT = 0.5  # log-odds per log of how much better connected a person of the same name is


@dataclass
class Candidate:
    """One reading of a clause: an entity behind a span, a chain from it, and how well it accounts for the clause."""

    span: Span | None  # None when the topic is a pronoun's referent
    entity: LinkedEntity | None
    chain: str
    probability: float  # the chain classifier's
    score: float  # log-probability with the span's prior and the entity's role
    explanation: Explanation = field(default_factory=Explanation)
    coordinated: list[Span] = field(default_factory=list)  # more names the same question is asked about ("A and B")
    selectors: frozenset[int] = frozenset()  # tokens that chose the film among namesakes ("original", "Olivier's")
    contradicted: str = ""  # the film a description asks for when it fits none the title names ("Ronin (1975)")

    @property
    def features(self) -> dict[str, float]:
        """What a scorer may weigh (bot.understanding.scoring): the classifier's probability, the prior score, how the
        reading accounts for the clause's words, and how well its name was matched."""
        e = self.explanation
        return {
            "probability": self.probability, "log_probability": math.log(max(self.probability, 1e-9)), "prior_score": self.score,
            "other_cues": len(e.other_cues), "unsupported": len(e.unsupported), "unknown": len(e.unknown),
            "unevidenced": len(e.unevidenced), "answer_type_mismatch": float(bool(e.answer_type)), "complete": float(e.complete),
            "link_score": self.entity.score if self.entity is not None else 0.0, "span_tokens": float(self.span.length if self.span else 0),
            "coordinated": float(len(self.coordinated)), "pronoun": float(self.span is None), "hops": float(len(parse_chain(self.chain.split(";")[0]))),
            "asks": float(self.chain.count(";") + 1), "selected": float(bool(self.selectors)),
        }


def topic_role(bundle, hop) -> tuple[str, str]:
    """The relation of a chain's first hop and the topic entity's side of its triples ("s" or "o")."""
    forward = bundle.relations[hop.relation].direction == "forward"
    return hop.relation, "s" if forward == hop.to_value else "o"


class ChainReader:
    """Reads a clause as relation chains from its names (or a pronoun's referent) against one KG."""

    def __init__(self, kg: KG, classifier: ChainClassifier, lexicon: Lexicon, speller: Speller, names: NameFinder):
        self.kg = kg
        self.classifier = classifier
        self.lexicon = lexicon
        self.speller = speller
        self.names = names
        self.vocabulary = classifier.wording
        chains = supported_chains(kg.bundle)
        self.chain_start = {c.code: c.start for c in chains}
        column = {code: n for n, code in enumerate(classifier.classes)}
        # each relation's one-hop chains (both directions) and the films sharing its value, scored whenever a word
        # of the question names the relation, however the classifier ranks them
        self.cued_columns = {name: tuple(column[code] for code in (chain_code((Hop(name, True),)), chain_code((Hop(name, False),)),
                                                                   chain_code((Hop(name, True), Hop(name, False))))
                                         if code in column) for name in kg.bundle.relations}
        self.chain_role = {c.code: topic_role(kg.bundle, c.hops[0]) for c in chains}
        # each relation's chain from a value to its films: scored for a person in every role the graph shows them in
        # ("Stephen King movies" are the films of his books, whatever the wording's likeliest role)
        self.role_columns = {name: column[code] for name in kg.bundle.relations if (code := chain_code((Hop(name, False),))) in column}
        # the words each relation's bundle lists as its own cues: "wrote" is the screenwriter's, while the composer's
        # phrasing "who wrote the music of {film}" only borrows it
        self.own_cues = {name: frozenset(w for cue in rel.cues for w in split_words(cue)) for name, rel in kg.bundle.relations.items()}
        # the graph is read-only, so these answers never go stale
        self.topic_roles = lru_cache(maxsize=4096)(self._topic_roles)

    def candidates(self, text: str, toks: list[Token], spans: list[Span], a: int, b: int) -> list[Candidate]:
        """Every (entity, chain) reading of the clause, scored and checked against its words."""
        spans = [s for s in spans if s.ids]
        if not spans:
            return []
        clause_start, clause_end = toks[a][1], toks[b - 1][2]
        groups = {id(s): self.names.coordinated(text, toks, s, spans) for s in spans}
        masked = []
        for span in spans:
            members = [span] + groups[id(span)]
            start, end = min(m.start for m in members), max(m.end for m in members)
            masked.append(text[clause_start:start] + ENT + text[end:clause_end])
        probs = self.classifier.predict(masked)
        classes = self.classifier.classes
        years = [int(y) for y in YEAR.findall(text)]
        order = probs.argsort(axis=1)[:, ::-1]
        found = []
        # a span's chains share few (start group, role) pairs: link it once per pair (at 20M triples a span can name
        # dozens of namesakes, and each link ranks them all)
        ranked: dict[tuple, Namesakes] = {}
        linked: dict[tuple, LinkedEntity | None] = {}

        def link(span: Span, group: str | None, role: tuple[str, str] | None) -> LinkedEntity | None:
            if (id(span), group) not in ranked:
                ranked[id(span), group] = namesakes(span, text, self.kg.labels, group, years)
            if (id(span), group, role) not in linked:
                linked[id(span), group, role] = link_span(span, text, self.kg.labels, group, years, role, ranked[id(span), group])
            return linked[id(span), group, role]

        for row, span in enumerate(spans):
            wording = sum(toks[i][0] in self.vocabulary for i in range(span.tok_start, span.tok_end))
            length = span.length - wording / 2  # "movie Crazy" is a weaker name than "Crazy Heart"
            prior = LENGTH_WEIGHT * length - (100 - span.fuzzy_score) / 10
            if self.names.wording_only(toks, span):
                prior -= WORDING_PENALTY
            outside = {self.speller(toks[k][0]) for k in range(a, b) if not span.tok_start <= k < span.tok_end}
            cued = [self.cued_columns[r] for r, cues in self.lexicon.cues.items() if r in self.cued_columns and cues & outside]
            columns = list(order[row][:MAX_CHAINS_PER_SPAN])
            columns += [c for pair in cued for c in pair if c not in columns]  # the relations the words name, however ranked
            columns += [c for c in self._role_columns(span) if c not in columns]
            ignored = words = None
            for col in columns:
                chain, p = classes[col], float(probs[row, col])
                start = self.chain_start.get(chain)
                entity = link(span, start, self.chain_role.get(chain))
                plays_role = entity is not None
                if entity is None:
                    entity = link(span, start, None)
                    if entity is None:
                        continue
                score = math.log(max(p, 1e-9)) + prior - (0.0 if plays_role else math.log(ROLE_ODDS)) - self._less_known(entity)
                candidate = Candidate(span, entity, chain, p, score, coordinated=groups[id(span)])
                if words is None:  # the same for every chain of the span
                    words = self._clause_words(toks, a, b, candidate)
                candidate.explanation = self.explain(toks, a, b, candidate, entity, words)
                if ignored is None:  # the same for every chain of the span
                    ignored = self._ignored_names(text, toks, spans, candidate)
                if ignored:
                    candidate.explanation = replace(candidate.explanation, other_cues=candidate.explanation.other_cues + ignored)
                found.append(candidate)
        return found

    def _less_known(self, entity: LinkedEntity) -> float:
        """How much less likely a person is meant when a better connected person has the same name: a bare "Nolan" is
        Christopher Nolan unless the words say otherwise (a role only the other one has, "Jeanette Nolan")."""
        if entity.group != Group.PERSON or not entity.alternatives:
            return 0.0
        labels = self.kg.labels
        own = labels.degree[labels.by_iri[entity.iri]]
        top = max((alt["degree"] or 0 for alt in entity.alternatives if alt.get("group") == Group.PERSON), default=0)
        return FAME_WEIGHT * math.log((top + 1) / (own + 1)) if top > own else 0.0

    def _role_columns(self, span: Span) -> list[int]:
        """The films-of-a-value chains of the roles the span's people have in the graph (its few best-known namesakes)."""
        labels = self.kg.labels
        people = sorted((i for i in span.ids if labels.groups[i] == Group.PERSON), key=lambda i: -labels.degree[i])[:MAX_ROLE_NAMESAKES]
        roles = set().union(*(self.topic_roles(i) for i in people)) if people else set()
        return [self.role_columns[r] for r in sorted(roles) if r in self.role_columns]

    def _ignored_names(self, text: str, toks, spans: list[Span], candidate: Candidate) -> tuple[str, ...]:
        """Other names of the clause, written as names, that the reading leaves out ("Richard Dreyfuss was in Stand
        by Me - who were the co-stars" read about Dreyfuss alone answers another question)."""
        used = [candidate.span, *candidate.coordinated]
        taken = {k for s in used for k in range(s.tok_start, s.tok_end)} | set(candidate.selectors)
        ignored = []
        first = min(s.tok_start for s in spans)
        named = named_of(toks)
        for span in spans:
            if span.fuzzy_score < 100 or any(k in taken for k in range(span.tok_start, span.tok_end)):
                continue
            written_as_name = text[span.start].isupper() or all(k in named for k in range(span.tok_start, span.tok_end))
            if self.names.wording_only(toks, span) or not written_as_name:
                continue
            if span.length == 1 and (span.tok_start == 0 or span.tok_start == first and not text[: span.start].strip()):
                continue  # one capitalised word opening the message may only be capitalised for that
            if any(self.kg.labels.groups[i] in (Group.FILM, Group.PERSON) for i in span.ids):
                ignored.append(span.norm)
        return tuple(ignored)

    def pronoun_candidates(self, text: str, toks: list[Token], a: int, b: int, pronoun: int | None, group: str,
                           referent: LinkedEntity | None) -> list[Candidate]:
        """Readings of a clause whose topic is a pronoun: 'when was it released' -> the film named before;
        `pronoun` None: the topic is left unsaid ("and who was the director?"), read as if named at the end."""
        if pronoun is None:
            said = text[toks[a][1] : toks[b - 1][2]]
            masked = f"{said} {ENT}" if toks[b - 1][0] in QUESTION_WORDS else f"{said} of {ENT}"  # "and when?" / "and the director?"
        else:
            start, end = toks[pronoun][1], toks[pronoun][2]
            masked = text[toks[a][1] : start] + ENT + ("'s" if toks[pronoun][0] in ("its", "his", "her", "their") else "") + text[end : toks[b - 1][2]]
        probs = self.classifier.predict([masked])[0]
        found = []
        columns = list(probs.argsort()[::-1][:MAX_CHAINS_PER_SPAN])
        said = {self.speller(toks[k][0]) for k in range(a, b) if k != pronoun}
        cued = [self.cued_columns[r] for r, cues in self.lexicon.cues.items() if r in self.cued_columns and cues & said]
        columns += [c for pair in cued for c in pair if c not in columns]  # "what's its runtime": the relation the words name, however ranked
        for col in columns:
            chain, p = self.classifier.classes[col], float(probs[col])
            if self.chain_start.get(chain) != group:
                continue
            candidate = Candidate(None, referent, chain, p, math.log(max(p, 1e-9)) + 1.0)
            candidate.explanation = self.explain(toks, a, b, candidate, referent)
            found.append(candidate)
        return found

    def with_selectors(self, candidate: Candidate, tokens: frozenset[int], toks, a: int, b: int) -> Candidate:
        chosen = replace(candidate, selectors=candidate.selectors | tokens)
        chosen.explanation = self.explain(toks, a, b, chosen, chosen.entity)
        return chosen

    def content(self, toks: list[Token], a: int, b: int, candidate: Candidate) -> list[str]:
        """The clause's words outside the candidate's names (spelling corrected to the wording words)."""
        skip = set(candidate.selectors) | context_of(toks)  # (words the reader found to ask nothing need no explanation)
        for span in ([candidate.span] if candidate.span else []) + candidate.coordinated:
            skip.update(range(span.tok_start, span.tok_end))
        return [self.speller(toks[k][0]) for k in range(a, b) if k not in skip and toks[k][0] not in PRONOUNS]

    def _clause_words(self, toks, a: int, b: int, candidate: Candidate) -> tuple[list[str], str]:
        """The clause's content words outside the candidate's names, and the kind of answer its wording asks for: the same
        for every chain read from one name (a clause has ~20 readings, a few names)."""
        names = set()
        for span in ([candidate.span] if candidate.span else []) + candidate.coordinated:
            names.update(range(span.tok_start, span.tok_end))
        return self.content(toks, a, b, candidate), expected_answer([toks[k][0] for k in range(a, b) if k not in names])

    def explain(self, toks, a: int, b: int, candidate: Candidate, entity: LinkedEntity | None,
                 words: tuple[list[str], str] | None = None) -> Explanation:
        """How the candidate's chain accounts for the clause; `words`: its _clause_words, when already known."""
        content, expected = words or self._clause_words(toks, a, b, candidate)
        idx = self.kg.labels.by_iri.get(entity.iri) if entity is not None else None
        roles = self.topic_roles(idx) if idx is not None else frozenset()
        chain = tuple(h for code in candidate.chain.split(";") for h in parse_chain(code))
        explanation = self.lexicon.explain(content, chain, bool(set(content) & FILM_WORDS), roles)
        if entity is not None and entity.group != Group.FILM and (years := tuple(w for w in content if YEAR.fullmatch(w))):
            # "the composer of the film Ridley Scott directed in 1982": a chain from a person cannot use the year, and
            # without it would answer about all of his films (a film's reading may use a year to tell namesakes apart)
            explanation = replace(explanation, other_cues=explanation.other_cues + years)
        given = self._answer_type(chain[-1]) if ";" not in candidate.chain else AnswerType.VALUE
        if expected and given != expected and given != AnswerType.VALUE and not (expected == AnswerType.PLACE and given in PLACE_GROUPS):
            explanation = replace(explanation, answer_type=expected)
        first = self._first_hop_named(toks, a, candidate)
        if first and chain[0].relation not in first:
            # "films for the director of X": the relation named right before the name is the first step from it
            explanation = replace(explanation, unevidenced=explanation.unevidenced + ("first step",))
        last = chain[-1].relation
        if expected and expected == given and last in explanation.unevidenced and self.lexicon.through.get(last, frozenset()) & set(content) - WEAK_CUES:
            # "adapted from whose novel?": the work's words and a question for a person ask for its author
            explanation = replace(explanation, unevidenced=tuple(r for r in explanation.unevidenced if r != last))
        if expected == given == AnswerType.DATE and chain[-1].relation in explanation.unevidenced:
            # "... and when?": the question word asks for the date itself
            explanation = replace(explanation, unevidenced=tuple(r for r in explanation.unevidenced if r != chain[-1].relation))
        return explanation

    def _topic_roles(self, idx: int) -> frozenset[str]:
        """The relations the label index's entity `idx` takes part in as a film's value (cached in __init__: every
        reading of a clause asks about its entity, ~30 readings a question)."""
        return frozenset(name for name, rel in self.kg.bundle.relations.items()
                         if self.kg.labels.has_role(idx, name, "o" if rel.direction == "forward" else "s"))

    def _first_hop_named(self, toks, a: int, candidate: Candidate) -> frozenset[str]:
        """The relations of a noun right before "of <name>" ("the director of X"), else an empty set (also for several
        asks: "the director, the release year and the running time of X")."""
        span = candidate.span
        if span is None or candidate.coordinated or ";" in candidate.chain or span.tok_start - 2 < a or toks[span.tok_start - 1][0] != "of":
            return frozenset()
        noun = self.speller(toks[span.tok_start - 2][0])
        if noun in FILM_WORDS or any(toks[k][0] in FILM_WORDS for k in range(span.tok_end, min(len(toks), span.tok_end + 2))):
            return frozenset()  # "the release dates of Ana Coto acted films": the name qualifies the films after it
        return self.lexicon.relations_of(noun)

    def _answer_type(self, hop: Hop) -> str:
        """What a chain ending in `hop` answers: 'film', 'person', 'date', another class group, or a value kind."""
        if not hop.to_value:
            return AnswerType.FILM
        relation = self.kg.bundle.relations[hop.relation]
        if relation.kind in ("date", "year"):
            return AnswerType.DATE
        return relation.value_class or relation.kind

    def with_more_relations(self, best: Candidate, text: str, toks, a: int, b: int) -> Candidate | None:
        """'the director, the release year and the running time of X': one ask per relation a cue names."""
        if best.span is None or best.entity is None or best.entity.group != Group.FILM or not best.explanation.other_cues:
            return None
        clause = text[toks[a][1] : toks[b - 1][2]]
        if not re.search(r",|\band\b|&", clause):
            return None  # several relations are asked as a list: "the director, the year and the runtime of X"
        content = self.content(toks, a, b, best)
        labels, idx = self.kg.labels, self.kg.labels.by_iri.get(best.entity.iri)
        held = {name for name, rel in self.kg.bundle.relations.items()
                if idx is not None and labels.has_role(idx, name, "s" if rel.direction == "forward" else "o")}
        named = []
        for word in content:
            # a word several relations share ("wrote": the screenplay, the score, the novel) names first those the film
            # has, and among them the ones whose own cue it is
            for name in sorted(self.lexicon.relations_of(word), key=lambda name: (name not in held, word not in self.own_cues[name], name)):
                code = chain_code((Hop(name, True),))
                if code in self.chain_start and self.chain_start[code] == Group.FILM and code not in named:
                    named.append(code)
        base = best.chain if best.chain in named else None
        if len(named) < 2:
            return None
        for chosen in self._relation_sets(named, content, base):
            candidate = Candidate(best.span, best.entity, ";".join(chosen), best.probability, best.score, coordinated=best.coordinated)
            candidate.explanation = self.explain(toks, a, b, candidate, best.entity)
            if candidate.explanation.complete or (not candidate.explanation.other_cues and not candidate.explanation.unevidenced):
                return candidate
        return None

    def _relation_sets(self, named: list[str], content: list[str], base: str | None) -> list[list[str]]:
        """The smallest sets of relations (in the order the question names them) whose cues cover the words."""
        position = {code: min((i for i, w in enumerate(content) if parse_chain(code)[0].relation in self.lexicon.relations_of(w)), default=99)
                    for code in named}
        ordered = sorted(named, key=lambda c: position[c])
        sets = []
        for size in range(2, min(5, len(ordered)) + 1):
            for combo in combinations(ordered, size):
                if base is None or base in combo:
                    sets.append(list(combo))
        return sets

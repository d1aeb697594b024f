"""Understanding: question kind, relation chain and linked topic entity, chosen jointly.

For a factual question every candidate span is masked in turn ("who directed ENT"), the
chain classifier scores the masked wording, and the candidate whose best compatible chain
is most probable (with a preference for longer, better-matching spans) wins. A chain is
compatible with a span only if an entity behind the span belongs to the chain's start group;
a chain whose first relation the entity never takes part in (in the KG) is ROLE_ODDS times
less likely, so "the movies Ann Lee worked on" follows the relation Ann Lee actually has,
while "who directed X" for an X without a director still asks for X's director.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bot.core.contracts import LinkedEntity, Understanding, parse_chain
from bot.core.features import MentionSource
from bot.core.kinds import Kind
from bot.core.text import YEAR, tokens
from bot.kg.graph import KG
from bot.understanding.classifier import ChainClassifier
from bot.understanding.cues import question_kind
from bot.understanding.linking import link_span
from bot.understanding.mentions import IndexMentions, Span
from bot.understanding.questions import ENT, supported_chains

MAX_CANDIDATES = 12
LENGTH_WEIGHT = 1.0  # log-probability bonus per token of the span
WORDING_PENALTY = 2.5  # spans made only of question wording ("who", "film") are unlikely names
FILM_CUES = frozenset({"film", "movie"})
ROLE_ODDS = 20.0  # how much likelier a chain is when the KG shows the entity in its first relation


@dataclass
class Candidate:
    span: Span
    entity: LinkedEntity
    chain: str
    probability: float
    score: float


def topic_role(bundle, hop) -> tuple[str, str]:
    """The relation of a chain's first hop and the topic entity's side of its triples ("s" or "o")."""
    forward = bundle.relations[hop.relation].direction == "forward"
    return hop.relation, "s" if forward == hop.to_value else "o"


class Understander:
    """Classifies the question and links its entities against one KG."""

    def __init__(self, kg: KG, classifier: ChainClassifier, fuzzy_threshold: float = 90.0):
        self.kg = kg
        self.classifier = classifier
        self.threshold = fuzzy_threshold
        self.vocabulary = classifier.wording
        self.mentions = IndexMentions(kg.labels, self.vocabulary)
        self.chain_start = {c.code: c.start for c in supported_chains(kg.bundle)}
        self.chain_role = {c.code: topic_role(kg.bundle, c.hops[0]) for c in supported_chains(kg.bundle)}
        # extra mention sources (the Flair NER layer, once loaded): (text, tokens) -> Spans; a span
        # that did not validate against the KG has no ids (it is only recorded in the trace)
        self.span_sources: list[MentionSource] = []

    def candidate_spans(self, text: str, toks, trace: dict | None = None) -> list[Span]:
        """The validated spans of the mention sources; the label-index search when none validates."""
        proposed = [span for source in self.span_sources for span in source(text, toks)]
        spans = [s for s in proposed if s.ids]
        if not spans:
            spans = self.mentions.exact(toks)
            covered = {i for s in spans if not self._wording_only(toks, s) for i in range(s.tok_start, s.tok_end)}
            spans += self.mentions.fuzzy(toks, self.threshold, covered)
        if trace is not None and self.span_sources:
            trace["mentions"] = [
                {"text": text[s.start : s.end], "source": s.source, "expects": s.expects,
                 "label": s.norm if s.ids else None, "score": round(s.fuzzy_score, 1)}
                for s in proposed
            ]
            trace["spans_from"] = next((s.source for s in proposed if s.ids), "index")
        # longest first; keep a bounded number of candidates
        spans.sort(key=lambda s: (-s.length, -s.fuzzy_score, s.tok_start))
        return spans[:MAX_CANDIDATES]

    def mask_names(self, text: str, toks, spans: list[Span]) -> str:
        """The text with multi-word names replaced by ENT, so titles like "The Big Picture" or
        "Like Crazy" do not trigger the picture or recommendation cues."""
        chosen, taken = [], set()
        for span in sorted(spans, key=lambda s: (-s.length, s.start)):
            if span.length < 2 or taken & set(range(span.tok_start, span.tok_end)):
                continue
            if self._wording_only(toks, span) and not self._named_film(toks, span):
                continue
            taken.update(range(span.tok_start, span.tok_end))
            chosen.append(span)
        masked = text
        for span in sorted(chosen, key=lambda s: -s.start):
            masked = masked[: span.start] + ENT + masked[span.end :]
        return masked

    def _named_film(self, toks, span: Span) -> bool:
        """A film title made of wording words that the question introduces as one: "the movie Like It Is"."""
        return span.tok_start > 0 and toks[span.tok_start - 1][0] in FILM_CUES and any(
            self.kg.labels.groups[i] == "film" for i in span.ids
        )

    def _wording_only(self, toks, span: Span) -> bool:
        return all(toks[i][0] in self.vocabulary for i in range(span.tok_start, span.tok_end))

    def understand(self, text: str, trace: dict | None = None) -> Understanding:
        """What `text` asks; `trace` (the reply trace's detail dict) records where its spans came from."""
        toks = tokens(text)
        spans = self.candidate_spans(text, toks, trace)
        kind, intent = question_kind(self.mask_names(text, toks, spans))
        if kind is Kind.SMALLTALK:
            return Understanding(text, kind, smalltalk=intent, confidence=1.0)
        if kind is not Kind.FACTUAL:
            return Understanding(text, kind, entities=self.all_entities(text, toks, spans), confidence=1.0)
        best = self.best_candidate(text, toks, spans)
        if best is None:
            return Understanding(text, Kind.UNKNOWN, not_found=self.unexplained(text, toks))
        return Understanding(text, Kind.FACTUAL, parse_chain(best.chain), [best.entity], best.probability)

    def best_candidate(self, text: str, toks, spans: list[Span]) -> Candidate | None:
        if not spans:
            return None
        masked = [text[: s.start] + ENT + text[s.end :] for s in spans]
        probs = self.classifier.predict(masked)
        classes = self.classifier.classes
        years = [int(y) for y in YEAR.findall(text)]
        order = probs.argsort(axis=1)[:, ::-1]
        best = None
        for row, span in enumerate(spans):
            wording = sum(toks[i][0] in self.vocabulary for i in range(span.tok_start, span.tok_end))
            length = span.length - wording / 2  # "movie Crazy" is a weaker name than "Crazy Heart"
            prior = LENGTH_WEIGHT * length - (100 - span.fuzzy_score) / 10
            if self._wording_only(toks, span):
                prior -= WORDING_PENALTY
            top = None  # probability of the span's most probable compatible chain
            for col in order[row]:
                chain, p = classes[col], float(probs[row, col])
                if top is not None and p * ROLE_ODDS < top:
                    break  # no later chain can beat the first one, even with the role
                start = self.chain_start.get(chain)
                entity = link_span(span, text, self.kg.labels, start, years, self.chain_role.get(chain))
                plays_role = entity is not None
                if entity is None:
                    entity = link_span(span, text, self.kg.labels, start, years)
                    if entity is None:
                        continue
                top = p if top is None else top
                score = math.log(max(p, 1e-9)) + prior - (0.0 if plays_role else math.log(ROLE_ODDS))
                if best is None or score > best.score:
                    best = Candidate(span, entity, chain, p, score)
                if plays_role:
                    break
        return best

    def all_entities(self, text: str, toks, spans: list[Span]) -> list[LinkedEntity]:
        """Non-overlapping entities, longest first (for recommendations and pictures)."""
        years = [int(y) for y in YEAR.findall(text)]
        taken: set[int] = set()
        found = []
        for span in spans:
            if self._wording_only(toks, span) or any(i in taken for i in range(span.tok_start, span.tok_end)):
                continue
            entity = link_span(span, text, self.kg.labels, None, years)
            if entity is not None:
                found.append(entity)
                taken.update(range(span.tok_start, span.tok_end))
        return sorted(found, key=lambda e: e.start)

    def unexplained(self, text: str, toks) -> list[str]:
        return [text[toks[a][1] : toks[b - 1][2]] for a, b in self.mentions.residual_runs(toks)]

"""Understanding: question kind, relation chain and linked topic entity, chosen jointly.

For a factual question every candidate span is masked in turn ("who directed ENT"), the
chain classifier scores the masked wording, and the candidate whose best compatible chain
is most probable (with a preference for longer, better-matching spans) wins. A chain is
compatible with a span only if an entity behind the span belongs to the chain's start group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .classify import question_kind
from .contracts import LinkedEntity, Understanding, parse_chain
from .entity import IndexMentions, Span
from .kg import KG
from .questions import ENT, supported_chains
from .text import YEAR, tokens
from .validation import link_span

MAX_CANDIDATES = 12
LENGTH_WEIGHT = 1.0  # log-probability bonus per token of the span
WORDING_PENALTY = 2.5  # spans made only of question wording ("who", "film") are unlikely names


@dataclass
class Candidate:
    span: Span
    entity: LinkedEntity
    chain: str
    probability: float
    score: float


class Understander:
    """Classifies the question and links its entities against one KG."""

    def __init__(self, kg: KG, fuzzy_threshold: float = 90.0):
        self.kg = kg
        self.threshold = fuzzy_threshold
        self.vocabulary = kg.classifier.wording
        self.mentions = IndexMentions(kg.labels, self.vocabulary)
        self.chain_start = {c.code: c.start for c in supported_chains(kg.bundle)}
        # extra mention sources (e.g. the Flair NER layer): (text, tokens) -> Spans; a span that did
        # not validate against the KG has no ids (it is only recorded in the trace)
        self.span_sources: list = []

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
            if span.length < 2 or self._wording_only(toks, span) or taken & set(range(span.tok_start, span.tok_end)):
                continue
            taken.update(range(span.tok_start, span.tok_end))
            chosen.append(span)
        masked = text
        for span in sorted(chosen, key=lambda s: -s.start):
            masked = masked[: span.start] + ENT + masked[span.end :]
        return masked

    def _wording_only(self, toks, span: Span) -> bool:
        return all(toks[i][0] in self.vocabulary for i in range(span.tok_start, span.tok_end))

    def understand(self, text: str, trace: dict | None = None) -> Understanding:
        """What `text` asks; `trace` (the reply trace's detail dict) records where its spans came from."""
        toks = tokens(text)
        spans = self.candidate_spans(text, toks, trace)
        kind, intent = question_kind(self.mask_names(text, toks, spans))
        if kind == "smalltalk":
            return Understanding(text, kind, smalltalk=intent, confidence=1.0)
        if kind != "factual":
            return Understanding(text, kind, entities=self.all_entities(text, toks, spans), confidence=1.0)
        best = self.best_candidate(text, toks, spans)
        if best is None:
            return Understanding(text, "unknown", not_found=self.unexplained(text, toks))
        return Understanding(text, "factual", parse_chain(best.chain), [best.entity], best.probability)

    def best_candidate(self, text: str, toks, spans: list[Span]) -> Candidate | None:
        if not spans:
            return None
        masked = [text[: s.start] + ENT + text[s.end :] for s in spans]
        probs = self.kg.classifier.predict(masked)
        classes = self.kg.classifier.classes
        years = [int(y) for y in YEAR.findall(text)]
        order = probs.argsort(axis=1)[:, ::-1]
        best = None
        for row, span in enumerate(spans):
            for col in order[row]:
                chain = classes[col]
                entity = link_span(span, text, self.kg.labels, self.chain_start.get(chain), years)
                if entity is None:
                    continue
                p = float(probs[row, col])
                wording = sum(toks[i][0] in self.vocabulary for i in range(span.tok_start, span.tok_end))
                length = span.length - wording / 2  # "movie Crazy" is a weaker name than "Crazy Heart"
                score = math.log(max(p, 1e-9)) + LENGTH_WEIGHT * length - (100 - span.fuzzy_score) / 10
                if self._wording_only(toks, span):
                    score -= WORDING_PENALTY
                if best is None or score > best.score:
                    best = Candidate(span, entity, chain, p, score)
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

"""Names in a message: the spans that may name KG entities, which of them read as names, and their entities.

The label index finds spans (labels, aliases, variants, fuzzy matches of the words no label explains;
bot.understanding.mentions), mention sources such as the Flair NER layer add theirs, and the spans are then weighed
the way a reader would: a lowercase surname that is also a common word, a shorter name inside a longer capitalised
title, question wording that happens to be a label ("Like Crazy"). Series ordinals name one film ("the first Harry
Potter film", bot.understanding.series).
"""

from __future__ import annotations

import re

from bot.core.contracts import LinkedEntity
from bot.core.features import MentionSource
from bot.core.terms import Group
from bot.core.text import YEAR
from bot.kg.graph import KG
from bot.understanding.constructions.clause import Token
from bot.understanding.lexicon import Lexicon
from bot.understanding.linking import link_span
from bot.understanding.mentions import IndexMentions, Span
from bot.understanding.questions import ENT
from bot.understanding.referents import PINNED
from bot.understanding.series import SeriesOrdinals
from bot.understanding.vocabulary import LIST_WORDS, TITLE_FUNCTION_WORDS

MAX_CANDIDATES = 16
FILM_CUES = frozenset({"film", "movie"})


class NameFinder:
    """Finds and weighs the names of a message against one KG."""

    def __init__(self, kg: KG, lexicon: Lexicon, mentions: IndexMentions, vocabulary: frozenset[str], fuzzy_threshold: float):
        self.kg = kg
        self.lexicon = lexicon
        self.mentions = mentions
        self.vocabulary = vocabulary
        self.threshold = fuzzy_threshold
        self.series = SeriesOrdinals(kg)
        # extra mention sources (the Flair NER layer, once loaded): (text, tokens) -> Spans; a span
        # that did not validate against the KG has no ids (it is only recorded in the trace)
        self.span_sources: list[MentionSource] = []

    def candidate_spans(self, text: str, toks: list[Token], trace: dict | None = None) -> list[Span]:
        """Spans that name KG entities: the mention sources' validated spans and the label index's."""
        proposed = [span for source in self.span_sources for span in source(text, toks)]
        words = [t for t, _, _ in toks]
        spans = [s for s in proposed if s.ids and not (  # a surname tagged alone beside another unknown word: "jacob elordi"
            s.length <= 2 and not self.kg.labels.lookup(s.norm) and self.mentions.inside_longer_name(words, s.tok_start, s.tok_end))]
        index = self.mentions.exact(toks)
        covered = {i for s in index + spans if not self.wording_only(toks, s) and (s.fuzzy_score >= 100 or self._class_variant(s))
                   for i in range(s.tok_start, s.tok_end)}
        index += self.mentions.fuzzy(toks, self.threshold, covered, text)
        seen = {(s.tok_start, s.tok_end, s.norm): n for n, s in enumerate(spans)}
        for span in index:
            key = (span.tok_start, span.tok_end, span.norm)
            if key not in seen:
                spans.append(span)
            elif span.source == "index" and span.fuzzy_score > spans[seen[key]].fuzzy_score:
                spans[seen[key]] = span  # a whole label typed exactly outranks a source's wrong guess of its type ("david hand" as a film)
        if trace is not None and self.span_sources:
            trace["mentions"] = [
                {"text": text[s.start : s.end], "source": s.source, "expects": s.expects,
                 "label": s.norm if s.ids else None, "score": round(s.fuzzy_score, 1)}
                for s in proposed
            ]
            trace["spans_from"] = next((s.source for s in proposed if s.ids), "index")
        spans = [s for s in spans if not self._inside_a_capitalised_name(text, toks, s, spans) and not self._uncapitalised_surname(text, s, spans)]
        spans = self.series.resolve(text, toks, spans)  # "the first Harry Potter film" names one film
        # longest first; keep a bounded number of candidates
        spans.sort(key=lambda s: (-s.length, -s.fuzzy_score, s.tok_start))
        return spans[:MAX_CANDIDATES]

    def _uncapitalised_surname(self, text: str, span: Span, spans: list[Span]) -> bool:
        """A person's surname alone that is also a common word (other names start with it: "Black Swan"), typed in lower
        case in a message that capitalises the titles and names it types: "is Schindler's List in black and white" says
        nothing of Jack Black. ("Tom Hanks films with spielberg" still names Spielberg: no title starts with it.) A surname
        typed in lower case that is a relation's cue word is that word wherever it stands ("won", "star", "cast")."""
        labels = self.kg.labels
        if span.length != 1 or span.source != "variant" or text[span.start : span.end] != text[span.start : span.end].lower():
            return False
        if not all(labels.groups[i] == Group.PERSON for i in span.ids):
            return False
        if self.lexicon.is_cue(span.norm):
            return True  # "which films won best picture": the verb, not Han Jin-won
        if all(labels.groups[i] == Group.PERSON for i in labels.starting_with(span.norm + " ")):
            return False
        return any(other.fuzzy_score >= 100 and other.source != "variant" and (other.end <= span.start or other.start >= span.end)
                   and text[other.start].isupper() for other in spans)

    @staticmethod
    def _inside_a_capitalised_name(text: str, toks: list[Token], span: Span, spans: list[Span]) -> bool:
        """Whether `span` lies inside a longer exact label whose other words are capitalised as typed
        ("The Hours", "Still Alice", "Cohen and Tate"): the writer wrote the longer name, not the shorter one."""
        for longer in spans:
            if longer is span or longer.fuzzy_score < 100 or longer.length <= span.length:
                continue
            if not (longer.tok_start <= span.tok_start and span.tok_end <= longer.tok_end):
                continue
            extra = [k for k in range(longer.tok_start, longer.tok_end) if not span.tok_start <= k < span.tok_end]
            capitalised = [text[toks[k][1]].isupper() or text[toks[k][1]].isdigit() for k in extra]
            if any(capitalised) and all(c or toks[k][0] in TITLE_FUNCTION_WORDS for c, k in zip(capitalised, extra)):
                return True  # ("Off the Black", "Cohen and Tate": small words stay lowercase in titles)
        return False

    def mask_names(self, text: str, toks, spans: list[Span]) -> str:
        """The text with multi-word names replaced by ENT, so titles like "The Big Picture" or
        "Like Crazy" do not trigger the picture or recommendation cues."""
        chosen, taken = [], set()
        for span in sorted(spans, key=lambda s: (-s.length, s.start)):
            if span.length < 2 or taken & set(range(span.tok_start, span.tok_end)):
                continue
            if self.wording_only(toks, span) and not self._named_film(toks, span):
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
            self.kg.labels.groups[i] == Group.FILM for i in span.ids
        )

    def _class_variant(self, span: Span) -> bool:
        """A generated variant of a genre, country or language ("thriller films", "westerns"): as exact as a label, so
        no misspelt name is looked for in its words (on a 2M-triple graph that search costs ~60 ms)."""
        return span.source == "variant" and all(self.kg.labels.groups[i] not in (Group.FILM, Group.PERSON) for i in span.ids)

    def wording_only(self, toks, span: Span) -> bool:
        return span.source != PINNED and all(toks[i][0] in self.vocabulary for i in range(span.tok_start, span.tok_end))

    @staticmethod
    def capitalised_title(text: str, toks, span: Span) -> bool:
        """A title made of question words, written as a title: "Come and See", "loved Once and Frozen II"."""
        if span.fuzzy_score < 100 or span.tok_start == 0 and span.length == 1:
            return False
        return all(text[toks[k][1]].isupper() or toks[k][0] in TITLE_FUNCTION_WORDS for k in range(span.tok_start, span.tok_end)) \
            and text[toks[span.tok_start][1]].isupper()

    def name_like(self, toks, span: Span) -> bool:
        return not self.wording_only(toks, span) or span.length > 1

    def link(self, text: str, span: Span, group: str | None, years: list[int]) -> LinkedEntity | None:
        return link_span(span, text, self.kg.labels, group, years)

    def topic_only(self, text, toks, clause_spans, years) -> LinkedEntity | None:
        names = [s for s in clause_spans if self.name_like(toks, s)]
        for span in sorted(names, key=lambda s: (-s.length, -s.fuzzy_score)):
            entity = self.link(text, span, None, years)
            if entity is not None and span.fuzzy_score >= 95:
                return entity
        return None

    def coordinated(self, text: str, toks: list[Token], span: Span, spans: list[Span]) -> list[Span]:
        """Names listed with `span` ("A and B", "A, B or C"): they are asked the same question."""
        names = [s for s in spans if s is not span and self.name_like(toks, s)]
        chosen, edge = [], (span.tok_start, span.tok_end)
        for direction in (1, -1):
            lo, hi = edge
            while True:
                nxt = None
                for s in names:
                    gap = range(hi, s.tok_start) if direction == 1 else range(s.tok_end, lo)
                    if (direction == 1 and s.tok_start >= hi or direction == -1 and s.tok_end <= lo) and len(gap) <= 2:
                        between = text[toks[gap.start - 1][2] if gap.start > 0 else 0 : toks[gap.stop][1]] if gap.stop < len(toks) else ""
                        listed = all(toks[k][0] in LIST_WORDS for k in gap) or (  # "of A and of B"
                            len(gap) == 2 and toks[gap[0]][0] in LIST_WORDS and toks[gap[1]][0] in ("of", "for", "in", "about", "the"))
                        if listed and (gap or re.search(r"[,&/]", between)):
                            if nxt is None or s.length > nxt.length:
                                nxt = s
                if nxt is None or any(nxt.tok_start < c.tok_end and c.tok_start < nxt.tok_end for c in chosen):
                    break
                chosen.append(nxt)
                lo, hi = (lo, nxt.tok_end) if direction == 1 else (nxt.tok_start, hi)
        return chosen

    def all_entities(self, text: str, toks, spans: list[Span]) -> list[LinkedEntity]:
        """Non-overlapping entities, longest first (for recommendations and pictures)."""
        years = [int(y) for y in YEAR.findall(text)]
        taken: set[int] = set()
        found = []
        for span in spans:
            if self.wording_only(toks, span) and not self.capitalised_title(text, toks, span):
                continue
            if any(i in taken for i in range(span.tok_start, span.tok_end)):
                continue
            entity = link_span(span, text, self.kg.labels, None, years)
            if entity is not None:
                found.append(entity)
                taken.update(range(span.tok_start, span.tok_end))
        return sorted(found, key=lambda e: e.start)

    def unexplained(self, text: str, toks) -> list[str]:
        return [text[toks[a][1] : toks[b - 1][2]] for a, b in self.mentions.residual_runs(toks)]

"""The NER entity layer at answer time: tagged spans validated against KG labels and re-merged.

Every span the tagger finds is validated against KG labels of the class group its tag names
(exact, then within a few typos or rapidfuzz >= the threshold), its boundary is moved to
meet a label NER cut short or overran, near fragments of one title ("X-Men: First Class")
are re-merged, and the result goes to the understander as mention spans. When none
validates, the understander falls back to its label-index search.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from bot.kg.labels import LabelIndex
from bot.understanding.mentions import VARIANT_SCORE, Span, numbers_agree
from bot.understanding.ner.sentences import PERSON, TITLE

log = logging.getLogger(__name__)

TITLE_TAGS = frozenset({"MISC", "LOC", "ORG"})  # what a downloaded CoNLL model calls titles
MAX_GAP_WORDS = 3  # words between two NER fragments that may still be one title
MAX_PARTS = 4  # fragments re-merged into one title at most
BOUNDARY_SLACK = 2  # words a tagged boundary may move to meet a label exactly
MAX_EXTENSION = 4  # words a tagged span may grow by on each side to become a whole label
OTHER_GROUP_PENALTY = 5.0  # score lost by a label of another group than the tag names
ANY_GROUP = "*"


class Tagger(Protocol):
    """What finds the spans (bot.understanding.ner.tagger.NerTagger, which imports this module: Flair loads only with it)."""

    def tag(self, text: str) -> list[TaggedSpan]: ...


@dataclass(frozen=True)
class TaggedSpan:
    """A span the tagger found: character offsets into the question, its tag and confidence."""

    start: int
    end: int
    tag: str
    confidence: float



def expected_group(tag: str) -> str | None:
    """The class group a tag names: PER -> person; MISC/LOC/ORG -> film (a title); others none."""
    if tag == PERSON:
        return "person"
    if tag in TITLE_TAGS:
        return "film"
    return None


def group_preference(group: str) -> tuple[str, ...]:
    """The tag's group first; then the other of film/person (NER mixes them up on unusual names); then any."""
    other = "person" if group == "film" else "film"
    return (group, other, ANY_GROUP)


def max_edits(length: int) -> int:
    """Typos forgiven in a name of `length` characters."""
    return 0 if length < 5 else 1 if length < 10 else 2  # "ides" is no typo of "ide", "the menu" none of "the omen"


@dataclass(frozen=True)
class LabelMatch:
    """The normalised KG label a name validated against, how well, and the class group it stands for."""

    key: str
    score: float  # 0-100 (rapidfuzz scale), lowered for a group the tag did not name
    group: str


class LabelMatcher:
    """Validates names against the KG labels of preferred class groups.

    Exact match first; then labels within a few typos (optimal string alignment distance,
    so 1-2 edits of a short name count) or with a rapidfuzz ratio of at least the threshold.
    Only labels of a plausible length are compared, which keeps a fuzzy look-up near 1 ms.
    """

    def __init__(self, labels: LabelIndex, threshold: float):
        self.labels = labels
        self.threshold = threshold

    def groups(self, key: str) -> set[str]:
        return {self.labels.groups[i] for i in self.labels.lookup_any(key)} - {""}

    def _rank(self, key: str, preference: tuple[str, ...]) -> int | None:
        found = self.groups(key)
        for rank, group in enumerate(preference):
            if group in found or (group == ANY_GROUP and found):
                return rank
        return None

    def exact(self, norm: str, preference: tuple[str, ...]) -> LabelMatch | None:
        rank = self._rank(norm, preference) if norm else None
        if rank is None:
            return None
        base = 100.0 if self.labels.lookup(norm) else VARIANT_SCORE  # a generated variant is trusted a little less
        return LabelMatch(norm, base - OTHER_GROUP_PENALTY * min(rank, 1), self._group(norm, preference, rank))

    def fuzzy(self, norm: str, preference: tuple[str, ...]) -> LabelMatch | None:
        if not norm:
            return None
        n, edits, t = len(norm), max_edits(len(norm)), self.threshold / 100
        hits = {key: 0.0 for key, _, _ in process.extract(
            norm, self.labels.band(n - edits, n + edits), scorer=OSA.distance, score_cutoff=edits, limit=20)} if edits else {}
        for key, _, _ in process.extract(norm, self.labels.band(n * t / (2 - t), n * (2 - t) / t), scorer=fuzz.ratio,
                                         score_cutoff=self.threshold, limit=20):
            hits[key] = 0.0
        best = None
        for key in hits:
            rank = self._rank(key, preference)
            if rank is None or not numbers_agree(norm, key):
                continue
            if not self.labels.lookup(key) and fuzz.ratio(norm, key) < self.threshold:
                continue  # a typo is forgiven against a whole label, not against a surname or short form
            order = (rank, OSA.distance(norm, key), -fuzz.ratio(norm, key), -max(self.labels.degree[i] for i in self.labels.lookup_any(key)), key)
            if best is None or order < best[0]:
                best = (order, key, rank)
        if best is None:
            return None
        (rank, _, negative_ratio, _, _), key, _ = best
        return LabelMatch(key, -negative_ratio - OTHER_GROUP_PENALTY * min(rank, 1), self._group(key, preference, rank))

    def _group(self, key: str, preference: tuple[str, ...], rank: int) -> str:
        return preference[rank] if preference[rank] != ANY_GROUP else sorted(self.groups(key))[0]


@dataclass
class Fragment:
    """A tagged span (or several re-merged ones) and the KG label it validated against."""

    start: int  # token offsets (bot.core.text tokens)
    end: int
    tag: str
    match: LabelMatch | None = None
    parts: int = 1

    @property
    def score(self) -> float:
        return self.match.score if self.match else 0.0


class NerMentions:
    """Span source for the understander: NER spans, validated against the label index and re-merged.

    Returns every NER span; those that did not validate carry no entity ids (they only show in the trace).
    """

    def __init__(self, tagger: Tagger, labels: LabelIndex, threshold: float, wording: frozenset[str] = frozenset()):
        self.tagger = tagger
        self.labels = labels
        self.matcher = LabelMatcher(labels, threshold)
        self.wording = wording  # words of the question wording, never grown into a name

    def validate(self, toks, start: int, end: int, preference: tuple[str, ...]) -> Fragment | None:
        """The span, or a boundary near it, that names a KG entity.

        NER often drops a leading "The" or takes in a trailing "is". Words that are exactly a label
        win: the longest label that takes in all the tagged words (up to MAX_EXTENSION more words
        each side), else the best one within BOUNDARY_SLACK words, nearest first. Otherwise the
        tagged words are matched fuzzily and the boundary is moved to fit the label found; when they
        match nothing, the tagged words with up to BOUNDARY_SLACK more words are matched fuzzily.
        """
        norm = lambda a, b: " ".join(t for t, _, _ in toks[a:b])  # noqa: E731
        keep = max(1, (end - start + 1) // 2)  # a shifted boundary keeps at least half of the tagged words
        shifts = sorted(
            ((a, b) for a in range(max(0, start - BOUNDARY_SLACK), start + BOUNDARY_SLACK + 1)
             for b in range(end - BOUNDARY_SLACK, min(len(toks), end + BOUNDARY_SLACK) + 1)
             if min(b, end) - max(a, start) >= keep),
            key=lambda ab: (abs(ab[0] - start) + abs(ab[1] - end), -(ab[1] - ab[0])),
        )
        # a title that takes in the tagged words may reach further ("Women" of "The Man Who Loved Women")
        wider = [(a, b) for a in range(max(0, start - MAX_EXTENSION), start + 1)
                 for b in range(end, min(len(toks), end + MAX_EXTENSION) + 1) if (a, b) not in shifts]
        exact = [Fragment(a, b, "", m) for a, b in shifts + wider if (m := self.matcher.exact(norm(a, b), preference))]
        if exact:
            # the longest label that takes in all the tagged words ("korean war", not "war"), else the nearest best one
            covering = [f for f in exact if f.start <= start and f.end >= end]
            if covering:
                return max(covering, key=lambda f: (f.end - f.start, f.score))
            return max(exact, key=lambda f: f.score)  # max keeps the first (nearest) of equal scores
        match = self.matcher.fuzzy(norm(start, end), preference)
        if match is None:
            # a misspelt title NER cut short before words of the question's wording ("Eerything Everywhere All" of
            # "... All at Once"): the tagged words with up to BOUNDARY_SLACK more each side, matched as a whole
            wider_matches = [(m, a, b) for a, b in shifts if a <= start and b >= end and (a, b) != (start, end)
                             and (m := self.matcher.fuzzy(norm(a, b), preference))]
            if not wider_matches:
                return None
            match, a, b = max(wider_matches, key=lambda mab: (mab[0].score, -abs(mab[1] - start) - abs(mab[2] - end)))
            return Fragment(a, b, "", match)
        a, b = max(shifts, key=lambda ab: (fuzz.ratio(norm(*ab), match.key), -abs(ab[0] - start) - abs(ab[1] - end)))
        return Fragment(a, b, "", match)

    def grow(self, toks, validated: Fragment | None, start: int, end: int, group: str) -> Fragment | None:
        """Take in neighbouring words that are not question wording when the longer name validates better:
        NER tends to leave a misspelt word out ("Joey" of "Joey Heathertno")."""
        best = validated
        base = validated or Fragment(start, end, "")
        for a, b in ((base.start - 1, base.end), (base.start, base.end + 1), (base.start - 1, base.end + 1)):
            added = [t for t, _, _ in toks[max(a, 0) : base.start] + toks[base.end : b]]
            if a < 0 or b > len(toks) or not added or any(t in self.wording for t in added):
                continue
            match = self.matcher.fuzzy(" ".join(t for t, _, _ in toks[a:b]), group_preference(group))
            if match is None or (best is not None and match.key == best.match.key):
                continue
            if match.score * (b - a) > (best.score * (best.end - best.start) if best else 0):
                best = Fragment(a, b, "", match)
        return best

    def fragments(self, text: str, toks) -> list[Fragment]:
        """Tagged spans, validated, with near fragments re-merged when the merge validates better."""
        found = []
        for span in self.tagger.tag(text):
            group = expected_group(span.tag)
            inside = [k for k, (_, s, e) in enumerate(toks) if s >= span.start and e <= span.end]
            if group is None or not inside:
                continue
            start, end = inside[0], inside[-1] + 1
            validated = self.grow(toks, self.validate(toks, start, end, group_preference(group)), start, end, group)
            if validated is None:
                found.append(Fragment(start, end, span.tag))
            else:
                found.append(Fragment(validated.start, validated.end, span.tag, validated.match))
        return self.reassemble(toks, found)

    def reassemble(self, toks, found: list[Fragment]) -> list[Fragment]:
        """Merge runs of fragments at most MAX_GAP_WORDS words apart when the merged words validate better than
        the best part, counting the tagged words each explains (longest merges first); overlaps keep the best."""
        found = sorted(found, key=lambda f: (f.start, f.end))
        merged = []
        for i in range(len(found)):
            for j in range(i + 1, min(len(found), i + MAX_PARTS)):
                if found[j].start - found[j - 1].end > MAX_GAP_WORDS:
                    break
                whole = self.validate(toks, found[i].start, max(f.end for f in found[i : j + 1]), ("film", "person"))
                tagged = sum(f.end - f.start for f in found[i : j + 1])
                if whole is not None and whole.score * tagged >= max(f.score * (f.end - f.start) for f in found[i : j + 1]):
                    tag = PERSON if whole.match.group == "person" else TITLE
                    merged.append(Fragment(whole.start, whole.end, tag, whole.match, j - i + 1))
        chosen: list[Fragment] = []
        for fragment in sorted(merged + found, key=lambda f: (-f.parts, -f.score, -(f.end - f.start), f.start)):
            if all(fragment.end <= c.start or fragment.start >= c.end for c in chosen):
                chosen.append(fragment)
        return sorted(chosen, key=lambda f: f.start)

    def __call__(self, text: str, toks: list[tuple[str, int, int]]) -> list[Span]:
        try:
            fragments = self.fragments(text, toks)
        except Exception:  # noqa: BLE001 - a tagger failure must not cost the answer: the label index takes over
            log.exception("NER failed on %r", text[:200])
            return []
        spans = []
        for f in fragments:
            norm = f.match.key if f.match else " ".join(t for t, _, _ in toks[f.start : f.end])
            ids = self.labels.lookup_any(f.match.key) if f.match else []
            spans.append(Span(f.start, f.end, toks[f.start][1], toks[f.end - 1][2], norm, ids, f.score, "ner",
                              expected_group(f.tag) or "any"))
        return spans



"""The entity layer: find the spans of a question that may name KG entities.

`IndexMentions` looks up every word n-gram of the question in the label index: labels and
aliases (exact, after normalisation), then generated variants (a title without its article
or subtitle, a surname; trusted a little less), and, for the words no label explains, fuzzy
matches of the residual runs (rapidfuzz, with sequel numbers required to agree: "Toy Story 4"
is not "Toy Story 3"). A list of names ("A, B and C") is also tried piece by piece, so it is
not read as one title. The Flair NER layer plugs in as another source of mentions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.text import Token, tokens
from bot.kg.bundle import Bundle
from bot.kg.labels import LabelIndex
from bot.kg.variants import ROMAN
from bot.understanding.questions import FILM_LIST_FRAMES, FILM_SLOTS, SHARE_FRAMES, SHARE_QUESTIONS, VALUE_NPS, WORKED_WITH, WORKS_IN

MAX_SPAN_TOKENS = 14
FAR_ENOUGH = 95.0  # a fuzzy match this good ends the search of wider spans around a residual run
VARIANT_SCORE = 97.0  # how much a generated variant (no article, subtitle only, surname) is trusted, on the 0-100 scale
LIST_MARK = re.compile(r"[,;&]")


@dataclass
class Span:
    """A token span of the question with the entity ids whose normalised label equals it."""

    tok_start: int
    tok_end: int  # exclusive
    start: int  # character offsets
    end: int
    norm: str
    ids: list[int]
    fuzzy_score: float = 100.0
    source: str = "index"  # index | variant | fuzzy | ner
    expects: str = "any"  # class group the extractor expects ("film", "person", "any")

    @property
    def length(self) -> int:
        return self.tok_end - self.tok_start


def template_vocabulary(bundle: Bundle) -> frozenset[str]:
    """Words that belong to question wording rather than to names: phrasings, frames and stop words.

    Computed at build time and kept in the chain classifier (`ChainClassifier.wording`):
    importing scikit-learn for its stop words would add ~2 s to every start.
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    texts = [*FILM_SLOTS, *FILM_LIST_FRAMES, *SHARE_FRAMES, *SHARE_QUESTIONS, *VALUE_NPS, *WORKED_WITH, *WORKS_IN]
    for rel in bundle.relations.values():
        texts += [rel.noun, rel.plural, *rel.synonyms, *rel.asks, *rel.films, *rel.finds, *rel.cues]
    words = {t for text in texts for t, _, _ in tokens(text.replace("{", " ").replace("}", " "))}
    words |= {w + "s" for w in words if len(w) > 3 and w.isalpha()}  # "filmmakers" from a synonym "filmmaker"
    words |= ENGLISH_STOP_WORDS
    words -= {"film", "value", "e", "np", "noun", "plural"}
    words |= {"film", "films", "movie", "movies", "please", "tell", "know", "let", "me", "want", "like", "can", "could", "would"}
    return frozenset(words)


def numbers_of(words: list[str]) -> list[str]:
    """The sequel numbers of a title's words, roman numerals as digits ('part ii' -> '2')."""
    return [ROMAN.get(w, w) for w in words if w.isdigit() or (w in ROMAN and w != "v")]  # "v" is more often a letter


def numbers_agree(mention: str, key: str) -> bool:
    """A fuzzy match may fix a typo, never a sequel number: 'toy story 4' is not 'toy story 3'."""
    return numbers_of(mention.split()) == numbers_of(key.split())

DECADE = re.compile(r"^(?:1[89]|20)?\d0s$")  # "80s", "1980s": a time, never part of a misspelt name
# words that praise what is asked for: beside them a short variant is no part of a longer name
QUALITY_WORDS = frozenset("any good great best nice decent fun cool classic popular famous top".split())


class IndexMentions:
    """Exact n-gram matches against the label index, plus residual spans for fuzzy matching."""

    def __init__(self, labels: LabelIndex, vocabulary: frozenset[str], ordinary: frozenset[str] = frozenset()):
        """`vocabulary`: the question wording; `ordinary`: ordinary English words (bot.core.english), which no name
        the graph lacks is made of."""
        self.labels = labels
        self.vocabulary = vocabulary
        self.ordinary = ordinary
        self.max_n = min(labels.max_tokens, MAX_SPAN_TOKENS)

    def exact(self, toks: list[Token]) -> list[Span]:
        """Every n-gram that is a label or alias (score 100) or a generated variant (VARIANT_SCORE)."""
        spans = []
        words = [t for t, _, _ in toks]
        for i in range(len(words)):
            for n in range(1, min(self.max_n, len(words) - i) + 1):
                norm = " ".join(words[i : i + n])
                ids = self.labels.lookup(norm)
                if ids:
                    spans.append(Span(i, i + n, toks[i][1], toks[i + n - 1][2], norm, ids))
                    continue
                ids = self.labels.lookup_variant(norm)
                if ids and not (n <= 2 and self.inside_longer_name(words, i, i + n)):
                    spans.append(Span(i, i + n, toks[i][1], toks[i + n - 1][2], norm, ids, VARIANT_SCORE, "variant"))
        return spans

    def inside_longer_name(self, words: list[str], start: int, end: int) -> bool:
        """A short variant beside a word that is no question wording is part of another name: 'potter' of
        'Harry Potter' is not the surname of Ryan Potter (but 'westerns' of "any good westerns?" is a genre)."""
        beside = words[start - 1 : start] + words[end : end + 1]
        return any(w.isalpha() and w not in self.vocabulary and w not in QUALITY_WORDS and w not in self.ordinary
                   and not self.labels.lookup(w) for w in beside)  # ("the zeffirelli hamlet": a title of its own beside it)

    def residual_runs(self, toks: list[Token]) -> list[tuple[int, int]]:
        """Token runs made of words the question wording does not explain (allowing inner wording words)."""
        content = [t not in self.vocabulary and not t.isdigit() and not DECADE.match(t) or (t.isdigit() and len(t) != 4) for t, _, _ in toks]
        runs, i = [], 0
        while i < len(toks):
            if not content[i]:
                i += 1
                continue
            j = i + 1
            while j < len(toks):
                if content[j]:
                    j += 1
                    continue
                k = j
                while k < len(toks) and not content[k] and k - j < 3:
                    k += 1
                if k < len(toks) and content[k]:
                    j = k
                else:
                    break
            runs.append((i, j))
            i = j
        return runs

    def content_pieces(self, toks: list[Token], a: int, b: int) -> list[tuple[int, int]]:
        """The stretches of tokens a..b between wording words, when a run spans several ("Is Winter Slep
        older than Ordinary People": "winter slep" and "ordinary people")."""
        pieces, start = [], None
        for k in range(a, b + 1):
            wording = k == b or toks[k][0] in self.vocabulary
            if not wording and start is None:
                start = k
            elif wording and start is not None:
                pieces.append((start, k))
                start = None
        return pieces if len(pieces) > 1 else []

    @staticmethod
    def list_pieces(text: str, toks: list[Token], a: int, b: int) -> list[tuple[int, int]]:
        """The pieces of tokens a..b between list separators (',', ';', '&', 'and', 'or'), when there are any."""
        cuts = [a]
        for k in range(a + 1, b):
            if LIST_MARK.search(text[toks[k - 1][2] : toks[k][1]]) or toks[k][0] in ("and", "or"):
                cuts.append(k)
        pieces = []
        for s, e in zip(cuts, cuts[1:] + [b]):
            s += toks[s][0] in ("and", "or")
            if s < e:
                pieces.append((s, e))
        return pieces if len(pieces) > 1 else []

    def fuzzy(self, toks: list[Token], threshold: float, covered: set[int], text: str = "") -> list[Span]:
        """Fuzzy spans for residual runs (and their list pieces) that no exact match covers, widened by one
        wording word each side."""
        spans = []
        runs = self.residual_runs(toks)
        if text:
            runs += [piece for a, b in runs for piece in self.list_pieces(text, toks, a, b)]
        runs += [piece for a, b in runs for piece in self.content_pieces(toks, a, b)]
        for a, b in runs:
            content = [i for i in range(a, b) if toks[i][0] not in self.vocabulary and not toks[i][0].isdigit()]
            if all(i in covered for i in content):
                continue  # nothing left to misspell: "thriller films longer than 2 hours" once "thriller films" is read
            near = [(a - i, b + j) for i in (0, 1) for j in (0, 1)]
            far = [(a - i, b + j) for i in range(4) for j in range(3) if i > 1 or j > 1]  # "From Here to Eterntiy"
            best = None
            for options in (near, far):
                for s, e in options:
                    if s < 0 or e > len(toks) or e - s > MAX_SPAN_TOKENS:
                        continue
                    norm = " ".join(t for t, _, _ in toks[s:e])
                    for key, score in self.labels.fuzzy(norm, threshold, limit=3):
                        if not numbers_agree(norm, key):
                            continue
                        if best is None or score > best.fuzzy_score or (score == best.fuzzy_score and e - s > best.length):
                            best = Span(s, e, toks[s][1], toks[e - 1][2], key, self.labels.lookup_any(key), score, "fuzzy")
                if best is not None and best.fuzzy_score >= FAR_ENOUGH:
                    break
            if best is not None:
                spans.append(best)
        return spans

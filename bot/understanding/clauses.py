"""Clauses: the questions of one message ("Who directed Inception and when was it released?"), split at sentence ends and at
"and"/"," before a new question, never inside a name; a fronted name ("The movie Inside, when was it released?") stays
with the question after it, and a polite closing ("... thank you") asks nothing of its own."""

from __future__ import annotations

import re

from bot.core.contracts import LinkedEntity
from bot.core.kinds import Kind
from bot.core.text import YEAR
from bot.kg.graph import KG
from bot.understanding.constructions.clause import Token
from bot.understanding.cues import question_kind
from bot.understanding.mentions import Span
from bot.understanding.names import NameFinder
from bot.understanding.reader import context_of
from bot.understanding.vocabulary import EXCLUDING, FILM_WORDS, HEADING_WORDS, QUESTION_START, QUESTION_WORDS, word_set

# words around a name that does not ask anything yet ("The movie Inside, ...", "Apart from Miko Hughes, ...")
TOPIC_WORDS = frozenset({"the", "a", "an", "about", "so", "ok", "okay", "now", "vs", "versus", "and", "or", "between"}
                        | {w for phrase in EXCLUDING for w in phrase.split()})
# a closing clause that asks nothing ("... and The Wizard of Oz? thank you"): no question for a topic before it
POLITENESS = word_set("politeness")


class ClauseSplitter:
    """Splits messages into clauses against one KG (whose titles may hold the marks that end sentences)."""

    def __init__(self, kg: KG, names: NameFinder):
        self.kg = kg
        self.names = names

    def __call__(self, text: str, toks: list[Token], spans: list[Span]) -> list[tuple[int, int]]:
        """Token ranges of the message's questions: split at sentence ends and at 'and'/',' before a new
        question ("... and when was it released"), never inside a name."""
        if not toks:
            return []
        inside = set()
        for s in spans:
            if s.fuzzy_score < 90:
                continue
            if self.names.name_like(toks, s):
                inside.update(range(s.tok_start + 1, s.tok_end))
            labels = [self.kg.labels.labels[i].strip() for i in s.ids]
            after = text[toks[s.tok_end - 1][2] : toks[s.tok_end][1]] if s.tok_end < len(toks) else ""
            before = text[toks[s.tok_start - 1][2] : toks[s.tok_start][1]] if s.tok_start > 0 else ""
            if any(label[-1:] in "?!." and self._only_the_mark(after, label[-1]) for label in labels):
                inside.add(s.tok_end)  # "Who Is Cletis Tout?", "Star! released": the mark belongs to the title
            if any(label[:1] in "?!." and self._only_the_mark(before, label[0]) for label in labels):
                inside.add(s.tok_start)  # "...All the Marbles"
        # where a title opens with a question's word ("... and When Harry Met Sally...", "and What Women Want")
        titled = {s.tok_start for s in spans if s.fuzzy_score >= 100 and s.length >= 2 and self.names.name_like(toks, s)}
        cuts, headings = [0], set()
        for k in range(1, len(toks)):
            if k in inside:
                continue
            between = text[toks[k - 1][2] : toks[k][1]]
            word = toks[k][0]
            if between in (".", ",") and toks[k - 1][0].isdigit() and word.isdigit():
                continue  # a decimal or grouped number ("2.5 hours", "$1,000,000") ends no sentence
            if re.search(r"[.?!;\n]", between):
                cuts.append(k)
            elif ":" in between and self._heading(toks, spans, cuts[-1], k):
                headings.add(cuts[-1])  # "Quiz time: who directed Jaws?", "For 10 points: ..." ask nothing themselves
                cuts.append(k)
            elif word in ("and", "also", "plus") and k + 1 < len(toks) and toks[k + 1][0] in QUESTION_START and k + 1 not in titled:
                cuts.append(k)
            elif "," in between and word in QUESTION_START and word not in ("is", "are", "was", "were", "has", "have", "had", "do", "does", "did"):
                cuts.append(k)
        ranges: list[tuple[int, int]] = []
        topic = None
        bounds = list(zip(cuts, cuts[1:] + [len(toks)]))
        for n, (a, b) in enumerate(bounds):
            if a in headings:
                continue
            while a < b and toks[a][0] in ("and", "also", "plus", "then"):
                a += 1
            if a >= b:
                continue
            if topic is not None:
                a, topic = topic, None
            polite_next = n + 1 < len(bounds) and all(toks[k][0] in POLITENESS for k in range(*bounds[n + 1]))
            if b < len(toks) and not polite_next and self.only_a_topic(toks, spans, a, b):
                topic = a  # "the movie Inside, when was it released": the name is the next question's subject
                continue
            ranges.append((a, b))
        return ranges

    def _heading(self, toks: list[Token], spans: list[Span], a: int, b: int) -> bool:
        """Whether tokens a..b, before a colon, head the question rather than ask it ("Quiz time:", "Trivia:", "For 10
        points:"): a few words, no name, no question word, and a heading's word or no word that names a relation
        ("Director: Heat?" asks)."""
        words = [toks[k].text for k in range(a, b)]
        if len(words) > 4 or set(words) & QUESTION_WORDS or any(
                s.tok_start < b and a < s.tok_end and s.fuzzy_score >= 90 and self.names.name_like(toks, s) for s in spans):
            return False
        return bool(set(words) & HEADING_WORDS) or not any(self.names.lexicon.is_cue(w) for w in words)

    @staticmethod
    def _only_the_mark(between: str, mark: str) -> bool:
        """Whether the text between two words holds the title's own mark and no sentence end besides
        ("Good Bye, Lenin!? and who ..." ends a question after the title's "!")."""
        return mark in between and not re.search(r"[.?!;\n]", between.strip().strip(mark))

    def only_a_topic(self, toks: list[Token], spans: list[Span], a: int, b: int) -> bool:
        """Whether tokens a..b only name something ("The movie Inside", "Heat"), asking nothing yet."""
        named = set()
        for s in spans:
            if a <= s.tok_start and s.tok_end <= b and s.fuzzy_score >= 90 and self.names.name_like(toks, s):
                named.update(range(s.tok_start, s.tok_end))
        return bool(named) and all(k in named or toks[k][0] in FILM_WORDS or toks[k][0] in TOPIC_WORDS for k in range(a, b))

    def asks_besides_its_story(self, text: str, toks: list[Token], spans: list[Span]) -> bool:
        """Whether the message, its story's words aside, may ask a question ("my friend recommended Heat, who directed it?":
        a question word outside the names) and gives no recommendation cue."""
        context = context_of(toks)
        if not context:
            return False
        named = {k for s in spans if s.fuzzy_score >= 90 and self.names.name_like(toks, s) for k in range(s.tok_start, s.tok_end)}
        words = [toks[k].text for k in range(len(toks)) if k not in context and k not in named]
        if not set(words) & QUESTION_WORDS:
            return False
        told = text
        for k in context:  # the story blanked out, every other word where it was
            told = told[: toks[k].start] + " " * (toks[k].end - toks[k].start) + told[toks[k].end :]
        return question_kind(self.names.mask_names(told, toks, spans))[0] is not Kind.RECOMMENDATION

    def story_topic(self, text: str, toks: list[Token], spans: list[Span], a: int, b: int) -> LinkedEntity | None:
        """What tokens a..b name when they are a statement that asks nothing ("I watched Heat last night", "my sister loved
        Heat."): no question word or mark, and no word that names a relation outside the story's words. Before another
        question of the message, such a clause gives that question its topic; None for any other clause."""
        context = context_of(toks)
        clause_end = toks[b].start if b < len(toks) else len(text)
        if toks[a].text in QUESTION_START or any(toks[k].text in QUESTION_WORDS for k in range(a, b)) or "?" in text[toks[b - 1].end : clause_end]:
            return None
        inside = [s for s in spans if a <= s.tok_start and s.tok_end <= b and s.fuzzy_score >= 90 and self.names.name_like(toks, s)]
        named = {k for s in inside for k in range(s.tok_start, s.tok_end)}
        if any(self.names.lexicon.is_cue(toks[k].text) for k in range(a, b) if k not in named | context):
            return None
        return self.names.topic_only(text, toks, inside, [int(y) for y in YEAR.findall(text[toks[a].start : toks[b - 1].end])])

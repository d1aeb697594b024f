"""What a chain reading leaves unexplained, said instead of answered: a name the graph lacks ("did Peter Jackson direct
The Hobbit?"), a list member no label knows ("Heat and Blorpo"), a title with a word more ("the dark knight rises"),
a film of another year than the graph's namesake ("Dune 1984"), or the first word the reading could not account for.
A reading that answers the rest would answer another question.
"""

from __future__ import annotations

import re

from bot.core.terms import Group
from bot.core.text import YEAR
from bot.kg.graph import KG
from bot.understanding.constructions.clause import Token
from bot.understanding.constructions.fact import Candidate
from bot.understanding.lexicon import Explanation
from bot.understanding.vocabulary import Speller


class Leftovers:
    """Checks a chosen chain reading against the words it leaves out."""

    def __init__(self, kg: KG, speller: Speller):
        self.kg = kg
        self.speller = speller

    def unknown_list_members(self, text: str, toks, a: int, b: int, best: Candidate) -> list[str]:
        """Words no vocabulary knows listed with the names ("Who directed Heat and Casino?" when the graph has
        no Casino): the reply says it could not find them instead of leaving them out silently."""
        unknown = set(best.explanation.unknown)
        names = ([best.span] if best.span else []) + best.coordinated
        if not unknown or not names:
            return []
        named = {k for s in names for k in range(s.tok_start, s.tok_end)}
        found = []
        for s in names:
            for k, step in ((s.tok_end, 1), (s.tok_start - 1, -1)):
                if not a <= k < b or toks[k][0] not in ("and", "or", "&") and "," not in text[toks[k - 1][2] : toks[k][1]]:
                    continue
                j = k + step if toks[k][0] in ("and", "or", "&") else k
                run = []
                while a <= j < b and j not in named and self.speller(toks[j][0]) in unknown:
                    run.append(j)
                    j += step
                if run:
                    lo, hi = min(run), max(run)
                    found.append(text[toks[lo][1] : toks[hi][2]])
        return list(dict.fromkeys(found))

    def unknown_name(self, text: str, toks, a: int, b: int, best: Candidate) -> str:
        """Two or more adjacent words no vocabulary knows, or one capitalised inside the message ("Did Peter Jackson
        direct The Hobbit?"), outside the reading's names: a name the graph does not have (the question is about it,
        so answering the rest would answer another question)."""
        unknown = set(best.explanation.unknown)
        if not unknown:
            return ""
        skip = set(best.selectors)
        for span in ([best.span] if best.span else []) + best.coordinated:
            skip.update(range(span.tok_start, span.tok_end))
        run: list[int] = []
        for k in range(a, b + 1):
            if k < b and k not in skip and self.speller(toks[k][0]) in unknown:
                run.append(k)
                continue
            if len(run) >= 2:
                return text[toks[run[0]][1] : toks[run[-1]][2]]
            vocative = run and "," in text[toks[run[0] - 1][2] : toks[run[0]][1]]  # "..., Sir": someone addressed
            known = run and self.kg.labels.lookup_any(toks[run[0]][0])  # part of a name the graph has ("the one with De Niro")
            if len(run) == 1 and run[0] > 0 and text[toks[run[0]][1]].isupper() and not vocative and not known:
                first = run[0] - 1 if run[0] - 1 > a and toks[run[0] - 1][0] in ("the", "a", "an") and text[toks[run[0] - 1][1]].isupper() else run[0]
                return text[toks[first][1] : toks[run[0]][2]]  # with its capitalised article: "The Hobbit"
            run = []
        return ""

    @staticmethod
    def film_of_another_year(toks, a: int, b: int, best: Candidate) -> str:
        """'Dune 1984' or 'the 1984 Dune' when the graph's only Dune is from 2021: the film asked about is not in the
        graph (namesakes of that year were already chosen by it), so its answers would be another film's."""
        entity, span = best.entity, best.span
        if entity is None or span is None or entity.group != Group.FILM or not entity.year or entity.selected_by:
            return ""
        near = [k for k in (span.tok_start - 1, span.tok_start - 2, span.tok_end, span.tok_end + 1) if a <= k < b]
        years = [int(toks[k][0]) for k in near if YEAR.fullmatch(toks[k][0])]
        if years and all(abs(year - entity.year) > 1 for year in years):  # (a festival premiere may be a year early)
            return f"{entity.label} ({years[0]})"
        return ""

    def longer_title(self, text: str, toks, best: Candidate, b: int) -> str:
        """A title followed by a sequel number or an unknown word ('Toy Story 4', 'The Dark Knight Rises', 'the dark
        knight rises') names another film than the label found: the whole mention, to report as not found."""
        span = best.span
        if span is None or best.entity is None or best.entity.group != Group.FILM:
            return ""
        k = span.tok_end
        if k >= b or re.search(r"[,;&]", text[toks[k - 1][2] : toks[k][1]]):
            return ""  # "Heat, Blorpo and Goodfellas": the next word starts another name
        if k in best.selectors:
            return ""  # a description read after the title ("halloween 78": the 1978 one), no longer title
        word = toks[k][0]
        sequel_number = (word.isdigit() and len(word) <= 2) or word in ("ii", "iii", "iv", "vi", "vii", "viii", "ix")
        typed = text[span.start : span.end]
        # an unknown word after the title, capitalised like a title word, or after a title typed all in lower case
        unknown = word in best.explanation.unknown and (text[toks[k][1]].isupper() or typed == typed.lower())
        if sequel_number or unknown:
            return text[span.start : toks[k][2]]
        return ""

    def unclear_words(self, explanation: Explanation, toks: list[Token], a: int, b: int) -> str:
        """The first word the reading could not account for, as the user wrote it (the speller read "order" as
        "older"; the reply quotes "order")."""
        words = list(explanation.other_cues) + list(explanation.unknown)
        if not words:
            return ""
        written = next((toks[k][0] for k in range(a, b) if toks[k][0] == words[0]), None) or \
            next((toks[k][0] for k in range(a, b) if self.speller(toks[k][0]) == words[0]), words[0])
        return f"how \"{written}\" fits the question"

"""The faithfulness guard: a phrased sentence reaches users only if it states the facts and nothing else.

It must name the topic and every answer value (dates and numbers in any format), and contain
no name, title or number that the facts, the question or the template sentence lack, and no
word that only another relation is asked about with ("directed" in a sentence about the cast).
"""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path

from bot.core.contracts import Facts
from bot.core.text import fold, tokens
from bot.generation.sentences import inverse
from bot.generation.templates import display_name
from bot.kg.bundle import Bundle
from bot.kg.labels import LabelIndex

SENTENCE_WORDS = frozenset(
    "a an the it its this that these those there here he she they his her their both all some as in on by "
    "according yes no for from with".split()
)
NUMBER_WORDS = {
    w: str(n)
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
    if n >= 2  # "one" is mostly a pronoun ("one of the films")
}
# words that turn a statement round: a sentence may only use those its template uses ("No — ...")
NEGATIONS = frozenset(
    "not never no none nobody nothing neither nor without nowhere cannot didn doesn isn wasn weren aren hasn haven hadn couldn".split()
)
# words about films in general, never names
GENERIC_WORDS = frozenset("film films movie movies picture pictures".split())
VOCABULARY_SKIP_GROUPS = frozenset({"film", "person", ""})  # titles and names are caught by capitalisation
CLOSED_GROUP_SIZE = 500  # groups this small (genres, languages) are checked in every answer; others when answered
MAX_VOCABULARY_NGRAM = 4
COPULAS = frozenset({"is", "was", "are", "were", "became", "remains", "as"})  # "X is the director of F" says who X is
VALUE_SLOT, FILM_SLOT = "Xvaluex", "Xfilmx"  # stand-ins for a value and a film in a relation's sentence
CUE_RELATIONS = 3  # a word in more relations' phrasings than this says nothing about which one

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_MONTH_NAMES = _MONTHS.split("|")
_MONTH_FIRST = re.compile(rf"\b({_MONTHS})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE)
_DAY_FIRST = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTHS}),?\s+(\d{{4}})\b", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")

def canonical_dates(text: str) -> str:
    """'December 5, 1997', '5th of December 1997' and '1997-12-05' all become '5 December 1997'."""
    text = _MONTH_FIRST.sub(lambda m: f"{int(m[2])} {m[1].capitalize()} {m[3]}", text)
    text = _DAY_FIRST.sub(lambda m: f"{int(m[1])} {m[2].capitalize()} {m[3]}", text)

    def iso(m: re.Match) -> str:
        month = int(m[2])
        return f"{int(m[3])} {_MONTH_NAMES[month - 1].capitalize()} {m[1]}" if 1 <= month <= 12 else m[0]

    return _ISO_DATE.sub(iso, text)


def numbers_in(text: str) -> set[str]:
    """Every number in `text`, thousands separators removed ('225,933,435' -> '225933435')."""
    found = {re.sub(r",(?=\d{3}(?!\d))", "", m.group()).rstrip(".,") for m in _NUMBER.finditer(text)}
    found.update(NUMBER_WORDS[w] for w, _, _ in tokens(text) if w in NUMBER_WORDS)
    return found


def words(text: str) -> list[tuple[str, str]]:
    """(as written, folded) for every word, with thousands separators joined so numbers stay one word."""
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return [(word, fold(word)) for word, _, _ in tokens(text, folded=False)]


def phrase_key(text: str) -> tuple[str, ...]:
    return tuple(f for _, f in words(canonical_dates(text)))


def _spaced(name: str) -> str:
    """A regular expression for `name` with any run of spaces between its words."""
    return r"\s+".join(re.escape(w) for w in name.split())


def find_phrase(sequence: list[str], phrase: tuple[str, ...]) -> list[int]:
    """Start positions of `phrase` in the folded word `sequence`."""
    n = len(phrase)
    if not n:
        return []
    return [i for i in range(len(sequence) - n + 1) if tuple(sequence[i : i + n]) == phrase]


@dataclass(frozen=True)
class Verdict:
    ok: bool
    problems: tuple[str, ...] = ()


@dataclass
class Evidence:
    """What a phrased sentence may mention: built from the facts, the question and the template only."""

    labels: set[tuple[str, ...]] = field(default_factory=set)  # whole names and titles (folded words)
    loose_words: set[str] = field(default_factory=set)  # single words that may stand anywhere
    numbers: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, facts: Facts, template: str) -> Evidence:
        evidence = cls()
        names = [a.label for a in facts.answers]
        for f in facts.facts:
            names += [f.subject_label, f.value_label]
            evidence.numbers |= {n for v in f.detail.values() if isinstance(v, (int, float)) for n in numbers_in(str(v))}
        for e in facts.topic:
            names += [e.label, display_name(e)]
            if e.year:
                evidence.numbers.add(str(e.year))
        evidence.labels = {phrase_key(n) for n in names if n}
        label_words = {w for key in evidence.labels for w in key}
        template_words = {f for _, f in words(canonical_dates(template))}
        evidence.loose_words = {f for _, f in words(facts.question)} | (template_words - label_words) | SENTENCE_WORDS | GENERIC_WORDS
        evidence.numbers |= numbers_in(template) | numbers_in(facts.question) | {str(len(facts.answers))}
        for name in names:
            evidence.numbers |= numbers_in(canonical_dates(name))
        return evidence


@cache
def english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop words, read from the one module that holds them: importing scikit-learn for them
    (its package imports SciPy and more) cost the first phrased answer of every `moviebot ask` 0.7-1.7 s."""
    path = Path(importlib.util.find_spec("sklearn").origin).parent / "feature_extraction" / "_stop_words.py"
    if not path.is_file():  # another layout than scikit-learn 1.9's: the public import
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        return ENGLISH_STOP_WORDS
    spec = importlib.util.spec_from_file_location("moviebot_english_stop_words", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ENGLISH_STOP_WORDS


def relation_cues(bundle: Bundle) -> dict[str, frozenset[str]]:
    """The words that say which relation a sentence states ('directed', 'starred', 'released'),
    per relation, from its phrasings.

    A cue is a word of at most CUE_RELATIONS relations' phrasings, not an English stop word. A
    sentence that uses another relation's cue states a fact the KG did not give: 'X was directed
    by Y' when Y is in X's cast."""
    said: dict[str, set[str]] = {}
    for name, rel in bundle.relations.items():
        texts = [*rel.asks, *rel.films, *rel.finds, *rel.peers, *rel.synonyms, rel.noun, rel.plural]
        said[name] = {f for text in texts for _, f in words(re.sub(r"\{\w+\}", " ", text))}
    shared = Counter(w for found in said.values() for w in found)
    common = {w for w, n in shared.items() if n > CUE_RELATIONS} | english_stop_words() | SENTENCE_WORDS | GENERIC_WORDS
    return {name: frozenset(w for w in found - common if len(w) > 2) for name, found in said.items()}  # not "'s"


class FaithfulnessGuard:
    """Accepts a phrased sentence only if it keeps every answer value and adds no unsupported name, number
    or relation."""

    def __init__(self, labels: LabelIndex | None = None, bundle: Bundle | None = None):
        self.labels = labels  # the KG's label index: lower-case entity names (genres, languages, tags) are checked too
        sizes = Counter(labels.groups) if labels is not None else Counter()
        self.closed_groups = {g for g, n in sizes.items() if n <= CLOSED_GROUP_SIZE} - VOCABULARY_SKIP_GROUPS
        self.bundle = bundle  # relations whose wording a sentence may not borrow

    @cached_property
    def cues(self) -> dict[str, frozenset[str]]:
        return relation_cues(self.bundle) if self.bundle is not None else {}

    def check(
        self,
        text: str,
        facts: Facts,
        template: str,
        required: list[str],
        wording: tuple[tuple[str, ...], ...] = (),
        keep_numbers: bool = False,
        absent: list[str] = (),
        max_words: int = 60,
    ) -> Verdict:
        """`required`: values that must appear; `wording`: phrases to keep (any one alternative each);
        `keep_numbers`: every number of the template must appear too (crowd votes, agreement);
        `absent`: values that must not appear (a lead-in's list follows it); `max_words`: no rambling."""
        problems: list[str] = []
        text = canonical_dates(text.strip())
        if not text or "\n" in text:
            return Verdict(False, ("not a single line",))
        written = words(text)
        sequence = [f for _, f in written]
        if len(sequence) > max_words:
            problems.append(f"longer than {max_words} words")
        for value in required:
            if not find_phrase(sequence, phrase_key(value)):
                problems.append(f"missing value {value!r}")
        problems += [f"repeats value {v!r}" for v in absent if find_phrase(sequence, phrase_key(v))]
        for alternatives in wording:
            if not any(find_phrase(sequence, phrase_key(p)) for p in alternatives):
                problems.append(f"missing wording {alternatives[0]!r}")
        written_numbers = numbers_in(text)
        if keep_numbers:
            problems += [f"missing number {n}" for n in sorted(numbers_in(template) - written_numbers)]
        evidence = Evidence.of(facts, template)
        problems += [f"unsupported number {n}" for n in sorted(written_numbers - evidence.numbers)]
        covered = [False] * len(sequence)
        for key in evidence.labels | {phrase_key(p) for alternatives in wording for p in alternatives}:
            for start in find_phrase(sequence, key):
                covered[start : start + len(key)] = [True] * len(key)
        for (raw, folded), done in zip(written, covered):
            if done or folded in evidence.loose_words or raw.isdigit():
                continue
            if raw[:1].isupper():
                problems.append(f"unsupported name {raw!r}")
        said = {f for _, f in words(template)}
        problems += [f"negation {w!r}" for w, done in zip(sequence, covered) if not done and w in NEGATIONS and w not in said]
        problems += self._unsupported_vocabulary(sequence, covered, evidence, facts)
        problems += self._other_relations(sequence, covered, facts, template)
        problems += self._reversed(sequence, facts)
        problems += self.wrong_subject(text + " ", facts)
        return Verdict(not problems, tuple(dict.fromkeys(problems)))

    def wrong_subject(self, text: str, facts: Facts) -> list[str]:
        """A name made the subject of what it did not do, even where no value follows: a film with the words of
        a value's sentence ("Brother Bear starred in these 9 cast members", said "X starred in F"), and the name
        a path starts from with the wording of the path's last relation ("Raymond F. Jones released the film
        written by Raymond F. Jones in 1955", for the release date of the film he wrote). Once written, such
        words stay wrong whatever follows, so the phraser also asks while the model writes."""
        if self.bundle is None:
            return []
        problems = []
        if len(facts.chain) == 1 and facts.chain[0].to_value:  # the topic is the film
            relation = self.bundle.relations.get(facts.chain[0].relation)
            pattern = inverse(relation, VALUE_SLOT, [FILM_SLOT]) if relation is not None and relation.is_entity else ""
            verb = pattern.split(FILM_SLOT)[0][len(VALUE_SLOT) :].strip() if pattern.startswith(VALUE_SLOT) and FILM_SLOT in pattern else ""
            for film in [e.label for e in facts.topic] if verb else []:
                if re.search(rf"(?<!\w){_spaced(film)}\s+{_spaced(verb)}\s+(?!by\b)\w", text, re.IGNORECASE):
                    problems.append(f"reversed {relation.name!r}: {film!r} as the subject of {verb!r}")
        last_relation = self.bundle.relations.get(facts.chain[-1].relation) if facts.chain else None
        if last_relation is not None and last_relation.is_entity and facts.chain[-1].to_value:
            nouns = "|".join(_spaced(n) for n in dict.fromkeys([last_relation.plural, last_relation.noun, *last_relation.synonyms]) if n)
            for value in dict.fromkeys(a.label for a in facts.answers):  # "Richard Gray wrote the screenwriter of Mine Games"
                for match in re.finditer(rf"(?<!\w){_spaced(value)}\s+(\w+)\s+the\s+(?:{nouns})\W", text, re.IGNORECASE):
                    if fold(match.group(1)) not in COPULAS:
                        problems.append(f"reversed {last_relation.name!r}: {value!r} {match.group(1)} the {last_relation.noun}")
        if len(facts.chain) > 1 and facts.topic:
            first, last = facts.chain[0].relation, facts.chain[-1].relation
            wrong = self.cues.get(last, frozenset()) - self.cues.get(first, frozenset())
            starts = facts.extra.get("path", []) if facts.chain[0].to_value else [facts.topic[0].label]
            for name in starts:
                for match in re.finditer(rf"(?<!\w){_spaced(name)}\s+", text, re.IGNORECASE):
                    rest = text[match.end() :]
                    clause = re.split(r"[,.;:()]", rest, maxsplit=1)[0]
                    done = re.findall(r"[\w']+(?=\W)", clause + (" " if len(clause) < len(rest) else ""))  # whole words only
                    verbs = done[1:2] if done[:1] == ["also"] else done[:1]  # its verb, and any verb joined to it by "and"
                    verbs += [w for before, w in zip(done, done[1:]) if before == "and"]
                    problems += [f"reversed {last!r}: {name!r} as the subject of {v!r}" for v in verbs if fold(v) in wrong]
        return problems

    def _reversed(self, sequence: list[str], facts: Facts) -> list[str]:
        """Facts stated the wrong way round: "Rashomon directed Akira Kurosawa" keeps every name of "Akira Kurosawa
        directed Rashomon" and says something false. The relation's own sentence for a value's films
        (bot.generation.sentences.inverse: "X directed F", "F is in the genre X") gives the words between the two;
        the same words with the film and the value swapped are refused."""
        if self.bundle is None:
            return []
        problems = []
        for fact in facts.facts:
            name, direction = fact.relation[:-1], fact.relation[-1:]  # "director+": from the film to the value
            relation = self.bundle.relations.get(name)
            if relation is None or not relation.is_entity or direction not in ("+", "-"):
                continue
            film, other = (fact.subject_label, fact.value_label) if direction == "+" else (fact.value_label, fact.subject_label)
            pattern = inverse(relation, VALUE_SLOT, [FILM_SLOT]).rstrip(".")
            first, middle = re.split(f"({VALUE_SLOT}|{FILM_SLOT})", pattern)[1:3]
            swapped = (film, middle, other) if first == VALUE_SLOT else (other, middle, film)
            if find_phrase(sequence, phrase_key(" ".join(swapped))):
                problems.append(f"reversed {fact.relation!r}: {' '.join(swapped).strip()!r}")
        return problems

    @cached_property
    def closed_vocabulary(self) -> frozenset[str]:
        """The words of the names in the small closed groups (genres, languages, countries, ratings)."""
        if self.labels is None:
            return frozenset()
        labels = self.labels.labels  # read by position: decoding every label of a saved index takes seconds at 20M triples
        found = {w for i, group in enumerate(self.labels.groups) if group in self.closed_groups for _, w in words(labels[i])}
        return frozenset(w for w in found if w.isascii() and w.isalpha() and w not in english_stop_words() and w not in SENTENCE_WORDS | GENERIC_WORDS)

    def foreign_cues(self, facts: Facts, template: str) -> set[str]:
        """The wording of the relations the facts do not come from (what _other_relations rejects)."""
        asked = {h.relation for h in facts.chain if h.relation in self.cues}
        if not asked:
            return set()
        own = set().union(*(self.cues[r] for r in asked)) | {f for _, f in words(template)}
        return set().union(*(c for r, c in self.cues.items() if r not in asked)) - own

    def forbidden_words(self, facts: Facts, template: str) -> set[str]:
        """Lower-case words a phrased sentence may not use outside the facts' names: another relation's
        wording, and KG names of the closed groups that the facts, the question and the template lack.
        The grammar-constrained decoder never writes them; the check below would reject them."""
        evidence = Evidence.of(facts, template)
        allowed = evidence.loose_words | {w for key in evidence.labels for w in key}
        return self.foreign_cues(facts, template) | (self.closed_vocabulary - allowed)

    def _other_relations(self, sequence: list[str], covered: list[bool], facts: Facts, template: str) -> list[str]:
        """Words that ask about a relation the answer does not come from ('directed' for a cast member).

        The user's question does not license them: if it asked for the director and the answer is
        the cast, the sentence must still say cast."""
        foreign = self.foreign_cues(facts, template)
        return [f"wording of another relation {w!r}" for w, done in zip(sequence, covered) if not done and w in foreign]

    def _unsupported_vocabulary(self, sequence: list[str], covered: list[bool], evidence: Evidence, facts: Facts) -> list[str]:
        """Lower-case KG names (a genre, a language, a tag) that the facts do not contain."""
        if self.labels is None:
            return []
        answered = {info[1] for a in facts.answers if a.iri and (info := self.labels.info(a.iri))}
        checked = self.closed_groups | (answered - VOCABULARY_SKIP_GROUPS)
        problems = []
        for n in range(1, MAX_VOCABULARY_NGRAM + 1):
            for i in range(len(sequence) - n + 1):
                if any(covered[i : i + n]):
                    continue
                gram = sequence[i : i + n]
                if all(w in evidence.loose_words for w in gram):
                    continue
                ids = self.labels.lookup(" ".join(gram))
                if any(self.labels.groups[j] in checked for j in ids):
                    problems.append(f"unsupported name {' '.join(gram)!r}")
        return problems

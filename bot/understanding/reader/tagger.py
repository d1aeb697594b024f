"""The role tagger: a CRF that labels what each word of a message does (name, question, description, context).

Trained at build time on the reader's generated and augmented text (bot.understanding.reader.corpus/augment) with
CRFsuite (python-crfsuite), cached in the KG's build folder by the hash of its inputs (the bundle's schema and
phrasings, the graph, the code and the augmentation data). Tagging a message takes a fraction of a millisecond.

Its features are the word and its shape, and, as in Rasa's lexicon and regex featurizers, what the project's
vocabularies and the KG say about it: a relation cue, question wording, a function word, a question word, part
of an exact title or name in the label index, a number or a year; and the same of its neighbours, where it stands
in its sentence and whether that sentence asks anything. The rules are features of the model, not vetoes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bot.core.cache import code_digest, combine, progress
from bot.core.text import YEAR, Token
from bot.understanding.reader.corpus import Role

MODEL = "reader.crfsuite"
TRAINING_EXAMPLES = 24_000
WH = frozenset("who whom whose what which when where why how".split())
_SENTENCE_MARK = re.compile(r"[.!?;:\n]|\s[-–—]\s")


@dataclass(frozen=True)
class Vocabulary:
    """The word lists the tagger's features consult (the understander's own: bot.understanding.lexicon)."""

    cues: frozenset[str]  # words that name a relation
    wording: frozenset[str]  # question wording (the chain classifier's vocabulary)
    function: frozenset[str]  # stop words
    generic: frozenset[str]  # requests, greetings, fillers
    film: frozenset[str]  # film, movie, ...
    compare: frozenset[str]  # longer, oldest, most, how many, ...
    ordinary: frozenset[str] = frozenset()  # ordinary English words (bot.core.english)


def _shape(word: str) -> str:
    if word.isdigit():
        return "year" if YEAR.fullmatch(word) else f"d{min(len(word), 3)}"
    return "alpha" if word.isalpha() else "mixed"


class Features:
    """Per-token feature lists for CRFsuite."""

    def __init__(self, vocabulary: Vocabulary):
        self.v = vocabulary

    def word_flags(self, word: str, in_name: str) -> list[str]:
        v = self.v
        flags = []
        if word in WH:
            flags.append("wh")
        if word in v.cues:
            flags.append("cue")
        if word in v.function:
            flags.append("stop")
        if word in v.generic:
            flags.append("generic")
        if word in v.film:
            flags.append("film")
        if word in v.compare:
            flags.append("compare")
        if word in v.wording:
            flags.append("wording")
        if in_name:
            flags.append("name")
        if not flags and word in v.ordinary:
            flags.append("ordinary")
        if not flags and not word.isdigit():
            flags.append("unknown")
        return flags

    def __call__(self, text: str, toks: list[Token], names: list[str]) -> list[list[str]]:
        """`names`: per token "B"/"I" when it lies in an exact label of the KG, else ""."""
        n = len(toks)
        words = [t for t, _, _ in toks]
        flags = [self.word_flags(w, names[i]) for i, w in enumerate(words)]
        # sentences: split at sentence marks between tokens
        sentence = [0] * n
        for i in range(1, n):
            gap = text[toks[i - 1][2] : toks[i][1]]
            sentence[i] = sentence[i - 1] + (1 if _SENTENCE_MARK.search(gap) else 0)
        count = sentence[-1] + 1 if n else 0
        asks = [False] * count
        for i, w in enumerate(words):
            if w in WH or "cue" in flags[i]:
                asks[sentence[i]] = True
        for s in range(count):
            last = max(i for i in range(n) if sentence[i] == s)
            if "?" in text[toks[last][2] : toks[last + 1][1] if last + 1 < n else len(text)]:
                asks[s] = True
        features = []
        for i, (word, start, end) in enumerate(toks):
            before = text[toks[i - 1][2] : start] if i else ""
            after = text[end : toks[i + 1][1]] if i + 1 < n else text[end:]
            f = [f"w={word}", f"suf={word[-3:]}", f"shape={_shape(word)}", f"sent_from_end={min(count - 1 - sentence[i], 2)}",
                 f"sent_asks={asks[sentence[i]]}", f"name={names[i] or '-'}"]
            f += [f"f={x}" for x in flags[i]]
            if text[start].isupper():
                f.append("cap")
            if i == 0 or sentence[i] != sentence[i - 1]:
                f.append("sent_start")
            if "," in before:
                f.append("after_comma")
            if "," in after:
                f.append("before_comma")
            if "'" in before or "’" in before:
                f.append("after_apostrophe")
            if "?" in after:
                f.append("before_qmark")
            if re.search(r"\(|\[", before):
                f.append("in_brackets")
            for off in (-2, -1, 1, 2):
                j = i + off
                if 0 <= j < n:
                    f.append(f"{off}:w={words[j]}")
                    f += [f"{off}:f={x}" for x in flags[j]]
                    if sentence[j] != sentence[i]:
                        f.append(f"{off}:other_sentence")
                else:
                    f.append(f"{off}:edge")
            f.append(f"-1|0={words[i - 1] if i else '^'}|{word}")
            f.append(f"0|+1={word}|{words[i + 1] if i + 1 < n else '$'}")
            features.append(f)
        return features


@dataclass
class Tagged:
    """A message's tokens with the likeliest role of each and its probability."""

    roles: list[Role]
    confidence: list[float]
    marginals: list[dict[Role, float]]

    def probability(self, k: int, role: Role) -> float:
        return self.marginals[k].get(role, 0.0)


class RoleTagger:
    def __init__(self, path: Path, features: Features):
        import pycrfsuite

        self.path = path
        self.features = features
        self.tagger = pycrfsuite.Tagger()
        self.tagger.open(str(path))
        # the roles its training text had (a model trained without descriptions knows no "desc": never that role)
        self.known = [role for role in Role if role.value in set(self.tagger.labels())]

    def tag(self, text: str, toks: list[Token], names: list[str]) -> Tagged:
        if not toks:
            return Tagged([], [], [])
        labels = self.tagger.tag(self.features(text, toks, names))
        marginals = [{role: self.tagger.marginal(role.value, k) if role in self.known else 0.0 for role in Role} for k in range(len(toks))]
        roles = [Role(label) for label in labels]
        return Tagged(roles, [m[r] for m, r in zip(marginals, roles)], marginals)


def train(examples, features: Features, names_of, path: Path, quiet: bool = True, iterations: int = 120) -> None:
    """Train the CRF on labelled examples (corpus.Example) into `path`; `names_of(text, toks)` marks label spans."""
    import pycrfsuite

    trainer = pycrfsuite.Trainer(verbose=False)
    with progress() as bar:
        task = bar.add_task("reader: role tagger data", total=len(examples), visible=not quiet)
        for example in examples:
            text, toks, roles = example.roles()
            if toks:
                trainer.append(features(text, toks, names_of(text, toks)), [r.value for r in roles])
            bar.advance(task)
    trainer.set_params({"c1": 0.05, "c2": 0.01, "max_iterations": iterations, "feature.possible_transitions": True})
    with progress() as bar:
        task = bar.add_task("reader: role tagger", total=iterations, visible=not quiet)
        trainer.message = lambda line: None  # noqa: E731 - CRFsuite reports each iteration; the bar shows them
        done = {"n": 0}

        def on_iteration(log) -> None:
            done["n"] += 1
            bar.update(task, completed=min(done["n"], iterations))

        trainer.on_iteration = lambda log, info: on_iteration(log)
        trainer.train(str(path))
        bar.update(task, completed=iterations)


def reader_key(bundle_hash: str, graph_key: str, vocabulary: Vocabulary) -> str:
    """What the trained tagger depends on: schema and phrasings, the graph, the word lists of its features, and the
    code and data that generate and learn."""
    from bot.understanding import questions
    from bot.understanding.reader import augment, corpus, tagger

    data = combine(*(p.read_text() for p in sorted(Path(corpus.__file__).parent.glob("*.toml"))))
    words = combine(*(" ".join(sorted(getattr(vocabulary, name))) for name in vocabulary.__dataclass_fields__))
    return combine(bundle_hash, graph_key, code_digest(tagger, corpus, augment, questions, "bot.understanding.ner.sentences", "bot.understanding.reader.build"), data, words)

"""The relation-chain classifier: which chain of relations a factual question follows.

A TF-IDF + logistic regression model trained at build time on questions generated from the
bundle's phrasings (bot.understanding.questions), cached in the KG's build folder by the hash
of the schema, the phrasings and the code that generates and trains it. The topic entity is
masked as ENT before classification, so the model sees only the wording. Question kinds with
clear surface cues (recommendations, pictures, ...) are rules, in bot.understanding.cues.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.core.cache import code_digest, combine, progress
from bot.core.text import words
from bot.kg.bundle import Bundle
from bot.kg.graph import KG, artefact_fresh, record_artefact
from bot.understanding.questions import QuestionGenerator
from bot.understanding.vocabulary import Speller

TRAINING_QUESTIONS = 30_000  # generated questions in all; at most 160 per chain
NGRAMS = (1, 3)
CLASSIFIER = "classifier.pkl"


def word_ngrams(tokens: list[str]) -> list[str]:
    """The word 1- to 3-grams of a token list: the classifier's features, at training and at answer time."""
    grams = list(tokens)
    for n in range(NGRAMS[0] + 1, min(NGRAMS[1], len(tokens)) + 1):
        grams += [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return grams


@dataclass
class Head:
    """One softmax layer over the shared TF-IDF features."""

    classes: list[str]
    weights: np.ndarray  # (features, classes): transposed logistic-regression coefficients
    intercept: np.ndarray  # (classes,)

    @classmethod
    def fit(cls, matrix, labels: list[str]) -> Head:
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=20.0, max_iter=300).fit(matrix, labels)
        weights, intercept = model.coef_.T, model.intercept_
        if len(model.classes_) == 2:  # scikit-learn keeps one column for two classes: p(second) = sigmoid
            weights, intercept = np.hstack([-weights / 2, weights / 2]), np.array([-intercept[0] / 2, intercept[0] / 2])
        return cls([str(c) for c in model.classes_], np.ascontiguousarray(weights, dtype=np.float64), np.asarray(intercept, dtype=np.float64))

    def probabilities(self, rows: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        scores = np.tile(self.intercept, (len(rows), 1))
        for row, (columns, values) in enumerate(rows):
            scores[row] += values @ self.weights[columns]
        scores -= scores.max(axis=1, keepdims=True)
        probs = np.exp(scores)
        return probs / probs.sum(axis=1, keepdims=True)


@dataclass
class ChainClassifier:
    """TF-IDF word n-grams + multinomial logistic regression over chain codes.

    Trained with scikit-learn, then kept as plain numpy arrays (vocabulary, idf, weights):
    predicting is a few array operations, and start-up does not pay the ~2 s import of
    scikit-learn and SciPy.
    """

    classes: list[str]  # chain codes
    vocabulary: dict[str, int]  # n-gram -> feature column
    idf: np.ndarray  # (features,)
    head: Head
    wording: frozenset[str]  # words of question wording (see bot.understanding.mentions.template_vocabulary), not of names

    @classmethod
    def train(cls, bundle: Bundle, per_chain: int | None = None, seed: int = 0) -> ChainClassifier:
        from sklearn.feature_extraction.text import TfidfVectorizer

        from bot.understanding.mentions import template_vocabulary
        from bot.understanding.questions import supported_chains

        if per_chain is None:
            per_chain = max(40, min(160, TRAINING_QUESTIONS // len(supported_chains(bundle))))
        texts, labels = QuestionGenerator(bundle, seed=seed).dataset(per_chain)
        vectorizer = TfidfVectorizer(analyzer=lambda text: word_ngrams(words(text)), sublinear_tf=True)
        head = Head.fit(vectorizer.fit_transform(texts), labels)
        return cls(
            head.classes, {str(k): int(v) for k, v in vectorizer.vocabulary_.items()},
            np.asarray(vectorizer.idf_, dtype=np.float64), head, template_vocabulary(bundle),
        )

    def features(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(columns, l2-normalised sublinear tf-idf values) of the n-grams of `text` in the vocabulary."""
        counts: dict[int, int] = {}
        for gram in word_ngrams([self.spelled(word) for word in words(text)]):
            column = self.vocabulary.get(gram)
            if column is not None:
                counts[column] = counts.get(column, 0) + 1
        columns = np.fromiter(counts, dtype=np.int64, count=len(counts))
        values = (np.log(np.fromiter(counts.values(), dtype=np.float64, count=len(counts))) + 1.0) * self.idf[columns]
        norm = np.linalg.norm(values)
        return columns, values / norm if norm else values

    def spelled(self, word: str) -> str:
        """`word`, or the wording word it misspells ("directd" -> "directed"; bot.understanding.vocabulary.Speller).
        Words of names are masked before this."""
        speller = self.__dict__.get("_speller")
        if speller is None:
            speller = self.__dict__["_speller"] = Speller(g for g in self.vocabulary if " " not in g)
        return speller(word)

    def predict(self, masked_texts: list[str]) -> np.ndarray:
        """Chain probabilities (rows follow `masked_texts`, columns follow `self.classes`)."""
        return self.head.probabilities([self.features(text) for text in masked_texts])

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}  # not the spelling memo

    def save(self, path: Path) -> None:
        with open(path, "wb") as fh:
            pickle.dump(self, fh, protocol=pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def load(path: Path) -> ChainClassifier:
        with open(path, "rb") as fh:
            return pickle.load(fh)


def classifier_key(bundle: Bundle) -> str:
    """What the trained classifier depends on: the schema and phrasings, and the code that generates and learns."""
    from bot.core import text
    from bot.understanding import classifier, mentions, questions

    return combine(bundle.schema_hash(), code_digest(classifier, questions, mentions, text))


def load_classifier(kg: KG, quiet: bool = False, force: bool = False) -> ChainClassifier:
    """The KG's classifier, trained (with a progress bar) on first use or when its inputs changed."""
    key = classifier_key(kg.bundle)
    path = kg.folder / CLASSIFIER
    if force or not artefact_fresh(kg.folder, CLASSIFIER, key):
        with progress() as bar:
            task = bar.add_task("question classifier", total=1, visible=not quiet)
            ChainClassifier.train(kg.bundle).save(path)
            bar.advance(task)
        record_artefact(kg.folder, CLASSIFIER, key)
    return ChainClassifier.load(path)

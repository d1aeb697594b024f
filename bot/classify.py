"""Question classification: rules for the question kind, a scikit-learn model for the relation chain.

Kinds with clear surface cues (recommendations, pictures, embeddings, small talk) are
rules; the relation chain of a factual question is predicted by a TF-IDF + logistic
regression model trained at build time on questions generated from the bundle's phrasings.
The topic entity is masked as ENT before classification, so the model sees only the wording.
"""

from __future__ import annotations

import pickle
import re
from dataclasses import dataclass
from pathlib import Path

from .bundle import Bundle
from .questions import QuestionGenerator

RECOMMEND = re.compile(
    r"\b(recommend\w*|suggest\w*|similar (to|films?|movies?)|(films?|movies?) like\b|something like|what (else )?should i (watch|see)|"
    r"(given|since|as) (that )?i (like|liked|love|loved|enjoy|enjoyed)|i (really )?(like|liked|love|loved|enjoyed) .*(watch|recommend|suggest|similar|like it|too|also)|"
    r"if i (like|liked|love|loved|enjoyed))",
    re.I,
)
MULTIMEDIA = re.compile(
    r"\b(picture|photo|photograph|image|poster|looks? like|look alike|what does .+ look|show me .+ (face|pic))\b|\bpics?\b|\bphotos?\b", re.I
)
EMBEDDING = re.compile(r"\b(embeddings?|predict(ion|ed)?|link prediction)\b", re.I)
SMALLTALK = {
    "greeting": re.compile(r"^\W*(hi|hello|hey|hallo|good (morning|afternoon|evening)|greetings|howdy|yo)\b[\w\s!.,]*$", re.I),
    "thanks": re.compile(r"^\W*(thanks?|thank you|thx|cheers|great|awesome|perfect|cool|nice|ok(ay)?)\b[\w\s!.,]*$", re.I),
    "bye": re.compile(r"^\W*(bye|goodbye|see you|ciao|good night)\b[\w\s!.,]*$", re.I),
    "help": re.compile(r"^\W*(help|what can (you|i) (do|ask)|who are you|what are you|how does this work)\b.*$", re.I),
}


def question_kind(text: str) -> tuple[str, str]:
    """(kind, small-talk intent) decided by surface cues; 'factual' when none fires."""
    for intent, pattern in SMALLTALK.items():
        if pattern.match(text) and len(text) < 80:
            return "smalltalk", intent
    if EMBEDDING.search(text) and re.search(r"\bembedding", text, re.I):
        return "embedding", ""
    if MULTIMEDIA.search(text):
        return "multimedia", ""
    if RECOMMEND.search(text):
        return "recommendation", ""
    return "factual", ""


@dataclass
class ChainClassifier:
    """TF-IDF word n-grams + multinomial logistic regression over chain codes."""

    pipeline: object
    classes: list[str]
    trained_on: int

    @classmethod
    def train(cls, bundle: Bundle, per_chain: int = 160, seed: int = 0) -> "ChainClassifier":
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline

        texts, labels = QuestionGenerator(bundle, seed=seed).dataset(per_chain)
        pipeline = make_pipeline(
            TfidfVectorizer(ngram_range=(1, 3), sublinear_tf=True, lowercase=True, token_pattern=r"(?u)\b\w+\b|'s"),
            LogisticRegression(C=20.0, max_iter=300),
        )
        pipeline.fit(texts, labels)
        return cls(pipeline, list(pipeline.classes_), len(texts))

    def predict(self, masked_texts: list[str]):
        """Class probabilities (rows follow `masked_texts`, columns follow `self.classes`)."""
        return self.pipeline.predict_proba(masked_texts)

    def save(self, path: Path) -> None:
        with open(path, "wb") as fh:
            pickle.dump(self, fh, protocol=pickle.HIGHEST_PROTOCOL)

    @staticmethod
    def load(path: Path) -> "ChainClassifier":
        with open(path, "rb") as fh:
            return pickle.load(fh)

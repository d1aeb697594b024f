"""Calibrated trust in a reading that leaves words unexplained: answer when it is likely right, not when every word
happens to be known.

A relation-chain reading that accounts for every word of its clause is answered. One that leaves a word the
understander cannot place ("who usually directed X", "who frobnicated X") used to be answered only when the chain
classifier was very sure (a fixed 0.2), whatever the word: a word in a story was as fatal as an unknown verb where the
relation is asked. Here a logistic model says how likely such a reading is to be the right one, from what the reading
and the reader know: the classifier's probability, how well the name matched, how many words are left and what the
role tagger says of them (asking or context), whether they are ordinary English words. It is trained at build time
on the bundle's generated questions, augmented as people write (bot.understanding.reader.augment), whose right
reading is known; the threshold is the lowest at which the readings trusted on held-out generated questions are
right at least `PRECISION` of the time. bench/reader.py prints the precision / recall curve.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.understanding.reader.corpus import Role

PRECISION = 0.98  # readings trusted on held-out generated questions must be right this often
FEATURES = ("log_probability", "prior_score", "unknown", "link_score", "span_tokens", "hops", "pronoun", "coordinated", "asks",
            "unknown_asking", "unknown_context", "unknown_ordinary", "unknown_capitalised", "unknown_near_cue")
NEAR_CUE_LENGTH = 2  # a cue this many letters longer or shorter than the unknown word is not compared


def reading_features(candidate, toks, tagged, ordinary: frozenset[str], speller, text: str, cues: dict[str, frozenset[str]]) -> dict[str, float]:
    """The trust model's view of a reading: its own features (bot.understanding.constructions.fact.Candidate) and what
    the tagger, the English word list and the reading's own relation cues (`cues`: relation -> its cue words) say of the
    words it leaves unknown ("wrot" is nearly "wrote", a cue of the screenwriter; "frobnicated" is near no cue)."""
    from rapidfuzz import fuzz

    base = candidate.features
    unknown = set(candidate.explanation.unknown)
    relations = {hop.strip().rstrip("+-") for hop in candidate.chain.replace(";", ",").split(",")}
    own_cues = [c for r in relations for c in cues.get(r, ()) if " " not in c]
    near = max((fuzz.ratio(w, c) for w in unknown for c in own_cues if abs(len(w) - len(c)) <= NEAR_CUE_LENGTH), default=0.0)
    positions = [k for k, t in enumerate(toks) if speller(t[0]) in unknown]
    asking = [tagged.probability(k, Role.ASK) for k in positions] if tagged is not None else []
    context = [tagged.probability(k, Role.CTX) for k in positions] if tagged is not None else []
    return {
        "log_probability": base["log_probability"], "prior_score": base["prior_score"], "unknown": base["unknown"],
        "link_score": base["link_score"] / 100.0, "span_tokens": base["span_tokens"], "hops": base["hops"], "pronoun": base["pronoun"],
        "coordinated": base["coordinated"], "asks": base["asks"],
        "unknown_asking": max(asking, default=0.0), "unknown_context": min(context, default=1.0),
        "unknown_ordinary": float(sum(toks[k][0] in ordinary for k in positions)),
        "unknown_capitalised": float(sum(text[toks[k][1]].isupper() for k in positions)),
        "unknown_near_cue": near / 100.0,
    }


@dataclass
class TrustModel:
    """A logistic model over FEATURES and the probability above which a reading is answered."""

    weights: np.ndarray
    intercept: float
    mean: np.ndarray
    scale: np.ndarray
    threshold: float

    def probability(self, features: dict[str, float]) -> float:
        x = (np.array([features[name] for name in FEATURES]) - self.mean) / self.scale
        return 1.0 / (1.0 + math.exp(-(float(x @ self.weights) + self.intercept)))

    def trusts(self, features: dict[str, float]) -> bool:
        return self.probability(features) >= self.threshold

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"features": FEATURES, "weights": self.weights.tolist(), "intercept": self.intercept,
                                    "mean": self.mean.tolist(), "scale": self.scale.tolist(), "threshold": self.threshold}))

    @classmethod
    def load(cls, path: Path) -> TrustModel:
        data = json.loads(path.read_text())
        return cls(np.array(data["weights"]), float(data["intercept"]), np.array(data["mean"]), np.array(data["scale"]), float(data["threshold"]))


def fit(rows: list[tuple[dict[str, float], bool]], precision: float = PRECISION) -> tuple[TrustModel, list[tuple[float, float, float]]]:
    """The model fitted on half of `rows` (features, whether the reading was right), its threshold chosen on the other
    half; and that half's precision / recall curve: (threshold, precision, recall) at every tenth."""
    from sklearn.linear_model import LogisticRegression

    x = np.array([[r[0][name] for name in FEATURES] for r in rows], dtype=float)
    y = np.array([r[1] for r in rows], dtype=int)
    fit_rows, held = np.arange(len(rows)) % 2 == 0, np.arange(len(rows)) % 2 == 1
    mean, scale = x[fit_rows].mean(axis=0), x[fit_rows].std(axis=0) + 1e-9
    model = LogisticRegression(C=1.0, max_iter=1000).fit((x[fit_rows] - mean) / scale, y[fit_rows]) if len(set(y[fit_rows])) > 1 else None
    if model is None:  # every reading right (or every one wrong): trust as the data say
        return TrustModel(np.zeros(len(FEATURES)), 0.0, mean, scale, 0.0 if y.all() else 1.01), []
    trust = TrustModel(model.coef_[0], float(model.intercept_[0]), mean, scale, 1.01)
    scores = np.array([trust.probability(dict(zip(FEATURES, row))) for row in x[held]])
    truth = y[held]
    curve, chosen = [], 1.01
    for threshold in sorted(set(np.round(scores, 3)), reverse=True):
        taken = scores >= threshold
        right = truth[taken].mean() if taken.any() else 1.0
        if right >= precision:
            chosen = float(threshold)
    for tenth in np.arange(0.0, 1.0, 0.1):
        taken = scores >= tenth
        curve.append((round(float(tenth), 1), float(truth[taken].mean()) if taken.any() else 1.0, float(taken[truth == 1].mean()) if truth.any() else 0.0))
    trust.threshold = chosen
    return trust, curve

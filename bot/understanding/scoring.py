"""Scoring a clause's readings: the hand-set rules that rank them, in one place a learned scorer can replace.

A clause gets candidate readings from the constructions: compositional ones (tried most specific first; the first that
reads is taken: bot.understanding.compositions), relation chains from each name (bot.understanding.constructions.fact,
each `Candidate` with its `features`), and an overview when nothing else reads. Chain readings are ranked here: the
classifier's log-probability with the span's prior and the entity's role (`Candidate.score`) less a penalty for every
word the reading leaves unexplained (`Explanation.penalty`); a reading that accounts for every word beats one that does
not unless the classifier all but rules it out; a reading that leaves unknown words is trusted only when the classifier
is sure. A learned scorer (issue 30) subclasses `HandScorer` and is set as `Understander.scorer`.
"""

from __future__ import annotations

from bot.understanding.constructions.fact import Candidate

MIN_COMPLETE_PROBABILITY = 0.0005  # a complete reading below this classifier probability is not preferred
TRUST_WITH_UNKNOWN_WORDS = 0.2  # a reading that leaves unknown words is trusted only when the classifier is this sure
NAMESAKE_READINGS = 6  # the best readings whose namesake films are told apart before the best is chosen
TRACED = 5  # readings per clause kept in the reply trace


class HandScorer:
    """The hand-set ranking of chain readings."""

    def score(self, candidate: Candidate) -> float:
        return candidate.score - candidate.explanation.penalty

    def rank(self, candidates: list[Candidate]) -> list[Candidate]:
        """Best first."""
        return sorted(candidates, key=lambda c: -self.score(c))

    def best(self, candidates: list[Candidate]) -> Candidate:
        """The reading to answer: of those that account for every word (and that the classifier does not all but rule
        out), the best; else the best of all, which will only say what it could not read."""
        complete = [c for c in candidates if c.explanation.complete and c.probability >= MIN_COMPLETE_PROBABILITY]
        return max(complete or candidates, key=self.score)

    def trusted(self, candidate: Candidate) -> bool:
        """Whether a reading that leaves unknown words is sure enough to answer."""
        return not candidate.explanation.unknown or candidate.probability >= TRUST_WITH_UNKNOWN_WORDS

    def traced(self, candidates: list[Candidate], chosen: Candidate | None) -> list[dict]:
        """The best readings with their features and scores, for the reply trace."""
        return [{"construction": "fact", "chain": c.chain, "entity": c.entity.label if c.entity else None,
                 "score": round(self.score(c), 3), "chosen": c is chosen,
                 "features": {k: round(v, 4) for k, v in c.features.items()}} for c in self.rank(candidates)[:TRACED]]


class LearnedScorer(HandScorer):
    """The hand-set ranking, with calibrated trust (bot.understanding.reader.trust) deciding whether a reading that
    leaves unknown words is answered."""

    def __init__(self, trust, features):
        self.trust = trust  # TrustModel
        self.features = features  # candidate -> the trust model's features, from the message being read

    def trusted(self, candidate: Candidate) -> bool:
        return not candidate.explanation.unknown or self.trust.trusts(self.features(candidate))


class RecordingScorer(HandScorer):
    """Trusts every reading and keeps the features of those that leave unknown words (training the trust model)."""

    def __init__(self, features):
        self.features = features
        self.seen: list[dict[str, float]] = []

    def trusted(self, candidate: Candidate) -> bool:
        if candidate.explanation.unknown:
            self.seen.append(self.features(candidate))
        return True

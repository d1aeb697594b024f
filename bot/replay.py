"""Replay a question file in the MetaQA format and score the answers.

Input lines: `question<TAB>gold1|gold2`; the topic entity may be in [square brackets].
Output: one JSON object per question, then hits@1, answer-set P/R/F1, per-type scores
(with a type file) and latency percentiles.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bot.agent import Agent
from bot.core.text import fold

_BRACKETS = re.compile(r"\[([^\]]*)\]")


def strip_brackets(question: str) -> str:
    return _BRACKETS.sub(r"\1", question)


def _norm(label: str) -> str:
    return " ".join(fold(label).split())


@dataclass
class Score:
    n: int = 0
    hits1: float = 0.0
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0

    def add(self, ranked: list[str], gold: set[str]) -> None:
        answers = [_norm(a) for a in ranked]
        predicted = set(answers)
        self.n += 1
        self.hits1 += 1.0 if answers and answers[0] in gold else 0.0
        tp = len(predicted & gold)
        p = tp / len(predicted) if predicted else 0.0
        r = tp / len(gold) if gold else 0.0
        self.precision += p
        self.recall += r
        self.f1 += 2 * p * r / (p + r) if p + r else 0.0

    def summary(self) -> dict:
        n = max(self.n, 1)
        return {"n": self.n, "hits@1": self.hits1 / n, "precision": self.precision / n, "recall": self.recall / n, "f1": self.f1 / n}


@dataclass
class ReplayResult:
    overall: Score = field(default_factory=Score)
    by_type: dict[str, Score] = field(default_factory=lambda: defaultdict(Score))
    latencies: list[float] = field(default_factory=list)

    def latency(self) -> dict:
        if not self.latencies:
            return {}
        ordered = sorted(self.latencies)
        return {
            "p50_ms": statistics.median(ordered),
            "p95_ms": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
            "max_ms": ordered[-1],
        }


def read_questions(path: Path, limit: int | None = None) -> list[tuple[str, list[str]]]:
    items = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            question, _, gold = line.partition("\t")
            items.append((question, [g for g in gold.split("|") if g]))
            if limit and len(items) >= limit:
                break
    return items


def replay(agent: Agent, questions: list[tuple[str, list[str]]], out, qtypes: list[str] | None = None,
           strip: bool = False, on_progress=None) -> ReplayResult:
    result = ReplayResult()
    for n, (question, gold) in enumerate(questions):
        asked = strip_brackets(question) if strip else question
        reply = agent.answer(asked)
        record = {
            "question": asked,
            "text": reply.text,
            "answers": reply.answers,
            "kind": reply.kind,
            "entities": [{"text": e.text, "iri": e.iri, "label": e.label, "score": round(e.score, 1)} for e in reply.entities],
            "trace": [t.to_json() for t in reply.trace],
            "latency_ms": round(reply.latency_ms, 2),
        }
        if gold:
            record["gold"] = gold
        if out is not None:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        gold_set = {_norm(g) for g in gold}
        if gold_set:
            result.overall.add(reply.answers, gold_set)
            if qtypes:
                result.by_type[qtypes[n]].add(reply.answers, gold_set)
        result.latencies.append(reply.latency_ms)
        if on_progress:
            on_progress()
    return result

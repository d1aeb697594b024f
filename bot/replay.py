"""Replay question files through the same dialogue layer as the chatroom, and score the answers.

Questions: lines `question<TAB>gold1|gold2` (MetaQA format; the topic entity may be in [square
brackets]); each question is asked in a conversation of its own, so it gets exactly the reply a
chat user asking it first would get (clarification included).
Dialogues: blocks separated by blank lines, `> ` user turns (and `= ` expectations, which replay
ignores), each block one conversation.
Output: one JSON object per question or turn, then hits@1, answer-set P/R/F1, per-type scores
(with a type file) and latency percentiles.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bot.core.contracts import Message, Reply
from bot.core.text import fold
from bot.dialogue.dialogue import Dialogue

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


def read_dialogues(path: Path) -> list[list[str]]:
    """The user turns of each dialogue in a dialogue file (blank line between dialogues, `> ` turns, `#` comments)."""
    dialogues, current = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\r\n")
            if not line.strip():
                if current:
                    dialogues.append(current)
                current = []
            elif line.startswith(">"):
                current.append(line[1:].strip())
    if current:
        dialogues.append(current)
    return dialogues


def record_of(question: str, reply: Reply) -> dict:
    return {
        "question": question,
        "text": reply.text,
        "answers": reply.answers,
        "kind": reply.kind,
        "entities": [{"text": e.text, "iri": e.iri, "label": e.label, "score": round(e.score, 1)} for e in reply.entities],
        "trace": [t.to_json() for t in reply.trace],
        "latency_ms": round(reply.latency_ms, 2),
    }


def replay_dialogues(dialogue: Dialogue, dialogues: list[list[str]], out, on_progress=None) -> ReplayResult:
    """Every turn of every dialogue, each dialogue in a conversation of its own, written in file order."""
    result = ReplayResult()
    for number, turns in enumerate(dialogues):
        for turn, question in enumerate(turns):
            reply = dialogue.reply(Message(f"replay-dialogue-{number}", "replay", question))
            if out is not None:
                out.write(json.dumps({**record_of(question, reply), "dialogue": number, "turn": turn}, ensure_ascii=False) + "\n")
            result.latencies.append(reply.latency_ms)
            if on_progress:
                on_progress()
    return result


def replay(dialogue: Dialogue, questions: list[tuple[str, list[str]]], out, qtypes: list[str] | None = None,
           strip: bool = False, on_progress=None) -> ReplayResult:
    result = ReplayResult()
    for n, (question, gold) in enumerate(questions):
        asked = strip_brackets(question) if strip else question
        reply = dialogue.reply(Message(f"replay-{n}", "replay", asked))
        dialogue.forget(f"replay-{n}")
        record = record_of(asked, reply)
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

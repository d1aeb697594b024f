"""Crowd-sourced answers: course crowd files -> filtered votes -> task verdicts and Fleiss' kappa.

A crowd file (the course's 16-column TSV) holds one row per worker answer to "Is this
triple correct or incorrect?". Answers from careless or malicious workers are removed by
documented, configurable rules (`FilterRules`); the remaining votes are aggregated per
task (HITId) by majority and per batch (HITTypeId) into Fleiss' kappa. How the agent answers
from the result is in bot.answering.crowd.answers.
"""


from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bot.answering.crowd.votes import (
    CATEGORIES,
    CORRECT,
    INCORRECT,
    POSITIONS,
    TIE,
    Problem,
    Term,
    Vote,
    read_votes,
    resolve_term,
)


@dataclass(frozen=True)
class FilterRules:
    """Which answers count. An answer is removed when it breaks any rule:

    * work_time: the worker spent less than `min_work_seconds` on the task (too fast to have
      looked the fact up; in the course file such answers take 2-4 s, the others 10-337 s);
    * approval: the worker's lifetime approval rate is below `min_approval` percent;
    * status: the assignment was rejected by the requester.
    """

    min_work_seconds: float = 5.0
    min_approval: float = 50.0
    rejected_statuses: tuple[str, ...] = ("rejected",)

    @classmethod
    def from_settings(cls, settings) -> FilterRules:
        return cls(settings.crowd_min_work_seconds, settings.crowd_min_approval)

    def describe(self) -> dict[str, str]:
        return {
            "work_time": f"work time below {self.min_work_seconds:g} s",
            "approval": f"lifetime approval rate below {self.min_approval:g}%",
            "status": f"assignment status {' or '.join(self.rejected_statuses)}",
        }

    def broken(self, vote: Vote) -> list[str]:
        """The names of the rules `vote` breaks (unknown values break no rule)."""
        rules = []
        if vote.seconds is not None and vote.seconds < self.min_work_seconds:
            rules.append("work_time")
        if vote.approval is not None and vote.approval < self.min_approval:
            rules.append("approval")
        if vote.status.strip().lower() in self.rejected_statuses:
            rules.append("status")
        return rules


@dataclass
class Task:
    """One crowd task (a HIT): the triple asked about and the votes it kept after filtering."""

    file: str
    hit: str
    batch: str
    inputs: tuple[str, str, str]
    triple: tuple[Term, Term, Term] | None  # None when an input is malformed (see `problem`)
    problem: str = ""
    answers: int = 0  # votes before filtering
    support: int = 0  # kept CORRECT votes
    reject: int = 0  # kept INCORRECT votes
    fixes: Counter = field(default_factory=Counter)  # (position, Term) -> kept votes proposing that fix
    unusable_fixes: int = 0  # kept fixes naming no position or a value that cannot stand there
    fix: tuple[str, Term] | None = None  # the majority fix, when there is a strict majority
    fix_votes: int = 0  # kept votes proposing the majority fix

    @property
    def verdict(self) -> str:
        """CORRECT or INCORRECT by strict majority of the kept votes; TIE otherwise (also with no votes)."""
        if self.support > self.reject:
            return CORRECT
        if self.reject > self.support:
            return INCORRECT
        return TIE

    @property
    def distribution(self) -> dict[str, int]:
        return {CORRECT: self.support, INCORRECT: self.reject}

    def corrected(self) -> tuple[Term, Term, Term] | None:
        """The triple the crowd vouches for: the asked one, or the asked one with the majority fix applied."""
        if self.triple is None:
            return None
        if self.verdict == CORRECT:
            return self.triple
        if self.verdict == INCORRECT and self.fix is not None:
            position, term = self.fix
            fixed = list(self.triple)
            fixed[POSITIONS.index(position)] = term
            return tuple(fixed)
        return None


@dataclass
class Batch:
    """One batch of tasks (a HITTypeId) and its inter-rater agreement."""

    id: str
    tasks: int = 0
    answers: int = 0
    kept: int = 0
    workers: set[str] = field(default_factory=set)
    kept_workers: set[str] = field(default_factory=set)
    kappa: float | None = None  # Fleiss' kappa of the kept votes
    kappa_unfiltered: float | None = None
    method: str = ""


@dataclass
class CrowdData:
    """Everything read from the crowd files, filtered and aggregated."""

    rules: FilterRules
    votes: list[Vote]
    kept: list[Vote]
    removed_by_rule: dict[str, int]
    tasks: list[Task]
    batches: dict[str, Batch]
    problems: list[Problem]

    def worker_stats(self) -> list[dict]:
        """Per-worker engagement: answers, batches, kept answers, work time, approval, earnings."""
        kept_lines = {(v.file, v.line) for v in self.kept}
        by_worker: dict[str, list[Vote]] = defaultdict(list)
        for vote in self.votes:
            by_worker[vote.worker].append(vote)
        stats = []
        for worker, votes in sorted(by_worker.items()):
            seconds = [v.seconds for v in votes if v.seconds is not None]
            approvals = [v.approval for v in votes if v.approval is not None]
            stats.append(
                {
                    "worker": worker,
                    "answers": len(votes),
                    "batches": sorted({v.batch for v in votes}),
                    "kept": sum((v.file, v.line) in kept_lines for v in votes),
                    "median_seconds": statistics.median(seconds) if seconds else None,
                    "approval": approvals[0] if approvals else None,
                    "earned": round(sum(v.reward or 0.0 for v in votes), 2),
                    "fixes_proposed": sum(bool(v.fix_position.strip()) for v in votes if v.label == INCORRECT),
                    "incorrect_share": round(sum(v.label == INCORRECT for v in votes) / len(votes), 3),
                }
            )
        return stats

    def engagement(self) -> dict:
        """Totals over all workers."""
        workers = self.worker_stats()
        per_worker = [w["answers"] for w in workers]
        seconds = [v.seconds for v in self.votes if v.seconds is not None]
        incorrect = [v for v in self.votes if v.label == INCORRECT]
        return {
            "workers": len(workers),
            "workers_fully_removed": sum(w["kept"] == 0 for w in workers),
            "answers": len(self.votes),
            "answers_kept": len(self.kept),
            "answers_per_worker_median": statistics.median(per_worker) if per_worker else None,
            "answers_per_worker_max": max(per_worker, default=0),
            "median_work_seconds": statistics.median(seconds) if seconds else None,
            "total_work_hours": round(sum(seconds) / 3600, 2),
            "total_reward": round(sum(v.reward or 0.0 for v in self.votes), 2),
            "incorrect_votes_with_fix": sum(bool(v.fix_position.strip()) for v in incorrect),
            "incorrect_votes": len(incorrect),
        }

    def report(self) -> dict:
        """A JSON-ready summary (what `moviebot crowd report --json` prints)."""
        return {
            "rules": self.rules.describe(),
            "removed_by_rule": self.removed_by_rule,
            "removed": len(self.votes) - len(self.kept),
            "batches": [
                {
                    "batch": b.id,
                    "tasks": b.tasks,
                    "answers": b.answers,
                    "kept": b.kept,
                    "workers": len(b.workers),
                    "workers_kept": len(b.kept_workers),
                    "kappa": b.kappa,
                    "kappa_unfiltered": b.kappa_unfiltered,
                    "method": b.method,
                }
                for b in self.batches.values()
            ],
            "verdicts": dict(Counter(t.verdict for t in self.tasks)),
            "tasks_with_fix": sum(t.fix is not None for t in self.tasks),
            "engagement": self.engagement(),
            "workers": self.worker_stats(),
            "problems": [str(p) for p in self.problems],
        }



def fleiss_kappa(table) -> tuple[float | None, str]:
    """(Fleiss' kappa, method) of a tasks x categories table of vote counts.

    Tasks with fewer than two votes carry no agreement and are left out. With the same
    number of votes per task this is statsmodels' `fleiss_kappa`; when filtering left tasks
    with different numbers of votes it is Fleiss' formula with per-task rater counts.
    Kappa is undefined (None) when every vote falls in one category.
    """
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

    table = np.asarray(table, dtype=float)
    table = table[table.sum(axis=1) >= 2] if table.size else table
    if not len(table):
        return None, "no task with two votes"
    raters = table.sum(axis=1)
    shares = table.sum(axis=0) / table.sum()
    expected = float((shares * shares).sum())
    if expected >= 1.0:
        return None, "undefined: every vote in one category"
    if np.all(raters == raters[0]):
        return float(sm_fleiss_kappa(table, method="fleiss")), "fleiss"
    observed = ((table * table).sum(axis=1) - raters) / (raters * (raters - 1))
    return float((observed.mean() - expected) / (1 - expected)), "fleiss (varying n)"


def _resolve_triple(inputs: tuple[str, str, str], prefixes: dict[str, str]) -> tuple[tuple[Term, Term, Term] | None, str]:
    try:
        return tuple(resolve_term(text, prefixes, pos) for text, pos in zip(inputs, POSITIONS)), ""
    except ValueError as exc:
        return None, str(exc)


def _resolve_fix(position: str, value: str, prefixes: dict[str, str], triple) -> tuple[str, Term] | None:
    """(position, Term) for a proposed fix, or None when it names no position or cannot stand there."""
    position = position.strip().lower()
    if triple is None or position not in POSITIONS or not value.strip():
        return None
    try:
        term = resolve_term(value, prefixes, position)
    except ValueError:
        return None
    if position == "object" and triple[2].is_iri != term.is_iri:
        return None
    return position, term


def aggregate(votes: list[Vote], prefixes: dict[str, str], rules: FilterRules, problems: list[Problem] | None = None) -> CrowdData:
    """Filter the votes, aggregate them per task and compute each batch's kappa."""
    problems = list(problems or [])
    kept, removed = [], Counter({name: 0 for name in rules.describe()})
    for vote in votes:
        broken = rules.broken(vote)
        removed.update(broken)
        if not broken:
            kept.append(vote)
    tasks: dict[tuple[str, str], Task] = {}
    for vote in votes:  # every task, even when all its votes were removed
        key = (vote.file, vote.hit)
        if key not in tasks:
            triple, problem = _resolve_triple(vote.inputs, prefixes)
            tasks[key] = Task(vote.file, vote.hit, vote.batch, vote.inputs, triple, problem)
            if problem:
                problems.append(Problem(vote.file, vote.line, f"task {vote.hit}: {problem}; not used for answers"))
        tasks[key].answers += 1
    for vote in kept:
        task = tasks[(vote.file, vote.hit)]
        if vote.label == CORRECT:
            task.support += 1
        else:
            task.reject += 1
            fix = _resolve_fix(vote.fix_position, vote.fix_value, prefixes, task.triple)
            if fix is not None:
                task.fixes[fix] += 1
            elif vote.fix_position.strip() or vote.fix_value.strip():
                task.unusable_fixes += 1
    for task in tasks.values():
        task.fix, task.fix_votes = _majority_fix(task)
    batches: dict[str, Batch] = {}
    for vote in votes:
        batch = batches.setdefault(vote.batch, Batch(vote.batch))
        batch.answers += 1
        batch.workers.add(vote.worker)
    for vote in kept:
        batches[vote.batch].kept += 1
        batches[vote.batch].kept_workers.add(vote.worker)
    for batch in batches.values():
        batch_tasks = [t for t in tasks.values() if t.batch == batch.id]
        batch.tasks = len(batch_tasks)
        batch.kappa, batch.method = fleiss_kappa([[t.support, t.reject] for t in batch_tasks])
        unfiltered = Counter((v.file, v.hit, v.label) for v in votes if v.batch == batch.id)
        batch.kappa_unfiltered, _ = fleiss_kappa([[unfiltered[(t.file, t.hit, c)] for c in CATEGORIES] for t in batch_tasks])
    return CrowdData(rules, votes, kept, dict(removed), list(tasks.values()), batches, problems)


def _majority_fix(task: Task) -> tuple[tuple[str, Term] | None, int]:
    """(fix, votes for it): the fix most kept INCORRECT votes proposed, when strictly more than any other."""
    if task.verdict != INCORRECT or not task.fixes:
        return None, 0
    ranked = task.fixes.most_common()
    if len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
        return None, 0
    return ranked[0]


def load_crowd(files, prefixes: dict[str, str], rules: FilterRules | None = None) -> CrowdData:
    """Read, filter and aggregate crowd files (CrowdFileError when one is not a crowd file)."""
    votes, problems = [], []
    for file in files:
        file_votes, file_problems = read_votes(Path(file))
        votes += file_votes
        problems += file_problems
    return aggregate(votes, prefixes, rules or FilterRules(), problems)

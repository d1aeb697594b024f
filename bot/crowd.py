"""Crowd-sourced answers: course crowd files -> filtered votes -> task verdicts and Fleiss' kappa.

A crowd file (the course's 16-column TSV) holds one row per worker answer to "Is this
triple correct or incorrect?". Answers from careless or malicious workers are removed by
documented, configurable rules (`FilterRules`); the remaining votes are aggregated per
task (HITId) by majority and per batch (HITTypeId) into Fleiss' kappa. The agent uses the
result twice: as a fallback when the graph has no triple for (subject, relation), and as
an amender that replaces a graph value the crowd voted INCORRECT with the crowd's fix.
Every crowd answer says so, with the batch agreement and the task's votes.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .bundle import is_safe_iri
from .cache import combine, file_digest, pickled
from .contracts import Answer, Fact, Facts, Hop, Understanding
from .generation import describe_chain, join_labels, template_sentence
from .retrieval import format_literal, iri
from .store import Node

log = logging.getLogger(__name__)

COLUMNS = (
    "HITId", "HITTypeId", "Title", "Reward", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds",
    "LifetimeApprovalRate", "Input1ID", "Input2ID", "Input3ID", "AnswerID", "AnswerLabel", "FixPosition", "FixValue",
)  # fmt: skip
CORRECT, INCORRECT = "CORRECT", "INCORRECT"
CATEGORIES = (CORRECT, INCORRECT)
ANSWER_IDS = {"1": CORRECT, "2": INCORRECT}
POSITIONS = ("subject", "predicate", "object")
TIE = "TIE"
CROWD_VERSION = "crowd-1"  # part of the key of the cached, aggregated crowd data
# Bare Wikidata ids (FixValue "Q908556", "P58") name entities and direct properties.
WIKIDATA_NS = {"Q": "http://www.wikidata.org/entity/", "P": "http://www.wikidata.org/prop/direct/"}
OWL_SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"
_BARE_ID = re.compile(r"^([QP])\d+$")
_CURIE = re.compile(r"^([A-Za-z][\w.-]*):(.*)$")
_LOCAL = re.compile(r"^[A-Za-z0-9_](?:[\w.-]*[\w-])?$")  # a CURIE local name: no leading or trailing dot


class CrowdFileError(ValueError):
    """A file is not in the crowd format at all (as opposed to a bad row, which is reported and skipped)."""


@dataclass(frozen=True)
class Term:
    """A resolved crowd input: an absolute IRI or a literal."""

    value: str
    is_iri: bool


@dataclass(frozen=True)
class Problem:
    """Something in a crowd file that was skipped or could not be used; never fatal."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Vote:
    """One worker's answer to one task (one row of a crowd file)."""

    file: str
    line: int
    hit: str
    batch: str
    worker: str
    status: str
    seconds: float | None
    approval: float | None  # lifetime approval rate in percent
    reward: float | None  # in dollars
    inputs: tuple[str, str, str]
    label: str  # CORRECT | INCORRECT
    fix_position: str
    fix_value: str


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
    def from_settings(cls, settings) -> "FilterRules":
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


# ---------------------------------------------------------------- reading


def _number(text: str, strip: str) -> float | None:
    text = text.strip().strip(strip).replace(",", "").strip()
    return float(text) if text else None


def read_votes(path: Path) -> tuple[list[Vote], list[Problem]]:
    """The votes of one crowd file; rows that cannot be used become Problems."""
    path = Path(path)
    name = path.name
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CrowdFileError(f"{path}: cannot read crowd file: {exc}") from exc
    rows = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = next(rows, None)
    header = [h.strip() for h in header] if header else []
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise CrowdFileError(f"{path}: not a crowd file (16 tab-separated columns): missing column(s) {', '.join(missing)}")
    col = {c: header.index(c) for c in COLUMNS}
    votes, problems = [], []
    for line, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            problems.append(Problem(name, line, f"expected {len(header)} columns, found {len(row)}; row skipped"))
            continue
        get = {c: row[i].strip() for c, i in col.items()}
        label = get["AnswerLabel"].upper() or ANSWER_IDS.get(get["AnswerID"], "")
        if label not in CATEGORIES:
            problems.append(Problem(name, line, f"answer {get['AnswerLabel'] or get['AnswerID']!r} is neither CORRECT nor INCORRECT; row skipped"))
            continue
        if not get["HITId"] or not get["WorkerId"]:
            problems.append(Problem(name, line, "no HITId or WorkerId; row skipped"))
            continue
        numbers = {}
        for column, strip in (("WorkTimeInSeconds", ""), ("LifetimeApprovalRate", "%"), ("Reward", "$")):
            try:
                numbers[column] = _number(get[column], strip)
            except ValueError:
                numbers[column] = None
                problems.append(Problem(name, line, f"{column} {get[column]!r} is not a number; no rule uses it"))
        votes.append(
            Vote(
                name, line, get["HITId"], get["HITTypeId"], get["WorkerId"], get["AssignmentStatus"],
                numbers["WorkTimeInSeconds"], numbers["LifetimeApprovalRate"], numbers["Reward"],
                (get["Input1ID"], get["Input2ID"], get["Input3ID"]), label, get["FixPosition"], get["FixValue"],
            )  # fmt: skip
        )
    return votes, problems


def resolve_term(text: str, prefixes: dict[str, str], position: str) -> Term:
    """A crowd input as a Term: CURIEs through `prefixes`, bare Q/P ids as Wikidata, other objects as literals.

    Raises ValueError (with the reason) for malformed or unresolvable IRIs.
    """
    text = text.strip()
    if not text:
        raise ValueError("empty value")
    if text.startswith("<") and text.endswith(">"):
        if not is_safe_iri(text[1:-1]):
            raise ValueError(f"{text!r} is not an absolute IRI")
        return Term(text[1:-1], True)
    bare = _BARE_ID.match(text)
    if bare:
        return Term(WIKIDATA_NS[bare[1]] + text, True)
    curie = _CURIE.match(text)
    if curie:
        prefix, local = curie[1], curie[2]
        if prefix in prefixes:
            if not _LOCAL.match(local) or not is_safe_iri(prefixes[prefix] + local):
                raise ValueError(f"malformed IRI {text!r}")
            return Term(prefixes[prefix] + local, True)
        if local.startswith("//"):
            if not is_safe_iri(text):
                raise ValueError(f"malformed IRI {text!r}")
            return Term(text, True)
        if position != "object":
            raise ValueError(f"unknown prefix {prefix!r} in {text!r}")
    if position != "object":
        raise ValueError(f"the {position} {text!r} is not an IRI")
    return Term(text, False)


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


# ---------------------------------------------------------------- answering


def _votes(n: int, kind: str) -> str:
    return f"{n} {kind} vote{'' if n == 1 else 's'}"


def agreement_note(tasks: list[Task], batches: dict[str, Batch], labels: list[str] | None = None) -> str:
    """'inter-rater agreement 0.236 in this batch; 2 support votes, 1 reject vote' (per value when several)."""
    kappas = []
    for batch_id in dict.fromkeys(t.batch for t in tasks):
        kappa = batches[batch_id].kappa
        kappas.append("not measurable" if kappa is None else f"{kappa:.3f}")
    where = "in this batch" if len(kappas) == 1 else "in these batches"
    head = f"inter-rater agreement {join_labels(kappas)} {where}"
    if len(tasks) == 1:
        return f"{head}; {_votes(tasks[0].support, 'support')}, {_votes(tasks[0].reject, 'reject')}"
    parts = [f"{label}: {_votes(t.support, 'support')}, {_votes(t.reject, 'reject')}" for t, label in zip(tasks, labels or [])]
    return f"{head}; " + "; ".join(parts)


def _backing(task: Task) -> int:
    """How many kept votes back the value the crowd vouches for: the CORRECT votes, or those proposing the fix."""
    return task.support if task.verdict == CORRECT else task.fix_votes


class CrowdAnswerer:
    """Answers from crowd data for one KG: a fallback for missing triples, an amender for rejected ones.

    Crowd IRIs that are not KG entities are mapped to KG entities through owl:sameAs
    (the demo KG keeps Wikidata ids that way); single-hop questions only.
    """

    def __init__(self, kg, data: CrowdData):
        self.kg = kg
        self.data = data
        triples = [(task, [t for t in (task.triple, task.corrected()) if t is not None]) for task in data.tasks]
        self.same = self._kg_iris({term.value for _, ts in triples for t in ts for term in t if term.is_iri})
        self.by_property: dict[str, list[Task]] = defaultdict(list)  # property IRI -> tasks asking or fixing it
        for task, ts in triples:
            for prop in dict.fromkeys(t[1].value for t in ts):
                self.by_property[prop].append(task)

    def _kg_iris(self, iris: set[str]) -> dict[str, str]:
        """crowd IRI -> KG IRI (itself when the KG knows it or no owl:sameAs names it)."""
        labels = self.kg.labels
        mapping = {i: i for i in iris}
        unknown = sorted(i for i in iris if labels.label_of(i) is None)
        for start in range(0, len(unknown), 200):
            values = " ".join(iri(i) for i in unknown[start : start + 200])
            same = iri(OWL_SAME_AS)
            rows = self.kg.graph.select(f"SELECT ?x ?e WHERE {{ VALUES ?x {{ {values} }} {{ ?e {same} ?x }} UNION {{ ?x {same} ?e }} }}")
            for row in rows:
                entity = row["e"].value
                if row["e"].is_iri and labels.label_of(entity) is not None:
                    mapping[row["x"].value] = entity
        return mapping

    def _term_key(self, term: Term) -> str:
        return self.same.get(term.value, term.value) if term.is_iri else term.value

    def _label(self, term: Term, kind: str) -> tuple[str, str | None]:
        """(label, KG IRI or None) for the value side of a triple."""
        if not term.is_iri:
            return format_literal(Node(term.value, False), kind), None
        entity = self._term_key(term)
        return self.kg.labels.label_of(entity) or self.kg.bundle.compact(entity), entity

    def _hop(self, understanding: Understanding):
        """(hop, relation, topic, along) for a single-hop question, else None."""
        if len(understanding.chain) != 1 or not understanding.entities:
            return None
        hop: Hop = understanding.chain[0]
        relation = self.kg.bundle.relations.get(hop.relation)
        if relation is None:
            return None
        along = (relation.direction == "forward") == hop.to_value  # the topic is the triple's subject
        return hop, relation, understanding.entities[0], along

    def _value_kind(self, hop: Hop, relation) -> str:
        return relation.kind if hop.to_value else "entity"

    def _find(self, triple, relation, topic_iri: str, along: bool) -> Term | None:
        """The value side of `triple` when it states (topic, relation, value) in the question's direction."""
        if triple is None or triple[1].value != relation.property:
            return None
        anchor, value = (triple[0], triple[2]) if along else (triple[2], triple[0])
        if not anchor.is_iri or self._term_key(anchor) != topic_iri:
            return None
        return value

    def _detail(self, task: Task) -> dict:
        batch = self.data.batches[task.batch]
        return {
            "task": task.hit,
            "batch": task.batch,
            "file": task.file,
            "kappa": batch.kappa,
            "kappa_method": batch.method,
            "votes": {"support": task.support, "reject": task.reject},
            "distribution": task.distribution,
            "removed_votes": task.answers - task.support - task.reject,
            "verdict": task.verdict,
            "fix": {"position": task.fix[0], "value": task.fix[1].value} if task.fix else None,
            "triple": list(task.inputs),
        }

    def fallback(self, understanding: Understanding, facts: Facts) -> Facts | None:
        """The crowd's value(s) for (topic, relation) when the graph has none."""
        found = self._hop(understanding)
        if found is None:
            return None
        hop, relation, topic, along = found
        kind = self._value_kind(hop, relation)
        answers, fact_list, tasks, seen = [], [], [], set()
        for task in self.by_property.get(relation.property, []):
            value = self._find(task.corrected(), relation, topic.iri, along)
            if value is None:
                continue
            label, entity = self._label(value, kind)
            if (entity or label) in seen:
                continue
            seen.add(entity or label)
            answers.append(Answer(label, entity, support=_backing(task)))
            fact_list.append(Fact(topic.iri, topic.label, hop.code, entity or value.value, label, "crowd", self._detail(task)))
            tasks.append(task)
        if not answers:
            return None
        result = Facts("factual", understanding.text, answers, fact_list, understanding.entities, understanding.chain, source="crowd", extra=dict(facts.extra))
        phrase, plural = describe_chain(result, self.kg.bundle)
        labels = [a.label for a in answers]
        note = agreement_note(tasks, self.data.batches, labels)
        result.message = f"According to the crowd, {phrase} {'are' if plural else 'is'} {join_labels(labels)} — {note}."
        return result

    def amend(self, understanding: Understanding, facts: Facts) -> Facts:
        """Replace graph values the crowd voted INCORRECT with the crowd's fix; note rejections without a fix."""
        found = self._hop(understanding) if facts.answers else None
        if found is None:
            return facts
        hop, relation, topic, along = found
        kind = self._value_kind(hop, relation)
        answers, fact_list, changes = [], [], []
        for answer, fact in zip(facts.answers, facts.facts):
            task = self._rejection(relation, topic.iri, along, answer, kind)
            if task is None:
                answers.append(answer)
                fact_list.append(fact)
                continue
            fixed = self._find(task.corrected(), relation, topic.iri, along)
            detail = {**fact.detail, "crowd": self._detail(task)}
            if fixed is None:  # rejected without a usable fix: keep the graph value, say the crowd disagrees
                answers.append(answer)
                fact_list.append(replace(fact, detail=detail))
                changes.append((task, answer.label, None))
                continue
            label, entity = self._label(fixed, kind)
            changes.append((task, answer.label, label))
            if any((a.iri or a.label) == (entity or label) for a in facts.answers):
                continue  # the fixed value is among the graph's answers already
            answers.append(Answer(label, entity, support=_backing(task)))
            fact_list.append(Fact(topic.iri, topic.label, hop.code, entity or fixed.value, label, "crowd", {**detail, "replaces": answer.label}))
        if not changes:
            return facts
        corrected = any(new is not None for _, _, new in changes)
        result = replace(facts, answers=answers, facts=fact_list, source="crowd" if corrected else facts.source, message="")
        result.message = self._amended_sentence(result, changes)
        return result

    def _rejection(self, relation, topic_iri: str, along: bool, answer: Answer, kind: str) -> Task | None:
        """The task whose asked triple is this graph answer and which the crowd voted INCORRECT."""
        for task in self.by_property.get(relation.property, []):
            if task.verdict != INCORRECT:
                continue
            value = self._find(task.triple, relation, topic_iri, along)
            if value is None:
                continue
            if value.is_iri and answer.iri and self._term_key(value) == answer.iri:
                return task
            if not value.is_iri and answer.iri is None and format_literal(Node(value.value, False), kind) == answer.label:
                return task
        return None

    def _fix_clause(self, task: Task) -> str:
        """What the crowd proposed when its fix is not a new value for the question (another subject or relation)."""
        if task.fix is None:
            return ""
        position, term = task.fix
        if position == "predicate":
            relation = next((r for r in self.kg.bundle.relations.values() if r.property == term.value), None)
            return f", saying the relation is {relation.noun if relation else self.kg.bundle.compact(term.value)} instead"
        label, _ = self._label(term, "entity")
        return f", saying the {position} should be {label}"

    def _amended_sentence(self, facts: Facts, changes: list[tuple[Task, str, str | None]]) -> str:
        phrase, _ = describe_chain(facts, self.kg.bundle)
        if len(facts.answers) == 1:
            task, old, new = changes[0]
            note = agreement_note([task], self.data.batches)
            if new is None:
                return f"My knowledge graph says {phrase} is {old}, but the crowd rejected this{self._fix_clause(task)} — {note}."
            return f"According to the crowd, {phrase} is {new}, not {old} as my knowledge graph says — {note}."
        sentences = [template_sentence(facts, self.kg.bundle).text]
        for task, old, new in changes:
            note = agreement_note([task], self.data.batches)
            if new is None:
                sentences.append(f"The crowd rejected {old}{self._fix_clause(task)} — {note}.")
            else:
                sentences.append(f"According to the crowd, {new} replaces {old} — {note}.")
        return " ".join(sentences)


def install(agent) -> None:
    """Answer from the bundle's crowd files when the graph has no triple, and apply the crowd's fixes."""
    bundle = agent.kg.bundle
    if not bundle.crowd_files:
        return
    rules = FilterRules.from_settings(agent.settings)
    cache_dir = Path(agent.settings.cache_dir).expanduser()
    try:
        # cached by the files' contents and the rules: parsing and statsmodels cost seconds at every start
        key = combine(CROWD_VERSION, repr(rules), json.dumps(bundle.prefixes, sort_keys=True),
                      *(file_digest(Path(f), cache_dir) for f in bundle.crowd_files))
        data = pickled(agent.kg.folder, "crowd", key, lambda: load_crowd(bundle.crowd_files, bundle.prefixes, rules))
    except CrowdFileError as exc:
        log.error("crowd answers are off: %s", exc)
        return
    if data.problems:
        log.warning("crowd files: %d problem(s), e.g. %s", len(data.problems), "; ".join(map(str, data.problems[:3])))
    answerer = CrowdAnswerer(agent.kg, data)
    agent.fallbacks.append(answerer.fallback)
    agent.amenders.append(answerer.amend)


def print_report(data: CrowdData, console) -> None:
    """Per-batch kappa, what the filter rules removed, and worker engagement, as rich tables."""
    from rich.table import Table

    batches = Table(title="Batches (Fleiss' kappa over the kept votes)")
    for column in ("batch", "tasks", "answers", "kept", "workers kept", "kappa", "kappa unfiltered", "method"):
        batches.add_column(column, justify="left" if column in ("batch", "method") else "right")
    for b in data.batches.values():
        kappa = "—" if b.kappa is None else f"{b.kappa:.3f}"
        unfiltered = "—" if b.kappa_unfiltered is None else f"{b.kappa_unfiltered:.3f}"
        batches.add_row(b.id, str(b.tasks), str(b.answers), str(b.kept), f"{len(b.kept_workers)}/{len(b.workers)}", kappa, unfiltered, b.method)
    console.print(batches)

    rules = Table(title="Filter rules")
    rules.add_column("rule")
    rules.add_column("removes")
    rules.add_column("answers removed", justify="right")
    for name, text in data.rules.describe().items():
        rules.add_row(name, text, str(data.removed_by_rule.get(name, 0)))
    rules.add_row("total", "answers breaking any rule", str(len(data.votes) - len(data.kept)))
    console.print(rules)

    verdicts = Counter(t.verdict for t in data.tasks)
    console.print(
        f"tasks: {len(data.tasks)}  correct: {verdicts[CORRECT]}  incorrect: {verdicts[INCORRECT]}  tie: {verdicts[TIE]}  "
        f"with a majority fix: {sum(t.fix is not None for t in data.tasks)}"
    )

    workers = Table(title="Workers")
    for column in ("worker", "answers", "kept", "batches", "median s", "approval", "earned", "fixes", "incorrect share"):
        workers.add_column(column, justify="left" if column in ("worker", "batches") else "right")
    for w in data.worker_stats():
        workers.add_row(
            w["worker"], str(w["answers"]), str(w["kept"]), ",".join(w["batches"]),
            "—" if w["median_seconds"] is None else f"{w['median_seconds']:g}",
            "—" if w["approval"] is None else f"{w['approval']:g}%",
            f"${w['earned']:.2f}", str(w["fixes_proposed"]), f"{w['incorrect_share']:.0%}",
        )  # fmt: skip
    console.print(workers)

    e = data.engagement()
    console.print(
        f"engagement: {e['workers']} workers ({e['workers_fully_removed']} fully filtered out), {e['answers']} answers "
        f"({e['answers_kept']} kept), median {e['answers_per_worker_median']} answers per worker (max {e['answers_per_worker_max']}), "
        f"median work time {e['median_work_seconds']} s, {e['total_work_hours']} h in all, ${e['total_reward']:.2f} paid; "
        f"{e['incorrect_votes_with_fix']} of {e['incorrect_votes']} INCORRECT votes proposed a fix"
    )
    if data.problems:
        console.print(f"[yellow]{len(data.problems)} problem(s):[/yellow]")
        for problem in data.problems:
            console.print(f"  {problem}", highlight=False)

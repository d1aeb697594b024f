#!/usr/bin/env python3
"""Generate the simulated crowd-sourcing file crowd/demo_crowd.tsv for the demo KG.

The file uses the course's 16-column TSV format. Every answer in it is simulated:
the tasks (triples to verify) are chosen by hand below, the workers and their
answers are drawn from a seeded random generator, so the output is the same on
every run. The tasks cover

* facts the demo KG lacks (the crowd supplies them),
* correct facts the demo KG has (the crowd confirms them, with some noise),
* the deliberately wrong triples of kg/deliberate_errors.ttl and one other
  wrong claim (the crowd votes INCORRECT and gives the correct value as fix).

Careless or malicious workers (approval rate below 50 %, a few seconds per
task) answer CORRECT to everything and fill the fix columns with junk; the
generator checks that the majority of all answers is still the true one and
that every wrong triple gets at least one fix from a careful worker.

Usage::

    python scripts/make_demo_crowd.py [--out crowd/demo_crowd.tsv]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SEED = 38
TITLE = "Is this triple correct or incorrect?"
REWARD = "$0.50"
HEADER = ["HITId", "HITTypeId", "Title", "Reward", "AssignmentId", "WorkerId",
          "AssignmentStatus", "WorkTimeInSeconds", "LifetimeApprovalRate", "Input1ID",
          "Input2ID", "Input3ID", "AnswerID", "AnswerLabel", "FixPosition", "FixValue"]
ANSWERS = {True: ("1", "CORRECT"), False: ("2", "INCORRECT")}


@dataclass(frozen=True)
class Task:
    """One triple to verify, its true status and (if wrong) the fix."""

    subject: str
    predicate: str
    obj: str
    correct: bool
    fix_position: str = ""
    fix_value: str = ""


# batch (HITTypeId) -> tasks
BATCHES: dict[str, list[Task]] = {
    "3DK": [
        # facts the demo KG lacks
        Task("mb:film-the-princess-and-the-frog", "wdt:P2142", "267000000", True),
        Task("mb:film-tom-meets-zizou", "wdt:P577", "2010", True),
        # deliberate error: wrong year
        Task("mb:film-the-lion-king-1994", "wdt:P577", "1993", False, "Object", "1994"),
        # facts the demo KG has
        Task("mb:film-good-will-hunting", "wdt:P2142", "225933435", True),
        Task("mb:film-star-wars", "wdt:P577", "1977-05-25", True),
    ],
    "4DK": [
        # deliberate errors
        Task("mb:film-x-men-first-class", "wdt:P1431", "mb:person-bryan-singer", False,
             "Predicate", "wdt:P162"),
        Task("mb:film-good-will-hunting", "wdt:P344", "mb:person-gordon-willis", False,
             "Object", "mb:person-jean-yves-escoffier"),
        Task("mb:film-psycho-1960", "wdt:P86", "mb:person-ennio-morricone", False,
             "Object", "mb:person-bernard-herrmann"),
        # facts the demo KG has
        Task("mb:film-x-men-first-class", "wdt:P57", "mb:person-matthew-vaughn", True),
        Task("mb:film-the-princess-and-the-frog", "wdt:P161", "mb:person-anika-noni-rose", True),
    ],
    "5DK": [
        Task("mb:film-weathering-with-you", "wdt:P57", "mb:person-makoto-shinkai", True),
        Task("mb:film-the-masked-gang-cyprus", "wdt:P364", "mb:language-turkish", True),
        Task("mb:film-hamlet-1996", "wdt:P144", "mb:work-hamlet", True),
        Task("mb:film-othello-1995", "wdt:P161", "mb:person-kenneth-branagh", True),
        # a wrong claim that is in no graph: the crowd rejects it
        Task("mb:film-a-nightmare-on-elm-street-1984", "wdt:P57", "mb:person-john-carpenter", False,
             "Object", "mb:person-wes-craven"),
    ],
}


@dataclass(frozen=True)
class Worker:
    """A simulated crowd worker."""

    worker_id: str
    approval: int        # lifetime approval rate in percent
    careless: bool       # answers CORRECT to everything within seconds
    error_rate: float    # chance that a careful worker gets a task wrong


def make_workers(rng: random.Random) -> list[Worker]:
    """Six careful workers of varying reliability and two careless ones."""
    def new_id() -> str:
        return "".join(rng.choices(string.digits, k=4)) + "".join(
            rng.choices(string.ascii_uppercase + string.digits, k=rng.randint(5, 7)))
    careful = [(99, 0.0), (98, 0.05), (96, 0.05), (88, 0.1), (81, 0.15), (74, 0.2)]
    workers = [Worker(new_id(), approval, False, err) for approval, err in careful]
    workers += [Worker(new_id(), approval, True, 1.0) for approval in (41, 37)]
    return workers


def answer(task: Task, worker: Worker, rng: random.Random) -> tuple[bool, str, str, int]:
    """Return (says correct, fix position, fix value, work time in seconds)."""
    if worker.careless:
        junk = rng.choice([("", ""), ("yes", "yes"), ("ok", "ok")])
        return True, junk[0], junk[1], rng.randint(2, 8)
    seconds = rng.randint(35, 300)
    right = rng.random() >= worker.error_rate
    says_correct = task.correct if right else not task.correct
    if says_correct or not right:
        return says_correct, "", "", seconds
    if rng.random() < 0.85:
        return False, task.fix_position, task.fix_value, seconds
    return False, "", "", seconds


def generate() -> list[list[str]]:
    """Build all rows (without the header), deterministically."""
    rng = random.Random(SEED)
    workers = make_workers(rng)
    careful = [w for w in workers if not w.careless]
    careless = [w for w in workers if w.careless]
    rows, hit_id, assignment_id = [], 0, 0
    for hit_type, tasks in BATCHES.items():
        for task in tasks:
            hit_id += 1
            chosen = rng.sample(careful, rng.randint(3, 4)) + rng.sample(careless, rng.randint(0, 1))
            rng.shuffle(chosen)
            votes, fixes = [], 0
            for worker in chosen:
                assignment_id += 1
                says_correct, fix_pos, fix_val, seconds = answer(task, worker, rng)
                votes.append(says_correct)
                fixes += bool(fix_val) and not worker.careless
                answer_id, label = ANSWERS[says_correct]
                rows.append([str(hit_id), hit_type, TITLE, REWARD, str(assignment_id),
                             worker.worker_id, "Submitted", str(seconds), f"{worker.approval}%",
                             task.subject, task.predicate, task.obj, answer_id, label,
                             fix_pos, fix_val])
            if 2 * sum(v == task.correct for v in votes) <= len(votes) or (
                    not task.correct and not fixes):
                raise SystemExit(f"seed {SEED}: no clear majority or no fix for HIT {hit_id}; "
                                 "choose another seed")
    return rows


def main(argv: list[str] | None = None) -> int:
    """Write the TSV file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "crowd" / "demo_crowd.tsv")
    args = parser.parse_args(argv)
    rows = generate()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="") as fh:
        for row in [HEADER] + rows:
            fh.write("\t".join(row) + "\n")
    print(f"make_demo_crowd: {len(rows)} answers to "
          f"{sum(len(t) for t in BATCHES.values())} tasks -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The crowd report: per-batch Fleiss' kappa, what each filter rule removed, and worker engagement."""

from __future__ import annotations

from collections import Counter

from bot.answering.crowd.aggregate import CrowdData
from bot.answering.crowd.votes import CORRECT, INCORRECT, TIE


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

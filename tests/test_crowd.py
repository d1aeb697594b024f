"""Crowd files: reading, worker filtering, majority votes, Fleiss' kappa, and answers from the crowd."""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict

import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa
from typer.testing import CliRunner

from bot.agent import Agent
from bot.answering.crowd.aggregate import FilterRules, aggregate, fleiss_kappa, load_crowd
from bot.answering.crowd.votes import COLUMNS, CORRECT, INCORRECT, TIE, Term, read_votes, resolve_term
from bot.cli import app
from bot.core.config import Settings
from bot.core.errors import CrowdFileError

from conftest import BOX_OFFICE, CAST, CHEAP_FEATURES, DATE, DIRECTOR, GENRE, bundle_toml, shared_path

PREFIXES = {
    "wd": "http://www.wikidata.org/entity/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "ddis": "http://ddis.ch/atai/",
}
WD = PREFIXES["wd"]


def row(hit, worker, label, seconds=60, approval="95%", inputs=("wd:Q1", "wdt:P57", "wd:Q2"), batch="B1", fix=("", "")):
    answer_id = {"CORRECT": "1", "INCORRECT": "2"}.get(label, "")
    return [hit, batch, "Is this triple correct or incorrect?", "$0.50", f"{hit}-{worker}", worker, "Submitted",
            str(seconds), approval, *inputs, answer_id, label, *fix]  # fmt: skip


def write_tsv(path, rows, newline="\n"):
    lines = ["\t".join(COLUMNS)] + ["\t".join(r) for r in rows]
    path.write_bytes(newline.join(lines).encode("utf-8"))
    return path


# ------------------------------------------------------------------ reading


def test_terms_resolve_through_prefixes_and_malformed_iris_are_refused():
    assert resolve_term("wd:Q171300", PREFIXES, "subject") == Term(WD + "Q171300", True)
    assert resolve_term("Q908556", PREFIXES, "subject") == Term(WD + "Q908556", True)
    assert resolve_term("P58", PREFIXES, "predicate") == Term(PREFIXES["wdt"] + "P58", True)
    assert resolve_term("ddis:indirectSubclassOf", PREFIXES, "predicate").value == "http://ddis.ch/atai/indirectSubclassOf"
    assert resolve_term("267000000", PREFIXES, "object") == Term("267000000", False)
    assert resolve_term("2010-10-01", PREFIXES, "object") == Term("2010-10-01", False)
    for text, position in [("wdt:.P344", "predicate"), ("wd:Q1 2", "object"), ("42", "subject"), ("foo:bar", "predicate"), ("", "object")]:
        with pytest.raises(ValueError):
            resolve_term(text, PREFIXES, position)


def test_windows_and_unix_line_endings_read_the_same(tmp_path):
    rows = [row("1", "w1", CORRECT), row("1", "w2", INCORRECT, fix=("Object", "Q3")), row("2", "w1", INCORRECT, fix=("", ""))]
    unix, _ = read_votes(write_tsv(tmp_path / "unix.tsv", rows))
    windows, _ = read_votes(write_tsv(tmp_path / "windows.tsv", rows, "\r\n"))
    strip = lambda votes: [(v.hit, v.worker, v.label, v.seconds, v.approval, v.reward, v.fix_position, v.fix_value) for v in votes]  # noqa: E731
    assert strip(unix) == strip(windows)
    assert strip(unix)[1] == ("1", "w2", INCORRECT, 60.0, 95.0, 0.5, "Object", "Q3")
    assert strip(unix)[2][-2:] == ("", "")


def test_bad_rows_are_reported_and_skipped_not_fatal(tmp_path):
    rows = [row("1", "w1", CORRECT), row("1", "w2", "MAYBE"), row("1", "w3", CORRECT)[:10], row("1", "w4", CORRECT, seconds="fast")]
    votes, problems = read_votes(write_tsv(tmp_path / "bad.tsv", rows))
    assert [v.worker for v in votes] == ["w1", "w4"]
    assert votes[1].seconds is None
    messages = " | ".join(p.message for p in problems)
    assert "MAYBE" in messages and "columns" in messages and "WorkTimeInSeconds" in messages
    assert [p.line for p in problems] == [3, 4, 5]


def test_a_file_without_the_crowd_columns_is_an_error(tmp_path):
    path = tmp_path / "other.tsv"
    path.write_text("a\tb\n1\t2\n", encoding="utf-8")
    with pytest.raises(CrowdFileError, match="HITTypeId"):
        read_votes(path)


# ------------------------------------------------------------------ filtering and aggregation


def synthetic_votes(tmp_path):
    rows = [
        # task 1: 2 careful CORRECT, 1 careful INCORRECT, 2 careless INCORRECT (fast / low approval)
        row("1", "a", CORRECT), row("1", "b", CORRECT), row("1", "c", INCORRECT),
        row("1", "fast", INCORRECT, seconds=2), row("1", "spam", INCORRECT, approval="30%"),
        # task 2: a tie among the kept votes
        row("2", "a", CORRECT), row("2", "b", INCORRECT), row("2", "fast", CORRECT, seconds=3),
        # task 3: INCORRECT, two of three fixes agree
        row("3", "a", INCORRECT, fix=("Object", "Q9")), row("3", "b", INCORRECT, fix=("Object", "wd:Q9")),
        row("3", "c", INCORRECT, fix=("Object", "Q8")), row("3", "spam", CORRECT, approval="30%"),
        # task 4: INCORRECT, fixes tie; junk fix positions ignored
        row("4", "a", INCORRECT, fix=("Object", "Q7")), row("4", "b", INCORRECT, fix=("Object", "Q6")),
        row("4", "c", INCORRECT, fix=("yes", "yes")),
    ]  # fmt: skip
    votes, problems = read_votes(write_tsv(tmp_path / "s.tsv", rows))
    assert not problems
    return votes


def test_rules_remove_careless_answers_and_count_per_rule(tmp_path):
    data = aggregate(synthetic_votes(tmp_path), PREFIXES, FilterRules(min_work_seconds=5, min_approval=50))
    assert data.removed_by_rule == {"work_time": 2, "approval": 2, "status": 0}
    assert len(data.kept) == len(data.votes) - 4
    lenient = aggregate(synthetic_votes(tmp_path), PREFIXES, FilterRules(min_work_seconds=1, min_approval=10))
    assert lenient.removed_by_rule == {"work_time": 0, "approval": 0, "status": 0}


def test_majority_votes_ties_and_fixes(tmp_path):
    data = aggregate(synthetic_votes(tmp_path), PREFIXES, FilterRules())
    tasks = {t.hit: t for t in data.tasks}
    assert (tasks["1"].verdict, tasks["1"].distribution) == (CORRECT, {CORRECT: 2, INCORRECT: 1})
    assert tasks["1"].corrected() == tasks["1"].triple
    assert tasks["2"].verdict == TIE and tasks["2"].corrected() is None
    assert (tasks["3"].fix, tasks["3"].fix_votes) == (("object", Term(WD + "Q9", True)), 2)  # "Q9" and "wd:Q9" agree
    assert tasks["3"].corrected() == (Term(WD + "Q1", True), Term(PREFIXES["wdt"] + "P57", True), Term(WD + "Q9", True))
    assert tasks["4"].verdict == INCORRECT and tasks["4"].fix is None and tasks["4"].corrected() is None
    assert tasks["4"].unusable_fixes == 1
    # verdicts come from the votes kept under the rules in force: keeping the careless votes flips task 1
    everything = aggregate(synthetic_votes(tmp_path), PREFIXES, FilterRules(min_work_seconds=0, min_approval=0))
    assert {t.hit: t for t in everything.tasks}["1"].verdict == INCORRECT


def test_fleiss_kappa_matches_statsmodels_and_handles_unequal_and_degenerate_tables():
    table = np.array([[3, 0], [2, 1], [0, 3], [1, 2], [3, 0]])
    kappa, method = fleiss_kappa(table)
    assert kappa == pytest.approx(sm_fleiss_kappa(table)) and method == "fleiss"
    unequal = np.array([[3, 0], [1, 1], [0, 4], [2, 1]])
    n = unequal.sum(1)
    p = unequal.sum(0) / unequal.sum()
    expected = (((unequal**2).sum(1) - n) / (n * (n - 1))).mean()
    assert fleiss_kappa(unequal)[0] == pytest.approx((expected - (p**2).sum()) / (1 - (p**2).sum()))
    assert fleiss_kappa([[3, 0], [2, 0]])[0] is None
    assert fleiss_kappa([[1, 0]])[0] is None


# ------------------------------------------------------------------ the real course file


def hand_kappa(counts: list[tuple[int, int]]) -> float:
    """Fleiss (1971) written out: mean per-task agreement against chance agreement from the category shares."""
    n = sum(counts[0])
    assert all(sum(c) == n for c in counts)
    total = n * len(counts)
    shares = [sum(c[j] for c in counts) / total for j in range(2)]
    agreement = sum((c[0] * (c[0] - 1) + c[1] * (c[1] - 1)) / (n * (n - 1)) for c in counts) / len(counts)
    chance = sum(s * s for s in shares)
    return (agreement - chance) / (1 - chance)


@pytest.fixture(scope="module")
def course_file():
    return shared_path("atai", "crowd_data.tsv")


@pytest.fixture(scope="module")
def course_data(course_file):
    return load_crowd([course_file], PREFIXES)


def test_course_file_is_read_with_the_malformed_iri_reported(course_data):
    assert len(course_data.votes) == 305
    assert len(course_data.tasks) == 61
    assert sorted(course_data.batches) == ["7QT", "8QT", "9QT"]
    malformed = [p for p in course_data.problems if "wdt:.P344" in p.message]
    assert len(malformed) == 1
    bad_task = next(t for t in course_data.tasks if t.inputs[1] == "wdt:.P344")
    assert bad_task.triple is None and bad_task.corrected() is None


def test_course_kappa_per_batch_agrees_with_an_independent_computation(course_file, course_data):
    with open(course_file, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    counts: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for r in rows:
        if int(r["WorkTimeInSeconds"]) >= 5 and float(r["LifetimeApprovalRate"].rstrip("%")) >= 50:
            counts[r["HITTypeId"]][r["HITId"]][r["AnswerLabel"]] += 1
    for batch_id, tasks in counts.items():
        table = [(c["CORRECT"], c["INCORRECT"]) for c in tasks.values()]
        assert course_data.batches[batch_id].kappa == pytest.approx(hand_kappa(table), abs=1e-12)
    assert round(course_data.batches["7QT"].kappa, 3) == 0.236  # the value the issue quotes
    removed = len(rows) - sum(sum(c.values()) for tasks in counts.values() for c in tasks.values())
    assert len(course_data.votes) - len(course_data.kept) == removed


def test_course_report_command(course_file, mini_bundle):
    result = CliRunner().invoke(app, ["crowd", "report", str(course_file), "--kg", str(mini_bundle), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert {b["batch"]: round(b["kappa"], 3) for b in report["batches"]}["7QT"] == 0.236
    assert report["removed_by_rule"]["work_time"] > 0 and report["removed_by_rule"]["approval"] > 0
    assert report["engagement"]["workers"] == len(report["workers"]) == 13
    text = CliRunner().invoke(app, ["crowd", "report", str(course_file), "--kg", str(mini_bundle), "--min-seconds", "0", "--min-approval", "0"])
    assert text.exit_code == 0 and "7QT" in text.output and "Workers" in text.output and "work time below 0 s" in text.output
    missing = CliRunner().invoke(app, ["crowd", "report", str(course_file.parent / "nope.tsv"), "--kg", str(mini_bundle)])
    assert missing.exit_code == 1 and "does not exist" in missing.output


# ------------------------------------------------------------------ answering from the course file

CROWD_TTL = r"""
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix t: <http://test.invalid/> .

t:frog wdt:P31 wd:Q11424 ; rdfs:label "The Princess and the Frog"@en ; owl:sameAs wd:Q171300 ; wdt:P57 t:musker .
t:musker wdt:P31 wd:Q5 ; rdfs:label "John Musker"@en .
wd:Q598752 wdt:P31 wd:Q11424 ; rdfs:label "Valley of Echoes"@en ; wdt:P577 "2001-01-01"^^xsd:date ; wdt:P57 t:musker .
wd:Q4993462 wdt:P31 wd:Q11424 ; rdfs:label "Quiet Orchard"@en ; wdt:P577 "2008-08-29"^^xsd:date .
wd:Q639070 wdt:P31 wd:Q11424 ; rdfs:label "Harbor of Lights"@en ; wdt:P161 wd:Q2865083, t:vera .
wd:Q908556 wdt:P31 wd:Q11424 ; rdfs:label "Paper Lanterns"@en ; wdt:P57 t:musker .
wd:Q2865083 wdt:P31 wd:Q5 ; rdfs:label "Lena Marlowe"@en .
wd:Q5423258 wdt:P31 wd:Q5 ; rdfs:label "Oskar Brandt"@en .
wd:Q17386547 wdt:P31 wd:Q5 ; rdfs:label "Mira Castell"@en .
t:vera wdt:P31 wd:Q5 ; rdfs:label "Vera Holm"@en .
wd:Q2893887 wdt:P31 wd:Q11424 ; rdfs:label "Northern Tide"@en ; wdt:P161 wd:Q105825 .
wd:Q105825 wdt:P31 wd:Q5 ; rdfs:label "Ivo Stern"@en .
wd:Q6548158 wdt:P31 wd:Q11424 ; rdfs:label "Amber Fields"@en ; wdt:P136 wd:Q33999 .
wd:Q33999 wdt:P31 wd:Q201658 ; rdfs:label "stage drama"@en .
"""




@pytest.fixture(scope="module")
def crowd_agent(course_file, tmp_path_factory, cache_dir):
    folder = tmp_path_factory.mktemp("crowdtest")
    (folder / "graph.ttl").write_text(CROWD_TTL, encoding="utf-8")
    toml = bundle_toml(
        "crowdtest",
        {"genre": GENRE, "director": DIRECTOR, "cast_member": CAST, "publication_date": DATE, "box_office": BOX_OFFICE},
        crowd=f'["{course_file}"]',
    )
    (folder / "bundle.toml").write_text(toml, encoding="utf-8")
    return Agent.from_settings(Settings(kg=str(folder), cache_dir=str(cache_dir), features=CHEAP_FEATURES))


def test_missing_triple_is_answered_from_the_crowd(crowd_agent):
    reply = crowd_agent.answer("What is the box office of The Princess and the Frog?")
    assert reply.text == (
        "According to the crowd, the box office of The Princess and the Frog is 267,000,000 — "
        "inter-rater agreement 0.236 in this batch; 2 support votes, 1 reject vote."
    )
    assert reply.answers == ["267,000,000"]
    (fact,) = reply.facts
    assert fact.source == "crowd"
    assert fact.detail["kappa"] == pytest.approx(0.2363636, abs=1e-6)
    assert fact.detail["distribution"] == {"CORRECT": 2, "INCORRECT": 1}
    assert fact.detail["removed_votes"] == 2 and fact.detail["batch"] == "7QT"


def test_a_triple_voted_incorrect_is_replaced_by_the_crowds_fix(crowd_agent):
    reply = crowd_agent.answer("When was Valley of Echoes published?")
    assert reply.answers == ["1 January 2011"]
    assert reply.text.startswith("According to the crowd, the release date of Valley of Echoes is 1 January 2011, not 1 January 2001 as my knowledge graph says")
    assert "0 support votes, 3 reject votes" in reply.text
    assert reply.facts[0].source == "crowd" and reply.facts[0].detail["crowd"]["fix"]["value"] == "2011-01-01"


def test_an_entity_fix_replaces_one_value_of_a_list(crowd_agent):
    reply = crowd_agent.answer("Who acted in Harbor of Lights?")
    assert sorted(reply.answers) == ["Oskar Brandt", "Vera Holm"]
    assert "According to the crowd, Oskar Brandt replaces Lena Marlowe — inter-rater agreement 0.040" in reply.text
    assert [f.source for f in reply.facts if f.value_label == "Oskar Brandt"] == ["crowd"]


def test_a_rejection_without_a_fix_reports_the_value_as_disputed_not_as_the_answer(crowd_agent):
    reply = crowd_agent.answer("When was Quiet Orchard released?")
    assert reply.answers == []
    assert reply.text.startswith("My knowledge graph says the release date of Quiet Orchard is 29 August 2008")
    assert "the crowd rejected this" in reply.text and "0 support votes, 3 reject votes" in reply.text


def test_a_rejection_with_a_fix_elsewhere_says_what_the_crowd_proposed(crowd_agent):
    reply = crowd_agent.answer("Who acted in Northern Tide?")
    assert reply.answers == [] and "Ivo Stern" in reply.text
    assert "the crowd rejected this, saying the subject should be wd:Q1168152" in reply.text
    reply = crowd_agent.answer("What is the genre of Amber Fields?")
    assert "the crowd rejected this, saying the relation is wdt:P106 instead" in reply.text


def test_a_subject_fix_answers_for_the_fixed_subject(crowd_agent):
    reply = crowd_agent.answer("Who acted in Paper Lanterns?")
    assert reply.answers == ["Mira Castell"]
    assert reply.text.startswith("According to the crowd,") and "8QT" not in reply.text


def test_no_crowd_task_leaves_the_graph_answer_alone(crowd_agent):
    assert crowd_agent.answer("Who directed Paper Lanterns?").text == "Paper Lanterns was directed by John Musker."
    assert crowd_agent.answer("What is the box office of Valley of Echoes?").answers == []

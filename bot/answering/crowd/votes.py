"""Reading crowd files: the course's 16-column TSV, one row per worker answer to "Is this triple correct?".

Rows that cannot be used are reported (file, line, reason) and skipped; a file that is not
in the format at all raises CrowdFileError. Triple terms are CURIEs with the bundle's
prefixes, bare Wikidata ids, IRIs or literal values.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from bot.core.errors import CrowdFileError
from bot.kg.bundle import is_safe_iri

COLUMNS = (
    "HITId", "HITTypeId", "Title", "Reward", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds",
    "LifetimeApprovalRate", "Input1ID", "Input2ID", "Input3ID", "AnswerID", "AnswerLabel", "FixPosition", "FixValue",
)  # fmt: skip
CORRECT, INCORRECT = "CORRECT", "INCORRECT"
CATEGORIES = (CORRECT, INCORRECT)
ANSWER_IDS = {"1": CORRECT, "2": INCORRECT}
POSITIONS = ("subject", "predicate", "object")
TIE = "TIE"
# Bare Wikidata ids (FixValue "Q908556", "P58") name entities and direct properties.
WIKIDATA_NS = {"Q": "http://www.wikidata.org/entity/", "P": "http://www.wikidata.org/prop/direct/"}
_BARE_ID = re.compile(r"^([QP])\d+$")
_CURIE = re.compile(r"^([A-Za-z][\w.-]*):(.*)$")
_LOCAL = re.compile(r"^[A-Za-z0-9_](?:[\w.-]*[\w-])?$")  # a CURIE local name: no leading or trailing dot



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

"""Example questions for the chatroom's empty room, read from the README's "What can I ask?" table.

The table is the one list of what the bot can be asked: the page shows its rows instead of a
copy that would drift from it. It is read when the chatroom starts, from the README next to the
package in a checkout, else from the installed package's metadata (the README is the project's
long description, so a wheel carries it too). Rows whose feature the running bot lacks (pictures
without an images index, crowd answers without a crowd file, ...) are left out, and so are
examples that need a conversation ("… → And who wrote it?") or are code (a SPARQL query).
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
from pathlib import Path

log = logging.getLogger(__name__)

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## What can I ask?"
# the table's rows that only a feature answers -> that feature's name (bot/features.py; "sparql" is the agent's own)
ROW_NEEDS = {"recommendations": "recommend", "embeddings": "embeddings", "crowd answers": "crowd", "pictures": "images",
             "a SPARQL query": "sparql"}
NOTE = re.compile(r"\s*\([^()]*\)\s*$")  # "(without a year the bot asks which one)"


def readme_text() -> str:
    """The README: the checkout's file, else the installed package's long description ("" when neither is there)."""
    if README.is_file():
        return README.read_text(encoding="utf-8")
    try:
        return importlib.metadata.metadata("moviebot").get_payload() or ""
    except importlib.metadata.PackageNotFoundError:
        return ""


def table_rows(readme: str) -> list[tuple[str, str]]:
    """(kind, examples) of each row of the "What can I ask?" table."""
    lines = readme.splitlines()
    try:
        start = lines.index(SECTION) + 1
    except ValueError:
        return []
    rows: list[tuple[str, str]] = []
    for line in lines[start:]:
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            continue
        kind, _, examples = line.strip().strip("|").partition("|")
        kind, examples = kind.strip(), examples.strip()
        if kind in ("kind", "") or set(examples) <= set("-: "):  # the head and the rule under it
            continue
        rows.append((kind, examples))
    return rows


def example_questions(offers: dict, readme: str | None = None) -> list[dict[str, str]]:
    """One question per row the running bot answers ({"kind", "question"}), in the table's order. `offers` is
    `Agent.offers()`: the features that add something, by name."""
    found = []
    for kind, examples in table_rows(readme_text() if readme is None else readme):
        needs = ROW_NEEDS.get(kind)
        if needs is not None and needs not in offers:
            continue
        for example in examples.split(" / "):
            question = NOTE.sub("", example).strip()
            if question and "→" not in question and "`" not in question:
                found.append({"kind": kind, "question": question})
                break
    if not found:
        log.info("no example questions: the README's %r table was not found", SECTION)
    return found


def examples_for(agent) -> list[dict[str, str]]:
    """The table's examples this bot answers: its features offer the row's kind, and it reads the question on its KG
    (every name found). On another KG than the demo, a film it lacks would greet a new user with a failure."""
    from bot.core.kinds import Kind

    kept = []
    for example in example_questions(agent.offers()):
        understanding = agent.understander.understand(example["question"])
        if understanding.kind is not Kind.UNKNOWN and not understanding.not_found:
            kept.append(example)
    return kept

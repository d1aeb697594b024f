"""Results of a SPARQL query typed into the chat, worded the way the chatroom shows them best.

One value is a sentence; more are one result a line under a head line that says how many there
are (the web chatroom shows the lines as a list under the head): a few results with several
columns as "name: value" pairs, more as a compact table with "|" between the columns and the
column names in the head line. IRIs
show their KG label where there is one, with the IRI abbreviated by the known prefixes, so a
Wikidata id reads "David Lean (wd:Q55260)" and the chatroom turns the id into a link.
Triples (CONSTRUCT, DESCRIBE) are written as abbreviated N-Triples, labels in a comment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.kg.store import Node

LIST_ROWS = 8  # up to this many results are a list; more are a table
LIST_COLUMNS = 3  # results with more columns are a table even when few
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_LOCAL_NAME = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$")

Label = Callable[[str], "str | None"]  # IRI -> its KG label


@dataclass
class Shown:
    """The reply text and one answer string per result shown."""

    text: str
    answers: list[str]


def compact(iri: str, prefixes: dict[str, str]) -> str:
    """The IRI as prefix:local with the longest matching namespace, or <iri>."""
    best = None
    for prefix, namespace in prefixes.items():
        if iri.startswith(namespace) and _LOCAL_NAME.match(iri[len(namespace):]) and (best is None or len(namespace) > len(best[1])):
            best = (prefix, namespace)
    return f"{best[0]}:{iri[len(best[1]):]}" if best else f"<{iri}>"


def cell(node: Node | None, label: Label, prefixes: dict[str, str]) -> str:
    """One value as people read it: a label with its abbreviated IRI, a literal's text, "—" when unbound."""
    if node is None:
        return "—"
    if node.is_iri:
        name = compact(node.value, prefixes)
        text = label(node.value)
        return f"{text} ({name})" if text else name
    if node.datatype == "bnode":
        return f"_:{node.value}"
    return node.value


def n3(node: Node | None, prefixes: dict[str, str]) -> str:
    """A term in abbreviated N-Triples/Turtle form."""
    if node is None:
        return "[]"
    if node.is_iri:
        return compact(node.value, prefixes)
    if node.datatype == "bnode":
        return f"_:{node.value}"
    if node.datatype == "triple":
        return f"<< {node.value} >>"
    escaped = node.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    if node.lang:
        return f'"{escaped}"@{node.lang}'
    if node.datatype and node.datatype not in (XSD_STRING, LANG_STRING):
        return f'"{escaped}"^^{compact(node.datatype, prefixes)}'
    return f'"{escaped}"'


def count_phrase(total: int, complete: bool, noun: str, plural: str) -> str:
    """'1 result', '12 results', 'at least 100,000 results' (counting stopped early)."""
    if not complete:
        return f"at least {total:,} {plural}"
    return f"{total:,} {noun if total == 1 else plural}"


def _head(total: int, complete: bool, shown: int, verb: str, noun: str, plural: str, columns: str = "") -> str:
    """The line above the results; the web chatroom shows it above the results as a list."""
    counted = count_phrase(total, complete, noun, plural)
    part = f"; here are the first {shown:,}" if shown < total or not complete else ""
    return f"The query {verb} {counted}{part}{f' ({columns})' if columns else ''}:"


def select_text(variables: list[str], rows: list[list[Node | None]], total: int, complete: bool,
                label: Label, prefixes: dict[str, str]) -> Shown:
    """The reply for SELECT results (rows hold one cell per variable), one result a line."""
    if not rows:
        return Shown("The query found no results.", [])
    cells = [[cell(node, label, prefixes) for node in row] for row in rows]
    if len(rows) == 1 and complete and total == 1:
        if len(variables) == 1:
            return Shown(f"The result is {cells[0][0]}.", [cells[0][0]])
        pairs = "; ".join(f"{var}: {value}" for var, value in zip(variables, cells[0], strict=True))
        return Shown(f"The query found one result: {pairs}.", [pairs])
    if len(variables) == 1:
        items = [row[0] for row in cells]
        head = _head(total, complete, len(rows), "found", "result", "results", f"?{variables[0]}")
    elif len(rows) <= LIST_ROWS and len(variables) <= LIST_COLUMNS:
        items = ["; ".join(f"{v}: {c}" for v, c in zip(variables, row, strict=True)) for row in cells]
        head = _head(total, complete, len(rows), "found", "result", "results")
    else:
        items = [" | ".join(row) for row in cells]
        head = _head(total, complete, len(rows), "found", "result", "results", " | ".join(f"?{v}" for v in variables))
    return Shown(head + "\n" + "\n".join(items), items)


def ask_text(answer: bool) -> Shown:
    if answer:
        return Shown("Yes: the knowledge graph has a match for the pattern.", ["yes"])
    return Shown("No: nothing in the knowledge graph matches the pattern.", ["no"])


def triples_text(triples: list[list[Node | None]], total: int, complete: bool, label: Label, prefixes: dict[str, str]) -> Shown:
    """The reply for CONSTRUCT and DESCRIBE results, one abbreviated triple a line (labels as a comment)."""
    if not triples:
        return Shown("The query built no triples.", [])
    lines = []
    for triple in triples:
        line = " ".join(n3(node, prefixes) for node in triple) + " ."
        names = [text for node in triple if node is not None and node.is_iri for text in [label(node.value)] if text]
        lines.append(f"{line}  # {', '.join(names)}" if names else line)
    head = _head(total, complete, len(triples), "built", "triple", "triples")
    return Shown(head + "\n" + "\n".join(lines), lines)

"""Writing what importers produce with the libraries made for it: RDF terms by rdflib, bundle.toml by tomli-w.

Importers stream N-Triples line by line (`nt_line`), so a 2M-triple graph never sits in an
in-memory rdflib Graph; graph files that need no conversion are linked into the bundle
folder (`link`), never copied.
"""

from __future__ import annotations

import gzip
import os
import shutil
import urllib.parse
from pathlib import Path
from typing import BinaryIO

import tomli_w
from rdflib.plugins.serializers.nt import _nt_row
from rdflib.term import Identifier

XSD = "http://www.w3.org/2001/XMLSchema#"


def iri_for(base: str, role: str, name: str) -> str:
    """A stable IRI for `name` in `role`: every character that is not IRI-safe is percent-encoded."""
    return f"{base}{role}/{urllib.parse.quote(name, safe='')}"


def nt_line(subject: Identifier, predicate: Identifier, obj: Identifier) -> str:
    """One N-Triples line (with its newline), exactly as rdflib's N-Triples serializer writes it.

    IRIs and blank nodes are their `n3()`; a literal is `n3()` too, except that a line break is
    escaped as in N-Triples where `Literal.n3()` would use Turtle's triple quotes. The row
    writer is rdflib's own (`plugins.serializers.nt`, rdflib pinned in pyproject.toml), so a
    streamed file is byte for byte what `Graph.serialize(format="nt")` gives."""
    return _nt_row((subject, predicate, obj))


def write_bundle_toml(path: Path, comment: str, description: dict) -> None:
    """Write `description` (the bundle.toml tables) with tomli-w, after `comment` as `#` lines."""
    header = "".join(f"# {line}\n" if line else "#\n" for line in comment.splitlines())
    path.write_text(header + tomli_w.dumps(description), encoding="utf-8")


def wikidata_schema() -> dict[str, str]:
    """The [schema] table of Wikidata-shaped graphs: rdfs:label labels, wdt:P31 types, English."""
    return {"label": "rdfs:label", "type": "wdt:P31", "language": "en"}


def link(target: Path, link_path: Path, out_dir: Path) -> str:
    """A relative symlink `link_path` -> `target` (a copy where symlinks are impossible); its path relative to out_dir."""
    if link_path.is_symlink() or link_path.exists():
        link_path.unlink()
    try:
        link_path.symlink_to(os.path.relpath(target, link_path.parent))
    except OSError:
        shutil.copyfile(target, link_path)
    return link_path.relative_to(out_dir).as_posix()


def open_rdf(path: Path) -> BinaryIO:
    """The bytes of an RDF file, decompressed when its name ends in .gz."""
    return gzip.open(path, "rb") if path.name.endswith(".gz") else open(path, "rb")

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
from rdflib.term import Identifier, Literal

XSD = "http://www.w3.org/2001/XMLSchema#"


def iri_for(base: str, role: str, name: str) -> str:
    """A stable IRI for `name` in `role`: every character that is not IRI-safe is percent-encoded."""
    return f"{base}{role}/{urllib.parse.quote(name, safe='')}"


def nt_line(subject: Identifier, predicate: Identifier, obj: Identifier) -> str:
    """One N-Triples line (with its newline), each term rendered by rdflib's `n3()`.

    rdflib writes a literal that contains a line break in Turtle's triple quotes, which
    N-Triples lacks, so such literals are refused rather than written as a broken file."""
    if isinstance(obj, Literal) and ("\n" in obj or "\r" in obj):
        raise ValueError(f"a literal with a line break cannot be written as one N-Triples line: {obj[:60]!r}")
    return f"{subject.n3()} {predicate.n3()} {obj.n3()} .\n"


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

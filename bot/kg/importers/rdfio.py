"""Small helpers to write N-Triples and bundle.toml files safely."""

from __future__ import annotations

import re
import urllib.parse

XSD = "http://www.w3.org/2001/XMLSchema#"
_NT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NT_SPECIAL = re.compile(r'[\\"\n\r\t]')


def iri_for(base: str, role: str, name: str) -> str:
    """A stable IRI for `name` in `role`: every character that is not IRI-safe is percent-encoded."""
    return f"{base}{role}/{urllib.parse.quote(name, safe='')}"


def nt_iri(iri: str) -> str:
    return f"<{iri}>"


def nt_literal(value: str, datatype: str | None = None, lang: str | None = None) -> str:
    escaped = _NT_SPECIAL.sub(lambda m: _NT_ESCAPES[m.group()], value)
    if lang:
        return f'"{escaped}"@{lang}'
    if datatype:
        return f'"{escaped}"^^<{datatype}>'
    return f'"{escaped}"'


def toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def toml_list(values) -> str:
    return "[" + ", ".join(toml_string(v) for v in values) + "]"


def schema_header(prefixes: dict[str, str]) -> list[str]:
    """bundle.toml lines from `[prefixes]` to the `[classes]` header, for Wikidata-shaped graphs
    (rdfs:label labels, wdt:P31 types, English)."""
    return [
        "[prefixes]",
        *(f"{name} = {toml_string(iri)}" for name, iri in prefixes.items()),
        "",
        "[schema]",
        'label = "rdfs:label"',
        'type = "wdt:P31"',
        'language = "en"',
        "",
        "[classes]",
    ]

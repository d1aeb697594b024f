"""The retrieval layer: JSON SPARQL templates rendered with IRIs, executed, ranked.

Templates live in templates/*.json, one per hop pattern; the relation properties, the
topic IRI and the class IRIs are bound into their slots. Only IRIs that come from the
KG or the bundle reach a query, and each is checked to be safe inside <...>; user text
never does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from .bundle import Bundle, is_safe_iri
from .contracts import Answer, Fact, Facts, Hop, Understanding
from .kg import KG
from .store import Node

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"
_SLOT = re.compile(r"\$[a-z_0-9]+")


class TemplateError(ValueError):
    """A template is missing a slot value or a value is not a safe IRI."""


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    pattern: tuple[bool, ...]
    sparql: str

    def render(self, slots: dict[str, list[str] | str]) -> str:
        """Fill slots; every value must be an IRI (written <iri>) or a property path built from IRIs."""

        def fill(match: re.Match) -> str:
            key = match.group()
            if key not in slots:
                raise TemplateError(f"template {self.name}: no value for {key}")
            value = slots[key]
            return " ".join(value) if isinstance(value, list) else value

        return _SLOT.sub(fill, self.sparql)


def load_templates(folder: Path = TEMPLATE_DIR) -> dict[tuple[bool, ...], Template]:
    templates = {}
    for file in sorted(folder.glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        t = Template(data["name"], data.get("description", ""), tuple(data["pattern"]), data["sparql"])
        templates[t.pattern] = t
    return templates


def iri(value: str) -> str:
    if not is_safe_iri(value):
        raise TemplateError(f"unsafe IRI {value!r}")
    return f"<{value}>"


def hop_path(bundle: Bundle, hop: Hop) -> str:
    """<P> when the hop follows the stored triple direction, ^<P> when it goes against it."""
    rel = bundle.relations[hop.relation]
    along = (rel.direction == "forward") == hop.to_value
    return iri(rel.property) if along else "^" + iri(rel.property)


def format_literal(node: Node, kind: str) -> str:
    """A literal as a person would read it: years as years, dates spelled out, big numbers grouped."""
    value = node.value
    if kind == "year":
        return value[:4] if re.match(r"^\d{4}", value) else value
    if kind == "date":
        m = re.match(r"^(\d{4})-(\d{2})-(\d{2})", value)
        if m:
            try:
                return date(int(m[1]), int(m[2]), int(m[3])).strftime("%-d %B %Y")
            except ValueError:
                return value
        return value[:4] if re.match(r"^\d{4}$", value) else value
    if kind == "number":
        try:
            number = float(value)
        except ValueError:
            return value
        return f"{int(number):,}" if number.is_integer() else f"{number:,.2f}"
    return value


class Retriever:
    """Executes the chain of an Understanding and returns ranked, labelled Facts."""

    def __init__(self, kg: KG, max_answers: int = 25):
        self.kg = kg
        self.templates = load_templates()
        self.max_answers = max_answers

    def query_for(self, understanding: Understanding) -> str:
        bundle = self.kg.bundle
        chain = understanding.chain
        template = self.templates.get(tuple(h.to_value for h in chain))
        if template is None:
            raise TemplateError(f"no template for chain {[h.code for h in chain]}")
        topic = understanding.entities[0]
        start_group = topic.group or "film"
        slots = {
            "$start": iri(topic.iri),
            "$start_classes": [iri(c) for c in bundle.classes.get(start_group, bundle.film_classes)],
            "$type": iri(bundle.type_predicate),
            "$film_classes": [iri(c) for c in bundle.film_classes],
        }
        for n, hop in enumerate(chain, 1):
            slots[f"$p{n}"] = hop_path(bundle, hop)
        return template.render(slots)

    def answer(self, understanding: Understanding) -> tuple[Facts, str]:
        """(facts, the SPARQL that produced them).

        When the linked entity has no answer but another entity with the same label does
        (e.g. "Eaten Alive" and "Eaten Alive!"), the first alternative that has one is used.
        """
        facts, query = self._answer(understanding)
        topic = understanding.entities[0]
        if facts.answers or not topic.alternatives:
            return facts, query
        for alt in topic.alternatives:
            if alt.get("group") != topic.group:
                continue
            entity = replace(topic, iri=alt["iri"], label=alt["label"], year=alt["year"],
                             alternatives=[a for a in topic.alternatives if a is not alt] + [_as_alternative(topic)])
            alt_understanding = replace(understanding, entities=[entity, *understanding.entities[1:]])
            alt_facts, alt_query = self._answer(alt_understanding)
            if alt_facts.answers:
                return alt_facts, alt_query
        return facts, query

    def _answer(self, understanding: Understanding) -> tuple[Facts, str]:
        query = self.query_for(understanding)
        rows = self.kg.graph.select(query)
        last = self.kg.bundle.relations[understanding.chain[-1].relation]
        kind = last.kind if understanding.chain[-1].to_value else "entity"
        labels = self.kg.labels
        answers = []
        for row in rows:
            node = row.get("answer")
            if node is None:
                continue
            support = int(row["support"].value) if "support" in row else 1
            if node.is_iri:
                label = labels.label_of(node.value) or self._fetch_label(node.value)
                if label is None:
                    continue
                answers.append(Answer(label, node.value, support))
            else:
                answers.append(Answer(format_literal(node, kind), None, support))
        degree = {a.iri: (labels.info(a.iri) or ("", "", 0, None))[2] for a in answers if a.iri}
        answers.sort(key=lambda a: (-a.support, -degree.get(a.iri, 0), a.label.casefold(), a.iri or ""))
        answers = _dedupe_literals(answers)
        topic = understanding.entities[0]
        facts = [
            Fact(topic.iri, topic.label, ",".join(h.code for h in understanding.chain), a.iri or a.label, a.label, "kg", {"support": a.support})
            for a in answers
        ]
        return Facts("factual", understanding.text, answers, facts, understanding.entities, understanding.chain), query

    def _fetch_label(self, value: str) -> str | None:
        bundle = self.kg.bundle
        rows = self.kg.graph.select(f"SELECT ?l WHERE {{ {iri(value)} {iri(bundle.label_predicate)} ?l }} LIMIT 1")
        return rows[0]["l"].value if rows and "l" in rows[0] else None


def _as_alternative(entity) -> dict:
    return {"iri": entity.iri, "label": entity.label, "year": entity.year, "degree": None, "group": entity.group}


def _dedupe_literals(answers: list[Answer]) -> list[Answer]:
    """Literal values that format the same (1997 as gYear and as integer) count once."""
    seen: dict[str, Answer] = {}
    out = []
    for a in answers:
        key = a.iri or f"literal:{a.label}"
        if key in seen:
            seen[key].support += a.support
            continue
        seen[key] = a
        out.append(a)
    return out

"""The retrieval layer for factual questions: a relation chain's JSON SPARQL template, filled, run, ranked.

Templates (bot.kg.queries) have one slot per hop; the relation properties, the topic IRI and
the class IRIs are rendered into them as rdflib terms. Only IRIs that come from the KG or
the bundle reach a query; user text never does.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from bot.core.contracts import Answer, Fact, Facts, Understanding
from bot.core.errors import TemplateError
from bot.core.kinds import Kind
from bot.kg import queries
from bot.kg.graph import KG
from bot.kg.store import Node


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
        self.templates = queries.load_templates()
        self.max_answers = max_answers

    def query_for(self, understanding: Understanding) -> str:
        bundle = self.kg.bundle
        chain = understanding.chain
        template = self.templates.get(tuple(h.to_value for h in chain))
        if template is None:
            raise TemplateError(f"no template for chain {[h.code for h in chain]}")
        topic = understanding.entities[0]
        slots = {
            "$start": queries.iri(topic.iri),
            "$start_classes": [queries.iri(c) for c in bundle.classes[self._start_group(topic)]],
            "$type": queries.iri(bundle.type_predicate),
            "$film_classes": [queries.iri(c) for c in bundle.film_classes],
        }
        for n, hop in enumerate(chain, 1):
            slots[f"$p{n}"] = queries.hop_path(bundle, hop)
        return template.render(slots)

    def answer(self, understanding: Understanding) -> tuple[Facts, str]:
        """(facts, the SPARQL that produced them).

        When the linked entity has no answer but another entity with the same label does
        (e.g. "Eaten Alive" and "Eaten Alive!"), the first alternative that has one is used (the reply
        names it) -- unless the question chose this film by its year, a person or 'the original'.
        """
        topic = understanding.entities[0]
        if topic.members:
            return self._family(understanding)
        facts, query = self._answer(understanding)
        if facts.answers or not topic.alternatives or topic.selected_by not in ("", "spelling"):
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

    def _family(self, understanding: Understanding) -> tuple[Facts, str]:
        """A family said as one ("Who scores the Coen brothers' films?"): each member's answers (their own query and facts),
        together, an answer any of them reaches counted once with the paths of all of them."""
        topic, labels = understanding.entities[0], self.kg.labels
        merged: dict[str, Answer] = {}
        facts: list[Fact] = []
        found: list[str] = []
        for member in topic.members:
            one = replace(topic, iri=member, label=labels.label_of(member) or topic.label, members=(), alternatives=[])
            part, query = self._answer(replace(understanding, entities=[one, *understanding.entities[1:]]))
            found.append(query)
            facts += part.facts
            for a in part.answers:
                if self._leaves_out_topic(understanding.chain) and a.iri in topic.members:
                    continue
                key = a.iri or f"literal:{a.label}"
                if key in merged:
                    merged[key] = replace(merged[key], support=merged[key].support + a.support)
                else:
                    merged[key] = a
        answers = sorted(merged.values(), key=lambda a: (-a.support, a.label.casefold(), a.iri or ""))
        result = Facts(Kind.FACTUAL, understanding.text, answers, facts, understanding.entities, understanding.chain)
        return result, "\n".join(found)

    def _start_group(self, topic) -> str:
        """The class group whose classes a chain template asks of its start: the topic's own, else films."""
        return topic.group if topic.group in self.kg.bundle.classes else "film"

    def _walked(self, understanding: Understanding) -> list[tuple[int | Node, int]] | None:
        """A multi-hop chain's (answer label id or literal, support) from the film table's arrays (bot.kg.film_table), the same rows
        its template's query gives (tests/test_film_table.py compares them); None when the table cannot answer it."""
        if len(understanding.chain) < 2:
            return None  # one hop is a single index lookup for the store
        labels, topic = self.kg.labels, understanding.entities[0]
        start = labels.by_iri.get(topic.iri)
        if start is None or labels.groups[start] != self._start_group(topic):
            return None
        return self.kg.films.chain_answers(understanding.chain, start)

    def _answer(self, understanding: Understanding) -> tuple[Facts, str]:
        query = self.query_for(understanding)
        last = self.kg.bundle.relations[understanding.chain[-1].relation]
        kind = last.kind if understanding.chain[-1].to_value else "entity"
        labels = self.kg.labels
        answers = []
        degree: dict[str, int] = {}
        walked = self._walked(understanding)
        for found, support in walked or ():
            if isinstance(found, Node):
                answers.append(Answer(format_literal(found, kind), None, support))
                continue
            iri = labels.iris[found]
            degree[iri] = labels.degree[found]
            answers.append(Answer(labels.labels[found], iri, support))
        for row in self.kg.graph.select(query) if walked is None else ():
            node = row.get("answer")
            if node is None:
                continue
            support = int(row["support"].value) if "support" in row else 1
            if node.is_iri:
                try:  # one lookup for label and degree: a 3-hop answer can have hundreds of rows
                    idx = labels.by_iri[node.value]
                    label, degree[node.value] = labels.labels[idx], labels.degree[idx]
                except KeyError:
                    label = self._fetch_label(node.value)
                if label is None:
                    continue
                answers.append(Answer(label, node.value, support))
            else:
                answers.append(Answer(format_literal(node, kind), None, support))
        topic = understanding.entities[0]
        if self._leaves_out_topic(understanding.chain):
            answers = [a for a in answers if a.iri != topic.iri]
        answers.sort(key=lambda a: (-a.support, -degree.get(a.iri, 0), a.label.casefold(), a.iri or ""))
        answers = _dedupe_literals(answers)
        facts = [
            Fact(topic.iri, topic.label, ",".join(h.code for h in understanding.chain), a.iri or a.label, a.label, "kg", {"support": a.support})
            for a in answers
        ]
        result = Facts(Kind.FACTUAL, understanding.text, answers, facts, understanding.entities, understanding.chain)
        if len(understanding.chain) > 1 and answers:
            result.extra["path"] = self._path(understanding)
        return result, query

    def _leaves_out_topic(self, chain) -> bool:
        """Whether the question's own entity is left out of a multi-hop chain's answers: when the chain comes back
        through the relation it left by ("who starred with X", "the other films of X's director": X is not news),
        or always where the bundle says so (MetaQA). "Who wrote the films Kubrick directed" includes Kubrick."""
        return len(chain) > 1 and (self.kg.bundle.exclude_topic or chain[0].relation == chain[-1].relation)

    def _path(self, understanding: Understanding) -> list[str]:
        """The labels the first hop of a multi-hop chain reaches (the director of Jaws, the films of Tarantino),
        so the sentence can say the path in plain words; the answers are not changed by it."""
        first, _ = self._answer(replace(understanding, chain=understanding.chain[:1]))
        return [a.label for a in first.answers]

    def _fetch_label(self, value: str) -> str | None:
        rows = self.kg.graph.select(queries.label_of(value, self.kg.bundle))
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

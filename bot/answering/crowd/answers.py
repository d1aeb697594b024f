"""Answers from crowd data: a fallback when the graph has no triple, an amender when the crowd rejects one.

A fallback answers (subject, relation) from the crowd's verdicts when the graph has no value;
an amender replaces a graph value the crowd voted INCORRECT with the crowd's fix (or notes the
rejection). Every crowd answer says so, with the batch agreement and the task's votes.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from bot.answering.crowd.aggregate import Batch, CrowdData, Task
from bot.answering.crowd.votes import CORRECT, INCORRECT, Term
from bot.answering.factual import format_literal
from bot.core.contracts import Answer, Fact, Facts, Hop, Understanding
from bot.core.kinds import Kind
from bot.core.text import join_labels
from bot.generation.templates import describe_chain, template_sentence
from bot.kg import queries
from bot.kg.store import Node


def _votes(n: int, kind: str) -> str:
    return f"{n} {kind} vote{'' if n == 1 else 's'}"


def agreement_note(tasks: list[Task], batches: dict[str, Batch], labels: list[str] | None = None) -> str:
    """'inter-rater agreement 0.236 in this batch; 2 support votes, 1 reject vote' (per value when several)."""
    kappas = []
    for batch_id in dict.fromkeys(t.batch for t in tasks):
        kappa = batches[batch_id].kappa
        kappas.append("not measurable" if kappa is None else f"{kappa:.3f}")
    where = "in this batch" if len(kappas) == 1 else "in these batches"
    head = f"inter-rater agreement {join_labels(kappas)} {where}"
    if len(tasks) == 1:
        return f"{head}; {_votes(tasks[0].support, 'support')}, {_votes(tasks[0].reject, 'reject')}"
    parts = [f"{label}: {_votes(t.support, 'support')}, {_votes(t.reject, 'reject')}" for t, label in zip(tasks, labels or [])]
    return f"{head}; " + "; ".join(parts)


def _backing(task: Task) -> int:
    """How many kept votes back the value the crowd vouches for: the CORRECT votes, or those proposing the fix."""
    return task.support if task.verdict == CORRECT else task.fix_votes


class CrowdAnswerer:
    """Answers from crowd data for one KG: a fallback for missing triples, an amender for rejected ones.

    Crowd IRIs that are not KG entities are mapped to KG entities through owl:sameAs
    (the demo KG keeps Wikidata ids that way); single-hop questions only.
    """

    def __init__(self, kg, data: CrowdData):
        self.kg = kg
        self.data = data
        triples = [(task, [t for t in (task.triple, task.corrected()) if t is not None]) for task in data.tasks]
        self.same = self._kg_iris({term.value for _, ts in triples for t in ts for term in t if term.is_iri})
        self.by_property: dict[str, list[Task]] = defaultdict(list)  # property IRI -> tasks asking or fixing it
        for task, ts in triples:
            for prop in dict.fromkeys(t[1].value for t in ts):
                self.by_property[prop].append(task)

    def _kg_iris(self, iris: set[str]) -> dict[str, str]:
        """crowd IRI -> KG IRI (itself when the KG knows it or no owl:sameAs names it)."""
        labels = self.kg.labels
        mapping = {i: i for i in iris}
        unknown = sorted(i for i in iris if labels.label_of(i) is None)
        for start in range(0, len(unknown), 200):
            rows = self.kg.graph.select(queries.same_as(unknown[start : start + 200]))
            for row in rows:
                entity = row["e"].value
                if row["e"].is_iri and labels.label_of(entity) is not None:
                    mapping[row["x"].value] = entity
        return mapping

    def _term_key(self, term: Term) -> str:
        return self.same.get(term.value, term.value) if term.is_iri else term.value

    def _label(self, term: Term, kind: str) -> tuple[str, str | None]:
        """(label, KG IRI or None) for the value side of a triple."""
        if not term.is_iri:
            return format_literal(Node(term.value, False), kind), None
        entity = self._term_key(term)
        return self.kg.labels.label_of(entity) or self.kg.bundle.compact(entity), entity

    def _hop(self, understanding: Understanding):
        """(hop, relation, topic, along) for a single-hop question, else None."""
        if len(understanding.chain) != 1 or not understanding.entities:
            return None
        hop: Hop = understanding.chain[0]
        relation = self.kg.bundle.relations.get(hop.relation)
        if relation is None or relation.derived:
            return None  # crowd tasks are about stored triples, never about a path through other nodes
        along = (relation.direction == "forward") == hop.to_value  # the topic is the triple's subject
        return hop, relation, understanding.entities[0], along

    def _value_kind(self, hop: Hop, relation) -> str:
        return relation.kind if hop.to_value else "entity"

    def _find(self, triple, relation, topic_iri: str, along: bool) -> Term | None:
        """The value side of `triple` when it states (topic, relation, value) in the question's direction."""
        if triple is None or triple[1].value != relation.property:
            return None
        anchor, value = (triple[0], triple[2]) if along else (triple[2], triple[0])
        if not anchor.is_iri or self._term_key(anchor) != topic_iri:
            return None
        return value

    def _detail(self, task: Task) -> dict:
        batch = self.data.batches[task.batch]
        return {
            "task": task.hit,
            "batch": task.batch,
            "file": task.file,
            "kappa": batch.kappa,
            "kappa_method": batch.method,
            "votes": {"support": task.support, "reject": task.reject},
            "distribution": task.distribution,
            "removed_votes": task.answers - task.support - task.reject,
            "verdict": task.verdict,
            "fix": {"position": task.fix[0], "value": task.fix[1].value} if task.fix else None,
            "triple": list(task.inputs),
        }

    def fallback(self, understanding: Understanding, facts: Facts) -> Facts | None:
        """The crowd's value(s) for (topic, relation) when the graph has none."""
        found = self._hop(understanding)
        if found is None:
            return None
        hop, relation, topic, along = found
        kind = self._value_kind(hop, relation)
        answers, fact_list, tasks, seen = [], [], [], set()
        for task in self.by_property.get(relation.property, []):
            value = self._find(task.corrected(), relation, topic.iri, along)
            if value is None:
                continue
            label, entity = self._label(value, kind)
            if (entity or label) in seen:
                continue
            seen.add(entity or label)
            answers.append(Answer(label, entity, support=_backing(task)))
            fact_list.append(Fact(topic.iri, topic.label, hop.code, entity or value.value, label, "crowd", self._detail(task)))
            tasks.append(task)
        if not answers:
            return None
        result = Facts(Kind.FACTUAL, understanding.text, answers, fact_list, understanding.entities, understanding.chain, source="crowd", extra=dict(facts.extra))
        phrase, plural = describe_chain(result, self.kg.bundle)
        labels = [a.label for a in answers]
        note = agreement_note(tasks, self.data.batches, labels)
        result.message = f"According to the crowd, {phrase} {'are' if plural else 'is'} {join_labels(labels)} — {note}."
        return result

    def amend(self, understanding: Understanding, facts: Facts) -> Facts:
        """Replace graph values the crowd voted INCORRECT with the crowd's fix; note rejections without a fix;
        add values the crowd vouches for that the graph lacks ("Is Kenneth Branagh in the 1995 Othello?")."""
        found = self._hop(understanding) if facts.answers else None
        if found is None:
            return facts
        hop, relation, topic, along = found
        kind = self._value_kind(hop, relation)
        answers, fact_list, changes = [], [], []
        for answer, fact in zip(facts.answers, facts.facts):
            task = self._rejection(relation, topic.iri, along, answer, kind)
            if task is None:
                answers.append(answer)
                fact_list.append(fact)
                continue
            fixed = self._find(task.corrected(), relation, topic.iri, along)
            detail = {**fact.detail, "crowd": self._detail(task)}
            if fixed is None:  # rejected without a usable fix: the value is not asserted; the sentence says why
                fact_list.append(replace(fact, detail={**detail, "rejected": True}))
                changes.append((task, answer.label, None))
                continue
            label, entity = self._label(fixed, kind)
            changes.append((task, answer.label, label))
            if any((a.iri or a.label) == (entity or label) for a in facts.answers):
                continue  # the fixed value is among the graph's answers already
            answers.append(Answer(label, entity, support=_backing(task)))
            fact_list.append(Fact(topic.iri, topic.label, hop.code, entity or fixed.value, label, "crowd", {**detail, "replaces": answer.label}))
        for task in self.by_property.get(relation.property, []):
            if task.verdict == CORRECT or task.fix is not None:
                value = self._find(task.corrected(), relation, topic.iri, along)
                if value is None:
                    continue
                label, entity = self._label(value, kind)
                if any((a.iri or a.label) == (entity or label) for a in answers + facts.answers):
                    continue
                answers.append(Answer(label, entity, support=_backing(task)))
                fact_list.append(Fact(topic.iri, topic.label, hop.code, entity or value.value, label, "crowd", {"crowd": self._detail(task), "adds": True}))
                changes.append((task, None, label))
        if not changes:
            return facts
        corrected = any(new is not None for _, _, new in changes)
        result = replace(facts, answers=answers, facts=fact_list, source="crowd" if corrected else facts.source, message="")
        result.message = self._amended_sentence(result, changes, facts)
        return result

    def _rejection(self, relation, topic_iri: str, along: bool, answer: Answer, kind: str) -> Task | None:
        """The task whose asked triple is this graph answer and which the crowd voted INCORRECT."""
        for task in self.by_property.get(relation.property, []):
            if task.verdict != INCORRECT:
                continue
            value = self._find(task.triple, relation, topic_iri, along)
            if value is None:
                continue
            if value.is_iri and answer.iri and self._term_key(value) == answer.iri:
                return task
            if not value.is_iri and answer.iri is None and format_literal(Node(value.value, False), kind) == answer.label:
                return task
        return None

    def _fix_clause(self, task: Task) -> str:
        """What the crowd proposed when its fix is not a new value for the question (another subject or relation)."""
        if task.fix is None:
            return ""
        position, term = task.fix
        if position == "predicate":
            relation = next((r for r in self.kg.bundle.relations.values() if r.property == term.value), None)
            return f", saying the relation is {relation.noun if relation else self.kg.bundle.compact(term.value)} instead"
        label, _ = self._label(term, "entity")
        return f", saying the {position} should be {label}"

    def _amended_sentence(self, facts: Facts, changes: list[tuple[Task, str, str | None]], graph_facts: Facts) -> str:
        phrase, _ = describe_chain(facts if facts.answers else graph_facts, self.kg.bundle)
        if len(graph_facts.answers) == 1 and len(changes) == 1 and changes[0][1] is not None:
            task, old, new = changes[0]
            note = agreement_note([task], self.data.batches)
            if new is None:
                return f"My knowledge graph says {phrase} is {old}, but the crowd rejected this{self._fix_clause(task)} — {note}."
            return f"According to the crowd, {phrase} is {new}, not {old} as my knowledge graph says — {note}."
        kept = replace(facts, answers=[a for a in facts.answers if (a.iri or a.label) not in {n for _, o, n in changes if o is None}])
        sentences = [template_sentence(kept, self.kg.bundle).text] if kept.answers else []
        for task, old, new in changes:
            note = agreement_note([task], self.data.batches)
            if old is None:
                sentences.append(f"According to the crowd, {new} belongs there too — {note}.")
            elif new is None:
                sentences.append(f"The crowd rejected {old}{self._fix_clause(task)} — {note}.")
            else:
                sentences.append(f"According to the crowd, {new} replaces {old} — {note}.")
        return " ".join(sentences)

"""Answers to compositional questions: yes/no checks, comparisons, superlatives, counts and filtered film lists.

Answers are computed in SPARQL from templates/compose.json (bot.kg.queries.compose_query):
conditions become fragments of one WHERE block, counts and orderings are aggregated by the
store, and only what the reply shows is transferred. On a hub (`hub_films`: conditions whose
SPARQL would start from thousands of films, where the store looks every one of them up again
for each other condition) the film table (bot.kg.film_table) finds which films answer and how
many, and the rows shown are still read from the store. The structured result goes to the generation layer
in `Facts.result` (a typed result per form, bot.core.results), with the facts that decide it ("No — the director of
Alien is Ridley Scott"), and a missing value is said, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.answering.factual import format_literal
from bot.core.contracts import Aggregate, Answer, Constraint, Fact, Facts, Hop, LinkedEntity, Understanding, chain_code
from bot.core.errors import PlanError
from bot.core.kinds import Kind
from bot.core.results import (
    AnyResult,
    CollaborationCountsResult,
    CollaboratorsResult,
    ComparisonResult,
    Condition,
    FilmCountResult,
    FilmsResult,
    MostResult,
    OrderedResult,
    OverviewResult,
    Result,
    RoleCount,
    SharedItem,
    SharedResult,
    ShownValue,
    ValueCountResult,
    VerificationResult,
)
from bot.core.terms import AggregateOp, Check, Group, Op
from bot.kg import queries
from bot.kg.store import XSD, Node

XSD_INTEGER = XSD + "integer"
SHOWN = 25  # films listed at most (the total is counted)
TIES = 10  # rows fetched to find ties for the top value
ALL_MATCHES = 1000  # matching films fetched and ranked here when there are no more (else the best known are checked in batches)
FAME_BATCH = 200  # the graph's best known films checked at first against the conditions of a hub value
FAME_CHECKS = 4200  # at most this many of them (batches of 200, 800, 3200): sparser matches are fetched instead
MANY_MATCHES = 10000  # matches fetched and ranked at most; past this, the first RANKED in IRI order are ranked
TABLE_FROM = ALL_MATCHES  # the film table answers when the SPARQL would start from more films than this (hub_films)
RANKED = 500  # matches ranked when there are too many to fetch (the first in IRI order: the same on every engine)


def hub_films(kg, constraints, ordered: tuple[str, ...] = (), counted: tuple[str, ...] = ()):
    """The films that meet `constraints`, as a mask over the film table (bot.kg.film_table), when their SPARQL would
    start from more than TABLE_FROM films (a hub value, or no value condition at all) and the table answers every
    part of the question as the SPARQL would; else None, and SPARQL answers. On a hub, every other condition or
    aggregate costs Oxigraph a lookup per film (20-60 ms a query); the table's arrays answer in well under one."""
    table = kg.films
    if not len(table.films) or not table.covers(constraints, ordered, counted):
        return None
    if table.start_size(constraints, kg.labels) <= TABLE_FROM:
        return None
    return table.matching(constraints, kg.labels)


def best_matching_films(kg, constraints, limit: int) -> tuple[list[tuple[str, str]], int, str]:
    """The `limit` best known films (most facts first, then label and IRI) that meet `constraints`, with their labels;
    how many films meet them; and the query that found the films shown.

    The store counts the matches. Up to ALL_MATCHES of them are fetched and ranked here. With more (a genre with
    thousands of films), transferring them costs more than finding them, so the graph's best known films are checked
    against the constraints in growing batches (a VALUES block of IRIs) until `limit` of them match -- the first
    matches in that order are the best known -- as long as the matches are dense enough for that to take at most
    FAME_CHECKS films. Sparser ones are fetched (up to MANY_MATCHES) and ranked here; past that, the first RANKED in
    IRI order are ranked. Every way gives the same answer on every engine."""
    film_only, labels, bundle = kg.labels.film_only, kg.labels, kg.bundle
    if (hub := hub_films(kg, constraints)) is not None:
        query = queries.compose_query("list_all", bundle, constraints, film_only, **{"$limit": str(ALL_MATCHES)})  # what the table did
        return [(labels.iris[i], labels.labels[i]) for i in kg.films.best_known(hub, limit)], int(hub.sum()), query
    total = int(kg.graph.select(queries.compose_query("count", bundle, constraints, film_only))[0]["n"].value)

    def ranked(query: str) -> list[tuple[str, str]]:
        films = {r["film"].value for r in kg.graph.select(query) if "film" in r}
        ids = sorted((labels.by_iri[f] for f in films if f in labels.by_iri), key=labels.fame)
        return [(labels.iris[i], labels.labels[i]) for i in ids[:limit]]

    # the graph's films in fame order are only needed (and sorted, once) when there are many matches
    if total > ALL_MATCHES and limit * len(by_fame := labels.films_by_fame()) <= FAME_CHECKS * total:
        found: list[int] = []
        start, size, query = 0, FAME_BATCH, ""
        while start < min(len(by_fame), FAME_CHECKS) and len(found) < limit:
            batch = by_fame[start : start + size]
            among = Constraint((), Op.AMONG, tuple(labels.iris[i] for i in batch))
            query = queries.compose_query("list_all", bundle, [among, *constraints], film_only, **{"$limit": str(len(batch) + 1)})
            hits = {r["film"].value for r in kg.graph.select(query) if "film" in r}
            found += [i for i in batch if labels.iris[i] in hits]
            start, size = start + size, size * 4
        if len(found) >= limit or start >= len(by_fame):
            return [(labels.iris[i], labels.labels[i]) for i in found[:limit]], total, query
    if total <= MANY_MATCHES:
        query = queries.compose_query("list_all", bundle, constraints, film_only, **{"$limit": str(total + 1)})
        return (ranked(query) if total else []), total, query
    query = queries.compose_query("list", bundle, constraints, film_only, **{"$limit": str(RANKED)})
    return ranked(query), total, query


class ComposedAnswers:
    """Answers compositional question plans against one KG."""

    def __init__(self, kg, single):
        self.kg = kg
        self.single = single  # answers a single-ask Understanding (the factual handler's path, crowd included)

    def answer(self, understanding: Understanding) -> Facts:
        try:
            return self._answer(understanding)
        except PlanError as exc:  # a condition no query can express: said in words, not "something went wrong"
            return Facts(Kind.FACTUAL, understanding.text, topic=understanding.entities, message=exc.user_message)

    def _answer(self, understanding: Understanding) -> Facts:
        if understanding.overview is not None:
            return self.overview(understanding)
        if understanding.collaboration is not None:
            return self.collaboration(understanding)
        if understanding.verification is not None:
            return self.verify(understanding)
        if understanding.comparison is not None:
            return self.compare(understanding)
        if understanding.shared is not None:
            return self.shared(understanding)
        if understanding.aggregate is not None and understanding.asks:
            return self.count_values(understanding)
        return self.films(understanding)

    # --- helpers ------------------------------------------------------------------------

    def _label(self, iri: str) -> str:
        return self.kg.labels.label_of(iri) or self.kg.bundle.compact(iri)

    def _value(self, node: Node, relation: str) -> tuple[float | str, str]:
        """(a sortable value, how a person reads it) of a date or number literal."""
        kind = self.kg.bundle.relations[relation].kind
        shown = format_literal(node, kind)
        if kind in ("date", "year"):
            return node.value, shown
        try:
            return float(node.value), shown
        except ValueError:
            return node.value, shown

    def _facts(self, understanding: Understanding, answers: list[Answer], facts: list[Fact], result: Result, sparql: str | list[str] = "") -> Facts:
        return Facts(Kind.FACTUAL, understanding.text, answers, facts, understanding.entities, understanding.chain, result=result,
                     extra={"sparql": sparql})

    # --- yes / no -----------------------------------------------------------------------

    def verify(self, understanding: Understanding) -> Facts:
        check = understanding.verification
        topic = understanding.entities[check.topic]
        relations = tuple(check.relation.split(";"))
        found: list[Answer] = []
        facts: list[Fact] = []
        target = understanding.entities[check.value] if check.value is not None else None
        if target is None and check.op is not Check.ANY:
            return self._verify_literal(understanding, topic, relations[0])
        for relation in relations:
            result = self.single(Understanding(understanding.text, Kind.FACTUAL, (Hop(relation, True),), [topic]))
            if result.source == "embedding":
                continue  # a prediction never decides a yes/no question
            found += result.answers
            facts += result.facts
        if not found:
            return self._facts(understanding, [], [], VerificationResult(topic.label, relations, missing=True))
        if target is not None:
            wanted = set(check.families) | {target.iri}
            holds = any(a.iri in wanted for a in found)
            result = VerificationResult(topic.label, relations, value=target.label, values=tuple(a.label for a in found), holds=holds)
            return self._facts(understanding, [Answer("yes" if holds else "no")], facts, result)
        wanted = set(check.families)
        hits = [a for a in found if not wanted or a.iri in wanted]
        result = VerificationResult(topic.label, relations, values=tuple(a.label for a in hits), holds=bool(hits), any_value=True)
        return self._facts(understanding, hits if check.listed and hits else [Answer("yes" if hits else "no")], facts, result)

    def _verify_literal(self, understanding: Understanding, topic: LinkedEntity, relation: str) -> Facts:
        """'Was Parasite released in 2019?', 'Is X longer than two hours?': the stored value decides."""
        check = understanding.verification
        query = queries.compose_templates()[1]["values"].render({
            "$items": [queries.iri(topic.iri)], "$path": queries.relations_path(self.kg.bundle, (relation,))})
        rows = [r for r in self.kg.graph.select(query) if "value" in r and not r["value"].is_iri]
        if not rows:
            return self._facts(understanding, [], [], VerificationResult(topic.label, (relation,), missing=True, literal=check.op), query)
        number, shown = self._value(rows[0]["value"], relation)
        try:
            literal = float(check.literal)
        except ValueError:
            raise PlanError(f"a literal check needs a number, got {check.literal!r}", "that yes/no question") from None
        if isinstance(number, str):  # a date or a year: its year is compared ("released in 2019", "before 1980")
            year = re.match(r"-?\d{1,4}", number)
            if year is None:
                raise PlanError(f"no year in {number!r}", "that yes/no question")
            number = float(year.group())
        compare = {Check.EQUALS: float.__eq__, Check.YEAR_FROM: float.__ge__, Check.YEAR_UNTIL: float.__le__, Check.GT: float.__gt__,
                   Check.GE: float.__ge__, Check.LT: float.__lt__, Check.LE: float.__le__}
        if check.op not in compare:
            raise PlanError(f"a literal cannot be checked with {check.op!r}", "that yes/no question")
        holds = compare[check.op](number, literal)
        fact = Fact(topic.iri, topic.label, relation, rows[0]["value"].value, shown, "kg")
        result = VerificationResult(topic.label, (relation,), value=check.literal, values=(shown,), holds=holds, literal=check.op)
        return self._facts(understanding, [Answer("yes" if holds else "no")], [fact], result, query)

    # --- overviews -----------------------------------------------------------------------

    def overview(self, understanding: Understanding) -> Facts:
        """'Tell me about Heat': a film's values along the plan's relations (the single-ask path, so crowd answers amend
        them and every value is a fact), the best known first; a person's films per role and best-known films."""
        plan = understanding.overview
        topic = understanding.entities[plan.topic]
        labels = self.kg.labels
        facts: list[Fact] = []
        sparql: list[str] = []

        def along(hop: Hop) -> list[Answer]:
            found = self.single(Understanding(understanding.text, Kind.FACTUAL, (hop,), [topic]))
            sparql.append(found.extra.get("sparql", ""))
            if found.source == "embedding":
                return []  # a prediction is no part of what the graph says about it
            kept = sorted(found.answers, key=lambda a: labels.fame(labels.by_iri[a.iri]) if a.iri in labels.by_iri else (1, a.label, ""))
            facts.extend(f for f in found.facts if f.value in {a.iri or a.label for a in kept} or f.value_label in {a.label for a in kept})
            return kept

        if topic.group == Group.FILM:
            values = []
            for relation, most in zip(plan.relations, plan.most):
                answers = along(Hop(relation, True))[:most]
                if answers:
                    values.append((relation, tuple(a.label for a in answers)))
            date = self.kg.bundle.date_relation
            dated = next((v[0] for r, v in values if date is not None and r == date.name), "")
            year = str(topic.year) if topic.year else next(iter(re.findall(r"\b\d{4}\b", dated)), "")
            values = [(r, v) for r, v in values if date is None or r != date.name]
            result = OverviewResult(topic.label, Group.FILM, year, tuple(values))
            return self._facts(understanding, [Answer(topic.label, topic.iri)] if values or year else [], facts, result, sparql)
        rows = self.kg.graph.select(queries.films_per_role(self.kg.bundle, topic.iri, list(plan.relations))) if plan.relations else []
        counts = {str(r["relation"].value): int(r["n"].value) for r in rows if r.get("relation") is not None}
        order = list(plan.relations)
        roles = tuple(RoleCount(r, n) for r, n in sorted(counts.items(), key=lambda rn: (-rn[1], order.index(rn[0]))) if n)
        films: dict[str, Answer] = {}
        for role in roles:
            for answer in along(Hop(role.relation, False)):
                films.setdefault(answer.iri or answer.label, answer)
        known = sorted(films.values(), key=lambda a: labels.fame(labels.by_iri[a.iri]) if a.iri in labels.by_iri else (1, a.label, ""))
        known_for = tuple(a.label for a in known[: plan.known_for])
        facts = [f for f in facts if f.value in {a.iri for a in known[: plan.known_for]}]
        result = OverviewResult(topic.label, Group.PERSON, roles=roles, known_for=known_for)
        return self._facts(understanding, [Answer(topic.label, topic.iri)] if roles else [], facts, result,
                           [queries.films_per_role(self.kg.bundle, topic.iri, list(plan.relations))] + sparql)

    # --- collaborations -----------------------------------------------------------------

    def collaboration(self, understanding: Understanding) -> Facts:
        """'Who is Nolan's go-to composer?': the people in the partner roles on the most of the person's films (the "most"
        query of the compositions, the person left out); 'Has Scorsese worked with De Niro more often than with DiCaprio?':
        how many of the person's films each partner shares (the "count" query with both conditions), and the shared films
        as the facts. Only films both hold a role in count: never each one's films overall."""
        plan = understanding.collaboration
        person = understanding.entities[plan.person]
        relations = self.kg.bundle.relations
        people = [understanding.entities[i] for i in plan.partners]
        if person.group != Group.PERSON or any(p.group != Group.PERSON for p in people):
            raise PlanError("a collaboration is between people", "who worked with whom")
        if not plan.roles or not plan.partner_roles or any(
                r not in relations or relations[r].value_class != Group.PERSON for r in (*plan.roles, *plan.partner_roles)):
            raise PlanError(f"no person relations in {plan.roles} / {plan.partner_roles}", "the roles people had on those films")
        theirs = Constraint(plan.roles, Op.IN, person.iris, person.label)
        films = self._count([theirs])
        any_role = set(plan.partner_roles) == {n for n, r in relations.items() if r.value_class == Group.PERSON}
        sparql = [self._query("count", [theirs])]
        if not plan.partners:
            # every partner with their count (a person's films have at most a few thousand people on them): all the ties are seen
            slots = {"$path": queries.relations_path(self.kg.bundle, plan.partner_roles), "$value_filter": queries.value_filter((), person.iris),
                     "$limit": str(ALL_MATCHES)}
            query = self._query("most", [theirs], **slots)
            rows = self.kg.graph.select(query)
            sparql.append(query)
            top = int(rows[0]["n"].value) if rows else 0
            if len(rows) >= ALL_MATCHES and int(rows[-1]["n"].value) == top:
                raise PlanError(f"more than {ALL_MATCHES} people tie on {person.label}'s films", "who worked with them the most")
            winners = sorted(((r["value"].value, self._label(r["value"].value)) for r in rows if int(r["n"].value) == top and r["value"].is_iri),
                             key=lambda w: w[0])
            facts: list[Fact] = []
            for iri, label in winners:
                shared, _, query = best_matching_films(self.kg, [theirs, Constraint(plan.partner_roles, Op.IN, (iri,), label)], SHOWN)
                facts += [Fact(film, title, "matches", film, title, "kg", {"conditions": [person.label, label]}) for film, title in shared]
                sparql.append(query)
            result = CollaboratorsResult(person.label, plan.roles, plan.partner_roles, any_role, films, tuple(label for _, label in winners), top)
            return self._facts(understanding, [Answer(label, iri) for iri, label in winners], facts, result, sparql)
        counts: list[int] = []
        facts = []
        for partner in people:
            shared, total, query = best_matching_films(self.kg, [theirs, Constraint(plan.partner_roles, Op.IN, partner.iris, partner.label)], SHOWN)
            counts.append(total)
            facts += [Fact(film, title, "matches", film, title, "kg", {"conditions": [person.label, partner.label]}) for film, title in shared]
            sparql.append(query)
        best = max(counts)
        winners = [p for p, n in zip(people, counts) if n == best]
        holds = len(winners) == 1 and winners[0].iri == people[0].iri
        result = CollaborationCountsResult(person.label, plan.roles, plan.partner_roles, any_role, films,
                                           tuple(ShownValue(p.label, str(n)) for p, n in zip(people, counts)),
                                           tuple(w.label for w in winners), plan.asked, holds, len(winners) > 1)
        answers = [Answer("yes" if holds else "no")] if plan.asked else [Answer(w.label, w.iri) for w in winners]
        return self._facts(understanding, answers, facts, result, sparql)

    # --- comparisons --------------------------------------------------------------------

    def compare(self, understanding: Understanding) -> Facts:
        comparison = understanding.comparison
        items = [understanding.entities[i] for i in comparison.entities]
        bundle = self.kg.bundle
        path = queries.relations_path(bundle, (comparison.relation,))
        values: dict[str, tuple[float | str, str]] = {}
        if comparison.count:
            person = items[0].group == Group.PERSON
            slots = {"$items": [queries.iri(e.iri) for e in items], "$path": path}
            if person:
                template = queries.compose_templates()[1]["film_counts"]
                films = queries.compose_templates()[0]["films"].render(
                    {"$type": queries.iri(bundle.type_predicate), "$film_classes": [queries.iri(c) for c in bundle.film_classes]})
                query = template.render({**slots, "$films": films})
            else:
                query = queries.compose_templates()[1]["value_counts"].render({**slots, "$value_filter": queries.value_filter(comparison.families)})
            for row in self.kg.graph.select(query):
                values[row["item"].value] = (float(row["n"].value), row["n"].value)
        else:
            query = queries.compose_templates()[1]["values"].render({"$items": [queries.iri(e.iri) for e in items], "$path": path})
            for row in self.kg.graph.select(query):
                value = self._value(row["value"], comparison.relation)
                current = values.get(row["item"].value)
                if current is None or value[0] < current[0]:
                    values[row["item"].value] = value
        missing = tuple(e.label for e in items if e.iri not in values)
        base = ComparisonResult(comparison.relation, comparison.greater, comparison.count, comparison.asked, bool(comparison.families),
                                items=tuple(e.label for e in items))
        if missing:
            return self._facts(understanding, [], [], replace(base, missing=missing), query)
        pick = max if comparison.greater else min
        facts = [Fact(e.iri, e.label, comparison.relation, values[e.iri][1], values[e.iri][1], "kg") for e in items]
        shown = tuple(ShownValue(e.label, values[e.iri][1]) for e in items)
        compared = {e.iri: values[e.iri][0] for e in items}
        coarse = self._coarse_dates(items, compared, comparison.relation)
        if coarse is not None:
            compared = {iri: str(value)[: len(coarse[0])] for iri, value in compared.items()}
        best = pick(compared[e.iri] for e in items)
        winners = [e for e in items if compared[e.iri] == best]
        if coarse is not None and len(winners) > 1:
            # "2001" against "18 May 2001": the same year says nothing about which came first
            precision = {4: "year", 7: "month"}.get(len(coarse[0]), "day")
            return self._facts(understanding, [], facts, replace(base, values=shown, undecided=coarse[1], precision=precision), query)
        holds = len(winners) == 1 and winners[0].iri == items[0].iri
        result = replace(base, values=shown, winners=tuple(w.label for w in winners), holds=holds, tie=len(winners) > 1)
        if comparison.asked:
            return self._facts(understanding, [Answer("yes" if holds else "no")], facts, result, query)
        return self._facts(understanding, [Answer(w.label, w.iri) for w in winners], facts, result, query)

    def _coarse_dates(self, items: list[LinkedEntity], compared: dict[str, float | str], relation: str) -> tuple[str, tuple[str, ...]] | None:
        """(the coarsest date of the items, the items known only that coarsely) when their dates differ in precision
        (a year, a month, a day), so they are compared at the precision all of them have; None otherwise."""
        if self.kg.bundle.relations[relation].kind not in ("date", "year"):
            return None
        dates = {e.iri: str(compared[e.iri])[:10] for e in items}
        coarsest = min(dates.values(), key=len)
        if all(len(d) == len(coarsest) for d in dates.values()):
            return None
        return coarsest, tuple(e.label for e in items if len(dates[e.iri]) == len(coarsest))

    # --- what entities have in common ----------------------------------------------------

    def shared(self, understanding: Understanding) -> Facts:
        """'Who acted in both The Godfather and Heat?': each entity's values along the chain (the single-ask path,
        so its SPARQL and facts are the ones a question about each would get), and those all of them have. A
        prediction never counts as a value here; an entity without values is said, not read as "none in common"."""
        check = understanding.shared
        items = [understanding.entities[i] for i in check.entities]
        per_item: list[list[Answer]] = []
        facts: list[Fact] = []
        sparql = []
        for entity in items:
            result = self.single(Understanding(understanding.text, Kind.FACTUAL, check.chain, [entity]))
            answers = [] if result.source == "embedding" else result.answers
            per_item.append(answers)
            facts += [f for f in result.facts if answers]
            sparql.append(result.extra.get("sparql", ""))
        base = SharedResult(chain_code(check.chain), check.asked,
                            tuple(SharedItem(e.label, e.group, tuple(a.label for a in answers)) for e, answers in zip(items, per_item)))
        missing = tuple(e.label for e, answers in zip(items, per_item) if not answers)
        if missing:
            return self._facts(understanding, [], [], replace(base, missing=missing), sparql)
        keys = [{a.iri or a.label for a in answers} for answers in per_item]
        common = [a for a in per_item[0] if all((a.iri or a.label) in k for k in keys[1:])]
        wanted = {a.iri or a.label for a in common}
        shown = facts if not common else [f for f in facts if f.value in wanted or f.value_label in wanted]
        answers = [Answer("yes" if common else "no")] if check.asked else common
        return self._facts(understanding, answers, shown, replace(base, values=tuple(a.label for a in common), holds=bool(common)), sparql)

    # --- counts of an ask's values ("How many Oscars did Aliens win?") --------------------

    def count_values(self, understanding: Understanding) -> Facts:
        aggregate = understanding.aggregate
        result = self.single(understanding.ask(0))
        counted = [a for a in result.answers if not aggregate.families or a.iri in set(aggregate.families)]
        if result.source == "embedding":
            counted = []
        facts = [f for f in result.facts if not aggregate.families or f.value in set(aggregate.families)]
        counts = ValueCountResult(aggregate.relation, understanding.entities[0].label, bool(aggregate.families), tuple(a.label for a in counted))
        return self._facts(understanding, [Answer(str(len(counted)))], facts, counts)

    # --- films that meet conditions ---------------------------------------------------

    def films(self, understanding: Understanding) -> Facts:
        constraints = understanding.constraints
        queries.check_conditions(self.kg.bundle, constraints)  # (before the film table reads them too)
        self._check_aggregate(understanding.aggregate)
        aggregate = understanding.aggregate
        bundle = self.kg.bundle
        said = [c.said for c in constraints]
        conditions = tuple(self._described(c) for c in constraints)
        if aggregate is not None and aggregate.op is AggregateOp.COUNT:
            sample, total, _ = best_matching_films(self.kg, constraints, 5)
            query = self._query("count", constraints)
            strict = None
            broad = [c for c in constraints if c.op is Op.IN and len(c.values) > 1 and self._is_genre(c)]
            if broad:
                narrowed = [replace(c, values=c.values[:1]) if c in broad else c for c in constraints]
                strict = self._count(narrowed)
            result = FilmCountResult(conditions, total, strict, tuple(label for _, label in sample))
            return self._facts(understanding, [Answer(str(total))], [], result, query)
        if aggregate is not None and aggregate.op is AggregateOp.ANY:  # "did X and Y ever work together?": yes with the films, or no
            films, total, query = best_matching_films(self.kg, constraints, SHOWN)
            facts = [Fact(iri, label, "matches", iri, label, "kg", {"conditions": said}) for iri, label in films]
            return self._facts(understanding, [Answer(label, iri) for iri, label in films], facts,
                               AnyResult(conditions, total, tuple(label for _, label in films)), query)
        if aggregate is not None and aggregate.op is AggregateOp.MOST:
            exclude = tuple(v for c in constraints if c.op is Op.IN and aggregate.relation in c.relations for v in c.values)
            slots = {"$path": queries.relations_path(bundle, (aggregate.relation,)), "$value_filter": queries.value_filter((), exclude),
                     "$limit": str(TIES)}
            if (hub := hub_films(self.kg, constraints, counted=(aggregate.relation,))) is not None:
                labels = self.kg.labels
                ids, n = self.kg.films.most_common(aggregate.relation, hub, (labels.by_iri[v] for v in exclude if v in labels.by_iri), TIES)
                query = self._query("most", constraints, **slots)
                rows = [{"value": Node(labels.iris[i], True), "n": Node(str(n), False, XSD_INTEGER)} for i in ids]
            else:
                query, rows = self._top("most", constraints, slots, "n")
            if not rows:
                left_out = tuple(self._label(v) for v in exclude)  # the values the question named: no answer, but the films may have them
                return self._facts(understanding, [], [], MostResult(conditions, aggregate.relation, empty=True, left_out=left_out), query)
            top = int(rows[0]["n"].value)
            winners = sorted(((r["value"].value, self._label(r["value"].value)) for r in rows if int(r["n"].value) == top and r["value"].is_iri),
                             key=lambda w: w[0])
            return self._facts(understanding, [Answer(label, iri) for iri, label in winners], [],
                               MostResult(conditions, aggregate.relation, top, tuple(label for _, label in winners)), query)
        if aggregate is not None and aggregate.op in (AggregateOp.MAX, AggregateOp.MIN):
            return self._ordered(understanding, constraints, aggregate, conditions)
        films, total, query = best_matching_films(self.kg, constraints, SHOWN)
        answers = [Answer(label, iri) for iri, label in films]
        facts = [Fact(iri, label, "matches", iri, label, "kg", {"conditions": said}) for iri, label in films]
        return self._facts(understanding, answers, facts, FilmsResult(conditions, total), query)

    def _check_aggregate(self, aggregate: Aggregate | None) -> None:
        """PlanError (said in words) unless the aggregate's relation can do what it asks: films are ordered by a date or a
        number (or by how many values of a relation they have), and the value most films share is an entity."""
        if aggregate is None or aggregate.op in (AggregateOp.COUNT, AggregateOp.ANY):
            return
        relation = self.kg.bundle.relations.get(aggregate.relation)
        what = f"the films by their {relation.noun}" if relation is not None else "that order of films"
        if relation is None:
            raise PlanError(f"no relation {aggregate.relation!r} to aggregate", what)
        if aggregate.op is AggregateOp.MOST and not relation.is_entity:
            raise PlanError(f"the commonest value of {relation.name} is no entity", what)
        if aggregate.op in (AggregateOp.MAX, AggregateOp.MIN) and not aggregate.families and relation.kind not in ("date", "year", "number"):
            raise PlanError(f"films cannot be ordered by the entities of {relation.name}", what)

    def _ordered(self, understanding: Understanding, constraints: list[Constraint], aggregate, conditions: tuple[Condition, ...]) -> Facts:
        bundle = self.kg.bundle
        path = queries.relations_path(bundle, (aggregate.relation,))
        counting = bool(aggregate.families)
        labels, table = self.kg.labels, self.kg.films
        date = bundle.relations[aggregate.relation].kind in ("date", "year")
        if counting:
            families = () if aggregate.families == ("*count",) else aggregate.families
            name, slots = "order_count", {"$path": path, "$value_filter": queries.value_filter(families), "$limit": str(TIES)}
            hub = hub_films(self.kg, constraints, counted=(aggregate.relation,))
            top_films = None if hub is None else \
                table.most_values(aggregate.relation, hub, (labels.by_iri[v] for v in families if v in labels.by_iri), TIES)[0]
        else:
            key = "STR(?value)" if date else "<http://www.w3.org/2001/XMLSchema#decimal>(?value)"
            name, slots = "order", {"$path": path, "$key": key, "$aggregate": "MAX" if aggregate.op is AggregateOp.MAX else "MIN",
                                    "$direction": "DESC" if aggregate.op is AggregateOp.MAX else "ASC", "$limit": str(TIES)}
            hub = hub_films(self.kg, constraints, ordered=(aggregate.relation,))
            if hub is None and aggregate.rank > 1 and len(table.films) and table.covers(constraints, (aggregate.relation,), ()):
                hub = table.matching(constraints, labels)  # a place below the top: the table's order, however few the films
            top_films = None if hub is None else table.extreme(aggregate.relation, hub, aggregate.op is AggregateOp.MAX, date, TIES, aggregate.rank)
        if top_films is None and aggregate.rank > 1:
            raise PlanError("a rank below the top needs the film table", "that order of films")
        if top_films is not None:  # the table found the top films; their rows (values as the store has them) come from SPARQL
            query = self._query(name, [Constraint((), Op.AMONG, tuple(labels.iris[i] for i in top_films)), *constraints], **slots)
            rows = self.kg.graph.select(query) if top_films else []
        else:
            query, rows = self._top(name, constraints, slots, "v")
        base = OrderedResult(conditions, aggregate.relation, aggregate.op, counting, counting and aggregate.families != ("*count",), rank=aggregate.rank)
        if not rows:
            return self._facts(understanding, [], [], replace(base, empty=True), query)
        unknown: tuple[str, ...] = ()
        if not counting and [c.op for c in constraints] == [Op.AMONG]:
            # "which of those is the longest?": a listed film without a running time might be longer; it is said
            found = queries.compose_templates()[1]["values"].render({"$items": [queries.iri(v) for v in constraints[0].values], "$path": path})
            have = {r["item"].value for r in self.kg.graph.select(found) if "item" in r}
            unknown = tuple(self._label(v) for v in constraints[0].values if v not in have)
        top = rows[0]["v"].value
        tied = [r for r in rows if r["v"].value[:10] == top[:10]] if date else [r for r in rows if r["v"].value == top]
        shown = str(int(float(top))) if counting else self._value(Node(top, False), aggregate.relation)[1]
        tied.sort(key=lambda r: r["film"].value)
        answers = [Answer(self._label(r["film"].value), r["film"].value) for r in tied]
        facts = [Fact(r["film"].value, self._label(r["film"].value), aggregate.relation, top, shown, "kg") for r in tied]
        return self._facts(understanding, answers, facts, replace(base, value=shown, unknown=unknown), query)

    def _top(self, name: str, constraints: list[Constraint], slots: dict, key: str) -> tuple[str, list]:
        """The rows of the `name` query (ordered by `key`, TIES of them) whose top value's ties are all present: the
        fast *_top form when a row with a smaller value follows the ties, else the IRI-ordered form (the same on every
        engine)."""
        query = self._query(f"{name}_top", constraints, **slots)
        rows = self.kg.graph.select(query)
        if rows and all(r[key].value == rows[0][key].value for r in rows) and len(rows) >= TIES:
            query = self._query(name, constraints, **slots)
            rows = self.kg.graph.select(query)
        return query, rows

    def _query(self, name: str, constraints, **slots) -> str:
        return queries.compose_query(name, self.kg.bundle, constraints, self.kg.labels.film_only, **slots)

    def _count(self, constraints) -> int:
        if (hub := hub_films(self.kg, constraints)) is not None:
            return int(hub.sum())
        return int(self.kg.graph.select(self._query("count", constraints))[0]["n"].value)

    def _is_genre(self, constraint: Constraint) -> bool:
        rel = self.kg.bundle.relations.get(constraint.relations[0]) if constraint.relations else None
        return rel is not None and rel.value_class == Group.GENRE

    def _described(self, constraint: Constraint) -> Condition:
        rel = self.kg.bundle.relations.get(constraint.relations[0]) if constraint.relations else None
        values = tuple(self._label(v) for v in constraint.values) if constraint.op.on_set else tuple(constraint.values)
        return Condition(constraint.op, tuple(constraint.relations), constraint.said, rel.noun if rel else "", rel.value_class or "" if rel else "", values)

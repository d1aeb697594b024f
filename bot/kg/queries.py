"""Every SPARQL query moviebot sends, and the JSON templates the answering layer fills.

Queries are built here and nowhere else. Only two kinds of values ever reach them: IRIs that
come from the KG or the bundle, and literals the code builds from typed values; both are
rendered by rdflib's terms (`URIRef.n3()`, `Literal.n3()`) after `is_safe_iri` has checked an
IRI can stand inside <...>. Text a user typed never reaches a query.

The answering templates live in `templates/*.json` (installed as bot.resources.templates),
one per hop pattern, with `$slot` placeholders for the rendered terms.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bot.core.contracts import Hop
from bot.core.errors import PlanError, TemplateError
from bot.core.terms import Op
from bot.kg.bundle import Bundle, Relation, is_safe_iri
from bot.resources import templates_dir

OWL_SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"
_SLOT = re.compile(r"\$[a-z_0-9]+")


@cache
def _terms():
    """rdflib's term classes, imported on first use (about 0.1 s, kept off the start-up path)."""
    from rdflib.term import Literal, URIRef

    return URIRef, Literal


def iri(value: str) -> str:
    """`value` as a SPARQL IRI term, `<value>`; TemplateError unless it is a safe absolute IRI."""
    if not is_safe_iri(value):
        raise TemplateError(f"unsafe IRI {value!r}")
    uri_ref, _ = _terms()
    return uri_ref(value).n3()


def literal(value, datatype: str | None = None, lang: str | None = None) -> str:
    """A Python value (str, int, float, bool, date) as a SPARQL literal term, escaped by rdflib."""
    uri_ref, literal_term = _terms()
    if datatype is not None and not is_safe_iri(datatype):
        raise TemplateError(f"unsafe datatype IRI {datatype!r}")
    return literal_term(value, datatype=uri_ref(datatype) if datatype else None, lang=lang).n3()


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    pattern: tuple[bool, ...]
    sparql: str

    def render(self, slots: dict[str, list[str] | str]) -> str:
        """Fill the slots with rendered terms (a list is written space-separated, e.g. for VALUES)."""

        def fill(match: re.Match) -> str:
            key = match.group()
            if key not in slots:
                raise TemplateError(f"template {self.name}: no value for {key}")
            value = slots[key]
            return " ".join(value) if isinstance(value, list) else value

        return _SLOT.sub(fill, self.sparql)


def load_templates(folder: Path | None = None) -> dict[tuple[bool, ...], Template]:
    """The relation-chain templates, by hop pattern (one file each; compose.json holds the compositional pieces)."""
    templates = {}
    for file in sorted((folder or templates_dir()).glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        if "pattern" not in data:
            continue
        t = Template(data["name"], data.get("description", ""), tuple(data["pattern"]), data["sparql"])
        templates[t.pattern] = t
    return templates


@cache
def compose_templates() -> tuple[dict[str, Template], dict[str, Template]]:
    """(fragments, queries) of templates/compose.json: the pieces of compositional queries."""
    data = json.loads((templates_dir() / "compose.json").read_text(encoding="utf-8"))
    fragments = {k: Template(f"compose.{k}", "", (), v) for k, v in data["fragments"].items()}
    queries = {k: Template(f"compose.{k}", "", (), v) for k, v in data["queries"].items()}
    return fragments, queries


def relations_path(bundle: Bundle, relations: tuple[str, ...]) -> str:
    """The property path from a film to the values of any of `relations` ('<P57>' or '(<P57>|<P58>)')."""
    paths = [hop_path(bundle, Hop(r, True)) for r in relations]
    return paths[0] if len(paths) == 1 else "(" + "|".join(paths) + ")"


def check_conditions(bundle: Bundle, constraints) -> None:
    """PlanError (said in words) unless every condition can be written as a query: the conversation's films resolved,
    relations the bundle has where the operator needs them, IRIs for the set operators and one number for the others."""
    for c in constraints:
        what = f'the condition "{c.said}"' if c.said else "one of its conditions"
        if c.op.conversational:  # the agent turns "of those" / "other" into the conversation's films before anything is queried
            raise PlanError(f"the condition {c.op!r} reached the query builder unresolved", "the films you mean from earlier")
        needs_relations = c.op not in (Op.AMONG, Op.NOT_AMONG)
        if needs_relations and (not c.relations or any(r not in bundle.relations for r in c.relations)):
            raise PlanError(f"{c.op!r} needs relations of the bundle, got {c.relations}", what)
        if c.op.on_set and not all(is_safe_iri(v) for v in c.values):  # (none at all: no film meets it)
            raise PlanError(f"{c.op!r} needs entity IRIs, got {c.values}", what)
        if c.op.on_year or c.op.on_number:
            try:
                if len(c.values) != 1 or float(c.values[0]) != float(c.values[0]) or abs(float(c.values[0])) == float("inf"):
                    raise ValueError(c.values)
            except ValueError:
                raise PlanError(f"{c.op!r} needs one number, got {c.values}", what) from None


def films_where(bundle: Bundle, constraints, film_only: frozenset[str] = frozenset()) -> str:
    """The WHERE block of the films that meet every constraint (bot.core.contracts.Constraint).

    `film_only`: the relations whose every film-side node is a film (LabelIndex.film_only). When a constraint on
    such relations binds ?film, or ?film is one of given films, the film-class test says nothing and is left out:
    on a hub value (a genre with thousands of films) that join costs more than the rest of the query."""
    fragments, _ = compose_templates()
    check_conditions(bundle, constraints)
    binds_films = any(c.op is Op.AMONG or (not c.op.excludes and c.relations and set(c.relations) <= film_only) for c in constraints)
    parts = [] if binds_films else [
        fragments["films"].render({"$type": iri(bundle.type_predicate), "$film_classes": [iri(c) for c in bundle.film_classes]})]
    among = []  # given films come first of all: Oxigraph joins in written order, and 200 IRIs checked one by one
    # against the other conditions cost under a millisecond where starting from a genre's thousands of films costs 30
    given = any(c.op is Op.AMONG for c in constraints)
    value_of = same_value(constraints)
    for n, c in enumerate(constraints):
        slots = {"$n": str(n), "$path": relations_path(bundle, c.relations)} if c.relations else {}
        if c.op is Op.AMONG:
            among.append(fragments["among"].render({"$values": [iri(v) for v in c.values]}))
        elif c.op is Op.NOT_AMONG:
            parts.append(fragments["not_among"].render({"$values": ", ".join(iri(v) for v in c.values)}))
        elif c.op is Op.IN and len(c.values) == 1:  # bound values first: an engine that joins in written order (Oxigraph)
            parts.insert(0, fragments["is"].render({**slots, "$value": iri(c.values[0])}))  # starts from them, not from every film
        elif c.op is Op.IN and given:
            parts.append(fragments["in_given"].render({**slots, "$values": ", ".join(iri(v) for v in c.values)}))
        elif c.op is Op.IN:
            parts.insert(0, fragments["in"].render({**slots, "$values": [iri(v) for v in c.values]}))
        elif c.op is Op.NOT_IN:
            parts.append(fragments["not_in"].render({**slots, "$values": [iri(v) for v in c.values]}))
        elif c.op.on_year:
            slots["$n"] = str(value_of[n])  # both ends of "the 1990s" hold for one and the same date
            parts.append(fragments["year"].render({**slots, "$op": c.op.symbol, "$literal": literal(int(float(c.values[0])))}))
        elif c.op.on_number:
            parts.append(fragments["number"].render({**slots, "$op": c.op.symbol, "$literal": literal(float(c.values[0]))}))
        else:
            raise PlanError(f"no query fragment for the condition operator {c.op!r}", f'the condition "{c.said or c.op}"')
    return " ".join(among + parts)


def same_value(constraints) -> list[int]:
    """For each constraint, the index of the one whose value it tests: a year range said once ("the 1990s",
    "between 1990 and 1995") holds for one date, so its lower and upper bound test the same value. A film with
    several dates (a re-release, or namesakes merged into one node) is not from the 1990s for having one date
    before and another after it."""
    first: dict[tuple, int] = {}
    out = []
    for n, c in enumerate(constraints):
        key = (tuple(c.relations), c.said) if c.op.on_year and c.said else (n,)
        out.append(first.setdefault(key, n))
    return out


def compose_query(name: str, bundle: Bundle, constraints=(), film_only: frozenset[str] = frozenset(), **slots) -> str:
    """A compositional query (templates/compose.json) over the films that meet `constraints`."""
    _, queries = compose_templates()
    return queries[name].render({"$where": films_where(bundle, constraints, film_only), **slots})


def value_filter(values: tuple[str, ...], exclude: tuple[str, ...] = ()) -> str:
    """A restriction of ?value to `values` (or away from `exclude`), for counts of Oscars or co-stars."""
    fragments, _ = compose_templates()
    if values:
        return fragments["value_in"].render({"$values": [iri(v) for v in values]})
    if exclude:
        return fragments["value_not"].render({"$values": ", ".join(iri(v) for v in exclude)})
    return ""


def relation_path(relation: Relation) -> str:
    """The relation's stored direction as a property path: <P>, or <P1>/<P2> for a relation derived through other nodes."""
    steps = "/".join(iri(p) for p in relation.path)
    return steps if not relation.derived else f"({steps})"


def hop_path(bundle: Bundle, hop: Hop) -> str:
    """<P> when the hop follows the stored triple direction, ^<P> when it goes against it."""
    rel = bundle.relations[hop.relation]
    along = (rel.direction == "forward") == hop.to_value
    return relation_path(rel) if along else "^" + relation_path(rel)


# ---------------------------------------------------------------- the label index (bot.kg.labels)


def all_labels(bundle: Bundle) -> str:
    """Every (entity, label) as ?s ?l, with ?alias true for the bundle's alias predicates (skos:altLabel, ...)."""
    if not bundle.alias_predicates:
        return f"SELECT ?s ?l WHERE {{ ?s {iri(bundle.label_predicate)} ?l }}"
    aliases = " ".join(iri(a) for a in bundle.alias_predicates)
    return (f"SELECT ?s ?l ?alias WHERE {{ {{ ?s {iri(bundle.label_predicate)} ?l }} UNION "
            f"{{ VALUES ?p {{ {aliases} }} ?s ?p ?l BIND(true AS ?alias) }} }}")


def all_types(bundle: Bundle) -> str:
    return f"SELECT ?s ?c WHERE {{ ?s {iri(bundle.type_predicate)} ?c }}"


def role_counts(relation: Relation, side: str) -> str:
    """How many `relation` triples each subject ("s") or object ("o") takes part in."""
    return f"SELECT ?{side} (COUNT(*) AS ?n) WHERE {{ ?s {relation_path(relation)} ?o }} GROUP BY ?{side}"


def dated_films(relation: Relation) -> str:
    """Every (film, date value) of the date relation, as ?film ?value."""
    film, value = ("?s", "?o") if relation.direction == "forward" else ("?o", "?s")
    return f"SELECT ({film} AS ?film) ({value} AS ?value) WHERE {{ ?s {relation_path(relation)} ?o }}"


# ---------------------------------------------------------------- single lookups


def label_of(entity: str, bundle: Bundle) -> str:
    return f"SELECT ?l WHERE {{ {iri(entity)} {iri(bundle.label_predicate)} ?l }} LIMIT 1"


def values_of(entity: str, prop: str) -> str:
    """The objects of (entity, prop, ?value)."""
    return f"SELECT ?value WHERE {{ {iri(entity)} {iri(prop)} ?value }}"


def same_as(iris: list[str]) -> str:
    """Entities linked to any of `iris` by owl:sameAs, in either direction, as ?x (the given IRI) ?e."""
    same = iri(OWL_SAME_AS)
    values = " ".join(iri(i) for i in iris)
    return f"SELECT ?x ?e WHERE {{ VALUES ?x {{ {values} }} {{ ?e {same} ?x }} UNION {{ ?x {same} ?e }} }}"


def films_linked_to(films: list[str], entity: str) -> str:
    """Which of `films` (as ?film) have any triple with `entity`, in either direction ("Olivier's Hamlet")."""
    values = " ".join(iri(f) for f in films)
    e = iri(entity)
    return f"SELECT DISTINCT ?film WHERE {{ VALUES ?film {{ {values} }} {{ ?film ?p {e} }} UNION {{ {e} ?p ?film }} }}"


def films_with_value(bundle: Bundle, relation: str, value: str) -> str:
    """The films (as ?film) whose `relation` has the value `value` (the members of a series)."""
    return f"SELECT DISTINCT ?film WHERE {{ ?film {hop_path(bundle, Hop(relation, True))} {iri(value)} }}"


def films_per_role(bundle: Bundle, person: str, relations: list[str]) -> str:
    """How many films `person` has in each of `relations` (as ?relation ?n)."""
    branches = " UNION ".join(
        f'{{ ?film {hop_path(bundle, Hop(name, True))} {iri(person)} BIND({literal(name)} AS ?relation) }}' for name in relations)
    return f"SELECT ?relation (COUNT(DISTINCT ?film) AS ?n) WHERE {{ {branches} }} GROUP BY ?relation"


def films_of_people(bundle: Bundle, people: list[str], relations: tuple[str, ...]) -> str:
    """Each of `people`'s films in any of `relations` (as ?film ?person): who is credited together (bot.kg.families)."""
    return (f"SELECT DISTINCT ?film ?person WHERE {{ VALUES ?person {{ {' '.join(iri(p) for p in people)} }} "
            f"?film {relations_path(bundle, relations)} ?person }}")


# ---------------------------------------------------------------- embeddings and recommendations


def entity_pairs(prop: str) -> str:
    """Every (subject, object) of `prop` between IRIs."""
    return f"SELECT ?s ?o WHERE {{ ?s {iri(prop)} ?o . FILTER(isIRI(?s) && isIRI(?o)) }}"


def neighbourhoods(films: list[str], forward: bool, inverse: bool) -> str:
    """Every triple around `films` (as ?film ?p ?v, ?out = whether the film is the subject).

    Lookups on a bound subject or object only, so the cost does not grow with the graph and no
    join order can turn the query into a scan."""
    branches = []
    if forward:
        branches.append("{ ?film ?p ?v . BIND(true AS ?out) }")
    if inverse:
        branches.append("{ ?v ?p ?film . BIND(false AS ?out) }")
    values = " ".join(iri(f) for f in films)
    return f"SELECT ?film ?p ?v ?out WHERE {{ VALUES ?film {{ {values} }} {' UNION '.join(branches)} FILTER(isIRI(?v)) }}"


# ---------------------------------------------------------------- explaining an empty chat query (bot.answering.sparql)


def present_literals(strings: list[tuple[str, str]]) -> str:
    """Which of the (value, language) string literals occur as the object of some triple, as ?l ("" = no tag)."""
    values = " ".join(literal(value, lang=lang or None) for value, lang in strings)
    return f"SELECT ?l WHERE {{ VALUES ?l {{ {values} }} FILTER EXISTS {{ ?s ?p ?l }} }}"


def absent_iris(iris: list[str]) -> str:
    """Which of `iris` occur in no triple at all (as subject, predicate or object), as ?i."""
    values = " ".join(iri(i) for i in iris)
    return (f"SELECT ?i WHERE {{ VALUES ?i {{ {values} }} "
            "FILTER NOT EXISTS { { ?i ?p ?o } UNION { ?s ?i ?o } UNION { ?s ?p ?i } } }")

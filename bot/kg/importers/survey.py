"""Surveying an RDF graph to describe it as a bundle, shared by `moviebot import atai` and `moviebot import rdf`.

One streaming pass with pyoxigraph (a progress bar over the bytes read) collects the types,
the English labels and how the well-known film properties are used; from that the bundle
description is inferred: the film classes, the properties present, the class groups of their
values and the kind of their values. A graph described by hand (`import rdf --description`)
gets the same pass, to count its films and relations and to refuse a graph without films.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax import SAXParseException

from bot.core.cache import byte_progress
from bot.core.errors import BundleError

from .rdfio import open_rdf, wikidata_schema

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
DDIS = "http://ddis.ch/atai/"
SCHEMA = "http://schema.org/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
XSD = "http://www.w3.org/2001/XMLSchema#"
P31 = WDT + "P31"
HUMAN = WD + "Q5"
PREFIXES = {"wd": WD, "wdt": WDT, "ddis": DDIS, "schema": SCHEMA}
# Wikidata film classes recognised even without an English label in the graph.
KNOWN_FILM_CLASSES = {
    WD + q
    for q in ("Q11424", "Q202866", "Q24862", "Q506240", "Q226730", "Q93204", "Q24869", "Q20650540", "Q229390", "Q1257444", "Q17013749")
}
FILM_CLASS_LABEL = re.compile(r"(^|\s)(film|movie)$", re.I)
NUMBER_TYPES = {XSD + t for t in ("decimal", "integer", "double", "float", "int", "long", "nonNegativeInteger", "positiveInteger")}
DATE_TYPES = {XSD + t for t in ("date", "dateTime", "gYear", "gYearMonth")}
COVERAGE = 0.95  # share of a relation's typed values its class group should cover
MAX_GROUP_CLASSES = 40


@dataclass(frozen=True)
class KnownProperty:
    """A well-known film property: its relation name, value kind and the class group of its values."""

    name: str
    iri: str
    kind: str  # entity | date | number | text
    group: str = ""  # class group name of entity values
    default_class: str = ""  # class used when no value of the property has a type in the graph
    phrasings: tuple[tuple[str, tuple[str, ...] | str], ...] = ()  # for properties without built-in phrasings
    via: str = ""  # a relation derived through the values of this film property (the author of the source work)


KNOWN_PROPERTIES = (
    KnownProperty("director", WDT + "P57", "entity", "person"),
    KnownProperty("screenwriter", WDT + "P58", "entity", "person"),
    KnownProperty("cast_member", WDT + "P161", "entity", "person"),
    KnownProperty("composer", WDT + "P86", "entity", "person"),
    KnownProperty("producer", WDT + "P162", "entity", "person"),
    KnownProperty("executive_producer", WDT + "P1431", "entity", "person"),
    KnownProperty("director_of_photography", WDT + "P344", "entity", "person"),
    KnownProperty("genre", WDT + "P136", "entity", "genre", WD + "Q201658"),
    KnownProperty("publication_date", WDT + "P577", "date"),
    KnownProperty("country_of_origin", WDT + "P495", "entity", "country", WD + "Q6256"),
    KnownProperty("original_language", WDT + "P364", "entity", "language", WD + "Q34770"),
    KnownProperty("duration", WDT + "P2047", "number"),
    KnownProperty("box_office", WDT + "P2142", "number"),
    KnownProperty("mpaa_rating", WDT + "P1657", "entity", "rating", WD + "Q23660208"),
    KnownProperty("imdb_id", WDT + "P345", "text"),
    KnownProperty("based_on", WDT + "P144", "entity", "work", WD + "Q7725634"),
    KnownProperty("award_received", WDT + "P166", "entity", "award", WD + "Q618779"),
    KnownProperty("source_author", WDT + "P50", "entity", "person", via=WDT + "P144"),
    KnownProperty("part_of_the_series", WDT + "P179", "entity", "series", WD + "Q24856"),
    KnownProperty(
        "rating", DDIS + "rating", "number", phrasings=(
            ("noun", "rating"), ("plural", "ratings"),
            ("asks", ("what is the rating of {film}", "how is {film} rated by viewers", "how good is {film}",
                      "what do people think of {film}", "is {film} any good", "{film} rating", "what is the user rating of {film}")),
            ("films", ("the films with a rating of {value}",)),
            ("finds", ("which films have a rating of {value}",)),
        ),
    ),
    KnownProperty(
        "tag", DDIS + "tag", "text", "tag", DDIS + "Tag", phrasings=(
            ("noun", "tag"), ("plural", "tags"),
            ("asks", ("what tags does {film} have", "what words describe {film}", "what are the tags of {film}",
                      "describe {film} in a few words", "keywords of {film}", "what themes does {film} have")),
            ("films", ("the films tagged {value}", "the movies tagged with {value}", "the films about {value}")),
            ("finds", ("which films are tagged {value}", "what movies are about {value}", "films tagged {value}")),
        ),
    ),
)


@dataclass
class PropertyUse:
    """What the scan saw of one property: how often, and what kind of objects."""

    triples: int = 0
    subjects: set[str] = field(default_factory=set)
    objects: set[str] = field(default_factory=set)  # distinct IRI objects
    iri_values: int = 0  # triples with an IRI object
    literal_types: Counter = field(default_factory=Counter)  # datatype -> count of literal objects


@dataclass
class GraphScan:
    triples: int = 0
    named_graph_triples: int = 0  # quads outside the default graph (TriG, N-Quads)
    types: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    labels: dict[str, str] = field(default_factory=dict)  # English labels
    uses: dict[str, PropertyUse] = field(default_factory=lambda: defaultdict(PropertyUse))

    def count_typed(self, classes) -> int:
        """How many subjects have one of `classes` as a type."""
        wanted = set(classes)
        return sum(1 for types in self.types.values() if wanted.intersection(types))


@dataclass
class Description:
    """An inferred bundle description: class groups and relations (each a known property with its value kind)."""

    classes: dict[str, list[str]]
    relations: list[tuple[KnownProperty, str]]
    absent: list[str]  # well-known relations not in the graph
    notes: list[str]

    def tables(self) -> dict:
        """The [prefixes], [schema], [classes] and [relations.*] tables of bundle.toml."""
        relations = {}
        for prop, kind in self.relations:
            table = {"property": short(prop.iri), "kind": kind} | ({"via": [short(prop.via)]} if prop.via else {})
            if kind == "entity":
                table["value_class"] = prop.group
            relations[prop.name] = {**table, **{key: value if isinstance(value, str) else list(value) for key, value in prop.phrasings}}
        return {
            "prefixes": dict(PREFIXES),
            "schema": wikidata_schema(),
            "classes": {group: [short(c) for c in iris] for group, iris in self.classes.items()},
            "relations": relations,
        }


@dataclass
class BundleReport:
    """What an importer wrote: counts, the schema it found and which files it linked."""

    out_dir: Path
    triples: int
    films: int
    people: int
    film_classes: list[str]
    relations: dict[str, int]  # relation name -> triples
    absent: list[str]  # well-known (or described) relations not in the graph
    linked: dict[str, str]  # bundle key -> relative path
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [
            f"wrote {self.out_dir / 'bundle.toml'}: {self.triples:,} triples, {self.films:,} films, {self.people:,} people",
            f"film classes: {', '.join(self.film_classes)}",
            "relations: " + ", ".join(f"{name} ({count:,})" for name, count in self.relations.items()),
        ]
        if self.absent:
            lines.append(f"not in the graph: {', '.join(self.absent)}")
        for key, path in self.linked.items():
            lines.append(f"{key}: {path}")
        lines += self.notes
        return "\n".join(lines)

    def __rich__(self):
        """Rich consoles print the plain text (not a dataclass dump, not markup)."""
        from rich.text import Text

        return Text(str(self))


def scan_graph(path: Path, syntax, type_predicate: str = P31, properties: set[str] | None = None) -> GraphScan:
    """One pass over the graph file (`syntax`: a pyoxigraph RdfFormat; .gz is decompressed) with a progress bar.

    Records the `type_predicate` types, English rdfs:labels and the use of `properties`
    (default: the well-known film properties)."""
    import pyoxigraph

    known = {p.iri for p in KNOWN_PROPERTIES} if properties is None else properties
    scan = GraphScan()
    size = path.stat().st_size
    with open(path, "rb") as raw, byte_progress() as bar:
        fh = gzip.GzipFile(fileobj=raw) if path.name.endswith(".gz") else raw
        task = bar.add_task("scanning graph", total=size)
        try:
            for n, statement in enumerate(pyoxigraph.parse(fh, syntax, base_iri=path.as_uri())):
                if n % 100_000 == 0:
                    bar.update(task, completed=raw.tell())
                scan.triples += 1
                if isinstance(statement, pyoxigraph.Quad) and not isinstance(statement.graph_name, pyoxigraph.DefaultGraph):
                    scan.named_graph_triples += 1
                s, p, o = statement.subject, statement.predicate.value, statement.object
                if not isinstance(s, pyoxigraph.NamedNode):
                    continue
                if p == type_predicate and isinstance(o, pyoxigraph.NamedNode):
                    scan.types[s.value].append(o.value)
                elif p == RDFS_LABEL and isinstance(o, pyoxigraph.Literal):
                    if (o.language or "en").split("-")[0].lower() == "en":
                        scan.labels.setdefault(s.value, o.value)
                if p in known:
                    use = scan.uses[p]
                    use.triples += 1
                    use.subjects.add(s.value)
                    if isinstance(o, pyoxigraph.NamedNode):
                        use.objects.add(o.value)
                        use.iri_values += 1
                    elif isinstance(o, pyoxigraph.Literal):
                        use.literal_types[o.datatype.value] += 1
        except SyntaxError as exc:
            raise BundleError(f"{path}: not valid {syntax.name}: {exc}{_line_hint(path, syntax, exc)}") from exc
        except (OSError, EOFError) as exc:  # a truncated or corrupt .gz
            raise BundleError(f"{path}: cannot be read: {exc}") from exc
        bar.update(task, completed=size)
    return scan


def _line_hint(path: Path, syntax, exc: SyntaxError) -> str:
    """pyoxigraph's RDF/XML errors carry no line: rdflib's parser (SAX, line-aware) finds it."""
    import pyoxigraph
    import rdflib
    from rdflib.exceptions import ParserError

    if exc.lineno is not None or syntax != pyoxigraph.RdfFormat.RDF_XML:
        return ""
    try:
        with open_rdf(path) as fh:
            rdflib.Graph().parse(fh, format="xml", publicID=path.as_uri())
    except SAXParseException as sax:
        return f" (line {sax.getLineNumber()}, column {sax.getColumnNumber()})"
    except ParserError as rdf:  # "system-id:line:column: message"
        found = re.search(r":(\d+):(\d+): ", str(rdf))
        return f" (line {found.group(1)}, column {found.group(2)})" if found else ""
    return ""


def film_classes(scan: GraphScan) -> list[str]:
    """Classes of the subjects of film properties that are known film classes or are labelled '... film'."""
    counts: Counter = Counter()
    for prop in KNOWN_PROPERTIES:
        if prop.via:
            continue  # its subjects are the works films are based on, not films
        for subject in scan.uses.get(prop.iri, PropertyUse()).subjects:
            counts.update(scan.types.get(subject, ()))
    return sorted(
        (c for c in counts if c in KNOWN_FILM_CLASSES or FILM_CLASS_LABEL.search(scan.labels.get(c, ""))),
        key=lambda c: (-counts[c], c),
    )


def infer_description(scan: GraphScan, where: Path) -> Description:
    """The bundle description a Wikidata-shaped graph supports; BundleError when it has no films or no film properties."""
    films = film_classes(scan)
    if not films:
        raise BundleError(f"{where}: no films found (no subject of a well-known film property has a wdt:P31 film class)")
    present = [p for p in KNOWN_PROPERTIES if scan.uses.get(p.iri, PropertyUse()).triples and _reached(scan, p)]
    if not present:
        raise BundleError(f"{where}: none of the well-known film properties ({', '.join(p.name for p in KNOWN_PROPERTIES)}) occur")
    notes: list[str] = []
    relations = []
    for prop in present:
        kind = _kind(prop, scan.uses[prop.iri])
        if kind != prop.kind:
            notes.append(f"{prop.name}: most values are {'IRIs' if kind == 'entity' else 'literals'}; imported as kind {kind}")
        relations.append((prop, kind))
    classes = {"film": films, "person": [HUMAN]}
    classes.update(_value_groups(scan, [p for p, kind in relations if kind == "entity"], set(films)))
    return Description(classes, relations, [p.name for p in KNOWN_PROPERTIES if p not in present], notes)


def _reached(scan: GraphScan, prop: KnownProperty) -> bool:
    """A derived relation is there when some value of the property it goes through has the property."""
    if not prop.via:
        return True
    return bool(scan.uses.get(prop.via, PropertyUse()).objects & scan.uses[prop.iri].subjects)


def _value_groups(scan: GraphScan, entity_props: list[KnownProperty], film_set: set[str]) -> dict[str, list[str]]:
    """Class groups of entity values: the classes covering most values of each property, each class in one group."""
    taken = film_set | {HUMAN}
    groups: dict[str, list[str]] = {}
    for prop in sorted((p for p in entity_props if p.group != "person"), key=lambda p: -len(scan.uses[p.iri].objects)):
        counts: Counter = Counter()
        for value in scan.uses[prop.iri].objects:
            counts.update(set(scan.types.get(value, ())) - taken)
        total = sum(counts.values())
        chosen: list[str] = []
        covered = 0
        for cls, n in counts.most_common(MAX_GROUP_CLASSES):
            if chosen and covered >= COVERAGE * total:
                break
            chosen.append(cls)
            covered += n
        groups[prop.group] = sorted(chosen) or [prop.default_class]
        taken.update(chosen)
    return groups


def _kind(prop: KnownProperty, use: PropertyUse) -> str:
    """The value kind the graph supports: entity when most values are IRIs, else the literal kind."""
    literals = sum(use.literal_types.values())
    if prop.group and use.iri_values >= literals:
        return "entity"
    if prop.kind != "entity":
        return prop.kind
    datatype = use.literal_types.most_common(1)[0][0]
    return "number" if datatype in NUMBER_TYPES else "date" if datatype in DATE_TYPES else "text"


def short(iri: str) -> str:
    """The CURIE of `iri` with one of PREFIXES, else `<iri>` (bundle.toml accepts both)."""
    for prefix, ns in PREFIXES.items():
        if iri.startswith(ns) and re.fullmatch(r"[A-Za-z0-9_]+", iri[len(ns):]):
            return f"{prefix}:{iri[len(ns):]}"
    return f"<{iri}>"


def report(out_dir: Path, scan: GraphScan, description: Description, linked: dict[str, str], notes: list[str]) -> BundleReport:
    """The report of a bundle with an inferred description."""
    return BundleReport(
        out_dir=out_dir,
        triples=scan.triples,
        films=scan.count_typed(description.classes["film"]),
        people=scan.count_typed(description.classes["person"]),
        film_classes=[short(c) for c in description.classes["film"]],
        relations={prop.name: scan.uses[prop.iri].triples for prop, _ in description.relations},
        absent=description.absent,
        linked=linked,
        notes=notes,
    )

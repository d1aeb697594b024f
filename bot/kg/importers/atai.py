"""Import the university course's (ATAI) Wikidata movie-graph layout as a moviebot bundle.

The layout is a folder with `14_graph.nt` (Wikidata IRIs, rdfs:label, wdt:P31 types,
ddis:rating / ddis:tag, schema:description; the course parses it as Turtle) and,
optionally, `crowd_data.tsv`, `images.json` and the graph embeddings (`entity_ids.del`,
`relation_ids.del`, `entity_embeds.npy`, `relation_embeds.npy`), each in the folder or
one level below it. The graph is scanned once to find which well-known film properties
are present, which classes the films have and which classes each property's values
have; the bundle refers to the source files by relative links, never by copies.
"""

from __future__ import annotations

import os
import re
import shutil
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bot.core.cache import byte_progress

from .rdfio import schema_header, toml_list, toml_string

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
DDIS = "http://ddis.ch/atai/"
SCHEMA = "http://schema.org/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
XSD = "http://www.w3.org/2001/XMLSchema#"
P31 = WDT + "P31"
HUMAN = WD + "Q5"
GRAPH_FILE = "14_graph.nt"
EMBEDDING_FILES = ("entity_ids.del", "relation_ids.del", "entity_embeds.npy", "relation_embeds.npy")
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
    types: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    labels: dict[str, str] = field(default_factory=dict)  # English labels
    uses: dict[str, PropertyUse] = field(default_factory=lambda: defaultdict(PropertyUse))


@dataclass
class AtaiImportReport:
    """What `import_atai` wrote: counts, the schema it found and which optional files it linked."""

    out_dir: Path
    triples: int
    films: int
    people: int
    film_classes: list[str]
    relations: dict[str, int]  # relation name -> triples
    absent: list[str]  # well-known relations not in the graph
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


def import_atai(src: Path, out_dir: Path) -> AtaiImportReport:
    """Scan the course layout in `src` and write a bundle (bundle.toml + links) into `out_dir`."""
    src, out_dir = Path(src).resolve(), Path(out_dir).resolve()
    graph = src / GRAPH_FILE
    if not graph.is_file():
        raise FileNotFoundError(f"{graph} does not exist: the course layout needs {GRAPH_FILE}")
    scan = scan_graph(graph)
    out_dir.mkdir(parents=True, exist_ok=True)
    film_classes = _film_classes(scan)
    if not film_classes:
        raise ValueError(f"{graph}: no film classes found (no subject of a film property has a wdt:P31 type)")
    film_set = set(film_classes)
    present = [p for p in KNOWN_PROPERTIES if scan.uses.get(p.iri, PropertyUse()).triples]
    if not present:
        raise ValueError(f"{graph}: none of the well-known film properties ({', '.join(p.name for p in KNOWN_PROPERTIES)}) occur")
    notes: list[str] = []
    relations = []
    for prop in present:
        kind = _kind(prop, scan.uses[prop.iri])
        if kind != prop.kind:
            notes.append(f"{prop.name}: most values are {'IRIs' if kind == 'entity' else 'literals'}; imported as kind {kind}")
        relations.append((prop, kind))
    classes = {"film": film_classes, "person": [HUMAN]}
    classes.update(_value_groups(scan, [p for p, kind in relations if kind == "entity"], film_set))
    linked = {"graph": _link(graph, out_dir / "graph.ttl", out_dir)}
    linked.update(_optional_files(src, out_dir, notes))
    (out_dir / "bundle.toml").write_text(_bundle_toml(src, classes, relations, linked), encoding="utf-8")
    films = sum(1 for cls in scan.types.values() if film_set.intersection(cls))
    people = sum(1 for cls in scan.types.values() if HUMAN in cls)
    return AtaiImportReport(
        out_dir=out_dir,
        triples=scan.triples,
        films=films,
        people=people,
        film_classes=[_short(c) for c in film_classes],
        relations={prop.name: scan.uses[prop.iri].triples for prop, _ in relations},
        absent=[p.name for p in KNOWN_PROPERTIES if p not in present],
        linked=linked,
        notes=notes,
    )


def scan_graph(path: Path) -> GraphScan:
    """One pass over the graph (parsed as Turtle, a superset of N-Triples) with a progress bar."""
    import pyoxigraph

    known = {p.iri for p in KNOWN_PROPERTIES}
    scan = GraphScan()
    with open(path, "rb") as fh, byte_progress() as bar:
        task = bar.add_task("scanning graph", total=path.stat().st_size)
        try:
            for n, triple in enumerate(pyoxigraph.parse(fh, pyoxigraph.RdfFormat.TURTLE, base_iri=path.as_uri())):
                if n % 100_000 == 0:
                    bar.update(task, completed=fh.tell())
                scan.triples += 1
                s, p, o = triple.subject, triple.predicate.value, triple.object
                if not isinstance(s, pyoxigraph.NamedNode):
                    continue
                if p == P31 and isinstance(o, pyoxigraph.NamedNode):
                    scan.types[s.value].append(o.value)
                elif p == RDFS_LABEL and isinstance(o, pyoxigraph.Literal):
                    if (o.language or "en").split("-")[0].lower() == "en":
                        scan.labels.setdefault(s.value, o.value)
                elif p in known:
                    use = scan.uses[p]
                    use.triples += 1
                    use.subjects.add(s.value)
                    if isinstance(o, pyoxigraph.NamedNode):
                        use.objects.add(o.value)
                        use.iri_values += 1
                    elif isinstance(o, pyoxigraph.Literal):
                        use.literal_types[o.datatype.value] += 1
        except SyntaxError as exc:
            raise ValueError(f"{path}: not valid Turtle/N-Triples: {exc}") from exc
        bar.update(task, completed=path.stat().st_size)
    return scan


def _film_classes(scan: GraphScan) -> list[str]:
    """Classes of the subjects of film properties that are known film classes or are labelled '... film'."""
    counts: Counter = Counter()
    for prop in KNOWN_PROPERTIES:
        for subject in scan.uses.get(prop.iri, PropertyUse()).subjects:
            counts.update(scan.types.get(subject, ()))
    return sorted(
        (c for c in counts if c in KNOWN_FILM_CLASSES or FILM_CLASS_LABEL.search(scan.labels.get(c, ""))),
        key=lambda c: (-counts[c], c),
    )


def _value_groups(scan: GraphScan, entity_props: list[KnownProperty], film_classes: set[str]) -> dict[str, list[str]]:
    """Class groups of entity values: the classes covering most values of each property, each class in one group."""
    taken = film_classes | {HUMAN}
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


def _find(src: Path, name: str) -> Path | None:
    """`name` in `src` or in one of its subfolders."""
    direct = src / name
    if direct.is_file():
        return direct
    return next((p for p in sorted(src.glob(f"*/{name}")) if p.is_file()), None)


def _link(target: Path, link: Path, out_dir: Path) -> str:
    """A relative symlink `link` -> `target` (a copy where symlinks are impossible); its path relative to out_dir."""
    if link.is_symlink() or link.exists():
        link.unlink()
    try:
        link.symlink_to(os.path.relpath(target, link.parent))
    except OSError:
        shutil.copyfile(target, link)
    return link.relative_to(out_dir).as_posix()


def _optional_files(src: Path, out_dir: Path, notes: list[str]) -> dict[str, str]:
    linked: dict[str, str] = {}
    crowd = _find(src, "crowd_data.tsv")
    if crowd:
        linked["crowd"] = os.path.relpath(crowd, out_dir)
    images = _find(src, "images.json")
    if images:
        linked["images"] = os.path.relpath(images, out_dir)
    found = {name: _find(src, name) for name in EMBEDDING_FILES}
    if all(found.values()):
        folder = out_dir / "embeddings"
        folder.mkdir(exist_ok=True)
        for name, path in found.items():
            _link(path, folder / name, out_dir)
        linked["embeddings"] = "embeddings"
        notes.append(_embedding_note(found))
    elif any(found.values()):
        missing = [name for name, path in found.items() if path is None]
        notes.append(f"embeddings skipped: {', '.join(missing)} missing")
    return linked


def _embedding_note(found: dict[str, Path]) -> str:
    import numpy as np

    entities = np.load(found["entity_embeds.npy"], mmap_mode="r")
    relations = np.load(found["relation_embeds.npy"], mmap_mode="r")
    return f"embedding matrices: {entities.shape[0]:,} entities x {entities.shape[-1]}, {relations.shape[0]:,} relations x {relations.shape[-1]}"


def _short(iri: str) -> str:
    for prefix, ns in (("wd", WD), ("wdt", WDT), ("ddis", DDIS), ("schema", SCHEMA)):
        if iri.startswith(ns) and re.fullmatch(r"[A-Za-z0-9_]+", iri[len(ns):]):
            return f"{prefix}:{iri[len(ns):]}"
    return f"<{iri}>"


def _bundle_toml(src: Path, classes: dict[str, list[str]], relations: list[tuple[KnownProperty, str]], linked: dict[str, str]) -> str:
    out = [
        f"# Generated by `moviebot import atai` from {src}; files are linked, not copied.",
        "[bundle]",
        'name = "atai"',
        f"description = {toml_string(f'Course (ATAI) Wikidata movie graph imported from {src.name}')}",
        f"graph = {toml_list([linked['graph']])}",
    ]
    if "crowd" in linked:
        out.append(f"crowd = {toml_list([linked['crowd']])}")
    for key in ("images", "embeddings"):
        if key in linked:
            out.append(f"{key} = {toml_string(linked[key])}")
    out += [
        "",
        *schema_header({"wd": WD, "wdt": WDT, "ddis": DDIS, "schema": SCHEMA}),
    ]
    out += [f"{group} = {toml_list([_short(c) for c in iris])}" for group, iris in classes.items()]
    out += ["", "# Relations without phrasings use moviebot's built-ins for the property (bot/phrasings.toml)."]
    for prop, kind in relations:
        out += ["", f"[relations.{prop.name}]", f'property = "{_short(prop.iri)}"', f'kind = "{kind}"']
        if kind == "entity":
            out.append(f'value_class = "{prop.group}"')
        for key, value in prop.phrasings:
            out.append(f"{key} = {toml_string(value) if isinstance(value, str) else toml_list(value)}")
    return "\n".join(out) + "\n"

#!/usr/bin/env python3
"""Compile the hand-curated demo KG sources into an RDF bundle.

Reads every ``kg/src/*.toml`` file (film entries ``[[film]]``, optional person
entries ``[[person]]`` and vocabulary entries ``[[genre]]``, ``[[country]]``,
``[[language]]``, ``[[award]]``, ``[[mpaa]]``, ``[[work]]``), validates them and
writes ``kg/graph.ttl`` (Wikidata-style triples, an rdflib Graph serialised as
Turtle: the same sources always give the same bytes) and ``kg/bundle.toml``
(written with tomli-w).

Any validation problem (duplicate ids, unknown vocabulary labels, malformed
dates or identifiers, unknown keys, ...) is reported with file and entry and
the script exits with status 1 without writing anything.

Usage::

    python scripts/compile_demo_kg.py [--src kg/src] [--out kg]
"""

from __future__ import annotations

import argparse
import datetime
import io
import re
import sys
import tomllib
import unicodedata
from pathlib import Path

import tomli_w
from rdflib import Graph, Literal, URIRef
from rdflib.plugins.serializers.turtle import TurtleSerializer

REPO = Path(__file__).resolve().parent.parent

MB = "http://moviebot.invalid/entity/"
PREFIXES = {
    "mb": MB,
    "wd": "http://www.wikidata.org/entity/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
}

FILM_CLASS = "wd:Q11424"
ANIMATED_CLASS = "wd:Q202866"
HUMAN_CLASS = "wd:Q5"
RATING_CLASS = "mb:class-mpaa-film-rating"
SERIES_CLASS = "wd:Q24856"  # film series

# vocabulary kind -> (IRI slug prefix, class CURIE(s) of its entities)
VOCAB_KINDS = {
    "genre": ("genre", "wd:Q201658"),
    "country": ("country", "wd:Q6256"),
    "language": ("language", "wd:Q34770"),
    "award": ("award", "wd:Q618779"),
    "mpaa": ("rating", RATING_CLASS),
    "work": ("work", None),  # class given by the entry's ``form``
}
WORK_FORMS = {
    "play": "wd:Q25379",
    "novel": "wd:Q8261",
    "short story": "wd:Q49084",
    "fairy tale": "wd:Q699",
    "comics": "wd:Q1004",
    "book": "wd:Q571",
    "literary work": "wd:Q7725634",
    "television series": "wd:Q5398426",
    "video game": "wd:Q7889",
}

# film list keys -> (property, vocabulary kind or None for people)
LIST_FIELDS = {
    "directors": ("wdt:P57", None),
    "screenwriters": ("wdt:P58", None),
    "cast": ("wdt:P161", None),
    "composers": ("wdt:P86", None),
    "producers": ("wdt:P162", None),
    "executive_producers": ("wdt:P1431", None),
    "cinematographers": ("wdt:P344", None),
    "genres": ("wdt:P136", "genre"),
    "countries": ("wdt:P495", "country"),
    "languages": ("wdt:P364", "language"),
    "based_on": ("wdt:P144", "work"),
    "awards": ("wdt:P166", "award"),
}
SCALAR_FIELDS = {"id", "title", "date", "year", "animated", "duration",
                 "box_office", "mpaa", "imdb", "qid"}
PERSON_FIELDS = {"name", "imdb", "qid"}
VOCAB_FIELDS = {"label", "qid", "author", "form"}

# predicate order inside a subject block
PREDICATE_ORDER = ["rdfs:label", "wdt:P31", "owl:sameAs", "wdt:P577", "wdt:P57",
                   "wdt:P58", "wdt:P161", "wdt:P86", "wdt:P162", "wdt:P1431",
                   "wdt:P344", "wdt:P136", "wdt:P495", "wdt:P364", "wdt:P2047",
                   "wdt:P2142", "wdt:P1657", "wdt:P144", "wdt:P166", "wdt:P179", "wdt:P50",
                   "wdt:P345"]

# relation name -> (property, kind, value class group, noun, plural)
RELATIONS = [
    ("director", "wdt:P57", "entity", "person", "director", "directors"),
    ("screenwriter", "wdt:P58", "entity", "person", "screenwriter", "screenwriters"),
    ("cast_member", "wdt:P161", "entity", "person", "cast member", "cast members"),
    ("composer", "wdt:P86", "entity", "person", "composer", "composers"),
    ("producer", "wdt:P162", "entity", "person", "producer", "producers"),
    ("executive_producer", "wdt:P1431", "entity", "person",
     "executive producer", "executive producers"),
    ("director_of_photography", "wdt:P344", "entity", "person",
     "director of photography", "directors of photography"),
    ("genre", "wdt:P136", "entity", "genre", "genre", "genres"),
    ("publication_date", "wdt:P577", "date", None, "publication date", "publication dates"),
    ("country_of_origin", "wdt:P495", "entity", "country",
     "country of origin", "countries of origin"),
    ("original_language", "wdt:P364", "entity", "language",
     "original language", "original languages"),
    ("duration", "wdt:P2047", "number", None, "duration", "durations"),
    ("box_office", "wdt:P2142", "number", None, "box office", "box office figures"),
    ("mpaa_rating", "wdt:P1657", "entity", "rating", "MPAA film rating", "MPAA film ratings"),
    ("imdb_id", "wdt:P345", "text", None, "IMDb ID", "IMDb IDs"),
    ("based_on", "wdt:P144", "entity", "work", "source work", "source works"),
    ("award_received", "wdt:P166", "entity", "award", "award", "awards"),
    ("part_of_the_series", "wdt:P179", "entity", "series", "series", "series"),
]

GENERATED_TTL = "# Generated by scripts/compile_demo_kg.py from kg/src/*.toml - do not edit."
GENERATED_TOML = "# Generated by scripts/compile_demo_kg.py - do not edit; see kg/README.md."

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
FILM_IMDB_RE = re.compile(r"^tt\d{7,8}$")
PERSON_IMDB_RE = re.compile(r"^nm\d{7,8}$")
QID_RE = re.compile(r"^Q[1-9]\d*$")


class CompileError(Exception):
    """Raised with a list of validation messages when the sources are invalid."""

    def __init__(self, messages: list[str]):
        super().__init__("\n".join(messages))
        self.messages = messages


def slugify(text: str) -> str:
    """Return the IRI slug of a name or label (ASCII, lowercase, hyphenated)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ascii_text = ascii_text.replace("&", " and ").replace("'", "").replace("’", "")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def iri(curie: str) -> URIRef:
    """The IRI of a CURIE with one of PREFIXES."""
    prefix, _, local = curie.partition(":")
    return URIRef(PREFIXES[prefix] + local)


def literal(text: str, lang: str | None = None, datatype: str | None = None) -> Literal:
    """A literal with its lexical form kept exactly as given (rdflib does the escaping)."""
    return Literal(text, lang=lang, datatype=iri(datatype) if datatype else None, normalize=False)


class LosslessTurtleSerializer(TurtleSerializer):
    """rdflib's Turtle serializer, writing a literal in its short form only when that keeps its lexical form.

    rdflib writes ``"126"^^xsd:decimal`` as ``126.0`` (a Turtle decimal needs a point), which
    reads back as another literal; the demo graph must round-trip term for term. Subjects come
    in rdflib's order (by how often they are referenced, then by IRI); predicates follow
    PREDICATE_ORDER (label and type first)."""

    predicateOrder = [iri(p) for p in PREDICATE_ORDER]

    def label(self, node, position):
        short = super().label(node, position)
        if isinstance(node, Literal) and node.datatype is not None and not short.startswith('"') and short != str(node):
            return node.n3(self.store.namespace_manager)
        return short


def to_turtle(graph: Graph) -> str:
    """Serialise the graph as Turtle with the bundle's prefixes; the bytes depend only on the triples."""
    stream = io.BytesIO()
    LosslessTurtleSerializer(graph).serialize(stream, encoding="utf-8")
    return f"{GENERATED_TTL}\n{stream.getvalue().decode('utf-8')}"


def new_graph() -> Graph:
    """An empty graph with exactly the bundle's prefixes bound."""
    graph = Graph(bind_namespaces="none")
    for prefix, namespace in PREFIXES.items():
        graph.bind(prefix, namespace)
    return graph


class Compiler:
    """Validates the parsed source files and builds the graph."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.vocab: dict[str, dict[str, dict]] = {k: {} for k in VOCAB_KINDS}
        self.films: list[tuple[str, dict]] = []
        self.aliases: list[tuple[str, dict]] = []  # [[alias]] film = id, titles = [...]: other names of a film
        self.series: list[tuple[str, dict]] = []  # [[series]] label, qid, films = [ids] (from Wikidata, see kg/README.md)
        self.persons: dict[str, tuple[str, dict]] = {}
        self.person_slugs: dict[str, str] = {}
        self.graph = new_graph()

    def add(self, s: str, p: str, o: str | Literal) -> None:
        """Add one triple: subject and predicate CURIEs, an object CURIE or literal."""
        self.graph.add((iri(s), iri(p), o if isinstance(o, Literal) else iri(o)))

    def error(self, where: str, message: str) -> None:
        """Record a validation error."""
        self.errors.append(f"{where}: {message}")

    # ------------------------------------------------------------ loading
    def load(self, path: Path) -> None:
        """Parse one source file and collect its entries."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            self.error(path.name, f"cannot parse: {exc}")
            return
        for key, entries in data.items():
            if key not in VOCAB_KINDS and key not in ("film", "person", "alias", "series"):
                self.error(path.name, f"unknown top-level table [[{key}]]")
                continue
            if not isinstance(entries, list):
                self.error(path.name, f"'{key}' must be an array of tables [[{key}]]")
                continue
            for n, entry in enumerate(entries, 1):
                where = f"{path.name} [[{key}]] #{n}"
                if key == "film":
                    self.films.append((f"{path.name} film '{entry.get('id', '#' + str(n))}'", entry))
                elif key == "alias":
                    self.aliases.append((where, entry))
                elif key == "series":
                    self.series.append((where, entry))
                elif key == "person":
                    self.load_person(where, entry)
                else:
                    self.load_vocab(key, where, entry)

    def load_vocab(self, kind: str, where: str, entry: dict) -> None:
        """Register one vocabulary entry."""
        unknown = set(entry) - VOCAB_FIELDS
        if unknown:
            self.error(where, f"unknown keys {sorted(unknown)}")
        label = entry.get("label")
        if not isinstance(label, str) or not label.strip():
            self.error(where, "missing 'label'")
            return
        where = f"{where} '{label}'"
        if label in self.vocab[kind]:
            self.error(where, f"duplicate {kind} label")
            return
        slugs = {slugify(lbl) for lbl in self.vocab[kind]}
        if slugify(label) in slugs:
            self.error(where, f"{kind} label collides with another label's IRI slug")
        if "qid" in entry and not QID_RE.match(str(entry["qid"])):
            self.error(where, f"bad qid {entry['qid']!r}")
        author = entry.get("author", [])
        if not isinstance(author, (str, list)):
            self.error(where, "'author' must be a name or a list of names")
        if kind == "work":
            if entry.get("form", "literary work") not in WORK_FORMS:
                self.error(where, f"unknown form {entry.get('form')!r}; use one of {sorted(WORK_FORMS)}")
        elif "author" in entry or "form" in entry:
            self.error(where, "'author'/'form' are only allowed on [[work]]")
        self.vocab[kind][label] = entry

    def load_person(self, where: str, entry: dict) -> None:
        """Register extra facts for one person."""
        unknown = set(entry) - PERSON_FIELDS
        if unknown:
            self.error(where, f"unknown keys {sorted(unknown)}")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            self.error(where, "missing 'name'")
            return
        if name in self.persons:
            self.error(where, f"duplicate [[person]] entry for {name!r} (first in {self.persons[name][0]})")
            return
        if "imdb" in entry and not PERSON_IMDB_RE.match(str(entry["imdb"])):
            self.error(where, f"bad person IMDb id {entry['imdb']!r}")
        if "qid" in entry and not QID_RE.match(str(entry["qid"])):
            self.error(where, f"bad qid {entry['qid']!r}")
        self.persons[name] = (where, entry)

    # ----------------------------------------------------------- building
    def person(self, where: str, name: object) -> str | None:
        """Return the CURIE of a person, adding its label and type; None if invalid."""
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            self.error(where, f"bad person name {name!r}")
            return None
        slug = slugify(name)
        if not slug:
            self.error(where, f"person name {name!r} has an empty slug")
            return None
        other = self.person_slugs.setdefault(slug, name)
        if other != name:
            self.error(where, f"person {name!r} is spelled differently elsewhere: {other!r}")
            return None
        curie = f"mb:person-{slug}"
        self.add(curie, "rdfs:label", literal(name, lang="en"))
        self.add(curie, "wdt:P31", HUMAN_CLASS)
        return curie

    def vocab_term(self, kind: str, where: str, label: object) -> str | None:
        """Return the CURIE of a vocabulary entry; None (and an error) if unknown."""
        if not isinstance(label, str) or label not in self.vocab[kind]:
            self.error(where, f"unknown {kind} {label!r} (add it to kg/src/vocab.toml)")
            return None
        return f"mb:{VOCAB_KINDS[kind][0]}-{slugify(label)}"

    def build_vocab(self) -> None:
        """Emit the vocabulary entities that films use (plus work authors)."""
        used: dict[str, set[str]] = {k: set() for k in VOCAB_KINDS}
        for _, film in self.films:
            for key, (_, kind) in LIST_FIELDS.items():
                if kind and isinstance(film.get(key), list):
                    used[kind].update(v for v in film[key] if isinstance(v, str))
            if isinstance(film.get("mpaa"), str):
                used["mpaa"].add(film["mpaa"])
        for kind, entries in self.vocab.items():
            prefix, cls = VOCAB_KINDS[kind]
            for label, entry in entries.items():
                if label not in used[kind]:
                    continue
                curie = f"mb:{prefix}-{slugify(label)}"
                self.add(curie, "rdfs:label", literal(label, lang="en"))
                self.add(curie, "wdt:P31", WORK_FORMS[entry.get("form", "literary work")]
                         if kind == "work" else cls)
                if "qid" in entry:
                    self.add(curie, "owl:sameAs", f"wd:{entry['qid']}")
                authors = entry.get("author", [])
                for name in [authors] if isinstance(authors, str) else authors:
                    author = self.person(f"vocab work '{label}'", name)
                    if author:
                        self.add(curie, "wdt:P50", author)

    def build_aliases(self, film_ids: dict) -> None:
        """skos:altLabel triples for the films' other titles (each film must exist, each title be new)."""
        for where, entry in self.aliases:
            fid, titles = entry.get("film"), entry.get("titles")
            if set(entry) - {"film", "titles"}:
                self.error(where, f"unknown keys {sorted(set(entry) - {'film', 'titles'})}")
            if fid not in film_ids:
                self.error(where, f"no film with id {fid!r}")
                continue
            if not isinstance(titles, list) or not all(isinstance(t, str) and t.strip() for t in titles):
                self.error(where, "titles must be a list of non-empty strings")
                continue
            for title in titles:
                self.add(f"mb:film-{fid}", "skos:altLabel", literal(title.strip(), lang="en"))

    def build_series(self, film_ids: dict) -> None:
        """Film series (wd:Q24856) and their films (wdt:P179)."""
        seen: dict[str, str] = {}
        for where, entry in self.series:
            label, qid, films = entry.get("label"), entry.get("qid"), entry.get("films")
            if set(entry) - {"label", "qid", "films"}:
                self.error(where, f"unknown keys {sorted(set(entry) - {'label', 'qid', 'films'})}")
            if not isinstance(label, str) or not label.strip() or not isinstance(qid, str) or not QID_RE.match(qid):
                self.error(where, "a series needs a label and a Q-id")
                continue
            curie = f"mb:series-{slugify(label)}"
            if curie in seen and seen[curie] != qid:
                curie = f"mb:series-{slugify(label)}-{qid.lower()}"
            seen[curie] = qid
            self.add(curie, "rdfs:label", literal(label.strip(), lang="en"))
            self.add(curie, "wdt:P31", SERIES_CLASS)
            self.add(curie, "owl:sameAs", f"wd:{qid}")
            for fid in films if isinstance(films, list) else []:
                if fid not in film_ids:
                    self.error(where, f"no film with id {fid!r}")
                    continue
                self.add(f"mb:film-{fid}", "wdt:P179", curie)

    def build_film(self, where: str, film: dict, seen_ids: dict, seen_ext: dict) -> None:
        """Validate one film entry and emit its triples."""
        unknown = set(film) - SCALAR_FIELDS - set(LIST_FIELDS)
        if unknown:
            self.error(where, f"unknown keys {sorted(unknown)}")
        fid = film.get("id")
        if not isinstance(fid, str) or not ID_RE.match(fid):
            self.error(where, f"bad or missing id {fid!r} (lowercase slug expected)")
            return
        if fid in seen_ids:
            self.error(where, f"duplicate film id (first in {seen_ids[fid]})")
            return
        seen_ids[fid] = where
        s = f"mb:film-{fid}"
        title = film.get("title")
        if not isinstance(title, str) or not title.strip():
            self.error(where, "missing 'title'")
            return
        self.check_unique(where, "title and year", f"{title.casefold()} ({film.get('year')})", seen_ext)
        self.add(s, "rdfs:label", literal(title, lang="en"))
        self.add(s, "wdt:P31", FILM_CLASS)
        animated = film.get("animated", False)
        if not isinstance(animated, bool):
            self.error(where, "'animated' must be true or false")
        elif animated:
            self.add(s, "wdt:P31", ANIMATED_CLASS)
        self.build_date(where, s, film)
        for key, (prop, kind) in LIST_FIELDS.items():
            values = film.get(key, [])
            if not isinstance(values, list):
                self.error(where, f"'{key}' must be a list")
                continue
            if len(set(map(str, values))) != len(values):
                self.error(where, f"duplicate values in '{key}'")
            for value in values:
                o = self.vocab_term(kind, where, value) if kind else self.person(where, value)
                if o:
                    self.add(s, prop, o)
        for key, prop in (("duration", "wdt:P2047"), ("box_office", "wdt:P2142")):
            if key in film:
                value = film[key]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                    self.error(where, f"'{key}' must be a positive number")
                else:
                    self.add(s, prop, literal(format_number(value), datatype="xsd:decimal"))
        if "mpaa" in film:
            o = self.vocab_term("mpaa", where, film["mpaa"])
            if o:
                self.add(s, "wdt:P1657", o)
        if "imdb" in film:
            if not FILM_IMDB_RE.match(str(film["imdb"])):
                self.error(where, f"bad film IMDb id {film['imdb']!r}")
            elif self.check_unique(where, "imdb", film["imdb"], seen_ext):
                self.add(s, "wdt:P345", literal(film["imdb"]))
        if "qid" in film:
            if not QID_RE.match(str(film["qid"])):
                self.error(where, f"bad qid {film['qid']!r}")
            elif self.check_unique(where, "qid", film["qid"], seen_ext):
                self.add(s, "owl:sameAs", f"wd:{film['qid']}")

    def check_unique(self, where: str, key: str, value: str, seen: dict) -> bool:
        """Report an external id used by two entities; True when it is new."""
        first = seen.setdefault((key, value), where)
        if first != where:
            self.error(where, f"{key} {value} already used by {first}")
            return False
        return True

    def build_date(self, where: str, s: str, film: dict) -> None:
        """Emit P577 as xsd:date (full date) or xsd:gYear (year only)."""
        year, date = film.get("year"), film.get("date")
        if year is not None and (isinstance(year, bool) or not isinstance(year, int)
                                 or not 1870 <= year <= 2030):
            self.error(where, f"bad year {year!r}")
            return
        if date is not None:
            if not isinstance(date, str) or not DATE_RE.match(date):
                self.error(where, f"bad date {date!r} (YYYY-MM-DD expected)")
                return
            try:
                parsed = datetime.date.fromisoformat(date)
            except ValueError:
                self.error(where, f"invalid date {date!r}")
                return
            if year is not None and parsed.year != year:
                self.error(where, f"date {date} does not match year {year}")
                return
            self.add(s, "wdt:P577", literal(date, datatype="xsd:date"))
        elif year is not None:
            self.add(s, "wdt:P577", literal(str(year), datatype="xsd:gYear"))

    def build_persons(self, seen_ext: dict) -> None:
        """Attach the extra [[person]] facts; every such person must occur in the graph."""
        for name, (where, entry) in sorted(self.persons.items()):
            slug = slugify(name)
            if self.person_slugs.get(slug) != name:
                self.error(where, f"person {name!r} does not occur in any film or work")
                continue
            curie = f"mb:person-{slug}"
            if "imdb" in entry and self.check_unique(where, "imdb", entry["imdb"], seen_ext):
                self.add(curie, "wdt:P345", literal(entry["imdb"]))
            if "qid" in entry and self.check_unique(where, "qid", entry["qid"], seen_ext):
                self.add(curie, "owl:sameAs", f"wd:{entry['qid']}")

    def compile(self, src: Path) -> Graph:
        """Load all sources from ``src`` and return the graph, or raise CompileError."""
        files = sorted(src.glob("*.toml"))
        if not files:
            raise CompileError([f"{src}: no *.toml source files"])
        for path in files:
            self.load(path)
        self.build_vocab()
        seen_ids: dict[str, str] = {}
        seen_ext: dict[tuple[str, str], str] = {}
        for where, film in self.films:
            self.build_film(where, film, seen_ids, seen_ext)
        self.build_aliases(seen_ids)
        self.build_series(seen_ids)
        self.build_persons(seen_ext)
        if self.errors:
            raise CompileError(self.errors)
        return self.graph


def format_number(value: int | float) -> str:
    """Format a number for an xsd:decimal lexical form (no exponent)."""
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def bundle_description() -> dict:
    """The content of kg/bundle.toml: the demo bundle's files, prefixes, schema, classes and relations."""
    groups = {
        "film": [FILM_CLASS, ANIMATED_CLASS],
        "person": [HUMAN_CLASS],
        "genre": [VOCAB_KINDS["genre"][1]],
        "country": [VOCAB_KINDS["country"][1]],
        "language": [VOCAB_KINDS["language"][1]],
        "award": [VOCAB_KINDS["award"][1]],
        "work": sorted(set(WORK_FORMS.values())),
        "rating": [RATING_CLASS],
        "series": [SERIES_CLASS],
    }
    relations = {}
    for name, prop, kind, value_class, noun, plural in RELATIONS:
        table = {"property": prop, "direction": "forward", "kind": kind}
        if value_class:
            table["value_class"] = value_class
        relations[name] = {**table, "noun": noun, "plural": plural}
        if name == "based_on":
            # derived: the authors of the works films are based on (phrasings built in, bot/kg/phrasings.toml)
            relations["source_author"] = {"via": [prop], "property": "wdt:P50", "direction": "forward", "kind": "entity",
                                          "value_class": "person"}
    return {
        "bundle": {
            "name": "demo",
            "description": "Hand-curated demo movie graph (Wikidata-shaped), with deliberate errors for the crowd demo",
            "graph": ["graph.ttl", "deliberate_errors.ttl"],
            "crowd": ["../crowd/demo_crowd.tsv"],
            # the TransE vectors of scripts/train_demo_embeddings.py, used while their recorded graph hash matches
            "embeddings": "../embeddings",
        },
        "prefixes": dict(PREFIXES),
        "schema": {"label": "rdfs:label", "type": "wdt:P31", "language": "en", "aliases": ["skos:altLabel"]},
        "classes": groups,
        "relations": relations,
    }


def bundle_toml() -> str:
    """Return the text of kg/bundle.toml (written by tomli-w, after a generated-file comment)."""
    return f"{GENERATED_TOML}\n{tomli_w.dumps(bundle_description())}"


def compile_to(src: Path, out: Path) -> Graph:
    """Compile ``src`` into ``out``/graph.ttl and ``out``/bundle.toml; return the graph."""
    graph = Compiler().compile(src)
    out.mkdir(parents=True, exist_ok=True)
    (out / "graph.ttl").write_text(to_turtle(graph), encoding="utf-8")
    (out / "bundle.toml").write_text(bundle_toml(), encoding="utf-8")
    return graph


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=REPO / "kg" / "src")
    parser.add_argument("--out", type=Path, default=REPO / "kg")
    args = parser.parse_args(argv)
    try:
        graph = compile_to(args.src, args.out)
    except CompileError as exc:
        print(f"compile_demo_kg: {len(exc.messages)} error(s):", file=sys.stderr)
        for message in exc.messages:
            print(f"  {message}", file=sys.stderr)
        return 1
    subjects = {str(s) for s in graph.subjects()}
    films = sum(1 for s in subjects if s.startswith(MB + "film-"))
    persons = sum(1 for s in subjects if s.startswith(MB + "person-"))
    print(f"compile_demo_kg: {films} films, {persons} persons, {len(graph)} triples -> {args.out / 'graph.ttl'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""KG bundles: a folder with a bundle.toml naming the graph files and describing the schema.

See docs/bundles.md for the format. Loading validates everything and raises BundleError
with a precise message (file, key, reason) instead of a traceback.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from bot.core.errors import BundleError

RDF_EXTENSIONS = (".nt", ".ttl", ".nq", ".trig", ".rdf", ".xml", ".n3")
VALUE_KINDS = ("entity", "year", "date", "number", "text")
DIRECTIONS = ("forward", "inverse")
BUILTIN_PHRASINGS = Path(__file__).with_name("phrasings.toml")
_IRI_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")



def is_safe_iri(iri: str) -> bool:
    """True when `iri` is absolute and can be written as <iri> in SPARQL without escaping."""
    return bool(_SCHEME.match(iri)) and not _IRI_FORBIDDEN.search(iri)


@dataclass(frozen=True)
class Relation:
    """One film-centric relation: how a film connects to a value, and how people ask about it."""

    name: str
    property: str  # absolute IRI
    direction: str  # forward: (film, property, value); inverse: (value, property, film)
    kind: str  # entity | year | date | number | text
    value_class: str | None  # class group of entity values
    noun: str
    plural: str
    asks: tuple[str, ...]  # questions about the value(s) of {film}
    films: tuple[str, ...]  # noun phrases for the films whose value is {value}
    finds: tuple[str, ...]  # questions for the films whose value is {value}
    synonyms: tuple[str, ...] = ()  # other nouns people use for the value ("actor" for cast member)
    peers: tuple[str, ...] = ()  # questions for the other values of the films with {value} (co-stars)
    cues: tuple[str, ...] = ()  # more words people use when they ask about this relation ("helmed", "runtime")
    # properties followed from the film before `property`: the relation reaches its values through other nodes
    # ("the author of the work a film is based on" = based on, then author). Such a derived relation is queried
    # as a SPARQL property path; stored-triple features (crowd tasks, embeddings, neighbourhoods) leave it out.
    via: tuple[str, ...] = ()

    @property
    def path(self) -> tuple[str, ...]:
        """The properties from a film to a value, in order."""
        return (*self.via, self.property)

    @property
    def derived(self) -> bool:
        return bool(self.via)

    @property
    def is_entity(self) -> bool:
        return self.kind == "entity"


@dataclass(frozen=True)
class Bundle:
    """A validated KG bundle."""

    root: Path
    name: str
    description: str
    graph_files: tuple[Path, ...]
    prefixes: dict[str, str]
    label_predicate: str
    type_predicate: str
    language: str
    classes: dict[str, tuple[str, ...]]
    relations: dict[str, Relation]
    crowd_files: tuple[Path, ...] = ()
    images: Path | None = None
    embeddings: Path | None = None
    endpoint: str | None = None  # set when the graph lives on a remote SPARQL endpoint
    alias_predicates: tuple[str, ...] = ()  # other names of an entity (e.g. skos:altLabel): linked like labels, never shown
    # multi-hop answers never include the question's own entity (MetaQA's convention), not only when the chain comes back
    # through its first relation ("who starred with X": not X; "who wrote the films Kubrick directed": Kubrick too)
    exclude_topic: bool = False

    def compact(self, iri: str) -> str:
        """The shortest CURIE for `iri`, or the IRI itself."""
        best = iri
        for prefix, ns in self.prefixes.items():
            if iri.startswith(ns) and len(iri) - len(ns) + len(prefix) + 1 < len(best):
                best = f"{prefix}:{iri[len(ns):]}"
        return best

    @property
    def film_classes(self) -> tuple[str, ...]:
        return self.classes["film"]

    def class_group(self, class_iri: str) -> str | None:
        for group, iris in self.classes.items():
            if class_iri in iris:
                return group
        return None

    @property
    def date_relation(self) -> Relation | None:
        """The relation that dates a film (used to disambiguate remakes by year)."""
        for rel in self.relations.values():
            if rel.kind in ("date", "year"):
                return rel
        return None

    def schema_hash(self) -> str:
        """Hash of everything but the graph data: the schema and the phrasings in use."""
        payload = json.dumps(
            {
                "prefixes": self.prefixes,
                "label": self.label_predicate,
                "aliases": list(self.alias_predicates),
                "type": self.type_predicate,
                "classes": self.classes,
                "relations": {k: v.__dict__ for k, v in sorted(self.relations.items())},
            },
            sort_keys=True,
            default=list,
        )
        return hashlib.sha256(payload.encode()).hexdigest()


def expand_curie(value: str, prefixes: dict[str, str], where: str = "") -> str:
    value = value.strip()
    if value.startswith("<") and value.endswith(">"):
        value = value[1:-1]
    prefix, sep, local = value.partition(":")
    if sep and prefix in prefixes and not local.startswith("//"):
        iri = prefixes[prefix] + local
    elif _SCHEME.match(value) and ("://" in value or value.lower().startswith("urn:")):
        iri = value
    else:
        raise BundleError(f"{where}: {value!r} is neither an absolute IRI nor a CURIE with a declared prefix")
    if not is_safe_iri(iri):
        raise BundleError(f"{where}: bad IRI {iri!r}")
    return iri


def _load_builtin_phrasings() -> dict[str, dict]:
    data = tomllib.loads(BUILTIN_PHRASINGS.read_text(encoding="utf-8"))
    return data.get("property", {})


def _strings(value, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise BundleError(f"{where}: expected a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _relation(name: str, table: dict, prefixes: dict, classes: dict, builtins: dict, where: str) -> Relation:
    where = f"{where} [relations.{name}]"
    if not isinstance(table, dict):
        raise BundleError(f"{where}: expected a table")
    unknown = set(table) - {"property", "direction", "kind", "value_class", "noun", "plural", "asks", "films", "finds", "synonyms", "peers", "cues", "via"}
    if unknown:
        raise BundleError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    if "property" not in table:
        raise BundleError(f"{where}: missing 'property'")
    prop = expand_curie(str(table["property"]), prefixes, where=f"{where} property")
    via = tuple(expand_curie(v, prefixes, where=f"{where} via") for v in _strings(table.get("via"), f"{where} via"))
    direction = table.get("direction", "forward")
    if direction not in DIRECTIONS:
        raise BundleError(f"{where}: direction must be one of {DIRECTIONS}, not {direction!r}")
    kind = table.get("kind", "entity")
    if kind not in VALUE_KINDS:
        raise BundleError(f"{where}: kind must be one of {VALUE_KINDS}, not {kind!r}")
    value_class = table.get("value_class")
    if kind == "entity":
        if not value_class:
            raise BundleError(f"{where}: kind = 'entity' needs a value_class")
        if value_class not in classes:
            raise BundleError(f"{where}: value_class {value_class!r} is not a declared class group ({', '.join(classes)})")
    elif value_class:
        raise BundleError(f"{where}: value_class is only allowed when kind = 'entity'")
    builtin = builtins.get("/".join((*via, prop)), {})
    noun = table.get("noun") or builtin.get("noun") or name.replace("_", " ")
    plural = table.get("plural") or builtin.get("plural") or noun + "s"
    asks = _strings(table.get("asks"), f"{where} asks") or _strings(builtin.get("asks"), f"{BUILTIN_PHRASINGS} {prop} asks")
    films = _strings(table.get("films"), f"{where} films") or _strings(builtin.get("films"), f"{BUILTIN_PHRASINGS} {prop} films")
    finds = _strings(table.get("finds"), f"{where} finds") or _strings(builtin.get("finds"), f"{BUILTIN_PHRASINGS} {prop} finds")
    if not asks:
        asks = (f"what is the {noun} of {{film}}", f"what are the {plural} of {{film}}", f"{{film}} {noun}")
    if not films:
        films = (f"the films with {noun} {{value}}", f"the movies whose {noun} is {{value}}")
    for phrase in asks:
        if "{film}" not in phrase:
            raise BundleError(f"{where}: asks phrasing {phrase!r} lacks {{film}}")
    synonyms = _strings(table.get("synonyms"), f"{where} synonyms") or _strings(builtin.get("synonyms"), f"{BUILTIN_PHRASINGS} {prop} synonyms")
    peers = _strings(table.get("peers"), f"{where} peers") or _strings(builtin.get("peers"), f"{BUILTIN_PHRASINGS} {prop} peers")
    if not peers:
        peers = (f"who else was {noun} on the films of {{value}}", f"the other {plural} of the films of {{value}}")
    for phrase in films + finds + peers:
        if "{value}" not in phrase:
            raise BundleError(f"{where}: films/finds/peers phrasing {phrase!r} lacks {{value}}")
    cues = _strings(table.get("cues"), f"{where} cues") or _strings(builtin.get("cues"), f"{BUILTIN_PHRASINGS} {prop} cues")
    if via and direction != "forward":
        raise BundleError(f"{where}: a relation with 'via' goes forward from the film")
    return Relation(name, prop, direction, kind, value_class if kind == "entity" else None, noun, plural, asks, films, finds,
                    synonyms, peers, cues, via)


def load_bundle(path: str | Path) -> Bundle:
    """Load and validate the bundle in folder `path` (or the bundle.toml file itself)."""
    path = Path(path)
    toml_path = path if path.name == "bundle.toml" else path / "bundle.toml"
    if not toml_path.is_file():
        raise BundleError(f"{toml_path}: no bundle.toml here (a bundle is a folder with a bundle.toml)")
    root = toml_path.parent.resolve()
    raw = toml_path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise BundleError(f"{toml_path}: not valid TOML: {exc}") from exc
    where = str(toml_path)
    unknown = set(data) - {"bundle", "prefixes", "schema", "classes", "relations"}
    if unknown:
        raise BundleError(f"{where}: unknown section(s) {', '.join(sorted(unknown))}")
    meta = data.get("bundle", {})
    prefixes = {str(k): str(v) for k, v in data.get("prefixes", {}).items()}
    prefixes.setdefault("rdfs", "http://www.w3.org/2000/01/rdf-schema#")
    prefixes.setdefault("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#")
    prefixes.setdefault("xsd", "http://www.w3.org/2001/XMLSchema#")
    for prefix, ns in prefixes.items():
        if not is_safe_iri(ns):
            raise BundleError(f"{where} [prefixes]: {prefix} = {ns!r} is not an absolute IRI")
    endpoint = meta.get("endpoint")
    graph_names = _strings(meta.get("graph"), f"{where} [bundle] graph")
    if not graph_names and not endpoint:
        raise BundleError(f"{where} [bundle]: 'graph' must list at least one RDF file (or give an 'endpoint')")
    graph_files = []
    for name in graph_names:
        file = (root / name).resolve()
        stem = name[:-3] if name.endswith(".gz") else name
        if not stem.lower().endswith(RDF_EXTENSIONS):
            raise BundleError(f"{where} [bundle] graph: {name!r} has an unknown RDF extension (use one of {', '.join(RDF_EXTENSIONS)})")
        if not file.is_file():
            raise BundleError(f"{where} [bundle] graph: file {file} does not exist")
        graph_files.append(file)
    crowd_files = []
    for name in _strings(meta.get("crowd"), f"{where} [bundle] crowd"):
        file = (root / name).resolve()
        if not file.is_file():
            raise BundleError(f"{where} [bundle] crowd: file {file} does not exist")
        crowd_files.append(file)
    images = (root / meta["images"]).resolve() if meta.get("images") else None
    if images is not None and not images.is_file():
        raise BundleError(f"{where} [bundle] images: file {images} does not exist")
    embeddings = (root / meta["embeddings"]).resolve() if meta.get("embeddings") else None
    if embeddings is not None and not embeddings.is_dir():
        raise BundleError(f"{where} [bundle] embeddings: folder {embeddings} does not exist")
    schema = data.get("schema", {})
    label = expand_curie(schema.get("label", "rdfs:label"), prefixes, where=f"{where} [schema] label")
    type_pred = expand_curie(schema.get("type", "rdf:type"), prefixes, where=f"{where} [schema] type")
    aliases = tuple(expand_curie(a, prefixes, where=f"{where} [schema] aliases") for a in _strings(schema.get("aliases"), f"{where} [schema] aliases"))
    classes: dict[str, tuple[str, ...]] = {}
    for group, iris in data.get("classes", {}).items():
        items = _strings(iris, f"{where} [classes] {group}")
        if not items:
            raise BundleError(f"{where} [classes] {group}: needs at least one class IRI")
        classes[group] = tuple(expand_curie(i, prefixes, where=f"{where} [classes] {group}") for i in items)
    for required in ("film", "person"):
        if required not in classes:
            raise BundleError(f"{where} [classes]: the {required!r} class group is required")
    builtins = _load_builtin_phrasings()
    relations = {
        name: _relation(name, table, prefixes, classes, builtins, where)
        for name, table in data.get("relations", {}).items()
    }
    if not relations:
        raise BundleError(f"{where}: no [relations.NAME] tables; a bundle needs at least one relation")
    return Bundle(
        root=root,
        name=str(meta.get("name") or root.name),
        description=str(meta.get("description", "")),
        graph_files=tuple(graph_files),
        prefixes=prefixes,
        label_predicate=label,
        type_predicate=type_pred,
        alias_predicates=aliases,
        language=str(schema.get("language", "en")),
        classes=classes,
        relations=relations,
        crowd_files=tuple(crowd_files),
        images=images,
        embeddings=embeddings,
        endpoint=str(endpoint) if endpoint else None,
        exclude_topic=bool(schema.get("exclude_topic", False)),
    )

"""Import any RDF file rdflib reads as a moviebot bundle (`moviebot import rdf FILE OUT/`).

Syntaxes Oxigraph's bulk loader reads (N-Triples, Turtle, N-Quads, TriG, RDF/XML, N3, also
gzipped) are linked into the bundle folder, as `moviebot import atai` links the course graph:
nothing is copied. The others (JSON-LD, TriX) are converted to N-Triples with rdflib. The
store answers queries over the default graph, so a TriG or N-Quads file with named graphs is
converted too, its graphs merged into one.

The bundle description (prefixes, schema, classes, relations; docs/bundles.md) is either
given (`--description BUNDLE.toml`) or inferred from the graph by the survey `import atai`
uses (bot/kg/importers/survey.py): Wikidata-shaped graphs need no description.
"""

from __future__ import annotations

import os
import re
import tomllib
import warnings
from dataclasses import dataclass
from pathlib import Path
from xml.sax import SAXParseException

from bot.core.cache import progress
from bot.core.errors import BundleError
from bot.kg.bundle import expand_curie, load_bundle

from .rdfio import link, nt_line, open_rdf, write_bundle_toml
from .survey import BundleReport, GraphScan, infer_description, report, scan_graph

# extension -> (pyoxigraph format, extension of the link in the bundle, rdflib parser): the bundle loader reads these
LINKED = {
    "nt": ("N_TRIPLES", "nt", "nt"),
    "ttl": ("TURTLE", "ttl", "turtle"),
    "nq": ("N_QUADS", "nq", "nquads"),
    "nquads": ("N_QUADS", "nq", "nquads"),
    "trig": ("TRIG", "trig", "trig"),
    "rdf": ("RDF_XML", "rdf", "xml"),
    "xml": ("RDF_XML", "xml", "xml"),
    "owl": ("RDF_XML", "rdf", "xml"),
    "n3": ("N3", "n3", "n3"),
}
QUAD_FORMATS = {"N_QUADS", "TRIG"}
# extension -> rdflib parser, for syntaxes converted to N-Triples
CONVERTED = {"jsonld": "json-ld", "json-ld": "json-ld", "json": "json-ld", "trix": "trix"}
CONVERTED_FILE = "graph.nt"
DESCRIPTION_SECTIONS = ("bundle", "prefixes", "schema", "classes", "relations")
BUNDLE_FILES = ("crowd", "images", "embeddings")  # [bundle] paths of a description, relative to its own folder


@dataclass(frozen=True)
class Syntax:
    """How a file is read: by pyoxigraph and linked (`oxigraph`, `link_extension`), or converted; rdflib reads all."""

    extension: str
    rdflib: str
    oxigraph: str | None = None
    link_extension: str | None = None


def syntax_of(path: Path) -> Syntax:
    """The RDF syntax of `path` from its extension (before a .gz); BundleError for one moviebot does not read."""
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    extension = name.rpartition(".")[2].lower() if "." in name else ""
    if extension in LINKED:
        oxigraph, link_extension, parser = LINKED[extension]
        return Syntax(extension, parser, oxigraph, link_extension)
    if extension in CONVERTED:
        return Syntax(extension, CONVERTED[extension])
    known = ", ".join(f".{e}" for e in (*LINKED, *CONVERTED))
    raise BundleError(f"{path}: unknown RDF syntax {('.' + extension) if extension else '(no extension)'}; moviebot reads {known} (optionally .gz)")


def import_rdf(file: Path, out_dir: Path, description: Path | None = None) -> BundleReport:
    """Write a bundle for the RDF `file` into `out_dir`: the graph linked (or converted), bundle.toml described or inferred."""
    import pyoxigraph

    file, out_dir = Path(file).resolve(), Path(out_dir).resolve()
    if not file.is_file():
        raise FileNotFoundError(f"{file} does not exist")
    syntax = syntax_of(file)
    described = _read_description(Path(description).resolve()) if description else None
    scan_options = _scan_options(described, Path(description)) if described else {}
    created: list[Path] = [] if out_dir.exists() else [out_dir]  # removed again when the import fails
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        notes: list[str] = []
        scan = None
        if syntax.oxigraph:
            fmt = getattr(pyoxigraph.RdfFormat, syntax.oxigraph)
            scan = scan_graph(file, fmt, **scan_options)
            if syntax.oxigraph in QUAD_FORMATS and scan.named_graph_triples:
                notes.append(f"{scan.named_graph_triples:,} triples in named graphs: merged into one graph, converted to {CONVERTED_FILE}")
                scan = None
        if scan is None:
            converted = out_dir / CONVERTED_FILE
            created.append(converted)
            _convert(file, syntax.rdflib, converted)
            graph_name = CONVERTED_FILE
            scan = scan_graph(converted, pyoxigraph.RdfFormat.N_TRIPLES, **scan_options)
        else:
            graph_name = _link_graph(file, out_dir, syntax, created)
        if described is None:
            try:
                inferred = infer_description(scan, file)
            except BundleError as exc:
                raise BundleError(f"{exc}; describe the graph with --description BUNDLE.toml (docs/bundles.md)") from exc
            meta = {"name": _bundle_name(file), "description": f"RDF graph imported from {file.name}", "graph": [graph_name]}
            toml = out_dir / "bundle.toml"
            created.append(toml)
            comment = f"Generated by `moviebot import rdf` from {file}; the description is inferred from the graph."
            write_bundle_toml(toml, comment, {"bundle": meta, **inferred.tables()})
            load_bundle(out_dir)
            return report(out_dir, scan, inferred, {"graph": graph_name}, notes + list(inferred.notes))
        return _described_bundle(file, out_dir, Path(description).resolve(), described, graph_name, scan, notes, created)
    except BaseException:
        for path in reversed(created):
            if path.is_symlink() or path.is_file():
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
        raise


def _link_graph(file: Path, out_dir: Path, syntax: Syntax, created: list[Path]) -> str:
    """Link `file` into the bundle under a name whose extension tells the loader its syntax; its bundle path."""
    if file.parent == out_dir and syntax.extension == syntax.link_extension:
        return file.name  # already in the bundle folder, under a name the loader reads
    name = f"graph.{syntax.link_extension}" + (".gz" if file.name.endswith(".gz") else "")
    created.append(out_dir / name)
    return link(file, out_dir / name, out_dir)


def _convert(file: Path, parser: str, target: Path) -> None:
    """Parse `file` with rdflib (named graphs merged) and write it as N-Triples, with progress bars."""
    import rdflib

    with progress() as bar, warnings.catch_warnings():
        # rdflib 7's own Dataset methods go through its deprecated ConjunctiveGraph API
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"rdflib\.")
        task = bar.add_task(f"parsing {file.name} ({parser})", total=None)
        dataset = rdflib.Dataset(default_union=True)
        try:
            with open_rdf(file) as fh:
                dataset.parse(fh, format=parser, publicID=file.as_uri())
        except (SyntaxError, ValueError, SAXParseException) as exc:
            raise BundleError(f"{file}: not valid {parser}: {_one_line(exc)}") from exc
        except (OSError, EOFError) as exc:
            raise BundleError(f"{file}: cannot be read: {exc}") from exc
        total = len(dataset)
        bar.update(task, description=f"writing {target.name}", total=total, completed=0)
        with open(target, "w", encoding="utf-8") as out:
            for n, (s, p, o) in enumerate(dataset.triples((None, None, None)), 1):
                out.write(nt_line(s, p, o))
                if n % 10_000 == 0:
                    bar.update(task, completed=n)
        bar.update(task, completed=total)


def _one_line(exc: Exception) -> str:
    """An rdflib/json/SAX error as one line (json and SAX errors name the line and column)."""
    return " ".join(str(exc).split())


def _bundle_name(file: Path) -> str:
    stem = file.name.split(".")[0]
    return re.sub(r"[^A-Za-z0-9_-]+", "-", stem).strip("-") or "rdf"


def _read_description(path: Path) -> dict:
    """The tables of a bundle description file; BundleError when it is missing, not TOML or has other sections."""
    if not path.is_file():
        raise BundleError(f"{path}: the bundle description does not exist")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BundleError(f"{path}: not valid TOML: {exc}") from exc
    unknown = set(data) - set(DESCRIPTION_SECTIONS)
    if unknown:
        raise BundleError(f"{path}: unknown section(s) {', '.join(sorted(unknown))} (a description has {', '.join(DESCRIPTION_SECTIONS)})")
    return data


def _scan_options(described: dict, where: Path) -> dict:
    """The type predicate and relation properties of a description, for the survey pass (load_bundle checks the rest)."""
    prefixes = {
        "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
        "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
        "xsd": "http://www.w3.org/2001/XMLSchema#",
        **{str(k): str(v) for k, v in described.get("prefixes", {}).items()},
    }
    type_predicate = expand_curie(str(described.get("schema", {}).get("type", "rdf:type")), prefixes, f"{where} [schema] type")
    properties = set()
    for name, table in described.get("relations", {}).items():
        if isinstance(table, dict) and "property" in table:
            properties.add(expand_curie(str(table["property"]), prefixes, f"{where} [relations.{name}] property"))
    return {"type_predicate": type_predicate, "properties": properties}


def _described_bundle(
    file: Path, out_dir: Path, description: Path, described: dict, graph_name: str, scan: GraphScan, notes: list[str], created: list[Path]
) -> BundleReport:
    """Write the given description as out_dir/bundle.toml (graph replaced, file paths rebased) and check it."""
    meta = dict(described.get("bundle", {}))
    if "graph" in meta or "endpoint" in meta:
        notes.append(f"the description's [bundle] graph/endpoint is replaced by {graph_name}")
    meta.pop("endpoint", None)
    meta.setdefault("name", _bundle_name(file))
    meta.setdefault("description", f"RDF graph imported from {file.name}")
    meta["graph"] = [graph_name]
    for key in BUNDLE_FILES:
        if key in meta:
            values = [meta[key]] if isinstance(meta[key], str) else list(meta[key])
            rebased = [os.path.relpath((description.parent / v).resolve(), out_dir) for v in values]
            meta[key] = rebased if isinstance(meta[key], list) else rebased[0]
    toml = out_dir / "bundle.toml"
    created.append(toml)
    sections = {key: described[key] for key in DESCRIPTION_SECTIONS[1:] if key in described}
    write_bundle_toml(toml, f"Generated by `moviebot import rdf` from {file} with the description {description}.", {"bundle": meta, **sections})
    try:
        bundle = load_bundle(out_dir)
    except BundleError as exc:
        raise BundleError(f"{description} does not describe a valid bundle: {exc}") from exc
    films = scan.count_typed(bundle.film_classes)
    if not films:
        classes = ", ".join(bundle.compact(c) for c in bundle.film_classes)
        raise BundleError(f"{file}: no films found (no subject has a {bundle.compact(bundle.type_predicate)} type among {classes})")
    counts = {name: scan.uses[rel.property].triples if rel.property in scan.uses else 0 for name, rel in bundle.relations.items()}
    return BundleReport(
        out_dir=out_dir,
        triples=scan.triples,
        films=films,
        people=scan.count_typed(bundle.classes["person"]),
        film_classes=[bundle.compact(c) for c in bundle.film_classes],
        relations={name: n for name, n in counts.items() if n},
        absent=[name for name, n in counts.items() if not n],
        linked={"graph": graph_name},
        notes=notes,
    )

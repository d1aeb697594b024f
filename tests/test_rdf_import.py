"""`moviebot import rdf`: one graph written in several RDF syntaxes imports to bundles that answer alike; bad input gets clear errors."""

from __future__ import annotations

import gzip
import os
import warnings
from pathlib import Path

import pytest
from rdflib import Dataset, Graph, Literal, Namespace, URIRef
from rdflib.namespace import RDFS
from typer.testing import CliRunner

from bot.agent import Agent
from bot.cli import app
from bot.core.config import Settings
from bot.core.errors import BundleError
from bot.kg.bundle import load_bundle
from bot.kg.importers.rdf import import_rdf

WD = Namespace("http://www.wikidata.org/entity/")
WDT = Namespace("http://www.wikidata.org/prop/direct/")
SDO = Namespace("http://schema.org/")
PEOPLE = {"Q2001": "Michael Mann", "Q2002": "Jean-Pierre Jeunet", "Q2003": "Hayao Miyazaki", "Q2004": "Al Pacino", "Q2005": "Audrey Tautou"}
# id, title, class, director, cast, year
FILMS = [
    ("Q1001", "Heat", "Q11424", "Q2001", ["Q2004"], "1995"),
    ("Q1002", "Collateral", "Q11424", "Q2001", [], "2004"),
    ("Q1003", "Amélie", "Q11424", "Q2002", ["Q2005"], "2001"),
    ("Q1004", "Spirited Away", "Q202866", "Q2003", [], "2001"),
]
DIRECTORS = {title: PEOPLE[director] for _, title, _, director, _, _ in FILMS}
XSD_GYEAR = URIRef("http://www.w3.org/2001/XMLSchema#gYear")
NAMED_GRAPH = URIRef("http://example.org/graph/films")


def film_graph() -> Graph:
    """A small Wikidata-shaped film graph, with an accented title and a literal that spans two lines."""
    graph = Graph()
    graph.add((WD.Q201658, RDFS.label, Literal("film genre", lang="en")))
    graph.add((WD.Q3001, WDT.P31, WD.Q201658))
    graph.add((WD.Q3001, RDFS.label, Literal("crime film", lang="en")))
    for q, name in PEOPLE.items():
        graph.add((WD[q], WDT.P31, WD.Q5))
        graph.add((WD[q], RDFS.label, Literal(name, lang="en")))
    for q, title, cls, director, cast, year in FILMS:
        film = WD[q]
        graph.add((film, WDT.P31, WD[cls]))
        graph.add((film, RDFS.label, Literal(title, lang="en")))
        graph.add((film, WDT.P57, WD[director]))
        graph.add((film, WDT.P577, Literal(year, datatype=XSD_GYEAR)))
        graph.add((film, WDT.P136, WD.Q3001))
        graph.add((film, SDO.description, Literal(f"{year} film\nby {PEOPLE[director]}", lang="en")))
        for actor in cast:
            graph.add((film, WDT.P161, WD[actor]))
    return graph


def write_in(folder: Path, name: str) -> Path:
    """The film graph written as `name`; its extension picks the syntax (TriG: everything in a named graph)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    stem = name.removesuffix(".gz")
    if stem.endswith(".trig"):
        dataset = Dataset()
        named = dataset.graph(NAMED_GRAPH)
        for triple in film_graph():
            named.add(triple)
        with warnings.catch_warnings():  # rdflib's TriG serializer uses its own deprecated Dataset API
            warnings.simplefilter("ignore", DeprecationWarning)
            data = dataset.serialize(format="trig")
    else:
        data = film_graph().serialize(format={".ttl": "turtle", ".rdf": "xml", ".jsonld": "json-ld", ".nt": "nt"}[Path(stem).suffix])
    raw = data.encode("utf-8")
    path.write_bytes(gzip.compress(raw) if name.endswith(".gz") else raw)
    return path


# file name -> the graph file the bundle names (a link to the source, or the N-Triples conversion)
SYNTAXES = {
    "films.ttl": "graph.ttl",
    "films.rdf": "graph.rdf",
    "films.jsonld": "graph.nt",
    "films.trig": "graph.nt",  # named graphs: merged into one graph by the conversion
    "films.ttl.gz": "graph.ttl.gz",
}


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> dict[str, tuple[Path, object]]:
    root = tmp_path_factory.mktemp("rdf")
    return {name: (root / f"bundle-{name}", import_rdf(write_in(root / "src", name), root / f"bundle-{name}")) for name in SYNTAXES}


@pytest.mark.parametrize("name", SYNTAXES)
def test_each_syntax_gives_a_bundle_of_the_whole_graph(imported, name):
    out, report = imported[name]
    bundle = load_bundle(out)
    graph_file = out / SYNTAXES[name]
    linked = SYNTAXES[name] != "graph.nt"
    assert graph_file.is_file() and graph_file.is_symlink() == linked
    assert [p.name for p in bundle.graph_files] == [name if linked else "graph.nt"]  # links resolve to the source
    assert report.triples == len(film_graph())
    assert report.films == len(FILMS) and report.people == len(PEOPLE)
    assert set(bundle.classes["film"]) == {str(WD.Q11424), str(WD.Q202866)}
    assert bundle.relations["director"].property == str(WDT.P57)
    assert bundle.relations["genre"].value_class == "genre"
    assert "cast_member" in report.relations and "composer" in report.absent


def test_converted_graphs_keep_every_triple_and_the_line_break(imported):
    for name in ("films.jsonld", "films.trig"):
        out, _ = imported[name]
        converted = Graph().parse(out / "graph.nt", format="nt")
        assert len(converted) == len(film_graph())
        assert Literal("1995 film\nby Michael Mann", lang="en") in set(converted.objects(WD.Q1001, SDO.description))


@pytest.mark.integration
def test_every_syntax_answers_who_directed_alike(imported, cache_dir):
    answers = {}
    for name, (out, _) in imported.items():
        agent = Agent.from_settings(Settings(kg=str(out), cache_dir=str(cache_dir), features=()))
        answers[name] = {title: agent.answer(f"Who directed {title}?").answers for title in DIRECTORS}
    expected = {title: [director] for title, director in DIRECTORS.items()}
    for name, found in answers.items():
        assert found == expected, name


def test_trig_without_named_graphs_is_linked(tmp_path):
    source = tmp_path / "default.trig"
    source.write_text(film_graph().serialize(format="turtle"), encoding="utf-8")  # Turtle is TriG's default graph
    report = import_rdf(source, tmp_path / "out")
    assert (tmp_path / "out" / "graph.trig").is_symlink()
    assert report.films == len(FILMS) and not report.notes


def test_a_file_in_the_bundle_folder_is_used_in_place(tmp_path):
    source = write_in(tmp_path / "bundle", "films.ttl")
    import_rdf(source, tmp_path / "bundle")
    assert load_bundle(tmp_path / "bundle").graph_files == (source,)
    assert source.is_file() and not source.is_symlink()


SCHEMA_ORG_TTL = """
@prefix s: <http://schema.org/> .
@prefix ex: <http://example.org/> .
ex:heat a s:Movie ; s:name "Heat" ; s:director ex:mann ; s:actor ex:pacino .
ex:collateral a s:Movie ; s:name "Collateral" ; s:director ex:mann .
ex:mann a s:Person ; s:name "Michael Mann" .
ex:pacino a s:Person ; s:name "Al Pacino" .
"""
SCHEMA_ORG_DESCRIPTION = """
[bundle]
name = "schema-films"
graph = ["ignored.ttl"]

[prefixes]
s = "http://schema.org/"

[schema]
label = "s:name"
type = "rdf:type"

[classes]
film = ["s:Movie"]
person = ["s:Person"]

[relations.director]
property = "s:director"
kind = "entity"
value_class = "person"
noun = "director"
asks = ["who directed {film}", "who is the director of {film}", "who made {film}"]
films = ["the films directed by {value}", "the movies {value} directed"]

[relations.cast_member]
property = "s:actor"
kind = "entity"
value_class = "person"

[relations.composer]
property = "s:musicBy"
kind = "entity"
value_class = "person"
"""


def write_schema_org(folder: Path, description: str = SCHEMA_ORG_DESCRIPTION) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "films.ttl").write_text(SCHEMA_ORG_TTL, encoding="utf-8")
    (folder / "description.toml").write_text(description, encoding="utf-8")
    return folder / "films.ttl", folder / "description.toml"


@pytest.mark.integration
def test_a_given_description_is_used(tmp_path, cache_dir):
    graph, description = write_schema_org(tmp_path / "src")
    report = import_rdf(graph, tmp_path / "out", description)
    bundle = load_bundle(tmp_path / "out")
    assert bundle.name == "schema-films" and bundle.label_predicate == "http://schema.org/name"
    assert [p.name for p in bundle.graph_files] == ["films.ttl"]
    assert report.films == 2 and report.people == 2
    assert report.relations == {"director": 2, "cast_member": 1} and report.absent == ["composer"]
    assert any("replaced" in note for note in report.notes)
    agent = Agent.from_settings(Settings(kg=str(tmp_path / "out"), cache_dir=str(cache_dir), features=()))
    assert agent.answer("Who directed Heat?").answers == ["Michael Mann"]


def test_description_paths_are_rebased_to_the_bundle_folder(tmp_path):
    crowd = tmp_path / "src" / "crowd.tsv"
    graph, description = write_schema_org(tmp_path / "src", SCHEMA_ORG_DESCRIPTION.replace('graph = ["ignored.ttl"]', 'crowd = ["crowd.tsv"]'))
    crowd.write_text("HITId\n", encoding="utf-8")
    import_rdf(graph, tmp_path / "deep" / "out", description)
    assert load_bundle(tmp_path / "deep" / "out").crowd_files == (crowd.resolve(),)


def run_cli(*args: str):
    result = CliRunner().invoke(app, ["import", "rdf", *map(str, args)])
    assert "Traceback" not in result.output
    return result


def test_the_cli_imports_and_reports(tmp_path):
    result = run_cli(write_in(tmp_path, "films.jsonld"), tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert f"{len(FILMS)} films" in result.output and "graph: graph.nt" in result.output


@pytest.mark.parametrize(
    "name,content,expected",
    [
        ("missing.ttl", None, "does not exist"),
        ("films.csv", "title,director\nHeat,Michael Mann\n", "unknown RDF syntax .csv"),
        ("broken.ttl", "@prefix wd: <http://www.wikidata.org/entity/> .\nwd:Q1 wd:P31 wd:Q2 .\nwd:Q1 wd:P57 \"open .\n", "line 3"),
        ("broken.nt", "<http://a/1> <http://a/2> <http://a/3> .\n<http://a/1> <http://a/2> .\n", "line 2"),
        ("broken.rdf", '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/">\n'
                       '<rdf:Description rdf:about="http://e/a">\n<e:x>1</e:y>\n</rdf:Description>\n</rdf:RDF>\n', "line 4"),
        ("broken.jsonld", '{"@id": "http://e/a",\n "http://e/p": [1,\n', "line 3"),
        ("people.ttl", "@prefix wd: <http://www.wikidata.org/entity/> .\n@prefix wdt: <http://www.wikidata.org/prop/direct/> .\n"
                       "wd:Q5001 wdt:P31 wd:Q5 .\n", "no films"),
        ("shows.ttl", "@prefix wd: <http://www.wikidata.org/entity/> .\n@prefix wdt: <http://www.wikidata.org/prop/direct/> .\n"
                      "wd:Q1 wdt:P31 wd:Q5398426 ; wdt:P57 wd:Q5001 .\n", "no films"),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(tmp_path, name, content, expected):
    source = tmp_path / name
    if content is not None:
        source.write_text(content, encoding="utf-8")
    result = run_cli(source, tmp_path / "out")
    assert result.exit_code == 1
    assert expected in " ".join(result.output.split()), result.output
    assert not (tmp_path / "out").exists()


def test_a_described_graph_without_films_is_refused(tmp_path):
    graph, description = write_schema_org(tmp_path / "src", SCHEMA_ORG_DESCRIPTION.replace('film = ["s:Movie"]', 'film = ["s:TVSeries"]'))
    result = run_cli(graph, tmp_path / "out", "--description", description)
    assert result.exit_code == 1 and "no films" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "change,expected",
    [
        (('property = "s:actor"\nkind = "entity"', 'property = "s:actor"\nkind = "movie"'), "kind must be one of"),
        (("[classes]", "[classez]"), "unknown section(s) classez"),
        (("[schema]", "[schema"), "not valid TOML"),
        (('property = "s:director"', 'property = "q:director"'), "neither an absolute IRI nor a CURIE"),
    ],
)
def test_a_bad_description_names_the_description_file(tmp_path, change, expected):
    graph, description = write_schema_org(tmp_path / "src", SCHEMA_ORG_DESCRIPTION.replace(*change))
    with pytest.raises(BundleError) as caught:
        import_rdf(graph, tmp_path / "out", description)
    assert expected in str(caught.value) and str(description) in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_an_unreadable_gzip_is_a_clear_error(tmp_path):
    source = tmp_path / "films.ttl.gz"
    source.write_bytes(b"not gzip at all")
    result = run_cli(source, tmp_path / "out")
    assert result.exit_code == 1 and "cannot be read" in result.output


def test_the_demo_kg_imports_to_the_same_schema(tmp_path):
    """The survey infers the demo KG's own description from its graph (the compiler's classes and relations)."""
    from bot.resources import demo_kg

    report = import_rdf(demo_kg() / "graph.ttl", tmp_path / "out")
    demo = load_bundle(demo_kg())
    inferred = load_bundle(tmp_path / "out")
    assert report.films >= 400 and set(inferred.relations) == set(demo.relations)
    for name, relation in demo.relations.items():
        assert (inferred.relations[name].property, inferred.relations[name].kind) == (relation.property, relation.kind), name
    assert os.path.realpath(inferred.graph_files[0]) == os.path.realpath(demo_kg() / "graph.ttl")

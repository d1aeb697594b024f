"""The course (ATAI) importer: a small graph in the course layout becomes a bundle that answers questions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from bot.agent import Agent
from bot.cli import app
from bot.core.config import Settings
from bot.kg.bundle import load_bundle
from bot.kg.importers.atai import import_atai

from conftest import CHEAP_FEATURES

pytestmark = pytest.mark.integration

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
DDIS = "http://ddis.ch/atai/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
DESCRIPTION = "http://schema.org/description"
XSD = "http://www.w3.org/2001/XMLSchema#"

CLASS_LABELS = {
    "Q11424": "film", "Q202866": "animated feature film", "Q24862": "short film", "Q506240": "television film",
    "Q5": "human", "Q5398426": "television series", "Q201658": "film genre", "Q6256": "country",
    "Q3624078": "sovereign state", "Q4220917": "film award",
}
PEOPLE = {
    "Q2001": "Mira Castellan", "Q2002": "Otto Brennagh", "Q2003": "Lena Vukovic", "Q2004": "Tomas Ekwall",
    "Q2005": "Ada Finchley", "Q2006": "Rufus Oyelaran", "Q2007": "Sana Moreau", "Q2008": "Iker Zubiri",
}
OTHERS = {  # id -> (label, class)
    "Q3001": ("drama film", "Q201658"), "Q3002": ("comedy film", "Q201658"), "Q3003": ("noir thriller", "Q201658"),
    "Q3101": ("Norway", "Q6256"), "Q3102": ("Portugal", "Q3624078"),
    "Q3201": ("Golden Reel Prize", "Q4220917"),
}
# id, title, class, director, cast, date, genres, country, rating
FILMS = [
    ("Q1001", "The Glass Orchard", "Q11424", "Q2001", ["Q2003", "Q2004"], "1994-05-01", ["Q3001"], "Q3101", "7.9"),
    ("Q1002", "Paper Moons", "Q202866", "Q2002", ["Q2005"], "2003-11-20", ["Q3002"], "Q3102", "6.1"),
    ("Q1003", "Tin Soldiers", "Q24862", "Q2001", ["Q2003"], "1999-02-14", ["Q3001"], "Q3101", "5.5"),
    ("Q1004", "Night Shift Blues", "Q506240", "Q2006", ["Q2004", "Q2007"], "2011-09-09", ["Q3003"], "Q3102", "6.8"),
    ("Q1005", "Hamlet", "Q11424", "Q2008", ["Q2008"], "1948-06-01", ["Q3001"], "Q3101", "7.7"),
    ("Q1006", "Hamlet", "Q11424", "Q2002", ["Q2002", "Q2003"], "1996-12-25", ["Q3001"], "Q3102", "7.8"),
    ("Q1007", "Salt and Iron", "Q11424", "Q2006", ["Q2005", "Q2004"], "1987-03-03", ["Q3003", "Q3001"], "Q3101", "8.1"),
    ("Q1008", "The Lantern Keeper", "Q11424", "Q2007", ["Q2003", "Q2006"], "2019-07-07", ["Q3002"], "Q3102", "6.4"),
    ("Q1009", "Northbound", "Q11424", "Q2001", ["Q2007"], "2008-01-30", ["Q3003"], "Q3101", "7.0"),
    ("Q1010", "Copper Sky", "Q202866", "Q2008", ["Q2005"], "2015-04-12", ["Q3002"], "Q3102", "7.2"),
    ("Q1011", "Quiet Harbour", "Q11424", "Q2004", ["Q2003"], "2001-10-10", ["Q3001"], "Q3101", "6.9"),
    ("Q1012", "Last Tram Home", "Q11424", "Q2006", ["Q2004", "Q2003"], "1979-08-18", ["Q3003"], "Q3102", "7.5"),
]
SERIES = ("Q1901", "Harbour Lights", "Q2001")  # a television series with a director: not a film


def graph_lines() -> list[str]:
    def lit(value: str, datatype: str | None = None, lang: str | None = None) -> str:
        return f'"{value}"@{lang}' if lang else f'"{value}"^^<{datatype}>' if datatype else f'"{value}"'

    lines = []
    for q, label in CLASS_LABELS.items():
        lines.append(f"<{WD}{q}> <{LABEL}> {lit(label, lang='en')} .")
    for q, name in PEOPLE.items():
        lines += [f"<{WD}{q}> <{WDT}P31> <{WD}Q5> .", f"<{WD}{q}> <{LABEL}> {lit(name, lang='en')} ."]
    for q, (label, cls) in OTHERS.items():
        lines += [f"<{WD}{q}> <{WDT}P31> <{WD}{cls}> .", f"<{WD}{q}> <{LABEL}> {lit(label, lang='en')} ."]
    for q, title, cls, director, cast, date, genres, country, rating in FILMS:
        film = f"<{WD}{q}>"
        lines += [
            f"{film} <{WDT}P31> <{WD}{cls}> .", f"{film} <{LABEL}> {lit(title, lang='en')} .",
            f"{film} <{WDT}P57> <{WD}{director}> .", f"{film} <{WDT}P577> {lit(date, XSD + 'date')} .",
            f"{film} <{WDT}P495> <{WD}{country}> .", f"{film} <{DDIS}rating> {lit(rating, XSD + 'decimal')} .",
            f"{film} <{WDT}P345> {lit('tt' + q[1:].zfill(7))} .",
            f"{film} <{DESCRIPTION}> {lit(f'{date[:4]} film by ' + PEOPLE[director], lang='en')} .",
        ]
        lines += [f"{film} <{WDT}P161> <{WD}{c}> ." for c in cast]
        lines += [f"{film} <{WDT}P136> <{WD}{g}> ." for g in genres]
    lines.append(f"<{WD}Q1007> <{WDT}P166> <{WD}Q3201> .")
    q, title, director = SERIES
    lines += [f"<{WD}{q}> <{WDT}P31> <{WD}Q5398426> .", f"<{WD}{q}> <{LABEL}> {lit(title, lang='en')} .", f"<{WD}{q}> <{WDT}P57> <{WD}{director}> ."]
    return lines


CROWD_HEADER = "HITId\tHITTypeId\tTitle\tReward\tAssignmentId\tWorkerId\tAssignmentStatus\tWorkTimeInSeconds\tLifetimeApprovalRate\tInput1ID\tInput2ID\tInput3ID\tAnswerID\tAnswerLabel\tFixPosition\tFixValue"


def write_course_layout(folder: Path, turtle: bool = False) -> Path:
    """A dozen films, people, labels, a crowd TSV, images.json and small embeddings in the course layout."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = graph_lines()
    if turtle:  # the course parses 14_graph.nt as Turtle; prefixed names must work too
        header = [f"@prefix wd: <{WD}> .", f"@prefix wdt: <{WDT}> ."]
        lines = header + [l.replace(f"<{WDT}P31>", "wdt:P31") for l in lines]
    (folder / "14_graph.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    crowd = [CROWD_HEADER] + [
        f"1\t7QT\tIs this triple correct or incorrect?\t$0.50\t{n}\tW{n}\tSubmitted\t60\t99%\twd:Q1001\twdt:P57\twd:Q2001\t1\tCORRECT\t\t"
        for n in range(1, 4)
    ]
    (folder / "crowd_data.tsv").write_text("\n".join(crowd) + "\n", encoding="utf-8")
    images = [{"img": f"{n:04d}/rm{n}.jpg", "movie": [f"tt{1000 + n:07d}"], "cast": [], "type": "poster"} for n in range(1, 13)]
    (folder / "images.json").write_text(json.dumps(images), encoding="utf-8")
    emb = folder / "ddis-graph-embeddings"
    emb.mkdir(exist_ok=True)
    iris = [re.findall(r"<([^>]+)>", line) for line in graph_lines()]
    entities = sorted({t[0] for t in iris} | {t[2] for t in iris if len(t) > 2})
    relations = sorted({t[1] for t in iris})
    (emb / "entity_ids.del").write_text("".join(f"{i}\t{iri}\n" for i, iri in enumerate(entities)), encoding="utf-8")
    (emb / "relation_ids.del").write_text("".join(f"{i}\t{iri}\n" for i, iri in enumerate(relations)), encoding="utf-8")
    rng = np.random.default_rng(0)
    np.save(emb / "entity_embeds.npy", rng.normal(size=(len(entities), 8)).astype(np.float32))
    np.save(emb / "relation_embeds.npy", rng.normal(size=(len(relations), 8)).astype(np.float32))
    return folder


@pytest.fixture(scope="module")
def atai_bundle(tmp_path_factory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("atai")
    src = write_course_layout(root / "course")
    out = root / "bundle"
    return out, import_atai(src, out)


@pytest.fixture(scope="module")
def atai_agent(atai_bundle, cache_dir) -> Agent:
    return Agent.from_settings(Settings(kg=str(atai_bundle[0]), cache_dir=str(cache_dir), features=CHEAP_FEATURES))


def test_bundle_schema_follows_the_graph(atai_bundle):
    out, report = atai_bundle
    bundle = load_bundle(out)
    film_classes = {WD + c for c in ("Q11424", "Q202866", "Q24862", "Q506240")}
    assert set(bundle.classes["film"]) == film_classes
    assert WD + "Q5398426" not in bundle.classes["film"]
    assert bundle.classes["person"] == (WD + "Q5",)
    assert set(bundle.classes["country"]) == {WD + "Q6256", WD + "Q3624078"}
    kinds = {name: (rel.property, rel.kind, rel.value_class) for name, rel in bundle.relations.items()}
    assert kinds["director"] == (WDT + "P57", "entity", "person")
    assert kinds["publication_date"] == (WDT + "P577", "date", None)
    assert kinds["genre"] == (WDT + "P136", "entity", "genre")
    assert kinds["award_received"] == (WDT + "P166", "entity", "award")
    assert kinds["imdb_id"] == (WDT + "P345", "text", None)
    assert kinds["rating"] == (DDIS + "rating", "number", None)
    assert "composer" not in bundle.relations and "composer" in report.absent
    assert report.films == len(FILMS) and report.people == len(PEOPLE)
    assert report.relations["cast_member"] == sum(len(f[4]) for f in FILMS)
    assert "P161" not in str(report) and "cast_member" in str(report)


def test_bundle_links_the_optional_files_instead_of_copying(atai_bundle):
    out, report = atai_bundle
    bundle = load_bundle(out)
    src = out.parent / "course"
    assert (out / "graph.ttl").is_symlink()
    assert bundle.graph_files[0] == (src / "14_graph.nt").resolve()
    assert bundle.crowd_files == ((src / "crowd_data.tsv").resolve(),)
    assert bundle.images == (src / "images.json").resolve()
    assert (bundle.embeddings / "entity_embeds.npy").resolve() == (src / "ddis-graph-embeddings" / "entity_embeds.npy").resolve()
    assert f"{len(np.load(bundle.embeddings / 'entity_embeds.npy'))} entities x 8" in str(report)


def test_imported_bundle_answers_questions(atai_agent):
    by_title = {}
    for film in FILMS:
        by_title.setdefault(film[1], []).append(film)
    for _, title, _, director, *_ in FILMS:
        if len(by_title[title]) > 1:
            continue
        reply = atai_agent.answer(f"Who directed {title}?")
        assert reply.answers == [PEOPLE[director]], (title, reply.text)
    actor = "Q2003"
    reply = atai_agent.answer(f"What films did {PEOPLE[actor]} star in?")
    assert set(reply.answers) == {f[1] for f in FILMS if actor in f[4]}
    night_shift = next(f for f in FILMS if f[2] == "Q506240")
    assert night_shift[5][:4] in atai_agent.answer(f"When was {night_shift[1]} released?").text


def test_remakes_are_told_apart_by_year(atai_agent):
    for film in (f for f in FILMS if f[1] == "Hamlet"):
        reply = atai_agent.answer(f"Who directed Hamlet {film[5][:4]}?")
        assert reply.answers == [PEOPLE[film[3]]]


def test_turtle_with_prefixes_imports_the_same_schema(tmp_path, atai_bundle):
    src = write_course_layout(tmp_path / "course", turtle=True)
    report = import_atai(src, tmp_path / "bundle")
    assert report.relations == atai_bundle[1].relations
    assert set(load_bundle(tmp_path / "bundle").classes["film"]) == set(load_bundle(atai_bundle[0]).classes["film"])


def test_missing_graph_is_a_clear_cli_error(tmp_path):
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(app, ["import", "atai", str(tmp_path / "empty"), str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "14_graph.nt" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out" / "bundle.toml").exists()


def test_malformed_graph_is_reported_with_the_file(tmp_path):
    src = tmp_path / "course"
    src.mkdir()
    (src / "14_graph.nt").write_text(f"<{WD}Q1> <{WDT}P57> \"unterminated .\n", encoding="utf-8")
    with pytest.raises(ValueError, match="14_graph.nt: not valid"):
        import_atai(src, tmp_path / "out")

"""Checks of the hand-curated demo KG (kg/) against real reference data.

* The compiled ``kg/graph.ttl`` and ``kg/bundle.toml`` are up to date with ``kg/src``.
* The graph has at least 400 films and every film/person of the course examples.
* Agreement with the MetaQA KB (``metaqa/kb.txt``): directors, screenwriters,
  top-billed cast and release years agree for >= 98 % of the compared facts, and
  every remaining difference is listed with a reason in ``kg/exceptions.toml``.
* Every IMDb id and Wikidata Q-id agrees with ``wikidata/wikidata_movies.csv``
  where that file has the film.

The reference data is read from ``$MOVIEBOT_SHARED_DATA`` (default
``<repo>/../shared/data``). When it is missing the data tests are skipped, or
fail when ``CI=true``. Run ``pytest -s`` to see the agreement report.
"""

from __future__ import annotations

import csv
import filecmp
import os
import subprocess
import sys
import tomllib
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from rdflib import Graph, Literal, Namespace
from rdflib.compare import isomorphic
from rdflib.namespace import OWL, RDFS

REPO = Path(__file__).resolve().parent.parent
KG = REPO / "kg"
WD = Namespace("http://www.wikidata.org/entity/")
WDT = Namespace("http://www.wikidata.org/prop/direct/")
MB = "http://moviebot.invalid/entity/"
MIN_AGREEMENT = 0.98
XSD_DECIMAL = "http://www.w3.org/2001/XMLSchema#decimal"

sys.path.insert(0, str(REPO / "scripts"))
import compile_demo_kg  # noqa: E402  (script modules, imported by path)
import make_demo_crowd  # noqa: E402

pytestmark = pytest.mark.integration

# Films and people of the course example questions that must be in the demo KG:
# film id -> label.
REQUIRED_FILMS = {
    "good-will-hunting": "Good Will Hunting",
    "the-bridge-on-the-river-kwai": "The Bridge on the River Kwai",
    "star-wars": "Star Wars: Episode IV – A New Hope",
    "the-empire-strikes-back": "Star Wars: Episode V – The Empire Strikes Back",
    "return-of-the-jedi": "Star Wars: Episode VI – Return of the Jedi",
    "the-masked-gang-cyprus": "The Masked Gang: Cyprus",
    "weathering-with-you": "Weathering with You",
    "good-neighbors": "Good Neighbors",
    "the-lion-king-1994": "The Lion King",
    "pocahontas": "Pocahontas",
    "beauty-and-the-beast-1991": "Beauty and the Beast",
    "the-princess-and-the-frog": "The Princess and the Frog",
    "a-nightmare-on-elm-street-1984": "A Nightmare on Elm Street",
    "a-nightmare-on-elm-street-2010": "A Nightmare on Elm Street",
    "friday-the-13th-1980": "Friday the 13th",
    "friday-the-13th-2009": "Friday the 13th",
    "halloween-1978": "Halloween",
    "halloween-2007": "Halloween",
    "halloween-2018": "Halloween",
    "scream-1996": "Scream",
    "black-christmas-1974": "Black Christmas",
    "the-texas-chain-saw-massacre-1974": "The Texas Chain Saw Massacre",
    "childs-play-1988": "Child's Play",
    "hamlet-1948": "Hamlet",
    "hamlet-1990": "Hamlet",
    "hamlet-1996": "Hamlet",
    "hamlet-2000": "Hamlet",
    "othello-1951": "Othello",
    "othello-1965": "Othello",
    "othello-1995": "Othello",
    "romeo-plus-juliet": "Romeo + Juliet",
    "ran": "Ran",
    "throne-of-blood": "Throne of Blood",
    "10-things-i-hate-about-you": "10 Things I Hate About You",
    "much-ado-about-nothing-1993": "Much Ado About Nothing",
    "tom-meets-zizou": "Tom Meets Zizou",
    "x-men-first-class": "X-Men: First Class",
    "casablanca": "Casablanca",
    "citizen-kane": "Citizen Kane",
    "the-godfather": "The Godfather",
    "the-godfather-part-ii": "The Godfather Part II",
    "psycho-1960": "Psycho",
    "vertigo": "Vertigo",
    "2001-a-space-odyssey": "2001: A Space Odyssey",
    "lawrence-of-arabia": "Lawrence of Arabia",
}
# person -> minimum number of films they are a cast member of
REQUIRED_ACTORS = {"Halle Berry": 6, "Julia Roberts": 6, "Sandra Bullock": 6}
MIN_FILMS = 400
MIN_ANIMATED_DISNEY = 25


# ----------------------------------------------------------------- helpers
def norm(text: str) -> str:
    """Normalise a title or name for comparison (accents, dashes, case, spaces)."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = text.replace("&", "and")
    return " ".join("".join(c if c.isalnum() else " " for c in text.casefold()).split())


@dataclass
class Film:
    """The facts of one demo KG film that the agreement test compares."""

    fid: str
    title: str
    year: int | None = None
    imdb: str | None = None
    qid: str | None = None
    directed_by: set[str] = field(default_factory=set)
    written_by: set[str] = field(default_factory=set)
    starred_actors: set[str] = field(default_factory=set)
    source_authors: set[str] = field(default_factory=set)


def label(graph: Graph, node) -> str:
    """English label of a node."""
    return str(graph.value(node, RDFS.label))


def load_films(graph: Graph) -> dict[str, Film]:
    """Extract the compared facts of every film of the graph, keyed by film id."""
    films = {}
    for s in set(graph.subjects(WDT.P31, WD.Q11424)):
        film = Film(fid=str(s)[len(MB) + len("film-"):], title=label(graph, s))
        for date in graph.objects(s, WDT.P577):
            film.year = int(str(date)[:4])
        imdb = graph.value(s, WDT.P345)
        film.imdb = str(imdb) if imdb else None
        same = graph.value(s, OWL.sameAs)
        film.qid = str(same)[len(str(WD)):] if same else None
        for prop, attr in ((WDT.P57, "directed_by"), (WDT.P58, "written_by"),
                           (WDT.P161, "starred_actors")):
            getattr(film, attr).update(label(graph, o) for o in graph.objects(s, prop))
        for work in graph.objects(s, WDT.P144):
            film.source_authors.update(label(graph, a) for a in graph.objects(work, WDT.P50))
        films[film.fid] = film
    return films


# ---------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def shared_data() -> Path:
    """The reference data folder; skip (or fail in CI) when it is missing."""
    path = Path(os.environ.get("MOVIEBOT_SHARED_DATA", REPO.parent / "shared" / "data"))
    if not (path / "metaqa" / "kb.txt").is_file() or not (path / "wikidata" / "wikidata_movies.csv").is_file():
        message = f"reference data not found in {path} (set MOVIEBOT_SHARED_DATA)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def graph() -> Graph:
    """The compiled demo graph (without the deliberate errors)."""
    g = Graph()
    g.parse(KG / "graph.ttl", format="turtle")
    return g


@pytest.fixture(scope="module")
def films(graph) -> dict[str, Film]:
    """Compared facts of all demo films."""
    return load_films(graph)


@pytest.fixture(scope="module")
def exceptions() -> dict:
    """The documented differences (kg/exceptions.toml)."""
    return tomllib.loads((KG / "exceptions.toml").read_text(encoding="utf-8"))


# ------------------------------------------------------ compile and content
def test_compiled_graph_is_up_to_date(tmp_path):
    """Recompiling kg/src gives byte-identical kg/graph.ttl and kg/bundle.toml."""
    compile_demo_kg.compile_to(KG / "src", tmp_path)
    for name in ("graph.ttl", "bundle.toml"):
        assert filecmp.cmp(tmp_path / name, KG / name, shallow=False), \
            f"kg/{name} is stale: run scripts/compile_demo_kg.py"


def test_compiling_twice_gives_identical_bytes(tmp_path):
    """Two runs of the script, in fresh interpreters with different hash seeds, write identical files."""
    script = REPO / "scripts" / "compile_demo_kg.py"
    for run in ("1", "2"):
        subprocess.run([sys.executable, str(script), "--out", str(tmp_path / run)], check=True, capture_output=True,
                       env={**os.environ, "PYTHONHASHSEED": run})
    for name in ("graph.ttl", "bundle.toml"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name


def test_graph_ttl_reads_back_as_the_compiled_triples(tmp_path):
    """graph.ttl parses back to exactly the compiler's triples, lexical forms included ("97"^^xsd:decimal stays 97)."""
    compiled = compile_demo_kg.compile_to(KG / "src", tmp_path)
    read_back = Graph().parse(tmp_path / "graph.ttl", format="turtle")
    assert isomorphic(read_back, compiled)
    decimals = [o for o in read_back.objects() if isinstance(o, Literal) and str(o.datatype) == XSD_DECIMAL]
    assert decimals and any("." not in str(o) for o in decimals)
    assert (tmp_path / "graph.ttl").read_text(encoding="utf-8").startswith("# Generated by scripts/compile_demo_kg.py")


def test_bundle_toml_is_the_bundle_description_after_a_comment():
    """kg/bundle.toml is tomli-w's rendering of the compiler's description, after a do-not-edit comment."""
    text = (KG / "bundle.toml").read_text(encoding="utf-8")
    assert text.splitlines()[0].startswith("# Generated by scripts/compile_demo_kg.py - do not edit")
    assert tomllib.loads(text) == compile_demo_kg.bundle_description()


def test_film_count(films):
    """The demo KG has at least 400 films."""
    assert len(films) >= MIN_FILMS, f"only {len(films)} films"


def test_required_films_and_people(graph, films):
    """Every film and person of the course examples is present."""
    missing = [f"{fid} ({title})" for fid, title in REQUIRED_FILMS.items()
               if fid not in films or films[fid].title != title]
    assert not missing, f"missing or mislabelled required films: {missing}"
    animated = set(graph.subjects(WDT.P31, WD.Q202866))
    assert len(animated) >= MIN_ANIMATED_DISNEY
    for name, minimum in REQUIRED_ACTORS.items():
        count = sum(1 for f in films.values() if name in f.starred_actors)
        assert count >= minimum, f"{name} is in {count} films, want >= {minimum}"


def test_deliberate_errors_are_separate(graph):
    """The deliberate errors live only in kg/deliberate_errors.ttl."""
    errors = Graph()
    errors.parse(KG / "deliberate_errors.ttl", format="turtle")
    assert 3 <= len(errors) <= 5
    for triple in errors:
        assert triple not in graph, f"deliberate error {triple} is also in graph.ttl"


def test_demo_crowd_is_up_to_date_and_resolves(tmp_path, graph):
    """crowd/demo_crowd.tsv is regenerated identically and names only known entities."""
    out = tmp_path / "demo_crowd.tsv"
    make_demo_crowd.main(["--out", str(out)])
    assert filecmp.cmp(out, REPO / "crowd" / "demo_crowd.tsv", shallow=False), \
        "crowd/demo_crowd.tsv is stale: run scripts/make_demo_crowd.py"
    graph_and_errors = Graph()
    for name in ("graph.ttl", "deliberate_errors.ttl"):
        graph_and_errors.parse(KG / name, format="turtle")
    subjects = {str(s) for s in graph_and_errors.subjects()}
    with open(out, encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    assert rows[0] == make_demo_crowd.HEADER and all(len(r) == 16 for r in rows)
    for row in rows[1:]:
        for curie in (row[9], row[11], row[15]):
            if curie.startswith("mb:"):
                assert MB + curie[3:] in subjects, f"unknown entity {curie}"


# ------------------------------------------------------------ MetaQA check
def load_metaqa(path: Path) -> dict[str, dict[str, set[str]]]:
    """MetaQA KB as normalised title -> relation -> values."""
    kb: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("|")
            if len(parts) == 3:
                kb[norm(parts[0])][parts[1]].add(parts[2])
    return kb


@dataclass
class Agreement:
    """Counts of compared MetaQA facts and the differences found."""

    checked: int = 0
    agreed: int = 0
    matched_films: int = 0
    per_relation: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    differences: list[tuple[str, str, str, str]] = field(default_factory=list)

    def check(self, fid: str, relation: str, kind: str, value: str, ok: bool) -> None:
        """Count one compared fact; record it as a difference when it disagrees."""
        self.checked += 1
        self.per_relation[relation][1] += 1
        if ok:
            self.agreed += 1
            self.per_relation[relation][0] += 1
        else:
            self.differences.append((fid, relation, kind, value))

    @property
    def ratio(self) -> float:
        """Share of compared facts that agree."""
        return self.agreed / self.checked if self.checked else 1.0


def match_metaqa(films: dict[str, Film], kb, aliases: dict[str, str]):
    """Yield (film, MetaQA facts, merged) for demo films that MetaQA also has.

    MetaQA keys films by title only, so several films of one title are merged
    into one entry with several release years ("merged"). A demo film matches a
    merged entry when its year is one of them; it matches a single-year entry
    when it is the only demo film of that title and the years differ by at most
    one, or when the years are equal.
    """
    by_title = defaultdict(list)
    for film in films.values():
        by_title[norm(aliases.get(film.fid, film.title))].append(film)
    for title, group in sorted(by_title.items()):
        facts = kb.get(title)
        if not facts:
            continue
        years = {int(y) for y in facts.get("release_year", ())}
        for film in group:
            if len(years) > 1:
                if film.year in years:
                    yield film, facts, True
            elif not years or film.year in years or (
                    len(group) == 1 and film.year and abs(film.year - min(years)) <= 1):
                yield film, facts, False


def compare(films: dict[str, Film], kb, aliases: dict[str, str],
            names: dict[str, str]) -> Agreement:
    """Compare directors, screenwriters, cast and years with MetaQA.

    * directed_by: each of our directors must be one of MetaQA's and (unless the
      MetaQA entry merges several films) each of MetaQA's must be one of ours.
    * starred_actors: MetaQA lists only the top-billed actors, so each of
      MetaQA's must be one of ours (not for merged entries).
    * written_by: MetaQA mixes screenplay, story and source-work credits and often
      lists only one of several writers, so one check per film: our screenwriters
      and MetaQA's writers must overlap. Films whose MetaQA writers are all
      authors of our source works are not compared.
    * release_year: equal (merged entries are matched by year).

    ``names`` maps MetaQA's spelling of a name to ours where they differ.
    """
    result = Agreement()
    for film, facts, merged in match_metaqa(films, kb, aliases):
        result.matched_films += 1
        facts = {rel: {names.get(v, v) for v in values} for rel, values in facts.items()}
        their_directors = {norm(v) for v in facts.get("directed_by", ())}
        our_directors = {norm(v) for v in film.directed_by}
        if their_directors:
            for name in sorted(film.directed_by):
                result.check(film.fid, "directed_by", "extra", name, norm(name) in their_directors)
        their_writers = {norm(v) for v in facts.get("written_by", ())}
        our_writers = {norm(v) for v in film.written_by}
        if their_writers and our_writers and not their_writers <= {norm(a) for a in film.source_authors}:
            result.check(film.fid, "written_by", "overlap", ", ".join(sorted(film.written_by)),
                         bool(our_writers & their_writers))
        if merged:
            continue
        for name in sorted(facts.get("directed_by", ())):
            result.check(film.fid, "directed_by", "missing", name, norm(name) in our_directors)
        our_cast = {norm(v) for v in film.starred_actors}
        for name in sorted(facts.get("starred_actors", ())):
            result.check(film.fid, "starred_actors", "missing", name, norm(name) in our_cast)
        for year in sorted(facts.get("release_year", ())):
            result.check(film.fid, "release_year", "year", year, film.year == int(year))
    return result


def test_metaqa_agreement(shared_data, films, exceptions):
    """>= 98 % agreement with MetaQA; every difference is a documented exception."""
    kb = load_metaqa(shared_data / "metaqa" / "kb.txt")
    result = compare(films, kb, exceptions.get("aliases", {}), exceptions.get("names", {}))
    documented = {(d["film"], d["relation"], d["kind"], str(d["value"])): d["reason"]
                  for d in exceptions.get("difference", [])}
    print(f"\nMetaQA agreement: {result.matched_films} of {len(films)} demo films matched; "
          f"{result.agreed}/{result.checked} facts agree ({100 * result.ratio:.2f} %)")
    for rel, (ok, total) in sorted(result.per_relation.items()):
        print(f"  {rel:15} {ok:5}/{total:<5} ({100 * ok / total:.1f} %)")
    undocumented = [d for d in result.differences if d not in documented]
    for d in result.differences:
        print(f"  {'documented' if d in documented else 'NEW':10} {d[0]}: {d[1]} {d[2]} {d[3]!r}"
              + (f" - {documented[d]}" if d in documented else ""))
    stale = sorted(set(documented) - set(result.differences))
    assert result.ratio >= MIN_AGREEMENT, f"agreement {result.ratio:.4f} < {MIN_AGREEMENT}"
    assert not undocumented, f"undocumented differences (fix kg/src or add to kg/exceptions.toml): {undocumented}"
    assert not stale, f"kg/exceptions.toml lists differences that no longer occur: {stale}"
    assert all(reason.strip() for reason in documented.values()), "every exception needs a reason"


# ---------------------------------------------------------- Wikidata check
def test_ids_match_wikidata_csv(shared_data, films):
    """IMDb ids and Q-ids agree with wikidata_movies.csv where it has the film."""
    by_qid: dict[str, set[str]] = defaultdict(set)
    by_imdb: dict[str, set[str]] = defaultdict(set)
    labels: dict[str, str] = {}
    with open(shared_data / "wikidata" / "wikidata_movies.csv", encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            qid, imdb = row["wd_film_qid"], row["imdb_id"]
            labels[qid] = row["wd_film_label"]
            if imdb:
                by_qid[qid].add(imdb)
                by_imdb[imdb].add(qid)
    problems, checked = [], 0
    for film in sorted(films.values(), key=lambda f: f.fid):
        if film.qid in labels:
            checked += 1
            if norm(labels[film.qid]) != norm(film.title):
                problems.append(f"{film.fid}: {film.qid} is {labels[film.qid]!r} in the CSV")
            if film.imdb and by_qid[film.qid] and film.imdb not in by_qid[film.qid]:
                problems.append(f"{film.fid}: IMDb {film.imdb}, CSV has {sorted(by_qid[film.qid])}")
        if film.imdb in by_imdb:
            checked += 1
            if film.qid and film.qid not in by_imdb[film.imdb]:
                problems.append(f"{film.fid}: {film.qid}, CSV has {sorted(by_imdb[film.imdb])} for {film.imdb}")
            if not film.qid and not any(norm(labels[q]) == norm(film.title) for q in by_imdb[film.imdb]):
                problems.append(f"{film.fid}: IMDb {film.imdb} is {[labels[q] for q in by_imdb[film.imdb]]} in the CSV")
    with_ids = sum(1 for f in films.values() if f.imdb or f.qid)
    print(f"\nWikidata CSV: {with_ids} demo films have ids, {checked} id checks against the CSV, "
          f"{len(problems)} problems")
    assert not problems, "\n".join(problems)

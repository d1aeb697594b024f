"""The film table answers every composition and multi-hop chain as the SPARQL templates do: on a small synthetic KG,
each plan is answered once from the table (forced for every plan) and once by SPARQL alone, and the replies must agree."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from bot.answering import compose
from bot.answering.compose import ComposedAnswers
from bot.answering.factual import Retriever
from bot.core.config import Settings
from bot.core.contracts import Aggregate, Constraint, Hop, LinkedEntity, Understanding
from bot.core.kinds import Kind
from bot.kg.film_table import FilmTable
from bot.kg.graph import build_graph
from bot.kg.queries import iri

from conftest import REPO

XSD = "http://www.w3.org/2001/XMLSchema#"

sys.path.insert(0, str(REPO / "bench"))
from synth_kg import generate  # noqa: E402


@pytest.fixture(scope="module")
def kg(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synth")
    generate(folder, scale=0.01, seed=5)  # 840 films, 24 genres
    # some films with a second running time and release date (a cut, a re-release): the smallest and largest differ
    graph = folder / "graph.nt"
    extra = []
    for n, line in enumerate(line for line in graph.read_text(encoding="utf-8").splitlines() if "/P2047> " in line or "/P577> " in line):
        if n % 5 == 0:
            film, prop, value = line.split(" ", 2)
            number = value.split('"')[1]
            other = f'"{int(number) + 47}"^^<{XSD}decimal>' if "P2047" in prop else f'"{int(number[:4]) - 3}{number[4:]}"^^<{XSD}date>'
            extra.append(f"{film} {prop} {other} .")
    graph.write_text(graph.read_text(encoding="utf-8") + "\n".join(extra) + "\n", encoding="utf-8")
    settings = Settings(kg=str(folder), schema=str(folder), cache_dir=str(tmp_path_factory.mktemp("cache")), features=())
    return build_graph(settings, quiet=True)


def values(kg, relation: str, least: int = 1) -> list[str]:
    """IRIs of the values of `relation`, the most frequent first (those with at least `least` films)."""
    path = iri(kg.bundle.relations[relation].property)
    rows = kg.graph.select(f"SELECT ?v (COUNT(?f) AS ?n) WHERE {{ ?f {path} ?v }} GROUP BY ?v HAVING (COUNT(?f) >= {least}) ORDER BY DESC(?n) ?v")
    return [r["v"].value for r in rows]


def plans(kg) -> list[tuple[list[Constraint], Aggregate | None]]:
    genres, countries, directors = values(kg, "genre"), values(kg, "country_of_origin"), values(kg, "director", 2)
    actors = values(kg, "cast_member", 3)
    wheres = [
        [],
        [Constraint(("genre",), "in", (genres[0],))],
        [Constraint(("genre",), "in", (genres[-1],))],
        [Constraint(("genre",), "in", (genres[1], genres[5]))],
        [Constraint(("genre",), "in", (genres[0],)), Constraint(("publication_date",), "year>=", ("1980",)),
         Constraint(("publication_date",), "year<=", ("1989",))],
        [Constraint(("publication_date",), "year>=", ("1980",), "the 1980s"), Constraint(("publication_date",), "year<=", ("1989",), "the 1980s")],
        [Constraint(("genre",), "in", (genres[2],)), Constraint(("duration",), ">", ("120",))],
        [Constraint(("duration",), "<=", ("90",))],
        [Constraint(("genre",), "not_in", (genres[0],)), Constraint(("country_of_origin",), "in", (countries[1],))],
        [Constraint(("director",), "in", (directors[0],))],
        [Constraint(("cast_member", "director"), "in", (actors[0],))],
        [Constraint(("country_of_origin",), "in", (countries[0],)), Constraint(("publication_date",), "year<=", ("1970",)),
         Constraint(("duration",), ">=", ("100",))],
        [Constraint(("genre",), "in", ("http://test.invalid/no-such-genre",))],
    ]
    aggregates = [None, Aggregate("count"), Aggregate("most", "director"), Aggregate("most", "cast_member"), Aggregate("max", "duration"),
                  Aggregate("min", "duration"), Aggregate("max", "publication_date"), Aggregate("min", "publication_date"),
                  Aggregate("max", "cast_member", ("*count",))]
    return [(where, aggregate) for where in wheres for aggregate in aggregates]


def reply(kg, constraints, aggregate):
    facts = ComposedAnswers(kg, single=None).films(Understanding("q", Kind.FACTUAL, constraints=constraints, aggregate=aggregate))
    return [(a.label, a.iri) for a in facts.answers], [(f.subject, f.value) for f in facts.facts], facts.result


def test_the_table_answers_every_composition_as_sparql_does(kg, monkeypatch):
    assert len(kg.films.films) == 840 and {"genre", "director", "cast_member"} <= set(kg.films.entity)
    assert {"duration", "publication_date"} <= set(kg.films.literal)
    sparql_only = replace(kg, films_file=None, loaded_films=FilmTable())
    checked = 0
    for constraints, aggregate in plans(kg):
        monkeypatch.setattr(compose, "TABLE_FROM", -1)  # the table answers every plan it covers
        assert compose.hub_films(kg, constraints, ("duration",), ("director",)) is not None, constraints
        from_table = reply(kg, constraints, aggregate)
        monkeypatch.undo()
        assert reply(sparql_only, constraints, aggregate) == from_table, (constraints, aggregate)
        checked += bool(from_table[0])
    assert checked > 80  # most plans have answers, so the agreement is not between empty replies


def test_a_hub_takes_the_table_and_a_rare_value_takes_sparql(kg, monkeypatch):
    genres, directors = values(kg, "genre"), values(kg, "director", 2)
    monkeypatch.setattr(compose, "TABLE_FROM", 60)
    assert compose.hub_films(kg, [Constraint(("genre",), "in", (genres[0],))]) is not None
    assert compose.hub_films(kg, []) is not None  # no value condition: every film
    assert compose.hub_films(kg, [Constraint(("director",), "in", (directors[0],))]) is None
    assert compose.hub_films(kg, [Constraint(("genre",), "in", (genres[0],)), Constraint(("director",), "in", (directors[0],))]) is None


def test_conditions_the_table_cannot_answer_exactly_stay_with_sparql(kg, monkeypatch):
    monkeypatch.setattr(compose, "TABLE_FROM", -1)
    given = Constraint((), "among", (kg.labels.iris[int(kg.films.films[0])],))
    assert compose.hub_films(kg, [given]) is None  # a few given films: SPARQL checks them in a millisecond
    assert compose.hub_films(kg, [Constraint(("imdb_id",), ">", ("3",))]) is None  # a text relation has no column
    assert compose.hub_films(kg, [Constraint(("publication_date",), ">", ("3",))]) is None  # a date is no number
    assert compose.hub_films(kg, [Constraint(("duration",), "year>=", ("1990",))]) is None  # nor a number a year


def test_a_table_survives_saving_and_loading(kg, tmp_path):
    kg.films.save(tmp_path / "films.pkl")
    loaded = FilmTable.load(tmp_path / "films.pkl")
    genre = values(kg, "genre")[0]
    where = [Constraint(("genre",), "in", (genre,)), Constraint(("duration",), ">", ("100",))]
    assert (loaded.matching(where, kg.labels) == kg.films.matching(where, kg.labels)).all()
    assert loaded.matching(where, kg.labels).sum() > 0


def chain_reply(kg, chain, iri):
    labels = kg.labels
    idx = labels.by_iri[iri]
    topic = LinkedEntity(labels.labels[idx], iri, labels.labels[idx], 100.0, labels.groups[idx])
    facts, _ = Retriever(kg)._answer(Understanding("q", Kind.FACTUAL, chain=chain, entities=[topic]))
    return [(a.label, a.iri, a.support) for a in facts.answers]


def test_the_table_walks_every_multi_hop_chain_as_its_sparql_template_counts_it(kg):
    entity = ["director", "cast_member", "genre", "country_of_origin"]
    literal = ["duration", "publication_date", "imdb_id", "box_office"]  # numbers (some films have two), dates, strings
    films = [kg.labels.iris[int(i)] for i in kg.films.films[::170]]  # five films
    sparql_only = replace(kg, films_file=None, loaded_films=FilmTable())
    walked = answered = literals = 0
    for a in entity:
        starts = values(kg, a)
        for b in entity:
            chains = [((Hop(a, False), Hop(b, True)), [starts[0], starts[len(starts) // 2], starts[-1]]),
                      ((Hop(a, True), Hop(b, False)), films)]
            chains += [((Hop(a, True), Hop(b, False), Hop(c, True)), films[:3]) for c in entity + literal]
            chains += [((Hop(a, False), Hop(c, True)), [starts[0], starts[-1]]) for c in literal if b == entity[0]]
            for chain, topics in chains:
                for topic in topics:
                    assert kg.films.chain_answers(chain, kg.labels.by_iri[topic]) is not None, chain
                    expected = chain_reply(sparql_only, chain, topic)
                    assert chain_reply(kg, chain, topic) == expected, (chain, topic)
                    walked += 1
                    answered += bool(expected)
                    literals += bool(expected) and chain[-1].relation in literal
    assert walked == 4 * 4 * (3 + 5 + 8 * 3) + 4 * 4 * 2 and answered > walked // 3  # agreement between real answers, not only empty ones
    assert literals > 80  # (98 when written)


def test_a_literal_chain_counts_each_film_once_per_distinct_value(kg):
    """A film with two running times (a cut) supports both; two films with the same date support it twice."""
    duration = kg.films.terms["duration"]
    two = next(f for f in range(len(kg.films.films)) if duration.film_ptr[f + 1] - duration.film_ptr[f] == 2)
    director = kg.films.entity["director"].values[kg.films.entity["director"].film_ptr[two]]
    found = dict(kg.films.chain_answers((Hop("director", False), Hop("duration", True)), int(director)))
    for term in duration.values[duration.film_ptr[two] : duration.film_ptr[two + 1]]:
        assert found[duration.node(int(term))] >= 1
    assert sum(found.values()) >= 2


def test_chains_the_table_cannot_walk_exactly_stay_with_sparql(kg):
    film = int(kg.films.films[0])
    person = kg.labels.by_iri[values(kg, "director")[0]]
    assert kg.films.chain_answers((Hop("director", True),), film) is None  # one hop: a single lookup for the store
    mixed = replace(kg.films, terms={k: v for k, v in kg.films.terms.items() if k != "duration"})
    assert mixed.chain_answers((Hop("director", True), Hop("director", False), Hop("duration", True)), film) is None  # a literal column left out
    assert kg.films.chain_answers((Hop("director", True), Hop("director", False)), person) is None  # a film chain from a person
    assert kg.films.chain_answers((Hop("director", False), Hop("director", True), Hop("genre", False)), person) is None  # no template
    incomplete = replace(kg.films, entity={**kg.films.entity, "genre": replace(kg.films.entity["genre"], complete=False)})
    assert incomplete.chain_answers((Hop("genre", True), Hop("genre", False)), film) is None  # a value the index does not know


def test_a_year_range_said_once_holds_for_one_date_of_a_film_in_the_table_and_in_sparql(kg):
    """A film released in year Y and again (a cut, a re-release) in Y - 3 is not from Y-2..Y-1, though one of its dates
    is after Y-2 and the other before Y-1."""
    from bot.kg.queries import compose_query

    dates = kg.films.terms["publication_date"]
    two = next(f for f in range(len(kg.films.films)) if dates.film_ptr[f + 1] - dates.film_ptr[f] == 2
               and len({int(y) for y in dates.years[dates.values[dates.film_ptr[f] : dates.film_ptr[f + 1]]]}) == 2)
    late = int(max(dates.years[dates.values[dates.film_ptr[two] : dates.film_ptr[two + 1]]]))
    film = kg.labels.iris[int(kg.films.films[two])]
    between = [Constraint(("publication_date",), "year>=", (str(late - 2),), "then"), Constraint(("publication_date",), "year<=", (str(late - 1),), "then")]
    apart = [Constraint(c.relations, c.op, c.values, "") for c in between]  # two conditions said apart: any date each
    for constraints, found in ((between, False), (apart, True)):
        assert bool(kg.films.matching(constraints, kg.labels)[two]) is found
        rows = kg.graph.select(compose_query("list_all", kg.bundle, constraints, kg.labels.film_only, **{"$limit": "100000"}))
        assert (film in {r["film"].value for r in rows}) is found

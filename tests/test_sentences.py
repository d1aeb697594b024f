"""Readability of the template sentences: every relation x direction x count (1, 2, many) of the demo KG,
with real labels from its graph, read as a person would: no database phrasing, agreement, units."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from pyoxigraph import RdfFormat, Store

from bot.core.contracts import Answer, Facts, Hop, LinkedEntity
from bot.core.results import Condition
from bot.core.terms import Op
from bot.generation.sentences import LIST_INLINE, sentence_table, usd, when
from bot.generation.templates import template_sentence
from bot.kg.bundle import load_bundle
from bot.resources import demo_kg

COUNTS = {"one": 1, "two": 2, "many": LIST_INLINE + 3}


@pytest.fixture(scope="module")
def demo():
    """The demo bundle and, per relation, real (film, value label) pairs from its graph."""
    bundle = load_bundle(demo_kg())
    store = Store()
    store.bulk_load(path=str(bundle.graph_files[0]), format=RdfFormat.TURTLE)
    label = f"<{bundle.label_predicate}>"
    pairs = defaultdict(list)
    for name, rel in bundle.relations.items():
        query = f"SELECT ?fl ?v ?vl WHERE {{ ?f <{rel.property}> ?v ; {label} ?fl . OPTIONAL {{ ?v {label} ?vl }} }} LIMIT 400"
        for row in store.query(query):
            value = row["vl"].value if row["vl"] is not None else row["v"].value
            pairs[name].append((row["fl"].value, value))
    return bundle, pairs


def shown_literal(kind: str, value: str) -> str:
    """A literal as the retriever hands it over (bot.answering.factual.format_literal)."""
    if kind == "date" and re.match(r"^\d{4}-\d{2}-\d{2}$", value):
        from datetime import date

        return date(*map(int, value.split("-"))).strftime("%-d %B %Y")
    if kind == "number":
        number = float(value)
        return f"{int(number):,}" if number.is_integer() else f"{number:,.2f}"
    return value


def facts_for(bundle, relation: str, to_value: bool, topic: str, answers: list[str]) -> Facts:
    entity = LinkedEntity(topic, f"http://test.invalid/{topic}", topic, 100.0, "film" if to_value else "person")
    return Facts("factual", "?", [Answer(a) for a in answers], [], [entity], (Hop(relation, to_value),))


def masked(text: str, labels: list[str]) -> str:
    """The sentence with every name replaced by X, so that words inside titles are not read as grammar."""
    for name in sorted(set(labels), key=len, reverse=True):
        text = text.replace(name, "X")
    return re.sub(r"X( and X|, X)+", "X and X", text)


def cases(bundle, pairs):
    for name, rel in bundle.relations.items():
        films = sorted({f for f, _ in pairs[name]})
        values = sorted({shown_literal(rel.kind, v) for _, v in pairs[name]})
        for count_name, count in COUNTS.items():
            if len(values) >= count:
                yield name, True, count_name, films[0], values[:count]
            if len(films) >= count:
                yield name, False, count_name, values[0], films[:count]


def test_every_relation_direction_and_count_reads_like_a_person_wrote_it(demo):
    bundle, pairs = demo
    seen = set()
    for name, to_value, count_name, topic, answers in cases(bundle, pairs):
        rel = bundle.relations[name]
        text = template_sentence(facts_for(bundle, name, to_value, topic, answers), bundle).text
        seen.add((name, to_value, count_name))
        where = f"{name} {'forward' if to_value else 'inverse'} x{len(answers)}: {text!r}"
        assert "whose" not in text and " is the films" not in text, where
        assert text[0].isupper() or text[0].isdigit() or text.startswith("$"), where
        assert text.endswith("."), where
        many = len(answers) > 1
        plain = masked(text, [topic, *answers])
        if count_name == "many":  # a lead-in with the count, then the list
            assert f"{len(answers)} " in text and ": " in text, where
        elif many:
            assert " and " in plain, where
        if to_value:
            # the noun, where it is said, agrees with the count of values; so does its verb
            for noun, verb in re.findall(r"The ([\w ]+?) of X (is|are|was|were)\b", plain):
                assert noun == (rel.plural if many else rel.noun) and (verb in ("are", "were")) == many, where
        else:  # a list of films as the subject takes a plural verb, one film a singular one
            assert not re.search(r"X and X (is|was|has|runs)\b", plain), where
            if not many:
                assert not re.match(r"^(?:On IMDb, )?X (are|were|have|run)\b", plain), where
        if rel.property.endswith("P2047") and to_value:
            assert all(f"{a} minutes" in text for a in answers[:LIST_INLINE]), where
        if rel.property.endswith("P2142") and to_value:
            assert "$" in text and all(usd(a) in text for a in answers[:LIST_INLINE]), where
        if rel.property.endswith("P577") and to_value and count_name != "many":
            assert all(when(a) in text for a in answers), where
        for answer in answers[:LIST_INLINE]:
            assert answer in text or usd(answer) in text, where
    relations = {name for name, _, _ in seen}
    assert relations == set(bundle.relations)  # every relation of the demo KG was read
    assert {(to_value, c) for _, to_value, c in seen} == {(d, c) for d in (True, False) for c in COUNTS}


@pytest.mark.parametrize(
    "relation, topic, answers, expected",
    [
        ("cast_member", "Claude Laydu", ["Diary of a Country Priest"], "Claude Laydu starred in Diary of a Country Priest."),
        ("duration", "Batman", ["126"], "Batman runs 126 minutes."),
        ("box_office", "The Princess and the Frog", ["267,000,000"], "The Princess and the Frog grossed $267 million."),
        ("publication_date", "Inception", ["16 July 2010"], "Inception was released on 16 July 2010."),
        ("publication_date", "Heat", ["1995"], "Heat was released in 1995."),
        ("screenwriter", "Good Will Hunting", ["Matt Damon", "Ben Affleck"], "Good Will Hunting was written by Matt Damon and Ben Affleck."),
        ("genre", "Jaws", ["thriller"], "The genre of Jaws is thriller."),
        ("country_of_origin", "Heat", ["United States"], "Heat is from the United States."),
    ],
)
def test_the_issues_examples_read_as_written(demo, relation, topic, answers, expected):
    bundle, _ = demo
    to_value = relation != "cast_member"
    assert template_sentence(facts_for(bundle, relation, to_value, topic, answers), bundle).text == expected


def test_multi_hop_answers_say_the_path_in_plain_words(demo):
    bundle, _ = demo
    facts = facts_for(bundle, "director", True, "Jaws", ["Hook", "Jurassic Park"])
    facts.chain = (Hop("director", True), Hop("director", False))
    facts.extra["path"] = ["Steven Spielberg"]
    assert template_sentence(facts, bundle).text == "Other films directed by the director of Jaws (Steven Spielberg): Hook and Jurassic Park."
    facts.answers = [Answer(f"Film {n}") for n in range(9)]
    assert template_sentence(facts, bundle).text.startswith("Films directed by the director of Jaws (Steven Spielberg), 9 in all: Film 0, Film 1")
    genres = facts_for(bundle, "screenwriter", False, "Quentin Tarantino", ["crime", "drama"])
    genres.chain = (Hop("screenwriter", False), Hop("genre", True))
    genres.extra["path"] = ["Pulp Fiction", "Jackie Brown", "Kill Bill"]
    assert template_sentence(genres, bundle).text == "The genres of the 3 films written by Quentin Tarantino are crime and drama."


def test_several_asks_about_one_film_read_as_one_paragraph(demo):
    bundle, _ = demo
    director = facts_for(bundle, "director", True, "Inception", ["Christopher Nolan"])
    released = facts_for(bundle, "publication_date", True, "Inception", ["16 July 2010"])
    combined = Facts("factual", "?", director.answers + released.answers, [], director.topic, director.chain, parts=[director, released])
    assert template_sentence(combined, bundle).text == "Inception was directed by Christopher Nolan. It was released on 16 July 2010."


def test_the_sentence_file_names_only_known_placeholders():
    table = sentence_table()
    assert len(table) >= 19 and all(spec.forward and spec.inverse and spec.films for spec in table.values())


def test_conditions_name_a_few_earlier_films_and_count_many():
    from bot.generation.composed import describe_conditions

    bundle = load_bundle(demo_kg())
    few = (Condition(Op.AMONG, values=("Heat", "Ronin")),)
    many = (Condition(Op.AMONG, values=tuple(f"Film {n}" for n in range(18))), Condition(Op.NOT_AMONG, said="other than", values=("Jaws",)))
    assert describe_conditions(few, bundle) == "among Heat and Ronin"
    assert describe_conditions(many, bundle) == "among those 18 films, other than Jaws"


def test_a_decade_said_bare_reads_with_its_article():
    from bot.generation.composed import describe_conditions

    bundle = load_bundle(demo_kg())
    decade = (Condition(Op.YEAR_FROM, ("publication_date",), "90s", values=("1990",)),)
    year = (Condition(Op.YEAR_FROM, ("publication_date",), "1994", values=("1994",)),)
    assert describe_conditions(decade, bundle) == "from the 90s"
    assert describe_conditions(year, bundle) == "from 1994"


def test_a_most_that_found_only_the_named_values_does_not_say_the_films_are_missing():
    """"Which author besides Shakespeare ..." over films based on Shakespeare: the films exist, only no other author."""
    from bot.core.contracts import Facts
    from bot.core.kinds import Kind
    from bot.core.results import MostResult
    from bot.generation.composed import most_sentence

    bundle = load_bundle(demo_kg())
    named = MostResult((), "source_author", empty=True, left_out=("William Shakespeare",))
    text = most_sentence(named, Facts(Kind.FACTUAL, "q"), bundle)
    assert "has no films" not in text and "besides William Shakespeare" in text
    assert most_sentence(MostResult((), "source_author", empty=True), Facts(Kind.FACTUAL, "q"), bundle).startswith("My knowledge graph has no films")

"""Collaborations and family names answered on the demo KG, with questions generated from the graph (several people,
roles and phrasings): each answer is checked against counts taken from the graph's triples here, not from the answerer.
The readers on small inputs are tests/test_collaboration.py."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from bot.agent import Agent
from bot.core.config import Settings
from bot.core.text import normalize
from bot.kg import queries
from bot.resources import demo_kg

from conftest import CHEAP_FEATURES

pytestmark = pytest.mark.integration  # builds the demo KG

ROLE_NOUNS = {"composer": "composer", "director_of_photography": "cinematographer", "cast_member": "actor"}
ROLE_VERBS = {"composer": "scored", "director_of_photography": "shot", "cast_member": "acted in"}
USUAL = ("Who is {p}'s go-to {noun}?", "Who does {p} usually work with as {noun}?", "Which {noun} has {p} worked with the most?")


@pytest.fixture(scope="module")
def agent(cache_dir) -> Agent:
    return Agent.from_settings(Settings(kg=str(demo_kg()), cache_dir=str(cache_dir), features=CHEAP_FEATURES))


@pytest.fixture(scope="module")
def credits(agent) -> dict[str, dict[str, set[str]]]:
    """relation -> person IRI -> the films they hold it on, read from the triples."""
    out: dict[str, dict[str, set[str]]] = {}
    for name, rel in agent.kg.bundle.relations.items():
        if rel.value_class != "person" or rel.derived:
            continue
        rows = agent.kg.graph.select(f"SELECT ?film ?person WHERE {{ ?film {queries.relation_path(rel)} ?person }}")
        films: dict[str, set[str]] = defaultdict(set)
        for row in rows:
            films[row["person"].value].add(row["film"].value)
        out[name] = films
    return out


def unique_people(agent, credits, least: int) -> list[tuple[str, str]]:
    """Directors of at least `least` films whose full name names nobody else, best known first: (IRI, label)."""
    labels = agent.kg.labels
    found = []
    for iri, films in credits["director"].items():
        i = labels.by_iri.get(iri)
        if i is not None and len(films) >= least and labels.lookup(normalize(labels.labels[i])) == [i]:
            found.append((labels.fame(i), iri, labels.labels[i]))
    return [(iri, label) for _, iri, label in sorted(found)[:6]]


def films_of(credits, person: str, roles) -> set[str]:
    return set().union(*(credits[r].get(person, set()) for r in roles))


def partner_counts(credits, films: set[str], relations, leave_out: set[str]) -> Counter:
    counts: Counter = Counter()
    for relation in relations:
        for person in credits[relation]:
            if person not in leave_out:
                counts[person] += 0  # (counted once per film below)
    for person in list(counts):
        counts[person] = len(films & films_of(credits, person, relations))
    return +counts


def test_the_usual_partner_in_a_role_is_counted_over_the_persons_films(agent, credits):
    labels = agent.kg.labels
    checked = 0
    for iri, label in unique_people(agent, credits, 4):
        for relation, noun in ROLE_NOUNS.items():
            for phrasing in USUAL:
                question = phrasing.format(p=label, noun=noun)
                plan = agent.read(question).plan
                assert plan is not None and plan.collaboration is not None, question
                assert plan.collaboration.partner_roles == (relation,), question
                films = films_of(credits, iri, plan.collaboration.roles)
                counts = partner_counts(credits, films, (relation,), {iri})
                reply = agent.answer(question)
                if not counts:
                    assert not reply.answers, (question, reply.text)
                    continue
                top = max(counts.values())
                assert set(reply.answers) == {labels.label_of(p) for p, n in counts.items() if n == top}, (question, reply.text)
                assert f" {top} of the {len(films)} films" in reply.text, (question, reply.text)
                checked += 1
    assert checked >= 20


def test_two_partners_are_compared_on_the_films_they_share_with_a_third(agent, credits):
    labels = agent.kg.labels
    checked = 0
    for iri, label in unique_people(agent, credits, 4):
        for relation, verb in ROLE_VERBS.items():
            films = films_of(credits, iri, agent.understander.composer.main_roles(agent.read(f"films by {label}").plan.entities[0],
                                                                                  agent.understander.composer.roles_of(
                                                                                      agent.read(f"films by {label}").plan.entities[0])))
            counts = partner_counts(credits, films, (relation,), {iri})
            ranked = [p for p, _ in counts.most_common() if labels.lookup(normalize(labels.labels[labels.by_iri[p]])) == [labels.by_iri[p]]]
            if len(ranked) < 2 or counts[ranked[0]] == counts[ranked[-1]]:
                continue
            more, fewer = ranked[0], ranked[-1]
            a, b = labels.label_of(more), labels.label_of(fewer)
            which = agent.answer(f"Who has {verb} more {label} films, {b} or {a}?")
            assert which.answers == [a], which.text
            assert f"{b} " in which.text and f" {counts[more]}" in which.text and f" {counts[fewer]}" in which.text, which.text
            asked = agent.answer(f"Has {label} worked with {b} more often than with {a}?")
            assert asked.answers == ["no"], asked.text
            checked += 1
    assert checked >= 6


def test_a_comparison_that_cannot_count_shared_films_never_counts_each_persons_films(agent):
    reply = agent.answer("Who has directed more films, Bill Murray or Sigourney Weaver?")  # no "of whose films": overall counts
    plan = agent.read("Who has shot more Spielberg films, Janusz Kamiński or Dean Cundey?").plan
    assert plan.comparison is None and plan.collaboration is not None
    assert "Steven Spielberg:" not in agent.answer("Who has shot more Spielberg films, Janusz Kamiński or Dean Cundey?").text
    assert reply.text


def test_a_family_name_stands_for_its_members_wherever_a_person_does(agent, credits):
    labels = agent.kg.labels
    families = {members for members in labels.families.values()}
    assert len(families) >= 2  # the demo KG's Coens and Wachowskis at least
    for members in families:
        surname = normalize(labels.labels[members[0]]).split()[-1].capitalize()
        iris = [labels.iris[i] for i in members]
        directed = set().union(*(credits["director"].get(p, set()) for p in iris))
        for question in (f"How many films did the {surname} brothers direct?", f"how many films did the {surname}s direct"):
            reply = agent.answer(question)
            assert reply.answers == [str(len(directed))], (question, reply.text)
        if not all(credits["director"].get(p) for p in iris):
            continue  # (a family of producers, or of a director and a composer: "their films" are not only the ones they directed)
        composers = {p for p, films in credits["composer"].items() if films & directed}
        reply = agent.answer(f"Who composed the music of the {surname}s' films?")
        assert {labels.label_of(p) for p in composers} == set(reply.answers), reply.text


def test_a_familys_possessive_before_a_title_checks_whose_film_it_is(agent, credits):
    labels = agent.kg.labels
    families = sorted({members for members in labels.families.values()})
    directed = {members: set().union(*(credits["director"].get(labels.iris[i], set()) for i in members)) for members in families}
    directing = [m for m in families if directed[m]]
    assert len(directing) >= 2
    for members in directing:
        surname = normalize(labels.labels[members[0]]).split()[-1].capitalize()
        theirs = sorted(directed[members])[:3]
        others = sorted(set().union(*(directed[m] for m in directing if m != members)) - directed[members])[:2]
        for film in theirs:
            title = labels.label_of(film)
            if len(labels.lookup(normalize(title))) != 1:
                continue  # (namesakes: the possessive would choose among them)
            reply = agent.answer(f"When was the {surname} brothers' {title} released?")
            assert reply.answers and "could not find" not in reply.text, reply.text
        for film in others:
            title = labels.label_of(film)
            if len(labels.lookup(normalize(title))) == 1:
                reply = agent.answer(f"When was the {surname}s' {title} released?")
                assert not reply.answers and "could not find" in reply.text, reply.text  # a description the graph contradicts is said

"""Collaborations read into typed plans (bot/understanding/constructions/collaboration.py), on a few triples held in memory:
who works with one person the most, in a named role or in any, and which of two people shares more of a person's films.
The answers on the demo KG are tests/test_collaboration_answers.py."""

from __future__ import annotations

import pytest
from test_readers import MemoryGraph, composition_reader, written_bundle

from bot.kg.labels import build_label_index

from conftest import CAST, DIRECTOR, SCREENWRITER, TTL_PREFIXES

COMPOSER = {"property": "wdt:P86", "value_class": "person"}
PHOTOGRAPHY = {"property": "wdt:P344", "value_class": "person"}
TTL = TTL_PREFIXES + r'''
t:harbour wdt:P31 wd:Q11424 ; rdfs:label "Grey Harbour"@en ; wdt:P57 t:okafor ; wdt:P86 t:lindqvist ; wdt:P344 t:moreau ;
  wdt:P161 t:adeyemi, t:halloran .
t:lantern wdt:P31 wd:Q11424 ; rdfs:label "The Paper Lantern"@en ; wdt:P57 t:okafor ; wdt:P86 t:lindqvist ; wdt:P344 t:moreau ;
  wdt:P161 t:adeyemi .
t:orchard wdt:P31 wd:Q11424 ; rdfs:label "Salt Orchard"@en ; wdt:P57 t:okafor ; wdt:P86 t:brandt ; wdt:P344 t:saito ; wdt:P161 t:adeyemi .
t:tide wdt:P31 wd:Q11424 ; rdfs:label "Low Tide Hotel"@en ; wdt:P57 t:vance ; wdt:P86 t:lindqvist ; wdt:P161 t:halloran .
t:okafor wdt:P31 wd:Q5 ; rdfs:label "Ngozi Okafor"@en .
t:vance wdt:P31 wd:Q5 ; rdfs:label "Petra Vance"@en .
t:lindqvist wdt:P31 wd:Q5 ; rdfs:label "Eskil Lindqvist"@en .
t:brandt wdt:P31 wd:Q5 ; rdfs:label "Mira Brandt"@en .
t:moreau wdt:P31 wd:Q5 ; rdfs:label "Louis Moreau"@en .
t:saito wdt:P31 wd:Q5 ; rdfs:label "Kenji Saito"@en .
t:adeyemi wdt:P31 wd:Q5 ; rdfs:label "Tunde Adeyemi"@en .
t:halloran wdt:P31 wd:Q5 ; rdfs:label "Fiona Halloran"@en .
'''


@pytest.fixture(scope="module")
def read(tmp_path_factory):
    return composition_reader(tmp_path_factory.mktemp("collaboration"), TTL, "collaboration", {
        "director": DIRECTOR, "cast_member": CAST, "composer": COMPOSER, "director_of_photography": PHOTOGRAPHY})


@pytest.mark.parametrize("question", [
    "Who has Ngozi Okafor worked with the most?",
    "who did Ngozi Okafor collaborate with most often",
    "Who does Ngozi Okafor usually work with?",
    "Ngozi Okafor's most frequent collaborator?",
])
def test_working_with_someone_the_most_counts_every_role_on_their_films(read, question):
    composition, tried = read(question)
    plan = composition.collaboration
    assert tried[-1] == "collaboration" and plan.partners == ()
    assert composition.entities[plan.person].label == "Ngozi Okafor" and plan.roles == ("director",)
    assert set(plan.partner_roles) == {"director", "cast_member", "composer", "director_of_photography"}


@pytest.mark.parametrize(("question", "role"), [
    ("Who is Ngozi Okafor's go-to composer?", "composer"),
    ("Who usually scores Ngozi Okafor's films?", "composer"),
    ("who does Ngozi Okafor usually work with as cinematographer", "director_of_photography"),
    ("Which actor has Ngozi Okafor worked with the most?", "cast_member"),
    ("Ngozi Okafor's regular DP", "director_of_photography"),
])
def test_a_usual_partner_in_a_named_role_counts_only_that_role(read, question, role):
    composition, _ = read(question)
    plan = composition.collaboration
    assert plan.partner_roles == (role,) and plan.roles == ("director",) and plan.partners == ()


def test_two_people_compared_on_a_third_ones_films_are_the_partners(read):
    composition, tried = read("Has Ngozi Okafor worked with Eskil Lindqvist more often than with Mira Brandt?")
    plan = composition.collaboration
    assert tried[-1] == "collaboration" and plan.asked
    assert composition.entities[plan.person].label == "Ngozi Okafor"
    assert [composition.entities[i].label for i in plan.partners] == ["Eskil Lindqvist", "Mira Brandt"]


def test_a_role_verb_compares_the_partners_in_that_role_only(read):
    composition, _ = read("Who has shot more Ngozi Okafor films, Louis Moreau or Kenji Saito?")
    plan = composition.collaboration
    assert not plan.asked and plan.partner_roles == ("director_of_photography",) and plan.roles == ("director",)
    assert [composition.entities[i].label for i in plan.partners] == ["Louis Moreau", "Kenji Saito"]


@pytest.mark.parametrize("question", [
    "How many films did Ngozi Okafor direct?",  # a count of one person's films
    "Did Ngozi Okafor and Tunde Adeyemi work together?",  # whether they shared any film
    "Which Ngozi Okafor film has the most actors?",  # a film is asked for
    "Which of Ngozi Okafor's films has the most actors?",
    "Who is the lead actor of Ngozi Okafor's most recent film?",  # a superlative orders the films
    "Who composed Ngozi Okafor's longest film?",
    "Who directed Grey Harbour?",
])
def test_questions_of_other_shapes_are_no_collaboration(read, question):
    composition, _ = read(question)
    assert composition is None or composition.collaboration is None


def test_a_yes_no_question_that_offers_a_choice_asks_which(read):
    composition, _ = read("Did Ngozi Okafor work more with Eskil Lindqvist or Mira Brandt?")
    assert not composition.collaboration.asked and composition.collaboration.partners == (1, 2)


def test_two_names_written_as_one_compare_nobody(read):
    # "Fiona Vance" is nobody in the graph: read as Fiona Halloran's and Petra Vance's surnames it is no pair of people
    composition, _ = read("Who directed more films, Fiona Vance or Ngozi Okafor?")
    assert composition is None or composition.collaboration is None


FAMILY_TTL = TTL_PREFIXES + r'''
t:f1 wdt:P31 wd:Q11424 ; rdfs:label "North Window"@en ; wdt:P57 t:ana, t:luis ; wdt:P161 t:maria .
t:f2 wdt:P31 wd:Q11424 ; rdfs:label "South Door"@en ; wdt:P57 t:ana ; wdt:P58 t:luis ; wdt:P161 t:jorge .
t:f3 wdt:P31 wd:Q11424 ; rdfs:label "East Stair"@en ; wdt:P57 t:maria ; wdt:P161 t:jorge .
t:ana wdt:P31 wd:Q5 ; rdfs:label "Ana Reyes"@en .
t:luis wdt:P31 wd:Q5 ; rdfs:label "Luis Reyes"@en .
t:maria wdt:P31 wd:Q5 ; rdfs:label "Maria Silva"@en .
t:jorge wdt:P31 wd:Q5 ; rdfs:label "Jorge Silva"@en .
'''


@pytest.fixture(scope="module")
def family_index(tmp_path_factory):
    bundle = written_bundle(tmp_path_factory.mktemp("families"), FAMILY_TTL, "families", {"director": DIRECTOR, "screenwriter": SCREENWRITER,
                                                                                        "cast_member": CAST})
    return build_label_index(MemoryGraph(FAMILY_TTL), bundle)


def test_people_of_one_family_name_credited_together_twice_are_a_family(family_index):
    members = {family_index.labels[i] for i in family_index.families["the reyes brothers"]}
    assert members == {"Ana Reyes", "Luis Reyes"}
    assert family_index.families["the reyeses"] == family_index.families["reyes siblings"]
    assert "reyeses" not in family_index.families  # (a bare plural is as often a possessive without its apostrophe)
    assert set(family_index.variants["the reyes sisters"]) == set(family_index.families["the reyes brothers"])


def test_namesakes_who_share_fewer_than_two_films_are_no_family(family_index):
    assert not any("silva" in name for name in family_index.families)

"""What the bot says it can do is what the assembled pipeline does: help and small talk from the features' offers,
and hints for an entity that name questions about that kind of entity, each of which the bot answers."""

from __future__ import annotations

import json

import pytest

from bot.agent import Agent, entity_examples
from bot.core.contracts import LinkedEntity

T = "http://test.invalid/"


def linked(agent: Agent, iri: str) -> LinkedEntity:
    label, group, _, year = agent.kg.labels.info(iri)
    return LinkedEntity(label, iri, label, 100.0, group, year=year)


def asked(example: str) -> str:
    return example.strip('"')


def test_help_offers_exactly_what_the_loaded_features_offer(mini_agent, mini_settings):
    offers = mini_agent.describe()["offers"]
    help_text = mini_agent.answer("help").text
    for feature, said in offers.items():
        assert all(offer in help_text for offer in said), (feature, help_text)
    assert "recommend" in offers and "recommend films" in help_text
    assert "images" not in offers and "picture" not in help_text  # the mini bundle has no images index
    assert "crowd" not in offers and "crowd" not in help_text  # nor a crowd file

    bare = Agent(mini_agent.kg, mini_settings.with_overrides(features=(), sparql_in_chat=False))
    bare.load_features()
    assert bare.describe()["offers"] == {}
    for message in ("help", "what can you do?", "who are you?", "I'm bored"):
        text = bare.answer(message).text
        assert "I can also" not in text and "recommend" not in text and "suggest" not in text and "crowd" not in text, text


def test_pictures_are_offered_only_with_an_images_index(mini_agent, mini_settings, tmp_path):
    index = tmp_path / "images.json"
    index.write_text(json.dumps([]), encoding="utf-8")
    with_images = Agent(mini_agent.kg, mini_settings.with_overrides(features=("images",), images_index=str(index)))
    with_images.load_features()
    assert with_images.describe()["offers"]["images"] == ("show pictures of people and film posters",)
    assert "show pictures" in with_images.answer("what can you do?").text
    without = Agent(mini_agent.kg, mini_settings.with_overrides(features=("images",)))
    without.load_features()
    assert "images" not in without.describe()["offers"] and "picture" not in without.answer("help").text


def test_a_film_hint_asks_for_its_director_date_and_cast(mini_agent):
    examples = entity_examples(linked(mini_agent, T + "milk"), mini_agent.kg)
    assert [asked(e) for e in examples] == ["Who directed Milk?", "When was Milk released?", "Who acted in Milk?"]


def test_a_person_hint_asks_for_their_films_in_the_roles_they_hold(mini_agent):
    branagh = [asked(e) for e in entity_examples(linked(mini_agent, T + "branagh"), mini_agent.kg)]
    assert len(branagh) == 2 and any("direct" in e for e in branagh) and any("star" in e or "act" in e for e in branagh)
    damon = [asked(e) for e in entity_examples(linked(mini_agent, T + "damon"), mini_agent.kg)]
    assert any("write" in e for e in damon) and not any("direct" in e for e in damon)  # Matt Damon directed nothing here


def test_a_genre_hint_lists_its_films_and_never_asks_what_the_genre_made(mini_agent):
    (example,) = entity_examples(linked(mini_agent, T + "drama"), mini_agent.kg)
    assert "drama film" in example and "made" not in example and "direct" not in example


@pytest.mark.parametrize("entity", ["milk", "branagh", "damon", "gvs", "drama"])
def test_every_hinted_question_is_answered(mini_agent, entity):
    for example in entity_examples(linked(mini_agent, T + entity), mini_agent.kg):
        reply = mini_agent.answer(asked(example))
        assert reply.answers and "not sure" not in reply.text, (example, reply.text)


def test_a_message_naming_only_an_entity_gets_the_hint_of_its_kind(mini_agent):
    reply = mini_agent.answer("Kenneth Branagh")
    assert "not sure" in reply.text and "What films did Kenneth Branagh direct?" in reply.text, reply.text


def test_the_chatroom_examples_come_from_the_readme_table_and_only_for_what_the_bot_offers():
    from bot.chat import examples

    readme = (examples.README).read_text(encoding="utf-8")
    rows = examples.table_rows(readme)
    assert ("a fact", "Who directed Good Will Hunting?") in rows and len(rows) >= 10
    everything = {name: ("offered",) for name in examples.ROW_NEEDS.values()}
    shown = examples.example_questions(everything, readme)
    assert {e["kind"] for e in shown} >= {"a fact", "recommendations", "pictures", "crowd answers"}
    assert all("→" not in e["question"] and "`" not in e["question"] and not e["question"].endswith(")") for e in shown)
    bare = examples.example_questions({}, readme)
    assert {e["kind"] for e in bare}.isdisjoint(examples.ROW_NEEDS) and "a fact" in {e["kind"] for e in bare}
    assert set(examples.ROW_NEEDS) <= {kind for kind, _ in rows}  # the rows a feature answers are still named so


def test_an_installed_package_reads_the_examples_from_its_metadata(monkeypatch, tmp_path):
    from bot.chat import examples

    monkeypatch.setattr(examples, "README", tmp_path / "no-README.md")  # a wheel: no README next to the package
    assert examples.SECTION in examples.readme_text()


def test_the_examples_offered_on_a_kg_are_the_ones_it_reads(mini_agent):
    from bot.chat.examples import examples_for

    questions = [e["question"] for e in examples_for(mini_agent)]
    assert "Who directed Good Will Hunting?" in questions and "Who directed Hamlet 1996?" in questions
    assert "What films did Julia Roberts star in?" not in questions  # the mini KG has no Julia Roberts

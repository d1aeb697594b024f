"""Pronouns resolved inside their message first, then to the conversation's referents (bot/understanding/referents.py),
on a few triples held in memory: no built store, no classifier."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from test_readers import TTL, MemoryGraph

from bot.core.contracts import LinkedEntity, Referents
from bot.kg.bundle import load_bundle
from bot.kg.labels import build_label_index
from bot.understanding.compose import COMPOSITION_WORDS
from bot.understanding.constructions.clause import tokenise
from bot.understanding.lexicon import Lexicon
from bot.understanding.mentions import IndexMentions, template_vocabulary
from bot.understanding.names import NameFinder
from bot.understanding.referents import PINNED, resolve_referents
from bot.understanding.vocabulary import GENERIC, STOP

from conftest import CAST, DATE, DIRECTOR, GENRE, bundle_toml


def entity(iri: str, label: str, group: str) -> LinkedEntity:
    return LinkedEntity(label, f"http://test.invalid/{iri}", label, 100.0, group)


HEAT, RONIN = entity("heat", "Heat", "film"), entity("ronin", "Ronin", "film")
MANN, PACINO, DENIRO = entity("mann", "Michael Mann", "person"), entity("pacino", "Al Pacino", "person"), entity("deniro", "Robert De Niro", "person")
CONVERSATION = Referents(film=HEAT, person=MANN, he=MANN, she=None, answers=(PACINO, DENIRO), people=(MANN, PACINO), films=(HEAT, RONIN),
                         topic=HEAT)


@pytest.fixture(scope="module")
def resolve(tmp_path_factory):
    folder = tmp_path_factory.mktemp("referents")
    (folder / "graph.ttl").write_text(TTL, encoding="utf-8")
    (folder / "bundle.toml").write_text(bundle_toml("referents", {"director": DIRECTOR, "cast_member": CAST, "genre": GENRE,
                                                                  "publication_date": DATE}), encoding="utf-8")
    bundle = load_bundle(folder)
    graph = MemoryGraph(TTL)
    kg = SimpleNamespace(bundle=bundle, graph=graph, labels=build_label_index(graph, bundle))
    wording = template_vocabulary(bundle)
    names = NameFinder(kg, Lexicon.from_bundle(bundle, wording), IndexMentions(kg.labels, wording | COMPOSITION_WORDS | STOP | GENERIC),
                       wording, 90.0)

    def run(text: str, referents: Referents | None = CONVERSATION, clauses: list[str] = ()):
        """`clauses`: the words each clause after the first starts with (the parser's cut, given here)."""
        toks = tokenise(text)
        starts = [0] + [next(k for k, t in enumerate(toks) if t.text == word and k > 0) for word in clauses]
        ranges = list(zip(starts, starts[1:] + [len(toks)]))
        return resolve_referents(text, toks, names.candidate_spans(text, toks), referents, kg.labels, names.name_like, lambda: ranges)

    return run


def test_a_pronoun_with_no_antecedent_in_its_message_is_the_conversations_film(resolve):
    resolved = resolve("is Al Pacino in it?")
    assert resolved.text == "is Al Pacino in Heat?"
    pinned = [s for s in resolved.spans if s.source == PINNED]
    assert len(pinned) == 1 and resolved.text[pinned[0].start : pinned[0].end] == "Heat"
    assert [t.text for t in resolved.toks][pinned[0].tok_start : pinned[0].tok_end] == ["heat"]


def test_a_possessive_keeps_its_s_and_the_names_around_it_keep_their_places(resolve):
    resolved = resolve("who was the director of photography on its sequel with Robert De Niro")
    assert resolved.text == "who was the director of photography on Heat's sequel with Robert De Niro"
    deniro = next(s for s in resolved.spans if s.source != PINNED and resolved.text[s.start : s.end] == "Robert De Niro")
    assert [t.text for t in resolved.toks][deniro.tok_start : deniro.tok_end] == ["robert", "de", "niro"]


def test_a_film_named_before_the_pronoun_in_the_message_wins(resolve):
    resolved = resolve("Who directed Ronin and who starred in it?", clauses=["who"])
    assert resolved.text == "Who directed Ronin and who starred in it?" and not resolved.replaced  # the parser reads "it" = Ronin


def test_he_after_a_name_in_the_same_clause_is_still_the_conversations_person(resolve):
    assert resolve("Which Robert De Niro film did he direct?").text == "Which Robert De Niro film did Michael Mann direct?"


def test_a_possessive_after_a_person_set_off_before_it_is_that_person(resolve):
    resolved = resolve("back to Robert De Niro, which of his films is the oldest?", clauses=["which"])
    assert resolved.text == "back to Robert De Niro, which of Robert De Niro's films is the oldest?"


def test_he_after_an_earlier_question_is_left_to_the_parser_as_its_answer(resolve):
    resolved = resolve("who directed Ronin and what else did he direct?", clauses=["what"])
    assert not resolved.replaced


def test_she_is_nobody_the_user_called_he(resolve):
    resolved = resolve("what else has she been in?")
    assert not resolved.replaced and resolved.unsaid is None  # a pronoun with no referent: no topic is guessed either


def test_they_are_the_previous_answers_and_both_the_last_two_films(resolve):
    assert resolve("did they both act in Ronin?").text == "did Al Pacino and Robert De Niro both act in Ronin?"
    assert resolve("who directed both?").text == "who directed both Heat and Ronin?"


def test_them_after_of_is_the_last_list_not_the_answers(resolve):
    assert not resolve("which of them is the oldest?").replaced


def test_a_capitalised_pronoun_inside_a_sentence_is_part_of_a_title(resolve):
    assert not resolve("Who directed His Girl Friday?").replaced


def test_a_message_that_names_nothing_asks_about_the_topic_unless_it_sets_a_condition(resolve):
    assert resolve("and the runtime?").unsaid == HEAT
    assert resolve("nothing over two hours").unsaid is None
    assert resolve("and who directed Ronin?").unsaid is None
    assert resolve("what other films are adapted from that play?").unsaid is None  # "that play": not the film
    assert resolve("and the runtime?", referents=None).unsaid is None


def test_the_newer_one_is_the_later_of_the_two_films_just_listed(resolve):
    listed = Referents(listed=(LinkedEntity("Heat", HEAT.iri, "Heat", 100.0, "film", year=1995),
                               LinkedEntity("Ronin", RONIN.iri, "Ronin", 100.0, "film", year=1998)))
    assert resolve("how long is the newer one?", referents=listed).text == "how long is Ronin?"
    assert resolve("who directed the older film", referents=listed).text == "who directed Heat"
    three = Referents(listed=listed.listed + (LinkedEntity("Casino", "http://test.invalid/casino", "Casino", 100.0, "film", year=1995),))
    assert not resolve("how long is the newer one?", referents=three).replaced  # of three, "the newer" picks none
    assert not resolve("who directed the first one?", referents=three).replaced  # Heat and Casino share 1995: no first
    assert resolve("who directed the last one?", referents=three).text == "who directed Ronin?"
    assert resolve("who directed the first one?", referents=listed).text == "who directed Heat?"
    assert not resolve("what was the first film by Michael Mann?", referents=listed).replaced  # his own first film


def test_he_is_not_the_person_his_own_message_names_but_the_other_one_of_the_last_turns(resolve):
    # the last turn named Michael Mann and Al Pacino; a message that names Mann means Pacino by "he"
    resolved = resolve("which Michael Mann film did he not act in?", Referents(person=MANN, he=MANN, people=(MANN, PACINO)))
    assert resolved.text == "which Michael Mann film did Al Pacino not act in?"


def test_another_place_in_a_list_is_not_guessed_and_not_the_conversations_topic(resolve):
    listed = Referents(topic=HEAT, listed=(LinkedEntity("Heat", HEAT.iri, "Heat", 100.0, "film", year=1995),
                                           LinkedEntity("Ronin", RONIN.iri, "Ronin", 100.0, "film", year=1998)))
    resolved = resolve("who directed the second one?", referents=listed)
    assert not resolved.replaced and resolved.unsaid is None

"""The Flair NER entity layer: training sentences, validation, fragment reassembly, and the trained tagger in the agent."""

from __future__ import annotations

import random
import threading
from collections import Counter

import numpy as np
import pytest
from flair.data import Sentence
from rapidfuzz.distance import Levenshtein

from bot.agent import Agent
from bot.core.cache import read_manifest
from bot.core.text import normalize, tokens
from bot.kg.bundle import load_bundle
from bot.kg.labels import LabelIndex
from bot.understanding.constructions.clause import tokenise
from bot.understanding.ner.matching import NerMentions, TaggedSpan
from bot.understanding.ner.plan import TrainingPlan, training_plan
from bot.understanding.ner.sentences import NerDataGenerator, made_up_title, typo
from bot.understanding.ner.tagger import NerTagger, train_tagger, viterbi
from bot.understanding.ner.training import build_step

pytestmark = pytest.mark.integration


def words(text: str):
    """The question as the tagger sees it: (word, start, end) with punctuation marks as words."""
    return tokens(text, folded=False, marks=True)

TITLES = ["Good Will Hunting", "Star Wars: Episode VI – Return of the Jedi", "Star Wars", "X-Men: First Class",
          "Tom Meets Zizou", "The Masked Gang: Cyprus", "Hamlet", "The Long Kiss Goodnight", "Good Morning, Vietnam"]
PERSONS = ["Matt Damon", "Ben Affleck", "Gus Van Sant", "Tom"]


def label_index(titles=TITLES, persons=PERSONS) -> LabelIndex:
    index = LabelIndex()
    for group, names in (("film", titles), ("person", persons)):
        for name in names:
            idx = len(index.iris)
            index.iris.append(f"http://test.invalid/{group}/{idx}")
            index.labels.append(name)
            index.groups.append(group)
            index.degree.append(1)
            index.years.append(None)
            index.by_iri[index.iris[-1]] = idx
            index.by_norm.setdefault(normalize(name), []).append(idx)
            index.max_tokens = max(index.max_tokens, len(normalize(name).split()))
    return index


class FixedTagger:
    """Stands in for the Flair tagger: tags the given fragments wherever they occur."""

    def __init__(self, *fragments: tuple[str, str]):
        self.fragments = fragments

    def tag(self, text: str) -> list[TaggedSpan]:
        found = []
        for fragment, tag in self.fragments:
            start = text.find(fragment)
            if start >= 0:
                found.append(TaggedSpan(start, start + len(fragment), tag, 0.9))
        return found


WORDING = frozenset("what is about who directed did write starred in when was released describe films".split())


def mentions(text: str, *fragments: tuple[str, str]):
    source = NerMentions(FixedTagger(*fragments), label_index(), 90.0, WORDING)
    return [(text[s.start : s.end], s.norm if s.ids else None, s.expects) for s in source(text, tokens(text))]


# ---------------------------------------------------------------- training sentences

@pytest.fixture(scope="module")
def examples(mini_bundle):
    return NerDataGenerator(load_bundle(mini_bundle), TITLES, PERSONS, seed=3).examples(1500)


def test_sentences_tag_titles_as_misc_and_names_as_per(examples):
    tags = Counter(tag for e in examples for _, _, tag in e.spans)
    assert set(tags) == {"MISC", "PER"}
    assert tags["MISC"] > 500 and tags["PER"] > 300
    for e in examples:
        assert all(0 <= a < b <= len(e.words) for a, b, _ in e.spans)
        assert all(b1 <= a2 for (_, b1, _), (a2, _, _) in zip(sorted(e.spans), sorted(e.spans)[1:]))


def test_sentences_cover_every_question_kind(examples):
    joined = [" ".join(e.words).lower() for e in examples]
    assert any(not e.spans for e in examples), "small talk has no names"
    assert any(sum(t == "MISC" for _, _, t in e.spans) >= 3 for e in examples), "recommendations name several films"
    assert any("look" in j and e.spans for j, e in zip(joined, examples)), "picture questions"
    assert any(j.startswith("who directed") for j in joined), "factual questions from the phrasings"


def test_made_up_names_and_variants_are_mixed_in(examples):
    real_titles, real_persons = {normalize(t) for t in TITLES}, {normalize(p) for p in PERSONS}
    spans = [(normalize(" ".join(e.words[a:b])), tag) for e in examples for a, b, tag in e.spans]
    titles = [s for s, tag in spans if tag == "MISC"]
    persons = [s for s, tag in spans if tag == "PER"]
    # about 25% made-up titles and 40% made-up names, plus typo variants of real ones
    assert 0.2 < sum(t not in real_titles for t in titles) / len(titles) < 0.6
    assert 0.35 < sum(p not in real_persons for p in persons) / len(persons) < 0.7
    raw = [" ".join(e.words[a:b]) for e in examples for a, b, _ in e.spans]
    assert any(r.islower() and any(c.isalpha() for c in r) for r in raw), "lowercase variants"


def test_made_up_titles_have_colons_dashes_numbers_and_apostrophes():
    rng = random.Random(1)
    titles = [made_up_title(rng, ["night", "love"]) for _ in range(800)]
    assert any(":" in t for t in titles) and any(" - " in t for t in titles)
    assert any(any(c.isdigit() for c in t) for t in titles) and any("'" in t for t in titles)


def test_typo_makes_one_or_two_edits():
    rng = random.Random(7)
    for edits in (1, 2):
        for _ in range(50):
            changed = typo(rng, "Good Will Hunting", edits)
            assert 1 <= Levenshtein.distance(changed, "Good Will Hunting") <= 2 * edits


def test_same_seed_same_sentences(mini_bundle):
    bundle = load_bundle(mini_bundle)
    first = NerDataGenerator(bundle, TITLES, PERSONS, seed=5).examples(50)
    again = NerDataGenerator(bundle, TITLES, PERSONS, seed=5).examples(50)
    assert [(e.words, e.spans) for e in first] == [(e.words, e.spans) for e in again]


def test_training_plan_scales_with_the_kg_and_keys_the_cache(mini_settings):
    small, large = training_plan(mini_settings, 10), training_plan(mini_settings, 100_000)
    assert small.sentences < large.sentences == mini_settings.ner_sentences
    assert small.key("graph", "schema") != small.key("other graph", "schema")
    assert small.key("graph", "schema") != small.key("graph", "edited phrasings")  # the sentences come from the phrasings
    longer = training_plan(mini_settings.with_overrides(ner_epochs=mini_settings.ner_epochs + 1), 10)
    assert longer.key("graph", "schema") != small.key("graph", "schema")


# ---------------------------------------------------------------- validation and fragment reassembly

def test_split_title_fragments_are_reassembled():
    text = "who directed Star Wars: Episode VI – Return of the Jedi"
    found = mentions(text, ("Star Wars", "MISC"), ("Episode VI", "MISC"), ("Return of the Jedi", "MISC"))
    assert found == [("Star Wars: Episode VI – Return of the Jedi", "star wars episode vi return of the jedi", "film")]


def test_title_split_at_a_place_name_or_person_is_reassembled():
    text = "who starred in The Masked Gang: Cyprus"
    assert mentions(text, ("The Masked Gang", "MISC"), ("Cyprus", "LOC")) == [
        ("The Masked Gang: Cyprus", "the masked gang cyprus", "film")]
    text = "when was Tom Meets Zizou released"
    assert mentions(text, ("Tom", "PER"), ("Zizou", "PER")) == [("Tom Meets Zizou", "tom meets zizou", "film")]


def test_separate_names_stay_separate():
    text = "did Matt Damon and Ben Affleck write Good Will Hunting"
    found = mentions(text, ("Matt Damon", "PER"), ("Ben Affleck", "PER"), ("Good Will Hunting", "MISC"))
    assert found == [("Matt Damon", "matt damon", "person"), ("Ben Affleck", "ben affleck", "person"),
                     ("Good Will Hunting", "good will hunting", "film")]


def test_typos_validate_fuzzily_and_wrong_types_do_not():
    text = "who directed Good Wil Huntin"
    source = NerMentions(FixedTagger(("Good Wil Huntin", "MISC")), label_index(), 90.0)
    (span,) = source(text, tokens(text))
    assert span.norm == "good will hunting" and 90 <= span.fuzzy_score < 100 and span.source == "ner"
    assert mentions("who directed Qwzxv Plorb", ("Qwzxv Plorb", "MISC")) == [("Qwzxv Plorb", None, "film")]


def test_a_label_of_the_other_type_validates_at_a_lower_score():
    text = "what films did Matt Damon write"
    source = NerMentions(FixedTagger(("Matt Damon", "MISC")), label_index(), 90.0)
    (span,) = source(text, tokens(text))
    assert span.norm == "matt damon" and span.expects == "film" and span.fuzzy_score < 100
    exact = NerMentions(FixedTagger(("Matt Damon", "PER")), label_index(), 90.0)(text, tokens(text))
    assert exact[0].fuzzy_score == 100


def test_tagged_boundaries_move_to_meet_a_label():
    assert mentions("describe The Long Kiss Goodnight", ("Long Kiss Goodnight", "MISC")) == [
        ("The Long Kiss Goodnight", "the long kiss goodnight", "film")]
    assert mentions("what is Good Morning, Vietnam about", ("Good Morning, Vietnam about", "MISC")) == [
        ("Good Morning, Vietnam", "good morning vietnam", "film")]


def test_misspelt_words_the_tagger_left_out_are_taken_in():
    assert mentions("what films did Matt Damoon write", ("Matt", "PER")) == [("Matt Damoon", "matt damon", "person")]
    assert mentions("what films did Matt write", ("Matt", "PER")) == [("Matt", None, "person")]


def test_a_misspelt_title_the_tagger_cut_short_before_wording_words_is_taken_in_whole():
    # grow() never takes in words of the question's wording ("at", "once" here); the whole span still matches fuzzily
    wording = WORDING | {"at", "once", "all"}
    source = NerMentions(FixedTagger(("Eerything Evrywhere", "MISC")), label_index([*TITLES, "Everything Everywhere at Once"]), 90.0, wording)
    text = "who directed Eerything Evrywhere at Once"
    assert [(text[s.start : s.end], s.norm) for s in source(text, tokens(text))] == [
        ("Eerything Evrywhere at Once", "everything everywhere at once")]
    text = "who directed Eerything Evrywhere at all"  # nothing the graph has: still no match
    assert [s.ids for s in source(text, tokens(text))] == [[]]


def test_a_year_after_a_title_is_not_part_of_it():
    assert mentions("who directed Hamlet 1996", ("Hamlet 1996", "MISC")) == [("Hamlet", "hamlet", "film")]


def test_tagger_words_keep_offsets():
    text = "X-Men: First Class's cast?"
    assert all(text[s:e] == w for w, s, e in words(text))
    assert [w for w, _, _ in words(text)][:4] == ["X", "-", "Men", ":"]


# ---------------------------------------------------------------- the trained tagger in the agent

@pytest.fixture(scope="module")
def ner_settings(mini_settings):
    return mini_settings.with_overrides(features=(*mini_settings.features, "ner"))


@pytest.fixture(scope="module")
def ner_agent(ner_settings):
    """An agent on the mini KG with the NER layer: trains a small tagger once (cached in the KG cache)."""
    agent = Agent.from_settings(ner_settings)
    assert agent.wait_ready(600)
    return agent


def understand_trace(agent: Agent, question: str) -> tuple[list[str], dict]:
    reply = agent.answer(question)
    (step,) = [t for t in reply.trace if t.stage == "understand"]
    return reply.answers, step.detail


def test_agent_links_entities_through_ner(ner_agent):
    assert any(isinstance(s, NerMentions) for s in ner_agent.understander.span_sources)
    answers, detail = understand_trace(ner_agent, "Who directed Good Will Hunting?")
    assert answers == ["Gus Van Sant"]
    assert detail["spans_from"] == "ner"
    assert {"text": "Good Will Hunting", "label": "good will hunting", "source": "ner"}.items() <= detail["mentions"][0].items()


def test_agent_links_misspelled_names_through_ner(ner_agent):
    answers, detail = understand_trace(ner_agent, "what films did gus van sannt direct")
    assert set(answers) == {"Good Will Hunting", "Milk", "Elephant"}
    assert detail["spans_from"] == "ner"
    assert any(m["label"] == "gus van sant" and m["score"] < 100 for m in detail["mentions"])


def test_label_index_is_the_fallback_when_no_ner_span_validates(ner_agent, ner_settings):
    agent = Agent(ner_agent.kg, ner_settings)
    agent.understander.span_sources.append(NerMentions(FixedTagger(("directed", "MISC")), ner_agent.kg.labels, 90.0))
    answers, detail = understand_trace(agent, "who directed Good Will Hunting")
    assert answers == ["Gus Van Sant"]
    assert detail["spans_from"] == "index"
    assert detail["mentions"] == [{"text": "directed", "source": "ner", "expects": "film", "label": None, "score": 0.0}]


def test_a_label_typed_exactly_outranks_a_mention_sources_wrong_guess_of_its_type(ner_agent, ner_settings):
    """A tagger that reads a person's full name as a film leaves its validated span a weaker match; the label index's
    exact span of the same words keeps the full score, so a surname alone ("Keith David" for "david") cannot beat it."""
    agent = Agent(ner_agent.kg, ner_settings)
    agent.understander.span_sources.append(NerMentions(FixedTagger(("gus van sant", "MISC")), ner_agent.kg.labels, 90.0))
    text = "what films did gus van sant direct"
    named = [s for s in agent.understander.candidate_spans(text, tokenise(text)) if s.norm == "gus van sant"]
    assert named and all(s.fuzzy_score == 100 for s in named)


def test_viterbi_matches_flairs_decoder():
    import torch
    from flair.data import Dictionary
    from flair.models.sequence_tagger_utils.viterbi import ViterbiDecoder

    tags = Dictionary(add_unk=False)
    for tag in ("O", "S-PER", "B-PER", "E-PER", "I-PER", "S-MISC", "B-MISC", "E-MISC", "I-MISC", "<START>", "<STOP>"):
        tags.add_item(tag)
    decoder = ViterbiDecoder(tags)
    rng = np.random.default_rng(3)
    for length in (1, 2, 5, 17, 40):
        emissions = torch.tensor(rng.normal(0, 3, (1, length, len(tags))), dtype=torch.float32)
        transitions = torch.tensor(rng.normal(0, 3, (len(tags), len(tags))), dtype=torch.float32)
        features = emissions.unsqueeze(-1).expand(1, length, len(tags), len(tags)) + transitions[None, None]
        sentence = Sentence(["w"] * length)
        (expected,), _ = decoder.decode((features, torch.tensor([length]), transitions), False, [sentence])
        found, confidence = viterbi(features[0].numpy(), transitions.numpy(), decoder.start_tag, decoder.stop_tag)
        assert [tags.get_item_for_index(int(i)) for i in found] == [tag for tag, _ in expected]
        assert np.allclose(confidence, [score for _, score in expected], atol=1e-5)


def test_the_agents_tagger_finds_the_spans_flairs_predict_finds(ner_agent):
    tagger = next(s for s in ner_agent.understander.span_sources if isinstance(s, NerMentions)).tagger
    for text in ["Who directed Good Will Hunting?", "what films did gus van sannt direct", "Matt Damon and Ben Affleck",
                 "show me Star Wars: Episode VI – Return of the Jedi", "hi", "who wrote the films Robin Williams starred in"]:
        found = words(text)
        sentence = Sentence([w for w, _, _ in found])
        tagger.model.predict(sentence, mini_batch_size=1)
        expected = [(found[s.tokens[0].idx - 1][1], found[s.tokens[-1].idx - 1][2], s.tag, round(s.score, 4))
                    for s in sentence.get_spans(tagger.model.tag_type)]
        assert [(s.start, s.end, s.tag, round(s.confidence, 4)) for s in tagger.tag(text)] == expected


def test_questions_are_answered_while_the_tagger_loads(ner_agent, ner_settings, monkeypatch):
    release = threading.Event()
    load = NerTagger.load
    monkeypatch.setattr(NerTagger, "load", classmethod(lambda cls, path: release.wait(60) and load(path)))
    agent = Agent(ner_agent.kg, ner_settings)
    agent.load_features()
    answers, _ = understand_trace(agent, "Who directed Good Will Hunting?")
    assert answers == ["Gus Van Sant"] and agent.understander.span_sources == []  # the label index answered
    release.set()
    assert agent.wait_ready(60)
    answers, detail = understand_trace(agent, "Who directed Good Will Hunting?")
    assert answers == ["Gus Van Sant"] and detail["spans_from"] == "ner"


def test_trained_model_is_cached_and_reused(ner_agent, ner_settings):
    kg = ner_agent.kg
    model = kg.folder / "ner" / "tagger.pt"
    before = model.stat().st_mtime_ns
    assert build_step(ner_settings, kg.bundle, kg.folder, kg.key, quiet=True) == model
    assert model.stat().st_mtime_ns == before
    names = sum(g in ("film", "person") for g in kg.labels.groups)
    assert read_manifest(kg.folder / "ner")["key"] == training_plan(ner_settings, names).key(kg.key, kg.bundle.schema_hash())


def test_configured_model_file_is_used_instead(ner_agent, ner_settings, tmp_path, caplog):
    model = ner_agent.kg.folder / "ner" / "tagger.pt"
    agent = Agent(ner_agent.kg, ner_settings.with_overrides(ner_model=str(model)))
    agent.load_features()
    agent.wait_ready()
    assert any(isinstance(s, NerMentions) for s in agent.understander.span_sources)
    missing = Agent(ner_agent.kg, ner_settings.with_overrides(ner_model=str(tmp_path / "ner-english.pt")))
    missing.load_features()
    assert missing.understander.span_sources == [] and "feature ner is off" in caplog.text and "not a file" in caplog.text
    assert missing.answer("who directed Milk").answers == ["Gus Van Sant"]
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"not a model")
    unreadable = Agent(ner_agent.kg, ner_settings.with_overrides(ner_model=str(broken)))
    unreadable.load_features()
    unreadable.wait_ready()
    assert unreadable.understander.span_sources == [] and caplog.text.count("feature ner is off") == 2


def test_character_fallback_model_trains_saves_and_reloads(mini_bundle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ner").mkdir()  # a folder named like a Flair model must not hijack loading
    examples = NerDataGenerator(load_bundle(mini_bundle), TITLES, PERSONS, seed=1).examples(240)
    path = train_tagger(examples, TrainingPlan("chars", 240, 2), tmp_path / "chars.pt")
    tagger = NerTagger.load(path)
    stack = tagger.model.embeddings.embeddings
    assert type(stack[-1]).__name__ == "OneHotEmbeddings"
    text = "who directed Good Will Hunting"
    spans = tagger.tag(text)
    assert all(0 <= s.start < s.end <= len(text) and s.tag in {"MISC", "PER"} for s in spans)

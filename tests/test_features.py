"""Declared features: chosen by settings, loaded into the agent, and off with one clear line when they cannot load."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

import bot.features
from bot.agent import Agent
from bot.core.config import load_settings
from bot.core.features import Contribution, Feature
from bot.core.kinds import Kind


def answers_milk(agent: Agent) -> bool:
    return agent.answer("Who directed Milk?").answers == ["Gus Van Sant"]


def with_features(monkeypatch, *features: Feature) -> None:
    monkeypatch.setattr(bot.features, "chosen", lambda settings: list(features))


def test_a_feature_whose_package_is_missing_is_off_with_one_line_and_the_bot_still_answers(mini_agent, monkeypatch, caplog):
    loads = []
    needs_nothing_installed = Feature("pictures", "needs a package", ("no_such_package_moviebot",), "images", loads.append)
    with_features(monkeypatch, needs_nothing_installed)
    agent = Agent(mini_agent.kg, mini_agent.settings)
    with caplog.at_level(logging.WARNING, logger="bot.features"):
        agent.load_features()
    assert loads == []  # never loaded
    (line,) = [r.getMessage() for r in caplog.records if "feature pictures" in r.getMessage()]
    assert line == "feature pictures is off: missing package(s) no_such_package_moviebot"
    assert agent.describe()["features"] == [
        {"name": "pictures", "summary": "needs a package", "on": False, "off_because": "missing package(s) no_such_package_moviebot"}
    ]
    assert answers_milk(agent)


def test_a_feature_whose_load_fails_is_off_and_the_others_still_load(mini_agent, monkeypatch, caplog):
    def broken(agent):
        raise RuntimeError("the model file is damaged")  # stands for any import or file that fails while loading

    working = Feature("greeter", "answers small talk", (), "chat", lambda agent: Contribution(handlers={Kind.SMALLTALK: greet}))
    with_features(monkeypatch, Feature("broken", "fails", (), "ner", broken), working)
    agent = Agent(mini_agent.kg, mini_agent.settings)
    with caplog.at_level(logging.WARNING, logger="bot.features"):
        agent.load_features()
    assert "feature broken is off: RuntimeError: the model file is damaged" in caplog.text
    assert "Traceback" not in caplog.text
    assert agent.answer("hello").text == "Hi from a feature."
    assert answers_milk(agent)


def greet(understanding, conversation):
    from bot.core.contracts import Facts

    return Facts(Kind.SMALLTALK, understanding.text, message="Hi from a feature.")


def test_a_failing_background_load_turns_only_its_feature_off(mini_agent, monkeypatch, caplog):
    def slow_then_broken():
        raise OSError("cannot read the tagger")

    with_features(monkeypatch, Feature("tagger", "loads in the background", (), "ner", lambda agent: Contribution(background=slow_then_broken)))
    agent = Agent(mini_agent.kg, mini_agent.settings)
    with caplog.at_level(logging.WARNING, logger="bot.agent"):
        agent.load_features()
        assert agent.wait_ready(30)
    assert "feature tagger is off: OSError: cannot read the tagger" in caplog.text
    assert answers_milk(agent)


def test_a_background_load_contributes_when_it_is_done(mini_agent, monkeypatch):
    seen = []
    late = Contribution(mention_sources=[lambda text, toks: seen.append(text) or []])
    with_features(monkeypatch, Feature("late", "joins later", (), "ner", lambda agent: Contribution(background=lambda: late)))
    agent = Agent(mini_agent.kg, mini_agent.settings)
    agent.load_features()
    assert agent.wait_ready(30)
    assert answers_milk(agent) and seen == ["Who directed Milk?"]


def test_an_agent_without_background_loads_keeps_them_until_asked_and_runs_only_the_named_ones(mini_agent, monkeypatch):
    ran = []
    late = Contribution(mention_sources=[lambda text, toks: ran.append(f"tagger read {text}") or []])
    with_features(monkeypatch,
                  Feature("tagger", "slow to load", (), "ner", lambda agent: Contribution(background=lambda: ran.append("tagger") or late)),
                  Feature("model", "slow to prime", (), "llm", lambda agent: Contribution(background=lambda: ran.append("model"))))
    agent = Agent(mini_agent.kg, mini_agent.settings, background=False)
    agent.load_features()
    assert ran == [] and set(agent.pending) == {"tagger", "model"} and not agent._background
    agent.load_now("model")
    assert ran == ["model"] and set(agent.pending) == {"tagger"}
    assert answers_milk(agent) and ran == ["model"]  # the tagger never loaded, never read the question
    agent.load_now()
    assert agent.pending == {} and answers_milk(agent) and ran[-1] == "tagger read Who directed Milk?"


def test_ask_answers_without_starting_the_loads_it_does_not_need(mini_bundle, cache_dir, monkeypatch):
    from typer.testing import CliRunner

    from bot.cli import app

    started = []
    with_features(monkeypatch, Feature("tagger", "slow to load", (), "ner", lambda agent: Contribution(background=lambda: started.append("tagger"))))
    result = CliRunner().invoke(app, ["--cache-dir", str(cache_dir), "ask", "--kg", str(mini_bundle), "Who directed Milk?"])
    assert result.exit_code == 0 and "Gus Van Sant" in result.output and started == []
    result = CliRunner().invoke(app, ["--cache-dir", str(cache_dir), "ask", "--wait", "--kg", str(mini_bundle), "Who directed Milk?"])
    assert result.exit_code == 0 and "Gus Van Sant" in result.output and started == ["tagger"]


def test_features_are_chosen_in_the_environment_and_in_toml_with_their_own_sections(tmp_path):
    assert load_settings(env={"MOVIEBOT_FEATURES": "crowd, images"}).features == ("crowd", "images")
    assert load_settings(env={"MOVIEBOT_FEATURES": ""}).features == ()
    config = tmp_path / "moviebot.toml"
    config.write_text('features = ["ner", "phrasing"]\n\n[ner]\nepochs = 3\n\n[phrasing]\nthreads = 2\n', encoding="utf-8")
    settings = load_settings(config, env={})
    assert settings.features == ("ner", "phrasing") and settings.ner_epochs == 3 and settings.llm_threads == 2
    assert settings.without("phrasing").features == ("ner",)


def test_unknown_names_in_a_toml_section_are_refused(tmp_path):
    from bot.core.errors import ConfigError

    config = tmp_path / "moviebot.toml"
    config.write_text("[ner]\nepochz = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown setting 'epochz' in \\[ner\\]"):
        load_settings(config, env={})


def test_the_default_agent_describes_its_pipeline(mini_agent):
    described = mini_agent.describe()
    assert {f["name"] for f in described["features"]} == set(mini_agent.settings.features)
    assert all(f["on"] for f in described["features"]), described["features"]
    assert described["kinds"]["factual"]["answered"] and described["kinds"]["recommendation"]["answered"]
    assert described["kinds"]["factual"]["phrased"] and described["kinds"]["recommendation"]["phrased"]  # its lead-in line
    assert not described["kinds"]["multimedia"]["phrased"]


def test_the_pipeline_command_prints_the_assembled_pipeline_as_json(mini_bundle, cache_dir):
    import json

    from typer.testing import CliRunner

    from bot.cli import app

    result = CliRunner().invoke(app, ["--cache-dir", str(cache_dir), "--no-llm", "pipeline", "--kg", str(mini_bundle)])
    assert result.exit_code == 0, result.output
    described = json.loads(result.output)
    assert described["kg"]["bundle"] == "mini"
    assert described["kinds"]["factual"]["answered"] is True
    assert described["phraser"] is False and "phrasing" not in {f["name"] for f in described["features"] if f["on"]}


ANSWER_THEN_EXIT = """
import sys, threading, time
from bot.agent import Agent
from bot.core.config import Settings
from bot.core.features import Contribution
agent = Agent.from_settings(Settings(kg=sys.argv[1], cache_dir=sys.argv[2], features=()))
LOAD
agent.contribute("background", Contribution(background=load))
print(agent.answer("Who directed Milk?").answers)
"""


def answered_then_exited(load: str, settings) -> str:
    """Run a process that starts the background `load` (module-level Python source defining load()), answers and
    ends; its stderr."""
    done = subprocess.run([sys.executable, "-c", ANSWER_THEN_EXIT.replace("LOAD", load), settings.kg, settings.cache_dir],
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout.strip()) == (0, "['Gus Van Sant']"), done.stderr[-2000:]
    return done.stderr


def test_a_process_that_ends_while_a_feature_still_loads_exits_cleanly(mini_agent, mini_settings):
    stderr = answered_then_exited("""
import torch
def load():  # as the NER tagger's load: torch making layers, which releases and takes the GIL again and again
    end = time.monotonic() + 2
    while time.monotonic() < end:
        torch.nn.Linear(256, 256)
""", mini_settings)
    assert "terminate called" not in stderr


def test_a_load_the_ending_process_cuts_short_is_not_reported_as_a_feature_turned_off(mini_agent, mini_settings):
    stderr = answered_then_exited("""
def load():  # as flair's import after the script's end: a thread pool cannot start once the interpreter shuts down
    from concurrent.futures import ThreadPoolExecutor
    while threading.main_thread().is_alive():
        time.sleep(0.01)
    ThreadPoolExecutor(1).submit(print)
""", mini_settings)
    assert "is off" not in stderr and "Traceback" not in stderr, stderr[-2000:]


CHAT_WHILE_LOADING = """
import sys, time
import bot.features
from bot.cli import run
from bot.core.features import Contribution, Feature

def load():  # as the NER tagger's load: torch making layers, for much longer than the chat lasts
    import torch
    end = time.monotonic() + 60
    while time.monotonic() < end:
        torch.nn.Linear(256, 256)
    open(marker, "w").close()

slow = Feature("tagger", "loads for a minute", (), "ner", lambda agent: Contribution(background=load))
bot.features.chosen = lambda settings: [slow]
marker = sys.argv[3]
sys.argv = ["moviebot", "--cache-dir", sys.argv[2], "chat", "--kg", sys.argv[1]]
run()
"""


def test_a_chat_left_while_a_feature_still_loads_ends_without_waiting_for_it_and_cleanly(mini_agent, mini_settings, tmp_path):
    loaded = tmp_path / "loaded"
    done = subprocess.run([sys.executable, "-c", CHAT_WHILE_LOADING, mini_settings.kg, mini_settings.cache_dir, str(loaded)],
                          input="Who directed Milk?\nquit\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Gus Van Sant" in done.stdout, done.stderr[-2000:]
    assert "terminate called" not in done.stderr and "Traceback" not in done.stderr
    assert not loaded.exists()  # the process ended while the load was still running, not after it


def test_ask_reads_the_phrasing_model_beside_the_agent_only_when_phrasing_is_on(mini_bundle, cache_dir, monkeypatch):
    """The model's file is read while the KG and the understanding load (and the phrasing feature finds it loaded);
    --no-llm reads no model at all."""
    from typer.testing import CliRunner

    import bot.cli
    from bot.cli import app

    preloaded = []
    monkeypatch.setattr(bot.cli, "preload_model", lambda settings: preloaded.append(settings.uses("phrasing")))
    with_features(monkeypatch)
    result = CliRunner().invoke(app, ["--cache-dir", str(cache_dir), "ask", "--no-llm", "--kg", str(mini_bundle), "Who directed Milk?"])
    assert result.exit_code == 0 and "Gus Van Sant" in result.output and preloaded == []
    result = CliRunner().invoke(app, ["--cache-dir", str(cache_dir), "ask", "--kg", str(mini_bundle), "Who directed Milk?"],
                                env={"MOVIEBOT_FEATURES": "phrasing"})
    assert result.exit_code == 0 and "Gus Van Sant" in result.output and preloaded == [True]

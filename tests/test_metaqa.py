"""The MetaQA importer and the engine's accuracy on MetaQA dev questions."""

from __future__ import annotations

import random

import pytest

from bot.dialogue.dialogue import Dialogue
from bot.kg.bundle import load_bundle
from bot.kg.importers.metaqa import BASE, import_metaqa
from bot.replay import read_questions, replay

from conftest import CHEAP_FEATURES, shared_path

pytestmark = pytest.mark.integration


def test_import_small_kb(tmp_path):
    kb = tmp_path / "kb.txt"
    kb.write_text(
        "Heat|directed_by|Michael Mann\n"
        "Heat|release_year|1995\n"
        "Heat|has_tags|michael mann\n"
        'Say "Hi" {now}|written_by|A\\B\n'
        "broken line without bars\n"
        "Heat|unknown_rel|x\n",
        encoding="utf-8",
    )
    report = import_metaqa(kb, tmp_path / "out")
    assert len(report.skipped) == 2
    assert report.entities["film"] == 2 and report.entities["person"] == 2 and report.entities["tag"] == 1
    graph = (tmp_path / "out" / "graph.nt").read_text()
    # one IRI per name per role: the person and the tag named "michael mann" differ
    assert f"<{BASE}person/Michael%20Mann>" in graph
    assert f"<{BASE}tag/michael%20mann>" in graph
    assert '"1995"^^<http://www.w3.org/2001/XMLSchema#gYear>' in graph
    assert '"Say \\"Hi\\" {now}"@en' in graph
    bundle = load_bundle(tmp_path / "out")
    assert bundle.relations["directed_by"].property.endswith("P57")
    assert bundle.relations["has_tags"].value_class == "tag"
    assert bundle.exclude_topic  # MetaQA's multi-hop answers never include the question's entity


def test_import_then_answer(tmp_path, cache_dir):
    from bot.agent import Agent
    from bot.core.config import Settings

    kb = tmp_path / "kb.txt"
    kb.write_text(
        "Heat|directed_by|Michael Mann\nHeat|starred_actors|Al Pacino\nHeat|starred_actors|Robert De Niro\n"
        "Collateral|directed_by|Michael Mann\nCollateral|starred_actors|Tom Cruise\nHeat|release_year|1995\n"
        "The Insider|directed_by|Michael Mann\nThe Insider|starred_actors|Al Pacino\nThe Insider|has_genre|Drama\n",
        encoding="utf-8",
    )
    import_metaqa(kb, tmp_path / "b")
    agent = Agent.from_settings(Settings(kg=str(tmp_path / "b"), cache_dir=str(cache_dir), features=CHEAP_FEATURES))
    assert agent.answer("who directed Heat").answers == ["Michael Mann"]
    assert agent.answer("when was Heat released").answers == ["1995"]
    assert set(agent.answer("what films did Michael Mann direct").answers) == {"Heat", "Collateral", "The Insider"}
    assert agent.answer("who acted in the movies directed by the director of Collateral").answers[0] == "Al Pacino"


def _sample(hop: int, n: int):
    questions = read_questions(shared_path("metaqa", f"{hop}-hop", "qa_dev.txt"))
    return random.Random(7).sample(questions, n)


@pytest.mark.parametrize("hop,floor", [(1, 0.93), (2, 0.95), (3, 0.88)])
def test_metaqa_dev_sample_accuracy(metaqa_agent, hop, floor):
    """A fixed sample of dev questions, brackets stripped; the full figures come from bench/."""
    result = replay(Dialogue(metaqa_agent), _sample(hop, 150), None, strip=True)
    assert result.overall.summary()["hits@1"] >= floor


def test_replay_writes_records(metaqa_agent, tmp_path):
    import io
    import json

    buffer = io.StringIO()
    replay(Dialogue(metaqa_agent), _sample(1, 5), buffer, qtypes=["t"] * 5, strip=True)
    records = [json.loads(line) for line in buffer.getvalue().splitlines()]
    assert len(records) == 5
    for record in records:
        assert "[" not in record["question"]
        assert set(record) >= {"question", "text", "answers", "kind", "entities", "trace", "latency_ms"}
        assert [t["stage"] for t in record["trace"]][:1] == ["understand"]

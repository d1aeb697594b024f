"""The bot on a real Virtuoso (the session's private server, tests/conftest.py): the same answers as the embedded store.

Parity on a sample of the demo KG's question file and of MetaQA dev (every hop), compared
answer by answer (answers, wording, kind); bench/virtuoso_parity.py compares every question.
Virtuoso runs with a low ResultSetMaxRows, so the label index is read in pages as from a
public endpoint. Also: the content fingerprint, the endpoint going down and coming back,
and the `moviebot kg serve-virtuoso` command.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bot.agent import Agent
from bot.core.config import Settings
from bot.kg.bundle import load_bundle
from bot.kg.graph import resolve_bundle
from bot.kg.store import LocalGraph, RemoteGraph, build_store, graph_hash
from bot.kg.virtuoso import free_port
from bot.resources import demo_kg

from conftest import MINI_TTL, REPO, shared_path, virtuoso_url, write_mini_bundle

sys.path.insert(0, str(REPO / "bench"))
from metaqa_accuracy import evenly_spaced  # noqa: E402
from virtuoso_parity import compare, demo_questions, metaqa_questions  # noqa: E402

pytestmark = pytest.mark.e2e

ENGINE_ONLY = ()  # the answering engine: the optional features' models are trained per graph
KG_DOWN = "cannot reach my knowledge graph"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def agents(bundle: Path, url: str, cache_dir: Path) -> tuple[Agent, Agent]:
    local = Agent.from_settings(Settings(kg=str(bundle), cache_dir=str(cache_dir), features=ENGINE_ONLY))
    remote = Agent.from_settings(Settings(kg=url, schema=str(bundle), cache_dir=str(cache_dir), features=ENGINE_ONLY))
    return local, remote


@pytest.fixture(scope="module")
def demo_agents(virtuoso, cache_dir):
    return agents(demo_kg(), virtuoso_url(virtuoso, demo_kg(), "urn:moviebot:demo"), cache_dir)


@pytest.fixture(scope="module")
def metaqa_agents(virtuoso, metaqa_bundle, cache_dir):
    return agents(metaqa_bundle, virtuoso_url(virtuoso, metaqa_bundle, "urn:moviebot:metaqa"), cache_dir)


def test_the_remote_agent_really_reads_virtuoso(demo_agents):
    local, remote = demo_agents
    assert remote.kg.graph.describe().startswith("SPARQL endpoint http://127.0.0.1:")
    assert "default-graph-uri=urn%3Amoviebot%3Ademo" in remote.kg.graph.url
    assert len(remote.kg.labels.iris) == len(local.kg.labels.iris) > 2000  # more labels than Virtuoso returns at once


def test_the_demo_kg_question_file_answers_identically_through_virtuoso(demo_agents):
    questions = evenly_spaced(demo_questions(shared_path("questions", "dev.tsv")), 100)
    mismatches, _, _ = compare(*demo_agents, questions)
    assert len(questions) == 100
    assert [(m.question, m.reason(), m.local[1], m.remote[1]) for m in mismatches] == []


@pytest.mark.parametrize("hop", [1, 2, 3])
def test_metaqa_dev_answers_identically_through_virtuoso(metaqa_agents, hop):
    questions = evenly_spaced(metaqa_questions(hop, shared_path("metaqa")), 40)
    mismatches, _, _ = compare(*metaqa_agents, questions)
    answered = sum(bool(metaqa_agents[0].answer(q).answers) for q in questions[:10])
    assert answered >= 8  # the sample is answered, not compared as empty replies
    assert [(m.question, m.reason(), m.local[1], m.remote[1]) for m in mismatches] == []


def test_a_result_beyond_the_row_limit_is_complete(demo_agents, virtuoso):
    local, remote = demo_agents
    query = f"SELECT ?s ?l WHERE {{ ?s <{LABEL}> ?l }}"
    remote_rows = remote.kg.graph.select(query)
    local_rows = local.kg.graph.select(query)
    assert len(remote_rows) > virtuoso.max_rows
    assert sorted((r["s"].value, r["l"].value) for r in remote_rows) == sorted((r["s"].value, r["l"].value) for r in local_rows)


def test_the_cache_key_of_an_endpoint_follows_the_graph_loaded_into_it(virtuoso, tmp_path, cache_dir):
    original = write_mini_bundle(tmp_path / "mini")
    changed = write_mini_bundle(tmp_path / "changed")
    (changed / "graph.ttl").write_text(MINI_TTL.replace('"Milk"@en', '"Milk (2008)"@en'), encoding="utf-8")
    virtuoso.dirs = (*virtuoso.dirs, tmp_path)
    url = virtuoso.url("urn:moviebot:fingerprint")

    def key_after_loading(bundle: Path) -> str:
        virtuoso.load(load_bundle(bundle), "urn:moviebot:fingerprint")
        endpoint_bundle = resolve_bundle(Settings(kg=url, schema=str(original), cache_dir=str(cache_dir)))
        return graph_hash(endpoint_bundle, cache_dir, RemoteGraph(url))

    first, other, again = key_after_loading(original), key_after_loading(changed), key_after_loading(original)
    assert first == again != other


def test_virtuoso_going_down_gets_a_friendly_reply_and_the_bot_recovers(virtuoso, mini_bundle, cache_dir):
    url = virtuoso_url(virtuoso, mini_bundle, "urn:moviebot:mini")
    agent = Agent.from_settings(Settings(kg=url, schema=str(mini_bundle), cache_dir=str(cache_dir), features=ENGINE_ONLY,
                                         kg_retries=1, kg_backoff_s=0.1))
    assert "Gus Van Sant" in agent.answer("Who directed Milk?").text
    virtuoso.stop()
    try:
        reply = agent.answer("Who directed Milk?")
        assert reply.error and KG_DOWN in reply.text and "127.0.0.1" not in reply.text
    finally:
        virtuoso.start()  # the same folder and ports: the database and the password are kept
    assert "Gus Van Sant" in agent.answer("Who directed Milk?").text  # the same agent, no restart


def moviebot(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("moviebot")), *args]


def test_serve_virtuoso_loads_a_bundle_once_and_stops_on_sigterm(mini_bundle, tmp_path, cache_dir):
    folder = tmp_path / "db"
    port, sql_port = free_port(), free_port()
    env = {**os.environ, "MOVIEBOT_CACHE_DIR": str(cache_dir), "MOVIEBOT_VIRTUOSO_PASSWORD": "a-test-password"}
    command = [*moviebot("kg", "serve-virtuoso"), str(mini_bundle), "--folder", str(folder),
               "--port", str(port), "--sql-port", str(sql_port), "--memory-mb", "256"]

    def serve() -> tuple[subprocess.Popen, list[str]]:
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines = []
        for line in process.stdout:
            lines.append(line)
            if line.startswith("SPARQL endpoint:"):
                return process, lines
        pytest.fail(f"serve-virtuoso ended: {''.join(lines)}")

    process, lines = serve()
    try:
        assert any(line.startswith("loaded ") and "into urn:moviebot:mini" in line for line in lines), lines
        url = lines[-1].split(": ", 1)[1].strip()
        labels = RemoteGraph(url).select(f"SELECT ?l WHERE {{ ?s <{LABEL}> ?l }}")
        assert "Good Will Hunting" in {row["l"].value for row in labels}
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
    assert "Virtuoso" not in subprocess.run(["ps", "-o", "comm=", "--ppid", str(process.pid)], capture_output=True, text=True).stdout
    process, lines = serve()  # a restart reuses the database: no second load
    try:
        assert any("already holds mini" in line for line in lines), lines
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0


def test_the_embedded_store_and_virtuoso_count_the_same_triples(virtuoso, mini_bundle, tmp_path):
    virtuoso_url(virtuoso, mini_bundle, "urn:moviebot:mini")
    store = LocalGraph(build_store(load_bundle(mini_bundle), tmp_path, quiet=True))
    local = int(store.select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")[0]["n"].value)
    assert virtuoso.count("urn:moviebot:mini") == local


def test_ask_against_virtuoso_exits_cleanly_after_training_the_ner_tagger(virtuoso, mini_bundle, tmp_path):
    """The first `moviebot ask` on a graph trains the NER tagger, then loads it on a background thread;
    exiting while that thread was inside torch aborted the process after the answer was printed."""
    url = virtuoso_url(virtuoso, mini_bundle, "urn:moviebot:mini")
    env = {**os.environ, "MOVIEBOT_SCHEMA": str(mini_bundle), "MOVIEBOT_CACHE_DIR": str(tmp_path), "MOVIEBOT_FEATURES": "ner",
           "MOVIEBOT_NER_SENTENCES": "60", "MOVIEBOT_NER_EPOCHS": "1"}
    done = subprocess.run(moviebot("--no-llm", "ask", "--kg", url, "Who directed Good Will Hunting?"),
                          env=env, capture_output=True, text=True, timeout=600)
    assert "terminate called" not in done.stderr
    assert done.returncode == 0, done.stderr[-800:]
    assert "Gus Van Sant" in done.stdout
    assert any((tmp_path).glob("mini-*/ner")), "the tagger was trained in this process"


def test_a_sparql_query_typed_into_the_chat_reads_only_the_bots_graph(virtuoso, mini_bundle, mini_agent, cache_dir):
    url = virtuoso_url(virtuoso, mini_bundle, "urn:moviebot:mini")
    remote = Agent.from_settings(Settings(kg=url, schema=str(mini_bundle), cache_dir=str(cache_dir), features=ENGINE_ONLY))
    query = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    local_reply, remote_reply = mini_agent.answer(query), remote.answer(query)
    assert remote_reply.kind == local_reply.kind and not remote_reply.error
    assert remote_reply.answers == local_reply.answers  # not Virtuoso's system graphs as well
    names = 'SELECT ?name WHERE { ?f rdfs:label "Good Will Hunting"@en ; wdt:P57 ?d . ?d rdfs:label ?name }'
    assert "Gus Van Sant" in remote.answer(names).text

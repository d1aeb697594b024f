"""Faults while serving: each gives the user a clear reply, loses nothing they wrote, and recovers without a restart.

The store folder unreadable or replaced by a rebuild, the LLM model file corrupt or its
generation raising, the NER tagger failing to load, the chat database locked by another
process, the remote KG endpoint going away and coming back.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import shutil
import subprocess
import sys
import textwrap
import threading

import pytest
from speakeasy_client import ProtocolClient
from test_remote_endpoint import free_port, oxigraph_cli, wait_until_up

from bot.agent import Agent
from bot.chat.chatroom import Chatroom
from bot.chat.server import ChatroomConfig
from bot.core.contracts import Message, Reply
from bot.core.errors import StoreError
from bot.generation.phrasing.guard import FaithfulnessGuard
from bot.generation.phrasing.phraser import Phraser
from bot.kg.store import LocalGraph, RemoteGraph

from conftest import MINI_TTL

pytestmark = pytest.mark.e2e

KG_DOWN = "cannot reach my knowledge graph"


def make_store(path, ttl: str) -> None:
    import pyoxigraph

    store = pyoxigraph.Store(str(path))
    store.load(ttl.encode(), pyoxigraph.RdfFormat.TURTLE)
    store.flush()
    del store


@pytest.fixture
def store_agent(mini_agent, tmp_path):
    """The mini agent over a store of its own in tmp_path/store/db, which a test may break."""
    db = tmp_path / "store" / "db"
    db.parent.mkdir()
    make_store(db, MINI_TTL)
    return Agent(dataclasses.replace(mini_agent.kg, graph=LocalGraph(db)), mini_agent.settings), db


def test_a_store_replaced_by_a_rebuild_is_reopened_and_answers_from_the_new_graph(store_agent, tmp_path):
    agent, db = store_agent
    assert "Gus Van Sant" in agent.answer("Who directed Milk?").text
    rebuilt = tmp_path / "store.tmp" / "db"  # built beside it and moved into place, as bot/core/cache.py does
    rebuilt.parent.mkdir()
    make_store(rebuilt, MINI_TTL.replace("rdfs:label \"Milk\"@en ; wdt:P57 t:gvs", "rdfs:label \"Milk\"@en ; wdt:P57 t:penn"))
    shutil.rmtree(db.parent)
    rebuilt.parent.rename(db.parent)
    reply = agent.answer("Who directed Milk?")
    assert "Sean Penn" in reply.text and "Gus Van Sant" not in reply.text


def test_an_unreadable_store_gets_a_friendly_reply_and_recovers_when_it_is_back(store_agent, tmp_path, caplog):
    agent, db = store_agent
    assert "Gus Van Sant" in agent.answer("Who directed Milk?").text
    db.rename(tmp_path / "away")
    db.mkdir()  # an empty folder where the store was: it cannot be opened
    reply = agent.answer("Who directed Milk?")
    assert reply.error and KG_DOWN in reply.text and "Traceback" not in reply.text and str(db) not in reply.text
    db.rmdir()
    (tmp_path / "away").rename(db)
    assert "Gus Van Sant" in agent.answer("Who directed Milk?").text  # no restart


def test_a_store_that_was_never_there_is_a_store_error(tmp_path):
    with pytest.raises(StoreError):
        LocalGraph(tmp_path / "nothing")


def test_a_corrupt_llm_model_file_leaves_the_template_sentences(mini_settings, mini_agent, tmp_path):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + b"\x00garbage" * 1000)
    agent = Agent.from_settings(mini_settings.with_overrides(features=("phrasing",), llm_model=str(model)))
    agent.wait_ready(60)
    phrasing = next(f for f in agent.describe()["features"] if f["name"] == "phrasing")
    assert agent.phraser is None and not phrasing["on"] and phrasing["off_because"]
    reply = agent.answer("Who directed Good Will Hunting?")
    assert not reply.error and reply.text == mini_agent.answer("Who directed Good Will Hunting?").text


class BrokenModel:
    """A loaded model whose generation fails (llama_decode errors, out of memory)."""

    def chat(self, *args, **kwargs):
        raise RuntimeError("llama_decode returned -3")


def test_a_generation_that_raises_leaves_the_template_sentence(mini_agent, caplog):
    agent = Agent(mini_agent.kg, mini_agent.settings)
    agent.phraser = Phraser(BrokenModel(), agent.kg.bundle, FaithfulnessGuard(agent.kg.labels, agent.kg.bundle), agent.settings)
    with caplog.at_level(logging.WARNING):
        reply = agent.answer("Who directed Good Will Hunting?")
    assert not reply.error and "Gus Van Sant" in reply.text
    assert any("model failed" in r.getMessage() for r in caplog.records)
    phrase = next(step for step in reply.trace if step.stage == "phrase")
    assert phrase.detail["llm"].startswith("error:")


def test_an_ner_tagger_that_fails_to_load_turns_only_ner_off(mini_settings, tmp_path, caplog):
    tagger = tmp_path / "tagger.pt"
    tagger.write_bytes(b"not a model at all")
    with caplog.at_level(logging.WARNING):
        agent = Agent.from_settings(mini_settings.with_overrides(features=("ner",), ner_model=str(tagger)))
        assert agent.wait_ready(300)
    assert any("feature ner is off" in r.getMessage() for r in caplog.records)
    reply = agent.answer("Who directed Good Will Hunting?")
    assert not reply.error and "Gus Van Sant" in reply.text


LOCKER = textwrap.dedent("""
    import sqlite3, sys, time
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    print("locked", flush=True)
    sys.stdin.readline()
    db.execute("COMMIT")
""")


async def test_a_chat_database_locked_by_another_process_answers_503_and_nothing_is_lost(tmp_path):
    release = threading.Event()

    def respond(message: Message) -> Reply:
        release.wait(30)
        return Reply(f"echo: {message.text}", "factual")

    db = tmp_path / "chat.sqlite3"
    chatroom = Chatroom(respond, ChatroomConfig(db_path=str(db), port=0, bot_password="pw"), workers=1)
    await chatroom.start()
    ann = ProtocolClient(chatroom.url, "Ann")
    locker = None
    try:
        await ann.login()
        _, created = await ann.request_room("moviebot")
        uid = created["uid"]
        assert (await ann.post(uid, "first question"))[0] == 200
        await asyncio.sleep(0.5)  # the bot has it and is answering
        locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert locker.stdout.readline().strip() == "locked"
        status, body = await ann.post(uid, "second question")
        assert status == 503 and "try again" in body["description"]
        assert (await ann.state(uid))["messages"][-1]["message"] == "first question"  # reading still works
        release.set()  # the bot's reply now meets the lock and is retried
        await asyncio.sleep(1.5)
        locker.stdin.write("\n")
        locker.stdin.flush()
        locker.wait(10)
        await ann.wait_for(uid, lambda ms: any(m["authorAlias"] == "moviebot" for m in ms), timeout=40)  # delivered late
        assert (await ann.post(uid, "second question"))[0] == 200  # what Ann wrote was kept and sent again
        messages = await ann.wait_for(uid, lambda ms: sum(m["authorAlias"] == "moviebot" for m in ms) >= 2, timeout=40)
        assert [(m["authorAlias"], m["message"]) for m in messages] == [
            ("Ann", "first question"), ("moviebot", "echo: first question"),
            ("Ann", "second question"), ("moviebot", "echo: second question")]
        assert chatroom.runner.stats.substituted == chatroom.runner.stats.undelivered == 0
    finally:
        release.set()
        if locker is not None and locker.poll() is None:
            locker.kill()
            locker.wait()
        await ann.close()
        await chatroom.stop()


def test_a_remote_endpoint_that_goes_away_and_comes_back(mini_bundle, mini_agent, tmp_path):
    cli = oxigraph_cli()
    location = tmp_path / "oxigraph"
    subprocess.run([cli, "load", "--location", str(location), "--file", str(mini_bundle / "graph.ttl")], check=True, capture_output=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}/query"

    def serve() -> subprocess.Popen:
        server = subprocess.Popen([cli, "serve-read-only", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_until_up(url, server)
        return server

    server = serve()
    agent = Agent(dataclasses.replace(mini_agent.kg, graph=RemoteGraph(url, timeout=5)), mini_agent.settings)
    try:
        assert "Gus Van Sant" in agent.answer("Who directed Milk?").text
        server.terminate()
        server.wait(10)
        reply = agent.answer("Who directed Milk?")
        assert reply.error and KG_DOWN in reply.text and "127.0.0.1" not in reply.text
        server = serve()
        assert "Gus Van Sant" in agent.answer("Who directed Milk?").text  # the same agent, no restart
    finally:
        server.terminate()
        server.wait(10)

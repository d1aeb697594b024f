"""A remote SPARQL endpoint (`oxigraph serve-read-only` on loopback) answers like the local store."""

from __future__ import annotations

import dataclasses
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.agent import Agent
from bot.cli import app
from bot.core.config import Settings
from bot.kg.store import RemoteGraph

pytestmark = pytest.mark.e2e

QUESTIONS = [
    "Who directed Good Will Hunting?",
    "What films did Matt Damon star in?",
    "When was Milk released?",
    "Who directed Hamlet 1996?",
    "What genres are the films directed by Gus Van Sant?",
    "Which movies share the same director as Milk?",
    "What is the box office of Good Will Hunting?",
]


def oxigraph_cli() -> str:
    found = Path(sys.executable).with_name("oxigraph")
    path = str(found) if found.exists() else shutil.which("oxigraph")
    if path is None:
        pytest.fail("the `oxigraph` CLI is missing: install the test extra (scripts/setup.sh --test)")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(url: str, server: subprocess.Popen, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"oxigraph exited with {server.returncode}: {server.stderr.read().decode()[-500:]}")
        try:
            with urllib.request.urlopen(url + "?query=ASK%7B%7D", timeout=2):
                return
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    raise RuntimeError(f"oxigraph did not answer at {url} within {seconds:.0f} s")


@pytest.fixture(scope="module")
def endpoint(mini_bundle, tmp_path_factory):
    """The mini bundle's graph served read-only on a free loopback port; stopped after the module."""
    cli = oxigraph_cli()
    location = tmp_path_factory.mktemp("oxigraph")
    subprocess.run([cli, "load", "--location", str(location), "--file", str(mini_bundle / "graph.ttl")], check=True, capture_output=True)
    port = free_port()
    server = subprocess.Popen([cli, "serve-read-only", "--location", str(location), "--bind", f"127.0.0.1:{port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/query"
    try:
        wait_until_up(url, server)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# Compare the answering engines alone: the optional features' models (NER, embeddings) are keyed by
# the endpoint URL, so with a fresh port each run they would be trained again.
ENGINE_ONLY = ()


@pytest.fixture(scope="module")
def local_agent(mini_settings) -> Agent:
    return Agent.from_settings(mini_settings.with_overrides(features=ENGINE_ONLY))


@pytest.fixture(scope="module")
def remote_agent(endpoint, mini_bundle, cache_dir) -> Agent:
    return Agent.from_settings(Settings(kg=endpoint, schema=str(mini_bundle), cache_dir=str(cache_dir), features=ENGINE_ONLY))


def test_remote_agent_answers_like_the_local_store(remote_agent, local_agent):
    assert remote_agent.kg.graph.describe().startswith("SPARQL endpoint http://127.0.0.1:")
    assert local_agent.kg.graph.describe().startswith("Oxigraph store")
    for question in QUESTIONS:
        local, remote = local_agent.answer(question), remote_agent.answer(question)
        assert local.answers, question
        assert (remote.answers, remote.text, remote.kind) == (local.answers, local.text, local.kind), question


def test_endpoint_going_down_gives_a_friendly_reply(remote_agent):
    dead = RemoteGraph(f"http://127.0.0.1:{free_port()}/query", timeout=5)
    agent = Agent(dataclasses.replace(remote_agent.kg, graph=dead), remote_agent.settings)
    reply = agent.answer(QUESTIONS[0])
    assert reply.error and "cannot reach my knowledge graph" in reply.text
    assert "Traceback" not in reply.text and "127.0.0.1" not in reply.text


def test_endpoint_down_at_start_is_a_clear_cli_error(mini_bundle, tmp_path):
    url = f"http://127.0.0.1:{free_port()}/query"
    env = {"MOVIEBOT_SCHEMA": str(mini_bundle), "MOVIEBOT_CACHE_DIR": str(tmp_path), "MOVIEBOT_FEATURES": ""}
    result = CliRunner().invoke(app, ["ask", "--no-llm", "--kg", url, "Who directed Milk?"], env=env)
    assert result.exit_code == 1
    assert "unreachable" in result.output and url in result.output
    assert "Traceback" not in result.output

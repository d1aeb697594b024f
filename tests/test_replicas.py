"""Two `moviebot matrix` replicas of one account on one Synapse and one Virtuoso; one is killed mid-conversation.

Six rooms, three people, follow-up questions that need the conversation's memory. After the
first turns, everyone asks again and one replica is killed (SIGKILL) before it can answer:
its rooms move to the other replica, which answers the questions it left, in order, with the
rooms' memory from the shared SQLite file. Every question is answered exactly once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from nio import AsyncClient, RoomCreateResponse, RoomMessageNotice, RoomMessagesResponse, RoomSendResponse

from bot.agent import Agent
from bot.chat.replicas import Replicas
from bot.core.config import Settings

from conftest import start_synapse, virtuoso_url

pytestmark = pytest.mark.e2e

PEOPLE = ("ann", "bob", "cem")
LEASE_S = 3.0
# each room's conversation: (question, a word its answer must hold); the follow-ups need the room's memory
PLANS = [
    [("Who directed Good Will Hunting?", "Gus Van Sant"), ("And who wrote it?", "Matt Damon"), ("When was it released?", "1997"),
     ("Who starred in it?", "Robin Williams")],
    [("Who directed Milk?", "Gus Van Sant"), ("Who starred in it?", "Sean Penn"), ("When was it released?", "2008"),
     ("What else did Gus Van Sant direct?", "Elephant")],
    [("Who directed Hamlet 1996?", "Kenneth Branagh"), ("Who starred in it?", "Robin Williams"), ("When was it released?", "1996"),
     ("Who directed Elephant?", "Gus Van Sant")],
    [("When was Elephant released?", "2003"), ("Who directed it?", "Gus Van Sant"), ("Who wrote Good Will Hunting?", "Ben Affleck"),
     ("Who directed it?", "Gus Van Sant")],
    [("Who directed Hamlet 1948?", "Laurence Olivier"), ("When was it released?", "1948"), ("Who directed Milk?", "Gus Van Sant"),
     ("And who starred in it?", "Sean Penn")],
    [("Who starred in Good Will Hunting?", "Matt Damon"), ("Who directed it?", "Gus Van Sant"), ("What genre is Milk?", "drama"),
     ("When was it released?", "2008")],
]
KILL_AFTER = 2  # turns answered in every room before the kill


@pytest.fixture(scope="module")
def synapse(tmp_path_factory):
    server = start_synapse(tmp_path_factory.mktemp("synapse-replicas"))
    server.bot = server.register("moviebot", "bot-password")
    server.people = {name: server.register(name, f"{name}-password") for name in PEOPLE}
    yield server
    server.remove()


class Replica:
    def __init__(self, name: str, env: dict, folder: Path):
        self.name = name
        folder.mkdir(parents=True, exist_ok=True)
        self.log = open(folder / "bot.log", "wb")
        moviebot = str(Path(sys.executable).with_name("moviebot"))
        self.process = subprocess.Popen([moviebot, "--no-llm", "matrix"], stdout=self.log, stderr=subprocess.STDOUT,
                                        env={**env, "MOVIEBOT_MATRIX_REPLICA": name, "MOVIEBOT_DATA_DIR": str(folder / "data")})
        self.folder = folder

    def output(self) -> str:
        return (self.folder / "bot.log").read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


async def replies_in(client: AsyncClient, room: str) -> list[tuple[str, str]]:
    """(question event id, reply text) of every bot notice in the room, oldest first."""
    response = await client.room_messages(room, limit=200)
    assert isinstance(response, RoomMessagesResponse), response
    out = []
    for event in reversed(response.chunk):
        if isinstance(event, RoomMessageNotice):
            relates = event.source["content"].get("m.relates_to", {}).get("m.in_reply_to", {})
            out.append((relates.get("event_id", ""), event.body))
    return out


async def wait_until(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = await check()
        if result:
            return result
        await asyncio.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


async def test_a_replica_killed_mid_conversation_loses_and_repeats_nothing(synapse, virtuoso, mini_bundle, cache_dir, tmp_path):
    url = virtuoso_url(virtuoso, mini_bundle, "urn:moviebot:mini")
    settings = Settings(kg=url, schema=str(mini_bundle), cache_dir=str(cache_dir), features=())
    Agent.from_settings(settings)  # the label index and classifier for the endpoint, built once before the replicas start
    shared = tmp_path / "shared.sqlite3"
    env = {**os.environ, "MOVIEBOT_KG": url, "MOVIEBOT_SCHEMA": str(mini_bundle), "MOVIEBOT_CACHE_DIR": str(cache_dir),
           "MOVIEBOT_FEATURES": "", "MOVIEBOT_MEMORY_DB": str(shared), "MOVIEBOT_MATRIX_HOMESERVER": synapse.url,
           "MOVIEBOT_MATRIX_USER": synapse.bot, "MOVIEBOT_MATRIX_PASSWORD": "bot-password",
           "MOVIEBOT_MATRIX_REPLICA_LEASE_S": str(LEASE_S)}
    replicas = {name: Replica(name, env, tmp_path / name) for name in ("r1", "r2")}
    clients: dict[str, AsyncClient] = {}
    try:
        await wait_until(lambda: asyncio.sleep(0, all("(replica" in r.output() for r in replicas.values())), 180, "both replicas")
        await wait_until(lambda: asyncio.sleep(0, len(Replicas(shared, "observer", LEASE_S).live()) == 3), 60, "both heartbeats")
        rooms: list[tuple[AsyncClient, str]] = []
        for n, person in enumerate(PEOPLE):
            client = clients[person] = AsyncClient(synapse.url, synapse.people[person])
            await client.login(f"{person}-password")
            for k in range(2):
                created = await client.room_create(invite=[synapse.bot], name=f"films {n}-{k}")
                assert isinstance(created, RoomCreateResponse), created
                rooms.append((client, created.room_id))
        asked: list[list[str]] = [[] for _ in rooms]

        async def ask_turn(turn: int) -> None:
            for i, (client, room) in enumerate(rooms):
                sent = await client.room_send(room, "m.room.message", {"msgtype": "m.text", "body": PLANS[i][turn][0]})
                assert isinstance(sent, RoomSendResponse), sent
                asked[i].append(sent.event_id)

        async def answered(turns: int) -> bool:
            for client, room in rooms:
                if len(await replies_in(client, room)) < turns:
                    return False
            return True

        for turn in range(KILL_AFTER):
            await ask_turn(turn)
            await wait_until(lambda t=turn: answered(t + 1), 120, f"turn {turn + 1}")
        observer = Replicas(shared, "observer", LEASE_S)
        owners = Counter(observer.owner(room, ["r1", "r2"]) for _, room in rooms)
        victim = replicas[owners.most_common(1)[0][0]]  # the replica with the most rooms
        await ask_turn(KILL_AFTER)  # in flight in every room ...
        victim.process.send_signal(signal.SIGKILL)  # ... when the replica that owns most of them dies
        victim.process.wait(10)
        for turn in range(KILL_AFTER, len(PLANS[0])):
            if turn > KILL_AFTER:
                await ask_turn(turn)
            await wait_until(lambda t=turn: answered(t + 1), 120, f"turn {turn + 1} after the kill")
        await asyncio.sleep(LEASE_S + 1)  # a duplicate answer would arrive now
        for i, (client, room) in enumerate(rooms):
            replies = await replies_in(client, room)
            assert Counter(event for event, _ in replies) == Counter(asked[i]), (room, replies)  # each question once, none twice
            assert [event for event, _ in replies] == asked[i]  # in the order asked
            for (question, expected), (_, text) in zip(PLANS[i], replies):
                assert expected in text, (question, text)
        survivor = next(r for r in replicas.values() if r is not victim)
        assert survivor.process.poll() is None, survivor.output()[-2000:]
    finally:
        for client in clients.values():
            await client.close()
        for replica in replicas.values():
            replica.stop()

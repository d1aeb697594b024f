"""The Speakeasy connector against our own chatroom server (which speaks the same protocol)."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest

from bot.chat.chatroom import Chatroom
from bot.chat.render import split_text, without_mentions
from bot.chat.runner import Runner
from bot.chat.server import ChatroomConfig, ChatroomServer
from bot.chat.speakeasy import SpeakeasyConnector
from bot.core.contracts import Fact, Message, Reply, TraceStep

pytestmark = pytest.mark.e2e


def huge_reply() -> Reply:
    """A reply whose facts alone (and trace alone) are far over the chatroom's 64 kB body limit."""
    films = [f"Film number {i}" for i in range(3000)]
    facts = [Fact(f"http://test.invalid/film{i}", title, "director", "http://test.invalid/gvs", "Gus Van Sant")
             for i, title in enumerate(films)]
    trace = [TraceStep("retrieve", 1.0, {"sparql": "SELECT ?x WHERE { ?x ?p ?o } # " + "x" * 80_000})]
    return Reply("Gus Van Sant directed " + ", ".join(films[:5]) + " and 2995 more.", "factual", answers=films, facts=facts,
                 trace=trace)


def echo(message: Message) -> Reply:
    if message.text == "huge":
        return huge_reply()
    if message.text == "long":
        return Reply(" ".join(f"word{i}" for i in range(700)), "factual")  # ~5,500 characters
    if message.text == "mention":
        return Reply("Ask @moviebot or mail me@example.org", "factual")
    return Reply(f"echo: {message.text}", "factual")


class Person:
    """A chatroom user speaking the protocol over HTTP."""

    def __init__(self, base: str, name: str):
        self.base, self.name = base, name
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))

    async def login(self):
        async with self.http.post(f"{self.base}/api/login", json={"username": self.name, "password": ""}) as resp:
            assert resp.status == 200

    async def new_room(self) -> str:
        async with self.http.post(f"{self.base}/api/rooms/request", json={"username": "moviebot"}) as resp:
            return (await resp.json())["uid"]

    async def say(self, room: str, text: str):
        async with self.http.post(f"{self.base}/api/room/{room}", data=text.encode()) as resp:
            assert resp.status == 200, await resp.text()

    async def messages(self, room: str) -> list[dict]:
        async with self.http.get(f"{self.base}/api/room/{room}", params={"since": "0"}) as resp:
            return (await resp.json())["messages"]

    async def wait_for_bot(self, room: str, count: int, timeout: float = 30.0) -> list[dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            bot = [m for m in await self.messages(room) if m["authorAlias"] == "moviebot"]
            if len(bot) >= count:
                return bot
            await asyncio.sleep(0.1)
        raise AssertionError(f"only {len(bot)} of {count} bot messages arrived")

    async def close(self):
        await self.http.close()


@pytest.fixture
async def chatroom(tmp_path):
    room = Chatroom(echo, ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="s3cret"), workers=2)
    await room.start()
    yield room
    await room.stop()


async def test_every_question_is_answered_once_and_in_order(chatroom):
    ann, bob = Person(chatroom.url, "Ann"), Person(chatroom.url, "Bob")
    try:
        await ann.login()
        await bob.login()
        rooms = {ann: await ann.new_room(), bob: await bob.new_room()}
        for i in range(8):
            for person, room in rooms.items():
                await person.say(room, f"{person.name} question {i}")
        for person, room in rooms.items():
            replies = await person.wait_for_bot(room, 8)
            assert [m["message"] for m in replies] == [f"echo: {person.name} question {i}" for i in range(8)]
            await asyncio.sleep(0.5)  # a late duplicate would show up now
            assert len(await person.wait_for_bot(room, 8)) == 8
            assert all("reply" in m for m in replies)  # our chatroom gets the structured reply for the trace panel
    finally:
        await ann.close()
        await bob.close()


async def test_long_replies_are_split_and_mentions_defused(chatroom):
    ann = Person(chatroom.url, "Ann")
    try:
        await ann.login()
        room = await ann.new_room()
        await ann.say(room, "long")
        await ann.say(room, "mention")
        replies = await ann.wait_for_bot(room, 4)
        parts = [m["message"] for m in replies[:-1]]
        assert len(parts) == 3 and all(len(p) <= 2000 for p in parts)
        assert " ".join(parts) == " ".join(f"word{i}" for i in range(700))
        assert "@" not in replies[-1]["message"] and replies[-1]["recipients"] == []
    finally:
        await ann.close()


async def test_a_reply_whose_facts_exceed_the_body_limit_is_trimmed_not_dropped(chatroom, caplog):
    ann = Person(chatroom.url, "Ann")
    try:
        await ann.login()
        room = await ann.new_room()
        await ann.say(room, "huge")
        await ann.say(room, "after")
        replies = await ann.wait_for_bot(room, 2)
        assert [m["message"] for m in replies] == [huge_reply().text, "echo: after"]
        structured = replies[0]["reply"]
        assert structured["text"] == huge_reply().text and structured["kind"] == "factual"
        assert structured["trace"] == [] and structured["facts"] == []  # shed first, so the reply fits
        assert replies[0]["inReplyTo"] == 0 and replies[1]["inReplyTo"] == 1
        assert chatroom.runner.stats.undelivered == chatroom.runner.stats.substituted == 0
        trimmed = [r.getMessage() for r in caplog.records if "trimmed" in r.getMessage()]
        assert len(trimmed) == 1 and "trace, facts" in trimmed[0]
    finally:
        await ann.close()


async def test_polling_alone_works_like_the_public_platform(tmp_path):
    """The public Speakeasy refuses event streams to bots: the connector must poll."""
    server = ChatroomServer(ChatroomConfig(db_path=str(tmp_path / "c.sqlite3"), port=0, bot_password="pw"))
    await server.start()
    base = f"http://127.0.0.1:{server.port}"
    runner = Runner(echo, workers=1)
    connector = SpeakeasyConnector(base, "moviebot", "pw", runner, tmp_path / "state.json", poll_s=0.2, use_events=False)
    task = asyncio.create_task(connector.run())
    ann = Person(base, "Ann")
    try:
        await ann.login()
        room = await ann.new_room()
        await ann.say(room, "hello")
        assert [m["message"] for m in await ann.wait_for_bot(room, 1)] == ["echo: hello"]
    finally:
        await ann.close()
        await connector.stop()
        await task
        await runner.close()
        await server.stop()


async def test_a_restart_neither_repeats_nor_loses_messages(tmp_path):
    server = ChatroomServer(ChatroomConfig(db_path=str(tmp_path / "c.sqlite3"), port=0, bot_password="pw"))
    await server.start()
    base = f"http://127.0.0.1:{server.port}"
    state = tmp_path / "bot-state.json"

    async def start_bot():
        runner = Runner(echo, workers=1)
        connector = SpeakeasyConnector(base, "moviebot", "pw", runner, state, poll_s=0.2)
        return runner, connector, asyncio.create_task(connector.run())

    ann = Person(base, "Ann")
    try:
        await ann.login()
        room = await ann.new_room()
        runner, connector, task = await start_bot()
        await ann.say(room, "before 1")
        await ann.wait_for_bot(room, 1)
        await connector.stop()
        await task
        await runner.close()
        for text in ("while down 1", "while down 2"):  # nobody listens now
            await ann.say(room, text)
        runner, connector, task = await start_bot()
        await ann.say(room, "after restart")
        replies = await ann.wait_for_bot(room, 4)
        await asyncio.sleep(0.6)
        replies = [m["message"] for m in await ann.messages(room) if m["authorAlias"] == "moviebot"]
        assert replies == ["echo: before 1", "echo: while down 1", "echo: while down 2", "echo: after restart"]
        await connector.stop()
        await task
        await runner.close()
    finally:
        await ann.close()
        await server.stop()


async def test_a_reply_in_flight_at_a_crash_is_not_posted_again(tmp_path):
    """State says 'posting the reply to ordinal 0' and the room shows a bot message after it: it arrived."""
    server = ChatroomServer(ChatroomConfig(db_path=str(tmp_path / "c.sqlite3"), port=0, bot_password="pw"))
    await server.start()
    base = f"http://127.0.0.1:{server.port}"
    ann = Person(base, "Ann")
    bot = Person(base, "moviebot")
    try:
        await ann.login()
        room = await ann.new_room()
        await ann.say(room, "q0")
        async with bot.http.post(f"{base}/api/login", json={"username": "moviebot", "password": "pw"}) as resp:
            assert resp.status == 200
        await bot.say(room, "echo: q0")  # posted by the crashed bot...
        await ann.say(room, "q2")
        state = tmp_path / "state.json"
        state.write_text(json.dumps({"rooms": {room: {"answered": -1, "pending": 0}}}))  # ...which had no time to record it
        runner = Runner(echo, workers=1)
        connector = SpeakeasyConnector(base, "moviebot", "pw", runner, state, poll_s=0.2)
        task = asyncio.create_task(connector.run())
        await ann.wait_for_bot(room, 2)
        await asyncio.sleep(0.6)
        await connector.stop()
        await task
        await runner.close()
        assert [m["message"] for m in await ann.messages(room) if m["authorAlias"] == "moviebot"] == ["echo: q0", "echo: q2"]
    finally:
        await ann.close()
        await bot.close()
        await server.stop()


def test_text_helpers():
    assert without_mentions("@bob hi") == "\uff20bob hi"
    parts = split_text("a" * 4500, 2000)
    assert [len(p) for p in parts] == [2000, 2000, 500]
    assert split_text("First sentence. Second one.", 20) == ["First sentence.", "Second one."]

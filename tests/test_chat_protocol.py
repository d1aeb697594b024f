"""Conformance: the chatroom answers every endpoint and sends every event in the Speakeasy platform's shapes.

The shapes are in tests/speakeasy_spec.py (written from the platform, as docs/speakeasy.md
lists them); the client is tests/speakeasy_client.py (plain HTTP + SSE, not our connector).
The last tests drive our connector through the same chatroom and check what it posted.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from speakeasy_client import ProtocolClient
from speakeasy_spec import EVENTS, SHAPES, check

from bot.chat import server as server_module
from bot.chat.runner import Runner
from bot.chat.server import ChatroomConfig, ChatroomServer
from bot.chat.speakeasy import SpeakeasyConnector
from bot.core.contracts import Message, Reply

from conftest import REPO

pytestmark = pytest.mark.e2e


@pytest.fixture
async def server(tmp_path):
    srv = ChatroomServer(ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="bot-pw",
                                        bot_accounts={"studentbot": "student-pw"}))
    await srv.start()
    yield srv
    await srv.stop()


@pytest.fixture
async def clients(server):
    made = []

    def make(name, password=""):
        client = ProtocolClient(f"http://127.0.0.1:{server.port}", name, password)
        made.append(client)
        return client

    yield make
    for client in made:
        await client.close()


def conforms(type_name: str, value) -> None:
    problems = check(type_name, value)
    assert not problems, problems


async def test_every_endpoint_answers_in_the_platforms_shapes(clients):
    ann = clients("Ann")
    conforms("UserSessionDetails", await ann.login())
    status, created = await ann.request_room("moviebot")
    assert status == 200 and created["description"] == "Chatroom created"
    conforms("SuccessStatus", created)
    rooms = await ann.rooms()
    conforms("ChatRoomList", {"rooms": rooms})
    uid = rooms[0]["uid"]
    assert rooms[0]["testerBotAlias"] == "" and rooms[0]["alias"] == "Ann" and rooms[0]["remainingTime"] > 0

    status, posted = await ann.post(uid, "Who directed Milk?")
    assert status == 200
    conforms("SuccessStatus", posted)
    status, reacted = await ann.react(uid, 0, "STAR")
    assert status == 200
    conforms("SuccessStatus", reacted)
    state = await ann.state(uid)
    conforms("ChatRoomState", state)
    assert state["messages"][0]["read"] is False and "isRead" not in state["messages"][0]
    assert state["reactions"] == [{"messageOrdinal": 0, "type": "STAR"}]
    since = state["messages"][0]["timeStamp"]
    status, older_form = await ann.call("GET", f"/api/room/{uid}/{since}")
    assert status == 200
    conforms("ChatRoomState", older_form)

    status, closed = await ann.close_room(uid)
    assert status == 200
    conforms("SuccessStatus", closed)
    status, logged_out = await ann.call("GET", "/api/logout")
    assert status == 200
    conforms("SuccessStatus", logged_out)


async def test_every_error_is_an_error_status_with_the_platforms_status_codes(server, clients):
    ann, eve = clients("Ann"), clients("Eve")
    status, body = await ann.call("GET", "/api/rooms")
    assert status == 401 and body == {"description": "Unauthorized"}
    await ann.login()
    await eve.login()
    _, created = await ann.request_room("moviebot")
    uid = created["uid"]
    cases = [
        (await ann.request_room("nobody-by-that-name"), 404),
        (await ann.request_room("Ann"), 403),
        (await ann.call("POST", "/api/rooms/request", data=b"{not json"), 400),
        (await ann.call("POST", "/api/rooms/request", json_body={"username": 7}), 400),
        (await eve.call("GET", f"/api/room/{uid}"), 401),
        (await ann.call("GET", "/api/room/no-such-room"), 404),
        (await ann.call("GET", f"/api/room/{uid}", params={"since": "yesterday"}), 400),
        (await ann.post(uid, "   "), 400),
        (await ann.post(uid, "x" * 2001), 400),
        (await ann.call("POST", f"/api/room/{uid}", data=b"\xff\xfe"), 400),
        (await ann.call("POST", f"/api/room/{uid}", data=b"y" * (server_module.MAX_BODY_BYTES + 1)), 413),
        (await ann.react(uid, 99, "STAR"), 400),
        (await ann.react(uid, 0, "LOVE"), 400),
        (await eve.call("PATCH", f"/api/room/{uid}"), 401),
        (await eve.add_user(uid, "Ann"), 403),
    ]
    for (status, body), expected in cases:
        assert status == expected, (status, body)
        conforms("ErrorStatus", body)


async def test_the_event_stream_announces_only_new_rooms_one_per_event(clients):
    ann, bob = clients("Ann"), clients("Bob")
    await ann.login()
    await bob.login()
    _, old = await ann.request_room("moviebot")  # a room from before the stream opened
    await ann.listen()
    await asyncio.sleep(0.5)
    assert ann.events.empty()  # nothing at open: not an empty ROOMS, not the old room again

    _, new = await ann.request_room("Bob")  # a room with another person
    name, data = await ann.next_event()
    assert name == "ROOMS"
    conforms(EVENTS[name], data)
    assert [r["uid"] for r in data["rooms"]] == [new["uid"]] and set(data["rooms"][0]["userAliases"]) == {"Ann", "Bob"}

    await bob.post(new["uid"], "hi Ann")
    name, data = await ann.next_event()
    assert name == "MESSAGE" and data["roomId"] == new["uid"] and data["message"] == "hi Ann"
    conforms(EVENTS[name], data)
    await bob.react(new["uid"], 0, "THUMBS_UP")
    name, data = await ann.next_event()
    assert name == "REACTION"
    conforms(EVENTS[name], data)
    assert data == {"roomId": new["uid"], "messageOrdinal": 0, "type": "THUMBS_UP"}

    await ann.close_room(new["uid"])  # closing announces nothing; the room list shows it closed
    await asyncio.sleep(0.3)
    assert ann.events.empty()
    closed = {r["uid"]: r for r in await ann.rooms()}
    assert closed[new["uid"]]["remainingTime"] == 0 and closed[old["uid"]]["remainingTime"] > 0


async def test_a_closed_or_expired_room_reports_no_time_left_and_refuses_messages(tmp_path, monkeypatch):
    srv = ChatroomServer(ChatroomConfig(db_path=str(tmp_path / "c.sqlite3"), port=0, bot_password="x", room_minutes=10))
    await srv.start()
    ann = ProtocolClient(f"http://127.0.0.1:{srv.port}", "Ann")
    try:
        await ann.login()
        _, created = await ann.request_room("moviebot")
        uid = created["uid"]
        info = (await ann.state(uid))["info"]
        assert 9 * 60_000 < info["remainingTime"] <= 10 * 60_000
        assert (await ann.post(uid, "in time"))[0] == 200
        real_now = server_module.now_ms
        monkeypatch.setattr(server_module, "now_ms", lambda: real_now() + 11 * 60_000)  # eleven minutes later
        state = await ann.state(uid)
        assert state["info"]["remainingTime"] == 0 and [m["message"] for m in state["messages"]] == ["in time"]
        assert await ann.post(uid, "too late") == (400, {"description": "Chatroom not active"})
        assert await ann.react(uid, 0, "STAR") == (400, {"description": "Chatroom not active"})
        assert (await ann.add_user(uid, "moviebot"))[0] == 400
    finally:
        await ann.close()
        await srv.stop()


async def test_rooms_can_be_opened_with_any_existing_user(clients):
    ann, bob, student = clients("Ann"), clients("Bob"), clients("studentbot", "student-pw")
    await ann.login()
    for other in ("moviebot", "studentbot"):  # accounts exist before they ever log in
        status, _ = await ann.request_room(other)
        assert status == 200
    assert (await ann.request_room("Bob"))[0] == 404  # Bob has never been here
    await bob.login()
    assert (await ann.request_room("Bob"))[0] == 200
    await student.login()
    assert sorted(sorted(r["userAliases"]) for r in await student.rooms()) == [["Ann", "studentbot"]]
    wrong = ProtocolClient(student.base, "studentbot", "guess")
    try:
        status, _ = await wrong.call("POST", "/api/login", json_body={"username": "studentbot", "password": "guess"})
        assert status == 401  # a bot account always needs its password, even on loopback
    finally:
        await wrong.close()


def doc_tables() -> dict[str, dict[str, str]]:
    """The field tables of docs/speakeasy.md: shape -> {field: type}."""
    tables, current = {}, None
    for line in (REPO / "docs" / "speakeasy.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = None
        heading = re.match(r"^### (\w+)$", line)
        if heading:
            current = tables.setdefault(heading[1], {})
            continue
        row = re.match(r"^\| `(\w+)` \| ([^|]+?) \|", line)
        if row and current is not None:
            current[row[1]] = row[2]
    return tables


def test_the_protocol_page_lists_the_same_shapes_as_the_conformance_suite():
    assert doc_tables() == SHAPES


# --- the connector, through the same chatroom -------------------------------------------------------


def echo(message: Message) -> Reply:
    return Reply(f"echo: {message.text}", "factual")


async def test_the_connector_finds_a_room_announced_only_by_an_event(server, clients):
    """Polling once at start finds nothing; the room exists only through its ROOMS event."""
    base = f"http://127.0.0.1:{server.port}"
    runner = Runner(echo, workers=1)
    connector = SpeakeasyConnector(base, "moviebot", "bot-pw", runner, server.config.db_path + "-state.json", poll_s=3600)
    task = asyncio.create_task(connector.run())
    ann = clients("Ann")
    try:
        await ann.login()
        for _ in range(100):  # until the bot's event stream is open
            if server.listeners.get("moviebot"):
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # and its first poll (no rooms yet) is done
        _, created = await ann.request_room("moviebot")
        await ann.post(created["uid"], "hello")
        messages = await ann.wait_for(created["uid"], lambda ms: any(m["authorAlias"] == "moviebot" for m in ms), timeout=10)
        conforms("list of RestChatMessage", messages)
        bot = [m for m in messages if m["authorAlias"] == "moviebot"]
        assert [(m["message"], m["inReplyTo"]) for m in bot] == [("echo: hello", 0)]
    finally:
        await connector.stop()
        await task
        await runner.close()


async def test_the_connector_posts_plain_text_to_a_server_without_our_extension(server, clients, monkeypatch):
    """As on the platform: no structured reply, text parts only, found by polling alone."""
    base = f"http://127.0.0.1:{server.port}"
    login = SpeakeasyConnector.login

    async def platform_login(self):
        await login(self)
        self.reply_json = False  # the platform does not announce the structured-reply extension

    monkeypatch.setattr(SpeakeasyConnector, "login", platform_login)
    runner = Runner(lambda m: Reply("word " * 900, "factual"), workers=1)  # 4,500 characters: three parts
    connector = SpeakeasyConnector(base, "moviebot", "bot-pw", runner, server.config.db_path + "-state.json",
                                   poll_s=0.2, use_events=False)
    task = asyncio.create_task(connector.run())
    ann = clients("Ann")
    try:
        await ann.login()
        _, created = await ann.request_room("moviebot")
        await ann.post(created["uid"], "a long one please")
        messages = await ann.wait_for(created["uid"], lambda ms: sum(m["authorAlias"] == "moviebot" for m in ms) >= 3)
        conforms("list of RestChatMessage", messages)
        bot = [m for m in messages if m["authorAlias"] == "moviebot"]
        assert len(bot) == 3 and all(len(m["message"]) <= 2000 and "reply" not in m for m in bot)
        assert " ".join(m["message"] for m in bot).split() == ["word"] * 900
    finally:
        await connector.stop()
        await task
        await runner.close()


async def test_the_connector_reads_messages_with_the_older_isread_field(tmp_path):
    runner = Runner(echo, workers=1)
    connector = SpeakeasyConnector("http://127.0.0.1:9", "moviebot", "pw", runner, tmp_path / "state.json")
    answered = []

    async def deliver(message, reply, ordinal):
        answered.append((ordinal, reply.text))

    connector._deliver = deliver  # noqa: SLF001 - only the reading side is under test
    room = connector._update_rooms([{"uid": "r1", "alias": "moviebot", "remainingTime": 1000}])[0]  # noqa: SLF001
    connector._reconcile(room, [])  # noqa: SLF001
    older = {"timeStamp": 5, "authorAlias": "Ann", "ordinal": 0, "message": "old style", "recipients": [], "isRead": False}
    newer = {"timeStamp": 6, "authorAlias": "Ann", "ordinal": 1, "message": "new style", "recipients": [], "read": True}
    connector._handle(room, [older, newer])  # noqa: SLF001
    await runner.close()
    assert answered == [(0, "echo: old style"), (1, "echo: new style")]

"""The built-in chatroom speaks the Speakeasy protocol: login, rooms, messages, reactions, events, errors, access."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from bot.chat.chatroom import ChatroomSetupError, chatroom_config, parse_accounts
from bot.chat.server import ChatroomConfig, ChatroomServer
from bot.core.config import Settings

pytestmark = pytest.mark.e2e


@pytest.fixture
async def server(tmp_path):
    srv = ChatroomServer(ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="bot-secret"))
    await srv.start()
    yield srv
    await srv.stop()


def jar_session() -> aiohttp.ClientSession:
    """A client that keeps cookies from 127.0.0.1 (aiohttp refuses cookies from IP addresses by default)."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


def url(srv, path):
    return f"http://127.0.0.1:{srv.port}{path}"


async def login(http, srv, name, password=""):
    async with http.post(url(srv, "/api/login"), json={"username": name, "password": password}) as resp:
        return resp.status, await resp.json()


async def test_login_rooms_messages_and_history(server):
    async with jar_session() as ann:
        status, details = await login(ann, server, "Ann")
        assert status == 200 and details["userDetails"]["username"] == "Ann" and details["sessionToken"]
        assert "SESSIONID" in {c.key for c in ann.cookie_jar}
        async with ann.post(url(server, "/api/rooms/request"), json={"username": "moviebot"}) as resp:
            uid = (await resp.json())["uid"]
        async with ann.get(url(server, "/api/rooms")) as resp:
            rooms = (await resp.json())["rooms"]
        assert [r["uid"] for r in rooms] == [uid]
        assert rooms[0]["alias"] == "Ann" and rooms[0]["remainingTime"] > 0 and set(rooms[0]["userAliases"]) == {"Ann", "moviebot"}
        for text in ("Who directed Milk?", "Grüße – ünïcode ✓"):
            async with ann.post(url(server, f"/api/room/{uid}"), data=text.encode()) as resp:
                assert resp.status == 200
        async with ann.get(url(server, f"/api/room/{uid}"), params={"since": "0"}) as resp:
            state = await resp.json()
        assert [(m["ordinal"], m["authorAlias"], m["message"]) for m in state["messages"]] == [
            (0, "Ann", "Who directed Milk?"), (1, "Ann", "Grüße – ünïcode ✓")]
        since = state["messages"][1]["timeStamp"]
        async with ann.get(url(server, f"/api/room/{uid}/{since}")) as resp:  # the older path form
            assert [m["ordinal"] for m in (await resp.json())["messages"]] == [1]

    # the bot logs in with its password and sees the room; the token also works as ?session=
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as bot:
        status, details = await login(bot, server, "moviebot", "bot-secret")
        assert status == 200 and details["userDetails"]["role"] == "BOT"
        token = details["sessionToken"]
        async with bot.get(url(server, "/api/rooms"), params={"session": token}) as resp:
            assert [r["uid"] for r in (await resp.json())["rooms"]] == [uid]
        reply = {"message": "Gus Van Sant.", "reply": {"text": "Gus Van Sant.", "trace": [{"stage": "understand", "ms": 1.0}]}}
        async with bot.post(url(server, f"/api/room/{uid}"), params={"session": token}, data=json.dumps(reply),
                            headers={"Content-Type": "application/vnd.moviebot.reply+json"}) as resp:
            assert resp.status == 200
        async with bot.get(url(server, f"/api/room/{uid}"), params={"session": token, "since": "0"}) as resp:
            last = (await resp.json())["messages"][-1]
        assert last["authorAlias"] == "moviebot" and last["message"] == "Gus Van Sant." and last["reply"]["trace"][0]["stage"] == "understand"


async def test_history_survives_a_server_restart(tmp_path):
    config = ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="x")
    first = ChatroomServer(config)
    await first.start()
    async with jar_session() as ann:
        await login(ann, first, "Ann")
        async with ann.post(url(first, "/api/rooms/request"), json={}) as resp:
            uid = (await resp.json())["uid"]
        await ann.post(url(first, f"/api/room/{uid}"), data=b"hello")
    await first.stop()
    second = ChatroomServer(config)
    await second.start()
    try:
        async with jar_session() as ann:
            await login(ann, second, "Ann")
            async with ann.get(url(second, f"/api/room/{uid}?since=0")) as resp:
                assert [m["message"] for m in (await resp.json())["messages"]] == ["hello"]
    finally:
        await second.stop()


async def test_errors_are_descriptions(server):
    async with jar_session() as http:
        async with http.get(url(server, "/api/rooms")) as resp:
            assert resp.status == 401 and "description" in await resp.json()
        status, body = await login(http, server, "moviebot", "wrong")
        assert status == 401 and "description" in body
        status, body = await login(http, server, "")
        assert status == 400
        await login(http, server, "Bob")
        async with http.post(url(server, "/api/rooms/request"), json={}) as resp:
            uid = (await resp.json())["uid"]
        for body in (b"", b"   ", ("x" * 2001).encode()):
            async with http.post(url(server, f"/api/room/{uid}"), data=body) as resp:
                assert resp.status == 400 and (await resp.json())["description"]
        async with http.post(url(server, f"/api/room/{uid}"), data=("y" * 2000).encode()) as resp:
            assert resp.status == 200
        async with http.post(url(server, f"/api/room/{uid}/reaction"), json={"messageOrdinal": 0, "type": "LOVE"}) as resp:
            assert resp.status == 400
        async with http.post(url(server, f"/api/room/{uid}/reaction"), json={"messageOrdinal": 99, "type": "STAR"}) as resp:
            assert resp.status == 400
        async with http.post(url(server, f"/api/room/{uid}/reaction"), json={"messageOrdinal": 0, "type": "STAR"}) as resp:
            assert resp.status == 200
        async with http.get(url(server, "/api/room/nosuchroom?since=0")) as resp:
            assert resp.status == 404 and "description" in await resp.json()
        async with http.patch(url(server, f"/api/room/{uid}")) as resp:  # close the room
            assert resp.status == 200
        async with http.post(url(server, f"/api/room/{uid}"), data=b"too late") as resp:
            assert resp.status == 400


async def test_other_people_cannot_read_a_room_until_they_join_by_link(server):
    async with jar_session() as ann, jar_session() as eve:
        await login(ann, server, "Ann")
        await login(eve, server, "Eve")
        async with ann.post(url(server, "/api/rooms/request"), json={}) as resp:
            uid = (await resp.json())["uid"]
        async with eve.get(url(server, f"/api/room/{uid}?since=0")) as resp:
            assert resp.status == 401
        async with eve.patch(url(server, f"/api/request/{uid}"), data=b"Ann") as resp:
            assert resp.status == 403  # only yourself
        async with eve.patch(url(server, f"/api/request/{uid}"), data=b"Eve") as resp:
            assert resp.status == 200
        async with eve.get(url(server, f"/api/room/{uid}?since=0")) as resp:
            assert resp.status == 200 and "Eve" in (await resp.json())["info"]["userAliases"]


async def test_at_mentions_are_routed_privately(server):
    async with jar_session() as ann, jar_session() as eve:
        await login(ann, server, "Ann")
        await login(eve, server, "Eve")
        async with ann.post(url(server, "/api/rooms/request"), json={}) as resp:
            uid = (await resp.json())["uid"]
        await eve.patch(url(server, f"/api/request/{uid}"), data=b"Eve")
        await ann.post(url(server, f"/api/room/{uid}"), data=b"@moviebot psst")
        async with eve.get(url(server, f"/api/room/{uid}?since=0")) as resp:
            assert (await resp.json())["messages"] == []
        async with ann.get(url(server, f"/api/room/{uid}?since=0")) as resp:
            assert [m["recipients"] for m in (await resp.json())["messages"]] == [["moviebot"]]


async def test_event_stream_sends_rooms_messages_and_reactions(server):
    async with jar_session() as ann:
        await login(ann, server, "Ann")
        events = []

        async def read():
            async with ann.get(url(server, "/sse/rooms")) as resp:
                event = None
                async for raw in resp.content:
                    line = raw.decode().strip()
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        events.append((event, json.loads(line[5:])))
                        if len(events) == 3:
                            return

        reader = asyncio.create_task(read())
        await asyncio.sleep(0.3)
        async with ann.post(url(server, "/api/rooms/request"), json={}) as resp:  # a room opened after the stream
            uid = (await resp.json())["uid"]
        await ann.post(url(server, f"/api/room/{uid}"), data=b"hi")
        await ann.post(url(server, f"/api/room/{uid}/reaction"), json={"messageOrdinal": 0, "type": "THUMBS_UP"})
        await asyncio.wait_for(reader, 10)
    assert [e for e, _ in events] == ["ROOMS", "MESSAGE", "REACTION"]
    assert events[0][1]["rooms"][0]["uid"] == uid
    assert events[1][1]["roomId"] == uid and events[1][1]["message"] == "hi" and events[1][1]["ordinal"] == 0
    assert events[2][1] == {"roomId": uid, "messageOrdinal": 0, "type": "THUMBS_UP"}


async def test_rate_limit_answers_429(tmp_path):
    srv = ChatroomServer(ChatroomConfig(db_path=str(tmp_path / "c.sqlite3"), port=0, bot_password="x", rate_per_minute=5))
    await srv.start()
    try:
        async with jar_session() as http:
            await login(http, srv, "Ann")
            statuses = []
            for _ in range(6):
                async with http.get(url(srv, "/api/rooms")) as resp:
                    statuses.append(resp.status)
            assert statuses[:4] == [200] * 4 and statuses[-1] == 429
    finally:
        await srv.stop()


async def test_exposed_chatroom_needs_a_token_or_an_account(tmp_path):
    srv = ChatroomServer(ChatroomConfig(db_path=str(tmp_path / "c.sqlite3"), host="127.0.0.1", port=0, bot_password="x",
                                        access_token="letmein", accounts={"carol": "pw"}))
    srv.config.host = "0.0.0.0"  # as if bound to every address (the socket stays on loopback for the test)
    await srv.start()
    try:
        async with jar_session() as http:
            assert (await login(http, srv, "Ann"))[0] == 401
            assert (await login(http, srv, "Ann", "letmein"))[0] == 200
            assert (await login(http, srv, "carol", "wrong"))[0] == 401
            assert (await login(http, srv, "carol", "pw"))[0] == 200
            async with http.get(url(srv, "/api/config")) as resp:
                assert (await resp.json())["auth"] == "token"
    finally:
        await srv.stop()


def test_settings_refuse_an_open_chatroom_on_a_public_address(tmp_path):
    with pytest.raises(ChatroomSetupError):
        chatroom_config(Settings(host="0.0.0.0", data_dir=str(tmp_path)))
    assert chatroom_config(Settings(host="0.0.0.0", access_token="t", data_dir=str(tmp_path))).access_token == "t"
    assert parse_accounts("ann:pw1, bob:p:w") == {"ann": "pw1", "bob": "p:w"}
    with pytest.raises(ChatroomSetupError):
        parse_accounts("nopassword")


def test_message_times_rise_within_a_room_even_in_the_same_millisecond(tmp_path, monkeypatch):
    from bot.chat import history

    monkeypatch.setattr(history, "now_ms", lambda: 1_000)  # every message in the same millisecond
    store = history.History(tmp_path / "chat.sqlite3")
    room = store.create_room("ann", {"ann": "Ann"}).uid
    times = [store.add_message(room, "ann", "Ann", f"question {i}", [], None).time for i in range(3)]
    assert times == sorted(set(times)) and len(times) == 3
    assert [m.text for m in store.messages(room, times[1])] == ["question 1", "question 2"]

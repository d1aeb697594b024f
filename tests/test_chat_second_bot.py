"""Someone else's bot in our chatroom: a second bot account driven by a client written from the protocol.

This is what a course student does with the platform's client: log in as their bot, listen
for new rooms, read messages with `since`, post, react. It must work against `moviebot serve`
exactly as against the platform, beside our own bot.
"""

from __future__ import annotations

import asyncio

import pytest
from speakeasy_client import ProtocolClient
from speakeasy_spec import check

from bot.chat.chatroom import Chatroom
from bot.chat.server import ChatroomConfig
from bot.core.contracts import Message, Reply

pytestmark = pytest.mark.e2e


def echo(message: Message) -> Reply:
    return Reply(f"echo: {message.text}", "factual")


@pytest.fixture
async def chatroom(tmp_path):
    room = Chatroom(echo, ChatroomConfig(db_path=str(tmp_path / "chat.sqlite3"), port=0, bot_password="ours",
                                         bot_accounts={"studentbot": "theirs"}), workers=1)
    await room.start()
    yield room
    await room.stop()


async def test_a_student_bot_is_invited_by_a_person_and_chats_with_them(chatroom):
    student = ProtocolClient(chatroom.url, "studentbot", "theirs")
    ann = ProtocolClient(chatroom.url, "Ann")
    try:
        details = await student.login()
        assert details["userDetails"]["role"] == "BOT"
        await student.listen()  # started before any room exists, the normal case
        assert await student.rooms() == []

        await ann.login()
        status, created = await ann.request_room("studentbot")  # a person opens a chat with the student's bot
        assert status == 200
        name, data = await student.next_event()
        assert name == "ROOMS" and not check("ChatRoomList", data)
        room = data["rooms"][0]
        assert room["uid"] == created["uid"] and room["alias"] == "studentbot" and room["remainingTime"] > 0

        await ann.post(room["uid"], "Hello, bot of a student!")
        name, event = await student.next_event()
        assert (name, event["roomId"], event["authorAlias"], event["message"]) == (
            "MESSAGE", room["uid"], "Ann", "Hello, bot of a student!")
        # read on with `since` = the newest message seen: exactly that message, nothing older
        state = await student.state(room["uid"], since=event["timeStamp"])
        assert not check("ChatRoomState", state)
        assert [m["ordinal"] for m in state["messages"]] == [event["ordinal"]]

        status, _ = await student.post(room["uid"], "Hello Ann, this is studentbot.")
        assert status == 200
        status, _ = await student.react(room["uid"], event["ordinal"], "THUMBS_UP")
        assert status == 200
        seen = await ann.wait_for(room["uid"], lambda ms: any(m["authorAlias"] == "studentbot" for m in ms))
        assert [(m["authorAlias"], m["message"]) for m in seen] == [
            ("Ann", "Hello, bot of a student!"), ("studentbot", "Hello Ann, this is studentbot.")]
        assert (await ann.state(room["uid"]))["reactions"] == [{"messageOrdinal": 0, "type": "THUMBS_UP"}]
        # the student's own messages and reaction come back on its stream too, as on the platform
        names = [(await student.next_event())[0] for _ in range(2)]
        assert names == ["MESSAGE", "REACTION"]
        await asyncio.sleep(0.5)
        assert all(m["authorAlias"] != "moviebot" for m in (await ann.state(room["uid"]))["messages"])  # not our bot's room
    finally:
        await student.close()
        await ann.close()


async def test_a_person_invites_a_student_bot_into_a_room_with_moviebot(chatroom):
    student = ProtocolClient(chatroom.url, "studentbot", "theirs")
    ann = ProtocolClient(chatroom.url, "Ann")
    try:
        await student.login()
        await student.listen()
        await ann.login()
        _, created = await ann.request_room("moviebot")
        uid = created["uid"]
        await ann.post(uid, "Who directed Milk?")
        await ann.wait_for(uid, lambda ms: any(m["authorAlias"] == "moviebot" for m in ms))

        status, _ = await ann.add_user(uid, "studentbot")  # Ann invites the student's bot
        assert status == 200
        name, data = await student.next_event()
        assert name == "ROOMS" and [r["uid"] for r in data["rooms"]] == [uid]
        assert set(data["rooms"][0]["userAliases"]) == {"Ann", "moviebot", "studentbot"}
        history = (await student.state(uid))["messages"]
        assert [(m["authorAlias"], m["message"]) for m in history] == [("Ann", "Who directed Milk?"),
                                                                      ("moviebot", "echo: Who directed Milk?")]
        status, _ = await student.react(uid, history[1]["ordinal"], "STAR")  # rates our bot's answer
        assert status == 200
        assert await student.next_event() == ("REACTION", {"roomId": uid, "messageOrdinal": 1, "type": "STAR"})
        await ann.post(uid, "And who starred in it?")
        name, event = await student.next_event()
        assert name == "MESSAGE" and event["message"] == "And who starred in it?"
        name, event = await student.next_event()
        assert name == "MESSAGE" and event["authorAlias"] == "moviebot" and event["message"] == "echo: And who starred in it?"
    finally:
        await student.close()
        await ann.close()


async def test_nobody_outside_a_room_can_invite_someone_into_it(chatroom):
    eve = ProtocolClient(chatroom.url, "Eve")
    ann = ProtocolClient(chatroom.url, "Ann")
    try:
        await ann.login()
        await eve.login()
        _, created = await ann.request_room("moviebot")
        status, body = await eve.add_user(created["uid"], "studentbot")
        assert status == 403 and body["description"]
        assert (await ann.add_user(created["uid"], "nobody-here"))[0] == 404
    finally:
        await eve.close()
        await ann.close()

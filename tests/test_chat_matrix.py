"""End to end on a real Synapse homeserver: a user invites the bot, asks, gets correct answers; restarts lose nothing."""

from __future__ import annotations

import asyncio
import time

import pytest
from nio import AsyncClient, LoginResponse, RoomCreateResponse, RoomMessageNotice, RoomMessagesResponse

from bot.chat.matrix import MatrixConnector
from bot.chat.runner import Runner
from bot.dialogue.dialogue import Dialogue

from conftest import start_synapse

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def synapse(tmp_path_factory):
    server = start_synapse(tmp_path_factory.mktemp("synapse"))
    server.bot = server.register("moviebot", "bot-password")
    server.ann = server.register("ann", "ann-password")
    yield server
    server.remove()


class Bot:
    """The Matrix connector with the mini agent behind it, running in the test's event loop."""

    def __init__(self, synapse, dialogue, state):
        self.runner = Runner(dialogue.reply, workers=1)
        self.connector = MatrixConnector(synapse.url, synapse.bot, self.runner, state, password="bot-password")
        self.task = asyncio.create_task(self.connector.run())

    async def stop(self):
        await self.connector.stop()
        await self.task
        await self.runner.close()


async def bot_replies(client: AsyncClient, room: str) -> list[str]:
    response = await client.room_messages(room, limit=100)
    assert isinstance(response, RoomMessagesResponse), response
    return [e.body for e in reversed(response.chunk) if isinstance(e, RoomMessageNotice)]


async def wait_for_replies(client: AsyncClient, room: str, count: int, timeout: float = 60.0) -> list[str]:
    deadline = time.monotonic() + timeout
    replies: list[str] = []
    while time.monotonic() < deadline:
        replies = await bot_replies(client, room)
        if len(replies) >= count:
            return replies
        await asyncio.sleep(0.3)
    raise AssertionError(f"got {len(replies)} of {count} replies: {replies}")


async def say(client: AsyncClient, room: str, text: str) -> None:
    await client.room_send(room, "m.room.message", {"msgtype": "m.text", "body": text})


async def test_invite_ask_follow_up_and_restart(synapse, mini_agent, tmp_path):
    dialogue = Dialogue(mini_agent)
    state = tmp_path / "matrix-state.json"
    bot = Bot(synapse, dialogue, state)
    ann = AsyncClient(synapse.url, synapse.ann)
    try:
        assert isinstance(await ann.login("ann-password"), LoginResponse)
        created = await ann.room_create(invite=[synapse.bot], name="films")
        assert isinstance(created, RoomCreateResponse), created
        room = created.room_id
        await say(ann, room, "Who directed Good Will Hunting?")  # asked right after the invite
        replies = await wait_for_replies(ann, room, 1)
        assert "Gus Van Sant" in replies[0]
        await say(ann, room, "And who wrote it?")
        replies = await wait_for_replies(ann, room, 2)
        assert "Matt Damon" in replies[1] and "Ben Affleck" in replies[1]

        await bot.stop()  # the bot is down; Ann keeps talking
        await say(ann, room, "Who directed Milk?")
        bot = Bot(synapse, dialogue, state)
        replies = await wait_for_replies(ann, room, 3)
        assert "Gus Van Sant" in replies[2]
        await say(ann, room, "When was Elephant released?")
        replies = await wait_for_replies(ann, room, 4)
        assert "2003" in replies[3]
        await asyncio.sleep(1.5)  # a repeated answer would show up now
        assert len(await bot_replies(ann, room)) == 4
    finally:
        await bot.stop()
        await ann.close()


async def test_a_reply_sent_just_before_a_crash_is_not_duplicated(synapse, mini_agent, tmp_path):
    """The saved inbox still holds an answered question (the crash hit before the state was saved):
    the restarted bot re-sends with the same transaction id and the homeserver drops the duplicate."""
    dialogue = Dialogue(mini_agent)
    state = tmp_path / "state.json"
    bot = Bot(synapse, dialogue, state)
    ann = AsyncClient(synapse.url, synapse.ann)
    try:
        await ann.login("ann-password")
        room = (await ann.room_create(invite=[synapse.bot])).room_id
        await say(ann, room, "Who directed Milk?")
        await wait_for_replies(ann, room, 1)
        await bot.stop()
        # simulate the crash window: the question is back in the inbox as if its delivery was never recorded
        from bot.chat.matrix import MatrixState, Question

        saved = MatrixState.load(state)
        answered = saved.answered[room][-1]
        saved.answered[room].remove(answered)
        saved.inbox.append(Question(room, answered, synapse.ann, "Who directed Milk?", int(time.time() * 1000)))
        saved.save()
        bot = Bot(synapse, dialogue, state)
        await asyncio.wait_for(bot.connector.synced.wait(), 60)
        await bot.runner.drain()
        await asyncio.sleep(1.0)
        assert len(await bot_replies(ann, room)) == 1
    finally:
        await bot.stop()
        await ann.close()


async def test_more_messages_than_one_sync_returns_are_all_answered(synapse, mini_agent, tmp_path, monkeypatch):
    """While the bot is down Ann asks more than a sync's timeline holds: the bot reads the gap back."""
    from bot.chat import matrix

    monkeypatch.setitem(matrix.SYNC_FILTER["room"]["timeline"], "limit", 2)
    dialogue = Dialogue(mini_agent)
    state = tmp_path / "state.json"
    bot = Bot(synapse, dialogue, state)
    ann = AsyncClient(synapse.url, synapse.ann)
    asked = [("Who directed Milk?", "Gus Van Sant"), ("When was Elephant released?", "2003"),
             ("Who starred in Milk?", "Sean Penn"), ("Who directed Hamlet 1948?", "Laurence Olivier"),
             ("When was Milk released?", "2008"), ("Who wrote Good Will Hunting?", "Matt Damon")]
    try:
        await ann.login("ann-password")
        room = (await ann.room_create(invite=[synapse.bot])).room_id
        await say(ann, room, "Who directed Good Will Hunting?")
        await wait_for_replies(ann, room, 1)
        await bot.stop()
        for question, _ in asked:
            await say(ann, room, question)
        bot = Bot(synapse, dialogue, state)
        replies = await wait_for_replies(ann, room, 1 + len(asked))
        for (question, answer), reply in zip(asked, replies[1:]):
            assert answer in reply, (question, reply)
        await asyncio.sleep(1.5)  # a repeated answer would show up now
        assert len(await bot_replies(ann, room)) == 1 + len(asked)
    finally:
        await bot.stop()
        await ann.close()

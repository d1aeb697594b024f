"""The Runner: exactly one reply per message, per-room order, other rooms not blocked, failures answered."""

from __future__ import annotations

import asyncio
import random
import threading
import time

from bot.chat.runner import UNDELIVERED_TEXT, Runner
from bot.core.contracts import Message, Reply


def echo(message: Message) -> Reply:
    time.sleep(random.random() / 200)
    return Reply(f"echo {message.text}", "factual")


async def test_every_message_gets_one_reply_in_room_order():
    runner = Runner(echo, workers=2)
    got: dict[str, list[str]] = {}

    async def deliver(message: Message, reply: Reply) -> None:
        await asyncio.sleep(random.random() / 500)  # slow, uneven delivery must not reorder a room
        got.setdefault(message.room, []).append(reply.text)

    for i in range(30):
        for room in ("a", "b", "c"):
            runner.submit(Message(room, "u", f"{room}{i}"), deliver)
    await runner.drain()
    await runner.close()
    for room in ("a", "b", "c"):
        assert got[room] == [f"echo {room}{i}" for i in range(30)]
    assert runner.stats.answered == 90 and runner.stats.failed == 0


async def test_a_failing_answer_still_gets_an_error_reply():
    def flaky(message: Message) -> Reply:
        if message.text == "boom":
            raise RuntimeError("the agent broke")
        return Reply("fine", "factual")

    runner = Runner(flaky, workers=1)
    replies = []

    async def deliver(message, reply):
        replies.append((message.text, reply.kind, reply.error))

    for text in ("one", "boom", "two"):
        runner.submit(Message("r", "u", text), deliver)
    await runner.close()
    assert replies == [("one", "factual", False), ("boom", "error", True), ("two", "factual", False)]
    assert runner.stats.failed == 1


async def test_a_slow_answer_does_not_block_other_rooms():
    release = threading.Event()

    def respond(message: Message) -> Reply:
        if message.room == "slow":
            assert release.wait(10), "the fast room was never answered while the slow one was busy"
        return Reply(message.room, "factual")

    runner = Runner(respond, workers=2)
    order = []

    async def deliver(message, reply):
        order.append(reply.text)
        if reply.text == "fast":
            release.set()

    runner.submit(Message("slow", "u", "q"), deliver)
    runner.submit(Message("fast", "u", "q"), deliver)
    await runner.close()
    assert order == ["fast", "slow"]


async def test_a_reply_that_cannot_be_delivered_is_replaced_by_a_short_text_reply():
    runner = Runner(lambda m: Reply(m.text, "factual"), workers=1)
    delivered = []

    async def deliver(message, reply):
        if reply.text == "too big":
            raise ConnectionError("Request Entity Too Large")
        delivered.append((message.text, reply.text))

    for text in ("a", "too big", "b"):
        runner.submit(Message("r", "u", text), deliver)
    await runner.close()
    assert delivered == [("a", "a"), ("too big", UNDELIVERED_TEXT), ("b", "b")]
    assert runner.stats.substituted == 1 and runner.stats.undelivered == 0


async def test_a_room_that_refuses_every_reply_is_counted_and_the_room_goes_on():
    runner = Runner(lambda m: Reply(m.text, "factual"), workers=1)
    delivered = []

    async def deliver(message, reply):
        if message.text == "lost":
            raise ConnectionError("platform down")
        delivered.append(reply.text)

    for text in ("a", "lost", "b"):
        runner.submit(Message("r", "u", text), deliver)
    await runner.close()
    assert delivered == ["a", "b"]
    assert runner.stats.undelivered == 1 and runner.stats.substituted == 0

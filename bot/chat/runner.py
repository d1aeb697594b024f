"""Runs the (synchronous, CPU-bound) answering off the event loop, keeping per-room order.

Every submitted message gets exactly one reply: an answer, or a friendly error reply when
answering fails, or, when the answer cannot be delivered (the connector already trimmed and
retried it), a short text-only reply saying so. Each room has its own queue, so replies in a room keep the order of the
questions, while other rooms are answered by the other workers meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from bot.core.contracts import Message, Reply
from bot.core.kinds import Kind

log = logging.getLogger(__name__)

Respond = Callable[[Message], Reply]
Deliver = Callable[[Message, Reply], Awaitable[None]]
ROOM_IDLE_S = 60.0  # a room's queue task ends after this long without messages
FAILURE_TEXT = "Sorry, something went wrong while I was answering that. Please try again or rephrase the question."
UNDELIVERED_TEXT = "Sorry, I found an answer to that but could not send it here. Please ask again, perhaps more narrowly."


@dataclass
class RunnerStats:
    submitted: int = 0
    answered: int = 0
    failed: int = 0  # answering raised; an error reply was sent instead
    substituted: int = 0  # the reply could not be delivered; the short text-only reply was sent instead
    undelivered: int = 0  # not even the short reply could be delivered


class Runner:
    """A pool of worker threads answering messages; one ordered queue per room."""

    def __init__(self, respond: Respond, workers: int = 2):
        self.respond = respond
        self.stats = RunnerStats()
        self._pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="moviebot-answer")
        self._queues: dict[str, asyncio.Queue] = {}
        self._tasks: dict[str, asyncio.Task] = {}
        self._pending = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def pending(self) -> int:
        """Messages submitted but not yet answered and delivered."""
        return self._pending

    def submit(self, message: Message, deliver: Deliver) -> None:
        """Queue `message`; `deliver(message, reply)` is awaited once its reply is ready, in room order."""
        self.stats.submitted += 1
        self._pending += 1
        self._idle.clear()
        queue = self._queues.get(message.room)
        if queue is None:
            queue = self._queues[message.room] = asyncio.Queue()
            self._tasks[message.room] = asyncio.get_running_loop().create_task(self._serve_room(message.room, queue))
        queue.put_nowait((message, deliver))

    async def _serve_room(self, room: str, queue: asyncio.Queue) -> None:
        while True:
            try:
                message, deliver = await asyncio.wait_for(queue.get(), ROOM_IDLE_S)
            except TimeoutError:
                if queue.empty():  # no await between this check and the removal: submit() cannot interleave
                    del self._queues[room], self._tasks[room]
                    return
                continue
            try:
                await self._deliver(message, await self.answer(message), deliver)
            finally:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.set()

    async def _deliver(self, message: Message, reply: Reply, deliver: Deliver) -> None:
        """Deliver the reply; when that fails, deliver the short text-only reply instead. Never raises."""
        try:
            await deliver(message, reply)
            return
        except Exception as exc:  # noqa: BLE001 - one failed delivery must not stop the room
            log.warning("could not deliver the reply to %s in %s (%s: %s); sending a short text-only reply instead",
                        message.sender, message.room, type(exc).__name__, exc)
        try:
            await deliver(message, Reply(UNDELIVERED_TEXT, Kind.ERROR, error=True))
            self.stats.substituted += 1
        except Exception:  # noqa: BLE001 - the platform refuses even that (e.g. the room was closed)
            self.stats.undelivered += 1
            log.exception("could not deliver even the short reply to %s in %s; the question stays unanswered",
                          message.sender, message.room)

    async def answer(self, message: Message) -> Reply:
        """The reply for one message, computed in a worker thread; never raises."""
        try:
            reply = await asyncio.get_running_loop().run_in_executor(self._pool, self.respond, message)
            self.stats.answered += 1
            return reply
        except Exception:  # noqa: BLE001 - the chat gets an error reply, never silence
            self.stats.failed += 1
            log.exception("answering %r in %s failed", message.text[:200], message.room)
            return Reply(FAILURE_TEXT, Kind.ERROR, error=True)

    async def drain(self) -> None:
        """Wait until every queued message has been answered and delivered."""
        await self._idle.wait()

    async def close(self) -> None:
        await self.drain()
        for task in self._tasks.values():
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._pool.shutdown(wait=True)

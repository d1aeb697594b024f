"""Starting a connector with the agent behind it, and stopping it cleanly on Ctrl-C or SIGTERM."""

from __future__ import annotations

import asyncio
import re
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from bot.core.config import Settings
from bot.dialogue.dialogue import Dialogue

from .chatroom import Chatroom, chatroom_config
from .examples import examples_for
from .runner import Runner


@dataclass
class Service:
    """A running connector: `task` ends when it fails; `stop()` ends it and delivers what is queued."""

    task: asyncio.Task
    stop: Callable[[], Awaitable[None]]


def _state_file(settings: Settings, kind: str, *names: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", "-".join(names)).strip("-")[:80]
    return Path(settings.data_dir).expanduser() / kind / f"{slug}.json"


async def start_chatroom(settings: Settings, dialogue: Dialogue) -> Service:
    config = chatroom_config(settings)
    config.examples = examples_for(dialogue.agent)
    chatroom = Chatroom(dialogue.reply, config, settings.chat_workers)
    url = await chatroom.start()
    print(f"moviebot chatroom on {url}  (Ctrl-C to stop)", flush=True)
    return Service(chatroom.connector_task, chatroom.stop)


async def start_speakeasy(settings: Settings, dialogue: Dialogue) -> Service:
    from .speakeasy import SpeakeasyConnector

    runner = Runner(dialogue.reply, settings.chat_workers)
    state = _state_file(settings, "speakeasy", settings.speakeasy_url, settings.speakeasy_user)
    connector = SpeakeasyConnector(settings.speakeasy_url, settings.speakeasy_user, settings.speakeasy_password, runner, state)
    task = asyncio.create_task(connector.run())
    print(f"moviebot joined {settings.speakeasy_url} as {settings.speakeasy_user}  (Ctrl-C to stop)", flush=True)

    async def stop() -> None:
        await connector.stop()
        await asyncio.gather(task, return_exceptions=True)
        await runner.close()

    return Service(task, stop)


async def start_matrix(settings: Settings, dialogue: Dialogue) -> Service:
    from .matrix import MatrixConnector
    from .replicas import Replicas

    replicas = None
    if settings.matrix_replica:
        if not settings.memory_db:
            raise ValueError("replicas (matrix_replica) share their rooms' memory and claims: set memory_db to a file they all reach")
        replicas = Replicas(settings.memory_db, settings.matrix_replica, settings.matrix_replica_lease_s)
    runner = Runner(dialogue.reply, settings.chat_workers)
    state = _state_file(settings, "matrix", settings.matrix_homeserver, settings.matrix_user, settings.matrix_replica)
    connector = MatrixConnector(settings.matrix_homeserver, settings.matrix_user, runner, state,
                                password=settings.matrix_password, access_token=settings.matrix_access_token, replicas=replicas)
    task = asyncio.create_task(connector.run())
    as_replica = f" (replica {settings.matrix_replica})" if replicas else ""
    print(f"moviebot on {settings.matrix_homeserver} as {settings.matrix_user}{as_replica}  (Ctrl-C to stop)", flush=True)

    async def stop() -> None:
        await connector.stop()
        await asyncio.gather(task, return_exceptions=True)
        await runner.close()

    return Service(task, stop)


async def run_until_stopped(starting: Awaitable[Service]) -> None:
    """Run the service until SIGINT/SIGTERM (then stop it cleanly) or until it fails (then raise)."""
    service = await starting
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopped.set)
    waiter = asyncio.create_task(stopped.wait())
    await asyncio.wait([service.task, waiter], return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    failure = service.task.exception() if service.task.done() and not service.task.cancelled() else None
    await service.stop()
    if failure is not None:
        raise RuntimeError(str(failure)) from failure

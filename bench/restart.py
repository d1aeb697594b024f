"""Kill the bot (SIGKILL) mid-conversation and restart it: no message may stay unanswered or be answered twice.

The bot runs as a separate process (`moviebot speakeasy` against our chatroom server, or
`moviebot matrix` against a throwaway Synapse); people keep asking while it is killed
and restarted. At the end every room must hold exactly one reply per question, in order,
each equal to the answer the agent gives that question on its own.

    .venv/bin/python bench/restart.py speakeasy --rooms 4 --questions 12 --kills 3
    .venv/bin/python bench/restart.py matrix --rooms 3 --questions 8 --kills 2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.chat_load import question_pool  # noqa: E402
from bot.agent import Agent  # noqa: E402
from bot.core.config import load_settings  # noqa: E402


class BotProcess:
    """`moviebot <connector>` as a child process that can be killed and started again."""

    def __init__(self, args: list[str], env: dict, log: Path):
        self.args, self.env, self.log = args, env, log
        self.process: subprocess.Popen | None = None

    def start(self):
        self.process = subprocess.Popen([str(ROOT / ".venv" / "bin" / "moviebot"), *self.args], env=self.env,
                                        stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(60)


async def converse(ask, read, bot: BotProcess, rooms: list[str], plans: list[list[str]], kills: int, timeout: float):
    """Ask every planned question (pausing a little between them), killing and restarting the bot meanwhile."""
    total = sum(len(p) for p in plans)
    kill_at = sorted(random.Random(1).sample(range(2, total - 1), kills))
    asked = 0

    async def answered() -> int:
        return sum([len(await read(room)) for room in rooms])

    seen_at_start = 0
    for step in range(max(len(p) for p in plans)):
        for room, plan in zip(rooms, plans):
            if step < len(plan):
                await ask(room, plan[step])
                asked += 1
                if kill_at and asked >= kill_at[0]:
                    kill_at.pop(0)
                    deadline = time.monotonic() + timeout
                    while await answered() <= seen_at_start and time.monotonic() < deadline:
                        await asyncio.sleep(0.2)  # the (re)started bot is answering again: kill it in the middle
                    await asyncio.sleep(random.Random(asked).uniform(0.0, 0.3))
                    bot.kill()
                    seen_at_start = await answered()
                    print(f"  killed the bot after {asked} questions; restarting", flush=True)
                    bot.start()
        await asyncio.sleep(0.3)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        replies = [await read(room) for room in rooms]
        if all(len(r) >= len(p) for r, p in zip(replies, plans)):
            break
        await asyncio.sleep(1.0)
    await asyncio.sleep(3.0)  # a duplicate would arrive now
    return [await read(room) for room in rooms]


def report(name: str, plans, replies, expected) -> int:
    questions = sum(len(p) for p in plans)
    unanswered = sum(max(0, len(p) - len(r)) for p, r in zip(plans, replies))
    twice = sum(max(0, len(r) - len(p)) for p, r in zip(plans, replies))
    wrong = sum(1 for p, r in zip(plans, replies) for q, a in zip(p, r) if expected[q] not in a)
    print(f"{name}: {questions} questions in {len(plans)} rooms; unanswered {unanswered}, answered twice {twice}, "
          f"out of order or wrong {wrong}")
    return 0 if unanswered == twice == wrong == 0 else 1


async def speakeasy(args, agent, env, tmp: Path) -> int:
    from bot.chat.server import ChatroomConfig, ChatroomServer

    server = ChatroomServer(ChatroomConfig(db_path=str(tmp / "chat.sqlite3"), port=0, bot_password="restart-bench",
                                            rate_per_minute=100_000))  # the bench polls fast
    await server.start()
    base = f"http://127.0.0.1:{server.port}"
    bot = BotProcess(["speakeasy", "--url", base, "--user", "moviebot", "--no-llm", *(["--kg", args.kg] if args.kg else [])],
                     {**env, "MOVIEBOT_SPEAKEASY_PASSWORD": "restart-bench"}, tmp / "bot.log")
    http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    try:
        await http.post(f"{base}/api/login", json={"username": "ann", "password": ""})
        rooms = []
        for _ in range(args.rooms):
            async with http.post(f"{base}/api/rooms/request", json={}) as resp:
                rooms.append((await resp.json())["uid"])
        plans = [question_pool(agent, args.questions, seed=i) for i in range(args.rooms)]
        expected = {q: agent.answer(q).text for plan in plans for q in plan}
        bot.start()

        async def ask(room, text):
            await http.post(f"{base}/api/room/{room}", data=text.encode())

        async def read(room):
            async with http.get(f"{base}/api/room/{room}", params={"since": "0"}) as resp:
                return [m["message"] for m in (await resp.json())["messages"] if m["authorAlias"] == "moviebot"]

        replies = await converse(ask, read, bot, rooms, plans, args.kills, args.timeout)
        return report("speakeasy", plans, replies, expected)
    finally:
        bot.stop()
        await http.close()
        await server.stop()


async def matrix(args, agent, env, tmp: Path) -> int:
    from nio import AsyncClient, RoomMessageNotice

    from bot.chat.synapse import LocalSynapse, synapse_python

    python = synapse_python()
    if python is None:
        print("matrix: Synapse is not installed (scripts/setup.sh --test)")
        return 1
    synapse = LocalSynapse(tmp / "synapse", python).start()
    bot_id = synapse.register("moviebot", "bot-pw")
    ann_id = synapse.register("ann", "ann-pw")
    bot = BotProcess(["matrix", "--homeserver", synapse.url, "--user", bot_id, "--no-llm", *(["--kg", args.kg] if args.kg else [])],
                     {**env, "MOVIEBOT_MATRIX_PASSWORD": "bot-pw"}, tmp / "bot.log")
    ann = AsyncClient(synapse.url, ann_id)
    try:
        await ann.login("ann-pw")
        rooms = [(await ann.room_create(invite=[bot_id])).room_id for _ in range(args.rooms)]
        plans = [question_pool(agent, args.questions, seed=i) for i in range(args.rooms)]
        expected = {q: agent.answer(q).text for plan in plans for q in plan}
        bot.start()
        # messages from before the bot's first login are history to it, not questions: start once it is in every room
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            members = [await ann.joined_members(room) for room in rooms]
            if all(bot_id in {m.user_id for m in getattr(r, "members", [])} for r in members):
                break
            await asyncio.sleep(0.5)
        else:
            print("matrix: the bot did not join the rooms in time")
            return 1

        async def ask(room, text):
            await ann.room_send(room, "m.room.message", {"msgtype": "m.text", "body": text})

        async def read(room):
            response = await ann.room_messages(room, limit=500)
            return [e.body for e in reversed(response.chunk) if isinstance(e, RoomMessageNotice)]

        replies = await converse(ask, read, bot, rooms, plans, args.kills, args.timeout)
        return report("matrix", plans, replies, expected)
    finally:
        bot.stop()
        await ann.close()
        synapse.stop()


async def run(args) -> int:
    settings = load_settings(None).with_overrides(**({"kg": args.kg} if args.kg else {})).without("phrasing")
    agent = Agent.from_settings(settings)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MOVIEBOT_DATA_DIR": f"{tmp}/data", "MOVIEBOT_CACHE_DIR": settings.cache_dir}
        scenario = speakeasy if args.connector == "speakeasy" else matrix
        started = time.perf_counter()
        code = await scenario(args, agent, env, Path(tmp))
        print(f"  ({time.perf_counter() - started:.0f} s)")
        return code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("connector", choices=["speakeasy", "matrix"])
    parser.add_argument("--rooms", type=int, default=3)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--kg", help="bundle folder (default: the demo KG)")
    parser.add_argument("--timeout", type=float, default=300.0)
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()

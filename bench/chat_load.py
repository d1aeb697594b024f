"""Load on the built-in chatroom over loopback: N concurrent people x M questions each.

Every person logs in, opens a room, and asks their questions one after the other (the next
once the previous reply arrived), listening on the Speakeasy event stream like the page does.
Checks: no reply lost or duplicated, replies in each room in question order and equal to the
answer the agent gives the same question on its own. Prints throughput and reply latency.

    .venv/bin/python bench/chat_load.py                      # 50 x 20 on the demo KG, LLM phrasing off
    .venv/bin/python bench/chat_load.py --llm --users 10 --questions 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.agent import Agent  # noqa: E402
from bot.chat.chatroom import Chatroom  # noqa: E402
from bot.chat.server import ChatroomConfig  # noqa: E402
from bot.core.config import load_settings  # noqa: E402
from bot.core.text import normalize  # noqa: E402
from bot.dialogue.dialogue import Dialogue  # noqa: E402
from bot.generation.phrasing.guard import find_phrase, phrase_key  # noqa: E402

TEMPLATES = ["Who directed {}?", "When was {} released?", "Who starred in {}?", "What genre is {}?", "Who wrote {}?"]


def question_pool(agent: Agent, size: int, seed: int = 0) -> list[str]:
    labels = agent.kg.labels
    films = sorted({labels.labels[i] for i, g in enumerate(labels.groups) if g == "film" and len(labels.lookup(normalize(labels.labels[i]))) <= 1})
    rng = random.Random(seed)
    return [rng.choice(TEMPLATES).format(rng.choice(films)) for _ in range(size)]


async def person(base: str, name: str, questions: list[str], latencies: list[float]) -> tuple[str, list[str]]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.post(f"{base}/api/login", json={"username": name, "password": ""}) as resp:
            assert resp.status == 200, await resp.text()
        async with http.post(f"{base}/api/rooms/request", json={}) as resp:
            room = (await resp.json())["uid"]
        replies: asyncio.Queue = asyncio.Queue()

        async def listen():
            async with http.get(f"{base}/sse/rooms") as resp:
                event = None
                async for raw in resp.content:
                    line = raw.decode().strip()
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:") and event == "MESSAGE":
                        data = json.loads(line[5:])
                        if data["roomId"] == room and data["authorAlias"] == "moviebot":
                            replies.put_nowait(data["message"])

        listener = asyncio.create_task(listen())
        await asyncio.sleep(0.2)
        got = []
        for question in questions:
            sent = time.perf_counter()
            async with http.post(f"{base}/api/room/{room}", data=question.encode()) as resp:
                assert resp.status == 200, await resp.text()
            got.append(await asyncio.wait_for(replies.get(), 600))
            latencies.append(time.perf_counter() - sent)
        listener.cancel()
        return room, got


async def run(args) -> int:
    settings = load_settings(args.config).with_overrides(**({"kg": args.kg} if args.kg else {}))
    if not args.llm:
        settings = settings.without("phrasing")
    agent = Agent.from_settings(settings)
    agent.wait_ready()  # the steady state: NER tagger loaded, phrasing model primed
    pool = question_pool(agent, args.users * args.questions, args.seed)
    started = time.perf_counter()
    phraser, agent.phraser = agent.phraser, None  # the serial answers in template wording (the LLM's may differ)
    serial = {q: agent.answer(q) for q in set(pool)}  # each question on its own, serially
    agent.phraser = phraser
    serial_s = time.perf_counter() - started
    expected = {q: r.text for q, r in serial.items()}
    first_value = {q: phrase_key(r.answers[0]) if r.answers else () for q, r in serial.items()}

    def differs(question: str, reply: str) -> bool:
        """Not the serial answer: with the LLM, a reworded sentence must still name the first answer."""
        if reply == expected[question]:
            return False
        return not args.llm or not find_phrase(list(phrase_key(reply)), first_value[question])

    with tempfile.TemporaryDirectory() as tmp:
        chatroom = Chatroom(Dialogue(agent).reply, ChatroomConfig(db_path=f"{tmp}/chat.sqlite3", port=0, bot_password="bench"),
                            workers=settings.chat_workers)
        base = await chatroom.start()
        latencies: list[float] = []
        plans = [pool[i * args.questions : (i + 1) * args.questions] for i in range(args.users)]
        started = time.perf_counter()
        results = await asyncio.gather(*(person(base, f"user{i}", plan, latencies) for i, plan in enumerate(plans)))
        wall = time.perf_counter() - started
        await asyncio.sleep(1.0)  # late duplicates would arrive now
        lost = duplicated = disordered = wrong = reworded = 0
        async with aiohttp.ClientSession() as http:
            async with http.post(f"{base}/api/login", json={"username": "moviebot", "password": "bench"}) as resp:
                token = (await resp.json())["sessionToken"]
            for (room, got), plan in zip(results, plans):
                async with http.get(f"{base}/api/room/{room}", params={"since": "0", "session": token}) as resp:
                    bot = [m["message"] for m in (await resp.json())["messages"] if m["authorAlias"] == "moviebot"]
                lost += max(0, len(plan) - len(bot))
                duplicated += max(0, len(bot) - len(plan))
                disordered += sum(1 for a, b in zip(bot, got) if a != b)
                wrong += sum(1 for q, a in zip(plan, bot) if differs(q, a))
                reworded += sum(1 for q, a in zip(plan, bot) if a != expected[q])
        await chatroom.stop()
    n = len(latencies)
    ordered = sorted(latencies)
    print(f"chat load: {args.users} people x {args.questions} questions, LLM phrasing {'on' if args.llm else 'off'}, "
          f"{settings.chat_workers} answer workers, KG {agent.kg.bundle.name}")
    print(f"  replies: {n}  lost: {lost}  duplicated: {duplicated}  out of order: {disordered}  "
          f"different from the serial answer: {wrong}" + (f"  (worded by the LLM: {reworded})" if args.llm else ""))
    print(f"  wall {wall:.1f} s  throughput {n / wall:.1f} replies/s  (serial agent alone, template sentences: {len(expected) / serial_s:.1f} answers/s)")
    print(f"  reply latency  median {statistics.median(ordered) * 1000:.0f} ms  p95 {ordered[int(0.95 * (n - 1))] * 1000:.0f} ms  "
          f"max {ordered[-1] * 1000:.0f} ms")
    return 0 if lost == duplicated == disordered == wrong == 0 else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--llm", action="store_true", help="phrase with the local LLM (slower)")
    parser.add_argument("--kg", help="bundle folder (default: the demo KG)")
    parser.add_argument("--config", help="TOML config file")
    parser.add_argument("--seed", type=int, default=0)
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()

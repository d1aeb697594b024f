"""Soak: the chatroom with the bot in it, serving mixed questions from many people for a long time.

The chatroom and the bot run in a child process (as `moviebot serve` would); 20 people ask
mixed questions (facts, follow-ups, recommendations, small talk), each waiting for the reply
and a short think time before the next. Every minute the child's resident memory (RSS) and
open file descriptors are sampled. Targets: RSS growth at most 5 % after the warm-up, no
growth in file descriptors, no reply lost.

    .venv/bin/python bench/soak.py                     # 30 minutes, 20 people, LLM phrasing on
    .venv/bin/python bench/soak.py --minutes 3 --warmup 1 --no-llm
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bot.chat.server import SSE_KEEPALIVE_S  # noqa: E402

BOT = "moviebot"
FOLLOW_UPS = ["And who wrote it?", "Who starred in it?", "When was it released?"]
OTHERS = ["Recommend movies like {}", "Which movies are similar to {}?", "hi", "thanks!", "What can you do?"]


def serve(args) -> None:
    """The child: build the agent, write the question pool, serve the chatroom until SIGTERM."""
    from chat_load import question_pool

    from bot.agent import Agent
    from bot.chat.chatroom import Chatroom
    from bot.chat.server import ChatroomConfig
    from bot.core.config import load_settings
    from bot.dialogue.dialogue import Dialogue

    settings = load_settings(args.config).with_overrides(**({"kg": args.kg} if args.kg else {}))
    if args.no_llm:
        settings = settings.without("phrasing")
    agent = Agent.from_settings(settings)
    agent.wait_ready()
    films = [q[len("Who directed "):-1] for q in question_pool(agent, 200, args.seed) if q.startswith("Who directed ")]
    pool = question_pool(agent, 400, args.seed) + [o.format(random.Random(i).choice(films)) for i, o in enumerate(OTHERS * 20)]
    Path(args.pool).write_text(json.dumps(pool))

    async def run() -> None:
        chatroom = Chatroom(Dialogue(agent).reply, ChatroomConfig(db_path=args.db, port=args.port, bot_password=os.environ["SOAK_BOT_PASSWORD"]),
                            workers=settings.chat_workers)
        await chatroom.start()
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        print("serving", flush=True)
        await stop.wait()
        await chatroom.stop()

    asyncio.run(run())


def sample(pid: int) -> tuple[float, int, int]:
    """(RSS in MB, open file descriptors that are not sockets, open sockets) of the process.

    Sockets come and go with the people's connections; files (the store, the chat database,
    the model, logs) must stay as they are."""
    rss_kb = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS:"))
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:  # closed meanwhile
            pass
    sockets = sum(t.startswith("socket:") for t in targets)
    return rss_kb / 1024, len(targets) - sockets, sockets


async def person(base: str, name: str, pool: list[str], rng: random.Random, until: float, log: list, lost: list) -> None:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.post(f"{base}/api/login", json={"username": name, "password": ""}) as resp:
            assert resp.status == 200
        async with http.post(f"{base}/api/rooms/request", json={"username": BOT}) as resp:
            room = (await resp.json())["uid"]
        replies: asyncio.Queue = asyncio.Queue()

        async def listen() -> None:
            async with http.get(f"{base}/sse/rooms", timeout=aiohttp.ClientTimeout(total=None)) as resp:
                event = None
                async for raw in resp.content:
                    line = raw.decode().strip()
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:") and event == "MESSAGE":
                        data = json.loads(line[5:])
                        if data["roomId"] == room and data["authorAlias"] == BOT and data.get("inReplyTo") is not None:
                            replies.put_nowait(data["inReplyTo"])

        listener = asyncio.create_task(listen())
        await asyncio.sleep(0.5)
        while time.monotonic() < until:
            question = rng.choice(FOLLOW_UPS) if log and rng.random() < 0.15 else rng.choice(pool)
            sent = time.perf_counter()
            async with http.post(f"{base}/api/room/{room}", data=question.encode()) as resp:
                ordinal = (await resp.json())["ordinal"]
            try:
                while (await asyncio.wait_for(replies.get(), 120)) != ordinal:
                    pass
                log.append((time.monotonic(), time.perf_counter() - sent))
            except TimeoutError:
                lost.append((name, question))
            await asyncio.sleep(rng.uniform(0.5, 3.0))  # think time
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)


async def soak(args) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        port = args.port or 18000 + random.randrange(1000)
        env = {**os.environ, "SOAK_BOT_PASSWORD": secrets.token_urlsafe(12)}
        command = [sys.executable, __file__, "--serve", "--port", str(port), "--db", f"{tmp}/chat.sqlite3", "--pool", f"{tmp}/pool.json",
                   "--seed", str(args.seed)] + (["--no-llm"] if args.no_llm else []) + (["--kg", args.kg] if args.kg else []) \
            + (["--config", args.config] if args.config else [])
        child_log = open(f"{tmp}/child.log", "w")  # noqa: SIM115 - open while the child runs
        child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=child_log, text=True)
        try:
            line = child.stdout.readline()
            if line.strip() != "serving":
                raise RuntimeError(f"the chatroom did not start (exit {child.poll()})")
            pool = json.loads(Path(f"{tmp}/pool.json").read_text())
            base = f"http://127.0.0.1:{port}"
            started = time.monotonic()
            until = started + args.minutes * 60
            log: list = []
            lost: list = []
            people = [asyncio.create_task(person(base, f"soak{i}", pool, random.Random(f"{args.seed}-{i}"), until, log, lost))
                      for i in range(args.people)]
            idle_before = sample(child.pid)
            samples = [(0.0, *idle_before, 0)]
            print(f"soak: {args.people} people, {args.minutes} min, LLM phrasing {'off' if args.no_llm else 'on'}; child pid {child.pid}")
            print(f"  {'min':>4} {'RSS MB':>8} {'files':>5} {'sockets':>7} {'replies':>8} {'p95 ms':>7}")
            print(f"  {0:>4.1f} {samples[0][1]:>8.1f} {samples[0][2]:>5} {samples[0][3]:>7} {0:>8} {'':>7}", flush=True)
            minute = 1
            while time.monotonic() < until + 1:
                await asyncio.sleep(max(0.0, started + minute * args.sample_s - time.monotonic()))
                rss, files, sockets = sample(child.pid)
                recent = sorted(latency for at, latency in log if at > started + (minute - 1) * args.sample_s)
                p95 = f"{recent[int(0.95 * (len(recent) - 1))] * 1000:.0f}" if recent else "-"
                at = minute * args.sample_s / 60
                samples.append((at, rss, files, sockets, len(log)))
                print(f"  {at:>4.1f} {rss:>8.1f} {files:>5} {sockets:>7} {len(log):>8} {p95:>7}", flush=True)
                minute += 1
                if time.monotonic() > until:
                    break
            await asyncio.gather(*people)
            await asyncio.sleep(SSE_KEEPALIVE_S + 5)  # a closed event stream is noticed at its next keep-alive write
            idle_after = sample(child.pid)
        finally:
            child.send_signal(signal.SIGTERM)
            child.wait(60)
            child_log.close()
        warnings = Path(f"{tmp}/child.log").read_text(errors="replace").splitlines()
    warm = next((s for s in samples if s[0] >= args.warmup and s[0] > 0), samples[-1])  # a sample under load
    last = samples[-1]
    growth = (last[1] - warm[1]) / warm[1] * 100
    latencies = sorted(latency for _, latency in log) or [0.0]
    print(f"  after the {args.warmup}-minute warm-up: RSS {warm[1]:.1f} -> {last[1]:.1f} MB ({growth:+.1f} %), "
          f"files {warm[2]} -> {last[2]} ({last[2] - warm[2]:+d}); max RSS {max(s[1] for s in samples):.1f} MB")
    # idle sockets: the listening one plus the bot's own keep-alive connections to its chatroom (both ends are in
    # the child), which the load may leave a few more of; growth during the load would be a leak
    print(f"  idle before -> after the load: files {idle_before[1]} -> {idle_after[1]}, sockets {idle_before[2]} -> {idle_after[2]}; "
          f"sockets under load {warm[3]} -> {last[3]}")
    print(f"  replies {len(log)}  lost {len(lost)}  latency median {statistics.median(latencies) * 1000:.0f} ms  "
          f"p95 {latencies[int(0.95 * (len(latencies) - 1))] * 1000:.0f} ms; the server logged {len(warnings)} lines "
          f"({sum('fell back to the template' in w for w in warnings)} phrasing fallbacks)")
    fd_growth = last[2] > warm[2] or idle_after[1] > idle_before[1] or last[3] > warm[3]
    return 0 if growth <= 5.0 and not fd_growth and not lost else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--warmup", type=float, default=5, help="minutes before the RSS baseline is taken")
    parser.add_argument("--sample-s", type=float, default=60, help="seconds between samples")
    parser.add_argument("--no-llm", action="store_true", help="leave LLM phrasing off")
    parser.add_argument("--kg", help="bundle folder (default: the demo KG)")
    parser.add_argument("--config", help="TOML config file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # the child process
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--pool", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args)
    else:
        sys.exit(asyncio.run(soak(args)))


if __name__ == "__main__":
    main()

"""Hostile input on the built-in chatroom: does every message still get exactly one reply, in order, with no 5xx?

N people, each in a room of their own and in shared rooms, post seeded hostile messages
(random Unicode, control characters, NUL, right-to-left overrides, 2,000-character inputs,
SPARQL / HTML / template fragments, mentions, plus invalid ones: empty, too long, invalid
UTF-8) while another client abuses the protocol (bad JSON, wrong types, oversized bodies,
forged and ended tokens, other people's rooms, `since` garbage, path traversal on /images/
and /static/). Each person keeps a few messages in flight and hears the replies on the event
stream. At the end the rooms are read as the bot sees them: every question it could see must
have exactly one reply (`inReplyTo`), in question order.

    .venv/bin/python bench/chat_fuzz.py                       # 10,000 messages, 8 people, LLM phrasing off
    .venv/bin/python bench/chat_fuzz.py --messages 1000 --people 4

Exit status 1 when anything was lost, duplicated, out of order, or answered with a 5xx.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from yarl import URL

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.agent import Agent  # noqa: E402
from bot.chat.chatroom import Chatroom  # noqa: E402
from bot.chat.server import MAX_MESSAGE_CHARS, MENTION, ChatroomConfig  # noqa: E402
from bot.core.config import load_settings  # noqa: E402
from bot.dialogue.dialogue import Dialogue  # noqa: E402

BOT = "moviebot"
BOT_PASSWORD = secrets.token_urlsafe(12)
NAMES = ["Ann", "Zoë", "李雷", "O'Brien", "Jean-Luc", "Ørjan", "Δήμητρα", "user.7", "محمد", "Bob", "Eve", "Ana María"]
QUESTIONS = ["Who directed Good Will Hunting?", "When was Milk released?", "Who starred in Heat?", "What genre is Hamlet?",
             "Recommend movies like Elephant", "Who wrote The Godfather?", "Show me a picture of Tom Hanks", "hi", "thanks!"]
SPARQL = ["SELECT * WHERE { ?s ?p ?o }", "} UNION { ?s ?p ?o } #", "\" . ?x <http://x> \"", "DROP ALL; CLEAR DEFAULT",
          "PREFIX wd: <http://www.wikidata.org/entity/> SELECT ?x WHERE { wd:Q1 ?p ?x } LIMIT 100000000",
          "Who directed <http://evil.invalid/> ?", "FILTER(regex(?l, \".*\")) }}}"]
HTML = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "\"><svg onload=alert(1)>", "<a href=\"javascript:x\">",
        "</textarea><b>bold</b>", "&lt;&amp;&#0;", "<iframe src=//evil.invalid>", "javascript:alert(1)"]
TEMPLATE = ["{{7*7}}", "${jndi:ldap://x}", "{0.__class__.__mro__}", "%s%s%n%x", "{film}", "{{ config }}", "#{1+1}", "\\x00\\u0000"]
CONTROL = [chr(c) for c in [*range(0, 32), 127, *range(0x80, 0xA0)]]
BIDI = ["\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u202c", "\u200f", "\u200e", "\u061c"]
PLANES = [(0x20, 0x7E), (0xA0, 0x24F), (0x300, 0x36F), (0x370, 0x3FF), (0x590, 0x6FF), (0x900, 0x97F), (0x200B, 0x200F),
          (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0xE000, 0xF8FF), (0xFE00, 0xFE0F), (0x1F300, 0x1FAFF), (0x10000, 0x10FFF),
          (0xE0000, 0xE007F)]


def random_unicode(rng: random.Random, n: int) -> str:
    return "".join(chr(rng.randint(*rng.choice(PLANES))) for _ in range(n))


def hostile(rng: random.Random, others: list[str]) -> tuple[str, bytes]:
    """(kind, body) of one seeded message; kinds starting with 'bad-' must be refused with 400."""
    q = rng.choice(QUESTIONS)
    kind = rng.choices(
        ["question", "unicode", "control", "bidi", "long", "sparql", "html", "template", "mention", "mixed",
         "bad-empty", "bad-too-long", "bad-utf8"],
        weights=[14, 12, 10, 8, 6, 8, 8, 8, 8, 10, 3, 3, 2])[0]
    if kind == "question":
        text = q
    elif kind == "unicode":
        text = random_unicode(rng, rng.randint(1, 400))
    elif kind == "control":
        text = "".join(rng.choice(CONTROL) if rng.random() < 0.4 else c for c in q) + "\x00" * rng.randint(0, 3)
    elif kind == "bidi":
        text = rng.choice(BIDI) + q + rng.choice(BIDI) + random_unicode(rng, 5)
    elif kind == "long":
        text = (q + " " + random_unicode(rng, 20) + " ") * 80
        text = text[: rng.randint(MAX_MESSAGE_CHARS - 100, MAX_MESSAGE_CHARS)]
    elif kind == "sparql":
        text = rng.choice(["Who directed ", "", "When was "]) + rng.choice(SPARQL)
    elif kind == "html":
        text = rng.choice(HTML) + " " + q
    elif kind == "template":
        text = q.replace("?", "") + " " + rng.choice(TEMPLATE)
    elif kind == "mention":
        text = f"@{rng.choice([BOT, *others, 'nobody', BOT + '.'])} {q}"
    elif kind == "mixed":
        parts = [q, rng.choice(SPARQL), rng.choice(HTML), rng.choice(TEMPLATE), random_unicode(rng, 30), rng.choice(BIDI),
                 rng.choice(CONTROL)]
        rng.shuffle(parts)
        text = " ".join(parts)
    elif kind == "bad-empty":
        text = rng.choice(["", " ", "\n\t  ", "\u3000\u2003"])
    elif kind == "bad-too-long":
        text = "x" * rng.randint(MAX_MESSAGE_CHARS + 1, MAX_MESSAGE_CHARS + 3000)
    else:
        return kind, rng.choice([b"\xff\xfe", b"Who \xc3( directed", b"\xed\xa0\x80 surrogate", b"ok \x80\x80\x80"])
    return kind, text.encode("utf-8")


@dataclass
class Tally:
    statuses: Counter = field(default_factory=Counter)  # people's posts by status
    kinds: Counter = field(default_factory=Counter)
    misjudged: list = field(default_factory=list)  # a bad message accepted or a good one refused
    abuse: Counter = field(default_factory=Counter)  # (case, status)
    leaks: list = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)  # transport errors
    latencies: list = field(default_factory=list)
    expected: set = field(default_factory=set)  # (room, ordinal) the bot can see, by the bench's own reckoning


class Person:
    def __init__(self, base: str, name: str):
        self.base, self.name = base, name
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar(), timeout=aiohttp.ClientTimeout(total=None))
        self.token = ""
        self.rooms: dict[str, set[str]] = {}  # uid -> aliases
        self.sent: dict[tuple[str, int], float] = {}  # awaiting a reply: key -> perf_counter at posting
        self.replied: dict[tuple[str, int], float] = {}  # key -> perf_counter at the reply event
        self.progress = asyncio.Event()
        self.listener: asyncio.Task | None = None

    async def call(self, method: str, path: str, **kwargs) -> tuple[int, dict]:
        params = {**kwargs.pop("params", {}), "session": self.token}
        async with self.http.request(method, self.base + path, params=params, **kwargs) as resp:
            text = await resp.text(errors="replace")
            try:
                return resp.status, json.loads(text)
            except json.JSONDecodeError:
                return resp.status, {"raw": text[:200]}

    async def login(self) -> None:
        status, body = await self.call("POST", "/api/login", json={"username": self.name, "password": ""})
        assert status == 200, body
        self.token = body["sessionToken"]

    async def listen(self, ready: asyncio.Event) -> None:
        async with self.http.get(f"{self.base}/sse/rooms", params={"session": self.token}) as resp:
            ready.set()
            event = None
            async for raw in resp.content:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event == "MESSAGE":
                    data = json.loads(line[5:])
                    key = (data["roomId"], data.get("inReplyTo"))
                    if data["authorAlias"] == BOT and key in self.sent and key not in self.replied:
                        self.replied[key] = time.perf_counter()
                        self.progress.set()

    def waiting(self) -> int:
        return sum(1 for key in self.sent if key not in self.replied)

    async def close(self) -> None:
        if self.listener:
            self.listener.cancel()
            await asyncio.gather(self.listener, return_exceptions=True)
        await self.http.close()


async def chat(person: Person, count: int, rng: random.Random, window: int, tally: Tally, deadline: float) -> None:
    rooms = list(person.rooms)
    own = rooms[0]
    for _ in range(count):
        while person.waiting() >= window and time.monotonic() < deadline:
            person.progress.clear()
            try:
                await asyncio.wait_for(person.progress.wait(), 5)
            except TimeoutError:
                pass
        room = own if rng.random() < 0.7 or len(rooms) == 1 else rng.choice(rooms[1:])
        others = sorted(person.rooms[room] - {person.name})
        kind, body = hostile(rng, others)
        tally.kinds[kind] += 1
        try:
            sent = time.perf_counter()
            status, answer = await person.call("POST", f"/api/room/{room}", data=body,
                                               headers={"Content-Type": "text/plain; charset=utf-8"})
        except aiohttp.ClientError as exc:
            tally.errors[type(exc).__name__] += 1
            continue
        tally.statuses[status] += 1
        if (status == 200) == kind.startswith("bad-"):
            tally.misjudged.append((kind, status, body[:60]))
        if status != 200:
            continue
        text = body.decode("utf-8")
        recipients = {m for m in MENTION.findall(text) if m in person.rooms[room] and m != person.name}
        if not recipients or BOT in recipients:  # a message routed privately to someone else is not the bot's to answer
            key = (room, answer["ordinal"])
            tally.expected.add(key)
            person.sent[key] = sent


async def abuse(base: str, people: list[Person], rng: random.Random, rounds: int, tally: Tally, secret: str) -> None:
    """Protocol abuse by a client of its own; every answer must be a 4xx, never a 5xx, never a leaked file."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
        async def req(case: str, method: str, path: str | URL, token: str | None = None, **kwargs) -> None:
            url = path if isinstance(path, URL) else URL(base + path)
            if token is not None:
                url = url.update_query(session=token)
            try:
                async with http.request(method, url, **kwargs) as resp:
                    text = await resp.text(errors="replace")
                    tally.abuse[(case, resp.status)] += 1
                    if secret in text or "def " in text or "import " in text:
                        tally.leaks.append((case, str(url)))
            except aiohttp.ClientError as exc:
                tally.errors[f"abuse {type(exc).__name__}"] += 1

        status_token = {}
        async with http.post(base + "/api/login", json={"username": "Mallory", "password": ""}) as resp:
            status_token["live"] = (await resp.json())["sessionToken"]
        async with http.post(base + "/api/login", json={"username": "Mallory", "password": ""}) as resp:
            ended = (await resp.json())["sessionToken"]
        await http.get(base + "/api/logout", params={"session": ended})
        mallory = status_token["live"]
        async with http.post(base + "/api/rooms/request", params={"session": mallory}, json={"username": BOT}) as resp:
            own_room = (await resp.json())["uid"]
        traversal = ["../secret.txt", "..%2fsecret.txt", "%2e%2e/secret.txt", "%2e%2e%2fsecret.txt", "....//secret.txt",
                     "/etc/passwd", "%2fetc%2fpasswd", "..\\secret.txt", "a/../../secret.txt", "%252e%252e/secret.txt"]
        static = ["../server.py", "..%2fserver.py", "%2e%2e/history.py", "%2e%2e%2f%2e%2e%2fcore/config.py", "../../chat/server.py"]
        for _ in range(rounds):
            victim = rng.choice(people)
            room = rng.choice(list(victim.rooms))
            case = rng.randrange(16)
            if case == 0:
                await req("bad JSON login", "POST", "/api/login", data=b"{\"username\": ", headers={"Content-Type": "application/json"})
            elif case == 1:
                await req("wrong types login", "POST", "/api/login", json=rng.choice([{"username": 5}, {"username": ["a"]},
                                                                                       {"username": None, "password": {}}, [1, 2]]))
            elif case == 2:
                await req("wrong types request", "POST", "/api/rooms/request", mallory,
                          json=rng.choice([{"username": 5}, {"username": "\ud800"}, {"username": ""}, {"prompt": 7}, "x"]))
            elif case == 3:
                await req("wrong types reaction", "POST", f"/api/room/{room}/reaction", victim.token,
                          json=rng.choice([{"messageOrdinal": "0", "type": "STAR"}, {"messageOrdinal": 2**70, "type": "STAR"},
                                           {"messageOrdinal": 0.5, "type": "STAR"}, {"messageOrdinal": True, "type": "STAR"},
                                           {"messageOrdinal": 0, "type": ["STAR"]}, {}]))
            elif case == 4:
                await req("oversized body", "POST", f"/api/room/{own_room}", mallory, data=b"x" * rng.randint(65 * 1024, 300 * 1024))
            elif case == 5:
                await req("invalid UTF-8 join", "PATCH", f"/api/request/{room}", mallory, data=b"\xff\xfe")
            elif case == 6:
                await req("forged token", rng.choice(["GET", "POST"]), rng.choice(["/api/rooms", f"/api/room/{room}"]),
                          secrets.token_urlsafe(24), data=b"hi")
            elif case == 7:
                await req("ended token", "GET", "/api/rooms", ended)
            elif case == 8:
                await req("other people's room: read", "GET", f"/api/room/{room}", mallory, params={"since": "0"})
            elif case == 9:
                await req("other people's room: post", "POST", f"/api/room/{room}", mallory, data=b"let me in")
            elif case == 10:
                await req("other people's room: close", "PATCH", f"/api/room/{room}", mallory)
            elif case == 11:
                await req("other people's room: invite", "PATCH", f"/api/request/{room}", mallory, data=victim.name.encode())
            elif case == 12:
                await req("since garbage", "GET", f"/api/room/{room}", victim.token,
                          params={"since": rng.choice(["abc", "1e9", "", "99999999999999999999999", "-1", "0x10", "１２", "nan"])})
            elif case == 13:
                await req("path traversal /images/", "GET", URL(base + "/images/" + rng.choice(traversal), encoded=True))
            elif case == 14:
                await req("path traversal /static/", "GET", URL(base + "/static/" + rng.choice(static), encoded=True))
            else:
                await req("deep JSON", "POST", "/api/rooms/request", mallory, data=b"[" * 100_000,
                          headers={"Content-Type": "application/json"})
            await asyncio.sleep(0)


async def bot_view(base: str, rooms: list[str]) -> dict[str, list[dict]]:
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{base}/api/login", json={"username": BOT, "password": BOT_PASSWORD}) as resp:
            token = (await resp.json())["sessionToken"]
        view = {}
        for room in rooms:
            async with http.get(f"{base}/api/room/{room}", params={"since": "0", "session": token}) as resp:
                view[room] = (await resp.json())["messages"]
        return view


def audit(view: dict[str, list[dict]]) -> dict[str, int]:
    """Per room: each question the bot saw answered exactly once (first parts carry inReplyTo), in question order."""
    lost = duplicated = disordered = questions = replies = 0
    for messages in view.values():
        asked = [m["ordinal"] for m in messages if m["authorAlias"] != BOT]
        answers = [m["inReplyTo"] for m in messages if m["authorAlias"] == BOT and m.get("inReplyTo") is not None]
        counts = Counter(answers)
        questions += len(asked)
        replies += len(answers)
        lost += sum(1 for q in asked if counts[q] == 0)
        duplicated += sum(n - 1 for n in counts.values() if n > 1)
        highest = -1
        for a in answers:
            disordered += a < highest
            highest = max(highest, a)
    return {"questions": questions, "replies": replies, "lost": lost, "duplicated": duplicated, "out_of_order": disordered}


async def run(args) -> int:
    settings = load_settings(args.config).with_overrides(**({"kg": args.kg} if args.kg else {}))
    if not args.llm:
        settings = settings.without("phrasing")
    agent = Agent.from_settings(settings)
    agent.wait_ready()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        images = Path(tmp, "images")
        images.mkdir()
        (images / "poster.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
        secret = secrets.token_hex(16)
        Path(tmp, "secret.txt").write_text(secret)
        config = ChatroomConfig(db_path=f"{tmp}/chat.sqlite3", port=0, bot_password=BOT_PASSWORD, images_dir=str(images),
                                rate_per_minute=args.rate)
        chatroom = Chatroom(Dialogue(agent).reply, config, workers=settings.chat_workers)
        base = await chatroom.start()
        people = [Person(base, NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else str(i))) for i in range(args.people)]
        tally = Tally()
        try:
            for person in people:
                await person.login()
                status, created = await person.call("POST", "/api/rooms/request", json={"username": BOT})
                person.rooms[created["uid"]] = {person.name, BOT}
            shared = []
            for s in range(args.shared_rooms):
                host = people[s % len(people)]
                _, created = await host.call("POST", "/api/rooms/request", json={"username": BOT})
                members = {host.name, BOT} | {p.name for p in rng.sample(people, min(len(people), 3))}
                for person in people:
                    if person.name in members and person is not host:
                        await person.call("PATCH", f"/api/request/{created['uid']}", data=person.name.encode())
                for person in people:
                    if person.name in members:
                        person.rooms[created["uid"]] = members
                shared.append(created["uid"])
            for person in people:
                ready = asyncio.Event()
                person.listener = asyncio.create_task(person.listen(ready))
                await asyncio.wait_for(ready.wait(), 10)
            shares = [args.messages // len(people) + (i < args.messages % len(people)) for i in range(len(people))]
            started = time.perf_counter()
            deadline = time.monotonic() + args.timeout
            await asyncio.gather(
                *(chat(p, n, random.Random(f"{args.seed}-{i}"), args.window, tally, deadline) for i, (p, n) in enumerate(zip(people, shares))),
                abuse(base, people, random.Random(f"{args.seed}-abuse"), args.abuse, tally, secret))
            while any(p.waiting() for p in people) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            wall = time.perf_counter() - started
            await asyncio.sleep(2.0)  # late duplicates would arrive now
            tally.latencies = [p.replied[k] - t for p in people for k, t in p.sent.items() if k in p.replied]
            rooms = sorted({uid for p in people for uid in p.rooms})
            view = await bot_view(base, rooms)
        finally:
            for person in people:
                await person.close()
            await chatroom.stop()
    result = audit(view)
    seen_by_bot = {(room, m["ordinal"]) for room, ms in view.items() for m in ms if m["authorAlias"] != BOT}
    fivexx = sum(n for s, n in tally.statuses.items() if s >= 500) + sum(n for (_, s), n in tally.abuse.items() if s >= 500)
    n = len(tally.latencies)
    ordered = sorted(tally.latencies) or [0.0]
    stats = chatroom.runner.stats
    print(f"chat fuzz: {args.people} people, {args.shared_rooms} shared rooms, {args.messages} messages (seed {args.seed}), "
          f"{args.abuse} protocol-abuse requests, LLM phrasing {'on' if args.llm else 'off'}, KG {agent.kg.bundle.name}")
    print(f"  posted: accepted {tally.statuses[200]}  rejected {sum(v for s, v in tally.statuses.items() if s != 200)} "
          f"by status {dict(sorted((s, v) for s, v in tally.statuses.items() if s != 200))}  transport errors {dict(tally.errors)}")
    print(f"  message kinds: {dict(sorted(tally.kinds.items()))}")
    print(f"  misjudged (a bad message accepted or a good one refused): {len(tally.misjudged)} {tally.misjudged[:5]}")
    print(f"  bot saw {result['questions']} questions (the bench expected {len(tally.expected)}; "
          f"mismatch {len(seen_by_bot ^ tally.expected)}): replies {result['replies']}  lost {result['lost']}  "
          f"duplicated {result['duplicated']}  out of order {result['out_of_order']}  5xx {fivexx}")
    print(f"  runner: answered {stats.answered}  answering failed {stats.failed}  short reply instead {stats.substituted}  "
          f"undelivered {stats.undelivered}")
    abuse_by_case = defaultdict(dict)
    for (case, status), count in sorted(tally.abuse.items()):
        abuse_by_case[case][status] = count
    print("  protocol abuse (case: status x count):")
    for case, counts in abuse_by_case.items():
        print(f"    {case}: {counts}")
    print(f"  leaked files: {len(tally.leaks)} {tally.leaks[:3]}")
    print(f"  wall {wall:.1f} s  throughput {result['replies'] / wall:.1f} replies/s  "
          f"reply latency (heard on the event stream) median {statistics.median(ordered) * 1000:.0f} ms  "
          f"p95 {ordered[int(0.95 * (len(ordered) - 1))] * 1000:.0f} ms  max {ordered[-1] * 1000:.0f} ms  ({n} timed)")
    bad = result["lost"] or result["duplicated"] or result["out_of_order"] or fivexx or tally.leaks or tally.misjudged \
        or seen_by_bot != tally.expected
    return 1 if bad else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000, help="messages posted by the people in all")
    parser.add_argument("--people", type=int, default=8)
    parser.add_argument("--shared-rooms", type=int, default=3)
    parser.add_argument("--abuse", type=int, default=2_000, help="protocol-abuse requests")
    parser.add_argument("--window", type=int, default=4, help="messages a person keeps waiting for a reply")
    parser.add_argument("--rate", type=int, default=100_000, help="the chatroom's requests per client and minute")
    parser.add_argument("--timeout", type=float, default=3600, help="give up waiting for replies after this many seconds")
    parser.add_argument("--llm", action="store_true", help="phrase with the local LLM (slower)")
    parser.add_argument("--kg", help="bundle folder (default: the demo KG)")
    parser.add_argument("--config", help="TOML config file")
    parser.add_argument("--seed", type=int, default=0)
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()

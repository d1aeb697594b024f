"""The Speakeasy connector: the bot as a user of a Speakeasy server (the course platform or our chatroom).

It listens to the server-sent event stream (`/sse/rooms`) and polls as a fallback (the
public platform refuses event streams to bots; polling also catches anything a dropped
stream missed). Messages are answered exactly once: per room it remembers, in a small JSON
state file, the ordinal of the last answered question and the one being answered, so a
restart neither repeats nor loses a message (the room history shows whether a reply in
flight at the crash reached the room).

It reads what the platform sends and nothing more: rooms from GET /api/rooms or from ROOMS
events (whichever comes first), messages with `read` or the older `isRead` (neither is
needed). A reply is never dropped for its size: its text goes out in 2,000-character parts,
and on our chatroom the structured reply that rides along with the first part sheds its trace,
facts and entities until the request fits the server's body limit.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from bot.core.contracts import Message, Reply

from .connector import Connector
from .render import split_text, without_mentions
from .runner import Runner

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 2000
MAX_BODY_BYTES = 64 * 1024  # the chatroom's request body limit (bot/chat/server.py)
REPLY_TYPE = "application/vnd.moviebot.reply+json"
# What a structured reply sheds, in this order, until its request fits MAX_BODY_BYTES
SHED_ORDER = (("trace",), ("facts",), ("entities", "answers"), ("reply",))
SAFETY_POLL_S = 15.0  # polling interval while the event stream is live
MAX_BACKOFF_S = 30.0
POST_ATTEMPTS = 6


class SpeakeasyError(RuntimeError):
    """The server refused a request (bad credentials, unknown room, ...)."""

    def __init__(self, text: str, status: int = 0):
        super().__init__(text)
        self.status = status


@dataclass
class RoomState:
    answered: int = -1  # every question up to this ordinal has been answered
    pending: int | None = None  # the question whose reply is being posted


@dataclass
class ConnectorState:
    """Per room what was answered; saved atomically after every change."""

    path: Path
    rooms: dict[str, RoomState] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> ConnectorState:
        state = cls(path)
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            state.rooms = {uid: RoomState(**room) for uid, room in data.get("rooms", {}).items()}
        return state

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        data = {"rooms": {uid: {"answered": r.answered, "pending": r.pending} for uid, r in self.rooms.items()}}
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, self.path)


@dataclass
class RoomView:
    """What the connector knows about one room in this run."""

    uid: str
    alias: str  # the bot's alias in the room
    active: bool = True
    synced: bool = False  # history reconciled with the saved state
    since: int = 0  # timestamp (ms) of the newest message seen
    last_ordinal: int = -1  # the newest message seen
    submitted: set[int] = field(default_factory=set)  # ordinals handed to the runner in this run
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class SpeakeasyConnector(Connector):
    """Relays the rooms of one Speakeasy account to a Runner."""

    def __init__(self, base_url: str, username: str, password: str, runner: Runner, state_path: Path,
                 poll_s: float = 2.0, use_events: bool = True):
        self.base_url = base_url.rstrip("/")
        self.username = username
        self.password = password
        self.runner = runner
        self.state = ConnectorState.load(Path(state_path))
        self.poll_s = poll_s
        self.use_events = use_events
        self.rooms: dict[str, RoomView] = {}
        self.token = ""
        self.reply_json = False  # the server shows structured replies (our chatroom)
        self.events_live = False
        self._http: aiohttp.ClientSession | None = None
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self._query_since = True  # `/api/room/{uid}?since=`; older servers use `/api/room/{uid}/{since}`

    # --- lifecycle -----------------------------------------------------------------------

    async def run(self) -> None:
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=None))
        try:
            await self.login()
            self._tasks = [asyncio.create_task(self._poll_loop())]
            if self.use_events:
                self._tasks.append(asyncio.create_task(self._event_loop()))
            await self._stop.wait()
        finally:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self.runner.drain()
            await self._http.close()

    async def stop(self) -> None:
        self._stop.set()

    # --- HTTP ----------------------------------------------------------------------------

    async def login(self) -> None:
        async with self._http.post(f"{self.base_url}/api/login", json={"username": self.username, "password": self.password}) as resp:
            data = await _json(resp)
            if resp.status != 200:
                raise SpeakeasyError(f"login as {self.username} failed: {data.get('description', resp.status)}")
        self.token = data["sessionToken"]
        self.reply_json = bool((data.get("moviebot") or {}).get("replyJson"))
        log.info("logged in to %s as %s", self.base_url, self.username)

    async def _request(self, method: str, path: str, **kwargs) -> tuple[int, dict]:
        """One API call with the session token; logs in again once when the session expired."""
        extra_params = kwargs.pop("params", {})
        for attempt in (1, 2):
            params = {**extra_params, "session": self.token}
            async with self._http.request(method, self.base_url + path, params=params, **kwargs) as resp:
                data = await _json(resp)
                if resp.status == 401 and attempt == 1 and "Unauthorized" in str(data.get("description", "")):
                    await self.login()
                    continue
                return resp.status, data
        return 401, {}

    # --- receiving -----------------------------------------------------------------------

    async def _poll_loop(self) -> None:
        backoff = 1.0
        while not self._stop.is_set():
            try:
                await self.sync_rooms()
                backoff = 1.0
                await asyncio.sleep(SAFETY_POLL_S if self.events_live else self.poll_s)
            except (TimeoutError, aiohttp.ClientError, SpeakeasyError) as exc:
                log.warning("polling %s failed (%s); retrying in %.0f s", self.base_url, exc, backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)

    async def sync_rooms(self) -> None:
        status, data = await self._request("GET", "/api/rooms")
        if status != 200:
            raise SpeakeasyError(f"listing rooms: {data.get('description', status)}")
        self._update_rooms(data.get("rooms", []))
        for room in list(self.rooms.values()):
            if room.active:
                await self.sync_room(room)

    def _update_rooms(self, infos: list[dict]) -> list[RoomView]:
        changed = []
        for info in infos:
            uid = info["uid"]
            room = self.rooms.get(uid)
            if room is None:
                room = self.rooms[uid] = RoomView(uid, info.get("alias") or self.username)
            room.alias = info.get("alias") or room.alias
            room.active = info.get("remainingTime", 0) > 0
            changed.append(room)
        return changed

    async def sync_room(self, room: RoomView) -> None:
        async with room.lock:
            status, data = await self._fetch_messages(room)
            if status == 404:
                room.active = False
                return
            if status != 200:
                raise SpeakeasyError(f"reading room {room.uid}: {data.get('description', status)}")
            messages = sorted(data.get("messages", []), key=lambda m: m["ordinal"])
            if not room.synced:
                self._reconcile(room, messages)
                room.synced = True
            self._handle(room, messages)

    async def _fetch_messages(self, room: RoomView) -> tuple[int, dict]:
        if self._query_since:
            status, data = await self._request("GET", f"/api/room/{room.uid}", params={"since": str(room.since)})
            if status not in (404, 405):
                return status, data
            self._query_since = False
            log.info("%s has no ?since= route; using /api/room/{uid}/{since}", self.base_url)
        return await self._request("GET", f"/api/room/{room.uid}/{room.since}")

    def _reconcile(self, room: RoomView, messages: list[dict]) -> None:
        """After a start, decide from the room's history what was already answered."""
        own = [m["ordinal"] for m in messages if m.get("authorAlias") == room.alias]
        state = self.state.rooms.get(room.uid)
        if state is None:  # a room this bot has no record of: answer what came after its last message
            state = self.state.rooms[room.uid] = RoomState(answered=max(own, default=-1))
        elif state.pending is not None:
            if any(o > state.pending for o in own):  # the reply in flight at the stop reached the room
                state.answered = max(state.answered, state.pending)
            state.pending = None
        self.state.save()

    def _handle(self, room: RoomView, messages: list[dict]) -> None:
        state = self.state.rooms[room.uid]
        for m in messages:
            room.since = max(room.since, int(m.get("timeStamp", 0)))
            ordinal = m["ordinal"]
            room.last_ordinal = max(room.last_ordinal, ordinal)
            if m.get("authorAlias") == room.alias or ordinal <= state.answered or ordinal in room.submitted:
                continue
            room.submitted.add(ordinal)
            message = Message(room.uid, m.get("authorAlias", ""), m.get("message", ""), m.get("timeStamp", 0) / 1000)
            self.runner.submit(message, lambda msg, reply, o=ordinal: self._deliver(msg, reply, o))

    async def _event_loop(self) -> None:
        backoff = 1.0
        while not self._stop.is_set():
            try:
                await self._read_events()
                backoff = 1.0
            except (TimeoutError, aiohttp.ClientError, SpeakeasyError, ValueError) as exc:
                log.info("event stream of %s unavailable (%s); polling, reconnecting in %.0f s", self.base_url, exc, backoff)
            finally:
                self.events_live = False
            await asyncio.sleep(backoff * (1 + random.random() / 4))
            backoff = min(backoff * 2, MAX_BACKOFF_S)

    async def _read_events(self) -> None:
        async with self._http.get(f"{self.base_url}/sse/rooms", params={"session": self.token},
                                  headers={"Accept": "text/event-stream"}) as resp:
            if resp.status != 200:
                raise SpeakeasyError(f"status {resp.status}")
            self.events_live = True
            event, data = "", []
            async for raw in resp.content:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith(":"):
                    continue
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())
                elif not line and event:
                    await self._on_event(event, json.loads("\n".join(data)) if data else {})
                    event, data = "", []

    async def _on_event(self, event: str, data) -> None:
        if event == "ROOMS":
            for room in self._update_rooms(data.get("rooms", [])):
                if room.active and not room.synced:
                    await self.sync_room(room)
        elif event == "MESSAGE":
            room = self.rooms.get(data.get("roomId"))
            if room is None:
                await self.sync_rooms()
            elif room.synced and data.get("ordinal") == room.last_ordinal + 1:
                self._handle(room, [data])
            else:  # not reconciled yet, or a gap (a missed event): read the room's history instead
                await self.sync_room(room)
        elif event == "REACTION":
            log.info("reaction %s to message %s in room %s", data.get("type"), data.get("messageOrdinal"), data.get("roomId"))

    # --- sending -------------------------------------------------------------------------

    async def deliver(self, message: Message, reply: Reply) -> None:
        """Post a reply that answers no tracked question (the Connector interface)."""
        await self._post_reply(message.room, reply)

    async def _deliver(self, message: Message, reply: Reply, ordinal: int) -> None:
        state = self.state.rooms.setdefault(message.room, RoomState())
        state.pending = ordinal
        self.state.save()
        await self._post_reply(message.room, reply, ordinal)
        state.answered = max(state.answered, ordinal)
        state.pending = None
        self.state.save()

    async def _post_reply(self, room_uid: str, reply: Reply, ordinal: int | None = None) -> None:
        parts = split_text(without_mentions(reply.text), MAX_MESSAGE_CHARS) or ["…"]
        for n, part in enumerate(parts):
            if self.reply_json:
                await self._post_structured(room_uid, part, reply if n == 0 else None, ordinal if n == 0 else None)
            else:
                kwargs = {"data": part.encode("utf-8"), "headers": {"Content-Type": "text/plain; charset=utf-8"}}
                await self._post_with_retry(f"/api/room/{room_uid}", kwargs)

    async def _post_structured(self, room_uid: str, part: str, reply: Reply | None, ordinal: int | None) -> None:
        """One part as our chatroom's reply JSON, shedding what does not fit (or what the server calls too large)."""
        bodies = list(structured_bodies(part, reply.to_json() if reply is not None else None, ordinal))
        for n, (shed, body) in enumerate(bodies):
            if len(body) > MAX_BODY_BYTES and n < len(bodies) - 1:
                continue
            try:
                await self._post_with_retry(f"/api/room/{room_uid}", {"data": body, "headers": {"Content-Type": REPLY_TYPE}})
            except SpeakeasyError as exc:
                if exc.status == 413 and n < len(bodies) - 1:
                    continue
                raise
            if shed:
                log.warning("the reply to message %s in room %s was trimmed to fit the server: left out %s (%d -> %d bytes)",
                            ordinal, room_uid, ", ".join(shed), len(bodies[0][1]), len(body))
            return

    async def _post_with_retry(self, path: str, kwargs: dict) -> None:
        delay = 0.5
        for attempt in range(1, POST_ATTEMPTS + 1):
            try:
                status, data = await self._request("POST", path, **dict(kwargs))
                if status == 200:
                    return
                if status not in (429, 500, 502, 503, 504):
                    raise SpeakeasyError(f"posting to {path}: {data.get('description', status)}", status)
            except (TimeoutError, aiohttp.ClientError) as exc:
                if attempt == POST_ATTEMPTS:
                    raise
                log.warning("posting to %s failed (%s); retrying", path, exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_BACKOFF_S)
        raise SpeakeasyError(f"posting to {path}: gave up after {POST_ATTEMPTS} attempts")


def structured_bodies(part: str, reply: dict | None, ordinal: int | None):
    """(what was left out, request body) for a reply part: whole first, then shedding SHED_ORDER step by step."""
    body = {"message": part, "reply": reply, "inReplyTo": ordinal}
    shed: tuple[str, ...] = ()
    yield shed, json.dumps(body, ensure_ascii=False).encode()
    if reply is None:
        return
    reply = dict(reply)
    for keys in SHED_ORDER:
        shed += keys
        if keys == ("reply",):
            body = {"message": part, "reply": None, "inReplyTo": ordinal}
        else:
            for key in keys:
                reply[key] = []
            body = {"message": part, "reply": reply, "inReplyTo": ordinal}
        yield shed, json.dumps(body, ensure_ascii=False).encode()


async def _json(resp: aiohttp.ClientResponse) -> dict:
    try:
        data = await resp.json(content_type=None)
    except (json.JSONDecodeError, aiohttp.ContentTypeError, UnicodeDecodeError):
        return {"description": (await resp.text())[:200]}
    return data if isinstance(data, dict) else {"data": data}

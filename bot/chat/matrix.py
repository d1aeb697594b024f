"""The Matrix connector (matrix-nio): accepts invites and answers text messages in rooms.

Exactly once across restarts: after every sync the new questions are written to a small
inbox in the state file together with the sync token, in one atomic write; a question
leaves the inbox when its reply was sent. A restart re-submits the inbox, and a reply that
was sent just before the stop is not duplicated because it is re-sent with the same
transaction id by the same device (the saved access token), which the homeserver
deduplicates. End-to-end encrypted rooms are not supported.

Several replicas of one account (`replicas`, bot.chat.replicas): every replica keeps every
question in its inbox, but answers only the rooms it owns and only the questions it claimed;
when a replica dies its rooms move to the others, which take over its unanswered claims in
room order, after checking the room for a reply it sent just before it died.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from nio import (
    AsyncClient,
    AsyncClientConfig,
    LoginResponse,
    RoomMemberEvent,
    RoomMessagesResponse,
    RoomMessageText,
    RoomSendResponse,
    SyncResponse,
    WhoamiResponse,
)

from bot.core.contracts import Message, Reply

from .connector import Connector
from .render import reply_html
from .replicas import TAKEOVER, Replicas
from .runner import Runner

log = logging.getLogger(__name__)

SYNC_TIMEOUT_MS = 30_000
SYNC_FILTER = {"room": {"timeline": {"limit": 100}, "state": {"lazy_load_members": True}}, "presence": {"types": []}}
ANSWERED_KEPT = 200  # answered event ids remembered per room
GAP_PAGE, GAP_PAGES = 100, 20  # missed messages read back per room after a limited sync, at most 2,000
SEND_ATTEMPTS = 5
MAX_BACKOFF_S = 30.0


class MatrixError(RuntimeError):
    """The homeserver refused the login or a request."""


@dataclass
class Question:
    room: str
    event_id: str
    sender: str
    body: str
    ts: int  # origin_server_ts in ms


@dataclass
class MatrixState:
    """The session, the sync position and the questions not yet answered; saved atomically."""

    path: Path
    homeserver: str = ""
    user_id: str = ""
    device_id: str = ""
    access_token: str = ""
    next_batch: str = ""
    since_ts: int = 0  # messages older than the bot's first start are history, not questions
    inbox: list[Question] = field(default_factory=list)
    answered: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> MatrixState:
        state = cls(path)
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
            data["inbox"] = [Question(**q) for q in data.get("inbox", [])]
            for key, value in data.items():
                setattr(state, key, value)
        return state

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {k: v for k, v in asdict(self).items() if k != "path"}
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.chmod(tmp, 0o600)  # holds an access token
        os.replace(tmp, self.path)

    def is_answered(self, room: str, event_id: str) -> bool:
        return event_id in self.answered.get(room, ()) or any(q.event_id == event_id for q in self.inbox)

    def mark_answered(self, question: Question) -> None:
        self.inbox = [q for q in self.inbox if q.event_id != question.event_id]
        done = self.answered.setdefault(question.room, [])
        done.append(question.event_id)
        del done[:-ANSWERED_KEPT]


class MatrixConnector(Connector):
    """Relays the rooms of one Matrix account to a Runner."""

    def __init__(self, homeserver: str, user_id: str, runner: Runner, state_path: Path,
                 password: str = "", access_token: str = "", replicas: Replicas | None = None):
        self.homeserver = homeserver.rstrip("/")
        self.replicas = replicas
        self._submitted: set[str] = set()  # questions this process has given to the runner
        self._considering = asyncio.Lock()
        self.user_id = user_id
        self.password = password
        self.access_token = access_token
        self.runner = runner
        self.state = MatrixState.load(Path(state_path))
        self.client = AsyncClient(self.homeserver, user_id, config=AsyncClientConfig(encryption_enabled=False, request_timeout=60))
        self._stop = asyncio.Event()
        self.synced = asyncio.Event()  # set after the first successful sync (tests wait for it)

    async def run(self) -> None:
        beating = None
        try:
            await self.login()
            if self.replicas is None:
                for question in list(self.state.inbox):  # questions the previous run received but did not answer
                    self._submit(question)
            else:
                self.replicas.heartbeat()
                await self._consider()
                beating = asyncio.create_task(self._replica_loop())
            await self._sync_loop()
        finally:
            if beating is not None:
                beating.cancel()
                await asyncio.gather(beating, return_exceptions=True)
            await self.runner.drain()
            if self.replicas is not None:
                self.replicas.leave()
            await self.client.close()

    async def _replica_loop(self) -> None:
        """Heartbeat, and pick up the questions of rooms that became this replica's (a replica died)."""
        while True:
            await asyncio.sleep(self.replicas.lease_s / 4)
            try:
                self.replicas.heartbeat()
                await self._consider()
            except Exception as exc:  # noqa: BLE001 - a locked or unreadable shared file: try again next beat
                log.warning("replica %s: %s: %s", self.replicas.name, type(exc).__name__, exc)

    async def _consider(self) -> None:
        """Submit, in room order, the inbox's questions of the rooms this replica owns that it can claim;
        forget the ones another replica answered."""
        async with self._considering:
            replicas = self.replicas
            live = replicas.live()
            rooms: dict[str, list[Question]] = {}
            for question in sorted(self.state.inbox, key=lambda q: q.ts):
                rooms.setdefault(question.room, []).append(question)
            changed = False
            for room, questions in rooms.items():
                mine = replicas.owner(room, live) == replicas.name
                for question in questions:
                    if question.event_id in self._submitted:
                        continue
                    if replicas.is_answered(question.event_id):
                        self.state.mark_answered(question)
                        changed = True
                        continue
                    if not mine:
                        continue
                    outcome = replicas.claim(question.event_id, room)
                    if outcome is None:
                        break  # a live replica is answering it: the room's later questions wait, in order
                    if outcome == TAKEOVER and await self._replied_already(question):
                        log.info("%s was answered before a replica died; not answering it again", question.event_id)
                        replicas.answered(question.event_id)
                        self.state.mark_answered(question)
                        changed = True
                        continue
                    self._submitted.add(question.event_id)
                    self._submit(question)
            if changed:
                self.state.save()

    async def _replied_already(self, question: Question) -> bool:
        """Whether this account already replied to `question` in its room (read back from now to the question)."""
        token = self.state.next_batch
        for _ in range(GAP_PAGES):
            if not token:
                return False
            response = await self.client.room_messages(question.room, start=token, limit=GAP_PAGE)
            if not isinstance(response, RoomMessagesResponse):
                raise MatrixError(f"cannot read {question.room} back: {response}")
            for event in response.chunk:  # newest first
                if event.event_id == question.event_id:
                    return False
                relates = event.source.get("content", {}).get("m.relates_to", {})
                if event.sender == self.client.user_id and relates.get("m.in_reply_to", {}).get("event_id") == question.event_id:
                    return True
            if not response.chunk or response.end == token:
                return False
            token = response.end
        return False

    async def stop(self) -> None:
        self._stop.set()

    async def login(self) -> None:
        state = self.state
        if state.access_token and state.user_id == self.user_id and state.homeserver == self.homeserver:
            self.client.restore_login(state.user_id, state.device_id, state.access_token)
        elif self.access_token:
            self.client.access_token = self.access_token
            who = await self.client.whoami()
            if not isinstance(who, WhoamiResponse):
                raise MatrixError(f"the access token for {self.user_id} was refused: {who}")
            self.client.restore_login(who.user_id, who.device_id or "", self.access_token)
        else:
            response = await self.client.login(password=self.password, device_name="moviebot")
            if not isinstance(response, LoginResponse):
                raise MatrixError(f"login as {self.user_id} failed: {getattr(response, 'message', response)}")
        if state.user_id != self.client.user_id or state.homeserver != self.homeserver:
            state.next_batch, state.inbox, state.answered = "", [], {}
        state.homeserver, state.user_id = self.homeserver, self.client.user_id
        state.device_id, state.access_token = self.client.device_id or "", self.client.access_token
        state.since_ts = state.since_ts or int(time.time() * 1000)
        state.save()
        log.info("logged in to %s as %s", self.homeserver, self.client.user_id)

    async def _sync_loop(self) -> None:
        backoff = 1.0
        while not self._stop.is_set():
            sync = asyncio.create_task(self.client.sync(timeout=SYNC_TIMEOUT_MS, sync_filter=SYNC_FILTER,
                                                         since=self.state.next_batch or None))
            stopping = asyncio.create_task(self._stop.wait())
            await asyncio.wait([sync, stopping], return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if not sync.done():
                sync.cancel()
                await asyncio.gather(sync, return_exceptions=True)
                break
            try:
                response = sync.result()
            except Exception as exc:  # noqa: BLE001 - network trouble: retry with backoff
                response = exc
            if not isinstance(response, SyncResponse):
                log.warning("sync with %s failed (%s); retrying in %.0f s", self.homeserver, response, backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)
                continue
            backoff = 1.0
            await self._on_sync(response)
            self.synced.set()

    async def _on_sync(self, response: SyncResponse) -> None:
        for room_id in response.rooms.invite:
            joined = await self.client.join(room_id)
            log.info("invited to %s: %s", room_id, joined)
        fresh = []
        for room_id, room in response.rooms.join.items():
            events = list(room.timeline.events)
            if room.timeline.limited and room.timeline.prev_batch and self.state.next_batch:
                events = await self._gap(room_id, room.timeline.prev_batch, self.state.next_batch) + events
            for event in events:
                if (
                    isinstance(event, RoomMessageText)
                    and event.sender != self.client.user_id
                    and event.server_timestamp >= self.state.since_ts
                    and not self.state.is_answered(room_id, event.event_id)
                ):
                    fresh.append(Question(room_id, event.event_id, event.sender, event.body, event.server_timestamp))
        self.state.inbox += fresh
        self.state.next_batch = response.next_batch
        self.state.save()  # the questions are safe before the sync position moves past them
        if self.replicas is not None:
            await self._consider()
            return
        for question in fresh:
            self._submit(question)

    async def _gap(self, room_id: str, prev_batch: str, since: str) -> list:
        """The events a limited sync left out (more arrived while the bot was away than one sync
        returns), oldest first: paged back from the timeline's start to the previous sync position,
        and never past the bot's own invitation to the room."""
        found: list = []
        token = prev_batch
        for _ in range(GAP_PAGES):
            try:
                response = await self.client.room_messages(room_id, start=token, end=since, limit=GAP_PAGE)
            except Exception as exc:  # noqa: BLE001 - network trouble: answer what the sync did return
                response = exc
            if not isinstance(response, RoomMessagesResponse):
                log.warning("could not read the messages %s missed in %s: %s", self.client.user_id, room_id, response)
                break
            for event in response.chunk:  # newest first
                if isinstance(event, RoomMemberEvent) and event.state_key == self.client.user_id and event.membership == "invite":
                    return found[::-1]  # what was said before the invitation was not said to the bot
                found.append(event)
            if not response.chunk or not response.end or response.end == token:
                break
            token = response.end
        return found[::-1]

    def _submit(self, question: Question) -> None:
        message = Message(question.room, question.sender, question.body, question.ts / 1000)
        self.runner.submit(message, lambda msg, reply, q=question: self._deliver(q, reply))

    async def deliver(self, message: Message, reply: Reply) -> None:
        """Send a reply that answers no tracked question (the Connector interface)."""
        await self._send(message.room, reply, None)

    async def _deliver(self, question: Question, reply: Reply) -> None:
        await self._send(question.room, reply, question.event_id)
        if self.replicas is not None:
            self.replicas.answered(question.event_id)
        self.state.mark_answered(question)
        self.state.save()

    async def _send(self, room_id: str, reply: Reply, in_reply_to: str | None) -> None:
        content = {"msgtype": "m.notice", "body": reply.text, "format": "org.matrix.custom.html", "formatted_body": reply_html(reply)}
        if in_reply_to:
            content["m.relates_to"] = {"m.in_reply_to": {"event_id": in_reply_to}}
        # the same question always gets the same transaction id: a re-send after a restart is deduplicated
        txn = "moviebot-" + hashlib.sha256((in_reply_to or reply.text + str(time.time())).encode()).hexdigest()[:32]
        delay = 1.0
        for attempt in range(1, SEND_ATTEMPTS + 1):
            try:
                response = await self.client.room_send(room_id, "m.room.message", content, tx_id=txn)
            except Exception as exc:  # noqa: BLE001 - network trouble: retry
                response = exc
            if isinstance(response, RoomSendResponse):
                return
            log.warning("sending to %s failed (%s), attempt %d", room_id, response, attempt)
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_BACKOFF_S)
        raise MatrixError(f"could not send a reply to {room_id}")

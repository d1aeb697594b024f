"""A Speakeasy client written from the protocol (docs/speakeasy.md): plain HTTP with `?session=` and an SSE reader.

It is what a course student's bot does on the platform, and deliberately shares no code with
our connector (bot/chat/speakeasy.py), so tests that use it check the chatroom, not the
connector's idea of it. Every response is returned as (status, JSON body).
"""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp


class ProtocolClient:
    def __init__(self, base: str, username: str, password: str = ""):
        self.base, self.username, self.password = base.rstrip("/"), username, password
        self.token = ""
        self.http = aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar())  # the token travels as ?session=
        self.events: asyncio.Queue = asyncio.Queue()
        self._listener: asyncio.Task | None = None
        self.listening = asyncio.Event()

    async def call(self, method: str, path: str, *, json_body=None, data: bytes | None = None,
                   params: dict | None = None) -> tuple[int, dict]:
        params = {**(params or {}), **({"session": self.token} if self.token else {})}
        async with self.http.request(method, self.base + path, params=params, json=json_body, data=data) as resp:
            text = await resp.text()
            try:
                return resp.status, json.loads(text)
            except json.JSONDecodeError:
                return resp.status, {"unparsed": text}

    async def login(self) -> dict:
        status, body = await self.call("POST", "/api/login", json_body={"username": self.username, "password": self.password})
        assert status == 200, body
        self.token = body["sessionToken"]
        return body

    async def rooms(self) -> list[dict]:
        status, body = await self.call("GET", "/api/rooms")
        assert status == 200, body
        return body["rooms"]

    async def request_room(self, username: str) -> tuple[int, dict]:
        return await self.call("POST", "/api/rooms/request", json_body={"username": username})

    async def state(self, room: str, since: int = 0) -> dict:
        status, body = await self.call("GET", f"/api/room/{room}", params={"since": str(since)})
        assert status == 200, body
        return body

    async def post(self, room: str, text: str) -> tuple[int, dict]:
        return await self.call("POST", f"/api/room/{room}", data=text.encode("utf-8"))

    async def react(self, room: str, ordinal: int, kind: str) -> tuple[int, dict]:
        return await self.call("POST", f"/api/room/{room}/reaction", json_body={"messageOrdinal": ordinal, "type": kind})

    async def add_user(self, room: str, username: str) -> tuple[int, dict]:
        return await self.call("PATCH", f"/api/request/{room}", data=username.encode("utf-8"))

    async def close_room(self, room: str) -> tuple[int, dict]:
        return await self.call("PATCH", f"/api/room/{room}")

    # --- events -------------------------------------------------------------------------------

    async def listen(self) -> None:
        """Read /sse/rooms in the background into `events` as (name, data) pairs."""
        self._listener = asyncio.create_task(self._read_events())
        await asyncio.wait_for(self.listening.wait(), 10)

    async def _read_events(self) -> None:
        async with self.http.get(f"{self.base}/sse/rooms", params={"session": self.token},
                                 timeout=aiohttp.ClientTimeout(total=None)) as resp:
            assert resp.status == 200 and resp.content_type == "text/event-stream"
            self.listening.set()
            name, data = None, []
            async for raw in resp.content:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith(":"):
                    continue
                if line.startswith("event:"):
                    name = line[len("event:"):].strip()
                elif line.startswith("data:"):
                    data.append(line[len("data:"):].strip())
                elif not line and name is not None:
                    self.events.put_nowait((name, json.loads("\n".join(data))))
                    name, data = None, []

    async def next_event(self, timeout: float = 10.0) -> tuple[str, dict]:
        return await asyncio.wait_for(self.events.get(), timeout)

    async def wait_for(self, room: str, predicate, timeout: float = 30.0) -> list[dict]:
        """Poll the room (as a bot would) until `predicate(messages)` holds; returns the messages."""
        deadline = time.monotonic() + timeout
        while True:
            messages = (await self.state(room))["messages"]
            if predicate(messages):
                return messages
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; the room has {[(m['authorAlias'], m['message'][:40]) for m in messages]}")
            await asyncio.sleep(0.1)

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        await self.http.close()

"""The built-in web chatroom: an aiohttp server speaking the Speakeasy chat protocol, plus a small page.

The protocol is the one of the Speakeasy platform used by university agent courses, field by
field and event by event (docs/speakeasy.md has the table), so the same connector
(bot/chat/speakeasy.py) drives both this chatroom and the real platform, and a course
student's bot written for the platform works here:

    POST  /api/login {"username","password"} -> {"userDetails", "sessionToken", ...} + SESSIONID cookie
    GET   /api/rooms                          -> {"rooms": [ChatRoomInfo]}
    POST  /api/rooms/request {"username"}     -> a new room with that (existing) user
    GET   /api/room/{uid}?since=ms            -> {"info", "messages", "reactions"}   (also /api/room/{uid}/{since})
    POST  /api/room/{uid}                     raw UTF-8 text, 1-2000 characters
    POST  /api/room/{uid}/reaction {"messageOrdinal","type"}
    PATCH /api/room/{uid}                     close the room;  PATCH /api/request/{uid} (body: user name) add a user
    GET   /sse/rooms                          server-sent events ROOMS (one new room each), MESSAGE, REACTION
Errors are {"description": ...}; past `rate_per_minute` requests a client gets 429; a chat
database locked by another process gives 503 (try again).

Extensions for the page (ignored by other clients): the bot may post
`application/vnd.moviebot.reply+json` {"message", "reply", "inReplyTo"} so the page can show the
trace panel, and messages then carry `reply` and `inReplyTo`. `GET /api/config` tells the page
how to log in (`auth`: open, token or accounts) and which example questions to offer in an empty room.

Access: bound to loopback anyone may join with a display name; bound to any other address
a login needs the access token (as password) or a configured account, and each person may
post at most `messages_per_minute` messages.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import re
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from .history import History, HistoryBusy, StoredMessage, now_ms

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
MAX_MESSAGE_CHARS = 2000
MAX_BODY_BYTES = 64 * 1024  # the largest request body the server reads
REACTIONS = ("THUMBS_UP", "THUMBS_DOWN", "STAR")
OPEN_ROOM_REMAINING_MS = 24 * 3600 * 1000  # rooms here stay open until closed; reported as a day ahead
REPLY_TYPE = "application/vnd.moviebot.reply+json"
USERNAME = re.compile(r"^[\w][\w .'-]{0,31}$")
MENTION = re.compile(r"@([\w.'-]+)")
SSE_KEEPALIVE_S = 15.0
SESSION_COOKIE = "SESSIONID"
# The page is one script file and one style sheet: nothing inline runs, nothing from elsewhere loads.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def _same_secret(given: str, expected: str) -> bool:
    """A constant-time comparison that takes any text (hmac refuses non-ASCII str)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode("utf-8", "surrogatepass"))


def is_int64(value: int) -> bool:
    """SQLite stores 64-bit integers; a larger one from a client is an error of the client's."""
    return -(2**63) <= value < 2**63


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@dataclass
class ChatroomConfig:
    """How the chatroom is reached and who may log in."""

    db_path: str
    host: str = "127.0.0.1"
    port: int = 8080
    bot_name: str = "moviebot"
    bot_password: str = ""
    access_token: str = ""
    accounts: dict[str, str] = field(default_factory=dict)  # user name -> password
    bot_accounts: dict[str, str] = field(default_factory=dict)  # other bots (e.g. a student's): name -> password
    room_minutes: int = 0  # a requested room closes by itself after this long (the platform: 10); 0 = when closed
    images_dir: str = ""
    rate_per_minute: int = 420  # requests per client and minute (the Speakeasy limit)
    messages_per_minute: int = 30  # messages per person and minute when not on loopback
    examples: list[dict[str, str]] = field(default_factory=list)  # {"kind", "question"}: shown in an empty room (examples.py)

    @property
    def open_access(self) -> bool:
        return is_loopback(self.host)


class ApiError(Exception):
    def __init__(self, status: int, description: str):
        super().__init__(description)
        self.status = status
        self.description = description


class RateLimiter:
    """A sliding one-minute window per client key."""

    def __init__(self, per_minute: int):
        self.per_minute = per_minute
        self.hits: dict[str, deque] = defaultdict(deque)

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        window = self.hits[key]
        while window and now - window[0] > 60.0:
            window.popleft()
        if len(window) >= self.per_minute:
            return False
        window.append(now)
        return True


class ChatroomServer:
    """The chatroom's HTTP API, event streams and page."""

    def __init__(self, config: ChatroomConfig):
        self.config = config
        self.history = History(config.db_path)
        self.history.ensure_user(config.bot_name, "BOT")
        for name in config.accounts:  # configured accounts exist before they first log in: rooms can be opened with them
            self.history.ensure_user(name, "HUMAN")
        for name in config.bot_accounts:
            self.history.ensure_user(name, "BOT")
        self.requests = RateLimiter(config.rate_per_minute)
        self.posts = RateLimiter(config.messages_per_minute)
        self.listeners: dict[str, set[asyncio.Queue]] = defaultdict(set)  # user -> event queues of open streams
        self.app = self._make_app()
        self._runner: web.AppRunner | None = None
        self.port = config.port

    # --- lifecycle -----------------------------------------------------------------------

    def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._errors], client_max_size=MAX_BODY_BYTES)
        r = app.router
        r.add_get("/", self.page)
        r.add_static("/static/", STATIC)
        r.add_get("/images/{path:.+}", self.image)
        r.add_get("/api/config", self.api_config)
        r.add_post("/api/login", self.login)
        r.add_get("/api/logout", self.logout)
        r.add_post("/api/logout", self.logout)
        r.add_get("/api/rooms", self.list_rooms)
        r.add_post("/api/rooms/request", self.request_room)
        r.add_get("/api/room/{uid}", self.get_room)
        r.add_get("/api/room/{uid}/{since:-?\\d+}", self.get_room)
        r.add_post("/api/room/{uid}", self.post_message)
        r.add_patch("/api/room/{uid}", self.close_room)
        r.add_post("/api/room/{uid}/reaction", self.post_reaction)
        r.add_patch("/api/request/{uid}", self.join_room)
        r.add_get("/sse/rooms", self.events)
        app.on_shutdown.append(self._close_streams)
        return app

    async def start(self) -> int:
        """Listen on host:port (port 0 picks a free one); returns the port."""
        self._runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.config.host, self.config.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # noqa: SLF001 - the bound port for port 0
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        self.history.close()

    async def _close_streams(self, _app) -> None:
        for queues in self.listeners.values():
            for queue in queues:
                queue.put_nowait(None)

    # --- plumbing ----------------------------------------------------------------------

    @web.middleware
    async def _errors(self, request: web.Request, handler):
        try:
            key = self._client_key(request)
            if request.path.startswith(("/api/", "/sse/")) and not self._is_bot_request(request) and not self.requests.allow(key):
                raise ApiError(429, f"Too many requests: at most {self.config.rate_per_minute} per minute.")
            response = await handler(request)
        except ApiError as exc:
            response = web.json_response({"description": exc.description}, status=exc.status)
        except HistoryBusy:
            log.warning("the chat database %s is locked by another process; answered 503", self.config.db_path)
            response = web.json_response({"description": "The chat is busy for a moment; please try again."}, status=503,
                                         headers={"Retry-After": "1"})
        except web.HTTPException as exc:
            if not request.path.startswith(("/api/", "/sse/")) or exc.status < 400:
                raise
            response = web.json_response({"description": exc.reason}, status=exc.status)
        if not request.path.startswith("/sse/") or response.status != 200:  # a prepared stream has sent its headers
            response.headers.update(PAGE_HEADERS)
        return response

    def _token(self, request: web.Request) -> str:
        return request.query.get("session") or request.cookies.get(SESSION_COOKIE, "")

    def _client_key(self, request: web.Request) -> str:
        return self._token(request) or (request.remote or "unknown")

    def _is_bot_request(self, request: web.Request) -> bool:
        token = self._token(request)
        return bool(token) and self.history.session_user(token) == self.config.bot_name

    def _user(self, request: web.Request) -> str:
        token = self._token(request)
        user = self.history.session_user(token) if token else None
        if user is None:
            raise ApiError(401, "Unauthorized")
        return user

    def _member_room(self, request: web.Request, user: str):
        room = self.history.room(request.match_info["uid"])
        if room is None:
            raise ApiError(404, f"Room {request.match_info['uid']} not found")
        if user not in room.members:
            raise ApiError(401, "Unauthorized")
        return room

    def _room_info(self, room, user: str) -> dict:
        """The platform's ChatRoomInfo, every field of it, for `user`."""
        remaining = room.remaining_ms(now_ms())
        return {
            "assignment": False,
            "formRef": "",
            "uid": room.uid,
            "startTime": room.created,
            "remainingTime": OPEN_ROOM_REMAINING_MS if remaining is None else remaining,
            "userAliases": list(room.members.values()),
            "alias": room.members.get(user),
            "prompt": room.prompt,
            "testerBotAlias": "",
            "markAsNoFeedback": False,
        }

    def _announce_room(self, room, users) -> None:
        """A ROOMS event with this one room to each of `users` (for whom the room is new)."""
        for user in users:
            self._emit([user], "ROOMS", {"rooms": [self._room_info(room, user)]})

    def _emit(self, users, event: str, data: dict) -> None:
        payload = f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
        for user in users:
            for queue in list(self.listeners.get(user, ())):
                if queue.qsize() > 1000:  # a stalled stream: end it, the client reconnects and polls
                    queue.put_nowait(None)
                    self.listeners[user].discard(queue)
                else:
                    queue.put_nowait(payload)

    async def _json_body(self, request: web.Request) -> dict:
        try:
            body = await request.json()
            json.dumps(body, ensure_ascii=False).encode("utf-8")  # no lone surrogates ("\ud800") reach the database
        except (json.JSONDecodeError, UnicodeError, RecursionError):
            raise ApiError(400, "Invalid parameters: the body must be JSON in UTF-8.") from None
        if not isinstance(body, dict):
            raise ApiError(400, "Invalid parameters: the body must be a JSON object.")
        return body

    # --- page and files --------------------------------------------------------------------

    async def page(self, _request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def image(self, request: web.Request) -> web.FileResponse:
        if not self.config.images_dir:
            raise ApiError(404, "No images folder is configured.")
        root = Path(self.config.images_dir).resolve()
        for candidate in (request.match_info["path"], request.match_info["path"] + ".jpg"):
            path = (root / candidate).resolve()
            if path.is_relative_to(root) and path.is_file():
                return web.FileResponse(path)
        raise ApiError(404, "No such image.")

    async def api_config(self, _request: web.Request) -> web.Response:
        auth = "open" if self.config.open_access else ("token" if self.config.access_token else "accounts")
        return web.json_response({"auth": auth, "bot": self.config.bot_name, "images": bool(self.config.images_dir),
                                  "maxMessageChars": MAX_MESSAGE_CHARS, "examples": self.config.examples})

    # --- sessions ----------------------------------------------------------------------

    async def login(self, request: web.Request) -> web.Response:
        body = await self._json_body(request)
        username, password = body.get("username", ""), body.get("password", "")
        if not isinstance(username, str) or not isinstance(password, str):
            raise ApiError(400, "Invalid parameters: 'username' and 'password' must be strings.")
        username = username.strip()
        if not USERNAME.fullmatch(username):
            raise ApiError(400, "Choose a name of 1-32 letters, digits, spaces or . ' - characters.")
        role = self._check_credentials(username, password)
        self.history.ensure_user(username, role)
        token = self.history.new_session(username)
        response = web.json_response({
            "userDetails": {"id": username, "username": username, "role": role},
            "sessionToken": token,
            "sessionId": token[:12],
            "startTime": int(time.time() * 1000),
            "userSessionAlias": username,
            "moviebot": {"replyJson": True},
        })
        response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="Strict", max_age=30 * 24 * 3600)
        return response

    def _check_credentials(self, username: str, password: str) -> str:
        config = self.config
        if username.casefold() == config.bot_name.casefold():
            if config.bot_password and _same_secret(password, config.bot_password) and username == config.bot_name:
                return "BOT"
            raise ApiError(401, "Invalid credentials. Please try again!")
        if username in config.accounts:
            if _same_secret(password, config.accounts[username]):
                return "HUMAN"
            raise ApiError(401, "Invalid credentials. Please try again!")
        if username in config.bot_accounts:
            if _same_secret(password, config.bot_accounts[username]):
                return "BOT"
            raise ApiError(401, "Invalid credentials. Please try again!")
        if self.history.role(username) == "BOT":  # a bot account removed from the configuration stays closed
            raise ApiError(401, "Invalid credentials. Please try again!")
        if config.open_access:
            return "HUMAN"
        if config.access_token and _same_secret(password, config.access_token):
            return "HUMAN"
        raise ApiError(401, "Invalid credentials. Please try again!")

    async def logout(self, request: web.Request) -> web.Response:
        token = self._token(request)
        if token:
            self.history.end_session(token)
        response = web.json_response({"description": "Logged out"})
        response.del_cookie(SESSION_COOKIE)
        return response

    # --- rooms -------------------------------------------------------------------------

    async def list_rooms(self, request: web.Request) -> web.Response:
        user = self._user(request)
        return web.json_response({"rooms": [self._room_info(r, user) for r in self.history.rooms_of(user)]})

    async def request_room(self, request: web.Request) -> web.Response:
        """A room with any existing user (the bot by default, as the page asks)."""
        user = self._user(request)
        body = await self._json_body(request)
        other = body.get("username", self.config.bot_name)
        if not isinstance(other, str) or not other:
            raise ApiError(400, "Invalid parameters: 'username' must be a user name.")
        if not self.history.user_exists(other):
            raise ApiError(404, f"User {other[:64]} does not exist")
        if other == user:
            raise ApiError(403, "Cannot establish a chat with that user")
        prompt = body.get("prompt", "")
        room = self.history.create_room(user, {user: user, other: other}, prompt[:200] if isinstance(prompt, str) else "",
                                        self.config.room_minutes * 60_000)
        self._announce_room(room, room.members)
        return web.json_response({"description": "Chatroom created", "uid": room.uid})

    async def join_room(self, request: web.Request) -> web.Response:
        """Add a user: anyone may add themselves (a shared link), a member may add any existing user (an invitation)."""
        user = self._user(request)
        room = self.history.room(request.match_info["uid"])
        if room is None:
            raise ApiError(404, f"Room {request.match_info['uid']} not found")
        if not room.active(now_ms()):
            raise ApiError(400, "Chatroom not active")
        try:
            name = (await request.read()).decode("utf-8").strip() or user
        except UnicodeDecodeError:
            raise ApiError(400, "Invalid parameters: the body must be a user name in UTF-8.") from None
        if name != user and user not in room.members:
            raise ApiError(403, "You can only add yourself to a room you are not in.")
        if not self.history.user_exists(name):
            raise ApiError(404, f"User {name[:64]} does not exist")
        if name not in room.members:
            self.history.add_member(room.uid, name, name)
            self._announce_room(self.history.room(room.uid), [name])
        return web.json_response({"description": "User added"})

    async def close_room(self, request: web.Request) -> web.Response:
        user = self._user(request)
        room = self._member_room(request, user)
        self.history.close_room(room.uid)
        return web.json_response({"description": "Chatroom closed"})

    async def get_room(self, request: web.Request) -> web.Response:
        user = self._user(request)
        room = self._member_room(request, user)
        raw_since = request.match_info.get("since", request.query.get("since", "0"))
        try:
            since = int(raw_since)
        except ValueError:
            raise ApiError(400, "Parameter 'since' is missing!/ill formatted") from None
        if not is_int64(since):
            raise ApiError(400, "Parameter 'since' is missing!/ill formatted")
        alias = room.members[user]
        messages = [m.to_json() for m in self.history.messages(room.uid, since) if m.visible_to(alias)]
        return web.json_response({"info": self._room_info(room, user), "messages": messages,
                                  "reactions": self.history.reactions(room.uid)})

    # --- messages ------------------------------------------------------------------------

    async def post_message(self, request: web.Request) -> web.Response:
        user = self._user(request)
        room = self._member_room(request, user)
        if not room.active(now_ms()):
            raise ApiError(400, "Chatroom not active")
        reply = in_reply_to = None
        if request.content_type == REPLY_TYPE and user == self.config.bot_name:
            body = await self._json_body(request)
            text = body.get("message", "")
            if not isinstance(text, str):
                raise ApiError(400, "Invalid parameters: 'message' must be a string.")
            reply = body.get("reply") if isinstance(body.get("reply"), dict) else None
            in_reply_to = body.get("inReplyTo") if type(body.get("inReplyTo")) is int and is_int64(body["inReplyTo"]) else None
        else:
            try:
                text = (await request.read()).decode("utf-8")
            except UnicodeDecodeError:
                raise ApiError(400, "The message must be UTF-8 text.") from None
        if not text.strip():
            raise ApiError(400, "Message cannot be empty")
        if len(text) > MAX_MESSAGE_CHARS:
            raise ApiError(400, f"Message too long: at most {MAX_MESSAGE_CHARS} characters.")
        if user != self.config.bot_name and not self.config.open_access and not self.posts.allow(user):
            raise ApiError(429, f"Too many messages: at most {self.config.messages_per_minute} per minute.")
        alias = room.members[user]
        aliases = set(room.members.values())
        recipients = sorted({m for m in MENTION.findall(text) if m in aliases and m != alias})
        message = self.history.add_message(room.uid, user, alias, text, recipients, reply, in_reply_to)
        self._broadcast_message(room, message)
        return web.json_response({"description": "Message received", "ordinal": message.ordinal})

    def _broadcast_message(self, room, message: StoredMessage) -> None:
        data = {"roomId": room.uid, **message.to_json()}
        for member, alias in room.members.items():
            if message.visible_to(alias):
                self._emit([member], "MESSAGE", data)

    async def post_reaction(self, request: web.Request) -> web.Response:
        user = self._user(request)
        room = self._member_room(request, user)
        if not room.active(now_ms()):
            raise ApiError(400, "Chatroom not active")
        body = await self._json_body(request)
        kind = body.get("type")
        ordinal = body.get("messageOrdinal")
        if kind not in REACTIONS:
            raise ApiError(400, f"Reaction type must be one of {', '.join(REACTIONS)}.")
        if type(ordinal) is not int or not is_int64(ordinal) or not self.history.has_message(room.uid, ordinal):
            raise ApiError(400, "No message with that ordinal in this room.")
        self.history.react(room.uid, ordinal, user, kind)
        self._emit(room.members, "REACTION", {"roomId": room.uid, "messageOrdinal": ordinal, "type": kind})
        return web.json_response({"description": "Reaction received"})

    # --- events --------------------------------------------------------------------------

    async def events(self, request: web.Request) -> web.StreamResponse:
        """The user's events from now on: ROOMS when a room is opened with them, MESSAGE, REACTION.

        As on the platform, rooms that already exist are not announced: a client lists them
        with GET /api/rooms (the platform's client takes every ROOMS event as new rooms and
        reads `rooms[0]`, so an empty or repeated announcement would break it).
        """
        user = self._user(request)
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
                                               "X-Accel-Buffering": "no", **PAGE_HEADERS})
        await response.prepare(request)
        queue: asyncio.Queue = asyncio.Queue()
        self.listeners[user].add(queue)
        try:
            while True:
                try:
                    payload = await asyncio.wait_for(queue.get(), SSE_KEEPALIVE_S)
                except TimeoutError:
                    payload = b": keep-alive\n\n"
                if payload is None:
                    break
                await response.write(payload)
        except ConnectionResetError:
            pass
        finally:
            self.listeners[user].discard(queue)
        return response

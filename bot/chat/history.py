"""The web chatroom's persistent state in one SQLite file: users, sessions, rooms, messages, reactions.

Kept so a page reload (or a server restart) shows each room's history. All calls are
short single-statement transactions, made from the event loop. Another process holding a
write lock on the file makes a write wait at most `BUSY_TIMEOUT_S` (the event loop stands
still meanwhile) and then raise `HistoryBusy`, which the server answers with 503.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = """
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, role TEXT NOT NULL, created INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (token TEXT PRIMARY KEY, user TEXT NOT NULL, created INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rooms (uid TEXT PRIMARY KEY, created INTEGER NOT NULL, creator TEXT NOT NULL,
                                  prompt TEXT NOT NULL DEFAULT '', ends INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS members (room TEXT NOT NULL, user TEXT NOT NULL, alias TEXT NOT NULL, PRIMARY KEY (room, user));
CREATE TABLE IF NOT EXISTS messages (room TEXT NOT NULL, ordinal INTEGER NOT NULL, time INTEGER NOT NULL, author TEXT NOT NULL,
                                     alias TEXT NOT NULL, text TEXT NOT NULL, recipients TEXT NOT NULL DEFAULT '[]',
                                     reply TEXT, in_reply_to INTEGER, PRIMARY KEY (room, ordinal));
CREATE TABLE IF NOT EXISTS reactions (room TEXT NOT NULL, ordinal INTEGER NOT NULL, user TEXT NOT NULL, type TEXT NOT NULL,
                                      time INTEGER NOT NULL, PRIMARY KEY (room, ordinal, user));
CREATE INDEX IF NOT EXISTS messages_by_time ON messages (room, time);
"""


BUSY_TIMEOUT_S = 0.25


class HistoryBusy(RuntimeError):
    """Another process holds the chat database locked; the request can be tried again."""


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Room:
    uid: str
    created: int
    creator: str
    prompt: str
    ends: int = 0  # when the room closes or closed (ms since the epoch); 0: open until closed
    members: dict[str, str] = field(default_factory=dict)  # user name -> alias in the room

    def remaining_ms(self, now: int) -> int | None:
        """Milliseconds until the room closes (0 once closed), None for a room open until closed."""
        return None if not self.ends else max(0, self.ends - now)

    def active(self, now: int) -> bool:
        return not self.ends or self.ends > now


@dataclass
class StoredMessage:
    room: str
    ordinal: int
    time: int
    author: str  # user name
    alias: str
    text: str
    recipients: list[str]
    reply: dict | None = None  # the bot's structured reply (trace, facts), when it sent one
    in_reply_to: int | None = None  # the ordinal of the question a bot message answers (our extension)

    def visible_to(self, alias: str) -> bool:
        return not self.recipients or alias in self.recipients or alias == self.alias

    def to_json(self) -> dict:
        """The Speakeasy message shape, plus `reply` and `inReplyTo` for the built-in page (clients ignore them)."""
        data = {"timeStamp": self.time, "authorAlias": self.alias, "ordinal": self.ordinal, "message": self.text,
                "recipients": self.recipients, "read": False}
        if self.reply is not None:
            data["reply"] = self.reply
        if self.in_reply_to is not None:
            data["inReplyTo"] = self.in_reply_to
        return data


class History:
    """Users, sessions, rooms, messages and reactions of the web chatroom."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S)
        self.db.row_factory = sqlite3.Row
        self._guarded(self.db.executescript, SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Bring a file written by an older moviebot to this schema (rooms.closed -> rooms.ends, in_reply_to)."""
        rooms = {r["name"] for r in self.db.execute("PRAGMA table_info(rooms)")}
        if "ends" not in rooms:
            self.db.execute("ALTER TABLE rooms ADD COLUMN ends INTEGER NOT NULL DEFAULT 0")
            self.db.execute("UPDATE rooms SET ends = created WHERE closed != 0")
        if "in_reply_to" not in {r["name"] for r in self.db.execute("PRAGMA table_info(messages)")}:
            self.db.execute("ALTER TABLE messages ADD COLUMN in_reply_to INTEGER")

    @staticmethod
    def _guarded(call, *args):
        try:
            return call(*args)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise HistoryBusy(str(exc)) from exc
            raise

    def _write(self, sql: str, params=()) -> None:
        self._guarded(self.db.execute, sql, params)

    def close(self) -> None:
        self.db.close()

    # users and sessions
    def ensure_user(self, name: str, role: str) -> None:
        self._write("INSERT OR IGNORE INTO users VALUES (?, ?, ?)", (name, role, now_ms()))
        self._write("UPDATE users SET role = ? WHERE name = ? AND role != ?", (role, name, role))

    def user_exists(self, name: str) -> bool:
        return self.role(name) is not None

    def role(self, name: str) -> str | None:
        row = self.db.execute("SELECT role FROM users WHERE name = ?", (name,)).fetchone()
        return row["role"] if row else None

    def new_session(self, user: str) -> str:
        token = secrets.token_urlsafe(24)
        self._write("INSERT INTO sessions VALUES (?, ?, ?)", (token, user, now_ms()))
        return token

    def session_user(self, token: str) -> str | None:
        row = self.db.execute("SELECT user FROM sessions WHERE token = ?", (token,)).fetchone()
        return row["user"] if row else None

    def end_session(self, token: str) -> None:
        self._write("DELETE FROM sessions WHERE token = ?", (token,))

    # rooms
    def create_room(self, creator: str, members: dict[str, str], prompt: str = "", lifetime_ms: int = 0) -> Room:
        """A new room; with `lifetime_ms` it closes by itself that long after its creation."""
        uid = secrets.token_hex(8)
        created = now_ms()
        ends = created + lifetime_ms if lifetime_ms > 0 else 0
        with self.db:
            self._write("BEGIN IMMEDIATE")
            self.db.execute("INSERT INTO rooms (uid, created, creator, prompt, ends) VALUES (?, ?, ?, ?, ?)",
                            (uid, created, creator, prompt, ends))
            self.db.executemany("INSERT INTO members VALUES (?, ?, ?)", [(uid, u, a) for u, a in members.items()])
        return Room(uid, created, creator, prompt, ends, dict(members))

    def add_member(self, room: str, user: str, alias: str) -> None:
        self._write("INSERT OR IGNORE INTO members VALUES (?, ?, ?)", (room, user, alias))

    def close_room(self, room: str) -> int:
        """Close the room now (an earlier end stays); returns its end time."""
        now = now_ms()
        self._write("UPDATE rooms SET ends = ? WHERE uid = ? AND (ends = 0 OR ends > ?)", (now, room, now))
        return self.db.execute("SELECT ends FROM rooms WHERE uid = ?", (room,)).fetchone()["ends"]

    def room(self, uid: str) -> Room | None:
        row = self.db.execute("SELECT * FROM rooms WHERE uid = ?", (uid,)).fetchone()
        if row is None:
            return None
        members = {r["user"]: r["alias"] for r in self.db.execute("SELECT user, alias FROM members WHERE room = ?", (uid,))}
        return Room(row["uid"], row["created"], row["creator"], row["prompt"], row["ends"], members)

    def rooms_of(self, user: str) -> list[Room]:
        uids = [r["room"] for r in self.db.execute(
            "SELECT m.room FROM members m JOIN rooms r ON r.uid = m.room WHERE m.user = ? ORDER BY r.created", (user,))]
        return [room for room in (self.room(uid) for uid in uids) if room is not None]

    # messages and reactions
    def add_message(self, room: str, author: str, alias: str, text: str, recipients: list[str], reply: dict | None,
                    in_reply_to: int | None = None) -> StoredMessage:
        with self.db:  # one transaction: the ordinal is read and used atomically
            self._write("BEGIN IMMEDIATE")
            row = self.db.execute(
                "SELECT COALESCE(MAX(ordinal), -1) + 1 AS next, COALESCE(MAX(time), 0) AS last FROM messages WHERE room = ?",
                (room,)).fetchone()
            # times rise strictly within a room, so `since` (the time of a message) never returns an earlier one
            message = StoredMessage(room, row["next"], max(now_ms(), row["last"] + 1), author, alias, text, recipients, reply,
                                    in_reply_to)
            self.db.execute(
                "INSERT INTO messages (room, ordinal, time, author, alias, text, recipients, reply, in_reply_to) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (room, message.ordinal, message.time, author, alias, text, json.dumps(recipients),
                 json.dumps(reply, ensure_ascii=False) if reply is not None else None, in_reply_to),
            )
        return message

    def messages(self, room: str, since_ms: int = 0) -> list[StoredMessage]:
        rows = self.db.execute("SELECT * FROM messages WHERE room = ? AND time >= ? ORDER BY ordinal", (room, since_ms))
        return [
            StoredMessage(r["room"], r["ordinal"], r["time"], r["author"], r["alias"], r["text"], json.loads(r["recipients"]),
                          json.loads(r["reply"]) if r["reply"] else None, r["in_reply_to"])
            for r in rows
        ]

    def has_message(self, room: str, ordinal: int) -> bool:
        return self.db.execute("SELECT 1 FROM messages WHERE room = ? AND ordinal = ?", (room, ordinal)).fetchone() is not None

    def react(self, room: str, ordinal: int, user: str, kind: str) -> None:
        self._write("INSERT OR REPLACE INTO reactions VALUES (?, ?, ?, ?, ?)", (room, ordinal, user, kind, now_ms()))

    def reactions(self, room: str) -> list[dict]:
        rows = self.db.execute("SELECT ordinal, type FROM reactions WHERE room = ? ORDER BY time", (room,))
        return [{"messageOrdinal": r["ordinal"], "type": r["type"]} for r in rows]

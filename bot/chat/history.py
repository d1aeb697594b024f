"""The web chatroom's persistent state in one SQLite file: users, sessions, rooms, messages, reactions.

Kept so a page reload (or a server restart) shows each room's history. All calls are
short single-statement transactions, made from the event loop.
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
CREATE TABLE IF NOT EXISTS rooms (uid TEXT PRIMARY KEY, created INTEGER NOT NULL, closed INTEGER NOT NULL DEFAULT 0,
                                  creator TEXT NOT NULL, prompt TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS members (room TEXT NOT NULL, user TEXT NOT NULL, alias TEXT NOT NULL, PRIMARY KEY (room, user));
CREATE TABLE IF NOT EXISTS messages (room TEXT NOT NULL, ordinal INTEGER NOT NULL, time INTEGER NOT NULL, author TEXT NOT NULL,
                                     alias TEXT NOT NULL, text TEXT NOT NULL, recipients TEXT NOT NULL DEFAULT '[]',
                                     reply TEXT, PRIMARY KEY (room, ordinal));
CREATE TABLE IF NOT EXISTS reactions (room TEXT NOT NULL, ordinal INTEGER NOT NULL, user TEXT NOT NULL, type TEXT NOT NULL,
                                      time INTEGER NOT NULL, PRIMARY KEY (room, ordinal, user));
CREATE INDEX IF NOT EXISTS messages_by_time ON messages (room, time);
"""


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Room:
    uid: str
    created: int
    closed: bool
    creator: str
    prompt: str
    members: dict[str, str] = field(default_factory=dict)  # user name -> alias in the room


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

    def visible_to(self, alias: str) -> bool:
        return not self.recipients or alias in self.recipients or alias == self.alias

    def to_json(self) -> dict:
        """The Speakeasy message shape, plus `reply` for the built-in page."""
        data = {"timeStamp": self.time, "authorAlias": self.alias, "ordinal": self.ordinal, "message": self.text,
                "recipients": self.recipients, "isRead": False}
        if self.reply is not None:
            data["reply"] = self.reply
        return data


class History:
    """Users, sessions, rooms, messages and reactions of the web chatroom."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # users and sessions
    def ensure_user(self, name: str, role: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO users VALUES (?, ?, ?)", (name, role, now_ms()))
        self.db.execute("UPDATE users SET role = ? WHERE name = ?", (role, name))

    def new_session(self, user: str) -> str:
        token = secrets.token_urlsafe(24)
        self.db.execute("INSERT INTO sessions VALUES (?, ?, ?)", (token, user, now_ms()))
        return token

    def session_user(self, token: str) -> str | None:
        row = self.db.execute("SELECT user FROM sessions WHERE token = ?", (token,)).fetchone()
        return row["user"] if row else None

    def end_session(self, token: str) -> None:
        self.db.execute("DELETE FROM sessions WHERE token = ?", (token,))

    # rooms
    def create_room(self, creator: str, members: dict[str, str], prompt: str = "") -> Room:
        uid = secrets.token_hex(8)
        created = now_ms()
        self.db.execute("INSERT INTO rooms VALUES (?, ?, 0, ?, ?)", (uid, created, creator, prompt))
        self.db.executemany("INSERT INTO members VALUES (?, ?, ?)", [(uid, u, a) for u, a in members.items()])
        return Room(uid, created, False, creator, prompt, dict(members))

    def add_member(self, room: str, user: str, alias: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO members VALUES (?, ?, ?)", (room, user, alias))

    def close_room(self, room: str) -> None:
        self.db.execute("UPDATE rooms SET closed = 1 WHERE uid = ?", (room,))

    def room(self, uid: str) -> Room | None:
        row = self.db.execute("SELECT * FROM rooms WHERE uid = ?", (uid,)).fetchone()
        if row is None:
            return None
        members = {r["user"]: r["alias"] for r in self.db.execute("SELECT user, alias FROM members WHERE room = ?", (uid,))}
        return Room(row["uid"], row["created"], bool(row["closed"]), row["creator"], row["prompt"], members)

    def rooms_of(self, user: str) -> list[Room]:
        uids = [r["room"] for r in self.db.execute(
            "SELECT m.room FROM members m JOIN rooms r ON r.uid = m.room WHERE m.user = ? ORDER BY r.created", (user,))]
        return [room for room in (self.room(uid) for uid in uids) if room is not None]

    # messages and reactions
    def add_message(self, room: str, author: str, alias: str, text: str, recipients: list[str], reply: dict | None) -> StoredMessage:
        with self.db:  # one transaction: the ordinal is read and used atomically
            self.db.execute("BEGIN IMMEDIATE")
            row = self.db.execute(
                "SELECT COALESCE(MAX(ordinal), -1) + 1 AS next, COALESCE(MAX(time), 0) AS last FROM messages WHERE room = ?",
                (room,)).fetchone()
            # times rise strictly within a room, so `since` (the time of a message) never returns an earlier one
            message = StoredMessage(room, row["next"], max(now_ms(), row["last"] + 1), author, alias, text, recipients, reply)
            self.db.execute(
                "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (room, message.ordinal, message.time, author, alias, text, json.dumps(recipients),
                 json.dumps(reply, ensure_ascii=False) if reply is not None else None),
            )
        return message

    def messages(self, room: str, since_ms: int = 0) -> list[StoredMessage]:
        rows = self.db.execute("SELECT * FROM messages WHERE room = ? AND time >= ? ORDER BY ordinal", (room, since_ms))
        return [
            StoredMessage(r["room"], r["ordinal"], r["time"], r["author"], r["alias"], r["text"], json.loads(r["recipients"]),
                          json.loads(r["reply"]) if r["reply"] else None)
            for r in rows
        ]

    def has_message(self, room: str, ordinal: int) -> bool:
        return self.db.execute("SELECT 1 FROM messages WHERE room = ? AND ordinal = ?", (room, ordinal)).fetchone() is not None

    def react(self, room: str, ordinal: int, user: str, kind: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO reactions VALUES (?, ?, ?, ?, ?)", (room, ordinal, user, kind, now_ms()))

    def reactions(self, room: str) -> list[dict]:
        rows = self.db.execute("SELECT ordinal, type FROM reactions WHERE room = ? ORDER BY time", (room,))
        return [{"messageOrdinal": r["ordinal"], "type": r["type"]} for r in rows]

"""Where a room's conversation memory lives between its messages.

The dialogue loads a room's memory before it answers a message and saves it after the reply
(a narrow protocol: `load`, `save`, `forget`). One bot process keeps it in its own memory
(`InProcessMemory`, the default). Several replicas serving the same rooms share it in one
SQLite file (`SqliteMemory`, setting `memory_db`): a room that moves to another replica,
because the one that answered it so far died, goes on with its follow-ups, its pending
clarification and the films its people said they liked. The memory is stored as JSON of
the contracts' dataclasses (bot.core.contracts.to_data / from_data), readable and
independent of the Python version.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from bot.core.config import Settings
from bot.core.contracts import from_data, to_data

RoomMemory = Any  # bot.dialogue.tracker.Tracker (a dataclass of contracts and events; named by the dialogue, which imports this module)


class MemoryStore(Protocol):
    def load(self, room: str) -> RoomMemory | None:
        """The room's memory, or None for a room not seen before."""

    def save(self, room: str, memory: RoomMemory) -> None:
        """Keep the room's memory after a reply."""

    def forget(self, room: str) -> None:
        """Drop the room's memory."""


class InProcessMemory:
    """Rooms' memories in this process (the objects themselves: nothing is copied)."""

    def __init__(self):
        self._rooms: dict[str, RoomMemory] = {}
        self._lock = threading.Lock()

    def load(self, room: str) -> RoomMemory | None:
        with self._lock:
            return self._rooms.get(room)

    def save(self, room: str, memory: RoomMemory) -> None:
        with self._lock:
            self._rooms[room] = memory

    def forget(self, room: str) -> None:
        with self._lock:
            self._rooms.pop(room, None)


class SqliteMemory:
    """Rooms' memories in a SQLite file that every replica opens (WAL: readers never wait for a writer).

    One row per room holding its memory as JSON; a save replaces the row in one transaction,
    so a replica that dies mid-save leaves the previous memory, never half of one."""

    def __init__(self, path: str | Path, kind: type, timeout_s: float = 10.0):
        self.kind = kind  # the memory's dataclass, rebuilt from the stored JSON
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.timeout_s = timeout_s
        self._local = threading.local()
        with self._connection() as db:
            db.execute("CREATE TABLE IF NOT EXISTS rooms (room TEXT PRIMARY KEY, memory TEXT NOT NULL, saved REAL NOT NULL)")

    def _write_ahead_log(self, db: sqlite3.Connection) -> None:
        """Switch the file to WAL mode. Two replicas opening a new file at once can both try; the switch does not
        wait for the busy timeout, so the loser retries until the winner has set it (WAL mode persists in the file)."""
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _connection(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=self.timeout_s)
            self._write_ahead_log(db)
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    def load(self, room: str) -> RoomMemory | None:
        row = self._connection().execute("SELECT memory FROM rooms WHERE room = ?", (room,)).fetchone()
        return from_data(self.kind, json.loads(row[0])) if row else None

    def save(self, room: str, memory: RoomMemory) -> None:
        text = json.dumps(to_data(memory), ensure_ascii=False)
        with self._connection() as db:
            db.execute("INSERT INTO rooms (room, memory, saved) VALUES (?, ?, ?) "
                       "ON CONFLICT(room) DO UPDATE SET memory = excluded.memory, saved = excluded.saved", (room, text, time.time()))

    def forget(self, room: str) -> None:
        with self._connection() as db:
            db.execute("DELETE FROM rooms WHERE room = ?", (room,))


def memory_store(settings: Settings, kind: type) -> MemoryStore:
    """The store the settings choose for memories of dataclass `kind`: `memory_db` (a SQLite file the replicas share), else this process."""
    return SqliteMemory(settings.memory_db, kind) if settings.memory_db else InProcessMemory()

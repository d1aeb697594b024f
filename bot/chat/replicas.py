"""Several replicas of one bot account: which replica answers which room, and every question exactly once.

Each replica syncs the same Matrix account (its own device) and so sees every message. They
share a SQLite file (the one that holds the rooms' conversation memory, `memory_db`):

* a heartbeat per replica; a replica not heard from for `lease_s` seconds is dead;
* each room belongs to one live replica, chosen by rendezvous hashing of the room id over the
  live replicas' names, so when one dies only its rooms move, and they move to the survivors
  evenly; when it comes back they move back;
* a question is claimed in one transaction before it is answered (a unique row per event):
  two replicas can never both answer it. A claim held by a replica that died is taken over
  by the room's new owner, which first checks the room for a reply the dead replica may
  have sent just before it died (bot.chat.matrix), so the question is answered once.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from pathlib import Path

NEW, TAKEOVER = "new", "takeover"


class Replicas:
    """This replica's view of the shared table of replicas and claims."""

    def __init__(self, path: str | Path, name: str, lease_s: float = 5.0, timeout_s: float = 10.0):
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.lease_s = lease_s
        self.timeout_s = timeout_s
        self._local = threading.local()
        with self._db() as db:
            db.execute("CREATE TABLE IF NOT EXISTS replicas (name TEXT PRIMARY KEY, seen REAL NOT NULL)")
            db.execute("CREATE TABLE IF NOT EXISTS claims (event_id TEXT PRIMARY KEY, room TEXT NOT NULL, replica TEXT NOT NULL, "
                       "claimed REAL NOT NULL, answered INTEGER NOT NULL DEFAULT 0)")

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            self._local.db = db
        return db

    def heartbeat(self) -> None:
        with self._db() as db:
            db.execute("INSERT INTO replicas (name, seen) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET seen = excluded.seen",
                       (self.name, time.time()))

    def leave(self) -> None:
        """A clean stop: the other replicas take this one's rooms at once instead of after the lease."""
        with self._db() as db:
            db.execute("DELETE FROM replicas WHERE name = ?", (self.name,))

    def live(self) -> list[str]:
        rows = self._db().execute("SELECT name FROM replicas WHERE seen >= ?", (time.time() - self.lease_s,)).fetchall()
        return sorted({name for (name,) in rows} | {self.name})

    def owner(self, room: str, live: list[str] | None = None) -> str:
        """The live replica that answers `room` (rendezvous hashing: the highest hash of room and name)."""
        return max(live or self.live(), key=lambda name: hashlib.sha256(f"{room}\n{name}".encode()).digest())

    def claim(self, event_id: str, room: str) -> str | None:
        """Take the question for this replica: NEW, TAKEOVER (it was claimed by a replica that is dead now, or by this
        replica before a restart: a reply may already be in the room), or None (answered, or held by a live replica)."""
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT replica, answered FROM claims WHERE event_id = ?", (event_id,)).fetchone()
            if row is None:
                db.execute("INSERT INTO claims (event_id, room, replica, claimed) VALUES (?, ?, ?, ?)", (event_id, room, self.name, time.time()))
                outcome = NEW
            elif row[1]:
                outcome = None
            elif row[0] == self.name or row[0] not in self.live():
                db.execute("UPDATE claims SET replica = ?, claimed = ? WHERE event_id = ?", (self.name, time.time(), event_id))
                outcome = TAKEOVER
            else:
                outcome = None
            db.execute("COMMIT")
            return outcome
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def answered(self, event_id: str) -> None:
        with self._db() as db:
            db.execute("UPDATE claims SET answered = 1 WHERE event_id = ?", (event_id,))

    def is_answered(self, event_id: str) -> bool:
        row = self._db().execute("SELECT answered FROM claims WHERE event_id = ?", (event_id,)).fetchone()
        return bool(row and row[0])

    def answered_count(self) -> int:
        return self._db().execute("SELECT COUNT(*) FROM claims WHERE answered = 1").fetchone()[0]

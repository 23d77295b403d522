"""The three communication backends of the sorting game (MAS-Bench §3.2, App. E).

Each backend is a small in-memory SQLite database behind one lock (App. E: "lightweight,
in-memory state machines backed by SQLite"), rebuilt by `reset` at the start of every phase.
Agents are registered as ``Agent-0 .. Agent-{N-1}``; SQLite's 1-based row ids are shifted by
one so agents see stable 0-based ids (App. E.1). Records come back in insertion order.

- `BroadcastStore` (E.2): ``users`` + ``messages``; a broadcast inserts one row per receiver.
- `DirectStore` (E.3): the same tables with directed sends and endpoint checks.
- `KeyValueStore` (E.4): one ``files`` table, last writer wins; an overwrite keeps the key's
  insertion position and creation stamp and updates its update stamp.

Rows carry no wall-clock time: stamps are a logical clock (the round number the engine sets in
`clock`) so the same seed gives the same replies. Nothing here knows about rounds or
visibility; the engine's schedule (all model calls, then all commands) provides those.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass

ID_OFFSET = 1
"""SQLite row id = public id + ID_OFFSET (App. E.1)."""


class BackendError(Exception):
    """A backend operation that cannot be done; the message is shown to the agent."""


def agent_name(agent: int) -> str:
    """The public name of an agent id."""
    return f"Agent-{agent}"


@dataclass(frozen=True)
class Message:
    """One delivered row: who sent it and what it says."""

    sender: int
    body: str


@dataclass(frozen=True)
class FileRow:
    """One key of the shared store (``id`` is the 0-based insertion position)."""

    id: int
    key: str
    length: int
    created: int
    updated: int


class _Store:
    """An in-memory SQLite database behind one lock, rebuilt by `reset`."""

    schema: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.clock = 0
        """Logical time stamped on writes (the engine sets the round number)."""

    def reset(self, n: int) -> None:
        """Drop all state and register agents ``0 .. n-1``."""
        with self._lock:
            if self._db is not None:
                self._db.close()
            # check_same_thread=False: the lock, not the thread, guards the connection.
            self._db = sqlite3.connect(":memory:", check_same_thread=False)
            self._db.execute(
                "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)"
            )
            for stmt in self.schema:
                self._db.execute(stmt)
            self._db.executemany(
                "INSERT INTO users (name) VALUES (?)", [(agent_name(i),) for i in range(n)]
            )
            self._db.commit()
            self.clock = 0

    def close(self) -> None:
        """Release the database (a later `reset` opens a new one)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("backend used before reset()")
        return self._db

    def agents(self) -> list[tuple[int, str]]:
        """Registered agents as ``(public id, name)`` in id order."""
        with self._lock:
            rows = self.db.execute("SELECT id, name FROM users ORDER BY id").fetchall()
        return [(int(r[0]) - ID_OFFSET, str(r[1])) for r in rows]

    def _exists(self, agent: int) -> bool:
        row = self.db.execute("SELECT 1 FROM users WHERE id = ?", (agent + ID_OFFSET,)).fetchone()
        return row is not None


_MESSAGES = (
    "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, sender_id INTEGER NOT NULL, "
    "receiver_id INTEGER NOT NULL, content TEXT NOT NULL, is_read INTEGER NOT NULL DEFAULT 0)"
)


class _Mailbox(_Store):
    """Shared by broadcasting and P2P: rows addressed to one receiver, read once."""

    # Without the index every receive scans all rows ever sent: N=20 agents broadcasting for
    # 100 rounds leave 38,000 rows, and receiving slowed down ~100x (bench_sorting_commands).
    schema = (
        _MESSAGES,
        "CREATE INDEX messages_unread ON messages (receiver_id, is_read, id)",
    )

    def _insert(self, sender: int, receiver: int, body: str) -> None:
        self.db.execute(
            "INSERT INTO messages (sender_id, receiver_id, content) VALUES (?, ?, ?)",
            (sender + ID_OFFSET, receiver + ID_OFFSET, body),
        )

    def receive(self, agent: int) -> list[Message]:
        """Unread rows for `agent` in insertion order, then marked read (App. E.2)."""
        with self._lock:
            rows = self.db.execute(
                "SELECT id, sender_id, content FROM messages "
                "WHERE receiver_id = ? AND is_read = 0 ORDER BY id",
                (agent + ID_OFFSET,),
            ).fetchall()
            if rows:
                # Under the lock no row can arrive in between, so "up to the last id read" is
                # exactly the rows returned.
                self.db.execute(
                    "UPDATE messages SET is_read = 1 WHERE receiver_id = ? AND is_read = 0 "
                    "AND id <= ?",
                    (agent + ID_OFFSET, rows[-1][0]),
                )
                self.db.commit()
        return [Message(int(r[1]) - ID_OFFSET, str(r[2])) for r in rows]

    def unread(self, agent: int) -> int:
        """How many rows wait for `agent` (for tests and traces; agents cannot call it)."""
        with self._lock:
            row = self.db.execute(
                "SELECT COUNT(*) FROM messages WHERE receiver_id = ? AND is_read = 0",
                (agent + ID_OFFSET,),
            ).fetchone()
        return int(row[0])


class BroadcastStore(_Mailbox):
    """Broadcasting (App. E.2): one message row per receiver other than the sender."""

    def broadcast(self, sender: int, body: str) -> list[int]:
        """Deliver `body` to every other agent; returns the receivers in id order."""
        with self._lock:
            if not self._exists(sender):
                raise BackendError(f"{agent_name(sender)} is not registered")
            rows = self.db.execute(
                "SELECT id FROM users WHERE id != ? ORDER BY id", (sender + ID_OFFSET,)
            ).fetchall()
            receivers = [int(r[0]) - ID_OFFSET for r in rows]
            self.db.executemany(
                "INSERT INTO messages (sender_id, receiver_id, content) VALUES (?, ?, ?)",
                [(sender + ID_OFFSET, r + ID_OFFSET, body) for r in receivers],
            )
            self.db.commit()
        return receivers


class DirectStore(_Mailbox):
    """P2P messaging (App. E.3): one row per directed send; both endpoints must exist."""

    def send(self, sender: int, receiver: int, body: str) -> None:
        with self._lock:
            for who in (sender, receiver):
                if not self._exists(who):
                    raise BackendError(f"there is no agent with id {who}")
            self._insert(sender, receiver, body)
            self.db.commit()


class KeyValueStore(_Store):
    """The shared key-value store (App. E.4), exposed to agents with file-system verbs."""

    schema = (
        "CREATE TABLE files (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, "
        "content TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)",
    )

    def write(self, key: str, value: str) -> bool:
        """Create or overwrite `key`; True if it already existed (last writer wins)."""
        with self._lock:
            existed = self.db.execute("SELECT 1 FROM files WHERE key = ?", (key,)).fetchone()
            # ON CONFLICT ... DO UPDATE keeps the row id, so listing order stays insertion order.
            self.db.execute(
                "INSERT INTO files (key, content, created_at, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET content = excluded.content, "
                "updated_at = excluded.updated_at",
                (key, value, self.clock, self.clock),
            )
            self.db.commit()
        return existed is not None

    def read(self, key: str) -> str:
        with self._lock:
            row = self.db.execute("SELECT content FROM files WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise BackendError(f"no file named {key!r}")
        return str(row[0])

    def delete(self, key: str) -> None:
        with self._lock:
            cur = self.db.execute("DELETE FROM files WHERE key = ?", (key,))
            self.db.commit()
        if cur.rowcount == 0:
            raise BackendError(f"no file named {key!r}")

    def list(self, prefix: str = "") -> list[FileRow]:
        """Keys starting with `prefix`, in insertion order.

        A literal prefix test rather than SQL ``LIKE``: ``LIKE`` would treat ``_`` and ``%`` in
        keys such as ``Agent-0_submission.txt`` as wildcards and ignore case.
        """
        with self._lock:
            rows = self.db.execute(
                "SELECT id, key, length(content), created_at, updated_at FROM files "
                "WHERE substr(key, 1, ?) = ? ORDER BY id",
                (len(prefix), prefix),
            ).fetchall()
        return [
            FileRow(int(r[0]) - ID_OFFSET, str(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows
        ]


Backend = BroadcastStore | DirectStore | KeyValueStore

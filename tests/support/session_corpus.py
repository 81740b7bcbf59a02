"""Generated session corpora for listing and search: the same sessions written as JSONL
files (straight to disk, as the JSONL store names and writes them) and into a session
database (one bulk transaction), fast enough for 100,000 sessions. Used by the SQLite
listing tests and ``bench/session_store_bench.py``.

A session: header, model change, 0-4 turns of user and assistant text (words from a
vocabulary with non-ASCII words, ``ß``/``İ`` whose case folding changes length, emoji,
U+2028), a tool result now and then, a name on every seventh, a later rename on some.
Session ``n`` of every 997 holds the rare word ``zebracorn<n>``. Creation times repeat
(sessions without messages then tie on ``modified``) so listing order ties are exercised.
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pi_rpc.session.ids import iso_from_ms
from pi_rpc.session.jsonfmt import dumps_line
from pi_rpc.session.jsonl_store import session_file_name
from pi_rpc.session.sqlite_search import deferred_fts
from pi_rpc.session.sqlite_store import connect_writer, immediate_transaction, import_session

WORDS = (
    "alpha beta gamma delta refactor parser listing session database index query cache build test "
    "deploy error warning python rust node config schema migrate Grüße café naïve STRASSE straße "
    "İstanbul ǅemal 日本語 テキスト 世界 emoji🎉 Ωmega ΣΊΣΥΦΟΣ über façade résumé piñata"
).split()
RARE_EVERY = 997
START_MS = 1_780_000_000_000


@dataclass
class GeneratedSession:
    header: dict[str, Any]
    entries: list[dict[str, Any]]
    _lines: list[bytes] | None = None

    @property
    def id(self) -> str:
        return str(self.header["id"])

    def lines(self) -> list[bytes]:
        """The JSONL store's lines (made once: the file and the database both need them)."""
        if self._lines is None:
            self._lines = [dumps_line(self.header), *(dumps_line(entry) for entry in self.entries)]
        return self._lines


_minute: list[Any] = [None, ""]


def _iso(ms: int) -> str:
    """``iso_from_ms``, its strftime done once per minute (generation makes 10^6 of these)."""
    minute = ms // 60_000
    if _minute[0] != minute:
        _minute[0], _minute[1] = minute, iso_from_ms(minute * 60_000)[:-7]
    return f"{_minute[1]}{ms // 1000 % 60:02d}.{ms % 1000:03d}Z"


def _text(rng: random.Random, n: int) -> str:
    words = rng.choices(WORDS, k=rng.randint(3, 24))
    if n % RARE_EVERY == 0:
        words.insert(rng.randint(0, len(words)), f"zebracorn{n}")
    if rng.random() < 0.05:
        words.append("line\u2028break")
    return " ".join(words)


def generate(count: int, cwd: str, *, seed: int = 1, start: int = 0) -> Iterator[GeneratedSession]:
    """``count`` sessions of ``cwd`` (numbers ``start``...), deterministic for a seed."""
    rng = random.Random(seed * 1_000_003 + start)
    for n in range(start, start + count):
        # Every fifth session shares its creation millisecond with the one before.
        created = START_MS + (n - n % 5 if n % 5 == 1 else n) * 1000
        ts = created
        sid = f"{created // 1000:010x}-{n:04x}-7000-8000-{rng.getrandbits(48):012x}"[-36:]
        header = {"type": "session", "version": 3, "id": sid, "timestamp": _iso(created), "cwd": cwd}
        entries: list[dict[str, Any]] = []
        parent: str | None = None

        def add(entry: dict[str, Any]) -> None:
            nonlocal parent, ts
            ts += rng.randint(1, 3000)
            full = {"type": entry.pop("type"), "id": f"{len(entries):08x}", "parentId": parent}
            full["timestamp"] = _iso(ts)
            full.update(entry)
            entries.append(full)
            parent = full["id"]

        add({"type": "model_change", "provider": "fake", "modelId": "fake-model"})
        if n % 7 == 0:
            add({"type": "session_info", "name": f"Session {n} {rng.choice(WORDS)}"})
        for _turn in range(rng.randint(0, 4) if n % 11 else 0):
            add({"type": "message", "message": {"role": "user", "content": _text(rng, n), "timestamp": ts}})
            if rng.random() < 0.3:
                add(
                    {
                        "type": "message",
                        "message": {
                            "role": "toolResult",
                            "toolCallId": "c1",
                            "toolName": "bash",
                            "content": [{"type": "text", "text": "tool output zebracorn-not-searched"}],
                            "isError": False,
                            "timestamp": ts,
                        },
                    }
                )
            add(
                {
                    "type": "message",
                    "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": _text(rng, n)}, {"type": "text", "text": "done"}],
                        "timestamp": ts,
                    },
                }
            )
        if n % 13 == 0:
            add({"type": "session_info", "name": f"  Renamed {rng.choice(WORDS)} {n}  "})
        yield GeneratedSession(header, entries)


def write_jsonl(session_dir: str, sessions: Iterable[GeneratedSession]) -> int:
    """Write each session as the JSONL store's file in ``session_dir``; returns the count."""
    os.makedirs(session_dir, exist_ok=True)
    count = 0
    for session in sessions:
        path = os.path.join(session_dir, session_file_name(session.header["timestamp"], session.id))
        with open(path, "wb") as f:
            f.write(b"".join(session.lines()))
        count += 1
    return count


def write_sqlite(db_path: str, session_dir: str, sessions: Iterable[GeneratedSession]) -> int:
    """Store the sessions in the database under ``session_dir``, in one transaction with
    the trigram index built once at the end; returns the count."""
    conn = connect_writer(db_path, "none")
    try:
        conn.execute("PRAGMA cache_size = -262144")  # 256 MiB: the bulk load's pages stay cached
        with immediate_transaction(conn), deferred_fts(conn):
            return _store(conn, session_dir, sessions)
    finally:
        conn.close()


def _store(conn: sqlite3.Connection, session_dir: str, sessions: Iterable[GeneratedSession]) -> int:
    count = 0
    directory = os.path.normpath(session_dir)
    for session in sessions:
        lines = [line.decode("utf-8") for line in session.lines()]
        pairs = list(zip(session.entries, lines[1:], strict=True))
        import_session(conn, session.header, lines[0], pairs, session_dir=directory, written_at=START_MS)
        count += 1
    return count

"""The storage seam on its own: the create / append / hold-and-retry / lock contract that
``SessionManager`` relies on, for every backend (the JSONL files and the SQLite database; the
manager-level behaviour is covered by the other session tests; these pin what any backend
must do with what the manager hands it)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.session import SessionManager, dumps_line, holder_pid
from pi_rpc.session.entries import make_header, message_entry
from pi_rpc.session.jsonl_store import JSONL_BACKEND, JsonlSessionStore
from pi_rpc.session.sqlite_store import SqliteBackend, SqliteSessionStore, lock_path_for


def _entries(n: int) -> list[dict]:
    out: list[dict] = []
    for i in range(n):
        message = {"role": "user", "content": [{"type": "text", "text": f"m{i}"}], "timestamp": i}
        out.append(message_entry(f"e{i:07d}", out[-1]["id"] if out else None, "2026-01-01T00:00:00.000Z", message))
    return out


HEADER = make_header("s1", "2026-01-01T00:00:00.000Z", "/w")


@dataclass
class Kind:
    """One backend under test: where a session ``name`` lives below a directory, what the
    backend stored for it (as the JSONL bytes) and who holds its writer lock."""

    name: str

    def backend(self, where: Path) -> Any:
        return JSONL_BACKEND if self.name == "jsonl" else SqliteBackend(str(where / "sessions.db"))

    def store(self, where: Path, *, read_only: bool = False, notes: list[str] | None = None) -> Any:
        if self.name == "jsonl":
            return JsonlSessionStore(str(where / "s.jsonl"), read_only=read_only, diagnostics=notes)
        return SqliteSessionStore(str(where / "sessions.db"), "s1", read_only=read_only, diagnostics=notes)

    def stored(self, where: Path) -> bytes | None:
        if self.name == "jsonl":
            path = where / "s.jsonl"
            return path.read_bytes() if path.exists() else None
        return SqliteBackend(str(where / "sessions.db")).export_lines("s1")

    def holder(self, store: Any) -> int | None:
        if self.name == "jsonl":
            return holder_pid(store.locator)
        return holder_pid(store.locator, lock_path_for(store.database, store.session_id))

    def fault_prefix(self, store: Any) -> str:
        noun = "session file" if self.name == "jsonl" else "session"
        return f"Could not write {noun} {store.locator}: "


@pytest.fixture(params=["jsonl", "sqlite"])
def kind(request: pytest.FixtureRequest) -> Kind:
    return Kind(request.param)


def test_held_create_is_written_in_order_with_later_appends(kind: Kind, tmp_path: Path) -> None:
    where = tmp_path / "later"  # the directory is missing: a write fault
    heard: list[tuple[str | None, int, int]] = []
    store = kind.store(where, notes=[])
    store.on_write_state = lambda error, pending, written: heard.append((error, pending, written))
    first, second = _entries(2)
    assert store.create(HEADER, [first]) is False
    assert not store.created and store.pending_count() == 1
    assert store.write_error is not None and store.write_error.startswith(kind.fault_prefix(store))
    assert "(ENOENT)" in store.write_error
    where.mkdir()
    assert store.retry() is True and store.created and store.write_error is None
    assert store.append([second]) is True and store.pending_count() == 0
    store.close()
    assert kind.stored(where) == b"".join(dumps_line(e) for e in (HEADER, first, second))
    assert heard == [(heard[0][0], 1, 0), (None, 0, 1)]


def test_strict_create_raises_and_leaves_nothing(kind: Kind, tmp_path: Path) -> None:
    if kind.name == "jsonl":
        (tmp_path / "s.jsonl").write_bytes(b"taken\n")
        before = b"taken\n"
    else:  # a session of the same id is stored already
        other = kind.store(tmp_path)
        other.create(make_header("s1", "2025-01-01T00:00:00.000Z", "/other"), [], hold=False)
        other.close()
        before = dumps_line(make_header("s1", "2025-01-01T00:00:00.000Z", "/other"))
    store = kind.store(tmp_path, notes=[])
    with pytest.raises(FileExistsError):
        store.create(HEADER, _entries(1), hold=False)
    assert store.write_error is None and store.pending_count() == 0 and not store.created
    store.release()
    assert kind.stored(tmp_path) == before and kind.holder(store) is None


def test_append_batch_is_one_write_after_held_lines(kind: Kind, tmp_path: Path) -> None:
    entries = _entries(5)
    store = kind.store(tmp_path, notes=[])
    assert store.create(HEADER, entries[:1]) is True
    assert store.append(entries[1:3]) is True
    assert store.append(entries[3:]) is True
    store.close()
    assert kind.stored(tmp_path) == b"".join(dumps_line(e) for e in (HEADER, *entries))


def test_load_takes_the_lock(kind: Kind, tmp_path: Path) -> None:
    entries = _entries(3)
    backend = kind.backend(tmp_path)
    locator = backend.new_locator(str(tmp_path), HEADER["timestamp"], "s1")
    writer = backend.store(locator, fsync="none", read_only=False, diagnostics=[])
    writer.create(HEADER, entries, hold=False)
    writer.release()
    reader = backend.store(locator, fsync="none", read_only=False, diagnostics=[])
    loaded, index = reader.load()
    assert loaded is not None and loaded.entries == [HEADER] and index is not None
    assert [e["id"] for e in index.entries] == [e["id"] for e in entries]
    assert reader.created and kind.holder(reader) == os.getpid()
    reader.release()
    assert kind.holder(reader) is None


def test_a_manager_opens_what_a_store_wrote(tmp_path: Path) -> None:
    # The manager selects no backend (JSONL is the only one it opens).
    path = tmp_path / "s.jsonl"
    entries = _entries(3)
    writer = JSONL_BACKEND.store(str(path), fsync="none", read_only=False, diagnostics=[])
    writer.create(HEADER, entries, hold=False)
    writer.release()
    with SessionManager.open(str(path)) as manager:
        assert manager.get_entries() == entries and manager.pending_entry_count() == 0


def test_missing_session_loads_as_nothing_and_takes_no_lock(kind: Kind, tmp_path: Path) -> None:
    store = kind.store(tmp_path, notes=[])
    assert store.load() == (None, None)
    assert not store.created and kind.holder(store) is None
    if kind.name == "sqlite":  # a database that holds other sessions, but not this one
        other = SqliteSessionStore(str(tmp_path / "sessions.db"), "s2")
        other.create(make_header("s2", "2026-01-01T00:00:00.000Z", "/w"), _entries(1), hold=False)
        other.close()
        store = kind.store(tmp_path, notes=[])
        assert store.load() == (None, None)
        assert not store.created and kind.holder(store) is None


def test_read_only_load_takes_no_lock_and_cannot_write(kind: Kind, tmp_path: Path) -> None:
    writer = kind.store(tmp_path)
    writer.create(HEADER, _entries(1), hold=False)  # and keeps the writer lock
    reader = kind.store(tmp_path, read_only=True, notes=[])
    loaded, index = reader.load()
    assert loaded is not None and reader.created and index is not None and len(index.entries) == 1
    assert kind.holder(writer) == os.getpid()
    writer.release()
    assert kind.holder(reader) is None
    assert reader.retry() is True  # nothing pending
    reader.close()


def test_new_locator_names_the_file_as_upstream() -> None:
    locator = JSONL_BACKEND.new_locator("/d", "2026-01-02T03:04:05.678Z", "abc")
    assert locator == "/d/2026-01-02T03-04-05-678Z_abc.jsonl"


def test_new_locator_names_the_database_and_the_id(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    backend = SqliteBackend(str(tmp_path / "link" / "x.db"))
    locator = backend.new_locator("/d", "2026-01-02T03:04:05.678Z", "abc")
    assert locator == f"sqlite:{os.path.realpath(tmp_path)}/real/x.db#abc"


def test_read_only_load_repairs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    writer = JsonlSessionStore(str(path), diagnostics=[])
    writer.create(HEADER, _entries(1), hold=False)
    writer.release()
    with path.open("ab") as f:
        f.write(b'{"type":"mess')  # a torn last line
    before = path.read_bytes()
    notes: list[str] = []
    reader = JsonlSessionStore(str(path), read_only=True, diagnostics=notes)
    loaded, _ = reader.load()
    assert loaded is not None and reader.created and holder_pid(str(path)) is None
    assert path.read_bytes() == before and notes[-1] == "torn last line left in place (opened read-only)"

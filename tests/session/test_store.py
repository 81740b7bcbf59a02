"""The storage seam on its own: the JSONL store's create / append / hold-and-retry contract
that ``SessionManager`` relies on (the manager-level behaviour is covered by the other
session tests; these pin what any backend must do with what the manager hands it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_rpc.session import SessionManager, dumps_line, holder_pid
from pi_rpc.session.entries import make_header, message_entry
from pi_rpc.session.jsonl_store import JSONL_BACKEND, JsonlSessionStore


def _entries(n: int) -> list[dict]:
    out: list[dict] = []
    for i in range(n):
        message = {"role": "user", "content": [{"type": "text", "text": f"m{i}"}], "timestamp": i}
        out.append(message_entry(f"e{i:07d}", out[-1]["id"] if out else None, "2026-01-01T00:00:00.000Z", message))
    return out


HEADER = make_header("s1", "2026-01-01T00:00:00.000Z", "/w")


def test_held_create_is_written_in_order_with_later_appends(tmp_path: Path) -> None:
    path = tmp_path / "later" / "s.jsonl"  # its directory is missing: a write fault
    heard: list[tuple[str | None, int, int]] = []
    store = JsonlSessionStore(str(path), diagnostics=[])
    store.on_write_state = lambda error, pending, written: heard.append((error, pending, written))
    first, second = _entries(2)
    assert store.create(HEADER, [first]) is False
    assert not store.created and store.pending_count() == 1
    assert store.write_error is not None and store.write_error.startswith(f"Could not write session file {path}: ")
    assert "(ENOENT)" in store.write_error
    path.parent.mkdir()
    assert store.retry() is True and store.created and store.write_error is None
    assert store.append([second]) is True and store.pending_count() == 0
    store.close()
    assert path.read_bytes() == b"".join(dumps_line(e) for e in (HEADER, first, second))
    assert heard == [(heard[0][0], 1, 0), (None, 0, 1)]


def test_strict_create_raises_and_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"taken\n")
    store = JsonlSessionStore(str(path), diagnostics=[])
    with pytest.raises(FileExistsError):
        store.create(HEADER, _entries(1), hold=False)
    assert store.write_error is None and store.pending_count() == 0 and not store.created
    store.release()
    assert path.read_bytes() == b"taken\n" and holder_pid(str(path)) is None


def test_append_batch_is_one_write_after_held_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    entries = _entries(5)
    store = JsonlSessionStore(str(path), diagnostics=[])
    assert store.create(HEADER, entries[:1]) is True
    assert store.append(entries[1:3]) is True
    assert store.append(entries[3:]) is True
    store.close()
    assert path.read_bytes() == b"".join(dumps_line(e) for e in (HEADER, *entries))


def test_load_takes_the_lock_and_a_manager_opens_what_a_store_wrote(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    entries = _entries(3)
    writer = JSONL_BACKEND.store(str(path), fsync="none", read_only=False, diagnostics=[])
    writer.create(HEADER, entries, hold=False)
    writer.release()
    reader = JSONL_BACKEND.store(str(path), fsync="none", read_only=False, diagnostics=[])
    loaded, index = reader.load()
    assert loaded is not None and loaded.entries == [HEADER] and index is not None
    assert [e["id"] for e in index.entries] == [e["id"] for e in entries]
    assert reader.created and holder_pid(str(path)) is not None
    reader.release()
    assert holder_pid(str(path)) is None
    with SessionManager.open(str(path)) as manager:
        assert manager.get_entries() == entries and manager.pending_entry_count() == 0


def test_missing_file_loads_as_nothing_and_takes_no_lock(tmp_path: Path) -> None:
    store = JsonlSessionStore(str(tmp_path / "none.jsonl"), diagnostics=[])
    assert store.load() == (None, None)
    assert not store.created and holder_pid(str(tmp_path / "none.jsonl")) is None


def test_new_locator_names_the_file_as_upstream() -> None:
    locator = JSONL_BACKEND.new_locator("/d", "2026-01-02T03:04:05.678Z", "abc")
    assert locator == "/d/2026-01-02T03-04-05-678Z_abc.jsonl"


def test_read_only_load_takes_no_lock_and_repairs_nothing(tmp_path: Path) -> None:
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

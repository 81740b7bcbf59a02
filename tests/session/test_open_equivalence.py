"""The tuned open path (streamed parse, one-pass index, the first projection gathered while
indexing, the collector frozen while a large session is open) gives exactly what the plain
reading of a session file gives (``reference_store.py``), on many generated files: chains
and trees, every entry type, hand-edited oddities (missing or duplicate ids, unknown and
cyclic parents, non-string types, non-object messages) and line damage (blank, malformed,
non-object, glued and torn lines, CRLF, a missing final LF)."""

from __future__ import annotations

import gc
import random
from typing import Any

import orjson
import pytest

from pi_rpc.session import SessionInvalidError, SessionManager
from pi_rpc.session._gc import FREEZE_MIN_ENTRIES
from pi_rpc.session.loader import parse_session_bytes, read_session_file
from pi_rpc.session.sqlite_store import SqliteSessionStore

from . import reference_store as ref

ROLES = ["user", "assistant", "toolResult", "system", "custom", "hookMessage", "user", "assistant"]


def _message(rng: random.Random, n: int) -> Any:
    roll = rng.random()
    if roll < 0.03:
        return "not an object"
    role = rng.choice(ROLES)
    message: dict[str, Any] = {"role": role}
    if rng.random() < 0.1:
        message["content"] = None
    elif rng.random() < 0.2:
        message["content"] = f"text {n}"
    else:
        message["content"] = [{"type": "text", "text": f"part {n}"}]
    if role == "assistant":
        message.update(provider=rng.choice(["p1", "p2"]), model=rng.choice(["m1", "m2"]), stopReason="stop")
    message["timestamp"] = 1767225600000 + n
    return message


def _parent_id(rng: random.Random, n: int, ids: list[str], linear: bool) -> str | None:
    if linear or not ids:
        return ids[-1] if ids else None
    roll = rng.random()
    if roll < 0.6:
        return ids[-1]
    if roll < 0.85:
        return rng.choice(ids)
    if roll < 0.9:
        return "ffffffff"  # unknown: an orphan root
    if roll < 0.95:
        return f"{n + rng.randint(0, 3):08x}"  # itself or a later id: cycles
    return None


def _entry(rng: random.Random, n: int, ids: list[str], linear: bool, reprojecting: bool) -> dict[str, Any]:
    kinds = ["message"] * 8 + [
        "model_change",
        "thinking_level_change",
        "label",
        "custom_message",
        "branch_summary",
        "session_info",
        "custom",
        "usage",
    ]
    if reprojecting:
        kinds += ["compaction", "context_edit"]
    kind = rng.choice(kinds)
    entry: dict[str, Any] = {"type": kind, "id": f"{n:08x}"}
    entry["parentId"] = _parent_id(rng, n, ids, linear)
    entry["timestamp"] = f"2026-01-01T00:00:{n % 60:02d}.{n % 1000:03d}Z"
    target = rng.choice(ids) if ids and rng.random() < 0.9 else "ffffffff"
    if kind == "message":
        entry["message"] = _message(rng, n)
    elif kind == "model_change":
        entry.update(provider=rng.choice(["p1", "p3"]), modelId=rng.choice(["m1", "m3"]))
    elif kind == "thinking_level_change":
        entry["thinkingLevel"] = rng.choice(["low", "high", "off"])
    elif kind == "label":
        entry.update(targetId=target, label=rng.choice(["", "bookmark", "other"]))
    elif kind == "custom_message":
        entry.update(customType="ext", content=rng.choice([None, "hi", [{"type": "text", "text": "c"}]]), display=True)
        if rng.random() < 0.5:
            entry["details"] = {"k": n}
    elif kind == "branch_summary":
        entry.update(fromId=target, summary=rng.choice(["", "went elsewhere"]))
    elif kind == "compaction":
        entry.update(summary=f"summary {n}", firstKeptEntryId=target, tokensBefore=n)
        if rng.random() < 0.5:
            entry["systemMessage"] = {"role": "system", "content": "sys", "timestamp": n}
    elif kind == "context_edit":
        entry.update(
            targetId=target,
            replacement=rng.choice([None, {"content": "edited"}, {"content": [{"type": "text", "text": "e"}]}]),
        )
    elif kind == "session_info":
        entry["name"] = f"name {n}"
    elif kind == "custom":
        entry.update(customType="ext", data={"n": n})
    else:
        entry.update(kind="summary", provider="p1", model="m1", usage={"input": 1})
    oddity = rng.random()
    if not linear and oddity < 0.03:
        del entry["id"]
    elif not linear and oddity < 0.05 and ids:
        entry["id"] = rng.choice(ids)  # a duplicate id
    elif not linear and oddity < 0.06:
        entry["id"] = n  # not a string
    elif oddity < 0.08:
        entry["type"] = rng.choice([7, None, "session", "unknown_kind"])
    return entry


def _file(rng: random.Random, linear: bool, damage: bool) -> bytes:
    header: dict[str, Any] = {
        "type": "session",
        "version": rng.choice([3, 3, 3, 2]),
        "id": "sess",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": "/tmp",
    }
    ids: list[str] = []
    lines = [orjson.dumps(header)]
    # Compactions and context edits take the general projection: most chains go without.
    reprojecting = not linear or rng.random() < 0.3
    for n in range(1, rng.randint(0, 40) + 1):
        entry = _entry(rng, n, ids, linear, reprojecting)
        if isinstance(entry.get("id"), str):
            ids.append(entry["id"])
        lines.append(orjson.dumps(entry))
        if damage and rng.random() < 0.12:
            lines.append(
                rng.choice(
                    [
                        b"",
                        b"   ",
                        b"\r",
                        b"{not json",
                        b"[1,2]",
                        b"42",
                        b'"str"',
                        b'{"type":"message","id":"tor' + orjson.dumps(entry),
                    ]
                )
            )
    newline = b"\r\n" if damage and rng.random() < 0.1 else b"\n"
    data = newline.join(lines) + newline
    if damage:
        roll = rng.random()
        if roll < 0.15:
            data += b'{"type":"message","id":"torn","parentId":nu'  # torn tail
        elif roll < 0.25:
            data = data.rstrip(b"\n")  # last line without LF
        elif roll < 0.3:
            data += b"  \t"  # trailing whitespace without LF
    return data


def _context(projection: dict[str, Any]) -> dict[str, Any]:
    return {k: projection[k] for k in ("messages", "thinkingLevel", "model")}


def _check_store(manager: SessionManager, store: ref.Store) -> None:
    assert manager.diagnostics == store.diagnostics
    assert manager.get_header() == store.header
    assert manager.get_entries() == store.entries
    assert manager.get_leaf_id() == store.leaf_id
    assert manager._labels == store.labels and manager._label_ts == store.label_ts
    assert manager._has_conversation == store.has_conversation
    assert manager.get_entry_count() == len(store.by_id) and manager._by_id == store.by_id


CASES = [(seed, linear, damage) for seed in range(120) for linear in (True, False) for damage in (False, True)]


@pytest.mark.parametrize("seed,linear,damage", CASES)
def test_open_and_project_like_the_plain_reading(tmp_path, seed: int, linear: bool, damage: bool) -> None:
    rng = random.Random(seed * 4 + linear * 2 + damage)
    data = _file(rng, linear, damage)
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)

    expected_load = ref.parse(data)
    for loaded in (read_session_file(str(path)), parse_session_bytes(data)):
        assert (
            loaded.entries,
            loaded.diagnostics,
            loaded.size,
            loaded.valid_len,
            loaded.torn_tail,
            loaded.missing_newline,
            loaded.blank,
        ) == (
            expected_load.entries,
            expected_load.diagnostics,
            expected_load.size,
            expected_load.valid_len,
            expected_load.torn_tail,
            expected_load.missing_newline,
            expected_load.blank,
        )

    store = ref.open_read_only(data)
    if store is None:
        with pytest.raises(SessionInvalidError):
            SessionManager.open(str(path), read_only=True)
        return
    manager = SessionManager.open(str(path), read_only=True)
    try:
        _check_store(manager, store)
        expected = ref.context(store, store.leaf_id)
        # The first call may use what indexing gathered, the second computes afresh.
        assert manager.build_session_context() == _context(expected)
        assert manager.build_session_context() == _context(expected)
        assert manager.build_session_projection() == expected
        for _ in range(3):
            if not store.entries:
                break
            leaf = rng.choice(store.entries)["id"]
            manager.branch(leaf)
            assert manager.build_session_context() == _context(ref.context(store, leaf))
        manager.reset_leaf()
        assert manager.build_session_context() == _context(ref.context(store, None))
    finally:
        manager.close()


@pytest.mark.parametrize("seed", range(20))
def test_first_projection_after_changes_since_open(tmp_path, seed: int) -> None:
    """What indexing gathered is only used while the session is exactly as indexed."""
    rng = random.Random(seed)
    data = _file(rng, linear=True, damage=False)
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    store = ref.open_read_only(data)
    assert store is not None
    manager = SessionManager.open(str(path))
    try:
        action = seed % 4
        if action == 0 and store.entries:  # away and back: the same state, the same projection
            manager.branch(store.entries[0]["id"])
            manager.branch(store.entries[-1]["id"])
        elif action == 1 and store.entries:
            manager.branch(store.entries[0]["id"])
            store.leaf_id = store.entries[0]["id"]
        elif action == 2:
            manager.reset_leaf()
            store.leaf_id = None
        if action != 3:
            assert manager.build_session_context() == _context(ref.context(store, store.leaf_id))
        new_id = manager.append_message({"role": "user", "content": [{"type": "text", "text": "new"}], "timestamp": 5})
        entry = manager.get_entry(new_id)
        assert entry is not None
        store.entries.append(entry)
        store.by_id[new_id] = entry
        store.leaf_id = new_id
        assert manager.build_session_context() == _context(ref.context(store, new_id))
    finally:
        manager.close()


def test_a_large_session_is_exempt_from_the_collector_only_while_open(tmp_path) -> None:
    if gc.get_freeze_count():
        pytest.skip("something else froze the heap")
    lines = [
        orjson.dumps(
            {"type": "session", "version": 3, "id": "big", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"}
        )
    ]
    parent = None
    for n in range(FREEZE_MIN_ENTRIES):
        entry_id = f"{n:08x}"
        lines.append(
            orjson.dumps(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": "2026-01-01T00:00:00.000Z",
                    "message": {"role": "user", "content": [{"type": "text", "text": "x"}], "timestamp": n},
                }
            )
        )
        parent = entry_id
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    manager = SessionManager.open(str(path))
    try:
        assert gc.get_freeze_count() > 0
        assert len(manager.build_session_context()["messages"]) == FREEZE_MIN_ENTRIES
        small = SessionManager.open(str(path), read_only=True)  # already frozen: no second freeze
        small.close()
        assert gc.get_freeze_count() > 0
    finally:
        manager.close()
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("seed,linear", [(seed, linear) for seed in range(40) for linear in (True, False)])
def test_a_database_session_opens_and_projects_like_its_file(tmp_path, seed: int, linear: bool) -> None:
    """The same sessions kept in a session database (each entry as the line the file holds):
    opened by their locator they index and project exactly as the plain reading of the file."""
    rng = random.Random(seed * 4 + linear * 2)
    data = _file(rng, linear, False)
    store = ref.open_read_only(data)
    loaded = parse_session_bytes(data)
    if store is None or not loaded.entries:
        return  # not a session: nothing a database would hold
    header, entries = loaded.entries[0], loaded.entries[1:]
    writer = SqliteSessionStore(str(tmp_path / "sessions.db"), header["id"], session_dir=str(tmp_path))
    writer.create(header, entries, hold=False)
    writer.close()
    manager = SessionManager.open(writer.locator, read_only=True)
    try:
        _check_store(manager, store)
        expected = ref.context(store, store.leaf_id)
        assert manager.build_session_context() == _context(expected)
        assert manager.build_session_projection() == expected
        manager.reset_leaf()
        assert manager.build_session_context() == _context(ref.context(store, None))
    finally:
        manager.close()

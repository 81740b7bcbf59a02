"""A closed store never writes again (#31 item 2), on both session backends: after ``close``
no retry, no append and no lock taken again, whatever a write fault still holds; and a JSONL
store cuts off the torn bytes of a failed append only while nothing follows them, never what
another writer appended since."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.session import SessionManager
from pi_rpc.session import jsonl_store as jsonl_module
from pi_rpc.session.backends import backend_for
from tests.support.session_stores import StoreKind, stored_bytes


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def _assistant(text: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "faux",
        "provider": "faux",
        "model": "faux-1",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0},
        "stopReason": "stop",
        "timestamp": 2,
    }


def test_a_closed_store_never_writes_nor_takes_its_lock_again(
    store_kind: StoreKind, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = store_kind.create(tmp_path / "cwd", tmp_path / "sessions")
    manager.append_message(_user("stored"))
    manager.append_message(_assistant("stored too"))
    locator = manager.session_file
    assert locator is not None
    store = manager._store
    assert store is not None

    def refuse(items: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store, "_write_items", refuse)
    manager.append_message(_user("held back"))
    assert manager.pending_entry_count() == 1 and manager.write_error is not None
    manager.close()  # its last chance fails too: the entry is lost (and logged)
    assert manager.pending_entry_count() == 1
    before = stored_bytes(locator)
    monkeypatch.undo()  # the fault is gone
    assert manager.retry_writes() is False
    assert stored_bytes(locator) == before
    assert backend_for(locator).holder_pid(locator) is None  # the lock stayed given up
    # Another owner opens it meanwhile; the closed store still touches nothing.
    other = SessionManager.open(locator)
    other.append_message(_user("the new owner's"))
    after = stored_bytes(locator)
    assert manager.retry_writes() is False
    manager.close()
    assert stored_bytes(locator) == after
    other.close()
    reopened = SessionManager.open(locator, read_only=True)
    texts = [e["message"]["content"][0]["text"] for e in reopened.get_entries() if e["type"] == "message"]
    reopened.close()
    assert texts == ["stored", "stored too", "the new owner's"]


def test_a_torn_append_is_cut_only_while_nothing_follows_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    manager = SessionManager.create(str(tmp_path), str(tmp_path / "sessions"))
    manager.append_message(_user("first"))
    manager.append_message(_assistant("first answer"))
    path = manager.session_file
    assert path is not None
    good = Path(path).read_bytes()
    real_write_all = jsonl_module._write_all

    def torn_write(fd: int, data: bytes) -> None:
        os.write(fd, data[:10])  # part of the line reaches the file, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    def no_truncate(fd: int, length: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(jsonl_module, "_write_all", torn_write)
    monkeypatch.setattr(jsonl_module.os, "ftruncate", no_truncate)
    manager.append_message(_user("torn"))
    monkeypatch.undo()
    assert Path(path).read_bytes() == good + b'{"type":"m'  # the failed append's torn bytes
    # Something else appends whole lines after them (a second writer that should never have
    # been, an operator's repair): the store must not cut them off with its torn bytes.
    foreign = b'{"type":"custom","customType":"x","data":{},"id":"ffff0001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}\n'
    with open(path, "ab") as f:
        f.write(b"\n" + foreign)
    manager.append_message(_user("after the fault"))
    data = Path(path).read_bytes()
    assert foreign in data, "entries another writer appended were truncated away"
    assert data.startswith(good)
    manager.close()
    # Without a foreign append the torn bytes are cut as before (nothing of anyone else's).
    again = SessionManager.open(path)
    again_good = Path(path).read_bytes()
    monkeypatch.setattr(jsonl_module, "_write_all", torn_write)
    monkeypatch.setattr(jsonl_module.os, "ftruncate", no_truncate)
    again.append_message(_user("torn again"))
    monkeypatch.undo()
    assert jsonl_module._write_all is real_write_all
    again.append_message(_user("clean"))
    data = Path(path).read_bytes()
    assert data.startswith(again_good) and b'"torn again"' in data
    for line in data[len(again_good) :].splitlines():
        json.loads(line)  # the torn bytes are gone: every new line is whole
    again.close()

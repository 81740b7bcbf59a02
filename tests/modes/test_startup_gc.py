"""The collector around the RPC server's startup (``modes.startup_gc``) and how its freeze
lives with a large session's own freeze (``session._gc``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from pi_rpc.modes.startup_gc import freeze_startup, pause_for_startup
from pi_rpc.session import SessionManager
from pi_rpc.session._gc import FREEZE_MIN_ENTRIES


@pytest.fixture
def clean_collector() -> Iterator[None]:
    if gc.get_freeze_count():
        pytest.skip("something else froze the heap")
    was_enabled = gc.isenabled()
    try:
        yield
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()
        else:
            gc.disable()


def test_paused_while_building_then_frozen_and_running_again(clean_collector: None) -> None:
    gc.enable()
    collecting = pause_for_startup()
    assert collecting is True
    assert not gc.isenabled()
    built = [{"startup": n} for n in range(100)]  # objects of the build
    freeze_startup(collecting)
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(built)


def test_a_collector_that_was_off_stays_off(clean_collector: None) -> None:
    gc.disable()
    collecting = pause_for_startup()
    assert collecting is False
    freeze_startup(collecting)
    assert not gc.isenabled()
    assert gc.get_freeze_count() > 0


def _large_session(path: Path) -> None:
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
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_a_large_session_opened_after_the_startup_freeze_is_frozen_too(clean_collector: None, tmp_path: Path) -> None:
    freeze_startup(pause_for_startup())
    after_startup = gc.get_freeze_count()
    path = tmp_path / "big.jsonl"
    _large_session(path)
    manager = SessionManager.open(str(path))
    try:
        # The session's entries joined the permanent generation (the startup freeze did not
        # count as "a session's freeze is in place").
        assert gc.get_freeze_count() > after_startup + FREEZE_MIN_ENTRIES
    finally:
        manager.close()
    assert gc.get_freeze_count() == 0  # the session's thaw hands back everything

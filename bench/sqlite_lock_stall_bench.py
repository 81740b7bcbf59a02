"""Another process holds the session database's write lock: how long does an unrelated session
handle wait for ``get_state``? (issue 31 item 5)

    .venv/bin/python bench/sqlite_lock_stall_bench.py [--rounds 20] [--hold 3]

One ``pi --mode rpc --session-store sqlite`` process with two handles. Baseline: ``get_state``
round trips on handle B while nothing is locked. Measured: the same round trips on B while a
plain ``sqlite3`` process holds ``BEGIN IMMEDIATE`` on the database and handle A runs a prompt
whose entries wait for that lock (up to the 5 s busy timeout). The lock is held ``--hold``
seconds, then released. Prints the median and worst round trip of each and their ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from tests.support.pi_process import is_event, start_in  # noqa: E402

HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
"""


def _round_trips(p, handle: str, seconds: float, limit: int) -> list[float]:
    out: list[float] = []
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline and n < limit:
        n += 1
        started = time.monotonic()
        p.send({"id": f"rt-{handle}-{time.monotonic_ns()}", "type": "get_state", "handle": handle})
        p.wait_for(
            lambda r: r.get("type") == "response" and r.get("command") == "get_state", timeout=30, start=len(p.records)
        )
        out.append(time.monotonic() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20, help="get_state round trips per phase (at most)")
    parser.add_argument("--hold", type=float, default=3.0, help="seconds the other process holds the lock")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        db = root / "sessions.db"
        script = [{"text": "first"}, {"text": "second"}]
        p = start_in(root / "p", script=script, args=("--session-store", "sqlite", "--session-db", str(db)))
        try:
            mark = p.mark()
            p.ok("prompt", message="one")
            p.settle(mark, timeout=30)
            other = p.ok("open_session")["handle"]
            baseline = _round_trips(p, other, 60.0, args.rounds)
            holder = subprocess.Popen(
                [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
            assert holder.stdout is not None and holder.stdin is not None
            assert holder.stdout.readline().strip() == "locked"
            locked_at = time.monotonic()
            mark = p.mark()
            p.send({"id": "p2", "type": "prompt", "message": "two"})
            locked = _round_trips(p, other, args.hold, args.rounds)
            time.sleep(max(0.0, args.hold - (time.monotonic() - locked_at)))
            holder.stdin.write("\n")
            holder.stdin.flush()
            holder.wait(10)
            p.wait_for(is_event("agent_settled"), start=mark, timeout=60)
            faults = sum(1 for r in p.since(mark) if r.get("type") == "session_write_error")
            p.close()
        finally:
            p.kill()
    result = {
        "baseline_median_ms": round(statistics.median(baseline) * 1000, 2),
        "baseline_max_ms": round(max(baseline) * 1000, 2),
        "locked_median_ms": round(statistics.median(locked) * 1000, 2),
        "locked_max_ms": round(max(locked) * 1000, 2),
        "locked_round_trips": len(locked),
        "session_write_errors": faults,
    }
    print(json.dumps(result, indent=1))
    print(
        f"get_state on another handle while the lock is held / unlocked, median: {result['locked_median_ms'] / result['baseline_median_ms']:.2f}x"
    )
    print(f"worst: {result['locked_max_ms'] / result['baseline_max_ms']:.2f}x")


if __name__ == "__main__":
    main()

"""``pi attach`` (issue 34): what bringing the terminal's mirror up to date after a run costs,
the incremental update (``RemoteSession.sync``: state, statistics, the entries since the last
one) against the full read the attach client did after every run before
(``RemoteSession.refresh``: state, messages, commands, models, statistics, entries, fork
messages, thinking levels), on a session of --turns prompt/answer turns held by a real
``pi --mode rpc --listen unix:…`` process (offline faux model, answers of --chars characters).

Figures: median milliseconds per update (--rounds each) and the bytes the server sent for one.

    python bench/attach_bench.py [--turns 10,100] [--chars 2000] [--rounds 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.listen_client import Conn, address_of, start_listening  # noqa: E402


def _session(root: Path, turns: int, chars: int) -> tuple[Any, str]:
    p, info = start_listening(root, [f"unix:{root}/pi.sock"], script=[{"text": "y" * chars}] * turns)
    address = address_of(info, "unix")
    conn = Conn(address)
    for i in range(turns):
        start = len(conn.records)
        conn.cmd("prompt", message=f"question {i} " + "z" * 200)
        conn.wait_for(lambda r: r.get("type") == "agent_settled", timeout=120, start=start)
    return p, address


async def _measure(address: str, rounds: int) -> dict[str, Any]:
    import anyio

    from pi_rpc.config.settings import Settings
    from pi_rpc.modes.attach.connection import Connection
    from pi_rpc.modes.attach.remote_session import RemoteOptions, RemoteSession

    connection = await Connection.open(address)
    received = [0]
    dispatch = connection._dispatch  # (counting the bytes of every record read)

    def counting(line: bytes) -> None:
        received[0] += len(line) + 1
        dispatch(line)

    connection._dispatch = counting  # type: ignore[method-assign]
    agent = Path(tempfile.mkdtemp())
    remote = RemoteSession(
        connection, "default", RemoteOptions(agent, str(agent)), Settings.load(agent_dir=agent, cwd=agent)
    )
    out: dict[str, Any] = {}
    async with anyio.create_task_group() as tg:
        await remote.start(tg)
        out["messages"] = len(remote.messages)
        for name, update in (("full", remote.refresh), ("incremental", remote.sync)):
            times = []
            before = received[0]
            for _ in range(rounds):
                start = time.perf_counter()
                await update()
                times.append((time.perf_counter() - start) * 1000)
            out[name] = {"ms_median": round(statistics.median(times), 2), "bytes": (received[0] - before) // rounds}
        await remote.shutdown()
        tg.cancel_scope.cancel()
    return out


def main() -> None:
    import anyio

    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", default="10,100")
    parser.add_argument("--chars", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    for turns in (int(t) for t in args.turns.split(",")):
        root = Path(tempfile.mkdtemp(prefix="attach-bench-"))
        p, address = _session(root, turns, args.chars)
        try:
            figures = anyio.run(_measure, address, args.rounds)
        finally:
            p.kill()
        print(json.dumps({"turns": turns, **figures}))


if __name__ == "__main__":
    main()

"""One PostgreSQL session's append latency with ``synchronous_commit`` on (every append a durable
commit, the default) and off (the round trip alone), on a durable loopback server of its own.

    python bench/postgres_commit_bench.py [--appends 500]

Prints p50 and p99 of one ``append_message`` for each setting, and the ratio off / on.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_rpc.session.backends import postgres_backend  # noqa: E402
from pi_rpc.session.manager import SessionManager  # noqa: E402
from tests.support.postgres_server import PostgresServer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--appends", type=int, default=500)
    args = parser.parse_args()
    server = PostgresServer(durable=True).start()
    results: dict[str, tuple[float, float]] = {}
    try:
        for mode in ("on", "off"):
            server.psql(f"CREATE DATABASE d_{mode} OWNER pi")
            server.psql(f"ALTER DATABASE d_{mode} SET synchronous_commit = {mode}")
            folder = tempfile.mkdtemp()
            m = SessionManager.create(folder, folder + "/s", backend=postgres_backend(server.url(database=f"d_{mode}")))
            m.append_message({"role": "user", "content": "hello", "timestamp": 1})
            samples = []
            for n in range(args.appends):
                start = time.perf_counter()
                m.append_message({"role": "user", "content": f"hello {n}", "timestamp": 1})
                samples.append(time.perf_counter() - start)
            m.close()
            samples.sort()
            results[mode] = (samples[len(samples) // 2], samples[min(len(samples) - 1, int(len(samples) * 0.99))])
            p50, p99 = results[mode]
            print(f"synchronous_commit={mode:3}: append p50 {p50 * 1000:6.2f} ms  p99 {p99 * 1000:6.2f} ms")
    finally:
        server.destroy()
    on, off = results["on"], results["off"]
    print(f"off/on: p50 {off[0] / on[0]:.2f}  p99 {off[1] / on[1]:.2f}")


if __name__ == "__main__":
    main()

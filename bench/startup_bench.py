"""Startup benchmark: time from spawning ``pi --mode rpc`` to its first ``get_state`` response.

    python bench/startup_bench.py [-n 15] [-- extra pi args]

Spawns ``python -m pi_rpc --mode rpc --no-session`` with an isolated empty agent dir, writes
one ``get_state`` command immediately, and measures until the response line is read. Also
measures ``pi --version`` and a bare interpreter (``python -c pass``) for reference.
Prints medians (ms) and, per run, the child's peak RSS (VmHWM).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from procstat import vmhwm_kb  # noqa: E402 - bench/ is on sys.path (the script's directory)


def _time_cmd(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000


def time_first_get_state(env: dict[str, str], extra: list[str]) -> tuple[float, int | None]:
    argv = [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session", *extra]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin and proc.stdout
    proc.stdin.write(b'{"id":"s","type":"get_state"}\n')
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    hwm = vmhwm_kb(proc.pid)
    proc.stdin.close()
    proc.wait(timeout=10)
    if b'"id":"s"' not in line:
        raise SystemExit(f"unexpected first line: {line[:200]!r}")
    return elapsed, hwm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=15, help="runs per measurement (median reported)")
    parser.add_argument("extra", nargs="*", help="extra pi arguments")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as agent_dir:
        env = dict(os.environ, PI_CODING_AGENT_DIR=agent_dir, PI_OFFLINE="1")
        bare = [_time_cmd([sys.executable, "-c", "pass"], env) for _ in range(opts.n)]
        version = [_time_cmd([sys.executable, "-m", "pi_rpc", "--version"], env) for _ in range(opts.n)]
        runs = [time_first_get_state(env, opts.extra) for _ in range(opts.n)]
    first = [ms for ms, _ in runs]
    hwm = [kb for _, kb in runs if kb]
    print(f"runs per figure: {opts.n}")
    print(f"bare interpreter (python -c pass):   median {statistics.median(bare):7.1f} ms")
    print(f"pi --version:                        median {statistics.median(version):7.1f} ms")
    print(
        f"spawn -> first get_state response:   median {statistics.median(first):7.1f} ms"
        f"  (min {min(first):.1f}, max {max(first):.1f})"
    )
    if hwm:
        print(f"peak RSS (VmHWM) at first response:  median {statistics.median(hwm) / 1024:7.1f} MB")


if __name__ == "__main__":
    main()

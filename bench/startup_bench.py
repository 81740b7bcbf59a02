"""Startup benchmark: time and CPU from spawning ``pi --mode rpc`` to its first ``get_state``
response.

    python bench/startup_bench.py [-n 20] [--base REV] [-- extra pi args]

Spawns ``python -m pi_rpc --mode rpc --no-session`` with an isolated empty agent dir, writes
one ``get_state`` command immediately, measures until the response line is read (wall), then
closes stdin and takes the child's whole CPU time (user + system, ``os.wait4``'s rusage: the
startup, the answer, the server it builds to serve the next command, and its exit; what each
of the test suite's ~1,350 spawned processes pays at least). Also measures ``pi --version`` and
a bare interpreter (``python -c pass``) for reference. Prints medians and, per run, the child's
peak RSS (VmHWM).

``--base REV``: the same figures for another revision of this repository (checked out into a
temporary git worktree), the samples of the two trees interleaved so that load changes hit both
alike, and the ratios this tree / base. Each tree is byte-compiled first (as an installed copy
is, and as the test suite does), so no sample compiles sources.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from procstat import vmhwm_kb  # noqa: E402 - bench/ is on sys.path (the script's directory)

ROOT = Path(__file__).resolve().parents[1]


def _tree_env(env: dict[str, str], tree: Path) -> dict[str, str]:
    return dict(env, PYTHONPATH=str(tree))


def _time_cmd(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of a command run to its end."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{argv} exited {proc.returncode}")
    return (time.perf_counter() - start) * 1000, (usage.ru_utime + usage.ru_stime) * 1000


def time_first_get_state(env: dict[str, str], extra: list[str]) -> tuple[float, float, int | None]:
    """(wall ms to the response, the child's whole CPU ms, its peak RSS KiB)."""
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
    proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if b'"id":"s"' not in line:
        raise SystemExit(f"unexpected first line: {line[:200]!r}")
    return elapsed, (usage.ru_utime + usage.ru_stime) * 1000, hwm


def _checkout(rev: str, tmp: str) -> Path:
    path = Path(tmp) / "base"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev], check=True, capture_output=True
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=20, help="runs per measurement (median reported)")
    parser.add_argument("--base", help="another revision measured in the same run (interleaved)")
    parser.add_argument("extra", nargs="*", help="extra pi arguments")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this tree": ROOT}
        if opts.base:
            trees[f"base {opts.base}"] = _checkout(opts.base, tmp)
        try:
            for tree in trees.values():
                compileall.compile_dir(str(tree / "pi_rpc"), quiet=2)
            agent_dir = os.path.join(tmp, "agent")
            os.mkdir(agent_dir)
            env = dict(os.environ, PI_CODING_AGENT_DIR=agent_dir, PI_OFFLINE="1")
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            bare = [_time_cmd([sys.executable, "-c", "pass"], env)[1] for _ in range(opts.n)]
            version: dict[str, list[float]] = {name: [] for name in trees}
            runs: dict[str, list[tuple[float, float, int | None]]] = {name: [] for name in trees}
            for _ in range(opts.n):  # interleaved, so load changes hit every tree alike
                for name, tree in trees.items():
                    version[name].append(
                        _time_cmd([sys.executable, "-m", "pi_rpc", "--version"], _tree_env(env, tree))[1]
                    )
                    runs[name].append(time_first_get_state(_tree_env(env, tree), opts.extra))
        finally:
            if opts.base:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees[f"base {opts.base}"])],
                    check=False,
                )
    print(f"runs per figure: {opts.n}; medians")
    print(f"bare interpreter (python -c pass): CPU {statistics.median(bare):6.1f} ms")
    medians: dict[str, tuple[float, float]] = {}
    for name in trees:
        wall = [w for w, _, _ in runs[name]]
        cpu = [c for _, c, _ in runs[name]]
        hwm = [kb for _, _, kb in runs[name] if kb]
        medians[name] = (statistics.median(cpu), statistics.median(wall))
        print(f"{name}:")
        print(f"  pi --version:                        CPU {statistics.median(version[name]):6.1f} ms")
        print(
            f"  spawn -> first get_state response:   wall {statistics.median(wall):6.1f} ms"
            f"  (min {min(wall):.1f}, max {max(wall):.1f})"
        )
        print(f"  whole process (get_state, then EOF): CPU {statistics.median(cpu):6.1f} ms  (min {min(cpu):.1f})")
        if hwm:
            print(f"  peak RSS (VmHWM) at first response:  {statistics.median(hwm) / 1024:6.1f} MB")
    if opts.base:
        (cpu, wall), (base_cpu, base_wall) = medians["this tree"], medians[f"base {opts.base}"]
        print(f"ratio this tree / base: CPU {cpu / base_cpu:.3f}, wall to the response {wall / base_wall:.3f}")


if __name__ == "__main__":
    main()

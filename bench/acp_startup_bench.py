"""ACP startup benchmark: spawn ``pi --mode acp`` -> ``initialize`` result, and -> the first
``session/new`` result, against two baselines measured in the same run: a bare interpreter
(``python -c pass``) and importing the official ACP Python SDK's schema (``import acp``; the
cost we avoid on the server's startup path by speaking JSON-RPC through our own framing).

    python bench/acp_startup_bench.py [-n 15]

Runs with an isolated empty agent dir and the offline model (``--model faux/faux-1``).
Prints medians (ms) and ratios to the bare interpreter.
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


def _time_cmd(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000


def time_acp(env: dict[str, str], cwd: str) -> tuple[float, float]:
    argv = [sys.executable, "-m", "pi_rpc", "--mode", "acp", "--model", "faux/faux-1", "--no-session"]
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n')
    proc.stdin.flush()
    first = proc.stdout.readline()
    initialized = (time.perf_counter() - start) * 1000
    new = {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}}
    proc.stdin.write(json.dumps(new).encode() + b"\n")
    proc.stdin.flush()
    second = proc.stdout.readline()
    session = (time.perf_counter() - start) * 1000
    proc.stdin.close()
    proc.wait(timeout=10)
    if b'"protocolVersion"' not in first or b'"sessionId"' not in second:
        raise SystemExit(f"unexpected answers: {first[:200]!r} {second[:200]!r}")
    return initialized, session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=15, help="runs per measurement (median reported)")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as agent_dir, tempfile.TemporaryDirectory() as cwd:
        env = dict(os.environ, PI_CODING_AGENT_DIR=agent_dir, PI_OFFLINE="1")
        bare = statistics.median(_time_cmd([sys.executable, "-c", "pass"], env) for _ in range(opts.n))
        try:
            sdk = statistics.median(_time_cmd([sys.executable, "-c", "import acp"], env) for _ in range(opts.n))
        except subprocess.CalledProcessError:
            sdk = float("nan")
        runs = [time_acp(env, cwd) for _ in range(opts.n)]
    init = statistics.median(r[0] for r in runs)
    new = statistics.median(r[1] for r in runs)
    print(f"runs per figure: {opts.n}")
    print(f"bare interpreter (python -c pass):        median {bare:7.1f} ms  (1.00x)")
    print(f"import acp (the official SDK's schema):   median {sdk:7.1f} ms  ({sdk / bare:.2f}x)")
    print(f"spawn -> initialize result:               median {init:7.1f} ms  ({init / bare:.2f}x)")
    print(f"spawn -> first session/new result:        median {new:7.1f} ms  ({new / bare:.2f}x)")


if __name__ == "__main__":
    main()

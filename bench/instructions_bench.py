"""Instructions of a cold answer, counted by callgrind: deterministic where wall time is not.

For a tree of this project (this worktree, and with ``--base REV`` that revision too, checked
out into a temporary git worktree), under ``valgrind --tool=callgrind`` with
``PYTHONHASHSEED=0``: a fresh ``python -m pi_rpc --mode rpc --no-session`` answers its first
``get_state``, then a prompt answered with N text deltas by ``bench_llm.py`` (the model server
of ``runtime_bench.py``), then stdin closes. Printed, per tree: the whole process's instructions
for ``--small`` and ``--large`` deltas, and per delta ``(large - small) / (large - small
deltas)``; with ``--base``, the ratios this tree / base (the baseline measured in the same run).

The wall-time benchmark (``runtime_bench.py``) is what the targets are stated in; this one says
whether a change removed work, whatever the machine's speed that minute (a run takes about a
minute per tree: the interpreter runs some 50 times slower under callgrind).

    python bench/instructions_bench.py [--base REV] [--small 2000] [--large 22000]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "protocol" / "conformance"))
sys.path.insert(0, str(ROOT / "bench"))

from runtime_bench import SETTLED, Child, ModelServer  # noqa: E402 - a script run from anywhere
from scripted_llm import write_agent_config  # noqa: E402


def count(tree: Path, deltas: int, base_url: str, tmp: str) -> int:
    """Instructions of one whole process answering ``get_state`` and a ``deltas``-delta prompt."""
    agent, cwd = os.path.join(tmp, "agent"), os.path.join(tmp, "cwd")
    os.makedirs(cwd, exist_ok=True)
    write_agent_config(agent, base_url)
    out = os.path.join(tmp, f"callgrind.{deltas}.out")
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-m", "pi_rpc"]
    child = Child(argv, agent, cwd, {"PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"})
    child.get_state()
    child.send({"id": "p", "type": "prompt", "message": f"bench:stream:{deltas}"})
    child.read_until(lambda line: line.startswith(SETTLED))
    child.close()
    text = Path(out).read_text()
    found = re.search(r"^summary: (\d+)", text, re.MULTILINE) or re.search(r"^totals: (\d+)", text, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no instruction total in {out}")
    return int(found.group(1))


def measure(tree: Path, args: argparse.Namespace, base_url: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        # Once untimed, so that byte-compiling the tree is not counted.
        count(tree, 1, base_url, tmp)
        small = count(tree, args.small, base_url, tmp)
        large = count(tree, args.large, base_url, tmp)
    return {
        "small_M": small / 1e6,
        "large_M": large / 1e6,
        "per_delta_k": (large - small) / (args.large - args.small) / 1e3,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", help="a git revision to measure in the same run (the baseline)")
    ap.add_argument("--small", type=int, default=2000)
    ap.add_argument("--large", type=int, default=22000)
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt install valgrind)", file=sys.stderr)
        return 2
    server = ModelServer()
    results: dict[str, dict[str, float]] = {}
    try:
        results["this tree"] = measure(ROOT, args, server.base_url)
        if args.base:
            with tempfile.TemporaryDirectory() as tmp:
                base = Path(tmp) / "base"
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base],
                    check=True,
                    capture_output=True,
                )
                try:
                    results[f"base {args.base}"] = measure(base, args, server.base_url)
                finally:
                    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    finally:
        server.close()
    for name, got in results.items():
        print(
            f"{name:>24}: {args.small} deltas {got['small_M']:,.0f} M, {args.large} deltas {got['large_M']:,.0f} M, "
            f"per delta {got['per_delta_k']:.2f} k instructions"
        )
    if args.base:
        ours, base_got = results["this tree"], results[f"base {args.base}"]
        print("ratios this tree / base (lower is better):")
        for key in ("small_M", "large_M", "per_delta_k"):
            print(f"  {key:12s} {ours[key] / base_got[key]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Listing 10,000 session files: `list_sessions` in-process and over RPC, against a raw read of
the same files measured in the same run.

The corpus imitates real sessions (the shape of upstream 1.6's files): a header, model and
thinking-level entries, the persisted system message (about 5 KB), 1-8 turns of user message,
assistant tool call, tool result (about 1.5 KB of output) and assistant answer, and a name on
every tenth file. Files are spread over the default layout: N files in the benchmark cwd's
folder and --other more in ten other projects' folders.

Figures (median of --runs, page cache warm):
  raw read       open + read every file of the cwd folder (the floor for a first listing)
  full parse     raw read + orjson.loads of every line (what a naive scanner does)
  list cwd       pi_rpc.session.listing.list_sessions on the cwd folder, every file read
  list cwd warm  the same again: unchanged files are not read (a stat each)
  list all       list_all_sessions over the whole root, every file read
  query          a search (message texts needed: every file read)
  rpc cwd first  `list_sessions` over RPC, first call: send -> response parsed (includes the
                 JSON of the 10,000-entry answer); process already started
  rpc cwd again  the median of the later calls
  rpc query      `list_sessions` with a query over RPC

    python bench/session_listing_bench.py [--files 10000] [--other 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402

from pi_rpc.session import listing  # noqa: E402

SYSTEM_SECTIONS = {
    "preamble": "You are a coding assistant running inside pi, a coding agent harness. " * 3,
    "tools": "<tools>\n" + "- tool: does things with files and commands\n" * 40 + "</tools>",
    "rules": "<rules>\n" + "- Be concise and show file paths clearly when working with files\n" * 30 + "</rules>",
    "docs": "<docs>\nPi documentation: /usr/lib/node_modules/pi/README.md\n</docs>",
}


def _usage() -> dict:
    return {
        "input": 1200,
        "output": 80,
        "cacheRead": 0,
        "cacheWrite": 0,
        "reasoning": 0,
        "totalTokens": 1280,
        "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.003},
    }


def session_lines(rng: random.Random, index: int, cwd: str, start_ms: int) -> list[bytes]:
    sid = f"019{index:05x}-0000-7000-8000-{rng.getrandbits(48):012x}"
    ts_ms = start_ms
    entries: list[dict] = []
    parent: str | None = None
    counter = 0

    def iso(ms: int) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + f".{ms % 1000:03d}Z"

    def add(entry: dict) -> None:
        nonlocal parent, counter, ts_ms
        counter += 1
        ts_ms += rng.randint(5, 4000)
        eid = f"{index * 64 + counter:08x}"[-8:]
        entries.append({"type": entry.pop("type"), "id": eid, "parentId": parent, "timestamp": iso(ts_ms), **entry})
        parent = eid

    header = {"type": "session", "version": 3, "id": sid, "timestamp": iso(start_ms), "cwd": cwd}
    add({"type": "model_change", "provider": "anthropic", "modelId": "claude-sonnet-4-5"})
    add({"type": "thinking_level_change", "thinkingLevel": "off"})
    add(
        {
            "type": "message",
            "message": {"role": "system", "content": "", "sections": SYSTEM_SECTIONS, "timestamp": ts_ms},
        }
    )
    for turn in range(rng.randint(1, 8)):
        add(
            {
                "type": "message",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": f"Please look at module {index}-{turn} and fix the failing test"}
                    ],
                    "timestamp": ts_ms,
                },
            }
        )
        add(
            {
                "type": "message",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Let me look."},
                        {
                            "type": "toolCall",
                            "id": f"call_{turn}",
                            "name": "bash",
                            "arguments": {"command": "pytest -x -q"},
                        },
                    ],
                    "api": "anthropic-messages",
                    "provider": "anthropic",
                    "model": "claude-sonnet-4-5",
                    "usage": _usage(),
                    "stopReason": "toolUse",
                    "timestamp": ts_ms,
                },
            }
        )
        add(
            {
                "type": "message",
                "message": {
                    "role": "toolResult",
                    "toolCallId": f"call_{turn}",
                    "toolName": "bash",
                    "content": [{"type": "text", "text": "collected 42 items\n" * 80}],
                    "isError": False,
                    "timestamp": ts_ms,
                },
            }
        )
        add(
            {
                "type": "message",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"The test in module {index}-{turn} passes now."}],
                    "api": "anthropic-messages",
                    "provider": "anthropic",
                    "model": "claude-sonnet-4-5",
                    "usage": _usage(),
                    "stopReason": "stop",
                    "timestamp": ts_ms,
                },
            }
        )
    if index % 10 == 0:
        add({"type": "session_info", "name": f"Named session {index}"})
    return [orjson.dumps(e) for e in [header, *entries]]


def make_corpus(agent_dir: Path, cwd: str, files: int, other: int) -> Path:
    rng = random.Random(14)
    cwd_dir = Path(listing.default_session_dir(cwd, str(agent_dir), create=True))
    start = 1_760_000_000_000
    for i in range(files):
        lines = session_lines(rng, i, cwd, start + i * 60_000)
        (cwd_dir / f"2025-10-09T09-00-00-000Z_{i:06d}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    for i in range(other):
        project = f"/work/project-{i % 10}"
        folder = Path(listing.default_session_dir(project, str(agent_dir), create=True))
        lines = session_lines(rng, files + i, project, start + i * 60_000)
        (folder / f"2025-10-09T09-00-00-000Z_{i:06d}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return cwd_dir


def raw_read(folder: Path) -> int:
    total = 0
    for name in os.listdir(folder):
        with open(folder / name, "rb") as fh:
            total += len(fh.read())
    return total


def full_parse(folder: Path) -> int:
    count = 0
    for name in os.listdir(folder):
        with open(folder / name, "rb") as fh:
            for line in fh.read().split(b"\n"):
                if line:
                    orjson.loads(line)
                    count += 1
    return count


CPU: dict[str, float] = {}


def timed(fn, runs: int, name: str = "") -> tuple[float, object]:
    """Median wall time of ``runs`` calls; the median CPU time of this process goes to CPU[name]
    (less disturbed than wall time when other processes share the machine)."""
    samples = []
    cpu = []
    result: object = None
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        result = fn()
        samples.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    if name:
        CPU[name] = statistics.median(cpu)
    return statistics.median(samples), result


def rpc_listing(agent_dir: Path, cwd: str, runs: int, query: str | None) -> tuple[tuple[float, float], int]:
    """(the first answer, the median of the later ones: unchanged files are not read again),
    and how many sessions were listed."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(agent_dir.parent),
        "PI_CODING_AGENT_DIR": str(agent_dir),
        "PI_OFFLINE": "1",
        "PYTHONPATH": str(ROOT),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin and proc.stdout
    samples = []
    count = 0
    try:
        proc.stdin.write(b'{"id":"s","type":"get_state"}\n')
        proc.stdin.flush()
        proc.stdout.readline()
        for i in range(runs):
            cmd: dict = {"id": f"l{i}", "type": "list_sessions"}
            if query is not None:
                cmd["query"] = query
            t = time.perf_counter()
            proc.stdin.write(json.dumps(cmd).encode() + b"\n")
            proc.stdin.flush()
            response = json.loads(proc.stdout.readline())
            samples.append(time.perf_counter() - t)
            if not response.get("success"):
                raise SystemExit(f"list_sessions failed: {response}")
            count = len(response["data"]["sessions"])
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    return (samples[0], statistics.median(samples[1:]) if len(samples) > 1 else samples[0]), count


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--other", type=int, default=2_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-rpc", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        agent_dir = Path(tmp) / "agent"
        cwd = os.path.join(tmp, "project")
        os.makedirs(cwd)
        sessions_root = agent_dir / "sessions"
        folder = make_corpus(agent_dir, cwd, args.files, args.other)
        corpus_bytes = raw_read(folder)
        print(
            f"corpus: {args.files} files, {corpus_bytes / 1e6:.1f} MB in the cwd folder; "
            f"{args.other} more in 10 other folders"
        )
        figures: dict[str, float] = {}
        figures["raw read"], _ = timed(lambda: raw_read(folder), args.runs, "raw read")
        figures["full parse"], _ = timed(lambda: full_parse(folder), args.runs, "full parse")
        cache = getattr(listing, "SUMMARY_CACHE", None)

        def cold(fn):  # every file read and scanned again
            def run():
                if cache is not None:
                    cache.clear()
                return fn()

            return run

        figures["list cwd"], infos = timed(cold(lambda: listing.list_sessions(str(folder))), args.runs, "list cwd")
        assert isinstance(infos, list) and len(infos) == args.files, len(infos)  # type: ignore[arg-type]
        if cache is not None:
            figures["list cwd warm"], _ = timed(lambda: listing.list_sessions(str(folder)), args.runs, "list cwd warm")
        figures["list all"], everything = timed(
            cold(lambda: listing.list_all_sessions(str(sessions_root))), args.runs, "list all"
        )
        assert len(everything) == args.files + args.other  # type: ignore[arg-type]
        figures["query"], _ = timed(
            lambda: [i for i in listing.list_sessions(str(folder), with_texts=True) if i.matches("module 123-")],
            args.runs,
            "query",
        )
        if not args.no_rpc:
            (figures["rpc cwd first"], figures["rpc cwd again"]), count = rpc_listing(agent_dir, cwd, args.runs, None)
            assert count == args.files, count
            (_, figures["rpc query"]), _ = rpc_listing(agent_dir, cwd, args.runs, "module 123-")
        base = figures["raw read"]
        print(f"{'figure':14s} {'wall s':>8s} {'x raw read':>11s} {'cpu s':>7s} {'x raw read':>11s}")
        for name, seconds in figures.items():
            cpu = f"{CPU[name]:7.3f} {CPU[name] / CPU['raw read']:11.2f}" if name in CPU else ""
            print(f"{name:14s} {seconds:8.3f} {seconds / base:11.2f} {cpu}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

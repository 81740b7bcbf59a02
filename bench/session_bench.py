"""Session store benchmark: open and project a large session file.

    /work/venv/bin/python bench/session_bench.py [--entries 100000] [--keep FILE]

Builds a realistic linear session (user / assistant-with-tool-call / toolResult turns, a few
hundred bytes each) with our writer, then in a fresh child process measures: open (read,
parse every line, index, take the lock), build_session_context, get_tree, get_entries, and
peak memory (ru_maxrss of the child; tracemalloc peak measured in a second pass).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from pi_rpc.session import dumps_line  # noqa: E402


def build_file(path: str, entries: int) -> int:
    from pi_rpc.session.entries import make_header, message_entry, model_change_entry

    lines = [make_header("bench-session", "2026-01-01T00:00:00.000Z", "/bench")]
    lines.append(model_change_entry("00000000", None, "2026-01-01T00:00:00.000Z", "fake", "fake-model"))
    parent = "00000000"
    usage = {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
             "cost": {"input": 0.0001, "output": 0.00004, "cacheRead": 0, "cacheWrite": 0, "total": 0.00014}}
    for i in range(1, entries):
        eid = f"{i:08x}"
        ts = f"2026-01-01T00:{(i // 60000) % 60:02d}:{(i // 1000) % 60:02d}.{i % 1000:03d}Z"
        kind = i % 3
        if kind == 1:
            msg = {"role": "user", "content": [{"type": "text", "text": f"Please look at file {i} and fix the bug."}],
                   "timestamp": 1767225600000 + i}
        elif kind == 2:
            msg = {"role": "assistant", "content": [
                {"type": "text", "text": "Let me read that file first."},
                {"type": "toolCall", "id": f"call_{i}", "name": "read", "arguments": {"path": f"src/file{i}.py"}}],
                "api": "openai-completions", "provider": "fake", "model": "fake-model", "usage": usage,
                "stopReason": "toolUse", "timestamp": 1767225600000 + i, "responseId": f"r{i}", "durationMs": 37}
        else:
            msg = {"role": "toolResult", "toolCallId": f"call_{i - 1}", "toolName": "read",
                   "content": [{"type": "text", "text": "def f(x):\n    return x + 1\n" * 4}], "isError": False,
                   "timestamp": 1767225600000 + i}
        lines.append(message_entry(eid, parent, ts, msg))
        parent = eid
    data = b"".join(dumps_line(x) for x in lines)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


CHILD = r"""
import json, resource, sys, time, tracemalloc, gc
def vmhwm_mb():
    # VmHWM is per address space (reset by exec); ru_maxrss survives exec and would report
    # the parent's peak.
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
sys.path.insert(0, sys.argv[2])
from pi_rpc.session import SessionManager
path, mode = sys.argv[1], sys.argv[3]
out = {}
if mode == "tracemalloc":
    tracemalloc.start()
t0 = time.perf_counter()
m = SessionManager.open(path)
t1 = time.perf_counter()
ctx = m.build_session_context()
t2 = time.perf_counter()
tree = m.get_tree()
t3 = time.perf_counter()
entries = m.get_entries()
branch = m.get_branch()
t4 = time.perf_counter()
if mode == "tracemalloc":
    out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
else:
    out.update(open_s=t1 - t0, context_s=t2 - t1, tree_s=t3 - t2, entries_and_branch_s=t4 - t3,
               entries=len(entries), context_messages=len(ctx["messages"]),
               peak_rss_mb=vmhwm_mb(),
               diagnostics=m.diagnostics)
    # Appending to the opened big file stays O(1).
    t5 = time.perf_counter()
    for i in range(1000):
        m.append_message({"role": "user", "content": [{"type": "text", "text": "x"}], "timestamp": i})
    out["append_1000_s"] = time.perf_counter() - t5
m.close()
print(json.dumps(out))
"""


def measure(path: str, mode: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, path, REPO, mode], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--keep", help="write the generated session here instead of a temp file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or os.path.join(tmp, "bench.jsonl")
        t0 = time.perf_counter()
        size = build_file(path, args.entries)
        build_s = time.perf_counter() - t0
        baseline = json.loads(subprocess.run(
            [sys.executable, "-c",
             f"import sys,json,resource; sys.path.insert(0,{REPO!r}); import pi_rpc.session; "
             "print(json.dumps(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))/1024))"],
            capture_output=True, text=True, check=True).stdout)
        timing = measure(path, "time")
        traced = measure(path, "tracemalloc")
        # Physical baseline in the same run: read the file and orjson-parse every line, nothing else.
        raw = json.loads(subprocess.run(
            [sys.executable, "-c",
             "import orjson,sys,time; t=time.perf_counter(); "
             "rows=[orjson.loads(l) for l in open(sys.argv[1],'rb')]; "
             "peak=next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))/1024; "
             "print(orjson.dumps({'s': time.perf_counter()-t, 'rss': peak}).decode())", path],
            capture_output=True, text=True, check=True).stdout)
    report = {"entries": args.entries, "file_mb": round(size / 2**20, 1), "write_file_s": round(build_s, 3),
              "baseline_peak_rss_mb_after_import": round(baseline, 1)}
    report.update({k: (round(v, 3) if isinstance(v, float) else v) for k, v in timing.items()})
    report.update({k: round(v, 1) for k, v in traced.items()})
    report["baseline_parse_lines_s"] = round(raw["s"], 3)
    report["baseline_parse_peak_rss_mb"] = round(raw["rss"], 1)
    print(json.dumps(report, indent=1))
    print(f"open / raw parse:      {timing['open_s'] / raw['s']:.2f}x")
    print(f"open+context / raw:    {(timing['open_s'] + timing['context_s']) / raw['s']:.2f}x")
    print(f"peak RSS / raw parse:  {timing['peak_rss_mb'] / raw['rss']:.2f}x")


if __name__ == "__main__":
    main()

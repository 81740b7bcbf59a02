"""Session store benchmark: open and project a large session file.

    .venv/bin/python bench/session_bench.py [--entries 100000] [--rounds 3] [--keep FILE]

Builds a realistic linear session (user / assistant-with-tool-call / toolResult turns, a few
hundred bytes each) with our writer, then in a fresh child process measures: open (read,
parse every line, index, take the lock), build_session_context, get_tree, get_entries, and
peak memory (VmHWM of the child after open+context and after everything; tracemalloc peak
measured in a separate pass). Baselines in the same run, each in its own child: a raw
line-by-line orjson parse of the same file with the cyclic GC on (what a plain program
pays) and off (the stricter floor). Every round measures ours and both baselines back to
back; the ratios printed are the medians over the rounds (the machine may be loaded).
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

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from pi_rpc.session import dumps_line  # noqa: E402


def build_file(path: str, entries: int) -> int:
    from pi_rpc.session.entries import make_header, message_entry, model_change_entry

    lines = [make_header("bench-session", "2026-01-01T00:00:00.000Z", "/bench")]
    lines.append(model_change_entry("00000000", None, "2026-01-01T00:00:00.000Z", "fake", "fake-model"))
    parent = "00000000"
    usage = {
        "input": 100,
        "output": 20,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 120,
        "cost": {"input": 0.0001, "output": 0.00004, "cacheRead": 0, "cacheWrite": 0, "total": 0.00014},
    }
    for i in range(1, entries):
        eid = f"{i:08x}"
        ts = f"2026-01-01T00:{(i // 60000) % 60:02d}:{(i // 1000) % 60:02d}.{i % 1000:03d}Z"
        kind = i % 3
        if kind == 1:
            msg = {
                "role": "user",
                "content": [{"type": "text", "text": f"Please look at file {i} and fix the bug."}],
                "timestamp": 1767225600000 + i,
            }
        elif kind == 2:
            msg = {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me read that file first."},
                    {"type": "toolCall", "id": f"call_{i}", "name": "read", "arguments": {"path": f"src/file{i}.py"}},
                ],
                "api": "openai-completions",
                "provider": "fake",
                "model": "fake-model",
                "usage": usage,
                "stopReason": "toolUse",
                "timestamp": 1767225600000 + i,
                "responseId": f"r{i}",
                "durationMs": 37,
            }
        else:
            msg = {
                "role": "toolResult",
                "toolCallId": f"call_{i - 1}",
                "toolName": "read",
                "content": [{"type": "text", "text": "def f(x):\n    return x + 1\n" * 4}],
                "isError": False,
                "timestamp": 1767225600000 + i,
            }
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
c0 = time.process_time()
t0 = time.perf_counter()
m = SessionManager.open(path)
t1 = time.perf_counter()
ctx = m.build_session_context()
t2 = time.perf_counter()
c2 = time.process_time()
context_peak = vmhwm_mb()
tree = m.get_tree()
t3 = time.perf_counter()
entries = m.get_entries()
branch = m.get_branch()
t4 = time.perf_counter()
if mode == "tracemalloc":
    out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
else:
    out.update(open_s=t1 - t0, context_s=t2 - t1, open_context_cpu_s=c2 - c0, tree_s=t3 - t2, entries_and_branch_s=t4 - t3,
               opened_entries=len(entries), context_messages=len(ctx["messages"]),
               peak_rss_open_context_mb=context_peak, peak_rss_mb=vmhwm_mb(),
               diagnostics=m.diagnostics)
    # Appending to the opened big file stays O(1).
    t5 = time.perf_counter()
    for i in range(1000):
        m.append_message({"role": "user", "content": [{"type": "text", "text": "x"}], "timestamp": i})
    out["append_1000_s"] = time.perf_counter() - t5
m.close()
print(json.dumps(out))
"""

# The physical baseline: read the file and orjson-parse every line, nothing else. ``gc-on``
# is how a plain Python program parses it; ``gc-off`` (the collector disabled) is the
# stricter floor: pure parsing cost.
RAW = r"""
import gc, orjson, sys, time
if sys.argv[2] == "off":
    gc.disable()
c = time.process_time()
t = time.perf_counter()
rows = [orjson.loads(l) for l in open(sys.argv[1], "rb")]
s = time.perf_counter() - t
cpu = time.process_time() - c
peak = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")) / 1024
print(orjson.dumps({"s": s, "cpu": cpu, "rss": peak}).decode())
"""


def measure(path: str, mode: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, path, REPO, mode], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def raw_parse(path: str, gc_mode: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", RAW, path, gc_mode], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--keep", help="write the generated session here instead of a temp file")
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="measure ours and both baselines this many times (interleaved); ratios are per round",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or os.path.join(tmp, "bench.jsonl")
        t0 = time.perf_counter()
        size = build_file(path, args.entries)
        build_s = time.perf_counter() - t0
        baseline = json.loads(
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    f"import sys,json,resource; sys.path.insert(0,{REPO!r}); import pi_rpc.session; "
                    "print(json.dumps(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))/1024))",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        with open(path, "rb") as f:
            pristine = f.read()

        def measure_fresh(mode: str, pristine: bytes = pristine) -> dict:
            # The child appends to the file; every measurement starts from the same bytes.
            with open(path, "wb") as f:
                f.write(pristine)
            return measure(path, mode)

        rounds = []
        for _ in range(max(1, args.rounds)):
            timing = measure_fresh("time")
            raw = raw_parse(path, "on")
            raw_off = raw_parse(path, "off")
            rounds.append((timing, raw, raw_off))
        traced = measure_fresh("tracemalloc")
        del pristine

    def ratios(timing: dict, raw: dict, raw_off: dict) -> dict[str, float]:
        both = timing["open_s"] + timing["context_s"]
        return {
            "open / raw parse (gc on)": timing["open_s"] / raw["s"],
            "open+context / raw parse (gc on)": both / raw["s"],
            "open+context / raw parse (gc off)": both / raw_off["s"],
            "cpu time, open+context / raw (gc on)": timing["open_context_cpu_s"] / raw["cpu"],
            "cpu time, open+context / raw (gc off)": timing["open_context_cpu_s"] / raw_off["cpu"],
            "peak RSS open+context / raw parse": timing["peak_rss_open_context_mb"] / raw["rss"],
            "peak RSS incl. get_tree / raw parse": timing["peak_rss_mb"] / raw["rss"],
        }

    per_round = [ratios(*r) for r in rounds]
    timing, raw, raw_off = rounds[len(rounds) // 2]
    report = {
        "entries": args.entries,
        "file_mb": round(size / 2**20, 1),
        "write_file_s": round(build_s, 3),
        "baseline_peak_rss_mb_after_import": round(baseline, 1),
        "rounds": len(rounds),
    }
    report.update({k: (round(v, 3) if isinstance(v, float) else v) for k, v in timing.items()})
    report.update({k: round(v, 1) for k, v in traced.items()})
    report["baseline_parse_lines_s"] = round(raw["s"], 3)
    report["baseline_parse_lines_gc_off_s"] = round(raw_off["s"], 3)
    report["baseline_parse_peak_rss_mb"] = round(raw["rss"], 1)
    print(json.dumps(report, indent=1))
    print(f"ratios, median of {len(rounds)} rounds (each round: ours, raw parse gc on, raw parse gc off):")
    for name in per_round[0]:
        values = sorted(r[name] for r in per_round)
        print(f"  {name + ':':40s}{statistics.median(values):.2f}x   (rounds: {', '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()

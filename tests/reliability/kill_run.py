"""SIGKILL at a random moment of a busy session, then check its file: every complete line is
JSON, ours and upstream pi 1.6 (when installed) load it with the same messages, and nothing
is missing but the entry being written at the kill.

    python -m tests.reliability.kill_run --iterations 200 [--seed 1]   (from the repository root)

(``tests/reliability/test_sigkill.py`` runs a few iterations in the suite.)
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from tests.reliability.harness import check_session_file
from tests.support.pi_process import OURS, PiProcess, RecordTimeout, StdoutClosed, isolated_env, upstream_argv

SCRIPT = [
    {
        "text": "Let me look. " * 20,
        "chunkChars": 8,
        "delayMs": 1,
        "toolCalls": [{"name": "bash", "arguments": {"command": "echo step; sleep 0.02"}}],
    },
    {
        "text": "Now writing a file. " * 10,
        "chunkChars": 8,
        "delayMs": 1,
        "toolCalls": [{"name": "write", "arguments": {"path": "notes.txt", "content": "x\n" * 50}}],
    },
    {"text": "Done with this one. " * 20, "chunkChars": 8, "delayMs": 1},
]
PERSISTED = {"user", "assistant", "toolResult"}


def one_kill(root: Path, rng: random.Random, *, upstream: bool) -> dict[str, Any]:
    root.mkdir(parents=True)
    (root / "cwd").mkdir()
    script = root / "script.json"
    script.write_text(json.dumps(SCRIPT * 20))
    pi = PiProcess(
        [*OURS, "--mode", "rpc", "--session-dir", str(root / "sessions")],
        isolated_env(root, {"PI_FAUX_SCRIPT": str(script)}),
        root / "cwd",
        lenient=True,
    )
    delay = rng.uniform(0.05, 2.5)
    killer = threading.Timer(delay, pi.popen.kill)
    killer.start()
    n = 0
    try:
        while pi.popen.poll() is None:
            n += 1
            if n % 3 == 0:
                pi.try_send({"id": f"n{n}", "type": "set_session_name", "name": f"name {n}"})
            if not pi.try_send({"id": f"p{n}", "type": "prompt", "message": f"prompt {n}"}):
                break
            pi.wait_for_next("agent_settled", timeout=60)
    except (StdoutClosed, RecordTimeout):
        pass
    finally:
        killer.cancel()
        pi.kill()
    pi.close()  # read what was written before the kill, to EOF
    observed = [
        r["message"]
        for r in list(pi.records)
        if r.get("type") == "message_end" and r["message"].get("role") in PERSISTED
    ]
    files = sorted((root / "sessions").glob("*.jsonl"))
    result: dict[str, Any] = {
        "delay": delay,
        "files": len(files),
        "observed": len(observed),
        "upstream_checked": False,
        "torn": False,
        "lost": 0,
    }
    if not files:
        assert not observed, "messages were shown but no session file exists"
        return result
    assert len(files) == 1
    check = check_session_file(str(files[0]), root, upstream=upstream)
    result["upstream_checked"] = check["upstream_checked"]
    result["torn"] = check["torn_tail"]
    stored = check["ours"]["messages"]
    # Everything shown before the last message_end must be in the file; the last one may be
    # the entry that was being written when the process died.
    missing = [m for m in observed[:-1] if m not in stored]
    result["lost"] = len(missing)
    assert not missing, f"{len(missing)} shown messages are missing from the file"
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-upstream", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = Path(tempfile.mkdtemp(prefix="pi-kill-"))
    totals = {"iterations": 0, "with_file": 0, "upstream_checked": 0, "torn_tail": 0, "lost": 0}
    try:
        for i in range(a.iterations):
            r = one_kill(work / f"i{i}", rng, upstream=not a.no_upstream)
            totals["iterations"] += 1
            totals["with_file"] += r["files"]
            totals["upstream_checked"] += int(r["upstream_checked"])
            totals["torn_tail"] += int(r["torn"])
            totals["lost"] += r["lost"]
            shutil.rmtree(work / f"i{i}", ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({**totals, "upstream_installed": upstream_argv() is not None}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

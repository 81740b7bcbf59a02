"""Drive `pi --mode rpc` with a JSONL command file and print the wire traffic.

Each command is written to pi's stdin; the driver waits for its response (and, after a prompt
that started a run, for `agent_settled`) before sending the next, so the whole event stream of
each run is shown. Standard library only.

    python examples/drive.py examples/hello.jsonl [-- pi args]

The pi arguments choose the model, e.g. ``-- --faux-script examples/hello-faux-script.json`` for
the offline scripted model (the README's quick start) or ``-- --model provider/id``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    commands_file = Path(argv[0]) if argv else HERE / "hello.jsonl"
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    cmd = [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session", *extra]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    for line in commands_file.read_text().splitlines():
        if not line.strip():
            continue
        command = json.loads(line)
        print(f">>> {line}")
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        started_run = False
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            raw = proc.stdout.readline()  # bytes: splits on LF only
            if not raw:
                return 1
            record = json.loads(raw)
            print(f"<<< {raw.decode().rstrip()[:240]}")
            if record.get("type") == "response" and record.get("id") == command.get("id"):
                started_run = (record.get("data") or {}).get("disposition") == "started"
                if not started_run:
                    break
            if started_run and record.get("type") == "agent_settled":
                break
    proc.stdin.close()
    return proc.wait()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

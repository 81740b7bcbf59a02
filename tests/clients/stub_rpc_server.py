"""A deliberately misbehaving stand-in for `pi --mode rpc`, used to test client mechanics deterministically.

    python stub_rpc_server.py MODE
MODE:
  reverse     collect two commands, answer them in reverse order, emit an event containing U+2028
  die         answer `prompt` with started, emit agent_start, write to stderr and exit 3
  silent      read stdin, never answer; exit 0 on EOF
  stubborn    never answer, ignore EOF and SIGTERM (only SIGKILL ends it)
"""

import json
import signal
import sys
import time


def out(obj: dict) -> None:
    sys.stdout.buffer.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
    sys.stdout.buffer.flush()


def main() -> int:
    mode = sys.argv[1]
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # Tests wait for this line: a SIGTERM sent before the handler is set would end the stub.
        sys.stderr.write("stubborn: ignoring SIGTERM\n")
        sys.stderr.flush()
        while True:
            time.sleep(1)
    held = []
    for raw in sys.stdin.buffer:
        cmd = json.loads(raw)
        if mode == "reverse":
            held.append(cmd)
            if len(held) == 2:
                out({"type": "session_info_changed", "name": "x\u2028y"})
                for c in reversed(held):
                    out(
                        {
                            "id": c["id"],
                            "type": "response",
                            "command": c["type"],
                            "success": True,
                            "data": {"echo": c["id"]},
                        }
                    )
                out(
                    {
                        "type": "response",
                        "command": "parse",
                        "success": False,
                        "error": "Failed to parse command: stray",
                    }
                )
                held.clear()
        elif mode == "die" and cmd.get("type") == "prompt":
            out(
                {
                    "id": cmd["id"],
                    "type": "response",
                    "command": "prompt",
                    "success": True,
                    "data": {"disposition": "started"},
                }
            )
            out({"type": "agent_start"})
            sys.stderr.write("fatal: stub server exploded mid-run\n")
            sys.stderr.flush()
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Session-file checks shared by the reliability tests and the long runs in ``bench/`` (fuzz,
soak, kill): load a session file in our program and, when installed, in upstream pi 1.6, and
compare what they read. The processes are driven with ``tests.support.pi_process``.

Standard library only, so ``bench/`` scripts can import it with the repository root on
``sys.path``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from tests.support.pi_process import OURS, PiProcess, isolated_env, upstream_argv


def load_session(argv_prefix: list[str], session_file: str, root: Path) -> dict[str, Any]:
    """Open ``session_file`` (a private copy) with ``argv_prefix --mode rpc --session`` and
    return ``get_messages`` and ``get_state``; raises if the program cannot load it."""
    work = Path(tempfile.mkdtemp(prefix="load-", dir=root))
    try:
        copy = work / Path(session_file).name
        shutil.copyfile(session_file, copy)
        (work / "cwd").mkdir()
        pi = PiProcess(
            [*argv_prefix, "--mode", "rpc", "--session", str(copy)],
            isolated_env(work, faux=False),
            work / "cwd",
            lenient=True,
        )
        try:
            pi.send({"id": "m", "type": "get_messages"})
            pi.send({"id": "s", "type": "get_state"})
            messages = pi.response("m", timeout=60)
            state = pi.response("s", timeout=60)
            if not (messages.get("success") and state.get("success")):
                raise AssertionError(f"load failed: {messages} {state}")
            rc = pi.close(timeout=60)
            if rc != 0:
                raise AssertionError(f"exit {rc}: {pi.stderr[-2000:]}")
            return {"messages": messages["data"]["messages"], "state": state["data"], "stderr": pi.stderr}
        finally:
            pi.kill()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_session_file(session_file: str, root: Path, *, upstream: bool = True) -> dict[str, Any]:
    """Every complete line is JSON, ours loads it, and upstream (when installed and asked)
    loads it with the same messages. Returns ours' view and whether upstream was checked."""
    data = Path(session_file).read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    for line in complete.split(b"\n")[:-1]:
        json.loads(line)
    ours = load_session(OURS, session_file, root)
    checked_upstream = False
    up_argv = upstream_argv() if upstream else None
    if up_argv is not None:
        theirs = load_session(up_argv, session_file, root)
        if theirs["messages"] != ours["messages"]:
            raise AssertionError(f"upstream reads {session_file} differently")
        checked_upstream = True
    return {"ours": ours, "upstream_checked": checked_upstream, "torn_tail": complete != data}

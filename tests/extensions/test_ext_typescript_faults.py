"""TypeScript extensions that misbehave, and a Node that is missing or too old (issue 33 §3,
"Faults" and "Bad input"): real ``pi --mode rpc`` processes with real Node sidecars.

Where upstream defines the behaviour (a throw at load, a throw in a handler, a captured ``pi``
used after session replacement) the same extension runs under upstream too and the facts must
match. The rest is ours: a sidecar that dies or hangs is reported, its tools fail with a clear
error, it is restarted once per run, and no response or session entry is lost; an extension's
stdout never reaches the RPC wire; with no usable Node the extensions are skipped with one
warning and the session goes on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .ext_upstream import OURS, REPO, UPSTREAM, UPSTREAM_AVAILABLE, Run, drive
from .ts_support import node_available, node_modules_env

pytestmark = pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])")

LOAD_THROW = 'export default function (pi) {\n  throw new Error("boom at load");\n}\n'

HANDLER_THROW = """
export default function (pi) {
  pi.on("tool_call", (event) => {
    if (event.input.command === "echo explode") throw new Error("gate exploded");
  });
  pi.on("input", (event, ctx) => {
    ctx.ui.notify(`seen: ${event.text}`, "info");
  });
  pi.on("before_agent_start", async () => {
    throw new Error("start exploded");
  });
}
"""

OTHER_GATE = """
export default function (pi) {
  pi.on("before_agent_start", (event, ctx) => {
    ctx.ui.notify("other: before start", "info");
  });
  pi.on("tool_call", (event, ctx) => {
    ctx.ui.notify(`other gate saw ${event.input.command}`, "info");
  });
}
"""

STALE_API = """
let saved;
export default function (pi) {
  pi.on("session_start", (event, ctx) => {
    if (saved) {
      try {
        saved.getSessionName();
        ctx.ui.notify("old pi still works", "info");
      } catch (error) {
        ctx.ui.notify(`old pi: ${error.message}`, "info");
      }
    }
    saved = pi;
  });
}
"""

CRASHY = """
import { Type } from "typebox";
let calls = 0;
export default function (pi) {
  pi.registerTool({
    name: "die", label: "Die", description: "kills the extension host",
    parameters: Type.Object({}),
    async execute() { process.kill(process.pid, "SIGKILL"); await new Promise(() => {}); },
  });
  pi.registerTool({
    name: "spin", label: "Spin", description: "blocks the event loop",
    parameters: Type.Object({}),
    // Blocks the event loop without burning a core (a busy loop cost the suite 8 s of CPU).
  async execute() { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); },
  });
  pi.registerTool({
    name: "wait", label: "Wait", description: "never resolves",
    parameters: Type.Object({}),
    execute() { return new Promise(() => {}); },
  });
  pi.registerTool({
    name: "count", label: "Count", description: "counts its calls",
    parameters: Type.Object({}),
    async execute() { calls += 1; return { content: [{ type: "text", text: `call ${calls}` }], details: { calls } }; },
  });
}
"""

NOISY = """
console.log("log at load");
process.stdout.write("raw stdout at load\\n");
export default function (pi) {
  console.info("info in factory");
  pi.on("input", () => {
    console.log("log in handler");
    process.stdout.write("raw stdout in handler\\n");
  });
}
"""


def _call(name: str, n: int, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments or {}, "id": f"call_{n}"}]}


def _write(root: Path, name: str, text: str) -> Path:
    path = root / "exts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _tool_results(run: Run) -> list[tuple[str, str, bool]]:
    return [
        (r["toolName"], "".join(c.get("text", "") for c in r["result"].get("content") or []), bool(r.get("isError")))
        for r in run.of("tool_execution_end")
    ]


def _session_tool_results(run: Run) -> list[str]:
    out = []
    for path in run.sessions:
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if entry.get("type") == "message" and entry["message"].get("role") == "toolResult":
                out.append(entry["message"]["toolName"])
    return out


# ---------------------------------------------------------------------------------------------- upstream's rules


def _start_and_fail(argv: list[str], root: Path, ext: Path) -> tuple[int, str]:
    (root / "agent").mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(root),
        "PI_CODING_AGENT_DIR": str(root / "agent"),
        "PI_OFFLINE": "1",
        "PYTHONPATH": str(REPO),
        **node_modules_env(),
    }
    done = subprocess.run(
        [*argv, "--mode", "rpc", "-e", str(ext)],
        input=b'{"id":"1","type":"get_state"}\n',
        capture_output=True,
        env=env,
        cwd=root,
        timeout=120,
    )
    assert done.stdout == b""
    return done.returncode, done.stderr.decode()


def test_a_throw_at_load_stops_startup_as_upstream(tmp_path: Path) -> None:
    ext = _write(tmp_path, "loadthrow.ts", LOAD_THROW)
    code, stderr = _start_and_fail(OURS, tmp_path / "ours", ext)
    line = f'Error: Failed to load extension "{ext}": Failed to load extension: boom at load'
    assert code == 1
    assert line in stderr.splitlines()
    assert 'Hint: Start without extensions using "pi -ne"' in stderr
    if UPSTREAM_AVAILABLE:
        code, theirs = _start_and_fail(UPSTREAM, tmp_path / "upstream", ext)
        assert code == 1 and line in theirs.splitlines()


def _handler_throw(argv: list[str], root: Path, exts: list[Path]) -> Run:
    args: list[str] = []
    for ext in exts:
        args += ["-e", str(ext)]
    return drive(
        argv,
        root,
        [_call("bash", 1, {"command": "echo explode"}), _call("bash", 2, {"command": "echo fine"}), {"text": "ok"}],
        [{"cmd": {"id": "p", "type": "prompt", "message": "go"}, "wait": "agent_settled"}],
        args=tuple(args),
        env=node_modules_env(),
    )


def test_a_throwing_handler_is_an_extension_error_and_the_others_keep_working(tmp_path: Path) -> None:
    exts = [_write(tmp_path, "throwing.ts", HANDLER_THROW), _write(tmp_path, "other.ts", OTHER_GATE)]
    ours = _handler_throw(OURS, tmp_path / "ours", exts)
    mask = str(tmp_path / "exts")
    assert ours.ui(mask) == [
        "seen: go",
        "error <EXT> before_agent_start: start exploded",
        "other: before start",
        "other gate saw echo fine",
    ]
    results = _tool_results(ours)
    assert results[0] == ("bash", "gate exploded", True)  # a throwing tool_call handler blocks (no error record)
    assert results[1][0] == "bash" and not results[1][2]
    if UPSTREAM_AVAILABLE:
        theirs = _handler_throw(UPSTREAM, tmp_path / "upstream", exts)
        assert ours.ui(mask) == theirs.ui(mask)
        assert _tool_results(ours) == _tool_results(theirs)


def _stale(argv: list[str], root: Path, ext: Path) -> Run:
    return drive(
        argv,
        root,
        [],
        [{"cmd": {"id": "n", "type": "new_session"}}, {"cmd": {"id": "s", "type": "get_state"}}],
        args=("-e", str(ext)),
        env=node_modules_env(),
    )


def test_the_api_after_session_replacement_throws_upstreams_stale_error(tmp_path: Path) -> None:
    ext = _write(tmp_path, "stale.ts", STALE_API)
    ours = _stale(OURS, tmp_path / "ours", ext)
    notes = ours.ui()
    assert len(notes) == 1 and notes[0].startswith("old pi: This extension ctx is stale after session replacement")
    assert "ctx.newSession()" in notes[0]
    if UPSTREAM_AVAILABLE:
        assert notes == _stale(UPSTREAM, tmp_path / "upstream", ext).ui()


# ---------------------------------------------------------------------------------------------- the sidecar


def test_a_killed_sidecar_is_restarted_once_then_its_tools_fail_clearly(tmp_path: Path) -> None:
    ext = _write(tmp_path, "crashy.ts", CRASHY)
    script = [
        _call("count", 1),
        _call("die", 2),
        _call("count", 3),
        _call("die", 4),
        _call("count", 5),
        {"text": "done"},
    ]
    run = drive(
        OURS,
        tmp_path / "ours",
        script,
        [
            {"cmd": {"id": "p", "type": "prompt", "message": "go"}, "wait": "agent_settled"},
            {"cmd": {"id": "s", "type": "get_state"}},
            {"cmd": {"id": "m", "type": "get_messages"}},
        ],
        args=("-e", str(ext)),
        env=node_modules_env(),
    )
    assert run.returncode == 0, run.stderr
    results = _tool_results(run)
    assert results[0] == ("count", "call 1", False)
    assert results[1][0] == "die" and results[1][2] and "The TypeScript extension host (Node) stopped" in results[1][1]
    assert results[2] == ("count", "call 1", False)  # a new process: the extension loaded again
    assert results[3][0] == "die" and results[3][2]
    assert results[4][0] == "count" and results[4][2] and "disabled for the rest of this run" in results[4][1]
    assert "restarting it and loading its extensions again" in run.stderr
    assert "stopped again" in run.stderr
    responses = [r["id"] for r in run.records if r.get("type") == "response"]
    assert responses == ["p", "s", "m"]
    assert _session_tool_results(run) == ["count", "die", "count", "die", "count"]


def test_a_hung_sidecar_is_killed_and_restarted(tmp_path: Path) -> None:
    ext = _write(tmp_path, "crashy.ts", CRASHY)
    run = drive(
        OURS,
        tmp_path / "ours",
        [_call("spin", 1), _call("count", 2), {"text": "done"}],
        [{"cmd": {"id": "p", "type": "prompt", "message": "go"}, "wait": "agent_settled"}],
        args=("-e", str(ext)),
        env={**node_modules_env(), "PI_NODE_HANG_TIMEOUT": "8"},
    )
    assert run.returncode == 0, run.stderr
    results = _tool_results(run)
    assert results[0][0] == "spin" and results[0][2] and "did not answer" in results[0][1]
    assert results[1] == ("count", "call 1", False)


def test_a_never_resolving_tool_is_released_by_abort(tmp_path: Path) -> None:
    ext = _write(tmp_path, "crashy.ts", CRASHY)
    run = drive(
        OURS,
        tmp_path / "ours",
        [_call("wait", 1), _call("count", 2), {"text": "done"}],
        [
            {"cmd": {"id": "p", "type": "prompt", "message": "go"}, "wait": "tool_execution_start"},
            {"cmd": {"id": "a", "type": "abort"}, "wait": "agent_settled"},
            {"cmd": {"id": "p2", "type": "prompt", "message": "again"}, "wait": "agent_settled"},
        ],
        args=("-e", str(ext)),
        env=node_modules_env(),
    )
    assert run.returncode == 0, run.stderr
    results = _tool_results(run)
    assert results[0][0] == "wait" and results[0][2]
    assert results[-1] == ("count", "call 1", False)
    assert [r["id"] for r in run.records if r.get("type") == "response"] == ["p", "a", "p2"]


def test_extension_output_never_reaches_the_rpc_wire(tmp_path: Path) -> None:
    ext = _write(tmp_path, "noisy.ts", NOISY)
    # drive() parses every stdout line as JSON: a stray line fails the run.
    run = drive(
        OURS,
        tmp_path / "ours",
        [{"text": "hi"}],
        [{"cmd": {"id": "p", "type": "prompt", "message": "go"}, "wait": "agent_settled"}],
        args=("-e", str(ext)),
        env=node_modules_env(),
    )
    assert run.returncode == 0, run.stderr
    for text in ("log at load", "raw stdout at load", "info in factory", "log in handler", "raw stdout in handler"):
        assert text in run.stderr


# ---------------------------------------------------------------------------------------------- no usable Node


def test_without_a_new_enough_node_the_extensions_are_skipped_with_one_warning(tmp_path: Path) -> None:
    old = tmp_path / "old-node"
    old.write_text("#!/bin/sh\necho v20.20.2\n")
    old.chmod(0o755)
    ext = _write(tmp_path, "hello.ts", "export default function (pi) {}\n")
    run = drive(
        OURS,
        tmp_path / "ours",
        [{"text": "still here"}],
        [{"cmd": {"id": "p", "type": "prompt", "message": "go"}, "wait": "agent_settled"}],
        args=("-e", str(ext)),
        env={"PI_NODE": str(old)},
    )
    assert run.returncode == 0
    warnings = [line for line in run.stderr.splitlines() if "Skipping" in line]
    assert len(warnings) == 1, run.stderr
    assert str(ext) in warnings[0] and "22.19" in warnings[0] and "v20.20.2" in warnings[0]
    assert "pi-rpc[node]" in warnings[0] and "PATH" in warnings[0]
    assert [m["role"] for m in run.of("message_end") for m in [m["message"]]][-1] == "assistant"


def test_without_typescript_extensions_nothing_of_node_is_imported(tmp_path: Path) -> None:
    (tmp_path / "agent").mkdir()
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "PYTHONPATH": str(REPO), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pi_rpc", "--mode", "rpc"],
        input=b'{"id":"1","type":"get_state"}\n',
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert b'"success":true' in done.stdout
    assert b"pi_rpc.extensions.nodejs" not in done.stderr
    assert b"pi_rpc.extensions.discovery" in done.stderr  # the import log is really there


def test_print_mode_runs_a_typescript_tool(tmp_path: Path) -> None:
    """The sidecar serves every mode, not only RPC: ``pi -p`` with upstream's hello.ts."""
    from .ts_support import EXAMPLES

    (tmp_path / "agent").mkdir()
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps([{"toolCalls": [{"name": "hello", "arguments": {"name": "print mode"}}]}, {"text": "finished"}])
    )
    env = {
        **os.environ,
        "PI_CODING_AGENT_DIR": str(tmp_path / "agent"),
        "PYTHONPATH": str(REPO),
        "HOME": str(tmp_path),
        "PI_FAUX_SCRIPT": str(script),
        **node_modules_env(),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pi_rpc",
            "--mode",
            "json",
            "--model",
            "faux/faux-1",
            "-e",
            str(EXAMPLES / "hello.ts"),
            "go",
        ],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    events = [json.loads(line) for line in done.stdout.decode().splitlines() if line.strip()]
    ends = [e for e in events if e.get("type") == "tool_execution_end"]
    assert [(e["toolName"], e["result"]["content"][0]["text"], e["isError"]) for e in ends] == [
        ("hello", "Hello, print mode!", False)
    ]


def test_the_sidecar_sources_ship_in_the_package() -> None:
    """Every file the sidecar runs from is package data (pyproject's globs), or an installed
    pi could not start Node."""
    import fnmatch
    import tomllib

    from pi_rpc.extensions.nodejs import locate

    globs = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["pi_rpc"]
    package = REPO / "pi_rpc"
    for name in (*locate.SOURCES, "package.json", "package-lock.json"):
        path = locate.JS_DIR / name
        assert path.is_file(), name
        rel = path.relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(rel, glob) for glob in globs), rel


PY_MIXED = """
def setup(pi):
    async def transform(event, ctx):
        return {"action": "transform", "text": event["text"] + " +py"}

    pi.on("input", transform)
    pi.events.on("from-ts", lambda data: pi.events.emit("py-saw", {"got": data["n"]}))

    async def announce(args, ctx):
        pi.events.emit("from-py", {"n": 7})

    pi.register_command("py-emit", {"description": "emit from Python", "handler": announce})
"""

TS_MIXED = """
export default function (pi) {
  let ctxRef;
  pi.on("session_start", (_e, ctx) => { ctxRef = ctx; });
  pi.on("input", (event) => ({ action: "transform", text: `${event.text} +ts` }));
  pi.events.on("from-py", (data) => ctxRef.ui.notify(`ts got ${data.n} from python`, "info"));
  pi.events.on("py-saw", (data) => ctxRef.ui.notify(`python saw ${data.got}`, "info"));
  pi.registerCommand("ts-emit", { handler: async () => { pi.events.emit("from-ts", { n: 3 }); } });
}
"""


def test_python_and_typescript_extensions_share_one_order_and_one_bus(tmp_path: Path) -> None:
    py = _write(tmp_path, "a_first.py", PY_MIXED)
    ts = _write(tmp_path, "b_second.ts", TS_MIXED)
    run = drive(
        OURS,
        tmp_path / "ours",
        [{"text": "ok"}],
        [
            {"cmd": {"id": "p", "type": "prompt", "message": "hello"}, "wait": "agent_settled"},
            {"cmd": {"id": "c1", "type": "prompt", "message": "/py-emit"}, "wait": {"message": "ts got 7 from python"}},
            {"cmd": {"id": "c2", "type": "prompt", "message": "/ts-emit"}, "wait": {"message": "python saw 3"}},
            {"cmd": {"id": "s", "type": "get_state"}},
        ],
        args=("-e", str(py), "-e", str(ts)),
        env=node_modules_env(),
    )
    assert run.returncode == 0, run.stderr
    # input transforms chain in load order: the Python extension first, then the TypeScript one
    user = [m["message"] for m in run.of("message_end") if m["message"]["role"] == "user"]
    assert user[0]["content"][0]["text"] == "hello +py +ts"
    assert run.ui() == ["ts got 7 from python", "python saw 3"]

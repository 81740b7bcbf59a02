"""TypeScript extensions, side by side with upstream pi 1.6 (issue 33 §3).

Upstream's own ``examples/extensions/*.ts`` that make sense without a terminal run unchanged
under ``pi --mode rpc`` of both programs, on the same scripted model and the same commands and
dialog answers. What each did is reduced to comparable facts — the event signature, the
``notify`` texts and ``extension_error`` records, the tool results, the request bodies (without
the system prompt's wording), the session's entries (ids and times removed) — and must be
equal. The repository's own ``boundary.ts`` fixture (recorded from upstream) must give the
recorded facts under ours too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .ext_upstream import OURS, UPSTREAM, UPSTREAM_AVAILABLE, Run, drive, signature
from .ts_support import EXAMPLES, node_available, node_modules_env

pytestmark = [
    pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])"),
    pytest.mark.skipif(not EXAMPLES.is_dir(), reason="upstream's examples are not installed"),
]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "extensions"
_ID = re.compile(r"\b[0-9a-f]{8}\b")
_TIME = re.compile(r"\b\d{10,13}\b")


def _norm(value: Any) -> Any:
    """Ids and times masked inside strings, times (epoch numbers) replaced; JSON-shaped."""
    if isinstance(value, str):
        return _TIME.sub("T", _ID.sub("ID", value))
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return value
    if isinstance(value, int):
        return "T" if 10 <= len(str(abs(value))) <= 13 else value
    if isinstance(value, dict):
        return {str(_norm(k)): _norm(v) for k, v in sorted(value.items())}
    return [_norm(item) for item in value]


def _entries(run: Run) -> list[Any]:
    out = []
    for path in run.sessions:
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            kind = entry.get("type")
            if kind in ("session", "model_change", "thinking_level_change"):
                continue
            if kind == "message":
                message = entry["message"]
                out.append(("message", message.get("role"), message.get("content"), message.get("details")))
            else:
                keep = {k: v for k, v in entry.items() if k not in ("id", "parentId", "timestamp", "targetId")}
                out.append((kind, keep))
    return _norm(out)


def facts(run: Run, ext: Path) -> dict[str, Any]:
    tool_ends = [
        (r["toolName"], r["result"].get("content"), r["result"].get("details"), r.get("isError"))
        for r in run.of("tool_execution_end")
    ]
    responses = [
        (r.get("id"), r.get("command"), r.get("success"), r.get("error"))
        for r in run.records
        if r.get("type") == "response"
    ]
    states = [r["data"].get("sessionName") for r in run.records if r.get("command") == "get_state" and r.get("data")]
    dialogs = [
        {k: v for k, v in r.items() if k not in ("id",)}
        for r in run.of("extension_ui_request")
        if r.get("method") != "notify"
    ]
    pirate = ["PIRATE MODE" in json.dumps(body.get("messages", [])[:1]) for body in run.bodies]
    updates = [_norm(r.get("partialResult")) for r in run.of("tool_execution_update")]
    return {
        "updates": updates,
        "ui": _norm([line.replace(str(ext), "<EXT>") for line in run.ui(str(ext))]),
        "signature": signature(run.records),
        "tools": _norm(tool_ends),
        "responses": responses,
        "sessionNames": states,
        "conversation": _norm(run.conversation()),
        "entries": _entries(run),
        "dialogs": _norm(dialogs),
        "systemPromptEdits": pirate,
    }


def _call(name: str, arguments: dict[str, Any], n: int = 1) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments, "id": f"call_{n}"}]}


def _prompt(pid: str, text: str, wait: Any = "agent_settled") -> dict[str, Any]:
    return {"cmd": {"id": pid, "type": "prompt", "message": text}, "wait": wait}


# name -> (example file, model script, steps)
CASES: dict[str, tuple[str, list[Any], list[dict[str, Any]]]] = {
    "hello-tool": (
        "hello.ts",
        [_call("hello", {"name": "World"}), {"text": "done"}],
        [_prompt("p1", "greet")],
    ),
    "permission-gate-blocks": (
        "permission-gate.ts",
        [_call("bash", {"command": "sudo rm -rf /tmp/nothing-here"}), {"text": "ok"}],
        [
            _prompt("p1", "clean", wait={"type": "extension_ui_request", "method": "select"}),
            {"answer": {"value": "No"}, "method": "select"},
            {"wait": "agent_settled"},
        ],
    ),
    "permission-gate-allows": (
        "permission-gate.ts",
        [_call("bash", {"command": "sudo echo fine"}), {"text": "ok"}],
        [
            _prompt("p1", "go", wait={"type": "extension_ui_request", "method": "select"}),
            {"answer": {"value": "Yes"}, "method": "select"},
            {"wait": "agent_settled"},
        ],
    ),
    "input-transform": (
        "input-transform.ts",
        [{"text": "brief"}],
        [
            {"cmd": {"id": "p1", "type": "prompt", "message": "ping"}},
            _prompt("p2", "?quick What is TypeScript?"),
        ],
    ),
    "session-name": (
        "session-name.ts",
        [{"text": "hi"}],
        [
            _prompt("p0", "hello"),
            {"cmd": {"id": "p1", "type": "prompt", "message": "/session-name"}},
            {"cmd": {"id": "p2", "type": "prompt", "message": "/session-name My Work"}},
            {"cmd": {"id": "p3", "type": "prompt", "message": "/session-name"}},
            {"cmd": {"id": "s", "type": "get_state"}},
        ],
    ),
    "event-bus": (
        "event-bus.ts",
        [],
        [
            {"cmd": {"id": "p1", "type": "prompt", "message": "/emit from the test"}},
            {"cmd": {"id": "s", "type": "get_state"}},
        ],
    ),
    "dynamic-tools": (
        "dynamic-tools.ts",
        [_call("echo_extra", {"message": "hey"}), {"text": "done"}],
        [
            {"cmd": {"id": "c1", "type": "prompt", "message": "/add-echo-tool echo_extra"}},
            {"cmd": {"id": "c2", "type": "prompt", "message": "/add-echo-tool echo_extra"}},
            _prompt("p1", "echo it"),
        ],
    ),
    "todo-tool-state": (
        "todo.ts",
        [
            _call("todo", {"action": "add", "text": "write tests"}, 1),
            _call("todo", {"action": "add", "text": "ship"}, 2),
            _call("todo", {"action": "toggle", "id": 1}, 3),
            _call("todo", {"action": "list"}, 4),
            {"text": "done"},
        ],
        [_prompt("p1", "plan")],
    ),
    "bookmark-labels": (
        "bookmark.ts",
        [{"text": "an answer"}],
        [
            _prompt("p1", "hi"),
            {"cmd": {"id": "b1", "type": "prompt", "message": "/bookmark important"}},
            {"cmd": {"id": "b2", "type": "prompt", "message": "/unbookmark"}},
            {"cmd": {"id": "b3", "type": "prompt", "message": "/unbookmark"}},
        ],
    ),
    "confirm-destructive": (
        "confirm-destructive.ts",
        [{"text": "an answer"}],
        [
            _prompt("p1", "hi"),
            {"cmd": {"id": "n1", "type": "new_session"}, "wait": {"type": "extension_ui_request", "method": "confirm"}},
            {"answer": {"confirmed": False}, "method": "confirm"},
            {"wait": "response"},
            {"cmd": {"id": "s", "type": "get_state"}},
        ],
    ),
    "pirate-before-agent-start": (
        "pirate.ts",
        [{"text": "plain"}, {"text": "arr"}],
        [
            _prompt("p1", "hello"),
            {"cmd": {"id": "c1", "type": "prompt", "message": "/pirate"}},
            _prompt("p2", "hello again"),
        ],
    ),
    "protected-paths": (
        "protected-paths.ts",
        [
            _call("write", {"path": ".env", "content": "SECRET=1"}, 1),
            _call("write", {"path": "ok.txt", "content": "fine"}, 2),
            {"text": "done"},
        ],
        [_prompt("p1", "write")],
    ),
    "timed-dialogs": (
        "timed-confirm.ts",
        [],
        [
            {
                "cmd": {"id": "c1", "type": "prompt", "message": "/timed"},
                "wait": {"type": "extension_ui_request", "method": "confirm"},
            },
            {"answer": {"confirmed": True}, "method": "confirm"},
            {"wait": "response"},
            {
                "cmd": {"id": "c2", "type": "prompt", "message": "/timed-select"},
                "wait": {"type": "extension_ui_request", "method": "select"},
            },
            {"answer": {"value": "Option B"}, "method": "select"},
            {"wait": "response"},
            {"cmd": {"id": "s", "type": "get_state"}},
        ],
    ),
    "inline-bash-input": (
        "inline-bash.ts",
        [{"text": "seen"}],
        [_prompt("p1", "what does !{echo inline-output} say?")],
    ),
    "structured-output-terminate": (
        "structured-output.ts",
        [
            _call("structured_output", {"headline": "Done", "summary": "All good", "actionItems": ["a", "b"]}),
            {"text": "never"},
        ],
        [_prompt("p1", "report")],
    ),
    "reload-runtime-tool": (
        "reload-runtime.ts",
        [_call("reload_runtime", {}), {"text": "after reload"}],
        [_prompt("p1", "reload please")],
    ),
    "reload-runtime-command": (
        "reload-runtime.ts",
        [_call("reload_runtime", {}), {"text": "after reload"}],
        [
            {"cmd": {"id": "c1", "type": "prompt", "message": "/reload-runtime"}},
            {"cmd": {"id": "c2", "type": "prompt", "message": "/reload-runtime"}},
            {"cmd": {"id": "s", "type": "get_state"}},
        ],
    ),
    "shutdown-tool": (
        "shutdown-command.ts",
        [_call("deploy_and_exit", {"environment": "staging"}), {"text": "bye"}],
        [_prompt("p1", "deploy", wait="agent_settled"), {"close": True}],
    ),
    "send-user-message": (
        "send-user-message.ts",
        [{"text": "answered"}],
        [
            _prompt("p1", "/ask What is 2+2?"),
            {"cmd": {"id": "s", "type": "get_state"}},
        ],
    ),
}


TOUR = (
    [_call("progress", {"steps": 5}), {"text": "after progress"}],
    [
        {
            "cmd": {"id": "t", "type": "prompt", "message": "/tour"},
            "wait": {"type": "extension_ui_request", "method": "input"},
        },
        {"answer": {"value": "Ada"}, "method": "input"},
        {"answer": {"value": "edited"}, "method": "editor"},
        {"answer": {"confirmed": True}, "method": "confirm"},
        {"wait": "response"},
        _prompt("p1", "progress please"),
        {"cmd": {"id": "s", "type": "get_state"}},
    ],
)


NEW_SESSION: tuple[list[Any], list[dict[str, Any]]] = (
    [],
    [{"cmd": {"id": "c", "type": "prompt", "message": "/fresh"}}, {"cmd": {"id": "m", "type": "get_messages"}}],
)


def _run(argv: list[str], case: str, root: Path) -> dict[str, Any]:
    extra: tuple[str, ...] = ()
    if case == "api-tour":
        ext = FIXTURES / "api_tour.ts"
        script, steps = TOUR
        extra = ("--tour-flag", "given")
    elif case == "new-session-with-session":
        ext = FIXTURES / "new_session.ts"
        script, steps = NEW_SESSION
    else:
        file, script, steps = CASES[case]
        ext = EXAMPLES / file
    run = drive(argv, root, script, steps, args=("-e", str(ext), *extra), env=node_modules_env())
    assert run.returncode == 0, run.stderr
    return facts(run, ext)


@pytest.mark.skipif(not UPSTREAM_AVAILABLE, reason="upstream pi 1.6 not installed")
@pytest.mark.parametrize("case", [*sorted(CASES), "api-tour", "new-session-with-session"])
def test_upstream_example_runs_as_under_upstream(case: str, tmp_path: Path) -> None:
    ours = _run(OURS, case, tmp_path / "ours")
    theirs = _run(UPSTREAM, case, tmp_path / "upstream")
    for key in theirs:
        assert ours[key] == theirs[key], key


def test_boundary_fixture_in_typescript_matches_upstream_record(tmp_path: Path) -> None:
    from .test_ext_boundaries import EXPECTED, _facts, _script, _steps

    ext = FIXTURES / "boundary.ts"
    run = drive(OURS, tmp_path, _script(), _steps(), args=("-e", str(ext)), env=node_modules_env())
    assert run.returncode == 0, run.stderr
    expected = json.loads(EXPECTED.read_text())
    ours = _facts(run, ext)
    assert ours["ui"] == expected["ui"]
    assert ours["appended"] == expected["appended"]
    assert ours["signature"] == expected["signature"]
    assert ours["conversation"] == expected["conversation"]


@pytest.mark.skipif(not UPSTREAM_AVAILABLE, reason="upstream pi 1.6 not installed")
@pytest.mark.parametrize("decision", ["undecided", "no", "boom"])
def test_project_trust_handlers_in_typescript_as_upstream(tmp_path: Path, decision: str) -> None:
    """``trust.ts`` decides project trust before the project (and its own ``project.ts``)
    loads: the trust pass's extensions are reused by the final load, in ours as in upstream."""
    from .test_ext_project_trust import _run as trust_run

    ext = FIXTURES / "trust.ts"
    env = {"TRUST_DECISION": decision, **node_modules_env()}
    ours_run, ours_names, ours_err = trust_run(OURS, tmp_path / "ours", ext, env)
    up_run, up_names, up_err = trust_run(UPSTREAM, tmp_path / "up", ext, env)
    assert ours_names == up_names
    assert ours_run.ui() == up_run.ui()

    def norm(lines: list[str], root: Path) -> list[str]:
        return [line.replace(str((root / "cwd").resolve()), "<CWD>") for line in lines]

    assert norm(ours_err, tmp_path / "ours") == norm(up_err, tmp_path / "up")

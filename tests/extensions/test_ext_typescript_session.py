"""Session control from a TypeScript extension, side by side with upstream pi 1.6 (issue 33 §3).

``setup_prepare.ts``: ``ctx.newSession({ setup })`` writing to the new session's SessionManager
(and a setup that throws), and a tool's ``prepareArguments`` folding a legacy argument shape.
``echo_provider.ts``: a provider whose ``streamSimple`` is JavaScript (text, a tool call, an error
event, a throw); its events reach the agent loop and the wire as upstream's do.

``tests/fixtures/extensions/session_control.ts`` calls ``ctx.fork`` (before and at an entry),
``ctx.switchSession`` (to a remembered file and to a missing one), ``ctx.navigateTree`` (to an
entry and to a missing one), ``ctx.waitForIdle`` (idle and during a run), ``ctx.compact`` with
``onComplete``, ``ctx.abort`` from a tool, and reads ``ctx.signal`` in events and tools. Both
programs run it under ``--mode rpc`` on the same scripted model with the same commands; the
comparable facts (events, notify texts, responses, tool results, request bodies, session
entries) must be equal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .ext_upstream import OURS, UPSTREAM, UPSTREAM_AVAILABLE, drive
from .test_ext_typescript import FIXTURES, _norm, facts
from .ts_support import node_available, node_modules_env

pytestmark = [
    pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])"),
    pytest.mark.skipif(not UPSTREAM_AVAILABLE, reason="upstream pi 1.6 not installed"),
]

EXT = FIXTURES / "session_control.ts"


def _prompt(pid: str, text: str, wait: Any = "agent_settled") -> dict[str, Any]:
    return {"cmd": {"id": pid, "type": "prompt", "message": text}, "wait": wait}


def _command(pid: str, text: str) -> dict[str, Any]:
    return {"cmd": {"id": pid, "type": "prompt", "message": text}}


MESSAGES = {"cmd": {"id": "m", "type": "get_messages"}}
STATE = {"cmd": {"id": "s", "type": "get_state"}}

# name -> (model script, steps)
CASES: dict[str, tuple[Any, list[dict[str, Any]]]] = {
    "fork-before": (
        [{"text": "first answer"}, {"text": "second answer"}],
        [_prompt("p1", "one"), _prompt("p2", "two"), _command("c1", "/fork-first"), MESSAGES],
    ),
    "fork-at": (
        [{"text": "first answer"}, {"text": "second answer"}],
        [_prompt("p1", "one"), _prompt("p2", "two"), _command("c1", "/fork-first at"), MESSAGES],
    ),
    "switch-session": (
        [{"text": "alpha answer"}, {"text": "beta answer"}],
        [
            _prompt("p1", "alpha"),
            _command("c1", "/remember"),
            {"cmd": {"id": "n", "type": "new_session"}},
            _prompt("p2", "beta"),
            _command("c2", "/switch"),
            MESSAGES,
            _command("c3", "/switch missing"),
            MESSAGES,
        ],
    ),
    "navigate-tree": (
        [{"text": "first answer"}, {"text": "second answer"}],
        [
            _prompt("p1", "one"),
            _prompt("p2", "two"),
            _command("c1", "/nav"),
            MESSAGES,
            _command("c2", "/nav missing"),
        ],
    ),
    "wait-and-compact": (
        {
            "turns": [{"text": "first answer"}, {"text": "second answer"}],
            "rules": [{"no_tools": True, "turn": {"text": "THE SUMMARY"}}],
        },
        [
            _prompt("p1", "one"),
            _prompt("p2", "two"),
            _command("c1", "/wait"),
            _command("c2", "/squash"),
            MESSAGES,
        ],
    ),
    "compact-done": (
        {
            "turns": [{"text": "first answer " * 40}, {"text": "second answer " * 40}],
            "rules": [{"no_tools": True, "turn": {"text": "THE SUMMARY"}}],
        },
        [
            _prompt("p1", "one"),
            _prompt("p2", "two"),
            _command("c1", "/squash"),
            MESSAGES,
        ],
    ),
    "wait-during-run": (
        [{"text": "slow answer", "initial_delay_ms": 1200}],
        [
            _prompt("p1", "slowly", wait="agent_start"),
            _command("c1", "/wait"),
        ],
    ),
    "abort-and-signal": (
        [{"tool_calls": [{"name": "halt", "arguments": {}, "id": "call_1"}]}, {"text": "never"}],
        [_prompt("p1", "halt please"), MESSAGES],
    ),
}


SETUP_EXT = FIXTURES / "setup_prepare.ts"
# name -> (model script, steps), run with setup_prepare.ts
SETUP_CASES: dict[str, tuple[Any, list[dict[str, Any]]]] = {
    "new-session-setup": (
        [{"text": "kicked off"}],
        [_command("c1", "/fresh-setup"), MESSAGES, STATE],
    ),
    "new-session-setup-throws": (
        [],
        [_command("c1", "/bad-setup"), MESSAGES, STATE],
    ),
    "prepare-arguments": (
        [
            {
                "tool_calls": [
                    {"name": "patch", "arguments": {"path": "a.txt", "oldText": "x", "newText": "y"}, "id": "c1"},
                    {"name": "patch", "arguments": {"path": "b.txt", "edits": []}, "id": "c2"},
                    {"name": "patch", "arguments": {"path": "c.txt", "oldText": 1}, "id": "c3"},
                ]
            },
            {"text": "patched"},
        ],
        [_prompt("p1", "patch them"), MESSAGES],
    ),
}


PROVIDER_EXT = FIXTURES / "echo_provider.ts"
# name -> steps, run with echo_provider.ts and its model (the scripted model is never asked)
PROVIDER_CASES: dict[str, list[dict[str, Any]]] = {
    "stream-simple": [
        {"cmd": {"id": "sm", "type": "set_model", "provider": "echo-ai", "modelId": "echo-1"}},
        _prompt("p1", "hello"),
        _prompt("p2", "use the tool"),
        _prompt("p3", "fail"),
        _prompt("p4", "throw"),
        MESSAGES,
        STATE,
    ],
}


def _run(argv: list[str], case: str, root: Path) -> dict[str, Any]:
    if case in PROVIDER_CASES:
        return _run_provider(argv, case, root)
    ext = SETUP_EXT if case in SETUP_CASES else EXT
    script, steps = SETUP_CASES[case] if case in SETUP_CASES else CASES[case]
    settings = {"compaction": {"keepRecentTokens": 10}} if case == "compact-done" else None
    run = drive(argv, root, script, steps, args=("-e", str(ext)), settings=settings, env=node_modules_env())
    assert run.returncode == 0, run.stderr
    out = facts(run, ext)
    out["messages"] = [
        [(m.get("role"), m.get("customType"), m.get("content")) for m in r["data"]["messages"]]
        for r in run.records
        if r.get("type") == "response" and r.get("command") == "get_messages" and r.get("success")
    ]
    out["sessionFiles"] = len(run.sessions)
    # The summary request's prompt and the system prompt a compaction entry records are our own
    # wording (protocol/README §8.14): the summary requests (no tools) and those fields are left out.
    out["conversation"] = [request for request in out["conversation"] if request[-1] != ["tools", []]]
    out["summaryRequests"] = sum(1 for body in run.bodies if not body.get("tools"))
    out["entries"] = [_compaction_facts(entry) for entry in out["entries"]]
    return out


def _run_provider(argv: list[str], case: str, root: Path) -> dict[str, Any]:
    args = ("-e", str(PROVIDER_EXT))
    run = drive(argv, root, [], PROVIDER_CASES[case], args=args, env=node_modules_env())
    assert run.returncode == 0, run.stderr
    assert not run.bodies  # every answer came from the extension's provider
    out = facts(run, PROVIDER_EXT)
    out["assistant"] = _norm(
        [
            {
                key: r["message"].get(key)
                for key in ("content", "stopReason", "errorMessage", "provider", "model", "api")
            }
            for r in run.of("message_end")
            if r["message"].get("role") == "assistant"
        ]
    )
    out["deltas"] = [
        r["assistantMessageEvent"].get("delta")
        for r in run.of("message_update")
        if r.get("assistantMessageEvent", {}).get("type") == "text_delta"
    ]
    out["model"] = [
        (r["data"]["model"] or {}).get("id") for r in run.records if r.get("command") == "get_state" and r.get("data")
    ]
    return out


def _compaction_facts(entry: Any) -> Any:
    if entry[0] != "compaction":
        return entry
    keep = ("summary", "firstKeptEntryId", "fromHook", "tokensBefore", "details", "type")
    return ["compaction", {key: entry[1].get(key) for key in keep}]


@pytest.mark.parametrize("case", sorted(CASES) + sorted(SETUP_CASES) + sorted(PROVIDER_CASES))
def test_session_control_as_upstream(case: str, tmp_path: Path) -> None:
    ours = _run(OURS, case, tmp_path / "ours")
    theirs = _run(UPSTREAM, case, tmp_path / "upstream")
    for key in theirs:
        assert ours[key] == theirs[key], key

"""Virtual models (``pi.registerVirtualModel``), side by side with upstream pi 1.6.

``tests/fixtures/extensions/virtual_router.ts`` registers ``router/auto`` (routes to the scripted
provider's models by the selected level, keeps a counter as router state, reports every request
it sees), ``router/broken`` (throws), ``router/loop`` (routes to a virtual model) and a
``router/gone`` it removes again. Both programs select them with ``set_model`` and ``--model``
and prompt on the same scripted model; the listed models, the router's view of each request
(reason, levels, previous response, state, roles), the assistant messages (the physical model
and level, the errors), the request bodies' models and the session entries (the selection and
the ``pi.virtual-model-state`` entries) must be equal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .ext_upstream import OURS, UPSTREAM, UPSTREAM_AVAILABLE, drive
from .test_ext_typescript import FIXTURES, _norm
from .ts_support import node_available, node_modules_env

pytestmark = [
    pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])"),
    pytest.mark.skipif(not UPSTREAM_AVAILABLE, reason="upstream pi 1.6 not installed"),
]

EXT = FIXTURES / "virtual_router.ts"


def _prompt(pid: str, text: str) -> dict[str, Any]:
    return {"cmd": {"id": pid, "type": "prompt", "message": text}, "wait": "agent_settled"}


def _model(pid: str, model_id: str) -> dict[str, Any]:
    return {"cmd": {"id": pid, "type": "set_model", "provider": "router", "modelId": model_id}}


SCRIPT = [
    {"tool_calls": [{"name": "note", "arguments": {"text": "a"}, "id": "call_1"}]},
    {"text": "noted it"},
    {"text": "second answer"},
    {"text": "third answer"},
]

STEPS = [
    {"cmd": {"id": "models", "type": "get_available_models"}},
    _model("m1", "auto"),
    {"cmd": {"id": "t1", "type": "set_thinking_level", "level": "high"}},
    _prompt("p1", "use the tool"),
    _prompt("p2", "again"),
    {"cmd": {"id": "t2", "type": "set_thinking_level", "level": "low"}},
    _prompt("p3", "once more"),
    {"cmd": {"id": "s1", "type": "get_state"}},
    _model("m2", "broken"),
    _prompt("p4", "break"),
    _model("m3", "loop"),
    _prompt("p5", "loop"),
    _model("m4", "gone"),
]


def _entries(paths: list[Path]) -> list[Any]:
    out: list[Any] = []
    for path in paths:
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            kind = entry.get("type")
            if kind == "model_change":
                out.append((kind, entry.get("provider"), entry.get("modelId")))
            elif kind == "thinking_level_change":
                out.append((kind, entry.get("thinkingLevel")))
            elif kind == "custom":
                out.append((kind, entry.get("customType"), entry.get("data")))
            elif kind == "message":
                m = entry["message"]
                if m.get("role") == "assistant":
                    out.append(
                        (
                            "assistant",
                            m.get("provider"),
                            m.get("model"),
                            m.get("thinkingLevel"),
                            m.get("stopReason"),
                            m.get("errorMessage"),
                        )
                    )
                else:
                    out.append((m.get("role"),))
    return out


def _run(argv: list[str], root: Path) -> dict[str, Any]:
    run = drive(argv, root, SCRIPT, STEPS, args=("-e", str(EXT)), env=node_modules_env())
    assert run.returncode == 0, run.stderr
    responses = {r.get("id"): r for r in run.records if r.get("type") == "response"}
    listed = [
        (m["provider"], m["id"], m.get("api"), m.get("reasoning"), m.get("contextWindow"))
        for m in responses["models"]["data"]["models"]
        if m["provider"] == "router"
    ]
    state = responses["s1"]["data"]
    return {
        "listed": listed,
        "responses": [(r.get("id"), r.get("success"), r.get("error")) for r in responses.values()],
        "notices": run.ui(str(EXT)),
        "state": (state["model"]["provider"], state["model"]["id"], state["thinkingLevel"]),
        "assistant": [
            (
                r["message"].get("provider"),
                r["message"].get("model"),
                r["message"].get("thinkingLevel"),
                r["message"].get("stopReason"),
                r["message"].get("errorMessage"),
            )
            for r in run.of("message_end")
            if r["message"].get("role") == "assistant"
        ],
        "requestModels": [body.get("model") for body in run.bodies],
        "entries": _norm(_entries(run.sessions)),
        "appended": [r["entry"].get("data") for r in run.of("entry_appended")],
    }


def test_virtual_models_as_upstream(tmp_path: Path) -> None:
    ours = _run(OURS, tmp_path / "ours")
    theirs = _run(UPSTREAM, tmp_path / "upstream")
    for key in theirs:
        assert ours[key] == theirs[key], key
    assert ("router", "auto", "pi-virtual", True, 50000) in ours["listed"]
    assert ours["requestModels"][:2] == ["conf-reasoner", "conf-reasoner"]


PY_ROUTER = """
def setup(pi):
    async def route(request, ctx):
        ctx.ui.notify(f"py route {request['reason']} {request['thinkingLevel']} {request.get('state')}")
        state = {"turns": ((request.get("state") or {}).get("turns") or 0) + 1}
        return {"model": ctx.model_registry.find("conf", "conf-reasoner"), "thinkingLevel": "xhigh", "state": state}

    pi.register_virtual_model({"provider": "pyrouter", "id": "auto", "name": "Py Auto",
                               "thinkingLevels": ["off", "high"], "route": route})
"""


def test_python_extension_registers_a_virtual_model(tmp_path: Path) -> None:
    ext = tmp_path / "py_router.py"
    ext.write_text(PY_ROUTER)
    steps = [
        {"cmd": {"id": "t", "type": "set_thinking_level", "level": "high"}},
        _prompt("p1", "hello"),
        _prompt("p2", "again"),
        {"cmd": {"id": "s", "type": "get_state"}},
    ]
    script = [{"text": "one"}, {"text": "two"}]
    run = drive(OURS, tmp_path / "run", script, steps, args=("-e", str(ext), "--model", "pyrouter/auto"))
    assert run.returncode == 0, run.stderr
    assert run.ui() == ["py route user high None", "py route user high {'turns': 1}"]
    assistant = [r["message"] for r in run.of("message_end") if r["message"].get("role") == "assistant"]
    # the routed model answered, at the level clamped to it; the selection stays virtual
    assert [(m["provider"], m["model"], m["thinkingLevel"]) for m in assistant] == [
        ("conf", "conf-reasoner", "high")
    ] * 2
    state = next(r for r in run.records if r.get("id") == "s")["data"]
    assert (state["model"]["provider"], state["model"]["id"], state["thinkingLevel"]) == ("pyrouter", "auto", "high")
    assert [body.get("model") for body in run.bodies] == ["conf-reasoner", "conf-reasoner"]
    stored = [json.loads(line) for line in run.sessions[0].read_text().splitlines()]
    assert [e["data"]["state"] for e in stored if e.get("customType") == "pi.virtual-model-state"] == [
        {"turns": 1},
        {"turns": 2},
    ]


def test_a_compaction_under_a_virtual_selection_is_routed_direct(tmp_path: Path) -> None:
    ext = tmp_path / "py_router.py"
    ext.write_text(PY_ROUTER)
    steps = [_prompt("p1", "hello"), _prompt("p2", "again"), {"cmd": {"id": "c", "type": "compact"}}]
    run = drive(
        OURS,
        tmp_path / "run",
        [{"text": "one " * 40}, {"text": "two " * 40}, {"text": "the summary"}],
        steps,
        args=("-e", str(ext), "--model", "pyrouter/auto"),
        settings={"compaction": {"keepRecentTokens": 1}},
    )
    assert run.returncode == 0, run.stderr
    compacted = next(r for r in run.records if r.get("id") == "c")
    assert compacted["success"], compacted.get("error")
    assert run.ui() == ["py route user high None", "py route user high {'turns': 1}", "py route direct high None"]
    assert len(run.bodies) >= 3 and {body.get("model") for body in run.bodies} == {"conf-reasoner"}
    stored = [json.loads(line) for line in run.sessions[0].read_text().splitlines()]
    # a direct request stores no router state
    assert [e["data"]["state"] for e in stored if e.get("customType") == "pi.virtual-model-state"] == [
        {"turns": 1},
        {"turns": 2},
    ]


def test_compaction_threshold_uses_the_routed_models_limits_as_upstream(tmp_path: Path) -> None:
    """``router/auto`` declares a 50000-token window; the models it routes to have 128000. A
    60000-token reply stays under the routed model's threshold (no compaction), a 120000-token
    one goes over it (a threshold compaction, its summary routed ``direct``)."""
    script = [
        {"text": "first", "usage": {"prompt_tokens": 60000}},
        {"text": "second", "usage": {"prompt_tokens": 120000}},
        {"text": "the summary"},
        {"text": "third"},
    ]
    steps = [
        _model("m", "auto"),
        {"cmd": {"id": "t", "type": "set_thinking_level", "level": "high"}},
        _prompt("p1", "one"),
        _prompt("p2", "two"),
        _prompt("p3", "three"),
    ]

    def run(argv: list[str], root: Path) -> dict[str, Any]:
        done = drive(
            argv,
            root,
            script,
            steps,
            args=("-e", str(EXT)),
            env=node_modules_env(),
            settings={"compaction": {"keepRecentTokens": 1}},
        )
        assert done.returncode == 0, done.stderr
        return {
            "compactions": [
                (r["type"], r.get("reason"), r.get("willRetry"), r.get("errorMessage"))
                for r in done.records
                if r.get("type") in ("compaction_start", "compaction_end")
            ],
            "requestModels": [body.get("model") for body in done.bodies],
            "texts": [
                "".join(c.get("text", "") for c in r["message"].get("content") or [] if isinstance(c, dict))
                for r in done.of("message_end")
                if r["message"].get("role") == "assistant"
            ],
        }

    ours = run(OURS, tmp_path / "ours")
    theirs = run(UPSTREAM, tmp_path / "upstream")
    assert ours == theirs
    assert [c[:2] for c in ours["compactions"]] == [("compaction_start", "threshold"), ("compaction_end", "threshold")]


def test_a_resumed_session_restores_its_virtual_selection_as_upstream(tmp_path: Path) -> None:
    """A session that selected ``router/auto`` and got a response from ``conf/conf-reasoner``
    resumes on ``router/auto`` while the extension registers it (the response does not override
    the virtual selection), and on the physical model that answered last when it does not."""

    def run(argv: list[str], root: Path) -> list[Any]:
        first = drive(
            argv,
            root,
            [{"text": "a"}],
            [
                _model("m", "auto"),
                {"cmd": {"id": "t", "type": "set_thinking_level", "level": "high"}},
                _prompt("p", "one"),
            ],
            args=("-e", str(EXT)),
            env=node_modules_env(),
        )
        assert first.returncode == 0, first.stderr
        seen: list[Any] = []
        for args in (("-c", "-e", str(EXT)), ("-c",)):
            steps = [{"cmd": {"id": "s", "type": "get_state"}}, _prompt("p", "again")]
            done = drive(argv, root, [{"text": "b"}], steps, args=args, env=node_modules_env())
            assert done.returncode == 0, done.stderr
            state = next(r for r in done.records if r.get("id") == "s")["data"]
            reply = [r["message"] for r in done.of("message_end") if r["message"].get("role") == "assistant"][-1]
            seen.append(
                (
                    state["model"]["provider"],
                    state["model"]["id"],
                    state["thinkingLevel"],
                    reply.get("provider"),
                    reply.get("model"),
                    [body.get("model") for body in done.bodies],
                )
            )
        return seen

    ours = run(OURS, tmp_path / "ours")
    assert ours == run(UPSTREAM, tmp_path / "upstream")
    assert [s[:2] for s in ours] == [("router", "auto"), ("conf", "conf-reasoner")]


SWITCH = FIXTURES / "virtual_switch.ts"


def test_a_routed_request_compacts_first_when_its_model_is_smaller_as_upstream(tmp_path: Path) -> None:
    """``switch/auto`` answers the first prompt on ``conf/conf-model`` (128000 tokens) and later
    requests on ``small/tiny`` (30000). A 25000-token context is under the first model's
    threshold, so the check before the second prompt passes; the request routed to ``tiny``
    crosses its threshold (30000 − 16384), so a threshold compaction runs after the routing
    and before that request, which is sent with the compacted context. The tool call
    ``tiny`` answers with 20000 tokens crosses it again: the next routed request compacts
    first too. The routing notices, the compaction events, the requests (model and roles), the
    replies and the session entries are in upstream's order."""
    script = [
        {"text": "first", "usage": {"prompt_tokens": 25000}},
        {"text": "the summary"},
        {
            "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}, "id": "call_1"}],
            "usage": {"prompt_tokens": 20000},
        },
        {"text": "the second summary"},
        {"text": "second", "usage": {"prompt_tokens": 2000}},
        {"text": "third", "usage": {"prompt_tokens": 2500}},
    ]
    steps = [
        {"cmd": {"id": "m", "type": "set_model", "provider": "switch", "modelId": "auto"}},
        _prompt("p1", "one"),
        _prompt("p2", "two"),
        _prompt("p3", "three"),
    ]

    def run(argv: list[str], root: Path) -> dict[str, Any]:
        done = drive(
            argv,
            root,
            script,
            steps,
            args=("-e", str(SWITCH)),
            env=node_modules_env(),
            settings={"compaction": {"keepRecentTokens": 1}},
            files={"cwd/a.txt": "hello\n"},
        )
        assert done.returncode == 0, done.stderr
        timeline: list[Any] = []
        for r in done.records:
            kind = r.get("type")
            if kind == "extension_ui_request" and r.get("method") == "notify":
                timeline.append(("notify", r.get("message")))
            elif kind in ("compaction_start", "compaction_end"):
                timeline.append((kind, r.get("reason"), r.get("willRetry"), r.get("errorMessage")))
            elif kind == "message_end" and r["message"].get("role") == "assistant":
                m = r["message"]
                timeline.append(("assistant", m.get("provider"), m.get("model"), m.get("stopReason")))
            elif kind == "entry_appended":
                timeline.append(("entry_appended", r["entry"].get("customType"), r["entry"].get("data")))
        return {
            "timeline": timeline,
            "requests": [
                (body.get("model"), [m["role"] for m in body.get("messages", []) if m["role"] != "system"])
                for body in done.bodies
            ],
            "entries": _norm(_entries(done.sessions)),
            "entryTypes": [
                json.loads(line).get("customType") or json.loads(line)["type"]
                for path in done.sessions
                for line in path.read_text().splitlines()
            ],
        }

    ours = run(OURS, tmp_path / "ours")
    theirs = run(UPSTREAM, tmp_path / "upstream")
    assert ours["timeline"] == theirs["timeline"]
    assert ours == theirs
    compactions = [t for t in ours["timeline"] if t[0] == "compaction_start"]
    assert len(compactions) == 2
    assert [model for model, _ in ours["requests"]] == [
        "conf-model",
        "conf-model",
        "tiny",
        "conf-model",
        "tiny",
        "tiny",
    ]

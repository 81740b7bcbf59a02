"""``--model`` naming a provider an extension registers, side by side with upstream pi 1.6.

Upstream resolves ``--model`` only after the extensions loaded and their ``registerProvider``
calls reached the model registry, so ``pi --model echo-ai/echo-1 -e echo_provider.ts`` starts on
the extension's model: ``get_state`` shows it, the first prompt is answered by the extension's
``streamSimple`` and the session file's first ``model_change`` names it. A ``--model`` that is
still unknown once the extensions loaded stops startup (exit 1) with upstream's error text.
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

EXT = FIXTURES / "echo_provider.ts"


def _session_entries(paths: list[Path]) -> list[Any]:
    out = []
    for path in paths:
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            kind = entry.get("type")
            if kind == "model_change":
                out.append((kind, entry.get("provider"), entry.get("modelId")))
            elif kind == "thinking_level_change":
                out.append((kind, entry.get("thinkingLevel")))
            elif kind == "message":
                message = entry["message"]
                out.append((kind, message.get("role"), message.get("provider"), _norm(message.get("content"))))
    return out


def _run(argv: list[str], root: Path, extra: tuple[str, ...]) -> dict[str, Any]:
    steps = [
        {"cmd": {"id": "s1", "type": "get_state"}},
        {"cmd": {"id": "p1", "type": "prompt", "message": "hello"}, "wait": "agent_settled"},
        {"cmd": {"id": "s2", "type": "get_state"}},
    ]
    run = drive(argv, root, [], steps, args=("-e", str(EXT), *extra), env=node_modules_env())
    assert run.returncode == 0, run.stderr
    assert not run.bodies  # the extension's provider answered, never the scripted model
    states = [r["data"] for r in run.records if r.get("command") == "get_state" and r.get("success")]
    return {
        "models": [(s["model"]["provider"], s["model"]["id"], s.get("thinkingLevel")) for s in states],
        "replies": [
            _norm(r["message"].get("content")) for r in run.of("message_end") if r["message"].get("role") == "assistant"
        ],
        "entries": _session_entries(run.sessions),
    }


@pytest.mark.parametrize("extra", [("--model", "echo-ai/echo-1"), ("--provider", "echo-ai", "--model", "echo-1")])
def test_model_of_an_extension_provider_as_upstream(extra: tuple[str, ...], tmp_path: Path) -> None:
    ours = _run(OURS, tmp_path / "ours", extra)
    theirs = _run(UPSTREAM, tmp_path / "upstream", extra)
    assert ours == theirs
    assert ours["models"][0][:2] == ("echo-ai", "echo-1")
    assert ours["entries"][0] == ("model_change", "echo-ai", "echo-1")


def _fails(argv: list[str], root: Path) -> tuple[int | None, list[str]]:
    try:
        run = drive(
            argv,
            root,
            [],
            [{"close": True}],
            args=("-e", str(EXT), "--model", "nope-ai/echo-1"),
            env=node_modules_env(),
        )
    except AssertionError as exc:  # the program exited before the first step
        raise AssertionError(str(exc)) from None
    lines = [line for line in run.stderr.splitlines() if "nope-ai" in line]
    return run.returncode, lines


def test_unknown_model_after_extensions_loaded_as_upstream(tmp_path: Path) -> None:
    ours = _fails(OURS, tmp_path / "ours")
    theirs = _fails(UPSTREAM, tmp_path / "upstream")
    assert ours == theirs
    assert ours == (1, ['Error: Model "nope-ai/echo-1" not found. Use --list-models to see available models.'])

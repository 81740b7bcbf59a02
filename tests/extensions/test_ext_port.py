"""The runtime's extension modules reach the session only through ``SessionPort``: none of them
imports ``pi_rpc.runtime.session``, directly or through another runtime module, not even for
type checking (a ``TYPE_CHECKING`` import is a dependency too); and none uses a private member
of the session or the agent. ``LiveSessionPort`` (``session_port``) implementing the port, and
``AgentSession`` providing what it works on, are checked by mypy where the session creates its
``SessionExtensions``; that the port hands out neither the agent nor the store is gated in
``tests/test_structure.py``."""

from __future__ import annotations

import ast
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest

RUNTIME = Path(__file__).resolve().parents[2] / "pi_rpc" / "runtime"
EXTENSION_MODULES = (
    "extension_host",
    "extension_actions",
    "extension_hooks",
    "extension_state",
    "extension_port",
    "boundaries",
    "nested_tools",
    "tool_loadout",
)


def _runtime_imports(module: str) -> set[str]:
    """The ``pi_rpc.runtime`` modules ``module`` imports anywhere in its source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse((RUNTIME / f"{module}.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pi_rpc.runtime."):
            found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[2] for a in node.names if a.name.startswith("pi_rpc.runtime."))
    return found


def test_no_extension_module_depends_on_the_session_module() -> None:
    for start in EXTENSION_MODULES:
        seen, todo = {start}, [start]
        while todo:
            for imported in _runtime_imports(todo.pop()) - seen:
                seen.add(imported)
                todo.append(imported)
        assert "session" not in seen, start
        assert "host" not in seen, start  # the mixins' attribute bag, which imports the session


def test_no_extension_module_touches_private_members_of_the_session() -> None:
    # ``self.s`` / ``session._x`` / ``agent._x``: what the port replaced.
    private = re.compile(r"\b(?:s|session|agent)\._[a-z]")
    for module in EXTENSION_MODULES:
        source = (RUNTIME / f"{module}.py").read_text(encoding="utf-8")
        assert not private.findall(source), module
        assert "self.s." not in source, module


_EXTENSION = "CAPTURED = {}\n\n\ndef setup(pi):\n    CAPTURED['pi'] = pi\n"


@pytest.fixture
def extension(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An extension that keeps its ``pi`` in ``CAPTURED``, in an isolated, offline agent dir."""
    for key in [k for k in os.environ if k.startswith("PI_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("PI_OFFLINE", "1")
    path = tmp_path / "capture_pi.py"
    path.write_text(_EXTENSION)
    return path


@pytest.mark.anyio
async def test_set_model_goes_from_the_api_to_the_part_that_acts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extension: Path
) -> None:
    """``pi.set_model`` is the API, the port's verb (credentials check) and the model control
    that records it: three frames down to the store write (four before the port had verbs:
    ``ExtensionActions.set_model`` and ``ModelControl.select_model`` only forwarded). A model
    whose provider has no credentials is refused before anything is written."""
    from pi_rpc.runtime import open_session
    from pi_rpc.session.manager import SessionManager

    stacks: list[list[traceback.FrameSummary]] = []
    original = SessionManager.append_model_change

    def spy(self: SessionManager, *args: Any, **kwargs: Any) -> Any:
        stacks.append(traceback.extract_stack()[:-1])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SessionManager, "append_model_change", spy)
    async with open_session(cwd=tmp_path, model="faux/faux-1", extensions=[str(extension)], no_extensions=True) as s:
        module = next(m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == str(extension))
        pi = module.CAPTURED["pi"]
        model = dict(s.agent_session.agent.model or {})
        stacks.clear()
        assert await pi.set_model(model) is True
        assert await pi.set_model({**model, "provider": "no-such-provider"}) is False
        store = s.agent_session.session
        changes = [e for e in store.get_entries() if e.get("type") == "model_change"]
    assert len(stacks) == 1  # the refused model wrote nothing
    assert changes[-1]["provider"] == model["provider"] and changes[-1]["modelId"] == model["id"]
    stack = stacks[0]
    start = next(i for i, f in enumerate(stack) if f.name == "set_model" and f.filename.endswith("api.py"))
    chain = [(Path(f.filename).name, f.name) for f in stack[start:]]
    assert chain == [("api.py", "set_model"), ("session_port.py", "set_model"), ("model_control.py", "apply_model")]


@pytest.mark.anyio
async def test_reads_and_replacements_go_from_ctx_to_the_part_that_acts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extension: Path
) -> None:
    """Issue 32 item 2: ``ctx`` reads the port's view directly (``ctx.get_context_usage()`` is
    ``context.py`` then the session's own ``get_session_stats``; the host's getter that only
    forwarded is gone), and ``ctx.new_session`` is ``context.py``, the host's option
    translation, then the holder (the port binds the holder's command: no forwarding frame)."""
    from pi_rpc.runtime import open_session
    from pi_rpc.runtime.holder import SessionHolder
    from pi_rpc.runtime.session import AgentSession

    stacks: dict[str, list[traceback.FrameSummary]] = {}
    stats = AgentSession.get_session_stats

    def stats_spy(self: AgentSession) -> dict[str, Any]:
        stacks["stats"] = traceback.extract_stack()[:-1]
        return stats(self)

    async def new_session_spy(self: Any, parent_session: str | None = None, **_: Any) -> dict[str, object]:
        stacks["new_session"] = traceback.extract_stack()[:-1]
        return {"cancelled": True}

    monkeypatch.setattr(AgentSession, "get_session_stats", stats_spy)
    monkeypatch.setattr(SessionHolder, "new_session", new_session_spy)
    async with open_session(cwd=tmp_path, model="faux/faux-1", extensions=[str(extension)], no_extensions=True) as s:
        ext = s.agent_session.ext
        assert ext is not None and ext.runner is not None
        ctx = ext.runner.create_command_context()
        ctx.get_context_usage()
        assert await ctx.new_session() == {"cancelled": True}

    def chain(stack: list[traceback.FrameSummary], first: str) -> list[tuple[str, str]]:
        start = next(i for i, f in enumerate(stack) if f.name == first and f.filename.endswith("context.py"))
        return [(Path(f.filename).name, f.name) for f in stack[start:]]

    assert chain(stacks["stats"], "get_context_usage") == [("context.py", "get_context_usage")]
    assert chain(stacks["new_session"], "new_session") == [
        ("context.py", "new_session"),
        ("extension_actions.py", "new_session"),
    ]

"""The runtime's extension modules reach the session only through ``SessionPort``: none of them
imports ``pi_rpc.runtime.session``, directly or through another runtime module, not even for
type checking (a ``TYPE_CHECKING`` import is a dependency too); and none uses a private member
of the session or the agent. ``LiveSessionPort`` (``session_port``) implementing the port, and
``AgentSession`` providing what it works on, are checked by mypy where the session creates its
``SessionExtensions``; that the port hands out neither the agent nor the store is gated in
``tests/test_structure.py``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

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

"""The package's layers import only layers inside them (README "Layout"): modes -> runtime ->
extensions -> agent/tools/session/compaction/resources -> ai, with config, the exception root
(``pi_rpc.errors``) and the stderr logger (``pi_rpc.log``) as leaves anyone may use."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pi_rpc"

# layer -> layers it may import (besides itself and the package root).
ALLOWED: dict[str, set[str]] = {
    "config": set(),
    "ai": set(),
    "resources": {"ai"},  # system-transcript helpers
    "session": {"ai"},  # message and system-transcript helpers
    # the store's projection and token estimates (pure functions), the agent's message conversion
    "compaction": {"ai", "session", "agent"},
    "tools": {"ai", "agent"},
    # pi packages: finding, installing and listing them, and which of their files are resources
    "packages": set(),  # tools implement agent.types.AgentTool
    "agent": {"ai", "tools"},  # the loop validates arguments with the tools' validator
    # extensions sit between the runtime and the inner layers (the runtime wires them in)
    "extensions": {"ai", "agent", "tools", "session", "compaction", "resources", "config", "packages"},
    # MCP sits outside extensions: its session integration is a built-in extension
    "mcp": {"ai", "agent", "tools", "session", "compaction", "resources", "config", "extensions"},
    "runtime": {
        "ai",
        "agent",
        "tools",
        "session",
        "compaction",
        "resources",
        "config",
        "extensions",
        "mcp",
        "packages",
    },
    "modes": {
        "ai",
        "agent",
        "tools",
        "session",
        "compaction",
        "resources",
        "config",
        "runtime",
        "extensions",
        "mcp",
        "packages",
    },
}


# Modules every layer may import; they import no layer themselves (config only itself).
LEAVES = ("config", "errors", "log", "_lazy")


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pi_rpc."):
            found.add(_layer(node.module))
        elif isinstance(node, ast.Import):
            found.update(_layer(a.name) for a in node.names if a.name.startswith("pi_rpc."))
    return found


def test_layers_import_only_inner_layers() -> None:
    problems = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        layer = rel.parts[0] if len(rel.parts) > 1 else ""
        if layer not in ALLOWED:
            continue
        # config, pi_rpc.errors (the exception root), pi_rpc.log (the stderr logger) and
        # pi_rpc._lazy (lazy package exports): leaves for all
        for imported in _imports(path) - {layer, "", *LEAVES}:
            if imported not in ALLOWED[layer]:
                problems.append(f"{rel} imports pi_rpc.{imported}")
    assert problems == []


def test_the_leaves_import_nothing_from_pi_rpc() -> None:
    """What every layer may import must not import a layer back (config only itself)."""
    for leaf in ("errors", "log", "_lazy"):
        assert _imports(PACKAGE / f"{leaf}.py") == set(), leaf
    problems = []
    for path in (PACKAGE / "config").rglob("*.py"):
        extra = _imports(path) - {"config", "errors", "log"}
        if extra:
            problems.append(f"{path.relative_to(PACKAGE)} imports {sorted(extra)}")
    assert problems == []

"""Packages found again on reload (issue 33 §2): a package added to ``settings.json`` while pi
runs loads its extension, skills and prompt templates at the next ``ctx.reload()``, and a removed
one unloads, side by side with upstream pi 1.6 over ``--mode rpc``.

The reloading extension (``add_package.ts``) edits the global settings itself, then reloads; the
package is a local folder (loaded in place), so no registry is involved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .ext_upstream import OURS, UPSTREAM, UPSTREAM_AVAILABLE, drive
from .test_ext_typescript import FIXTURES
from .ts_support import node_available, node_modules_env

pytestmark = pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])")

EXT = FIXTURES / "add_package.ts"

PACKAGE_FILES = {
    "pkg/package.json": json.dumps(
        {
            "name": "reload-pkg",
            "version": "1.0.0",
            "keywords": ["pi-package"],
            "pi": {"extensions": ["./ext.ts"], "skills": ["./skills"], "prompts": ["./prompts"]},
        }
    ),
    "pkg/ext.ts": (
        "export default function (pi: any) {\n"
        '  pi.registerCommand("from-package", { description: "A package command", handler: async (_a: string, ctx: any) => ctx.ui.notify("package command ran", "info") });\n'
        '  pi.on("session_start", (event: any, ctx: any) => ctx.ui.notify(`package saw ${event.reason}`, "info"));\n'
        "}\n"
    ),
    "pkg/skills/pkg-skill/SKILL.md": "---\nname: pkg-skill\ndescription: A skill from the package\n---\nDo it.\n",
    "pkg/prompts/pkg-prompt.md": "---\ndescription: A prompt from the package\n---\nSay hi\n",
}


# Upstream's built-in llama.cpp extension's command (not one of ours).
UPSTREAM_ONLY = {"llama"}


def _commands(record: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted(
        (c["name"], c.get("source", "")) for c in record["data"]["commands"] if c["name"] not in UPSTREAM_ONLY
    )


def _run(argv: list[str], root: Path) -> tuple[list[list[tuple[str, str]]], list[str]]:
    pkg = str(root / "pkg")
    steps: list[dict[str, Any]] = [
        {"cmd": {"id": "g0", "type": "get_commands"}},
        {"cmd": {"id": "a", "type": "prompt", "message": f"/add-package {pkg}"}},
        {"cmd": {"id": "g1", "type": "get_commands"}},
        {"cmd": {"id": "r", "type": "prompt", "message": "/from-package"}},
        {"cmd": {"id": "d", "type": "prompt", "message": "/drop-packages"}},
        {"cmd": {"id": "g2", "type": "get_commands"}},
    ]
    run = drive(argv, root, [], steps, args=("-e", str(EXT)), files=PACKAGE_FILES, env=node_modules_env())
    assert run.returncode == 0, run.stderr
    lists = [_commands(r) for r in run.records if r.get("command") == "get_commands" and r.get("success")]
    return lists, run.ui()


def test_package_added_to_settings_loads_on_reload(tmp_path: Path) -> None:
    lists, ui = _run(OURS, tmp_path / "ours")
    before, after, dropped = lists
    assert ("from-package", "extension") in after and ("from-package", "extension") not in before
    assert any(name == "skill:pkg-skill" for name, _ in after)
    assert any(name == "pkg-prompt" for name, _ in after)
    assert dropped == before
    assert "package saw reload" in ui and "package command ran" in ui


@pytest.mark.skipif(not UPSTREAM_AVAILABLE, reason="upstream pi 1.6 not installed")
def test_package_reload_as_upstream(tmp_path: Path) -> None:
    ours = _run(OURS, tmp_path / "ours")
    theirs = _run(UPSTREAM, tmp_path / "upstream")
    assert ours == theirs

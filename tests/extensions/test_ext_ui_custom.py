"""``ctx.ui.custom()`` in RPC mode, side by side with upstream pi 1.6 (docs/rpc-extension-ui.md:
"custom() returns undefined"): the factory is not called, no ``extension_ui_request`` is sent,
the promise resolves ``undefined`` and the command goes on. A Python extension's
``ctx.ui.custom`` resolves ``None`` the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from .ext_upstream import OURS, UPSTREAM, UPSTREAM_AVAILABLE, drive
from .test_ext_typescript import FIXTURES
from .ts_support import node_available, node_modules_env

EXT = FIXTURES / "custom_ui.ts"
STEPS = [
    {
        "cmd": {"id": "c", "type": "prompt", "message": "/pick"},
        "wait": {"type": "extension_ui_request", "method": "notify"},
    }
]


def _run(argv: list[str], root: Path) -> tuple[list[str], list[str]]:
    run = drive(argv, root, [], STEPS, args=("-e", str(EXT)), env=node_modules_env())
    assert run.returncode == 0, run.stderr
    methods = [str(r.get("method")) for r in run.of("extension_ui_request")]
    return run.ui(), methods


@pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])")
@pytest.mark.skipif(not UPSTREAM_AVAILABLE, reason="upstream pi 1.6 not installed")
def test_custom_resolves_undefined_in_rpc_as_upstream(tmp_path: Path) -> None:
    ours = _run(OURS, tmp_path / "ours")
    theirs = _run(UPSTREAM, tmp_path / "upstream")
    assert ours == theirs
    assert ours == (["custom gave undefined; factory ran: false; mode rpc, hasUI true"], ["notify"])


PY_EXT = """
def setup(pi):
    async def pick(args, ctx):
        built = []
        result = await ctx.ui.custom(lambda *a: built.append(a))
        ctx.ui.notify(f"custom gave {result}; factory ran: {bool(built)}")
    pi.register_command("pick", {"handler": pick})
"""


def test_python_custom_resolves_none_in_rpc(tmp_path: Path) -> None:
    ext = tmp_path / "pick.py"
    ext.write_text(PY_EXT)
    run = drive(OURS, tmp_path / "run", [], STEPS, args=("-e", str(ext)))
    assert run.returncode == 0, run.stderr
    assert run.ui() == ["custom gave None; factory ran: False"]
    assert [r.get("method") for r in run.of("extension_ui_request")] == ["notify"]

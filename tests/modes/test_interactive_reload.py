"""The interactive ``/reload`` reloads extensions and packages as upstream's does (issue 33):
an extension edited since startup runs its new code after ``/reload`` (``session_shutdown`` and
``session_start`` with reason ``reload`` in between), a loose extension added to
``.pi/extensions/`` loads, a package added to ``settings.json`` brings its extension and prompt
template, and the notice is upstream's. Headless under Textual's pilot; the TypeScript case runs
a real Node sidecar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.extensions.ts_support import node_available, node_modules_env

from .interactive_support import running_app, type_and_enter, until

pytestmark = pytest.mark.anyio

RELOADED = "Reloaded keybindings, extensions, skills, prompts, themes, and context files"

PY_EXT = """
def setup(pi):
    async def which(args, ctx):
        ctx.ui.notify("VERSION")
    pi.register_command("which", {"handler": which})

    async def on_shutdown(event, ctx):
        with open(LOG, "a") as log:
            log.write("shutdown " + event["reason"] + "\\n")

    async def on_start(event, ctx):
        with open(LOG, "a") as log:
            log.write("start " + event["reason"] + "\\n")

    pi.on("session_shutdown", on_shutdown)
    pi.on("session_start", on_start)
"""

TS_EXT = """
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
export default function (pi: ExtensionAPI) {
  pi.registerCommand("tswhich", { handler: async (_args, ctx) => { ctx.ui.notify("VERSION", "info"); } });
}
"""


def _notices(app: object) -> list[str]:
    from pi_rpc.modes.interactive.transcript import Notice

    return [n.text for n in app.query(Notice)]  # type: ignore[attr-defined]


async def _run_command(app: object, pilot: object, command: str, expected: str) -> None:
    await type_and_enter(pilot, command)
    await until(pilot, lambda: expected in _notices(app), timeout=30)


async def test_reload_runs_the_edited_extension_and_finds_new_ones(isolated_env: Path, tmp_path: Path) -> None:
    log = tmp_path / "events.log"
    ext = tmp_path / "which.py"
    ext.write_text(f"LOG = {str(log)!r}\n" + PY_EXT.replace("VERSION", "which v1"))
    project = tmp_path / "project"
    project.mkdir()
    async with running_app(project, extensions=[str(ext)], approve=True) as (app, pilot):
        await pilot.pause(0.2)
        await _run_command(app, pilot, "/which", "which v1")

        ext.write_text(f"LOG = {str(log)!r}\n" + PY_EXT.replace("VERSION", "which v2"))
        added = project / ".pi" / "extensions" / "added.py"
        added.parent.mkdir(parents=True)
        added.write_text(
            "def setup(pi):\n"
            "    async def hi(args, ctx):\n"
            "        ctx.ui.notify('added says hi')\n"
            "    pi.register_command('added', {'handler': hi})\n"
        )
        await type_and_enter(pilot, "/reload")
        await until(pilot, lambda: RELOADED in _notices(app), timeout=30)
        await _run_command(app, pilot, "/which", "which v2")
        await _run_command(app, pilot, "/added", "added says hi")
    assert log.read_text().splitlines()[:3] == ["start startup", "shutdown reload", "start reload"]


async def test_reload_loads_a_package_added_to_settings(isolated_env: Path, tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "extensions").mkdir(parents=True)
    (package / "prompts").mkdir()
    (package / "extensions" / "pkg_ext.py").write_text(
        "def setup(pi):\n"
        "    async def run(args, ctx):\n"
        "        ctx.ui.notify('from the package')\n"
        "    pi.register_command('pkgcmd', {'handler': run})\n"
    )
    (package / "prompts" / "pkgprompt.md").write_text("---\ndescription: from the package\n---\nHello\n")
    (package / "package.json").write_text(json.dumps({"name": "pkg", "keywords": ["pi-package"]}))
    ext = tmp_path / "base.py"
    ext.write_text("def setup(pi):\n    pass\n")
    async with running_app(tmp_path, extensions=[str(ext)], approve=True) as (app, pilot):
        await pilot.pause(0.2)
        assert "pkgprompt" not in [c["name"] for c in app.session.get_commands()]
        settings = isolated_env / "settings.json"
        current = json.loads(settings.read_text()) if settings.exists() else {}
        settings.write_text(json.dumps({**current, "packages": [str(package)]}))
        await type_and_enter(pilot, "/reload")
        await until(pilot, lambda: RELOADED in _notices(app), timeout=30)
        names = [c["name"] for c in app.session.get_commands()]
        assert "pkgprompt" in names and "pkgcmd" in names
        await _run_command(app, pilot, "/pkgcmd", "from the package")


async def test_reload_without_extensions_names_those_found(isolated_env: Path, tmp_path: Path) -> None:
    """A session that started with no extension has no runtime to load new ones into: the
    resources reload and the new extension is named (protocol/README §8)."""
    async with running_app(tmp_path, approve=True) as (app, pilot):
        await pilot.pause(0.1)
        found = isolated_env / "extensions" / "late.py"
        found.parent.mkdir(parents=True, exist_ok=True)
        found.write_text("def setup(pi):\n    pass\n")
        await type_and_enter(pilot, "/reload")
        await until(pilot, lambda: RELOADED in _notices(app), timeout=30)
        assert any("late.py" in text and "starts again" in text for text in _notices(app))


@pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])")
async def test_reload_runs_an_edited_typescript_extension(
    isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in node_modules_env().items():
        monkeypatch.setenv(key, value)
    ext = tmp_path / "which.ts"
    ext.write_text(TS_EXT.replace("VERSION", "ts v1"))
    async with running_app(tmp_path, extensions=[str(ext)], approve=True) as (app, pilot):
        await pilot.pause(0.2)
        await _run_command(app, pilot, "/tswhich", "ts v1")
        ext.write_text(TS_EXT.replace("VERSION", "ts v2"))
        await type_and_enter(pilot, "/reload")
        await until(pilot, lambda: RELOADED in _notices(app), timeout=60)
        await _run_command(app, pilot, "/tswhich", "ts v2")

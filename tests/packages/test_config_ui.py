"""``pi config`` on a terminal: the Textual screen draws upstream's list (group and type
headers, ``[x]``/``[ ]`` globally, ``[+]``/``[-]`` and the dimmed inherited value in project
mode), toggles a package resource and writes the ``+path``/``-path`` entry upstream's TUI
writes; Tab switches to the project's overrides (an ``autoload: false`` delta entry); typing
filters the list. Driven in-process with Textual's pilot (``test_config_screen`` compares the
screen with upstream's in a terminal)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from pi_rpc.modes.packages_config_ui import ConfigApp, ResourceView
from pi_rpc.packages.manager import PackageManager
from tests.support.package_world import write


def _setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    package = tmp_path / "localpkg"
    write(package / "prompts" / "a.md", "---\ndescription: A\n---\nA\n")
    write(package / "prompts" / "b.md", "---\ndescription: B\n---\nB\n")
    write(package / "skills" / "s" / "SKILL.md", "---\nname: s\ndescription: S\n---\nS\n")
    write(agent / "settings.json", json.dumps({"packages": ["../localpkg"]}, indent=2))
    write(cwd / ".pi" / "settings.json", "{}")
    return agent, cwd, package


def _screen(app: ConfigApp) -> list[str]:
    """The screen's lines as text."""
    return [line.plain for line in app.query_one(ResourceView).render().renderables]  # type: ignore[union-attr]


def test_space_toggles_a_resource_and_tab_switches_to_project_overrides(tmp_path: Path) -> None:
    agent, cwd, _package = _setup(tmp_path)
    manager = PackageManager(cwd=str(cwd), agent_dir=str(agent), project_trusted=True, output="capture")
    app = ConfigApp(manager)

    async def drive() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            screen = _screen(app)
            assert screen[3].startswith("Global Resources ")
            assert screen[3].endswith("tab switch mode · space toggle · esc close")
            assert screen[4:] == [
                "~/.pi/agent/settings.json",
                "",
                ">  ",
                "",
                "  ../localpkg (user)",
                "    Skills",
                ">     [x] s",
                "    Prompts",
                "      [x] a.md",
                "      [x] b.md",
                "  Built-in",
                "    Extensions",
                "      [x] codemode",
                "      [x] mcp",
                "      [x] tool-search",
                "",
                "─" * 100,
            ]
            await pilot.press("down", "space")  # prompts/a.md off
            await pilot.pause()
            assert json.loads((agent / "settings.json").read_text()) == {
                "packages": [{"source": "../localpkg", "prompts": ["-prompts/a.md"]}]
            }
            assert ">     [ ] a.md" in _screen(app)
            await pilot.press("space")  # on again
            await pilot.pause()
            assert json.loads((agent / "settings.json").read_text()) == {
                "packages": [{"source": "../localpkg", "prompts": ["+prompts/a.md"]}]
            }
            await pilot.press("tab")
            await pilot.pause()
            screen = _screen(app)
            assert screen[3].startswith("Project Local Resources ")
            assert screen[3].endswith("tab switch mode · space cycle inherit/+/- · esc close")
            assert screen[4] == ".pi/settings.json · inherited global resources are dimmed"
            assert ">     [x] s  inherited global" in screen
            await pilot.press("down", "down", "space")  # prompts/b.md off in the project
            await pilot.pause()
            assert ">     [-] b.md  project unload" in _screen(app)
            await pilot.press("escape")

    anyio.run(drive)
    project = json.loads((cwd / ".pi" / "settings.json").read_text())
    # upstream rewrites a local source relative to .pi (where the project's entries resolve)
    assert project == {"packages": [{"source": "../../localpkg", "autoload": False, "prompts": ["-prompts/b.md"]}]}


def test_an_untrusted_project_keeps_the_global_scope(tmp_path: Path) -> None:
    agent, cwd, _package = _setup(tmp_path)
    manager = PackageManager(cwd=str(cwd), agent_dir=str(agent), project_trusted=False, output="capture")
    app = ConfigApp(manager)

    async def drive() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            # no project mode: no Tab hint, and Tab does nothing
            assert _screen(app)[3].endswith("   space toggle · esc close")
            await pilot.press("tab")
            await pilot.pause()
            assert _screen(app)[3].startswith("Global Resources ")
            await pilot.press("escape")

    anyio.run(drive)
    assert json.loads((cwd / ".pi" / "settings.json").read_text()) == {}


def test_project_mode_space_cycles_inherit_unload_load(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    review = write(agent / "prompts" / "review.md", "---\ndescription: Review\n---\nReview\n")
    write(cwd / ".pi" / "settings.json", "{}")
    manager = PackageManager(cwd=str(cwd), agent_dir=str(agent), project_trusted=True, output="capture")
    app = ConfigApp(manager, write_scope="project")
    seen: list[tuple[str, object]] = []

    def snapshot() -> None:
        line = next(line for line in _screen(app) if "review.md" in line)
        settings = json.loads((cwd / ".pi" / "settings.json").read_text())
        seen.append((line, settings.get("prompts")))

    async def drive() -> None:
        async with app.run_test(size=(120, 20)) as pilot:
            await pilot.pause()
            await pilot.press(*"review")  # the search keeps the one item, selected
            await pilot.pause()
            snapshot()
            for key in ("space", "space", "enter"):
                await pilot.press(key)
                await pilot.pause()
                snapshot()
            await pilot.press("escape")

    anyio.run(drive)
    assert seen == [
        (">     [x] review.md  inherited global", None),
        (">     [-] review.md  project unload", [str(review), f"-{review}"]),
        (">     [+] review.md  project load", [str(review), f"+{review}"]),
        (">     [x] review.md  inherited global", []),
    ]


def test_search_filters_and_the_arrows_skip_headers(tmp_path: Path) -> None:
    agent, cwd, _package = _setup(tmp_path)
    manager = PackageManager(cwd=str(cwd), agent_dir=str(agent), project_trusted=True, output="capture")
    app = ConfigApp(manager)

    async def drive() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await pilot.press("down", "down", "down")  # s -> a.md -> b.md -> codemode
            await pilot.pause()
            assert ">     [x] codemode" in _screen(app)
            await pilot.press("up", "up", "up", "up")  # stops on the first item
            await pilot.pause()
            assert ">     [x] s" in _screen(app)
            await pilot.press(*"md")
            await pilot.pause()
            screen = _screen(app)
            assert screen[6:] == [
                "> md ",
                "",
                "  ../localpkg (user)",
                "    Skills",
                ">     [x] s",
                "    Prompts",
                "      [x] a.md",
                "      [x] b.md",
                "",
                "─" * 100,
            ]
            await pilot.press(*"zz")
            await pilot.pause()
            assert "  No resources found" in _screen(app)
            await pilot.press("escape")

    anyio.run(drive)

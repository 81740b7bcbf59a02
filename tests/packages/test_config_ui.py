"""``pi config`` on a terminal: the Textual screen toggles a package resource and writes the
``+path``/``-path`` entry upstream's TUI writes; Tab switches to the project's overrides (an
``autoload: false`` delta entry). Driven in-process with Textual's pilot."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from pi_rpc.modes.packages_config_ui import ConfigApp
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


def test_space_toggles_a_resource_and_tab_switches_to_project_overrides(tmp_path: Path) -> None:
    agent, cwd, _package = _setup(tmp_path)
    manager = PackageManager(cwd=str(cwd), agent_dir=str(agent), project_trusted=True, output="capture")
    app = ConfigApp(manager)

    async def drive() -> None:
        async with app.run_test(size=(100, 20)) as pilot:
            await pilot.pause()
            labels = [str(app.query_one("#resources").get_option_at_index(i).prompt) for i in range(3)]
            assert labels == [
                "../localpkg (user)  skill: s",
                "../localpkg (user)  prompt: a.md",
                "../localpkg (user)  prompt: b.md",
            ]
            await pilot.press("down", "space")  # prompts/a.md off
            await pilot.pause()
            assert json.loads((agent / "settings.json").read_text()) == {
                "packages": [{"source": "../localpkg", "prompts": ["-prompts/a.md"]}]
            }
            await pilot.press("space")  # on again
            await pilot.pause()
            assert json.loads((agent / "settings.json").read_text()) == {
                "packages": [{"source": "../localpkg", "prompts": ["+prompts/a.md"]}]
            }
            await pilot.press("tab")
            await pilot.pause()
            assert "project overrides" in str(app.query_one("#title").render())
            await pilot.press("down", "down", "space")  # prompts/b.md off in the project
            await pilot.pause()
            await pilot.press("q")

    anyio.run(drive)
    project = json.loads((cwd / ".pi" / "settings.json").read_text())
    # upstream rewrites a local source relative to .pi (where the project's entries resolve)
    assert project == {"packages": [{"source": "../../localpkg", "autoload": False, "prompts": ["-prompts/b.md"]}]}


def test_an_untrusted_project_keeps_the_global_scope(tmp_path: Path) -> None:
    agent, cwd, _package = _setup(tmp_path)
    manager = PackageManager(cwd=str(cwd), agent_dir=str(agent), project_trusted=False, output="capture")
    app = ConfigApp(manager)

    async def drive() -> None:
        async with app.run_test(size=(100, 20)) as pilot:
            await pilot.pause()
            await pilot.press("tab")
            await pilot.pause()
            assert "global settings" in str(app.query_one("#title").render())
            assert "not trusted" in str(app.query_one("#status").render())
            await pilot.press("q")

    anyio.run(drive)
    assert json.loads((cwd / ".pi" / "settings.json").read_text()) == {}


def test_project_mode_space_cycles_inherit_unload_load(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    review = write(agent / "prompts" / "review.md", "---\ndescription: Review\n---\nReview\n")
    write(cwd / ".pi" / "settings.json", "{}")
    manager = PackageManager(cwd=str(cwd), agent_dir=str(agent), project_trusted=True, output="capture")
    app = ConfigApp(manager, write_scope="project")
    seen: list[tuple[str, bool, object]] = []

    def snapshot() -> None:
        listing = app.query_one("#resources")
        index = next(i for i, item in enumerate(app.items) if item.path == str(review))
        label = str(listing.get_option_at_index(index).prompt)
        settings = json.loads((cwd / ".pi" / "settings.json").read_text())
        seen.append((label.split("review.md")[1].strip(), index in listing.selected, settings.get("prompts")))

    async def drive() -> None:
        async with app.run_test(size=(120, 20)) as pilot:
            await pilot.pause()
            index = next(i for i, item in enumerate(app.items) if item.path == str(review))
            app.query_one("#resources").highlighted = index
            snapshot()
            for _ in range(3):
                await pilot.press("space")
                await pilot.pause()
                snapshot()
            await pilot.press("q")

    anyio.run(drive)
    assert seen == [
        ("inherited global", True, None),
        ("project unload", False, [str(review), f"-{review}"]),
        ("project load", True, [str(review), f"+{review}"]),
        ("inherited global", True, []),
    ]

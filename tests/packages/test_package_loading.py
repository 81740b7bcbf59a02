"""What packages bring into a session: a package installed by upstream loads in pi_rpc and the
reverse; filters and ``autoload: false`` deltas; themes; installs at startup (failing, offline);
``-e`` packages cached under ``tmp/extensions``; bad manifests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.package_world import OURS, UPSTREAM, command_names, env_for, rpc_commands, run, write

# npm, git and pip run as real subprocesses (and upstream's Node pi beside ours); on a loaded
# machine a test with its registry fixture outgrows the suite's 120 s default
pytestmark = pytest.mark.timeout(480)


@pytest.mark.skipif(UPSTREAM is None, reason="upstream pi 1.6 is not installed")
def test_a_package_installed_by_either_loads_in_the_other(world: dict[str, Any], tmp_path: Path) -> None:
    assert UPSTREAM is not None
    expected = {"skill:demo", "hello", "skill:gitskill", "gitprompt"}

    def cross(installer: list[str], loader: list[str], name: str) -> None:
        root = tmp_path / name
        env = env_for(world, root)
        for source in ("npm:pi-demo", "git:git.example.test/acme/tools"):
            done = run(installer, ["install", source], env, root / "cwd")
            assert done.returncode == 0, done.stderr
        commands, stderr = rpc_commands(loader, env_for(world, root, offline=True), root / "cwd")
        assert expected <= command_names(commands), (name, command_names(commands), stderr)
        assert "draft" not in command_names(commands)  # excluded by the manifest
        demo = next(c for c in commands if c["name"] == "skill:demo")
        assert demo["sourceInfo"]["source"] == "npm:pi-demo"
        assert demo["sourceInfo"]["scope"] == "user" and demo["sourceInfo"]["origin"] == "package"

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(cross, UPSTREAM, OURS, "up-to-ours"), pool.submit(cross, OURS, UPSTREAM, "ours-to-up")]
        for done in runs:
            done.result()


def test_filters_object_form_and_autoload_delta(world: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "f"
    env = env_for(world, root)
    assert run(OURS, ["install", "npm:pi-conv"], env, root / "cwd").returncode == 0
    assert run(OURS, ["install", "npm:pi-demo"], env, root / "cwd").returncode == 0
    # a package's themes are offered by the interactive mode
    themes = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, pathlib; from pi_rpc.modes.interactive.theme import available_themes; "
            "print(available_themes(pathlib.Path(os.environ['PI_CODING_AGENT_DIR']), os.getcwd()))",
        ],
        env=env_for(world, root, offline=True),
        cwd=root / "cwd",
        capture_output=True,
        text=True,
        check=True,
    )
    assert "'conv-dark'" in themes.stdout, themes.stderr
    if UPSTREAM is not None:
        # unfiltered: each package skill and prompt is listed exactly as upstream lists it
        offline_env = env_for(world, root, offline=True)
        ours_all, _ = rpc_commands(OURS, offline_env, root / "cwd")
        theirs_all, _ = rpc_commands(UPSTREAM, offline_env, root / "cwd")
        for name in ("skill:demo", "skill:conv", "conv-prompt", "hello"):
            assert next(c for c in ours_all if c["name"] == name) == next(c for c in theirs_all if c["name"] == name)
    settings = root / "agent" / "settings.json"
    settings.write_text(
        json.dumps(
            {
                "packages": [
                    {"source": "npm:pi-conv", "skills": [], "prompts": ["!conv-*"]},
                    {"source": "npm:pi-demo", "skills": ["-skills/demo/SKILL.md"], "prompts": ["+prompts/hello.md"]},
                ]
            }
        )
    )
    offline = env_for(world, root, offline=True)
    commands, _ = rpc_commands(OURS, offline, root / "cwd")
    names = command_names(commands)
    assert "skill:conv" not in names and "conv-prompt" not in names and "skill:demo" not in names
    assert "hello" in names
    if UPSTREAM is not None:
        theirs, _ = rpc_commands(UPSTREAM, offline, root / "cwd")
        assert {n for n in command_names(theirs) if not n.startswith("builtin")} >= names - {"mcp"}
        assert {"skill:conv", "conv-prompt", "skill:demo"}.isdisjoint(command_names(theirs))
        # the package prompt's listing entry, sourceInfo included, is upstream's
        assert next(c for c in commands if c["name"] == "hello") == next(c for c in theirs if c["name"] == "hello")

    # a trusted project's autoload:false entry is a delta over the user's package
    settings.write_text(json.dumps({"packages": ["npm:pi-demo"]}))
    write(
        root / "cwd" / ".pi" / "settings.json",
        json.dumps({"packages": [{"source": "npm:pi-demo", "autoload": False, "prompts": ["-prompts/hello.md"]}]}),
    )
    commands, _ = rpc_commands(OURS, offline, root / "cwd", "--approve")
    assert "skill:demo" in command_names(commands) and "hello" not in command_names(commands)

    # pi config --disable writes upstream's +/- entry
    done = run(
        OURS,
        ["config", "--disable", str(root / "agent/npm/node_modules/pi-demo/skills/demo/SKILL.md")],
        env,
        root / "x",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(settings.read_text()) == {
        "packages": [{"source": "npm:pi-demo", "skills": ["-skills/demo/SKILL.md"]}]
    }
    listing = run(OURS, ["config"], env, root / "x")
    assert "[ ] skill:" in listing.stdout and "[x] prompt:" in listing.stdout


def test_startup_installs_missing_packages_warns_on_failure_and_respects_offline(
    world: dict[str, Any], tmp_path: Path
) -> None:
    root = tmp_path / "s"
    write(root / "agent" / "settings.json", json.dumps({"packages": ["npm:pi-demo", "npm:pi-does-not-exist"]}))
    # offline: nothing installed, nothing said, the session serves
    commands, stderr = rpc_commands(OURS, env_for(world, root, offline=True), root / "cwd")
    assert "skill:demo" not in command_names(commands)
    assert "pi-does-not-exist" not in stderr
    assert not (root / "agent" / "npm").exists()
    # online: the missing package is installed, the failing one warned about and skipped
    commands, stderr = rpc_commands(OURS, env_for(world, root), root / "cwd")
    assert "skill:demo" in command_names(commands)
    assert (
        'Warning: Extension package "npm:pi-does-not-exist": failed to install (npm install pi-does-not-exist' in stderr
    )
    assert 'Run "pi remove npm:pi-does-not-exist" to remove it from settings.json.' in stderr
    # the TypeScript extension of the package loads (in the Node sidecar): nothing skipped
    assert "Skipping extension" not in stderr and "Failed to load extension" not in stderr
    if UPSTREAM is not None:
        # upstream's own words, byte for byte (install roots normalised)
        up_root = tmp_path / "s-up"
        write(up_root / "agent" / "settings.json", json.dumps({"packages": ["npm:pi-does-not-exist"]}))
        _, up_stderr = rpc_commands(UPSTREAM, env_for(world, up_root), up_root / "cwd")

        def warning(text: str, where: Path) -> list[str]:
            lines = text.replace(str(where), "<root>").splitlines()
            return [line for line in lines if line.startswith('Warning: Extension package "npm:pi-does-not-exist"')]

        assert warning(stderr, root) == warning(up_stderr, up_root) != []


def test_temporary_e_package_is_cached_under_tmp_extensions(world: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "e"
    commands, stderr = rpc_commands(OURS, env_for(world, root), root / "cwd", "-e", "npm:pi-conv")
    assert "skill:conv" in command_names(commands), stderr
    cached = list((root / "agent" / "tmp" / "extensions" / "npm").glob("*/node_modules/pi-conv"))
    assert len(cached) == 1
    if UPSTREAM is not None:
        up_root = tmp_path / "e-up"
        theirs_commands, _ = rpc_commands(UPSTREAM, env_for(world, up_root), up_root / "cwd", "-e", "npm:pi-conv")

        def info(commands: list[dict[str, Any]], where: Path) -> dict[str, str]:
            found = next(c for c in commands if c["name"] == "skill:conv")["sourceInfo"]
            return {k: str(v).replace(str(where), "<root>") for k, v in found.items()}

        assert info(commands, root) == info(theirs_commands, up_root)
        theirs = list((up_root / "agent" / "tmp" / "extensions" / "npm").glob("*/node_modules/pi-conv"))
        assert [p.relative_to(up_root) for p in theirs] == [p.relative_to(root) for p in cached]
    assert not (root / "agent" / "settings.json").exists()


def test_bad_manifests_are_reported_and_never_fatal(tmp_path: Path) -> None:
    root = tmp_path / "b"
    bad_json = root / "badjson"
    write(bad_json / "package.json", "{ not json")
    write(bad_json / "prompts" / "conventional.md", "---\ndescription: C\n---\nC\n")
    outside = root / "outside"
    write(outside / "package.json", json.dumps({"name": "o", "pi": {"prompts": ["../secret/*.md", "./gone.md"]}}))
    write(root / "secret" / "leak.md", "---\ndescription: leak\n---\nleak\n")
    write(
        root / "agent" / "settings.json",
        json.dumps({"packages": ["../badjson", "../outside"]}),
    )
    commands, stderr = rpc_commands(OURS, env_for(None, root, offline=True), root / "cwd")
    names = command_names(commands)
    assert "conventional" in names and "leak" not in names
    assert f"Warning: Invalid package manifest {bad_json / 'package.json'}" in stderr
    assert "points outside the package; skipped" in stderr
    assert "'./gone.md' names a missing file; skipped" in stderr


def test_e_local_package_folder_brings_its_prompts_and_skills(tmp_path: Path) -> None:
    root = tmp_path / "l"
    write(root / "pkg" / "prompts" / "local-prompt.md", "---\ndescription: Local\n---\nLocal\n")
    write(root / "pkg" / "skills" / "local-skill" / "SKILL.md", "---\nname: local-skill\ndescription: L\n---\nL\n")
    commands, stderr = rpc_commands(OURS, env_for(None, root, offline=True), root / "cwd", "-e", "../pkg")
    assert {"local-prompt", "skill:local-skill"} <= command_names(commands), stderr
    if UPSTREAM is not None:
        theirs, _ = rpc_commands(UPSTREAM, env_for(None, root, offline=True), root / "cwd", "-e", "../pkg")
        assert {"local-prompt", "skill:local-skill"} <= command_names(theirs)
        ours_info = next(c for c in commands if c["name"] == "local-prompt")["sourceInfo"]
        their_info = next(c for c in theirs if c["name"] == "local-prompt")["sourceInfo"]
        assert ours_info == their_info

"""``pi install|remove|list|update|config`` and package resources, against a local npm registry
(verdaccio, started here) and local git repositories (``https://git.example.test/...``
rewritten to ``file://`` by git's ``url.insteadOf``), side by side with upstream pi 1.6 where it
is installed: the same commands leave the same ``settings.json`` bytes and install trees, and a
package installed by either loads in the other."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.npm_registry import Registry, npm_available
from tests.support.pi_process import REPO_ROOT, isolated_env, upstream_argv
from tests.support.wheel import build_wheel

OURS = [sys.executable, "-m", "pi_rpc"]
UPSTREAM = upstream_argv()

if not npm_available():  # pragma: no cover - loud: the package tests need npm
    pytest.skip("npm/node are not installed: the package-command tests need them", allow_module_level=True)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _demo_package(folder: Path, version: str) -> Path:
    """An npm package with a ``pi`` manifest: one skill, two prompts (one excluded by the
    manifest), a TypeScript extension."""
    _write(folder / "skills" / "demo" / "SKILL.md", "---\nname: demo\ndescription: A demo skill\n---\nDemo body\n")
    _write(folder / "prompts" / "hello.md", "---\ndescription: Say hello\n---\nHello $1\n")
    _write(folder / "prompts" / "draft.md", "---\ndescription: Draft\n---\nDraft\n")
    _write(folder / "extensions" / "index.ts", "export default function (pi: any) {}\n")
    manifest = {
        "name": "pi-demo",
        "version": version,
        "keywords": ["pi-package"],
        "pi": {
            "extensions": ["./extensions/index.ts"],
            "skills": ["./skills"],
            "prompts": ["./prompts/*.md", "!**/draft.md"],
        },
    }
    _write(folder / "package.json", json.dumps(manifest, indent=2))
    return folder


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The registry with ``pi-demo`` 1.0.0 and ``pi-conv`` 1.0.0 (conventional folders), and a
    bare git repository ``acme/tools``."""
    root = tmp_path_factory.mktemp("world")
    registry = Registry(root / "registry")
    registry.publish(_demo_package(root / "src" / "pi-demo", "1.0.0"))
    conv = root / "src" / "pi-conv"
    _write(conv / "skills" / "conv" / "SKILL.md", "---\nname: conv\ndescription: Conventional skill\n---\nConv\n")
    _write(conv / "prompts" / "conv-prompt.md", "---\ndescription: Conventional prompt\n---\nConv prompt\n")
    _write(conv / "themes" / "conv-dark.json", json.dumps({"name": "conv-dark", "colors": {}}))
    registry.publish(conv, name="pi-conv", version="1.0.0")

    repos = root / "repos"
    work = root / "work-tools"
    _write(work / "skills" / "gitskill" / "SKILL.md", "---\nname: gitskill\ndescription: From git\n---\nGit\n")
    _write(work / "prompts" / "gitprompt.md", "---\ndescription: Git prompt\n---\nGit prompt\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "one"], check=True)
    subprocess.run([*git, "-C", str(work), "tag", "v1"], check=True)
    (repos / "acme").mkdir(parents=True)
    subprocess.run([*git, "clone", "-q", "--bare", str(work), str(repos / "acme" / "tools.git")], check=True)
    subprocess.run([*git, "-C", str(work), "remote", "add", "origin", str(repos / "acme" / "tools.git")], check=True)
    git_env = {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.file://{repos}/.insteadOf",
        "GIT_CONFIG_VALUE_0": "https://git.example.test/",
    }
    yield {"root": root, "registry": registry, "git_env": git_env, "work": work, "git": git}
    registry.stop()


def _env(world: dict[str, Any], root: Path, *, offline: bool = False, **extra: str) -> dict[str, str]:
    env = isolated_env(root, {**world["registry"].env(), **world["git_env"], **extra})
    if not offline:
        env.pop("PI_OFFLINE", None)
    return env


def _run(argv: list[str], args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run(argv + args, env=env, cwd=cwd, capture_output=True, text=True, timeout=180)


def _rpc_commands(argv: list[str], env: dict[str, str], cwd: Path, *extra: str) -> tuple[list[dict[str, Any]], str]:
    """``get_commands`` of a ``--mode rpc`` process (stdin closed after the command)."""
    cwd.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [*argv, "--mode", "rpc", "--no-session", *extra],
        input=json.dumps({"id": "c", "type": "get_commands"}) + "\n",
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
    )
    for line in done.stdout.splitlines():
        record = json.loads(line)
        if record.get("type") == "response" and record.get("id") == "c":
            assert record["success"], record
            return list(record["data"]["commands"]), done.stderr
    raise AssertionError(f"no get_commands response: {done.stdout!r} {done.stderr!r}")


def _names(commands: list[dict[str, Any]]) -> set[str]:
    return {c["name"] for c in commands}


def _scenario(argv: list[str], world: dict[str, Any], root: Path) -> dict[str, Any]:
    """The same command sequence for either implementation."""
    env = _env(world, root)
    cwd = root / "cwd"
    _write(root / "localpkg" / "prompts" / "local.md", "---\ndescription: Local\n---\nLocal\n")
    steps = [
        ["install", "npm:pi-demo"],
        ["install", "npm:pi-demo@1.0.0"],
        ["install", "git:git.example.test/acme/tools@v1"],
        ["install", "../localpkg"],
        ["install", "npm:pi-conv"],
        ["remove", "npm:pi-conv"],
        ["remove", "npm:pi-nothing"],
        ["list"],
    ]
    results = [_run(argv, step, env, cwd) for step in steps]
    return {
        "codes": [r.returncode for r in results],
        "list": results[-1].stdout.replace(str(root), "<root>"),
        "removed_missing": results[-2].stderr,
        "settings": (root / "agent" / "settings.json").read_bytes(),
        "npm_package_json": (root / "agent" / "npm" / "package.json").read_bytes(),
        "gitignore": (root / "agent" / "git" / ".gitignore").read_bytes(),
        "git_head": subprocess.run(
            ["git", "-C", str(root / "agent" / "git" / "git.example.test" / "acme" / "tools"), "describe", "--tags"],
            capture_output=True,
            text=True,
        ).stdout.strip(),
        "conv_gone": not (root / "agent" / "npm" / "node_modules" / "pi-conv").exists(),
        "outputs": [r.stdout + r.stderr for r in results],
    }


def test_install_remove_list_leave_upstreams_settings_bytes(world: dict[str, Any], tmp_path: Path) -> None:
    ours = _scenario(OURS, world, tmp_path / "ours")
    assert ours["codes"] == [0, 0, 0, 0, 0, 0, 1, 0], ours["outputs"]
    assert json.loads(ours["settings"]) == {
        "packages": ["npm:pi-demo@1.0.0", "git:git.example.test/acme/tools@v1", "../localpkg"]
    }
    assert ours["git_head"] == "v1" and ours["conv_gone"]
    assert "No matching package found for npm:pi-nothing" in ours["removed_missing"]
    assert "Installed npm:pi-demo@1.0.0" in ours["outputs"][1]
    if UPSTREAM is None:
        pytest.skip("upstream pi is not installed: compared with the expected values only")
    theirs = _scenario(UPSTREAM, world, tmp_path / "up")
    assert ours["codes"] == theirs["codes"]
    assert ours["settings"] == theirs["settings"]
    assert ours["npm_package_json"] == theirs["npm_package_json"]
    assert ours["gitignore"] == theirs["gitignore"]
    assert ours["git_head"] == theirs["git_head"]
    assert ours["list"] == theirs["list"]
    assert ours["removed_missing"] == theirs["removed_missing"]


@pytest.mark.skipif(UPSTREAM is None, reason="upstream pi 1.6 is not installed")
def test_a_package_installed_by_either_loads_in_the_other(world: dict[str, Any], tmp_path: Path) -> None:
    assert UPSTREAM is not None
    expected = {"skill:demo", "hello", "skill:gitskill", "gitprompt"}
    for installer, loader, name in ((UPSTREAM, OURS, "up-to-ours"), (OURS, UPSTREAM, "ours-to-up")):
        root = tmp_path / name
        env = _env(world, root)
        for source in ("npm:pi-demo", "git:git.example.test/acme/tools"):
            done = _run(installer, ["install", source], env, root / "cwd")
            assert done.returncode == 0, done.stderr
        commands, stderr = _rpc_commands(loader, _env(world, root, offline=True), root / "cwd")
        assert expected <= _names(commands), (name, _names(commands), stderr)
        assert "draft" not in _names(commands)  # excluded by the manifest
        demo = next(c for c in commands if c["name"] == "skill:demo")
        assert demo["sourceInfo"]["source"] == "npm:pi-demo"
        assert demo["sourceInfo"]["scope"] == "user" and demo["sourceInfo"]["origin"] == "package"


def test_filters_object_form_and_autoload_delta(world: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "f"
    env = _env(world, root)
    assert _run(OURS, ["install", "npm:pi-conv"], env, root / "cwd").returncode == 0
    assert _run(OURS, ["install", "npm:pi-demo"], env, root / "cwd").returncode == 0
    # a package's themes are offered by the interactive mode
    themes = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, pathlib; from pi_rpc.modes.interactive.theme import available_themes; "
            "print(available_themes(pathlib.Path(os.environ['PI_CODING_AGENT_DIR']), os.getcwd()))",
        ],
        env=_env(world, root, offline=True),
        cwd=root / "cwd",
        capture_output=True,
        text=True,
        check=True,
    )
    assert "'conv-dark'" in themes.stdout, themes.stderr
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
    offline = _env(world, root, offline=True)
    commands, _ = _rpc_commands(OURS, offline, root / "cwd")
    names = _names(commands)
    assert "skill:conv" not in names and "conv-prompt" not in names and "skill:demo" not in names
    assert "hello" in names
    if UPSTREAM is not None:
        theirs, _ = _rpc_commands(UPSTREAM, offline, root / "cwd")
        assert {n for n in _names(theirs) if not n.startswith("builtin")} >= names - {"mcp"}
        assert {"skill:conv", "conv-prompt", "skill:demo"}.isdisjoint(_names(theirs))

    # a trusted project's autoload:false entry is a delta over the user's package
    settings.write_text(json.dumps({"packages": ["npm:pi-demo"]}))
    _write(
        root / "cwd" / ".pi" / "settings.json",
        json.dumps({"packages": [{"source": "npm:pi-demo", "autoload": False, "prompts": ["-prompts/hello.md"]}]}),
    )
    commands, _ = _rpc_commands(OURS, offline, root / "cwd", "--approve")
    assert "skill:demo" in _names(commands) and "hello" not in _names(commands)

    # pi config --disable writes upstream's +/- entry
    done = _run(
        OURS,
        ["config", "--disable", str(root / "agent/npm/node_modules/pi-demo/skills/demo/SKILL.md")],
        env,
        root / "x",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(settings.read_text()) == {
        "packages": [{"source": "npm:pi-demo", "skills": ["-skills/demo/SKILL.md"]}]
    }
    listing = _run(OURS, ["config"], env, root / "x")
    assert "[ ] skill:" in listing.stdout and "[x] prompt:" in listing.stdout


def test_update_pinning_and_git(world: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "u"
    env = _env(world, root)
    for source in ("npm:pi-conv", "npm:pi-demo@1.0.0", "git:git.example.test/acme/tools"):
        assert _run(OURS, ["install", source], env, root / "cwd").returncode == 0
    registry: Registry = world["registry"]
    conv = world["root"] / "src" / "pi-conv"
    registry.publish(conv, version="1.1.0")
    registry.publish(_demo_package(world["root"] / "src" / "pi-demo-2", "1.1.0"))
    work, git = world["work"], world["git"]
    _write(work / "prompts" / "second.md", "---\ndescription: Second\n---\nSecond\n")
    subprocess.run([*git, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "two"], check=True)
    subprocess.run([*git, "-C", str(work), "push", "-q", "origin", "main"], check=True)

    plain = _run(OURS, ["update"], env, root / "cwd")
    assert plain.returncode == 1
    assert "Extensions are skipped. Run pi update --extensions to update extensions." in plain.stdout
    assert "pip install --upgrade pi-rpc" in plain.stderr

    done = _run(OURS, ["update", "--extensions"], env, root / "cwd")
    assert done.returncode == 0, done.stderr
    assert "Updated 2 packages:" in done.stdout
    assert "  npm:pi-conv 1.0.0 -> 1.1.0" in done.stdout
    assert "git:git.example.test/acme/tools " in done.stdout
    version = json.loads((root / "agent/npm/node_modules/pi-demo/package.json").read_text())["version"]
    assert version == "1.0.0"  # pinned
    assert (root / "agent/git/git.example.test/acme/tools/prompts/second.md").exists()
    again = _run(OURS, ["update", "npm:pi-conv"], env, root / "cwd")
    assert "npm:pi-conv is already up to date" in again.stdout
    missing = _run(OURS, ["update", "pi-conv"], env, root / "cwd")
    assert missing.returncode == 1
    assert "Error: No matching package found for pi-conv. Did you mean npm:pi-conv?" in missing.stderr
    offline = _run(OURS, ["update", "--extensions"], _env(world, root, offline=True), root / "cwd")
    assert "Skipped package updates (offline mode)" in offline.stdout


def test_startup_installs_missing_packages_warns_on_failure_and_respects_offline(
    world: dict[str, Any], tmp_path: Path
) -> None:
    root = tmp_path / "s"
    _write(root / "agent" / "settings.json", json.dumps({"packages": ["npm:pi-demo", "npm:pi-does-not-exist"]}))
    # offline: nothing installed, nothing said, the session serves
    commands, stderr = _rpc_commands(OURS, _env(world, root, offline=True), root / "cwd")
    assert "skill:demo" not in _names(commands)
    assert "pi-does-not-exist" not in stderr
    assert not (root / "agent" / "npm").exists()
    # online: the missing package is installed, the failing one warned about and skipped
    commands, stderr = _rpc_commands(OURS, _env(world, root), root / "cwd")
    assert "skill:demo" in _names(commands)
    assert (
        'Warning: Extension package "npm:pi-does-not-exist": failed to install (npm install pi-does-not-exist' in stderr
    )
    assert 'Run "pi remove npm:pi-does-not-exist" to remove it from settings.json.' in stderr
    # the TypeScript extension of the package is listed by discovery and skipped until Node loads it
    assert "Skipping extension" in stderr and "pi-demo/extensions/index.ts" in stderr


def test_temporary_e_package_is_cached_under_tmp_extensions(world: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "e"
    commands, stderr = _rpc_commands(OURS, _env(world, root), root / "cwd", "-e", "npm:pi-conv")
    assert "skill:conv" in _names(commands), stderr
    cached = list((root / "agent" / "tmp" / "extensions" / "npm").glob("*/node_modules/pi-conv"))
    assert len(cached) == 1
    if UPSTREAM is not None:
        up_root = tmp_path / "e-up"
        _rpc_commands(UPSTREAM, _env(world, up_root), up_root / "cwd", "-e", "npm:pi-conv")
        theirs = list((up_root / "agent" / "tmp" / "extensions" / "npm").glob("*/node_modules/pi-conv"))
        assert [p.relative_to(up_root) for p in theirs] == [p.relative_to(root) for p in cached]
    assert not (root / "agent" / "settings.json").exists()


def test_project_install_needs_trust(world: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "t"
    env = _env(world, root)
    cwd = root / "proj"
    _write(cwd / ".pi" / "settings.json", "{}")
    _write(root / "localpkg" / "prompts" / "p.md", "---\ndescription: P\n---\nP\n")
    refused = _run(OURS, ["install", "../localpkg", "-l"], env, cwd)
    assert refused.returncode == 1
    assert "Project is not trusted. Use --approve to modify local package config." in refused.stderr
    done = _run(OURS, ["install", "../localpkg", "-l", "--approve"], env, cwd)
    assert done.returncode == 0, done.stderr
    assert json.loads((cwd / ".pi" / "settings.json").read_text()) == {"packages": ["../../localpkg"]}
    # untrusted: the project's packages are not listed
    assert "Project packages" not in _run(OURS, ["list"], env, cwd).stdout
    assert "Project packages:" in _run(OURS, ["list", "--approve"], env, cwd).stdout


def test_bad_manifests_are_reported_and_never_fatal(world: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "b"
    bad_json = root / "badjson"
    _write(bad_json / "package.json", "{ not json")
    _write(bad_json / "prompts" / "conventional.md", "---\ndescription: C\n---\nC\n")
    outside = root / "outside"
    _write(outside / "package.json", json.dumps({"name": "o", "pi": {"prompts": ["../secret/*.md", "./gone.md"]}}))
    _write(root / "secret" / "leak.md", "---\ndescription: leak\n---\nleak\n")
    _write(
        root / "agent" / "settings.json",
        json.dumps({"packages": ["../badjson", "../outside"]}),
    )
    commands, stderr = _rpc_commands(OURS, _env(world, root, offline=True), root / "cwd")
    names = _names(commands)
    assert "conventional" in names and "leak" not in names
    assert f"Warning: Invalid package manifest {bad_json / 'package.json'}" in stderr
    assert "points outside the package; skipped" in stderr
    assert "'./gone.md' names a missing file; skipped" in stderr


def _build_example_wheel(target: Path) -> None:
    build_wheel(REPO_ROOT / "examples" / "pi-hello-py", target)


def test_pypi_package_installs_into_a_managed_venv_and_loads(world: dict[str, Any], tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    _build_example_wheel(wheels)
    root = tmp_path / "py"
    env = _env(world, root, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))
    done = _run(OURS, ["install", "pypi:pi-hello"], env, root / "cwd")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((root / "agent" / "settings.json").read_text()) == {"packages": ["pypi:pi-hello"]}
    assert (root / "agent" / "pypi" / "venv").is_dir()
    listing = _run(OURS, ["list"], env, root / "cwd").stdout
    assert "pypi:pi-hello" in listing and "site-packages" in listing
    commands, stderr = _rpc_commands(OURS, _env(world, root, offline=True), root / "cwd")
    names = _names(commands)
    assert {"hello-py", "skill:hello-py", "greet"} <= names, (names, stderr)
    hello = next(c for c in commands if c["name"] == "hello-py")
    assert hello["source"] == "extension"
    # pi's own interpreter never got the distribution
    assert (
        shutil.which("pip") is None
        or subprocess.run([sys.executable, "-c", "import pi_hello"], capture_output=True).returncode != 0
    )
    removed = _run(OURS, ["remove", "pypi:pi-hello"], env, root / "cwd")
    assert removed.returncode == 0, removed.stderr
    assert json.loads((root / "agent" / "settings.json").read_text()) == {"packages": []}
    assert not list((root / "agent" / "pypi" / "venv").glob("lib/*/site-packages/pi_hello"))


def test_bad_command_lines_match_upstream(world: dict[str, Any], tmp_path: Path) -> None:
    cases = [["install"], ["install", "a", "b"], ["list", "--bogus"], ["update", "--all", "--models"], ["remove", "-l"]]
    env = _env(world, tmp_path / "c", offline=True)
    for args in cases:
        ours = _run(OURS, args, env, tmp_path / "c" / "cwd")
        assert ours.returncode == 1, args
        if UPSTREAM is not None:
            theirs = _run(UPSTREAM, args, env, tmp_path / "c" / "cwd")
            assert (ours.returncode, ours.stderr) == (theirs.returncode, theirs.stderr), args


def test_no_packages_means_no_package_import(tmp_path: Path) -> None:
    """Startup without packages never imports the package manager."""
    code = (
        "import sys\n"
        "from pi_rpc.extensions.discovery import discover_extension_sources\n"
        f"discover_extension_sources(cwd={str(tmp_path)!r}, agent_dir={str(tmp_path)!r})\n"
        "from pi_rpc.packages import package_resources\n"
        f"package_resources(cwd={str(tmp_path)!r}, agent_dir={str(tmp_path)!r}, project_trusted=True,"
        " global_settings={}, project_settings={})\n"
        "assert 'pi_rpc.packages.manager' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})

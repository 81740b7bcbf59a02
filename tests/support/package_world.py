"""Helpers of the package tests (tests/packages): a demo npm package, the registry and git
world they share, and ways to run either implementation's package commands and read a
session's ``get_commands``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.support.npm_registry import Registry
from tests.support.pi_process import isolated_env, upstream_argv

OURS = [sys.executable, "-m", "pi_rpc"]
UPSTREAM = upstream_argv()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def demo_package(folder: Path, version: str) -> Path:
    """An npm package with a ``pi`` manifest: one skill, two prompts (one excluded by the
    manifest), a TypeScript extension."""
    write(folder / "skills" / "demo" / "SKILL.md", "---\nname: demo\ndescription: A demo skill\n---\nDemo body\n")
    write(folder / "prompts" / "hello.md", "---\ndescription: Say hello\n---\nHello $1\n")
    write(folder / "prompts" / "draft.md", "---\ndescription: Draft\n---\nDraft\n")
    write(folder / "extensions" / "index.ts", "export default function (pi: any) {}\n")
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
    write(folder / "package.json", json.dumps(manifest, indent=2))
    return folder


def env_for(world: dict[str, Any] | None, root: Path, *, offline: bool = False, **extra: str) -> dict[str, str]:
    """The isolated environment of one test root; with ``world``, npm and git reach its
    registry and repositories; online unless ``offline``."""
    shared = {**world["registry"].env(), **world["git_env"]} if world is not None else {}
    # a package's TypeScript entries load in the Node sidecar: its modules come from the
    # machine's test cache (installed from the public registry), not the test registry
    from tests.extensions.ts_support import node_available, node_modules_env

    sidecar = node_modules_env() if node_available() else {}
    env = isolated_env(root, {**shared, **sidecar, **extra})
    if not offline:
        env.pop("PI_OFFLINE", None)
    return env


def run(argv: list[str], args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run(argv + args, env=env, cwd=cwd, capture_output=True, text=True, timeout=180)


def rpc_commands(argv: list[str], env: dict[str, str], cwd: Path, *extra: str) -> tuple[list[dict[str, Any]], str]:
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


def command_names(commands: list[dict[str, Any]]) -> set[str]:
    return {c["name"] for c in commands}


def make_world(root: Path) -> Iterator[dict[str, Any]]:
    """The registry with ``pi-demo`` 1.0.0 and 1.1.0 and ``pi-conv`` 1.0.0 and 1.1.0
    (conventional folders, a theme), published in parallel, and a bare git repository
    ``acme/tools`` (tag ``v1``) reached as ``https://git.example.test/acme/tools``."""
    registry = Registry(root / "registry")
    conv = root / "src" / "pi-conv"
    write(conv / "skills" / "conv" / "SKILL.md", "---\nname: conv\ndescription: Conventional skill\n---\nConv\n")
    write(conv / "prompts" / "conv-prompt.md", "---\ndescription: Conventional prompt\n---\nConv prompt\n")
    write(conv / "themes" / "conv-dark.json", json.dumps({"name": "conv-dark", "colors": {}}))
    conv2 = root / "src" / "pi-conv-2"
    subprocess.run(["cp", "-r", str(conv), str(conv2)], check=True)
    folders = [
        (demo_package(root / "src" / "pi-demo", "1.0.0"), {}),
        (demo_package(root / "src" / "pi-demo-2", "1.1.0"), {}),
        (conv, {"name": "pi-conv", "version": "1.0.0"}),
        (conv2, {"name": "pi-conv", "version": "1.1.0"}),
    ]
    # 1.0.0 before 1.1.0 of each package ("latest" is the last published)
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda f: registry.publish(f[0], **f[1]), [folders[0], folders[2]]))
        list(pool.map(lambda f: registry.publish(f[0], **f[1]), [folders[1], folders[3]]))

    repos = root / "repos"
    work = root / "work-tools"
    write(work / "skills" / "gitskill" / "SKILL.md", "---\nname: gitskill\ndescription: From git\n---\nGit\n")
    write(work / "prompts" / "gitprompt.md", "---\ndescription: Git prompt\n---\nGit prompt\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "one"], check=True)
    subprocess.run([*git, "-C", str(work), "tag", "v1"], check=True)
    (repos / "acme").mkdir(parents=True)
    subprocess.run([*git, "clone", "-q", "--bare", str(work), str(repos / "acme" / "tools.git")], check=True)
    subprocess.run([*git, "-C", str(work), "remote", "add", "origin", str(repos / "acme" / "tools.git")], check=True)
    # a git package with a package.json and a dependency: installed with npm in the clone
    deps = root / "work-withdeps"
    write(deps / "prompts" / "withdeps.md", "---\ndescription: With deps\n---\nDeps\n")
    write(
        deps / "package.json",
        json.dumps({"name": "withdeps", "dependencies": {"pi-conv": "1.0.0"}, "pi": {"prompts": ["./prompts"]}}),
    )
    subprocess.run([*git, "init", "-q", str(deps)], check=True)
    subprocess.run([*git, "-C", str(deps), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(deps), "commit", "-qm", "one"], check=True)
    subprocess.run([*git, "clone", "-q", "--bare", str(deps), str(repos / "acme" / "withdeps.git")], check=True)
    git_env = {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": f"url.file://{repos}/.insteadOf",
        "GIT_CONFIG_VALUE_0": "https://git.example.test/",
    }
    try:
        yield {"root": root, "registry": registry, "git_env": git_env, "work": work, "git": git}
    finally:
        registry.stop()

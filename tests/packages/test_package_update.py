"""``pi update``: pi itself (pip's job: says so, exit 1), every package, one package, pinned
npm versions and git refs, offline."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.package_world import OURS, env_for, run, write

# npm, git and pip run as real subprocesses (and upstream's Node pi beside ours); on a loaded
# machine a test with its registry fixture outgrows the suite's 120 s default
pytestmark = pytest.mark.timeout(480)


def test_update_pinning_and_git(world: dict[str, Any], tmp_path: Path) -> None:
    root = tmp_path / "u"
    env = env_for(world, root)
    for source in ("npm:pi-conv@1.0.0", "npm:pi-demo@1.0.0", "git:git.example.test/acme/tools"):
        assert run(OURS, ["install", source], env, root / "cwd").returncode == 0
    # the user unpins pi-conv; 1.1.0 and pi-demo 1.1.0 are on the registry
    settings = root / "agent" / "settings.json"
    entries = json.loads(settings.read_text())["packages"]
    settings.write_text(json.dumps({"packages": ["npm:pi-conv", *entries[1:]]}, indent=2))
    work, git = world["work"], world["git"]
    write(work / "prompts" / "second.md", "---\ndescription: Second\n---\nSecond\n")
    subprocess.run([*git, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "two"], check=True)
    subprocess.run([*git, "-C", str(work), "push", "-q", "origin", "main"], check=True)

    plain = run(OURS, ["update"], env, root / "cwd")
    assert plain.returncode == 1
    assert "Extensions are skipped. Run pi update --extensions to update extensions." in plain.stdout
    assert "pip install --upgrade pi-rpc" in plain.stderr

    done = run(OURS, ["update", "--extensions"], env, root / "cwd")
    assert done.returncode == 0, done.stderr
    assert "Updated 2 packages:" in done.stdout
    assert "  npm:pi-conv 1.0.0 -> 1.1.0" in done.stdout
    assert "git:git.example.test/acme/tools " in done.stdout
    version = json.loads((root / "agent/npm/node_modules/pi-demo/package.json").read_text())["version"]
    assert version == "1.0.0"  # pinned
    assert (root / "agent/git/git.example.test/acme/tools/prompts/second.md").exists()
    again = run(OURS, ["update", "npm:pi-conv"], env, root / "cwd")
    assert "npm:pi-conv is already up to date" in again.stdout
    missing = run(OURS, ["update", "pi-conv"], env, root / "cwd")
    assert missing.returncode == 1
    assert "Error: No matching package found for pi-conv. Did you mean npm:pi-conv?" in missing.stderr
    offline = run(OURS, ["update", "--extensions"], env_for(world, root, offline=True), root / "cwd")
    assert "Skipped package updates (offline mode)" in offline.stdout
    # removing a git package deletes the clone and its emptied parent folders
    removed = run(OURS, ["remove", "https://git.example.test/acme/tools.git"], env, root / "cwd")
    assert removed.returncode == 0, removed.stderr
    assert not (root / "agent/git/git.example.test").exists() and (root / "agent/git/.gitignore").exists()
    assert json.loads(settings.read_text())["packages"] == ["npm:pi-conv", "npm:pi-demo@1.0.0"]

"""``pypi:`` packages (beyond upstream): installed with pip into a managed virtual environment
under the agent dir, their entry points and ``pi`` table loaded, listed and removed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.package_world import OURS, command_names, env_for, rpc_commands, run
from tests.support.pi_process import REPO_ROOT
from tests.support.wheel import build_wheel

# npm, git and pip run as real subprocesses (and upstream's Node pi beside ours); on a loaded
# machine a test with its registry fixture outgrows the suite's 120 s default
pytestmark = pytest.mark.timeout(480)


def _build_example_wheel(target: Path) -> None:
    build_wheel(REPO_ROOT / "examples" / "pi-hello-py", target)


def test_pypi_package_installs_into_a_managed_venv_and_loads(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    _build_example_wheel(wheels)
    root = tmp_path / "py"
    env = env_for(None, root, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))
    done = run(OURS, ["install", "pypi:pi-hello"], env, root / "cwd")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((root / "agent" / "settings.json").read_text()) == {"packages": ["pypi:pi-hello"]}
    assert (root / "agent" / "pypi" / "venv").is_dir()
    listing = run(OURS, ["list"], env, root / "cwd").stdout
    assert "pypi:pi-hello" in listing and "site-packages" in listing
    commands, stderr = rpc_commands(OURS, env_for(None, root, offline=True), root / "cwd")
    names = command_names(commands)
    assert {"hello-py", "skill:hello-py", "greet"} <= names, (names, stderr)
    hello = next(c for c in commands if c["name"] == "hello-py")
    assert hello["source"] == "extension"
    # pi's own interpreter never got the distribution
    assert subprocess.run([sys.executable, "-c", "import pi_hello"], capture_output=True).returncode != 0

    # a newer version on the index: pi update moves the unpinned entry
    newer = tmp_path / "newer"
    shutil.copytree(REPO_ROOT / "examples" / "pi-hello-py", newer)
    pyproject = newer / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "0.1.0"', 'version = "0.2.0"'))
    build_wheel(newer, wheels)
    updated = run(OURS, ["update", "--extensions"], env, root / "cwd")
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert "Updated 1 package:\n  pypi:pi-hello 0.1.0 -> 0.2.0" in updated.stdout
    removed = run(OURS, ["remove", "pypi:pi-hello"], env, root / "cwd")
    assert removed.returncode == 0, removed.stderr
    assert json.loads((root / "agent" / "settings.json").read_text()) == {"packages": []}
    assert not list((root / "agent" / "pypi" / "venv").glob("lib/*/site-packages/pi_hello"))


def test_e_pypi_loads_for_one_run(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    _build_example_wheel(wheels)
    root = tmp_path / "e"
    env = env_for(None, root, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))
    commands, stderr = rpc_commands(OURS, env, root / "cwd", "-e", "pypi:pi-hello")
    assert {"hello-py", "skill:hello-py"} <= command_names(commands), stderr
    assert list((root / "agent" / "tmp" / "extensions" / "pypi" / "venv").glob("lib/*/site-packages/pi_hello"))
    assert not (root / "agent" / "settings.json").exists()

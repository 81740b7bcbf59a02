"""Fixtures for print/json mode and SDK tests.

``run_pi(*args, stdin=b"")`` runs the REAL ``python -m pi_rpc`` to completion with an isolated
agent dir/HOME/cwd under tmp (offline, no inherited ``PI_*``) and returns
``(returncode, stdout bytes, stderr text)``. ``faux_script(turns)`` writes a faux script.
``isolated_env`` points the current process at the same kind of tmp agent dir (SDK tests)
and resets the process-global faux script afterwards. Both opt in to the offline ``faux``
provider through ``PI_FAUX_SCRIPT`` pointing at an empty script (as ``tests/conftest.py``'s
``pi_env``); ``run_pi(..., faux=False)`` leaves it off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def _env(tmp: Path, faux: bool = True) -> dict[str, str]:
    home, agent = tmp / "home", tmp / "agent"
    home.mkdir(parents=True, exist_ok=True)
    agent.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(home), PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", PYTHONUNBUFFERED="1")
    if faux:
        env["PI_FAUX_SCRIPT"] = os.devnull  # opt in to faux, no scripted turns
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture
def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    return cwd


@pytest.fixture
def run_pi(tmp_path: Path, project: Path) -> Callable[..., tuple[int, bytes, str]]:
    def run(*args: str, stdin: bytes = b"", timeout: float = 60, faux: bool = True) -> tuple[int, bytes, str]:
        proc = subprocess.run(
            [sys.executable, "-m", "pi_rpc", *args],
            cwd=project,
            env=_env(tmp_path, faux),
            input=stdin,
            capture_output=True,
            timeout=timeout,
        )
        return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")

    return run


@pytest.fixture
def faux_script(tmp_path: Path) -> Callable[[list[dict[str, Any]]], str]:
    counter = [0]

    def write(turns: list[dict[str, Any]]) -> str:
        counter[0] += 1
        path = tmp_path / f"faux-{counter[0]}.json"
        path.write_text(json.dumps(turns))
        return str(path)

    return write


@pytest.fixture
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for key in list(os.environ):
        if key.startswith("PI_"):
            monkeypatch.delenv(key)
    env = _env(tmp_path)
    for key in ("HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE", "PI_FAUX_SCRIPT"):
        monkeypatch.setenv(key, env[key])
    yield tmp_path / "agent"
    from pi_rpc.ai.providers.faux import reset_faux, set_faux_script

    set_faux_script(None)
    reset_faux()

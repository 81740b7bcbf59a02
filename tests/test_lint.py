"""Lint gate: the repository is formatted by ``ruff format`` and passes ``ruff check`` under the
``[tool.ruff]`` settings in pyproject.toml (pyflakes, pycodestyle errors, import order, blind
excepts, so every ``# noqa: BLE001`` names a reason a rule actually checks, and McCabe complexity
at most 20 per function, issue 32 item 6)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    pytest.importorskip("ruff", reason="ruff is not installed (it comes with the 'test' extra)")
    beside = Path(sys.executable).with_name("ruff")
    return [str(beside)] if beside.exists() else [shutil.which("ruff") or "ruff"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_ruff(), *args, "--no-cache"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=110)


def test_code_is_formatted() -> None:
    proc = _run("format", "--check", ".")
    assert proc.returncode == 0, f"ruff format --check:\n{proc.stdout}{proc.stderr}"


def test_code_passes_the_linter() -> None:
    proc = _run("check", "--output-format", "concise", ".")
    assert proc.returncode == 0, f"ruff check:\n{proc.stdout}{proc.stderr}"


def test_linter_refuses_a_function_over_mccabe_20(tmp_path: Path) -> None:
    # The complexity gate is the project's own configuration: a planted function of complexity
    # 21 (twenty ``if``s) fails it, one of 20 passes.
    def planted(branches: int) -> str:
        body = "".join(f"    if x == {n}:\n        return {n}\n" for n in range(branches))
        return f"def tangled(x: int) -> int:\n{body}    return -1\n"

    for branches, fails in ((20, True), (19, False)):
        source = tmp_path / "planted.py"
        source.write_text(planted(branches))
        proc = _run("check", "--config", str(REPO_ROOT / "pyproject.toml"), "--output-format", "concise", str(source))
        assert ("C901" in proc.stdout) is fails, proc.stdout + proc.stderr
        assert (proc.returncode != 0) is fails

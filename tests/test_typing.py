"""Typing gate: ``pi_rpc`` type-checks cleanly with mypy under the ``[tool.mypy]`` settings in
pyproject.toml (which also name the files to check)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(300)  # a cold check of the whole package shares 2 cores with the suite
def test_package_type_checks_cleanly(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is not installed (it comes with the 'test' extra)")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(REPO_ROOT / "pyproject.toml"),
            # A private cache: nothing written into the checkout, no stale results reused.
            "--cache-dir",
            str(tmp_path / "mypy_cache"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mypy exited with {proc.returncode}:\n{output}"
    assert "Success: no issues found" in output, output

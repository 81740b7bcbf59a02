"""Fixtures for the reliability tests (``pi`` and ``spawn_pi`` come from ``tests/conftest.py``):
``read_only_dir`` makes a directory read-only for real, even for root."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


def _writable(directory: Path) -> bool:
    probe = directory / ".probe"
    try:
        probe.write_bytes(b"")
    except OSError:
        return False
    probe.unlink()
    return True


@pytest.fixture
def read_only_dir() -> Iterator[Callable[[Path, bool], None]]:
    """``set_read_only(path, True|False)``. Root ignores permission bits, so as root the
    directory is made immutable (``chattr +i``); skipped where neither works."""
    touched: list[Path] = []

    def set_read_only(directory: Path, on: bool) -> None:
        if os.geteuid() == 0:
            chattr = shutil.which("chattr")
            if chattr is None:
                pytest.skip("running as root without chattr: cannot make a directory read-only")
            done = subprocess.run([chattr, "+i" if on else "-i", str(directory)], capture_output=True)
            if done.returncode != 0:
                pytest.skip(f"chattr failed: {done.stderr.decode(errors='replace').strip()}")
        else:
            mode = stat.S_IRUSR | stat.S_IXUSR if on else stat.S_IRWXU
            directory.chmod(mode)
        if on:
            touched.append(directory)
            if _writable(directory):
                set_read_only(directory, False)
                pytest.skip("this file system does not make the directory read-only")

    yield set_read_only
    for directory in touched:
        try:
            set_read_only(directory, False)
        except BaseException:  # noqa: BLE001 - best-effort cleanup
            pass

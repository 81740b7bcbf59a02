"""Shared helpers for the session-store tests: upstream oracle fixtures and temp copies."""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path
from typing import Any

import orjson

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pi-oracle"


def responses(scenario: str) -> dict[str, dict[str, Any]]:
    """Responses of one upstream transcript, by request id."""
    out: dict[str, dict[str, Any]] = {}
    with open(FIXTURES / f"{scenario}.jsonl", "rb") as f:
        for line in f:
            record = orjson.loads(line)
            data = record.get("json")
            if record.get("dir") == "out" and isinstance(data, dict) and data.get("type") == "response":
                out[data.get("id")] = data
    return out


def session_files(scenario: str) -> list[str]:
    """Upstream session files of a scenario, oldest first (names start with the ISO time)."""
    return sorted(glob.glob(str(FIXTURES / f"{scenario}.sessions" / "*.jsonl")))


def copy_session(src: str, dest_dir: Path, keep_lines: int | None = None) -> str:
    """Copy an upstream session file into ``dest_dir`` (optionally only its first lines)."""
    dest = str(dest_dir / os.path.basename(src))
    if keep_lines is None:
        shutil.copy(src, dest)
    else:
        with open(src, "rb") as f:
            lines = f.read().split(b"\n")[:keep_lines]
        with open(dest, "wb") as f:
            f.write(b"\n".join(lines) + b"\n")
    return dest


def read_lines(path: str) -> list[dict[str, Any]]:
    with open(path, "rb") as f:
        return [orjson.loads(line) for line in f.read().split(b"\n") if line]

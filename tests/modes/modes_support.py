"""Helpers shared by the tests in tests/modes (``from .modes_support import ...``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def session_files(agent_dir: Path) -> list[Path]:
    return sorted((agent_dir / "sessions").rglob("*.jsonl"))


def read_jsonl(data: bytes | Path) -> list[dict[str, Any]]:
    raw = data.read_bytes() if isinstance(data, Path) else data
    return [json.loads(line) for line in raw.split(b"\n") if line]


def user_texts(records: list[dict[str, Any]]) -> list[str]:
    """Texts of the user messages among session-file entries or message_end events."""
    out = []
    for record in records:
        message = record.get("message") or {}
        if record.get("type") in ("message", "message_end") and message.get("role") == "user":
            out.append("".join(b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text"))
    return out

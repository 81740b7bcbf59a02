"""Resource diagnostics: the warnings, errors and name collisions found while loading skills
and prompt templates. They are plain dicts in upstream's shape
(``{type, message, path, collision?}``); the caller decides where to print them (stderr)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict


class Collision(TypedDict):
    resourceType: Literal["skill", "prompt"]
    name: str
    winnerPath: str
    loserPath: str


class Diagnostic(TypedDict):
    type: Literal["warning", "error", "collision"]
    message: str
    path: NotRequired[str]
    collision: NotRequired[Collision]


def warning(message: str, path: str) -> Diagnostic:
    return {"type": "warning", "message": message, "path": path}


def collision(resource_type: Literal["skill", "prompt"], label: str, name: str, winner: str, loser: str) -> Diagnostic:
    return {
        "type": "collision",
        "message": f'name "{label}" collision',
        "path": loser,
        "collision": {
            "resourceType": resource_type,
            "name": name,
            "winnerPath": winner,
            "loserPath": loser,
        },
    }


def format_diagnostic(diag: Diagnostic, kind: str = "skill") -> str:
    """One human-readable stderr line for ``diag``."""
    path = diag.get("path")
    if diag["type"] == "collision" and "collision" in diag:
        c = diag["collision"]
        return f"Warning: {kind} {diag['message']}: using {c['winnerPath']}, ignoring {c['loserPath']}"
    label = "Error" if diag["type"] == "error" else "Warning"
    return f"{label}: {kind} {path}: {diag['message']}" if path else f"{label}: {diag['message']}"

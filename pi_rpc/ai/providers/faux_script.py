"""The ``faux`` provider's models and its script: where the script comes from (the CLI, the
environment, models.json), how a script file is read, and the queue of scripted turns.

Kept apart from the streaming provider (``faux.py``) so that the model registry, which lists
the faux models at startup, imports nothing of the provider machinery.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import orjson

from pi_rpc.ai.jsjson import loads as js_loads

API = "faux"
PROVIDER = "faux"
ENV_VAR = "PI_FAUX_SCRIPT"

FAUX_MODELS: list[dict[str, object]] = [
    {
        "id": "faux-1",
        "name": "Faux (offline scripted model)",
        "api": API,
        "provider": PROVIDER,
        "baseUrl": "",
        "reasoning": False,
        "input": ["text", "image"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 16384,
    },
    {
        "id": "faux-reasoner",
        "name": "Faux Reasoner (offline scripted model with thinking)",
        "api": API,
        "provider": PROVIDER,
        "baseUrl": "",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 16384,
    },
]


class _ScriptState:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.cli_path: str | None = None
        self.config_path: str | None = None
        self.loaded_path: str | None = None
        self.turns: list[dict[str, object]] = []
        self.matched: list[dict[str, object]] = []
        self.cursor = 0
        self.requests = 0


_STATE = _ScriptState()


def set_faux_script(path: str | os.PathLike[str] | None) -> None:
    """Use this script (the CLI's ``--faux-script``); None clears it."""
    with _STATE.lock:
        _STATE.cli_path = str(path) if path is not None else None
        _STATE.loaded_path = None


def set_faux_config_script(path: str | os.PathLike[str] | None) -> None:
    """The models.json ``providers.faux.script`` value (lowest priority)."""
    with _STATE.lock:
        _STATE.config_path = str(path) if path is not None else None


def reset_faux() -> None:
    """Forget loaded turns and rewind (tests, new sessions that want a fresh script)."""
    with _STATE.lock:
        _STATE.loaded_path = None
        _STATE.turns, _STATE.matched, _STATE.cursor, _STATE.requests = [], [], 0, 0


def current_faux_script() -> str | None:
    return _STATE.cli_path or os.environ.get(ENV_VAR) or _STATE.config_path


def load_script(path: str | os.PathLike[str]) -> list[dict[str, object]]:
    """Parse a script file: JSON array, ``{"turns": [...]}`` or JSONL."""
    try:
        text = Path(path).read_bytes().decode("utf-8-sig").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"Faux script {path}: cannot read it: {exc}") from None
    if not text:
        return []
    try:
        data = js_loads(text)  # lone surrogate escapes are valid script text, as in JS
    except orjson.JSONDecodeError:
        try:
            data = [js_loads(line) for line in text.splitlines() if line.strip()]
        except orjson.JSONDecodeError as exc:
            raise ValueError(f"Faux script {path}: not JSON or JSONL: {exc}") from None
    if isinstance(data, dict):
        data = data.get("turns", [data] if "turns" not in data else [])
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise ValueError(f"Faux script {path}: expected a list of turn objects")
    return data


def next_turn(last_text: str) -> dict[str, Any] | None:
    """The next scripted turn for a request whose last text is ``last_text`` (None: none left)."""
    with _STATE.lock:
        path = current_faux_script()
        if path != _STATE.loaded_path:
            _STATE.loaded_path = path
            turns = load_script(path) if path else []
            _STATE.turns = [t for t in turns if "match" not in t]
            _STATE.matched = [t for t in turns if "match" in t]
            _STATE.cursor = 0
        _STATE.requests += 1
        for i, turn in enumerate(_STATE.matched):
            if str(turn["match"]) in last_text:
                return _STATE.matched.pop(i)
        if _STATE.cursor < len(_STATE.turns):
            turn = _STATE.turns[_STATE.cursor]
            _STATE.cursor += 1
            return turn
        return None


def request_count() -> int:
    """How many requests the script has served (a faux response id is ``faux-<n>``)."""
    with _STATE.lock:
        return _STATE.requests

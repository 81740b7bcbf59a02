"""Project trust on disk, as upstream pi 1.6 keeps it.

- ``needs_trust(cwd)``: the project has resources only a trusted project may use: one of
  ``settings.json``, ``mcp.json``, ``extensions``, ``skills``, ``prompts``, ``themes``,
  ``SYSTEM.md``, ``APPEND_SYSTEM.md`` in ``cwd/.pi``, or a ``.agents/skills`` directory in
  ``cwd`` or an ancestor (the user's own ``~/.agents/skills`` does not count). A project
  without them is trusted unless a saved decision says otherwise (upstream).
- ``<agentDir>/trust.json``: ``{"<absolute project path>": true | false}``; the nearest
  ancestor's entry decides. ``remember`` writes a decision with sorted keys and two-space
  indentation, as upstream does (and drops the entries it replaces).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pi_rpc.config import paths

TRUST_REQUIRING_PROJECT_RESOURCES = (
    "settings.json",
    "mcp.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
)


def _canonical(path: Path | str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(str(path))))


def needs_trust(cwd: Path | str, home: str | None = None) -> bool:
    current = _canonical(cwd)
    config_dir = os.path.join(current, paths.CONFIG_DIR_NAME)
    if any(os.path.exists(os.path.join(config_dir, name)) for name in TRUST_REQUIRING_PROJECT_RESOURCES):
        return True
    user_skills = os.path.join(
        _canonical(home or os.environ.get("HOME") or os.path.expanduser("~")), ".agents", "skills"
    )
    while True:
        skills = os.path.join(current, ".agents", "skills")
        if skills != user_skills and os.path.exists(skills):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def _read(agent: Path) -> dict[str, object]:
    try:
        data = json.loads(paths.trust_path(agent).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def nearest_decision(data: dict[str, Any], cwd: Path | str, decide: Any) -> bool | None:
    """The decision of the nearest ancestor of ``cwd`` (itself first) that has one;
    ``decide(value)`` reads an entry (None: no decision)."""
    current = _canonical(cwd)
    while True:
        for key in (current, current.rstrip(os.sep) or os.sep):
            if key in data:
                decision = decide(data[key])
                if decision is not None:
                    return bool(decision)
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def remember(agent: Path, cwd: Path | str, decision: bool | None) -> None:
    """Save ``decision`` for ``cwd`` in ``trust.json`` (upstream's format); ``None`` removes
    the entry (upstream's "trust the parent folder" clears the folder's own decision)."""
    path = paths.trust_path(agent)
    data = {k: v for k, v in _read(agent).items() if v is True or v is False or v is None}
    key = _canonical(cwd)
    data.pop(key, None)
    data[key] = decision
    ordered = {k: data[k] for k in sorted(data) if data[k] is not None}
    path.parent.mkdir(parents=True, exist_ok=True)
    from pi_rpc.config.safe_write import replace_file

    # (the mode write_text gave it: 0666 less the umask)
    replace_file(str(path), (json.dumps(ordered, indent=2) + "\n").encode("utf-8"), mode=0o666)

"""Where pi keeps its files: the agent dir, settings/models/auth files and session directories.

Mirrors upstream's layout (protocol reference §5.1, §7.1) so a client or a user's existing
``~/.pi/agent`` works unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ENV_AGENT_DIR = "PI_CODING_AGENT_DIR"
ENV_SESSION_DIR = "PI_CODING_AGENT_SESSION_DIR"
ENV_OFFLINE = "PI_OFFLINE"

CONFIG_DIR_NAME = ".pi"


def expand_tilde(path: str) -> str:
    """Expand a leading ``~`` the way upstream does (``~`` and ``~/...`` only)."""
    if path == "~":
        return os.path.expanduser("~")
    if path.startswith("~/") or path.startswith("~" + os.sep):
        return os.path.join(os.path.expanduser("~"), path[2:])
    return path


def agent_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$PI_CODING_AGENT_DIR`` (``~`` expanded, made absolute) or ``~/.pi/agent``."""
    env = os.environ if env is None else env
    raw = env.get(ENV_AGENT_DIR)
    if raw:
        return Path(os.path.abspath(expand_tilde(raw)))
    return Path(os.path.expanduser("~")) / CONFIG_DIR_NAME / "agent"


def is_offline(env: Mapping[str, str] | None = None) -> bool:
    """``PI_OFFLINE`` is truthy when ``1``, ``true`` or ``yes`` (case-insensitive)."""
    env = os.environ if env is None else env
    return env.get(ENV_OFFLINE, "").strip().lower() in ("1", "true", "yes")


def settings_path(agent: Path) -> Path:
    return agent / "settings.json"


def project_settings_path(cwd: Path | str) -> Path:
    return Path(cwd) / CONFIG_DIR_NAME / "settings.json"


def trust_path(agent: Path) -> Path:
    return agent / "trust.json"


def sessions_root(agent: Path) -> Path:
    return agent / "sessions"


def encode_cwd(cwd: Path | str) -> str:
    """Session directory name for a cwd: ``/home/me/x`` -> ``--home-me-x--``.

    Upstream resolves the cwd (no symlink resolution), drops one leading separator and
    replaces every ``/``, ``\\`` and ``:`` with ``-``.
    """
    resolved = os.path.abspath(str(cwd))
    if resolved[:1] in ("/", "\\"):
        resolved = resolved[1:]
    for ch in ("/", "\\", ":"):
        resolved = resolved.replace(ch, "-")
    return f"--{resolved}--"


def default_session_dir(agent: Path, cwd: Path | str) -> Path:
    return sessions_root(agent) / encode_cwd(cwd)


@dataclass(frozen=True)
class SessionDirChoice:
    """The directory sessions are written to and looked up in.

    ``custom`` is true for ``--session-dir``, ``$PI_CODING_AGENT_SESSION_DIR`` and the
    ``sessionDir`` setting: such a directory is flat (sessions of every cwd), so lookups must
    filter by the header ``cwd``.
    """

    path: Path
    custom: bool
    source: str  # "cli" | "env" | "settings" | "default"


def resolve_session_dir(
    *,
    cwd: Path | str,
    agent: Path,
    cli_session_dir: str | None = None,
    settings_session_dir: str | None = None,
    env: Mapping[str, str] | None = None,
) -> SessionDirChoice:
    """Precedence: ``--session-dir`` > ``$PI_CODING_AGENT_SESSION_DIR`` > ``sessionDir`` setting
    > ``<agentDir>/sessions/--<cwd>--``. Relative values resolve from the cwd."""
    env = os.environ if env is None else env
    for value, source in (
        (cli_session_dir, "cli"),
        (env.get(ENV_SESSION_DIR) or None, "env"),
        (settings_session_dir, "settings"),
    ):
        if value:
            expanded = expand_tilde(value)
            path = Path(expanded) if os.path.isabs(expanded) else Path(cwd) / expanded
            return SessionDirChoice(Path(os.path.abspath(path)), True, source)
    return SessionDirChoice(default_session_dir(agent, cwd), False, "default")


def find_git_root(start: str) -> str | None:
    """The first directory from ``start`` upwards that contains ``.git`` (file or directory)."""
    current = os.path.abspath(start)
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def ancestor_agents_skill_dirs(cwd: str, user_skills_dir: str) -> list[str]:
    """``.agents/skills`` of ``cwd`` and of each ancestor up to the git root (or ``/``), nearest
    first, without the user's own ``user_skills_dir`` (upstream's
    ``collectAncestorAgentsSkillDirs``): what sessions load and what ``pi config`` lists."""
    start = os.path.abspath(cwd)
    git_root = find_git_root(start)
    user_dir = os.path.normpath(user_skills_dir)
    found: list[str] = []
    current = start
    while True:
        directory = os.path.join(current, ".agents", "skills")
        if os.path.normpath(directory) != user_dir:
            found.append(directory)
        parent = os.path.dirname(current)
        if current == git_root or parent == current:
            return found
        current = parent

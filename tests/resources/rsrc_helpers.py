"""Helpers for the resources tests: real directory trees in tmp_path."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def skill_md(name: str | None, description: str | None, body: str = "Body.", extra: str = "") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra)
    lines.append("---")
    lines.append(body)
    return "\n".join(lines) + "\n"


def make_layout(tmp_path: Path) -> dict[str, Path]:
    """A fake home, agent dir and a git project with a nested cwd."""
    home = tmp_path / "home"
    agent = home / ".pi" / "agent"
    repo = tmp_path / "repo"
    cwd = repo / "pkg" / "sub"
    for d in (home, agent, cwd):
        d.mkdir(parents=True)
    (repo / ".git").mkdir()
    return {"home": home, "agent": agent, "repo": repo, "cwd": cwd, "tmp": tmp_path}

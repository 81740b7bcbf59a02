"""Prompt inputs read from disk: project context files (AGENTS.md / CLAUDE.md), the system
prompt replacement (``--system-prompt`` or SYSTEM.md) and the appended prompts
(``--append-system-prompt`` or APPEND_SYSTEM.md).

Context files, in order: the first of ``AGENTS.md``/``CLAUDE.md`` in the agent dir, then, from
the filesystem root down to the cwd, the first of the two in each directory (a path already
taken is not repeated). Context files load even for untrusted projects; ``--no-context-files``
turns them all off.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from pi_rpc.resources import _fs
from pi_rpc.resources._text import read_text

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")
CONFIG_DIR_NAME = ".pi"


@dataclass(frozen=True)
class ContextFile:
    """One context file (``AGENTS.md`` / ``CLAUDE.md``) and its text."""

    path: str
    content: str


def _context_file_in(directory: str, warnings: list[str]) -> ContextFile | None:
    for filename in CONTEXT_FILE_NAMES:
        path = os.path.join(directory, filename)
        if not os.path.exists(path):
            continue
        try:
            return ContextFile(path, read_text(path))
        except OSError as exc:
            warnings.append(f"Warning: Could not read {path}: {exc.strerror or exc}")
    return None


def load_context_files(
    *,
    cwd: str,
    agent_dir: str,
    no_context_files: bool = False,
    warnings: list[str] | None = None,
) -> list[ContextFile]:
    """AGENTS.md/CLAUDE.md files in prompt order. Unreadable files are skipped with a line
    appended to ``warnings`` (for stderr)."""
    if no_context_files:
        return []
    sink = warnings if warnings is not None else []
    files: list[ContextFile] = []
    seen: set[str] = set()
    global_file = _context_file_in(_fs.abspath(agent_dir), sink)
    if global_file is not None:
        files.append(global_file)
        seen.add(global_file.path)

    ancestors: list[ContextFile] = []
    current = _fs.abspath(cwd)
    while True:
        found = _context_file_in(current, sink)
        if found is not None and found.path not in seen:
            ancestors.insert(0, found)
            seen.add(found.path)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    files.extend(ancestors)
    return files


def resolve_prompt_input(value: str | None, description: str, warnings: list[str] | None = None) -> str | None:
    """A flag value that may be literal text or a path: an existing path is read, anything else
    is the text itself (a path that exists but cannot be read falls back to the text)."""
    if not value:
        return None
    if os.path.exists(value):
        try:
            return read_text(value)
        except OSError as exc:
            if warnings is not None:
                warnings.append(f"Warning: Could not read {description} file {value}: {exc.strerror or exc}")
            return value
    return value


def _discover(cwd: str, agent_dir: str, filename: str) -> str | None:
    for candidate in (
        os.path.join(_fs.abspath(cwd), CONFIG_DIR_NAME, filename),
        os.path.join(_fs.abspath(agent_dir), filename),
    ):
        if os.path.exists(candidate):
            return candidate
    return None


def load_custom_system_prompt(
    *, cwd: str, agent_dir: str, system_prompt: str | None = None, warnings: list[str] | None = None
) -> str | None:
    """The text replacing the default base prompt: ``--system-prompt`` (text or path), else
    ``<cwd>/.pi/SYSTEM.md``, else ``<agentDir>/SYSTEM.md``; ``None`` when there is none."""
    source = system_prompt if system_prompt is not None else _discover(cwd, agent_dir, "SYSTEM.md")
    return resolve_prompt_input(source, "system prompt", warnings)


def load_append_system_prompts(
    *,
    cwd: str,
    agent_dir: str,
    append_system_prompt: Iterable[str] | None = None,
    warnings: list[str] | None = None,
) -> list[str]:
    """Texts appended to the prompt: every ``--append-system-prompt`` value (text or path) when
    the flag was given, else the first of ``<cwd>/.pi/APPEND_SYSTEM.md`` and
    ``<agentDir>/APPEND_SYSTEM.md``."""
    if append_system_prompt is not None:
        sources = list(append_system_prompt)
    else:
        found = _discover(cwd, agent_dir, "APPEND_SYSTEM.md")
        sources = [found] if found else []
    texts = [resolve_prompt_input(s, "append system prompt", warnings) for s in sources]
    return [t for t in texts if t is not None]

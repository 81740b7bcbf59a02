"""Filesystem helpers for resource discovery: path resolution the way upstream resolves user
input (``~`` expansion, relative to the cwd, no symlink resolution), sorted directory listings
that follow symlinks, the git-root search, and ignore-file matching.

Ignore files (``.gitignore``, ``.ignore``, ``.fdignore``) are read in every visited directory
and their patterns are re-rooted to that directory by prefixing its path relative to the scan
root, exactly as upstream does; the accumulated patterns are matched with gitignore semantics.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_rpc.resources._text import read_text

IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")


def abspath(path: str | os.PathLike[str], base: str | os.PathLike[str] | None = None) -> str:
    """Node's ``path.resolve(base, path)``: absolute and normalised, symlinks untouched."""
    p = os.fspath(path)
    if base is not None and not os.path.isabs(p):
        p = os.path.join(os.fspath(base), p)
    return os.path.abspath(p)


def resolve_user_path(raw: str, cwd: str, home: str | None = None) -> str:
    """Resolve a path typed by the user (CLI flag, settings): trimmed, ``~`` expanded, relative
    paths taken from ``cwd``."""
    home_dir = home if home is not None else os.path.expanduser("~")
    text = raw.strip()
    if text == "~":
        text = home_dir
    elif text.startswith("~/"):
        text = os.path.join(home_dir, text[2:])
    elif text.startswith("~"):
        text = os.path.join(home_dir, text[1:])
    return abspath(text, cwd)


def is_under(target: str, root: str) -> bool:
    root = os.path.abspath(root)
    if target == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return target.startswith(prefix)


def real_identity(path: str) -> str:
    try:
        return os.path.realpath(path, strict=True)
    except OSError:
        return os.path.abspath(path)


@dataclass(frozen=True)
class DirEntry:
    """One directory entry, with symlinks resolved to what they point at."""

    name: str
    path: str
    is_file: bool
    is_dir: bool


def list_dir(directory: str) -> list[DirEntry] | None:
    """Entries of ``directory`` sorted by name (libuv's scandir order), symlinks followed.
    Broken symlinks are left out. ``None`` when the directory cannot be read."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return None
    entries: list[DirEntry] = []
    for name in names:
        full = os.path.join(directory, name)
        try:
            st = os.stat(full)
        except OSError:
            continue
        entries.append(DirEntry(name, full, stat.S_ISREG(st.st_mode), stat.S_ISDIR(st.st_mode)))
    return entries


def _prefix_pattern(line: str, prefix: str) -> str | None:
    trimmed = line.strip()
    if not trimmed:
        return None
    if trimmed.startswith("#") and not trimmed.startswith("\\#"):
        return None
    pattern = line
    negated = False
    if pattern.startswith("!"):
        negated = True
        pattern = pattern[1:]
    elif pattern.startswith("\\!"):
        pattern = pattern[1:]
    if pattern.startswith("/"):
        pattern = pattern[1:]
    prefixed = f"{prefix}{pattern}" if prefix else pattern
    return f"!{prefixed}" if negated else prefixed


class IgnoreMatcher:
    """Accumulated ignore rules for one scan root."""

    def __init__(self) -> None:
        self._patterns: list[str] = []
        self._spec: Any = None  # pathspec.GitIgnoreSpec, built on first use

    def add_rules_from(self, directory: str, root: str) -> None:
        rel = os.path.relpath(directory, root)
        prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        for filename in IGNORE_FILE_NAMES:
            ignore_path = os.path.join(directory, filename)
            if not os.path.exists(ignore_path):
                continue
            try:
                content = read_text(ignore_path)
            except OSError:
                continue
            lines = content.replace("\r\n", "\n").split("\n")
            patterns = [p for p in (_prefix_pattern(line, prefix) for line in lines) if p]
            if patterns:
                self._patterns.extend(patterns)
                self._spec = None

    def ignores(self, rel_path: str) -> bool:
        """``rel_path`` is POSIX-style relative to the root; directories end with ``/``."""
        if not self._patterns:
            return False
        if self._spec is None:
            from pathspec import GitIgnoreSpec

            self._spec = GitIgnoreSpec.from_lines(self._patterns)
        return self._spec.match_file(rel_path)


def rel_posix(path: str, root: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def source_info(
    path: str,
    source: str,
    scope: str = "temporary",
    origin: str = "top-level",
    base_dir: str | None = None,
) -> dict[str, str]:
    """Upstream's ``SourceInfo`` in its key order; ``baseDir`` is left out when unknown."""
    info = {"path": path, "source": source, "scope": scope, "origin": origin}
    if base_dir is not None:
        info["baseDir"] = base_dir
    return info


def home_dir(home: str | None) -> str:
    return home if home is not None else str(Path.home())

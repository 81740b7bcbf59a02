"""A .gitignore-aware directory walk and glob matching for the grep/find fallbacks.

Used when ripgrep / fd are not on PATH. Hidden files are included (like ``--hidden``); the
``.git`` directory is always skipped; ``.gitignore`` and ``.ignore`` files apply to their own
directory and below, plus the ones in ancestors up to the enclosing git repository root.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

IGNORE_FILES = (".gitignore", ".ignore")
ALWAYS_SKIP = frozenset({".git"})


def _load_spec(directory: str) -> pathspec.PathSpec | None:
    lines: list[str] = []
    for name in IGNORE_FILES:
        try:
            with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as fh:
                lines.extend(fh.read().splitlines())
        except OSError:
            continue
    if not lines:
        return None
    import pathspec  # (imported by the first walk, not at startup)

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _ancestor_specs(root: str) -> list[tuple[str, pathspec.PathSpec]]:
    """Ignore specs of directories above ``root`` inside the same git repository."""
    ancestors: list[str] = []
    current = os.path.dirname(root)
    probe = root
    git_root: str | None = None
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            git_root = probe
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    if git_root is None or git_root == root:
        return []
    while True:
        ancestors.append(current)
        if current == git_root:
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    specs = []
    for directory in reversed(ancestors):
        spec = _load_spec(directory)
        if spec is not None:
            specs.append((directory, spec))
    return specs


def _ignored(abs_path: str, is_dir: bool, specs: list[tuple[str, pathspec.PathSpec]]) -> bool:
    ignored = False
    for directory, spec in specs:
        rel = os.path.relpath(abs_path, directory).replace(os.sep, "/")
        if rel.startswith(".."):
            continue
        if is_dir:
            rel += "/"
        result = spec.check_file(rel)
        if result.include is not None:
            ignored = bool(result.include)
    return ignored


def walk(root: str, *, respect_ignore: bool = True) -> Iterator[tuple[str, str, bool]]:
    """Yield ``(abs_path, rel_posix_path, is_dir)`` below ``root`` in sorted order."""
    base_specs = _ancestor_specs(root) if respect_ignore else []

    def visit(directory: str, specs: list[tuple[str, pathspec.PathSpec]]) -> Iterator[tuple[str, str, bool]]:
        if respect_ignore:
            own = _load_spec(directory)
            if own is not None:
                specs = [*specs, (directory, own)]
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.name in ALWAYS_SKIP:
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if respect_ignore and _ignored(entry.path, is_dir, specs):
                continue
            rel = os.path.relpath(entry.path, root).replace(os.sep, "/")
            yield entry.path, rel, is_dir
            if is_dir and not entry.is_symlink():
                yield from visit(entry.path, specs)

    yield from visit(root, base_specs)


@lru_cache(maxsize=256)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob (``*``, ``?``, ``**``, ``[...]``, ``{a,b}``) where ``*`` stays within a segment."""
    out: list[str] = []
    i = 0
    depth = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            if pattern.startswith("**", i):
                i += 2
                if i < len(pattern) and pattern[i] == "/":
                    i += 1
                    out.append("(?:.*/)?")
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        elif ch == "{":
            depth += 1
            out.append("(?:")
        elif ch == "}" and depth:
            depth -= 1
            out.append(")")
        elif ch == "," and depth:
            out.append("|")
        elif ch == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("^" + "".join(out) + "$", re.DOTALL)


def glob_matches(pattern: str, rel_path: str, *, anchored: bool = False) -> bool:
    """Match like fd/rg globs: a pattern without ``/`` is tested against the basename only.

    With a ``/``, ``anchored`` patterns (rg ``--glob``) are relative to the search root, others
    (fd ``--full-path``) may match at any depth.
    """
    if "/" not in pattern:
        return bool(glob_to_regex(pattern).match(rel_path.rsplit("/", 1)[-1]))
    pat = pattern.lstrip("/")
    if not anchored and not pat.startswith("**/") and pat != "**":
        pat = "**/" + pat
    return bool(glob_to_regex(pat).match(rel_path))

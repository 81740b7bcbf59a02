"""Which files of a package (or of a local path in settings) are resources, as upstream pi 1.6
finds them (``package-manager.js``):

- a ``pi`` object in ``package.json`` whose ``extensions``/``skills``/``prompts``/``themes``
  arrays list paths or globs relative to the package root (``!pattern`` excludes, ``+path``
  and ``-path`` force one exact path in or out);
- otherwise the conventional folders ``extensions/`` (``*.ts``/``*.js`` files and folders with
  ``index.ts``/``index.js`` or their own manifest), ``skills/`` (``SKILL.md`` folders, root
  ``*.md``), ``prompts/`` (``*.md``) and ``themes/`` (``*.json``), honouring ``.gitignore``,
  ``.ignore`` and ``.fdignore``; Python extensions (``*.py``, folders with ``__init__.py``) are
  found there too, as pi_rpc's loose-file discovery finds them;
- the settings object form narrows that: an omitted type loads everything, ``[]`` nothing,
  patterns filter; ``autoload: false`` makes the entry a delta (only what it names changes).

Bad manifests are reported, never fatal: invalid JSON falls back to the conventional folders,
an entry that resolves outside the package or names a missing file is skipped with a warning
(upstream silently loads the first and skips the second).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

RESOURCE_TYPES = ("extensions", "skills", "prompts", "themes")
EXTENSION_SUFFIXES = (".ts", ".js", ".py")
_IGNORE_FILES = (".gitignore", ".ignore", ".fdignore")
_SUFFIX = {"skills": ".md", "prompts": ".md", "themes": ".json"}


def _posix(path: str) -> str:
    return path.replace(os.sep, "/")


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """minimatch's core: ``**`` any depth, ``*``/``?`` within one segment, ``[...]`` classes."""
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(text: str, pattern: str) -> bool:
    return _glob_regex(pattern).match(text) is not None


def _normalize_pattern(pattern: str) -> str:
    return _posix(os.path.normpath(pattern)) if pattern not in ("", ".") else pattern


def _matches_any(path: str, patterns: Sequence[str], base: str) -> bool:
    rel = _posix(os.path.relpath(path, base))
    name = os.path.basename(path)
    full = _posix(path)
    skill = name == "SKILL.md"
    parent = os.path.dirname(path)
    for raw in patterns:
        pattern = _normalize_pattern(raw)
        if glob_match(rel, pattern) or glob_match(name, pattern) or glob_match(full, pattern):
            return True
        if skill and (
            glob_match(_posix(os.path.relpath(parent, base)), pattern)
            or glob_match(os.path.basename(parent), pattern)
            or glob_match(_posix(parent), pattern)
        ):
            return True
    return False


def _matches_exact(path: str, patterns: Sequence[str], base: str) -> bool:
    rel = _posix(os.path.relpath(path, base))
    full = _posix(path)
    skill = os.path.basename(path) == "SKILL.md"
    parent = os.path.dirname(path)
    for raw in patterns:
        stripped = raw[2:] if raw.startswith(("./", ".\\")) else raw
        normalized = _normalize_pattern(stripped)
        if normalized in (rel, full):
            return True
        if skill and normalized in (_posix(os.path.relpath(parent, base)), _posix(parent)):
            return True
    return False


def is_override(entry: str) -> bool:
    return entry.startswith(("!", "+", "-"))


def apply_patterns(all_paths: Sequence[str], patterns: Sequence[str], base: str) -> set[str]:
    """Upstream's ``applyPatterns``: includes (all when none), then ``!`` excludes, ``+`` exact
    re-includes, ``-`` exact excludes."""
    includes = [p for p in patterns if not is_override(p)]
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    force_in = [p[1:] for p in patterns if p.startswith("+")]
    force_out = [p[1:] for p in patterns if p.startswith("-")]
    result = list(all_paths) if not includes else [p for p in all_paths if _matches_any(p, includes, base)]
    if excludes:
        result = [p for p in result if not _matches_any(p, excludes, base)]
    if force_in:
        result += [p for p in all_paths if p not in result and _matches_exact(p, force_in, base)]
    if force_out:
        result = [p for p in result if not _matches_exact(p, force_out, base)]
    return set(result)


def enabled_by_overrides(path: str, patterns: Sequence[str], base: str) -> bool:
    """Upstream's ``isEnabledByOverrides`` (auto-discovered files and top-level entries)."""
    overrides = [p for p in patterns if is_override(p)]
    enabled = True
    if _matches_any(path, [p[1:] for p in overrides if p.startswith("!")], base):
        enabled = False
    if _matches_exact(path, [p[1:] for p in overrides if p.startswith("+")], base):
        enabled = True
    if _matches_exact(path, [p[1:] for p in overrides if p.startswith("-")], base):
        enabled = False
    return enabled


def delta_patterns(all_paths: Sequence[str], patterns: Sequence[str], base: str) -> dict[str, bool]:
    """Upstream's ``applyAutoloadDisabledPatterns``: only the paths a pattern names change."""
    result: dict[str, bool] = {}
    for pattern in patterns:
        target = pattern[1:] if is_override(pattern) else pattern
        enabled = not pattern.startswith(("-", "!"))
        exact = pattern.startswith(("+", "-"))
        for path in all_paths:
            if _matches_exact(path, [target], base) if exact else _matches_any(path, [target], base):
                result[path] = enabled
    return result


# --------------------------------------------------------------------------- file walking


class _Ignore:
    """Ignore-file rules re-rooted to the scan root (upstream's ``addIgnoreRules``)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._spec: Any = None

    def add(self, directory: str, root: str) -> None:
        rel = os.path.relpath(directory, root)
        prefix = "" if rel == "." else _posix(rel) + "/"
        for name in _IGNORE_FILES:
            try:
                with open(os.path.join(directory, name), encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            for line in text.splitlines():
                trimmed = line.strip()
                if not trimmed or (trimmed.startswith("#") and not trimmed.startswith("\\#")):
                    continue
                negated = line.startswith("!")
                body = line[1:] if negated or line.startswith("\\!") else line
                body = body[1:] if body.startswith("/") else body
                self.lines.append(("!" if negated else "") + prefix + body)
                self._spec = None

    def ignores(self, rel: str) -> bool:
        if not self.lines:
            return False
        if self._spec is None:
            from pathspec import GitIgnoreSpec

            self._spec = GitIgnoreSpec.from_lines(self.lines)
        return bool(self._spec.match_file(rel))


def _entries(directory: str) -> list[tuple[str, str, bool, bool]]:
    """(name, path, is_dir, is_file), sorted by name, symlinks followed."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(directory, name)
        try:
            is_dir = os.path.isdir(path)
            is_file = os.path.isfile(path)
        except OSError:
            continue
        found.append((name, path, is_dir, is_file))
    return found


def _collect_files(directory: str, suffix: str, ig: _Ignore | None = None, root: str | None = None) -> list[str]:
    root = root or directory
    ig = ig or _Ignore()
    ig.add(directory, root)
    files: list[str] = []
    for name, path, is_dir, is_file in _entries(directory):
        if name.startswith(".") or name == "node_modules":
            continue
        rel = _posix(os.path.relpath(path, root))
        if ig.ignores(rel + "/" if is_dir else rel):
            continue
        if is_dir:
            files += _collect_files(path, suffix, ig, root)
        elif is_file and name.endswith(suffix):
            files.append(path)
    return files


def _collect_skills(
    directory: str, ig: _Ignore | None = None, root: str | None = None, *, agents: bool = False
) -> list[str]:
    # An ``.agents/skills`` root counts loose ``.md`` files only below the root, pi's own
    # folders only at the root (upstream's "agents"/"pi" modes).
    root = root or directory
    ig = ig or _Ignore()
    ig.add(directory, root)
    entries = _entries(directory)
    for name, path, _is_dir, is_file in entries:
        if name == "SKILL.md" and is_file and not ig.ignores(_posix(os.path.relpath(path, root))):
            return [path]
    found: list[str] = []
    for name, path, is_dir, is_file in entries:
        if name.startswith(".") or name == "node_modules":
            continue
        rel = _posix(os.path.relpath(path, root))
        if is_file and name.endswith(".md") and (directory != root) == agents and not ig.ignores(rel):
            found.append(path)
            continue
        if is_dir and not ig.ignores(rel + "/"):
            found += _collect_skills(path, ig, root, agents=agents)
    return found


def read_manifest(package_json: str, warnings: list[str] | None = None) -> dict[str, Any] | None:
    """The ``pi`` object of a ``package.json`` (arrays of strings only), or None."""
    try:
        with open(package_json, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        if warnings is not None:
            warnings.append(f"Warning: Invalid package manifest {package_json}: {exc}")
        return None
    if not isinstance(data, dict) or not isinstance(data.get("pi"), dict):
        return None
    manifest: dict[str, object] = {}
    for field in RESOURCE_TYPES:
        entries = data["pi"].get(field)
        if isinstance(entries, list) and all(isinstance(e, str) for e in entries):
            manifest[field] = entries
    return manifest


def extension_entries_of_dir(directory: str, warnings: list[str] | None = None) -> list[str] | None:
    """A folder that is one extension: its manifest's entries, ``index.ts``/``index.js``, or
    (pi_rpc) ``__init__.py``; None when it is not one."""
    manifest = read_manifest(os.path.join(directory, "package.json"), warnings)
    if manifest and manifest.get("extensions"):
        entries = [os.path.normpath(os.path.join(directory, e)) for e in manifest["extensions"]]
        existing = [e for e in entries if os.path.exists(e)]
        if existing:
            return existing
    for name in ("index.ts", "index.js", "__init__.py"):
        path = os.path.join(directory, name)
        if os.path.exists(path):
            return [path]
    return None


def collect_extension_entries(directory: str, warnings: list[str] | None = None) -> list[str]:
    """Upstream's ``collectAutoExtensionEntries`` (plus Python files and packages)."""
    if not os.path.exists(directory):
        return []
    own = extension_entries_of_dir(directory, warnings)
    if own is not None:
        return own
    ig = _Ignore()
    ig.add(directory, directory)
    found: list[str] = []
    for name, path, is_dir, is_file in _entries(directory):
        if name.startswith((".", "_")) or name == "node_modules":
            continue
        rel = _posix(os.path.relpath(path, directory))
        if ig.ignores(rel + "/" if is_dir else rel):
            continue
        if is_file and name.endswith(EXTENSION_SUFFIXES):
            found.append(path)
        elif is_dir:
            found += extension_entries_of_dir(path, warnings) or []
    return found


def collect_agents_skills(directory: str) -> list[str]:
    """The skills of an ``.agents/skills`` folder (loose ``.md`` files count below its root)."""
    return _collect_skills(directory, agents=True)


def collect_resource_files(directory: str, resource_type: str, warnings: list[str] | None = None) -> list[str]:
    if resource_type == "skills":
        return _collect_skills(directory)
    if resource_type == "extensions":
        return collect_extension_entries(directory, warnings)
    return _collect_files(directory, _SUFFIX[resource_type])


def files_from_paths(paths: Iterable[str], resource_type: str, warnings: list[str] | None = None) -> list[str]:
    files: list[str] = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
        elif os.path.isdir(path):
            files += collect_resource_files(path, resource_type, warnings)
    return files


def _expand_glob(pattern: str, root: str) -> list[str]:
    """Paths under ``root`` matching ``pattern``, segment by segment; dot segments are not
    traversed by a glob (list them directly)."""
    parts = [p for p in _posix(pattern).split("/") if p not in ("", ".")]
    results: list[str] = []

    def walk(directory: str, index: int) -> None:
        if index == len(parts):
            results.append(directory)
            return
        part = parts[index]
        if part == "..":
            walk(os.path.dirname(directory), index + 1)
            return
        if part == "**":
            walk(directory, index + 1)
            for name, path, is_dir, _ in _entries(directory):
                if is_dir and not name.startswith("."):
                    walk(path, index)
            return
        if not any(c in part for c in "*?["):
            path = os.path.join(directory, part)
            if os.path.exists(path):
                walk(path, index + 1)
            return
        for name, path, _, _ in _entries(directory):
            if not name.startswith(".") and glob_match(name, part):
                walk(path, index + 1)

    walk(root, 0)
    return sorted(set(results))


def _inside(root: str, path: str) -> bool:
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root + os.sep)


def manifest_files(
    entries: Sequence[str], root: str, resource_type: str, warnings: list[str] | None = None
) -> list[str]:
    resolved: list[str] = []
    for entry in entries:
        if is_override(entry):
            continue
        candidates = (
            _expand_glob(entry, root)
            if any(c in entry for c in "*?")
            else [os.path.normpath(os.path.join(root, entry))]
        )
        for path in candidates:
            if not _inside(root, path):
                if warnings is not None:
                    warnings.append(
                        f"Warning: Package {root}: {resource_type} entry {entry!r} points outside the package; skipped"
                    )
                continue
            if not os.path.exists(path):
                if warnings is not None:
                    warnings.append(
                        f"Warning: Package {root}: {resource_type} entry {entry!r} names a missing file; skipped"
                    )
                continue
            resolved.append(path)
    return files_from_paths(resolved, resource_type, warnings)


def package_type_files(
    root: str, resource_type: str, manifest: Mapping[str, Any] | None, warnings: list[str] | None = None
) -> list[str] | None:
    """All files of one type the package offers (manifest, else the conventional folder;
    None when the package has neither)."""
    entries = manifest.get(resource_type) if manifest else None
    if entries:
        files = manifest_files(entries, root, resource_type, warnings)
        overrides = [e for e in entries if is_override(e)]
        if overrides:
            enabled = apply_patterns(files, overrides, root)
            files = [f for f in files if f in enabled]
        return files
    directory = os.path.join(root, resource_type)
    if entries is None and os.path.isdir(directory):
        return collect_resource_files(directory, resource_type, warnings)
    return [] if entries is not None else None


def package_resources(
    root: str, filter_entry: Mapping[str, Any] | None, warnings: list[str] | None = None
) -> dict[str, list[tuple[str, bool]]] | None:
    """Per resource type, the package's files with whether they are enabled (upstream's
    ``collectPackageResources``); None when the folder has no manifest resources and no
    conventional folder (a plain extension folder)."""
    manifest = read_manifest(os.path.join(root, "package.json"), warnings)
    has_manifest = bool(manifest) and any(t in manifest for t in RESOURCE_TYPES) if manifest else False
    result: dict[str, list[tuple[str, bool]]] = {t: [] for t in RESOURCE_TYPES}
    found_any = False
    for resource_type in RESOURCE_TYPES:
        if filter_entry is None and has_manifest and manifest is not None and resource_type not in manifest:
            # upstream: a manifest that lists resources offers only those (no folder fallback;
            # with a settings filter the conventional folder is used for the unlisted types)
            files: list[str] | None = []
        else:
            files = package_type_files(root, resource_type, manifest if has_manifest else None, warnings)
        if files is None:
            files = []
        else:
            found_any = True
        if filter_entry is None:
            result[resource_type] = [(f, True) for f in files]
            continue
        patterns = filter_entry.get(resource_type)
        if filter_entry.get("autoload") is False:
            delta = delta_patterns(files, list(patterns or []), root)
            result[resource_type] = [(f, delta[f]) for f in files if f in delta]
        elif isinstance(patterns, list):
            enabled = apply_patterns(files, [str(p) for p in patterns], root) if patterns else set()
            result[resource_type] = [(f, f in enabled) for f in files]
        else:
            result[resource_type] = [(f, True) for f in files]
    if filter_entry is None and not has_manifest and not found_any:
        return None
    return result

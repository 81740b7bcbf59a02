"""Which extensions a session loads, in upstream's order, before anything is imported.

1. ``-e/--extension PATH`` (repeatable; also ``-e builtin:<name>``), in command-line order;
2. unless ``--no-extensions``: paths listed in the ``extensions`` setting (project settings
   first, only for a trusted project, then global), the project's ``.pi/extensions/`` (trusted
   projects only), ``<agentDir>/extensions/``, and the enabled built-ins.

An extension is a Python file defining ``setup(pi)``, a package directory with ``__init__.py``,
or (as upstream) a TypeScript/JavaScript file whose default export is the factory, run in the
Node sidecar (``pi_rpc.extensions.nodejs``). Discovery in a directory goes one level deep:
``*.py`` files (names starting with ``_`` or ``.`` are helpers, not extensions), ``*.ts`` and
``*.js`` files, and subdirectories with ``__init__.py``, else the entries their ``package.json``
declares under ``pi.extensions``, else ``index.ts``, else ``index.js`` (upstream's rules). A
directory given with ``-e`` that is itself one extension is that extension. The same file is
loaded once.

Packages (:mod:`pi_rpc.packages`): ``-e npm:…``/``git:…``/``pypi:…`` sources are expanded in
command-line order; the configured packages' entries come after the loose files of
``.pi/extensions`` and ``<agentDir>/extensions`` and before the built-ins (upstream's precedence
ranks); ``ExtensionSource.package`` names the package entry (``npm:foo``), ``None`` otherwise.

This module only lists directories and stats files: with nothing to load, startup pays for
two ``listdir`` calls and imports nothing else.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pi_rpc.extensions.builtin import BUILTIN_EXTENSIONS, BUILTIN_PREFIX

CONFIG_DIR_NAME = ".pi"


class ExtensionSource:
    """Where an extension comes from, before it is loaded: the path ``extensionPath`` reports
    (absolute file path, or ``builtin:<name>``), its ``sourceInfo``, the module of a built-in,
    and whether it was named explicitly (``-e`` or a setting; a load failure's hint says so).
    A plain class: this module is imported at every startup."""

    __slots__ = ("path", "source_info", "module_name", "explicit", "runtime", "package")

    def __init__(
        self,
        path: str,
        source_info: dict[str, Any],
        module_name: str | None = None,
        explicit: bool = False,
        package: str | None = None,
    ) -> None:
        self.path = path
        self.source_info = source_info
        self.module_name = module_name
        self.explicit = explicit
        # "node" for TypeScript/JavaScript entry files, "python" for the rest (built-ins too)
        self.runtime = "node" if path.endswith(_FOREIGN_SUFFIXES) else "python"
        # the package entry (settings or -e source) this extension comes from
        self.package = package

    def __repr__(self) -> str:
        return f"ExtensionSource({self.path!r}, explicit={self.explicit})"


_SCRIPT_SUFFIXES = (".ts", ".js")  # what upstream discovers in a directory (-e takes any file)
_FOREIGN_SUFFIXES = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs")
_PACKAGE_PREFIXES = ("npm:", "git:", "pypi:", "http://", "https://", "ssh://", "git://")


def _source_info(path: str, source: str, scope: str, base_dir: str | None = None) -> dict[str, str]:
    info = {"path": path, "source": source, "scope": scope, "origin": "top-level"}
    if base_dir is not None:
        info["baseDir"] = base_dir
    return info


def resolve_path(raw: str, base: str) -> str:
    """A user-typed path: trimmed, ``~`` expanded, relative to ``base``, normalised."""
    text = raw.strip()
    if text == "~" or text.startswith("~/"):
        text = os.path.expanduser(text)
    if not os.path.isabs(text):
        text = os.path.join(base, text)
    return os.path.abspath(text)


def _is_helper(name: str) -> bool:
    return name.startswith(("_", "."))


def _manifest_entries(directory: str) -> list[str]:
    """Existing files a ``package.json`` declares under ``pi.extensions`` (upstream's manifest)."""
    manifest = os.path.join(directory, "package.json")
    if not os.path.isfile(manifest):
        return []
    import json

    try:
        with open(manifest, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return []
    declared = (
        data.get("pi", {}).get("extensions") if isinstance(data, dict) and isinstance(data.get("pi"), dict) else None
    )
    if not isinstance(declared, list):
        return []
    entries = [os.path.abspath(os.path.join(directory, e)) for e in declared if isinstance(e, str)]
    return [entry for entry in entries if os.path.exists(entry)]


def _directory_entries(directory: str) -> list[str]:
    """The extension(s) a directory is: a Python package, a manifest's entries, an index file."""
    init = os.path.join(directory, "__init__.py")
    if os.path.isfile(init):
        return [init]
    declared = _manifest_entries(directory)
    if declared:
        return declared
    for index in ("index.ts", "index.js"):
        path = os.path.join(directory, index)
        if os.path.isfile(path):
            return [path]
    return []


def entries_in_dir(directory: str, warnings: list[str] | None = None) -> list[str]:
    """Extensions directly in ``directory`` (sorted by name), see the module docstring.
    (``warnings`` is kept for callers; discovery itself no longer warns.)"""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found: list[str] = []
    for name in names:
        full = os.path.join(directory, name)
        if name.endswith(_SCRIPT_SUFFIXES):
            if os.path.isfile(full):
                found.append(full)
            continue
        if _is_helper(name):
            continue
        if os.path.isdir(full):
            if name != "node_modules":
                found.extend(_directory_entries(full))
            continue
        if name.endswith(".py") and os.path.isfile(full):
            found.append(full)
    return found


def _explicit_entries(path: str) -> list[str]:
    """A path given on the command line or in settings: a package directory is one extension,
    another directory contributes what it contains, a file is itself (even if missing: the
    loader reports it)."""
    if os.path.isdir(path):
        return _directory_entries(path) or entries_in_dir(path)
    return [path]


def _override_patterns(entries: Iterable[Any]) -> list[tuple[str, str]]:
    """``+pattern`` / ``-pattern`` / ``!pattern`` entries of an ``extensions`` setting."""
    patterns: list[tuple[str, str]] = []
    for entry in entries:
        if isinstance(entry, str) and entry[:1] in ("+", "-", "!") and len(entry) > 1:
            patterns.append((entry[0], entry[1:]))
    return patterns


def _enabled(path: str, patterns: Sequence[tuple[str, str]], base: str) -> bool | None:
    """The last matching override decides; ``None`` when no pattern matches."""
    decision: bool | None = None
    for op, pattern in patterns:
        target = pattern if pattern.startswith(BUILTIN_PREFIX) else resolve_path(pattern, base)
        if path == target or fnmatch.fnmatch(path, target):
            decision = op == "+"
    return decision


class _Collected:
    """The extensions found so far, in load order, each file (or built-in) once."""

    def __init__(self) -> None:
        self.sources: list[ExtensionSource] = []
        self.seen: set[str] = set()

    def add(
        self,
        path: str,
        info: dict[str, str],
        *,
        explicit: bool = False,
        module_name: str | None = None,
        package: str | None = None,
    ) -> None:
        key = path if path.startswith(BUILTIN_PREFIX) else os.path.realpath(path)
        if key in self.seen:
            return
        self.seen.add(key)
        self.sources.append(ExtensionSource(path, info, module_name=module_name, explicit=explicit, package=package))

    def exclude(self, path: str) -> None:
        """A file a settings entry names but disables: later sources do not bring it back."""
        self.seen.add(os.path.realpath(path))


def _add_cli_paths(collected: _Collected, cli_paths: Sequence[str], package_cli: Sequence[Any], base: str) -> None:
    """``-e`` sources: a package's entries, a built-in, or the files a path names."""
    for raw in cli_paths:
        if raw.strip().startswith(_PACKAGE_PREFIXES):
            # `-e npm:…`/`git:…`/`pypi:…`: the package's entries (pi_rpc.packages resolved them)
            for entry in package_cli:
                if entry.source == raw:
                    collected.add(
                        entry.path,
                        dict(entry.source_info),
                        explicit=True,
                        package=entry.source,
                        module_name=getattr(entry, "module", None),
                    )
            continue
        if raw.startswith(BUILTIN_PREFIX):
            name = raw[len(BUILTIN_PREFIX) :]
            info = _source_info(raw, "builtin", "temporary")
            collected.add(raw, info, explicit=True, module_name=BUILTIN_EXTENSIONS.get(name))
            continue
        for path in _explicit_entries(resolve_path(raw, base)):
            collected.add(path, _source_info(path, "cli", "temporary"), explicit=True)


def _add_settings_entries(collected: _Collected, entries: Sequence[Any], scope: str, base: str) -> None:
    """The paths a settings file's ``extensions`` lists, less those its ``-``/``!`` patterns
    exclude (upstream's ``resolveLocalEntries``: a project overriding a global extension names it
    and then ``-``s it)."""
    patterns = [e for e in entries if isinstance(e, str) and e[:1] in ("+", "-", "!")]
    files: list[str] = []
    for entry in entries:
        if not isinstance(entry, str) or not entry.strip() or entry[:1] in ("+", "-", "!"):
            continue
        if entry.startswith(BUILTIN_PREFIX):
            continue  # built-ins are enabled by default; entries only exclude them
        files += _explicit_entries(resolve_path(entry, base))
    if patterns:
        from pi_rpc.packages.collect import apply_patterns  # (only for patterns: startup imports none of it)

        enabled = apply_patterns(files, patterns, base)
    else:
        enabled = set(files)
    for path in files:
        if path in enabled:
            collected.add(path, _source_info(path, "local", scope), explicit=True)
        else:
            collected.exclude(path)


def discover_extension_sources(
    *,
    cwd: str,
    agent_dir: str,
    cli_paths: Sequence[str] = (),
    cli_base: str | None = None,
    no_extensions: bool = False,
    project_trusted: bool = False,
    global_settings: Mapping[str, Any] | None = None,
    project_settings: Mapping[str, Any] | None = None,
    disabled_builtins: Iterable[str] = (),
    warnings: list[str] | None = None,
    package_cli: Sequence[Any] = (),
    package_configured: Sequence[Any] = (),
) -> list[ExtensionSource]:
    """The extensions to load, in load order (see the module docstring). ``-e`` paths are
    relative to ``cli_base`` (the process cwd; default ``cwd``)."""
    collected = _Collected()
    add = collected.add
    sources = collected.sources
    _add_cli_paths(collected, cli_paths, package_cli, cli_base or cwd)
    if no_extensions:
        return sources

    global_entries = list((global_settings or {}).get("extensions") or [])
    project_entries = list((project_settings or {}).get("extensions") or []) if project_trusted else []
    project_base = os.path.join(cwd, CONFIG_DIR_NAME)
    for entries, scope, base in ((project_entries, "project", project_base), (global_entries, "user", agent_dir)):
        _add_settings_entries(collected, entries, scope, base)

    global_patterns = _override_patterns(global_entries)
    project_patterns = _override_patterns(project_entries)

    def auto(directory: str, scope: str, base: str, patterns: Sequence[tuple[str, str]]) -> None:
        for path in entries_in_dir(directory, warnings):
            if _enabled(path, patterns, base) is False:
                continue
            add(path, _source_info(path, "auto", scope, base))

    if project_trusted:
        auto(os.path.join(project_base, "extensions"), "project", project_base, project_patterns)
    auto(os.path.join(agent_dir, "extensions"), "user", agent_dir, global_patterns)

    for entry in package_configured:
        add(entry.path, dict(entry.source_info), package=entry.source, module_name=getattr(entry, "module", None))

    disabled = set(disabled_builtins)
    for name, module_name in BUILTIN_EXTENSIONS.items():
        path = f"{BUILTIN_PREFIX}{name}"
        if name in disabled:
            continue
        project_decision = _enabled(path, project_patterns, project_base)
        decision = project_decision if project_decision is not None else _enabled(path, global_patterns, agent_dir)
        if decision is False:
            continue
        add(path, _source_info(path, "builtin", "temporary"), module_name=module_name)
    return sources

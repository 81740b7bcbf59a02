"""Which extensions a session loads, in upstream's order, before anything is imported.

1. ``-e/--extension PATH`` (repeatable; also ``-e builtin:<name>``), in command-line order;
2. unless ``--no-extensions``: paths listed in the ``extensions`` setting (project settings
   first, only for a trusted project, then global), the project's ``.pi/extensions/`` (trusted
   projects only), ``<agentDir>/extensions/``, and the enabled built-ins.

An extension is a Python file defining ``setup(pi)``, or a package directory with
``__init__.py``. Discovery in a directory goes one level deep: ``*.py`` files (names starting
with ``_`` or ``.`` are helpers, not extensions) and subdirectories with ``__init__.py``. A
directory given with ``-e`` that is itself a package is one extension. The same file is loaded
once.

TypeScript/JavaScript extensions are listed too, as upstream finds them: ``*.ts``/``*.js`` files
and folders with ``index.ts``/``index.js`` (or a ``package.json`` whose ``pi.extensions`` names
entries); their ``ExtensionSource.runtime`` is ``"node"`` (``"python"`` for the others). Who
loads them decides what to do with them (today :mod:`pi_rpc.runtime.enabled_extensions` skips
the discovered ones with a warning and the loader refuses explicit ones).

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


def _node_entries_of_dir(directory: str) -> list[str]:
    """A folder that is one TypeScript/JavaScript extension: the entries its ``package.json``
    ``pi.extensions`` names (those that exist), else ``index.ts``/``index.js``."""
    manifest = os.path.join(directory, "package.json")
    if os.path.isfile(manifest):
        from pi_rpc.packages.collect import extension_entries_of_dir

        return [p for p in extension_entries_of_dir(directory) or [] if not p.endswith("__init__.py")]
    for name in ("index.ts", "index.js"):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return [path]
    return []


def entries_in_dir(directory: str, warnings: list[str] | None = None) -> list[str]:
    """Extensions directly in ``directory`` (sorted by name), see the module docstring."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found: list[str] = []
    for name in names:
        if _is_helper(name):
            continue
        full = os.path.join(directory, name)
        if os.path.isdir(full):
            init = os.path.join(full, "__init__.py")
            if os.path.isfile(init):
                found.append(init)
            elif name != "node_modules":
                found.extend(_node_entries_of_dir(full))
            continue
        if name.endswith(".py") and os.path.isfile(full):
            found.append(full)
        elif name.endswith((".ts", ".js")) and os.path.isfile(full):
            found.append(full)
    return found


def _explicit_entries(path: str) -> list[str]:
    """A path given on the command line or in settings: a package directory is one extension,
    another directory contributes what it contains, a file is itself (even if missing: the
    loader reports it)."""
    if os.path.isdir(path):
        init = os.path.join(path, "__init__.py")
        if os.path.isfile(init):
            return [init]
        return _node_entries_of_dir(path) or entries_in_dir(path)
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
    sources: list[ExtensionSource] = []
    seen: set[str] = set()

    def add(
        path: str,
        info: dict[str, str],
        *,
        explicit: bool = False,
        module_name: str | None = None,
        package: str | None = None,
    ) -> None:
        key = path if path.startswith(BUILTIN_PREFIX) else os.path.realpath(path)
        if key in seen:
            return
        seen.add(key)
        sources.append(ExtensionSource(path, info, module_name=module_name, explicit=explicit, package=package))

    for raw in cli_paths:
        if raw.strip().startswith(_PACKAGE_PREFIXES):
            # `-e npm:…`/`git:…`/`pypi:…`: the package's entries (pi_rpc.packages resolved them)
            for entry in package_cli:
                if entry.source == raw:
                    add(
                        entry.path,
                        dict(entry.source_info),
                        explicit=True,
                        package=entry.source,
                        module_name=getattr(entry, "module", None),
                    )
            continue
        if raw.startswith(BUILTIN_PREFIX):
            name = raw[len(BUILTIN_PREFIX) :]
            add(raw, _source_info(raw, "builtin", "temporary"), explicit=True, module_name=BUILTIN_EXTENSIONS.get(name))
            continue
        for path in _explicit_entries(resolve_path(raw, cli_base or cwd)):
            add(path, _source_info(path, "cli", "temporary"), explicit=True)
    if no_extensions:
        return sources

    global_entries = list((global_settings or {}).get("extensions") or [])
    project_entries = list((project_settings or {}).get("extensions") or []) if project_trusted else []
    project_base = os.path.join(cwd, CONFIG_DIR_NAME)
    for entries, scope, base in ((project_entries, "project", project_base), (global_entries, "user", agent_dir)):
        for entry in entries:
            if not isinstance(entry, str) or not entry.strip() or entry[:1] in ("+", "-", "!"):
                continue
            if entry.startswith(BUILTIN_PREFIX):
                continue  # built-ins are enabled by default; entries only exclude them
            for path in _explicit_entries(resolve_path(entry, base)):
                add(path, _source_info(path, "local", scope), explicit=True)

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

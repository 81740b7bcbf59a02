"""pi packages: find, install and list them, and the resources they bring (upstream pi 1.6's
``packages`` setting, ``pi install``/``remove``/``list``/``update``/``config``), plus Python
distributions (``pypi:``).

Modules: :mod:`.sources` (parsing, identity), :mod:`.collect` (which files of a package are
resources; filters), :mod:`.manager` (install roots, npm/git subprocesses, settings entries),
:mod:`.pypi` (managed virtual environment), and this module's startup API.

Startup API (the runtime and extension discovery use it; nothing else is imported when no
package is configured):

``package_resources(cwd=, agent_dir=, project_trusted=, global_settings=, project_settings=,
cli_sources=(), output=None)`` -> :class:`PackageResources`, memoised per process for the
same arguments (extension discovery and the skills/prompts/themes loading share one resolve, so
a missing package is installed once). It installs configured packages that are missing (not
with ``PI_OFFLINE``; failures become upstream's warnings, the package is skipped) and returns,
each in upstream's order:

- ``extensions`` / ``cli_extensions``: the ordered lists of extension entry files of the
  configured packages / of the ``-e`` package sources, as :class:`ExtensionEntry` (``path``
  absolute; ``runtime`` ``"node"`` for ``.ts``/``.js``/``.mts``/``.mjs``/``.cts``/``.cjs``,
  ``"python"`` otherwise; ``source`` the settings entry or ``-e`` value it comes from, e.g.
  ``npm:foo``; ``scope`` ``user``/``project``/``temporary``; ``package_root``; ``source_info``
  upstream's ``sourceInfo`` with ``origin: "package"`` and ``baseDir`` the package root).
  Order: ``-e`` sources in command-line order; configured packages project entries first,
  de-duplicated by identity (upstream's ``resolve``); within a package, the manifest's order
  (globs sorted) or the conventional folder's sorted listing. Disabled entries (filters,
  ``pi config``) are left out.

  The one load order of all extensions is
  :func:`pi_rpc.extensions.discovery.discover_extension_sources` (its ``package_cli`` /
  ``package_configured`` arguments take these lists): ``-e`` paths and packages in
  command-line order, settings ``extensions`` entries, ``.pi/extensions``,
  ``<agentDir>/extensions``, the configured packages' entries, the built-ins (upstream's
  precedence ranks). Each ``ExtensionSource`` it returns carries ``runtime`` (``"node"`` or
  ``"python"``) and ``package`` (the package entry, or ``None``); the loader runs the ``node``
  ones in the Node sidecar (:mod:`pi_rpc.extensions.nodejs`).
- ``skills``, ``prompts``, ``themes``: enabled files with their ``source_info``.
- ``python_paths``: ``site-packages`` folders of ``pypi:`` packages (appended to ``sys.path``
  before their extensions load).
- ``warnings``: lines for stderr (install failures in upstream's words, bad manifests).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

NODE_SUFFIXES = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs")
PACKAGE_PREFIXES = ("npm:", "git:", "pypi:", "http://", "https://", "ssh://", "git://")


def is_package_source(value: str) -> bool:
    """A ``-e`` value that names a package rather than a local file (upstream: npm, git)."""
    return value.strip().startswith(PACKAGE_PREFIXES)


def is_local_package_dir(value: str, base: str) -> bool:
    """A ``-e`` folder that is a package (a ``package.json`` or a conventional resource
    folder): upstream loads its skills, prompts and themes too, not only its extensions."""
    if is_package_source(value) or value.startswith("builtin:"):
        return False
    path = os.path.join(base, os.path.expanduser(value.strip()))
    if not os.path.isdir(path) or os.path.isfile(os.path.join(path, "__init__.py")):
        return False
    return os.path.isfile(os.path.join(path, "package.json")) or any(
        os.path.isdir(os.path.join(path, kind)) for kind in ("skills", "prompts", "themes")
    )


@dataclass(frozen=True)
class ExtensionEntry:
    path: str
    runtime: str
    source: str
    scope: str
    package_root: str | None
    source_info: dict[str, str]
    # pypi extensions: the module to import by name (its site-packages is on sys.path)
    module: str | None = None


@dataclass(frozen=True)
class ResourceFile:
    path: str
    source_info: dict[str, str]


@dataclass
class PackageResources:
    extensions: list[ExtensionEntry] = field(default_factory=list)
    cli_extensions: list[ExtensionEntry] = field(default_factory=list)
    skills: list[ResourceFile] = field(default_factory=list)
    prompts: list[ResourceFile] = field(default_factory=list)
    themes: list[ResourceFile] = field(default_factory=list)
    python_paths: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


EMPTY = PackageResources()
# How npm/git/pip output is handled at startup: "stderr" (stdout carries a protocol or the
# answer) or "capture" (the interactive mode, whose screen owns the terminal).
command_output = "stderr"
_cache: dict[str, PackageResources] = {}


def _has_packages(settings: Mapping[str, object] | None) -> bool:
    value = (settings or {}).get("packages")
    return isinstance(value, list) and bool(value)


def runtime_of(path: str) -> str:
    return "node" if path.endswith(NODE_SUFFIXES) else "python"


def clear_cache() -> None:
    _cache.clear()


def package_resources(
    *,
    cwd: str,
    agent_dir: str,
    project_trusted: bool,
    global_settings: Mapping[str, object] | None,
    project_settings: Mapping[str, object] | None,
    cli_sources: Sequence[str] = (),
    output: str | None = None,
) -> PackageResources:
    """See the module docstring."""
    project = project_settings if project_trusted else None
    cli = [s for s in cli_sources if is_package_source(s) or is_local_package_dir(s, cwd)]
    if not cli and not _has_packages(global_settings) and not _has_packages(project):
        return EMPTY
    key = json.dumps(
        [
            cwd,
            agent_dir,
            project_trusted,
            (global_settings or {}).get("packages"),
            (project or {}).get("packages"),
            cli,
        ],
        sort_keys=True,
        default=str,
    )
    cached = _cache.get(key)
    if cached is not None:
        return cached
    from pi_rpc.packages.manager import PackageManager

    manager = PackageManager(
        cwd=cwd,
        agent_dir=agent_dir,
        project_trusted=project_trusted,
        global_settings=global_settings or {},
        project_settings=project or {},
        output=output or command_output,
    )
    result = PackageResources()
    resolved_sets = []
    if cli:
        temporary = manager.resolve_temporary(cli)
        for kind in ("extensions", "skills"):
            for resource in temporary.of(kind):
                # upstream reports -e skills and extensions as {source: "cli", scope: "temporary"}
                # (prompts and themes keep the package's sourceInfo)
                resource.cli = True
        resolved_sets.append(temporary)
        result.cli_extensions = _entries(temporary.extensions)
    configured = manager.resolve()
    resolved_sets.append(configured)
    result.extensions = _entries(configured.extensions)
    for resolved in resolved_sets:
        for failure in resolved.install_failures:
            result.warnings.append(f"Warning: {failure.warning()}")
        result.warnings.extend(resolved.warnings)
        for site in resolved.site_dirs:
            if site not in result.python_paths:
                result.python_paths.append(site)
        for kind in ("skills", "prompts", "themes"):
            getattr(result, kind).extend(ResourceFile(r.path, r.source_info()) for r in resolved.of(kind) if r.enabled)
    _cache[key] = result
    return result


def _entries(resources: Sequence[Any]) -> list[ExtensionEntry]:
    return [
        ExtensionEntry(
            path=r.path,
            runtime=runtime_of(r.path),
            source=r.source,
            scope=r.scope,
            package_root=r.package_root,
            source_info=r.source_info(),
            module=r.module,
        )
        for r in resources
        if r.enabled
    ]


def add_python_paths(paths: Sequence[str]) -> None:
    """Make ``pypi:`` packages importable (appended: pi's own modules keep precedence)."""
    import sys

    for path in paths:
        if os.path.isdir(path) and path not in sys.path:
            sys.path.append(path)

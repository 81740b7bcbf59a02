"""Python packages (``pypi:<requirement>``), which upstream pi cannot load.

A distribution is installed with pip into a managed virtual environment, never into the
interpreter pi runs in: ``<agentDir>/pypi/venv`` (project: ``<cwd>/.pi/pypi/venv``; ``-e``:
``<agentDir>/tmp/extensions/pypi/venv``). The environment is created without pip
(``python -m venv --without-pip``) and pi's own pip installs into it (``pip --python``); pip's
usual configuration applies (``PIP_INDEX_URL``, ``PIP_FIND_LINKS``, ``pip.conf``), as npm's
does for npm packages.

What a distribution contributes is declared in its entry points (``pyproject.toml``):

```toml
[project.entry-points."pi.extensions"]
hello = "pi_hello.extension"          # a module defining setup(pi)

[project.entry-points.pi]
skills = "pi_hello:skills"             # <package>:<folder inside it>
prompts = "pi_hello:prompts"
themes = "pi_hello:themes"
```

``pi.extensions`` values name modules (a ``module:attr`` value is refused: the module's
``setup`` is what runs). In the ``pi`` table the names are ``skills``, ``prompts`` and
``themes`` (more than one folder of a kind: ``skills-extra``, any name starting with the
kind); each value is an importable package and a folder relative to it, holding resources laid
out as in an npm package's conventional folders. The settings object form's filters apply to
paths relative to the environment's ``site-packages``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pi_rpc.packages import collect
from pi_rpc.packages.records import InstallFailure, PackageError, offline
from pi_rpc.packages.sources import PypiSource, normalize_pypi_name

if TYPE_CHECKING:
    from pi_rpc.packages.manager import PackageManager
    from pi_rpc.packages.records import Resolved

RESOURCE_KINDS = ("skills", "prompts", "themes")


def venv_dir(manager: PackageManager, scope: str) -> str:
    if scope == "temporary":
        return os.path.join(manager.agent_dir, "tmp", "extensions", "pypi", "venv")
    if scope == "project":
        return os.path.join(manager.cwd, ".pi", "pypi", "venv")
    return os.path.join(manager.agent_dir, "pypi", "venv")


def _venv_python(venv: str) -> str:
    return os.path.join(venv, "Scripts", "python.exe") if os.name == "nt" else os.path.join(venv, "bin", "python")


def site_packages(venv: str) -> str | None:
    """The environment's ``site-packages`` (found on disk: no interpreter is started)."""
    if os.name == "nt":
        path = os.path.join(venv, "Lib", "site-packages")
        return path if os.path.isdir(path) else None
    lib = os.path.join(venv, "lib")
    try:
        names = sorted(os.listdir(lib))
    except OSError:
        return None
    for name in names:
        path = os.path.join(lib, name, "site-packages")
        if name.startswith("python") and os.path.isdir(path):
            return path
    return None


def _ensure_venv(manager: PackageManager, venv: str) -> None:
    if os.path.exists(_venv_python(venv)):
        return
    os.makedirs(os.path.dirname(venv), exist_ok=True)
    manager.run([sys.executable, "-m", "venv", "--without-pip", venv])


def _pip(manager: PackageManager, venv: str, args: Sequence[str]) -> None:
    manager.run([sys.executable, "-m", "pip", "--python", _venv_python(venv), *args, "--disable-pip-version-check"])


def install(manager: PackageManager, requirements: Sequence[str], scope: str, *, upgrade: bool = False) -> None:
    venv = venv_dir(manager, scope)
    _ensure_venv(manager, venv)
    _pip(manager, venv, ["install", *(["--upgrade"] if upgrade else []), *requirements])


def uninstall(manager: PackageManager, source: PypiSource, scope: str) -> None:
    venv = venv_dir(manager, scope)
    if not os.path.exists(_venv_python(venv)):
        return
    if find_distribution(venv, source.name) is None:
        return
    _pip(manager, venv, ["uninstall", "-y", source.name])


def find_distribution(venv: str, name: str) -> Any:
    site = site_packages(venv)
    if site is None:
        return None
    from importlib.metadata import distributions

    wanted = normalize_pypi_name(name)
    for dist in distributions(path=[site]):
        dist_name = dist.metadata["Name"] if dist.metadata else None
        if dist_name and normalize_pypi_name(str(dist_name)) == wanted:
            return dist
    return None


def installed_location(manager: PackageManager, source: PypiSource, scope: str) -> str | None:
    venv = venv_dir(manager, scope)
    return site_packages(venv) if find_distribution(venv, source.name) is not None else None


def _module_file(site: str, module: str) -> str | None:
    base = os.path.join(site, *module.split("."))
    for candidate in (os.path.join(base, "__init__.py"), base + ".py"):
        if os.path.isfile(candidate):
            return candidate
    return None


def _package_dir(site: str, module: str) -> str | None:
    path = os.path.join(site, *module.split("."))
    return path if os.path.isdir(path) else None


def declared(site: str, dist: Any, warnings: list[str], label: str) -> dict[str, list[str]]:
    """The files a distribution declares: ``extensions`` (module files) and the resource
    kinds (files found in the declared folders)."""
    found: dict[str, list[str]] = {t: [] for t in collect.RESOURCE_TYPES}
    for ep in dist.entry_points:
        if ep.group == "pi.extensions":
            value = str(ep.value).strip()
            if ":" in value:
                warnings.append(
                    f"Warning: {label}: entry point {ep.name} = {value!r}: name a module defining setup(pi)"
                )
                continue
            path = _module_file(site, value)
            if path is None:
                warnings.append(f"Warning: {label}: extension module {value!r} is not installed")
                continue
            found["extensions"].append(path)
        elif ep.group == "pi":
            kind = next((k for k in RESOURCE_KINDS if str(ep.name).startswith(k)), None)
            if kind is None:
                warnings.append(f"Warning: {label}: unknown [pi] entry {ep.name!r} (skills, prompts, themes)")
                continue
            module, _, folder = str(ep.value).partition(":")
            package = _package_dir(site, module.strip())
            if package is None:
                warnings.append(f"Warning: {label}: package {module.strip()!r} is not installed")
                continue
            target = os.path.normpath(os.path.join(package, folder.strip() or "."))
            if not (target == package or target.startswith(package + os.sep)):
                warnings.append(f"Warning: {label}: {ep.name} folder {folder!r} points outside {module}; skipped")
                continue
            if not os.path.exists(target):
                warnings.append(f"Warning: {label}: {ep.name} folder {folder!r} names a missing folder; skipped")
                continue
            found[kind] += collect.files_from_paths([target], kind, warnings)
    return found


def resolve_into(
    manager: PackageManager,
    resolved: Resolved,
    parsed: PypiSource,
    source: str,
    base_scope: str,
    scope: str,
    filter_entry: Mapping[str, Any] | None,
    install_missing: bool,
    add: Callable[[str, str, bool, str, str, str | None], None],
) -> None:
    venv = venv_dir(manager, base_scope)
    dist = find_distribution(venv, parsed.name)
    if dist is None:
        if offline() or not install_missing:
            return
        try:
            install(manager, [parsed.requirement], base_scope)
        except PackageError as exc:
            resolved.install_failures.append(InstallFailure(source, base_scope, str(exc)))
            return
        dist = find_distribution(venv, parsed.name)
        if dist is None:
            resolved.install_failures.append(
                InstallFailure(source, base_scope, f"pip installed no distribution named {parsed.name}")
            )
            return
    site = site_packages(venv)
    if site is None:
        return
    if site not in resolved.site_dirs:
        resolved.site_dirs.append(site)
    files = declared(site, dist, resolved.warnings, source)
    for resource_type, paths in files.items():
        if filter_entry is None:
            chosen = [(p, True) for p in paths]
        else:
            patterns = filter_entry.get(resource_type)
            if filter_entry.get("autoload") is False:
                delta = collect.delta_patterns(paths, list(patterns or []), site)
                chosen = [(p, delta[p]) for p in paths if p in delta]
            elif isinstance(patterns, list):
                allowed = collect.apply_patterns(paths, [str(p) for p in patterns], site) if patterns else set()
                chosen = [(p, p in allowed) for p in paths]
            else:
                chosen = [(p, True) for p in paths]
        for path, is_enabled in chosen:
            add(resource_type, path, is_enabled, source, scope, site)


def update(manager: PackageManager, entries: Sequence[tuple[str, PypiSource, str]]) -> list[str]:
    results: list[str] = []
    for configured, parsed, scope in entries:
        venv = venv_dir(manager, scope)
        before_dist = find_distribution(venv, parsed.name)
        before = str(before_dist.version) if before_dist is not None else None
        manager._emit("start", f"Updating {configured}...")
        install(manager, [parsed.requirement], scope, upgrade=True)
        after_dist = find_distribution(venv, parsed.name)
        after = str(after_dist.version) if after_dist is not None else None
        if before != after:
            suffix = " (project)" if scope == "project" else ""
            results.append(f"{configured}{suffix} {before or '(none)'} -> {after or '(none)'}")
    return results


def python_path_entries(resolved: Resolved) -> list[str]:
    """The ``site-packages`` folders the loaded Python packages' imports need."""
    return list(resolved.site_dirs)

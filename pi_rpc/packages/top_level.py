"""The resources ``pi config`` lists next to the packages' own (upstream's
``DefaultPackageManager.resolve`` with ``origin: "top-level"``), and toggling one of them.

- ``local``: the files a settings file's ``extensions``/``skills``/``prompts``/``themes`` entries
  name (project settings first, then the user's), enabled by the entries' patterns;
- ``auto``: the files of the conventional folders — ``<agentDir>/{extensions,skills,prompts,
  themes}``, ``~/.agents/skills`` and, in a trusted project, ``.pi/{extensions,skills,prompts,
  themes}`` and the ``.agents/skills`` of the cwd and its ancestors (up to the git root) — enabled unless a ``-``/``!`` entry of that scope's settings excludes them;
- ``builtin``: pi's built-in extensions (``builtin:<name>``), enabled unless excluded (a
  project entry wins over the user's).

``toggle_top_level_resource`` writes what upstream's ``toggleTopLevelResource`` writes: the
entries naming the resource (with any prefix) are dropped and ``+pattern``/``-pattern`` is
appended to that scope's array, ``pattern`` being the path relative to the resource's base
folder (``builtin:<name>`` for a built-in; the absolute path when another scope's resource is
overridden).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_rpc.config.paths import ancestor_agents_skill_dirs
from pi_rpc.packages.collect import (
    apply_patterns,
    collect_agents_skills,
    collect_resource_files,
    enabled_by_overrides,
    files_from_paths,
)

KINDS = ("extensions", "skills", "prompts", "themes")
BUILTIN_PREFIX = "builtin:"
_GLOB = re.compile(r"[*?\[{]")


@dataclass
class TopLevelResource:
    """One resource outside packages, with upstream's ``sourceInfo`` fields."""

    kind: str
    path: str
    enabled: bool
    scope: str  # "user" | "project"
    source: str  # "local" | "auto" | "builtin"
    base_dir: str | None = None

    def group_label(self, agent_dir: str) -> str:
        """Upstream's ``getGroupLabel`` for a top-level resource."""
        if self.source == "builtin":
            return "Built-in" if self.scope == "user" else "Built-in (project override)"
        if self.source == "auto":
            base = _display_dir(self.base_dir or agent_dir)
            return f"User ({base})" if self.scope == "user" else f"Project ({base})"
        return "User settings" if self.scope == "user" else "Project settings"

    def display_name(self) -> str:
        """Upstream's item name: the built-in's name, ``folder/file`` for an extension in a
        folder, a skill's folder, else the file name."""
        if self.source == "builtin":
            return self.path[len(BUILTIN_PREFIX) :]
        name, parent = os.path.basename(self.path), os.path.basename(os.path.dirname(self.path))
        if self.kind == "extensions" and parent != "extensions":
            return f"{parent}/{name}"
        if self.kind == "skills" and name == "SKILL.md":
            return parent
        return name


def _display_dir(path: str) -> str:
    home = os.path.expanduser("~")
    shown = "~" + path[len(home) :] if path == home or path.startswith(home + os.sep) else path
    return shown if shown.endswith("/") else shown + "/"


def _resolve(entry: str, base: str) -> str:
    expanded = os.path.expanduser(entry)
    return os.path.normpath(expanded if os.path.isabs(expanded) else os.path.join(base, expanded))


def top_level_resources(
    manager: Any, builtins: Sequence[str] = (), kinds: Sequence[str] = KINDS
) -> list[TopLevelResource]:
    """Every top-level resource (module docstring) of ``kinds``, each path once, in upstream's
    order: settings entries (project, then user), the conventional folders (project, then
    user), the built-ins. ``manager``: anything with ``settings(scope)``, ``agent_dir``,
    ``cwd`` and ``project_trusted`` (a ``PackageManager``)."""
    user, project = manager.settings("user"), manager.settings("project") if manager.project_trusted else {}
    user_base, project_base = manager.agent_dir, os.path.join(manager.cwd, ".pi")
    found: list[TopLevelResource] = []
    seen: set[tuple[str, str]] = set()

    def add(resource: TopLevelResource) -> None:
        key = (resource.kind, resource.path if resource.source == "builtin" else os.path.realpath(resource.path))
        if key not in seen:
            seen.add(key)
            found.append(resource)

    for kind in kinds:
        for settings, scope, base in ((project, "project", project_base), (user, "user", user_base)):
            entries = [e for e in settings.get(kind) or [] if isinstance(e, str) and e.strip()]
            plain = [e for e in entries if e[:1] not in "+-!" and not _GLOB.search(e)]
            plain = [e for e in plain if not e.startswith(BUILTIN_PREFIX)]
            patterns = [e for e in entries if e not in plain]
            files = files_from_paths([_resolve(e, base) for e in plain], kind)
            enabled = apply_patterns(files, patterns, base)
            for path in files:
                add(TopLevelResource(kind, path, path in enabled, scope, "local"))

    def auto(kind: str, directory: str, scope: str, base: str, overrides: list[Any], agents: bool = False) -> None:
        files = collect_agents_skills(directory) if agents else collect_resource_files(directory, kind)
        for path in files:
            add(TopLevelResource(kind, path, enabled_by_overrides(path, overrides, base), scope, "auto", base))

    agents_base = os.path.join(os.path.expanduser("~"), ".agents")
    for kind in kinds:
        if manager.project_trusted:
            overrides = list(project.get(kind) or [])
            auto(kind, os.path.join(project_base, kind), "project", project_base, overrides)
            if kind == "skills":
                # each ancestor's .agents folder is its skills' base (what their patterns are relative to)
                for directory in ancestor_agents_skill_dirs(manager.cwd, os.path.join(agents_base, "skills")):
                    auto(kind, directory, "project", os.path.dirname(directory), overrides, agents=True)
    for kind in kinds:
        auto(kind, os.path.join(user_base, kind), "user", user_base, list(user.get(kind) or []))
        if kind == "skills":
            auto(kind, os.path.join(agents_base, "skills"), "user", agents_base, list(user.get(kind) or []), True)

    for name in builtins:
        path = f"{BUILTIN_PREFIX}{name}"
        project_entries = [e for e in project.get("extensions") or [] if isinstance(e, str)]
        decided = [e for e in project_entries if e[:1] in "+-!" and e[1:] == path]
        if decided:
            add(TopLevelResource("extensions", path, decided[-1][0] == "+", "project", "builtin"))
        else:
            user_entries = list(user.get("extensions") or [])
            add(
                TopLevelResource(
                    "extensions", path, enabled_by_overrides(path, user_entries, user_base), "user", "builtin"
                )
            )
    return found


def resource_pattern(manager: Any, resource: TopLevelResource, scope: str) -> str:
    """The pattern a toggle writes for ``resource`` into ``scope``'s settings (upstream's
    ``getResourcePatternForScope``)."""
    if resource.source == "builtin" or scope != resource.scope:
        return resource.path
    base = resource.base_dir or (os.path.join(manager.cwd, ".pi") if scope == "project" else manager.agent_dir)
    return os.path.relpath(resource.path, base)


def toggle_top_level_resource(manager: Any, resource: TopLevelResource, enable: bool, scope: str) -> None:
    """Write ``+pattern``/``-pattern`` for ``resource`` into ``scope``'s settings array."""
    from pi_rpc.packages.manager import write_settings_key

    pattern = resource_pattern(manager, resource, scope)
    settings = manager.settings(scope)
    current = [e for e in settings.get(resource.kind) or [] if not (isinstance(e, str) and _target(e) == pattern)]
    current.append(("+" if enable else "-") + pattern)
    write_settings_key(manager.project_path if scope == "project" else manager.global_path, resource.kind, current)
    settings[resource.kind] = current


def _target(entry: str) -> str:
    return entry[1:] if entry[:1] in "!+-" else entry

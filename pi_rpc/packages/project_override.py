"""A project's override of one resource in ``pi config``: upstream's three states.

In the project scope a resource is ``inherit`` (no project entry decides it: the global
settings do), ``load`` or ``unload``. What each state writes into ``.pi/settings.json`` follows
upstream's config screen (``setProjectTopLevelOverride`` / ``setProjectPackageOverride``):

- a top-level resource: ``+pattern``/``-pattern`` in the project's array of its kind, the
  pattern being the path relative to its base folder for the project's own resources, and the
  absolute path for one the global settings provide — which the project then also names as a
  plain entry (so the project's array reaches the file); ``inherit`` drops those entries;
- a package resource: ``+path``/``-path`` (relative to the package root) in the project's entry
  of that package, an ``{"source": …, "autoload": false}`` delta entry being added for a user
  package (a local source rewritten relative to ``.pi``); ``inherit`` drops the entry's pattern
  and, once nothing is left to filter, the delta entry (or the object form).

Space cycles ``inherit → unload → load → inherit`` for a resource enabled globally, and
``inherit → load → unload → inherit`` for one disabled globally.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Union

from pi_rpc.packages.records import Resource
from pi_rpc.packages.sources import is_local_path, resolve_path
from pi_rpc.packages.top_level import TopLevelResource

if TYPE_CHECKING:
    from pi_rpc.packages.manager import PackageManager

AnyResource = Union[Resource, TopLevelResource]
Entry = Union[str, dict[str, object]]

STATES = ("inherit", "load", "unload")
_KINDS = ("extensions", "skills", "prompts", "themes")


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def _target(entry: str) -> str:
    return entry[1:] if entry[:1] in "!+-" else entry


def _state_from(entries: list[object], patterns: set[str], empty_is_unload: bool) -> str:
    if not entries and empty_is_unload:
        return "unload"
    state = "inherit"
    for entry in entries:
        if isinstance(entry, str) and entry[:1] in "!+-" and _target(entry) in patterns:
            state = "unload" if entry[:1] in "!-" else "load"
        elif isinstance(entry, str) and entry in patterns:
            state = "load"
    return state


def resource_key(kind: str, path: str) -> tuple[str, str]:
    """The identity of a resource across the global and the project listing."""
    return kind, path if path.startswith("builtin:") else os.path.realpath(path)


class ProjectOverrides:
    """Reads and writes one project's overrides. ``manager``: a ``PackageManager`` of a trusted
    project; ``inherited``: each globally listed resource's enabled flag (``resource_key``)."""

    def __init__(self, manager: PackageManager, inherited: dict[tuple[str, str], bool]) -> None:
        self.manager = manager
        self.inherited = inherited
        self.project_base = os.path.join(manager.cwd, ".pi")

    # -------------------------------------------------------------- reading

    def is_inherited_global(self, kind: str, resource: AnyResource) -> bool:
        return resource.scope == "user" or resource_key(kind, resource.path) in self.inherited

    def inherited_enabled(self, kind: str, resource: AnyResource) -> bool:
        fallback = resource.enabled if resource.scope == "user" else True
        return self.inherited.get(resource_key(kind, resource.path), fallback)

    def state(self, kind: str, resource: AnyResource, package: bool) -> str:
        if not package:
            entries = _list(self.manager.settings("project").get(kind))
            return _state_from(entries, self._top_level_patterns(resource), False)
        _index, pkg = self._project_package(resource)
        if not isinstance(pkg, dict) or pkg.get(kind) is None:
            return "inherit"
        pattern = self._package_pattern(resource)
        # plain entries of a package's filter select files (upstream counts them as "load")
        return _state_from(_list(pkg.get(kind)), {pattern}, pkg.get("autoload") is not False)

    def next_state(self, kind: str, resource: AnyResource, package: bool) -> str:
        state, enabled = self.state(kind, resource, package), self.inherited_enabled(kind, resource)
        if state == "inherit":
            return "unload" if enabled else "load"
        if state == "unload":
            return "load" if enabled else "inherit"
        return "inherit" if enabled else "unload"

    def effective(self, kind: str, resource: AnyResource, state: str) -> bool:
        """Whether the resource loads in the project once ``state`` is written."""
        return self.inherited_enabled(kind, resource) if state == "inherit" else state == "load"

    # -------------------------------------------------------------- writing

    def set_state(self, kind: str, resource: AnyResource, package: bool, state: str) -> bool:
        """Write ``state``; False when there is nothing to write (an inherited package resource
        the project never named)."""
        if state not in STATES:
            raise ValueError(f"unknown override state {state!r}")
        if package:
            return self._set_package(kind, resource, state)
        self._set_top_level(kind, resource, state)
        return True

    def _top_level_patterns(self, resource: AnyResource) -> set[str]:
        patterns = {self._top_level_pattern(resource), resource.path}
        if not resource.path.startswith("builtin:"):
            patterns.add(os.path.relpath(resource.path, self.project_base))
            if resource.base_dir:
                patterns.add(os.path.relpath(resource.path, resource.base_dir))
        return patterns

    def _top_level_pattern(self, resource: AnyResource) -> str:
        if resource.source == "builtin" or resource.scope != "project":
            return str(resource.path)
        return os.path.relpath(resource.path, resource.base_dir or self.project_base)

    def _set_top_level(self, kind: str, resource: AnyResource, state: str) -> None:
        from pi_rpc.packages.manager import write_settings_key

        inherited = self.is_inherited_global(kind, resource)
        pattern = resource.path if inherited else self._top_level_pattern(resource)
        patterns = self._top_level_patterns(resource)
        updated: list[object] = []
        for entry in _list(self.manager.settings("project").get(kind)):
            if isinstance(entry, str) and entry[:1] in "!+-" and _target(entry) in patterns:
                continue
            if state == "inherit" and inherited and isinstance(entry, str) and _target(entry) == pattern:
                continue
            updated.append(entry)
        if state != "inherit":
            # a global resource is named plainly too, so the project's array takes it in
            if inherited and resource.source != "builtin" and pattern not in updated:
                updated.append(pattern)
            updated.append(("+" if state == "load" else "-") + pattern)
        write_settings_key(self.manager.project_path, kind, updated)
        self.manager.settings("project")[kind] = updated

    def _package_pattern(self, resource: AnyResource) -> str:
        return os.path.relpath(resource.path, resource.base_dir or os.path.dirname(resource.path))

    def _scope_base(self, scope: str) -> str:
        return self.project_base if scope == "project" else str(self.manager.agent_dir)

    def _same_source(self, source: str, scope: str, other: str, other_scope: str) -> bool:
        if source == other:
            return True
        if not is_local_path(source) or not is_local_path(other):
            return False
        left = os.path.normpath(resolve_path(source, self._scope_base(scope)))
        return left == os.path.normpath(resolve_path(other, self._scope_base(other_scope)))

    def _project_package(self, resource: AnyResource) -> tuple[int | None, Entry | None]:
        scope = "project" if resource.scope == "project" else "user"
        for index, pkg in enumerate(self.manager.packages("project")):
            source = pkg if isinstance(pkg, str) else pkg.get("source") if isinstance(pkg, dict) else None
            if isinstance(source, str) and self._same_source(resource.source, scope, source, "project"):
                return index, pkg
        return None, None

    def _set_package(self, kind: str, resource: AnyResource, state: str) -> bool:
        packages = self.manager.packages("project")
        index, pkg = self._project_package(resource)
        if index is None:
            if state == "inherit":
                return False
            source = str(resource.source)
            if is_local_path(source):
                absolute = resolve_path(source, self._scope_base("project" if resource.scope == "project" else "user"))
                source = os.path.relpath(absolute, self.project_base) or "."
            pkg = {"source": source, "autoload": False}
            packages.append(pkg)
            index = len(packages) - 1
        pkg = {"source": pkg} if isinstance(pkg, str) else dict(pkg or {})
        pattern = self._package_pattern(resource)
        updated = [e for e in _list(pkg.get(kind)) if not (isinstance(e, str) and _target(e) == pattern)]
        if state != "inherit":
            updated.append(("+" if state == "load" else "-") + pattern)
        if updated:
            pkg[kind] = updated
        else:
            pkg.pop(kind, None)
        if not any(pkg.get(k) is not None for k in _KINDS):
            if pkg.get("autoload") is False:
                del packages[index]
            else:
                packages[index] = pkg["source"]
        else:
            packages[index] = pkg
        self.manager.set_packages("project", packages)
        return True

"""What ``pi config`` lists and toggles (upstream's config selector ``buildGroups``): every
resource the configured packages offer and every top-level one (settings entries, the
conventional folders, the built-in extensions; ``pi_rpc.packages.top_level``), grouped and
ordered as upstream's screen groups them — packages first, then top-level resources, the user's
before the project's, then by source; inside a group extensions, skills, prompts, themes, each
sorted by its display name. Shared by the printed listing and the Textual screen."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.packages.project_override import ProjectOverrides

KINDS = ("extensions", "skills", "prompts", "themes")


@dataclass
class ConfigItem:
    group: str
    kind: str
    path: str
    enabled: bool
    scope: str
    display: str
    resource: Any
    package: bool

    def toggle(self, manager: Any, enable: bool, scope: str) -> None:
        """Write the ``+``/``-`` entry upstream's screen writes for this resource."""
        if self.package:
            from pi_rpc.packages.resource_toggle import toggle_package_resource

            toggle_package_resource(manager, self.kind, self.resource, enable, scope)
        else:
            from pi_rpc.packages.top_level import toggle_top_level_resource

            toggle_top_level_resource(manager, self.resource, enable, scope)
        self.enabled = enable
        self.resource.enabled = enable


def global_items(manager: Any) -> tuple[list[ConfigItem], list[str]]:
    """What the global settings alone enable (``config_items`` with the project untrusted):
    upstream's global mode lists these, and project mode inherits them."""
    from pi_rpc.packages.manager import PackageManager

    if not manager.project_trusted:
        return config_items(manager)
    global_only = PackageManager(cwd=manager.cwd, agent_dir=manager.agent_dir, project_trusted=False, output="capture")
    return config_items(global_only)


def project_overrides(manager: Any) -> ProjectOverrides:
    """A ``ProjectOverrides`` of ``manager``'s (trusted) project, knowing what the global
    settings alone enable (upstream resolves them with the project untrusted)."""
    from pi_rpc.packages.project_override import ProjectOverrides, resource_key

    items, _warnings = global_items(manager)
    return ProjectOverrides(manager, {resource_key(i.kind, i.path): i.enabled for i in items})


def config_items(manager: Any) -> tuple[list[ConfigItem], list[str]]:
    """(items in display order, package install warnings)."""
    from pi_rpc.extensions.builtin import BUILTIN_EXTENSIONS
    from pi_rpc.packages.top_level import top_level_resources

    resolved = manager.resolve(install_missing=True)
    keyed: list[tuple[tuple[object, ...], ConfigItem]] = []
    type_order = {kind: i for i, kind in enumerate(KINDS)}
    # Groups that tie on origin/scope/source keep the order they were first met in (upstream's
    # sort is stable over its insertion-ordered group map).
    first_seen: dict[str, int] = {}
    for kind in KINDS:
        for r in resolved.of(kind):
            name, parent = os.path.basename(r.path), os.path.basename(os.path.dirname(r.path))
            display = f"{parent}/{name}" if kind == "extensions" and parent != "extensions" else name
            if kind == "skills" and name == "SKILL.md":
                display = parent
            item = ConfigItem(f"{r.source} ({r.scope})", kind, r.path, r.enabled, r.scope, display, r, True)
            first_seen.setdefault(item.group, len(first_seen))
            keyed.append(((0, r.scope != "user", r.source, first_seen[item.group], type_order[kind], display), item))
    for t in top_level_resources(manager, list(BUILTIN_EXTENSIONS)):
        item = ConfigItem(
            t.group_label(manager.agent_dir), t.kind, t.path, t.enabled, t.scope, t.display_name(), t, False
        )
        first_seen.setdefault(item.group, len(first_seen))
        keyed.append(((1, t.scope != "user", t.source, first_seen[item.group], type_order[t.kind], item.display), item))
    # Python's sort is stable: one group's items stay together (its key prefix is shared).
    keyed.sort(key=lambda pair: pair[0])
    return [item for _key, item in keyed], [failure.warning() for failure in resolved.install_failures]

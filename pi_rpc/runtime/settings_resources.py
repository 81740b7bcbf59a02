"""The top-level ``skills`` and ``prompts`` settings arrays, applied to a session's resources as
upstream's resource loader applies them: files the arrays name load (``local``), and
``-path``/``!pattern`` entries leave out the files of the conventional folders they match (what
``pi config`` writes when a loose skill or prompt template is disabled). Without such arrays
nothing is scanned (``pi_rpc.packages.top_level`` does the resolving). The interactive mode's
theme loader takes its top-level theme files from ``enabled_top_level_files``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SettingsResources:
    """Per kind: the enabled files the settings name, and the files they disable."""

    extra: dict[str, list[str]] = field(default_factory=dict)
    disabled: dict[str, set[str]] = field(default_factory=dict)


class _Scopes:
    def __init__(self, settings: Any, cwd: str, agent_dir: str, project_trusted: bool) -> None:
        self._global = settings.global_dict()
        self._project = settings.project_dict() if project_trusted else {}
        self.cwd = cwd
        self.agent_dir = agent_dir
        self.project_trusted = project_trusted

    def settings(self, scope: str) -> dict[str, Any]:
        return self._project if scope == "project" else self._global


def enabled_top_level_files(settings: Any, cwd: str, agent_dir: str, project_trusted: bool, kind: str) -> list[str]:
    """The enabled top-level files of ``kind`` (the settings' entries, then the conventional
    folders, project before user), the ``-``/``!`` entries of both scopes applied."""
    from pi_rpc.packages.top_level import top_level_resources

    scopes = _Scopes(settings, cwd, agent_dir, project_trusted)
    return [r.path for r in top_level_resources(scopes, kinds=[kind]) if r.enabled]


def settings_resources(settings: Any, cwd: str, agent_dir: str, project_trusted: bool) -> SettingsResources:
    scopes = _Scopes(settings, cwd, agent_dir, project_trusted)
    kinds = [k for k in ("skills", "prompts") if scopes.settings("user").get(k) or scopes.settings("project").get(k)]
    out = SettingsResources()
    if not kinds:
        return out
    from pi_rpc.packages.top_level import top_level_resources

    for resource in top_level_resources(scopes, kinds=kinds):
        if not resource.enabled:
            out.disabled.setdefault(resource.kind, set()).add(resource.path)
        elif resource.source == "local":
            out.extra.setdefault(resource.kind, []).append(resource.path)
    return out

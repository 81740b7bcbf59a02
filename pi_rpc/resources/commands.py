"""Slash commands handled by the resources layer: the listing behind the RPC ``get_commands``
command (extension commands given by the caller, already in wire shape, then prompt templates
with ``source:"prompt"``, then every loaded skill as ``skill:<name>`` with ``source:"skill"``,
each with upstream's ``sourceInfo``), and the input expansion step of ``prompt``/``steer``/
``follow_up`` (skill command first, then prompt template, as upstream)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from pi_rpc.resources.skills import Skill, expand_skill_command
from pi_rpc.resources.templates import PromptTemplate, expand_prompt_template


def command_entry(name: str, description: object, source: str, source_info: Mapping[str, str]) -> dict[str, object]:
    """One ``get_commands`` entry (``description`` left out when absent)."""
    entry: dict[str, object] = {"name": name}
    if description is not None:
        entry["description"] = description
    entry["source"] = source
    entry["sourceInfo"] = dict(source_info)
    return entry


def list_slash_commands(
    templates: Iterable[PromptTemplate],
    skills: Iterable[Skill],
    extension_commands: Iterable[Mapping[str, object]] = (),
) -> list[dict[str, object]]:
    """``data.commands`` of a ``get_commands`` response, in upstream's order."""
    commands: list[dict[str, object]] = [dict(c) for c in extension_commands]
    for template in templates:
        commands.append(command_entry(template.name, template.description, "prompt", template.source_info))
    for skill in skills:
        commands.append(command_entry(f"skill:{skill.name}", skill.description, "skill", skill.source_info))
    return commands


def expand_input(
    text: str,
    *,
    skills: Iterable[Skill],
    templates: Iterable[PromptTemplate],
    on_skill_error: Callable[[str, str], None] | None = None,
) -> str:
    """Apply ``/skill:name`` expansion, then prompt-template expansion, to user input; text that
    names neither comes back unchanged. ``on_skill_error(file_path, message)`` is called when
    a known skill's file cannot be read (upstream: ``extension_error`` with
    ``event:"skill_expansion"``)."""
    expanded = expand_skill_command(text, skills, on_skill_error)
    if expanded is None:
        expanded = text
    templated = expand_prompt_template(expanded, templates)
    return expanded if templated is None else templated

"""What a session loads from disk and the command line besides the transcript: the active
tools, skills, prompt templates, context files and custom system prompts; and what the session
derives from them: the leading ``system`` message (or its patch), prompt expansion and the
``get_commands`` listing. Diagnostics from loading go to stderr once."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pi_rpc.log import logger
from pi_rpc.resources.commands import list_slash_commands
from pi_rpc.resources.context_files import (
    load_append_system_prompts,
    load_context_files,
    load_custom_system_prompt,
)
from pi_rpc.resources.skills import discover_skills, expand_skill_command
from pi_rpc.resources.system_prompt import (
    build_system_message,
    diff_system_message,
    replay_system_messages,
    sections_from_options,
)
from pi_rpc.resources.templates import discover_templates, expand_prompt_template
from pi_rpc.tools import ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES, create_tool, create_tools, tool_definition

if TYPE_CHECKING:
    from pi_rpc.ai.types import SystemMessage
    from pi_rpc.runtime.options import RuntimeOptions


def _apply_modifiers(names: list[str], modifiers: list[str]) -> list[str]:
    """``+name`` adds a tool to the selection, ``-name`` removes it."""
    for item in modifiers:
        name = item[1:]
        if item.startswith("+") and name not in names:
            names.append(name)
        elif item.startswith("-") and name in names:
            names.remove(name)
    return names


def _resolve_tool_names(options: RuntimeOptions) -> list[str]:
    """The session's tool selection. It may name tools extensions register (``codemode``,
    ``tool_search``): those are activated once registered."""
    if options.no_tools:
        return []
    if options.tool_names is not None:
        return list(options.tool_names)
    configured = options.settings.default_tools
    names = list(DEFAULT_TOOL_NAMES)
    if isinstance(configured, str):
        configured = [part.strip() for part in configured.split(",") if part.strip()]
    if isinstance(configured, list) and configured:
        if all(str(item).startswith(("+", "-")) for item in configured):
            names = _apply_modifiers(names, [str(item) for item in configured])
        else:
            names = [str(item) for item in configured]
    return _apply_modifiers(names, list(options.tool_modifiers))


def _print_diagnostics(kind: str, diagnostics: list[object]) -> None:
    for diag in diagnostics:
        if isinstance(diag, dict):
            where = f" ({diag.get('path')})" if diag.get("path") else ""
            logger().warning(f"Warning: {kind}: {diag.get('message')}{where}")
        else:
            logger().warning(f"Warning: {kind}: {diag}")


def _prompt_summary(tool: Any) -> str:
    """The tool's line in the prompt: its snippet, else (built-ins) the first sentence of its
    description. Extension tools without a ``promptSnippet`` are not listed, as upstream."""
    snippet = getattr(tool, "prompt_snippet", "")
    if snippet or getattr(tool, "extension_tool", False):
        return str(snippet)
    return str(tool.description.split(". ")[0])


class ResourcesState:
    def __init__(
        self, options: RuntimeOptions, get_model: Callable[[], Mapping[str, object] | None] | None = None
    ) -> None:
        self.options = options
        self.cwd = options.cwd
        self.session_env: dict[str, str] = {}
        self._tool_options: dict[str, object] = {
            "shell_path": options.settings.shell_path,
            "shell_command_prefix": options.settings.shell_command_prefix,
            "session_env": lambda: dict(self.session_env),
            "auto_resize_images": options.settings.images_auto_resize,
            "get_model": get_model,
            "file_access": options.file_access,
            "bash_runner": options.bash_runner,
        }
        selection = _resolve_tool_names(options)
        # Names of tools extensions register; activated by the loadout once they exist.
        self.requested_extension_tools = [name for name in selection if name not in ALL_TOOL_NAMES]
        self.tools = create_tools(options.cwd, [n for n in selection if n in ALL_TOOL_NAMES], **self._tool_options)
        # The system prompt options of the running run, as before_agent_start handlers left
        # them (upstream _runSystemPromptOptions); None: the options of the current state.
        self.run_options: dict[str, Any] | None = None
        # Active tools whose declarations requests leave out (``prepareLoadout``): not listed.
        self.hidden_tools: set[str] = set()
        agent_dir = str(options.agent_dir)
        packages = options.package_resources
        from pi_rpc.runtime.settings_resources import settings_resources

        listed = settings_resources(options.settings, options.cwd, agent_dir, options.project_trusted)
        skills = discover_skills(
            cwd=options.cwd,
            agent_dir=agent_dir,
            skill_paths=[*options.skill_paths, *listed.extra.get("skills", [])],
            no_skills=options.no_skills,
            project_trusted=options.project_trusted,
            package_files=[(f.path, f.source_info) for f in packages.skills] if packages else (),
        )
        _print_diagnostics("skill", list(skills.diagnostics))
        off = listed.disabled.get("skills", set())
        self.skills = [skill for skill in skills.skills if skill.file_path not in off]
        templates = discover_templates(
            cwd=options.cwd,
            agent_dir=agent_dir,
            template_paths=[*options.template_paths, *listed.extra.get("prompts", [])],
            no_prompt_templates=options.no_templates,
            project_trusted=options.project_trusted,
            package_files=[(f.path, f.source_info) for f in packages.prompts] if packages else (),
        )
        _print_diagnostics("prompt template", list(templates.diagnostics))
        off = listed.disabled.get("prompts", set())
        self.templates = [template for template in templates.templates if template.file_path not in off]
        warnings: list[str] = []
        self.context_files = load_context_files(
            cwd=options.cwd, agent_dir=agent_dir, no_context_files=options.no_context_files, warnings=warnings
        )
        self.custom_prompt = load_custom_system_prompt(
            cwd=options.cwd, agent_dir=agent_dir, system_prompt=options.system_prompt, warnings=warnings
        )
        self.append_prompts = load_append_system_prompts(
            cwd=options.cwd,
            agent_dir=agent_dir,
            append_system_prompt=options.append_system_prompts or None,
            warnings=warnings,
        )
        for line in warnings:
            logger().warning(line)

    def create_builtin_tool(self, name: str) -> object:
        """Another built-in tool with this session's options (extensions can activate any)."""
        return create_tool(name, self.cwd, **self._tool_options)

    # ------------------------------------------------------------------ system message

    def prompt_options(self) -> dict[str, Any]:
        """Upstream's ``BuildSystemPromptOptions`` for the current state (fresh collections,
        safe to hand to extensions)."""
        tools = self.tools
        hidden = self.hidden_tools
        snippets = {}
        for tool in tools:
            summary = _prompt_summary(tool)
            if summary:
                snippets[tool.name] = summary
        return {
            "cwd": self.cwd,
            "customPrompt": self.custom_prompt,
            "forceSystemPrompt": None,
            "selectedTools": [tool.name for tool in tools],
            "hiddenTools": [tool.name for tool in tools if tool.name in hidden],
            "toolSnippets": snippets,
            "toolGuidelines": {
                tool.name: list(getattr(tool, "prompt_guidelines"))
                for tool in tools
                if getattr(tool, "prompt_guidelines", None)
            },
            "promptGuidelines": [],
            "appendSystemPrompt": "\n\n".join(p for p in self.append_prompts if p),
            "sections": {},
            "contextFiles": [{"path": f.path, "content": f.content} for f in self.context_files],
            "skills": [
                {
                    "name": sk.name,
                    "description": sk.description,
                    "filePath": sk.file_path,
                    "baseDir": sk.base_dir,
                    "sourceInfo": dict(sk.source_info),
                    "disableModelInvocation": sk.disable_model_invocation,
                }
                for sk in self.skills
            ],
        }

    def live_options(self) -> dict[str, object]:
        """The options the next request's prompt comes from: the run's (with the tools active
        now, as upstream refreshes them every turn), else the current state's."""
        base = self.prompt_options()
        run = self.run_options
        if run is None:
            return base
        return {
            **run,
            "selectedTools": base["selectedTools"],
            "hiddenTools": base["hiddenTools"],
            "toolSnippets": {**base["toolSnippets"], **(run.get("toolSnippets") or {})},
            "toolGuidelines": {**base["toolGuidelines"], **(run.get("toolGuidelines") or {})},
        }

    def current_sections(self) -> dict[str, str]:
        return sections_from_options(self.live_options())

    def tool_definitions(self) -> list[dict[str, object]]:
        return [tool_definition(tool) for tool in self.tools]

    def system_message_for(self, messages: Sequence[Mapping[str, object]], timestamp: int) -> SystemMessage | None:
        """The full system message for a context without one, the patch when the prompt or
        tools changed, or None."""
        sections = self.current_sections()
        tools = self.tool_definitions()
        if not any(m.get("role") == "system" for m in messages):
            return build_system_message(sections, tools, timestamp)
        old_sections, old_tools = replay_system_messages(messages)
        return diff_system_message(old_sections, old_tools, sections, tools, timestamp)

    # ------------------------------------------------------------------ expansion and commands

    def expand(self, text: str) -> str:
        expanded = expand_skill_command(text, self.skills)
        if expanded is not None:
            return expanded
        expanded = expand_prompt_template(text, self.templates)
        return expanded if expanded is not None else text

    def commands(self, extension_commands: list[dict[str, object]] | None = None) -> list[dict[str, object]]:
        return list_slash_commands(self.templates, self.skills, extension_commands or ())

"""Resources: skills, prompt templates, context files and the structured system prompt.

Everything here takes the agent dir, cwd and flag values as arguments (no config import), so
the runtime decides where they come from. Public entry points:

- :func:`discover_skills`, :func:`expand_skill_command`, :func:`format_skills_for_prompt`
- :func:`discover_templates`, :func:`expand_prompt_template`
- :func:`list_slash_commands` (``get_commands`` data), :func:`expand_input` (prompt text)
- :func:`load_context_files`, :func:`load_custom_system_prompt`, :func:`load_append_system_prompts`
- :func:`build_system_sections`, :func:`join_sections`, :func:`build_system_message`,
  :func:`diff_system_message`, :func:`replay_system_messages`
"""

from pi_rpc.resources.commands import expand_input, list_slash_commands
from pi_rpc.resources.context_files import (
    ContextFile,
    load_append_system_prompts,
    load_context_files,
    load_custom_system_prompt,
    resolve_prompt_input,
)
from pi_rpc.resources.diagnostics import Diagnostic, format_diagnostic
from pi_rpc.resources.skills import (
    Skill,
    SkillsResult,
    discover_skills,
    expand_skill_command,
    format_skills_for_prompt,
    load_skill_file,
    load_skills_from_dir,
)
from pi_rpc.resources.system_prompt import (
    build_system_message,
    build_system_sections,
    default_docs_paths,
    diff_sections,
    diff_system_message,
    join_sections,
    replay_system_messages,
)
from pi_rpc.resources.templates import (
    PromptTemplate,
    TemplatesResult,
    discover_templates,
    expand_prompt_template,
    parse_command_args,
    substitute_args,
)

__all__ = [
    "ContextFile",
    "Diagnostic",
    "PromptTemplate",
    "Skill",
    "SkillsResult",
    "TemplatesResult",
    "build_system_message",
    "build_system_sections",
    "default_docs_paths",
    "diff_sections",
    "diff_system_message",
    "discover_skills",
    "discover_templates",
    "expand_input",
    "expand_prompt_template",
    "expand_skill_command",
    "format_diagnostic",
    "format_skills_for_prompt",
    "join_sections",
    "list_slash_commands",
    "load_append_system_prompts",
    "load_context_files",
    "load_custom_system_prompt",
    "load_skill_file",
    "load_skills_from_dir",
    "parse_command_args",
    "replay_system_messages",
    "resolve_prompt_input",
    "substitute_args",
]

"""The structured system prompt and the 1.6 ``system`` transcript messages built from it.

The prompt is an ordered dict of named sections, as upstream 1.6 keeps it:

``preamble`` (untagged), ``tools``, ``rules``, ``docs`` (these four are replaced by a custom
prompt from ``--system-prompt``/SYSTEM.md, which becomes the preamble), then ``addendum``
(``--append-system-prompt``/APPEND_SYSTEM.md), ``project_context`` (AGENTS.md/CLAUDE.md),
``skills``, an optional ``date`` (upstream 1.6 sends none; off unless asked for), ``cwd``, and
finally any caller sections. Every section except the preamble is wrapped as
``<name>\\n...\\n</name>`` so a later patch can replace it by name.

The request's system prompt is the section values joined by blank lines. The first run of a
session records ``{role:"system", content:"", sections, timestamp, toolsAdded}``; later changes
record a patch holding only the changed sections (``null`` for a removed one) and
``toolsAdded``/``toolsRemoved``. The wording of every section is this project's own.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pi_rpc.ai.transcript import get_current_system_message
from pi_rpc.resources.context_files import ContextFile
from pi_rpc.resources.skills import Skill, format_skills_for_prompt

if TYPE_CHECKING:
    from pi_rpc.ai.types import SystemMessage

SECTION_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")

PREAMBLE = (
    "You are a software engineering assistant working inside pi, a coding agent harness. "
    "You act in the user's project through tools: you read and search files, run shell commands, "
    "and change or create code."
)
TOOLS_FOOTER = "Other tools may be offered to you later in the session."
NO_TOOLS = "(none)"
BASH_FILE_OPS_RULE = "Do file listing, searching and finding through bash (ls, rg, find)"
ALWAYS_RULES = (
    "Keep your replies short and to the point",
    "Name file paths explicitly whenever you refer to files",
)
PROJECT_CONTEXT_LEAD = "Instructions that apply to this project:"


def default_docs_paths() -> dict[str, str]:
    """Where this project's documentation lives: the README, the protocol reference and the
    examples next to the installed ``pi_rpc`` package."""
    package = Path(__file__).resolve().parent.parent
    # A source checkout keeps the docs next to the package; an installed wheel may not, in
    # which case the package directory is the best pointer left.
    root = package.parent if (package.parent / "protocol").exists() else package
    return {
        "readme": str(root / "README.md"),
        "docs": str(root / "protocol"),
        "examples": str(root / "examples"),
    }


def _docs_text(paths: Mapping[str, str]) -> str:
    return "\n".join(
        [
            "Documentation of this harness (read it only when the user asks about pi itself: its RPC "
            "protocol, sessions, settings, skills, prompt templates or extensions):",
            f"- Overview and usage: {paths['readme']}",
            f"- Protocol reference: {paths['docs']}",
            f"- Example clients and scripts: {paths['examples']}",
            "- Relative references inside these docs point into those folders, not into the working directory",
            "- Read the relevant documents completely, following their cross-references, before changing how pi is set up or extended",
        ]
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _tool_summary(tool: Mapping[str, object]) -> str:
    summary = tool.get("summary") or tool.get("promptSnippet") or tool.get("description") or ""
    return _one_line(str(summary))


def _rules(tool_names: Sequence[str], tools: Sequence[Mapping[str, Any]], guidelines: Iterable[str]) -> str:
    rules: list[str] = []
    seen: set[str] = set()

    def add(rule: str) -> None:
        text = rule.strip()
        if text and text not in seen:
            seen.add(text)
            rules.append(text)

    names = set(tool_names)
    if "bash" in names and not names & {"grep", "find", "ls"}:
        add(BASH_FILE_OPS_RULE)
    for tool in tools:
        for rule in tool.get("guidelines") or ():
            add(rule)
    for rule in guidelines:
        add(rule)
    for rule in ALWAYS_RULES:
        add(rule)
    return "\n".join(f"- {rule}" for rule in rules)


def _project_context(files: Sequence[ContextFile]) -> str:
    blocks = [PROJECT_CONTEXT_LEAD]
    blocks.extend(f'<project_instructions path="{f.path}">\n{f.content}\n</project_instructions>' for f in files)
    return "\n\n".join(blocks)


def build_system_sections(
    *,
    cwd: str,
    tools: Sequence[Mapping[str, object]],
    guidelines: Iterable[str] = (),
    skills: Iterable[Skill] = (),
    context_files: Sequence[ContextFile] = (),
    custom_prompt: str | None = None,
    append_prompts: Sequence[str] = (),
    date: str | None = None,
    docs_paths: Mapping[str, str] | None = None,
    extra_sections: Mapping[str, str] | None = None,
    hidden_tools: Iterable[str] = (),
) -> dict[str, str]:
    """Ordered prompt sections (see the module docstring).

    ``tools`` are the active tools in order, each ``{name, summary?|description?,
    guidelines?}``; a tool without any summary is left out of the tool list but still counts
    for the rules and the skills listing. ``guidelines`` are extra rule bullets.
    ``hidden_tools`` are active tools whose declarations requests leave out (codemode's
    ``only`` mode): as upstream, they are neither listed nor counted for the rules, and a
    hidden reader makes the skills hint name no tool.
    """
    for name in extra_sections or {}:
        if not SECTION_NAME.match(name) or name == "preamble":
            raise ValueError(f"Invalid system prompt section name: {name}")
    hidden = set(hidden_tools)
    selected_names = [str(t["name"]) for t in tools]
    if hidden:
        tools = [t for t in tools if str(t["name"]) not in hidden]
    tool_names = [str(t["name"]) for t in tools]
    raw: dict[str, str] = {}
    if custom_prompt:
        raw["preamble"] = custom_prompt
    else:
        raw["preamble"] = PREAMBLE
        listed = [(str(t["name"]), _tool_summary(t)) for t in tools]
        lines = [f"- {name}: {summary}" for name, summary in listed if summary]
        raw["tools"] = f"{chr(10).join(lines) if lines else NO_TOOLS}\n\n{TOOLS_FOOTER}"
        raw["rules"] = _rules(tool_names, tools, guidelines)
        raw["docs"] = _docs_text(docs_paths or default_docs_paths())

    addendum = "\n\n".join(p for p in append_prompts if p)
    if addendum:
        raw["addendum"] = addendum
    if context_files:
        raw["project_context"] = _project_context(context_files)
    read_tool: Any = next((t for t in ("read", "bash") if t in tool_names), None)
    if read_tool is None and any(t in selected_names for t in ("read", "bash")):
        read_tool = "indirect"  # a hidden reader is still reachable through another tool
    if read_tool is not None:
        listing = format_skills_for_prompt(skills, read_tool).strip()
        if listing:
            raw["skills"] = listing
    if date:
        raw["date"] = date
    raw["cwd"] = cwd.replace("\\", "/")
    for name, content in (extra_sections or {}).items():
        if content:
            raw[name] = content

    return {name: content if name == "preamble" else f"<{name}>\n{content}\n</{name}>" for name, content in raw.items()}


def sections_from_options(options: Mapping[str, Any]) -> dict[str, str]:
    """The sections of upstream's ``BuildSystemPromptOptions`` (what ``before_agent_start``
    handlers see and edit as ``systemPromptOptions``): ``selectedTools`` listed with their
    ``toolSnippets`` (a tool without one is not listed), rules from the declared tools'
    ``toolGuidelines`` then ``promptGuidelines``, ``hiddenTools`` left out, ``sections`` added.
    ``forceSystemPrompt`` is not a section: the caller sends it instead of the sections."""
    selected = [str(name) for name in options.get("selectedTools") or ()]
    hidden = {str(name) for name in options.get("hiddenTools") or ()}
    snippets = options.get("toolSnippets") or {}
    tool_guides = options.get("toolGuidelines") or {}
    guidelines = [str(g) for name in selected if name not in hidden for g in tool_guides.get(name) or ()]
    guidelines.extend(str(g) for g in options.get("promptGuidelines") or ())
    skills = [
        Skill(
            name=str(sk.get("name", "")),
            description=str(sk.get("description", "")),
            file_path=str(sk.get("filePath", "")),
            base_dir=str(sk.get("baseDir", "")),
            source_info=dict(sk.get("sourceInfo") or {}),
            disable_model_invocation=bool(sk.get("disableModelInvocation")),
        )
        for sk in options.get("skills") or ()
        if isinstance(sk, Mapping)
    ]
    context_files = [
        ContextFile(str(f.get("path", "")), str(f.get("content", "")))
        for f in options.get("contextFiles") or ()
        if isinstance(f, Mapping)
    ]
    append = options.get("appendSystemPrompt")
    sections = {str(k): str(v) for k, v in (options.get("sections") or {}).items() if v}
    return build_system_sections(
        cwd=str(options.get("cwd", "")),
        tools=[{"name": name, "summary": str(snippets.get(name) or "")} for name in selected],
        guidelines=guidelines,
        hidden_tools=hidden,
        skills=skills,
        context_files=context_files,
        custom_prompt=options.get("customPrompt") or None,
        append_prompts=[str(append)] if append else [],
        extra_sections=sections or None,
    )


def render_prompt_options(options: Mapping[str, object]) -> str:
    """The system prompt text of ``options`` (the forced prompt when one is set)."""
    forced = options.get("forceSystemPrompt")
    if forced is not None:
        return str(forced)
    return join_sections(sections_from_options(options))


def join_sections(sections: Mapping[str, str | None]) -> str:
    """The system prompt text sent with a request: the sections joined by blank lines."""
    return "\n\n".join(v for v in sections.values() if v)


# --------------------------------------------------------------------------- transcript messages


def build_system_message(
    sections: Mapping[str, str], tool_definitions: Sequence[Mapping[str, object]], timestamp: int
) -> SystemMessage:
    """The first ``system`` message of a session (key order as upstream writes it)."""
    message: SystemMessage = {
        "role": "system",
        "content": "",
        "sections": dict(sections),
        "timestamp": timestamp,
    }
    if tool_definitions:
        message["toolsAdded"] = [copy.deepcopy(dict(t)) for t in tool_definitions]
    return message


def diff_sections(previous: Mapping[str, str | None], current: Mapping[str, str]) -> dict[str, str | None]:
    """Changed or new sections in ``current`` order, then ``None`` for each removed one."""
    patch: dict[str, str | None] = {}
    for name, text in current.items():
        if previous.get(name) != text:
            patch[name] = text
    for name in previous:
        if name not in current:
            patch[name] = None
    return patch


def diff_system_message(
    old_sections: Mapping[str, str | None],
    old_tools: Sequence[Mapping[str, object]],
    new_sections: Mapping[str, str],
    new_tools: Sequence[Mapping[str, object]],
    timestamp: int = 0,
) -> SystemMessage | None:
    """The patch ``system`` message taking the model from the old prompt and tools to the new
    ones, or ``None`` when nothing changed. A tool whose definition changed is re-added."""
    patch = diff_sections(old_sections, new_sections)
    old_by_name = {str(t["name"]): t for t in old_tools}
    new_names = {str(t["name"]) for t in new_tools}
    added = [copy.deepcopy(dict(t)) for t in new_tools if old_by_name.get(str(t["name"])) != t]
    removed = [{"name": name} for name in old_by_name if name not in new_names]
    if not patch and not added and not removed:
        return None
    message: dict[str, object] = {"role": "system", "content": ""}
    if patch:
        message["sections"] = patch
    message["timestamp"] = timestamp
    if added:
        message["toolsAdded"] = added
    if removed:
        message["toolsRemoved"] = removed
    return cast("SystemMessage", message)  # built key by key in upstream's order


def replay_system_messages(
    messages: Iterable[Mapping[str, object]],
) -> tuple[dict[str, str | None], list[dict[str, object]]]:
    """The sections and tools the model currently has, replayed from a transcript's ``system``
    messages in order (sections patched by name, ``null`` removes)."""
    folded = get_current_system_message([dict(m) for m in messages])
    if folded is None:
        return {}, []
    return dict(folded.get("sections") or {}), [dict(t) for t in folded.get("toolsAdded") or []]


def system_prompt_text(sections: Mapping[str, str | None]) -> str:
    """Alias of :func:`join_sections` for callers thinking in terms of the request body."""
    return join_sections(sections)


__all__ = [
    "build_system_message",
    "build_system_sections",
    "default_docs_paths",
    "diff_sections",
    "diff_system_message",
    "join_sections",
    "replay_system_messages",
    "system_prompt_text",
]

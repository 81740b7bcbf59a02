"""Prompt templates: discovery, loading, argument parsing and ``/name args`` expansion
(upstream 1.6 behaviour).

Discovery order (first wins a name collision, with a ``collision`` diagnostic): project
``<cwd>/.pi/prompts`` (trusted projects only), user ``<agentDir>/prompts``, then explicit
``--prompt-template`` files or directories (kept even with ``--no-prompt-templates``). All
directory scans are non-recursive; the auto-discovered ones skip dot-files and
``node_modules`` and honour the ignore files of that directory.

Substitution is a single left-to-right pass over the template, so argument values are never
substituted again: ``${N:-default}`` (the default when argument N is missing or empty),
``${@:N}`` / ``${@:N:L}`` (arguments from the N-th, 1-based, 0 counts as 1), ``$ARGUMENTS`` and
``$@`` (all arguments joined by spaces) and ``$N`` (argument N, empty when missing).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pi_rpc.resources import _fs
from pi_rpc.resources._text import (
    JS_WHITESPACE,
    FrontmatterError,
    js_trim,
    parse_frontmatter,
    read_text,
    utf16_len,
    utf16_prefix,
)
from pi_rpc.resources.diagnostics import Diagnostic, collision

CONFIG_DIR_NAME = ".pi"
DESCRIPTION_FALLBACK_LIMIT = 60


@dataclass
class PromptTemplate:
    """One prompt template (a markdown file) and where it came from."""

    name: str
    description: object  # normally a string; a non-string frontmatter value is kept as upstream does
    content: str
    file_path: str
    source_info: dict[str, str]
    argument_hint: str | None = None


@dataclass
class TemplatesResult:
    """The prompt templates found and the problems met while loading them."""

    templates: list[PromptTemplate] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


# --------------------------------------------------------------------------- arguments


def parse_command_args(args: str) -> list[str]:
    """Split bash-style: whitespace separates, ``"..."`` and ``'...'`` group (no escapes
    inside), quotes are dropped, empty arguments disappear."""
    out: list[str] = []
    current = ""
    quote: str | None = None
    for ch in args:
        if quote is not None:
            if ch == quote:
                quote = None
            else:
                current += ch
        elif ch in ("'", '"'):
            quote = ch
        elif ch in JS_WHITESPACE:
            if current:
                out.append(current)
                current = ""
        else:
            current += ch
    if current:
        out.append(current)
    return out


_PLACEHOLDER = re.compile(r"\$\{(\d+):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)")


def substitute_args(content: str, args: list[str]) -> str:
    all_args = " ".join(args)

    def positional(number: str) -> str:
        index = int(number) - 1
        return args[index] if 0 <= index < len(args) else ""

    def replace(m: re.Match[str]) -> str:
        default_num, default_value, slice_start, slice_len, simple = m.groups()
        if default_num is not None:
            return positional(default_num) or default_value
        if slice_start is not None:
            start = max(int(slice_start) - 1, 0)
            if slice_len is not None:
                return " ".join(args[start : start + int(slice_len)])
            return " ".join(args[start:])
        if simple in ("ARGUMENTS", "@"):
            return all_args
        return positional(simple)

    return _PLACEHOLDER.sub(replace, content)


# --------------------------------------------------------------------------- loading


def load_template_file(file_path: str, source_info: dict[str, str]) -> PromptTemplate | None:
    """Load one template; unreadable files and bad YAML are skipped silently, as upstream."""
    try:
        parsed = parse_frontmatter(read_text(file_path))
    except (OSError, FrontmatterError):
        return None
    name = os.path.basename(file_path)
    if name.endswith(".md"):
        name = name[:-3]
    description: object = parsed.data.get("description") or ""
    if not description:
        first = next((line for line in parsed.body.split("\n") if js_trim(line)), None)
        if first is not None:
            description = utf16_prefix(first, DESCRIPTION_FALLBACK_LIMIT)
            if utf16_len(first) > DESCRIPTION_FALLBACK_LIMIT:
                description += "..."
    hint = parsed.data.get("argument-hint")
    return PromptTemplate(
        name=name,
        description=description,
        content=parsed.body,
        file_path=file_path,
        source_info=source_info,
        argument_hint=hint if hint else None,
    )


def collect_template_entries(directory: str) -> list[str]:
    """``.md`` files directly in an auto-discovered prompts directory."""
    if not os.path.exists(directory):
        return []
    ig = _fs.IgnoreMatcher()
    ig.add_rules_from(directory, directory)
    entries = _fs.list_dir(directory)
    if entries is None:
        return []
    return [
        e.path
        for e in entries
        if not e.name.startswith(".")
        and e.name != "node_modules"
        and not ig.ignores(_fs.rel_posix(e.path, directory))
        and e.is_file
        and e.name.endswith(".md")
    ]


def discover_templates(
    *,
    cwd: str,
    agent_dir: str,
    template_paths: Iterable[str] = (),
    no_prompt_templates: bool = False,
    project_trusted: bool = True,
    home: str | None = None,
    package_files: Sequence[tuple[str, Mapping[str, str]]] = (),
) -> TemplatesResult:
    """Load every prompt template pi would load for this cwd/agent dir and these CLI flags.
    ``package_files``: prompt files of installed packages with their ``sourceInfo``, loaded
    after the auto-discovered ones unless ``no_prompt_templates``."""
    cwd = _fs.abspath(cwd)
    agent_dir = _fs.abspath(agent_dir)
    user_dir = os.path.join(agent_dir, "prompts")
    project_base = os.path.join(cwd, CONFIG_DIR_NAME)
    project_dir = os.path.join(project_base, "prompts")

    auto: list[tuple[str, dict[str, str]]] = []
    if not no_prompt_templates:
        if project_trusted:
            info = _fs.source_info("", "auto", "project", base_dir=project_base)
            auto.extend((p, info) for p in collect_template_entries(project_dir))
        info = _fs.source_info("", "auto", "user", base_dir=agent_dir)
        auto.extend((p, info) for p in collect_template_entries(user_dir))
        auto.extend((p, dict(i)) for p, i in package_files)
    auto_info = dict(auto)

    def explicit_info(path: str, file_path: str) -> dict[str, str]:
        if _fs.is_under(file_path, user_dir):
            return _fs.source_info(file_path, "local", "user", base_dir=user_dir)
        if _fs.is_under(file_path, project_dir):
            return _fs.source_info(file_path, "local", "project", base_dir=project_dir)
        return _fs.source_info(file_path, "local", base_dir=os.path.dirname(file_path))

    paths: list[str] = []
    seen: set[str] = set()
    for p in [path for path, _ in auto] + [_fs.resolve_user_path(p, cwd, home) for p in template_paths]:
        identity = _fs.real_identity(p)
        if identity not in seen:
            seen.add(identity)
            paths.append(p)

    loaded: list[PromptTemplate] = []
    diagnostics: list[Diagnostic] = []
    for path in paths:
        if not os.path.exists(path):
            diagnostics.append({"type": "error", "message": "Prompt template path does not exist", "path": path})
            continue
        if os.path.isdir(path):
            entries = _fs.list_dir(path) or []
            files = [e.path for e in entries if e.is_file and e.name.endswith(".md")]
        elif os.path.isfile(path) and path.endswith(".md"):
            files = [path]
        else:
            files = []
        for file_path in files:
            if file_path in auto_info:
                info = {**auto_info[file_path], "path": file_path}
            else:
                info = explicit_info(path, file_path)
            template = load_template_file(file_path, info)
            if template is not None:
                loaded.append(template)

    by_name: dict[str, PromptTemplate] = {}
    for template in loaded:
        existing = by_name.get(template.name)
        if existing is not None:
            diagnostics.append(
                collision("prompt", f"/{template.name}", template.name, existing.file_path, template.file_path)
            )
        else:
            by_name[template.name] = template
    return TemplatesResult(list(by_name.values()), diagnostics)


# --------------------------------------------------------------------------- expansion

_COMMAND = re.compile(r"/(\S+)(?:\s+([\s\S]*))?\Z")


def expand_prompt_template(text: str, templates: Iterable[PromptTemplate]) -> str | None:
    """Expand ``/name args`` when ``name`` is exactly a template's name; ``None`` otherwise."""
    if not text.startswith("/"):
        return None
    m = _COMMAND.match(text)
    if m is None:
        return None
    name, arg_text = m.group(1), m.group(2) or ""
    template = next((t for t in templates if t.name == name), None)
    if template is None:
        return None
    return substitute_args(template.content, parse_command_args(arg_text))

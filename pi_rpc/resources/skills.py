"""Skills: discovery, SKILL.md parsing and validation, the system-prompt listing and the
``/skill:name args`` expansion (upstream 1.6 behaviour).

Discovery order (first loaded wins a name collision):

1. project, only when the project is trusted: ``<cwd>/.pi/skills``, then ``.agents/skills`` in
   the cwd and each ancestor up to the git root (or ``/``), skipping ``~/.agents/skills``;
2. user: ``<agentDir>/skills``, then ``~/.agents/skills``;
3. explicit ``--skill`` paths (files or directories; loaded even with ``--no-skills``).

Scanning an auto-discovered root: a directory holding ``SKILL.md`` is a skill root and is not
descended further; in a ``.pi``/agent-dir root the ``.md`` files directly in the root are skills
too; in an ``.agents`` root loose ``.md`` files count only below the root. Names starting with
``.`` and ``node_modules`` are skipped, ignore files are honoured, symlinks are followed.
An explicit directory uses the same SKILL.md-root rule with direct ``.md`` children of the root.

A non-``SKILL.md`` file without a description is silently not a skill. Validation problems are
warnings; a missing description (or unparsable YAML) means the skill is not loaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pi_rpc.config.paths import ancestor_agents_skill_dirs
from pi_rpc.resources import _fs
from pi_rpc.resources._text import (
    FrontmatterError,
    js_is_blank,
    js_trim,
    parse_frontmatter,
    read_text,
    strip_frontmatter,
    utf16_len,
)
from pi_rpc.resources.diagnostics import Diagnostic, collision, warning

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
CONFIG_DIR_NAME = ".pi"

SkillSource = Literal["user", "project", "path"]
ScanMode = Literal["pi", "agents"]


@dataclass
class Skill:
    """One loaded skill (``SKILL.md`` or a markdown file) and where it came from."""

    name: str
    description: str
    file_path: str
    base_dir: str  # directory of the skill file; relative references resolve against it
    source_info: dict[str, str]
    disable_model_invocation: bool = False


@dataclass
class SkillsResult:
    """The skills found and the problems met while loading them."""

    skills: list[Skill] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


# --------------------------------------------------------------------------- validation


def validate_name(name: str) -> list[str]:
    errors: list[str] = []
    length = utf16_len(name)
    if length > MAX_NAME_LENGTH:
        errors.append(f"name exceeds {MAX_NAME_LENGTH} characters ({length})")
    if not name or any(not (c.isascii() and (c.islower() or c.isdigit() or c == "-")) for c in name):
        errors.append("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        errors.append("name must not start or end with a hyphen")
    if "--" in name:
        errors.append("name must not contain consecutive hyphens")
    return errors


def validate_description(description: object) -> list[str]:
    if not isinstance(description, str) or js_is_blank(description):
        return ["description is required"]
    length = utf16_len(description)
    if length > MAX_DESCRIPTION_LENGTH:
        return [f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({length})"]
    return []


# --------------------------------------------------------------------------- one file


def _synthetic_source_info(file_path: str, base_dir: str, source: SkillSource) -> dict[str, str]:
    if source == "user":
        return _fs.source_info(file_path, "local", "user", base_dir=base_dir)
    if source == "project":
        return _fs.source_info(file_path, "local", "project", base_dir=base_dir)
    return _fs.source_info(file_path, "local", base_dir=base_dir)


def load_skill_file(file_path: str, source: SkillSource = "path") -> tuple[Skill | None, list[Diagnostic]]:
    """Parse and validate one skill file. Returns the skill (or ``None``) and its warnings."""
    diagnostics: list[Diagnostic] = []
    declared = os.path.basename(file_path) == "SKILL.md"
    try:
        raw = read_text(file_path)
    except OSError as exc:
        diagnostics.append(warning(exc.strerror or "failed to read skill file", file_path))
        return None, diagnostics
    try:
        frontmatter = parse_frontmatter(raw).data
    except FrontmatterError as exc:
        if declared:
            diagnostics.append(warning(str(exc) or "failed to parse skill file", file_path))
        return None, diagnostics

    description = frontmatter.get("description")
    has_description = isinstance(description, str) and not js_is_blank(description)
    if not declared and not has_description:
        return None, diagnostics

    skill_dir = os.path.dirname(file_path)
    for message in validate_description(description):
        diagnostics.append(warning(message, file_path))

    fm_name = frontmatter.get("name")
    name = fm_name if isinstance(fm_name, str) and fm_name else os.path.basename(skill_dir)
    for message in validate_name(name):
        diagnostics.append(warning(message, file_path))

    if not has_description:
        return None, diagnostics
    assert isinstance(description, str)
    return (
        Skill(
            name=name,
            description=description,
            file_path=file_path,
            base_dir=skill_dir,
            source_info=_synthetic_source_info(file_path, skill_dir, source),
            disable_model_invocation=frontmatter.get("disable-model-invocation") is True,
        ),
        diagnostics,
    )


# --------------------------------------------------------------------------- scanning


def _skill_md_in(directory: str, entries: Sequence[_fs.DirEntry], ig: _fs.IgnoreMatcher, root: str) -> str | None:
    for entry in entries:
        if entry.name == "SKILL.md":
            if entry.is_file and not ig.ignores(_fs.rel_posix(entry.path, root)):
                return entry.path
            return None
    return None


def collect_skill_entries(
    directory: str,
    mode: ScanMode,
    ignore: _fs.IgnoreMatcher | None = None,
    root: str | None = None,
    _chain: frozenset[str] = frozenset(),
) -> list[str]:
    """Skill files under an auto-discovered skills root (see the module docstring)."""
    if not os.path.exists(directory):
        return []
    # A symlink back to an ancestor would recurse forever; upstream only stops when the path
    # gets too long, we stop at the first repetition.
    identity = _fs.real_identity(directory)
    if identity in _chain:
        return []
    _chain = _chain | {identity}
    root = root if root is not None else directory
    ig = ignore if ignore is not None else _fs.IgnoreMatcher()
    ig.add_rules_from(directory, root)
    entries = _fs.list_dir(directory)
    if entries is None:
        return []
    skill_md = _skill_md_in(directory, entries, ig, root)
    if skill_md is not None:
        return [skill_md]

    found: list[str] = []
    at_root = directory == root
    for entry in entries:
        if entry.name.startswith(".") or entry.name == "node_modules":
            continue
        rel = _fs.rel_posix(entry.path, root)
        loose_md_allowed = (mode == "pi" and at_root) or (mode == "agents" and not at_root)
        if entry.is_file and entry.name.endswith(".md") and not ig.ignores(rel) and loose_md_allowed:
            found.append(entry.path)
            continue
        if not entry.is_dir or ig.ignores(rel + "/"):
            continue
        found.extend(collect_skill_entries(entry.path, mode, ig, root, _chain))
    return found


def load_skills_from_dir(
    directory: str,
    source: SkillSource = "path",
    *,
    _include_root_files: bool = True,
    _ignore: _fs.IgnoreMatcher | None = None,
    _root: str | None = None,
    _chain: frozenset[str] = frozenset(),
) -> SkillsResult:
    """Load an explicitly named skills directory (``--skill <dir>``)."""
    result = SkillsResult()
    if not os.path.exists(directory):
        return result
    identity = _fs.real_identity(directory)
    if identity in _chain:
        return result
    _chain = _chain | {identity}
    root = _root if _root is not None else directory
    ig = _ignore if _ignore is not None else _fs.IgnoreMatcher()
    ig.add_rules_from(directory, root)
    entries = _fs.list_dir(directory)
    if entries is None:
        return result

    skill_md = _skill_md_in(directory, entries, ig, root)
    if skill_md is not None:
        skill, diags = load_skill_file(skill_md, source)
        if skill:
            result.skills.append(skill)
        result.diagnostics.extend(diags)
        return result

    for entry in entries:
        if entry.name.startswith(".") or entry.name == "node_modules":
            continue
        rel = _fs.rel_posix(entry.path, root)
        if ig.ignores(rel + "/" if entry.is_dir else rel):
            continue
        if entry.is_dir:
            sub = load_skills_from_dir(
                entry.path, source, _include_root_files=False, _ignore=ig, _root=root, _chain=_chain
            )
            result.skills.extend(sub.skills)
            result.diagnostics.extend(sub.diagnostics)
            continue
        if not entry.is_file or not _include_root_files or not entry.name.endswith(".md"):
            continue
        skill, diags = load_skill_file(entry.path, source)
        if skill:
            result.skills.append(skill)
        result.diagnostics.extend(diags)
    return result


def auto_skill_files(
    *, cwd: str, agent_dir: str, project_trusted: bool = True, home: str | None = None
) -> list[tuple[str, dict[str, str]]]:
    """Auto-discovered skill files in load order, each with its ``sourceInfo`` template (the
    ``path`` key is filled in per skill)."""
    cwd = _fs.abspath(cwd)
    agent_dir = _fs.abspath(agent_dir)
    home_dir = _fs.abspath(_fs.home_dir(home))
    user_agents_skills = os.path.join(home_dir, ".agents", "skills")
    project_base = os.path.join(cwd, CONFIG_DIR_NAME)

    roots: list[tuple[str, ScanMode, dict[str, str]]] = []
    if project_trusted:
        roots.append(
            (os.path.join(project_base, "skills"), "pi", _fs.source_info("", "auto", "project", base_dir=project_base))
        )
        for agents_dir in ancestor_agents_skill_dirs(cwd, user_agents_skills):
            base = os.path.dirname(agents_dir)
            roots.append((agents_dir, "agents", _fs.source_info("", "auto", "project", base_dir=base)))
    roots.append((os.path.join(agent_dir, "skills"), "pi", _fs.source_info("", "auto", "user", base_dir=agent_dir)))
    roots.append(
        (
            user_agents_skills,
            "agents",
            _fs.source_info("", "auto", "user", base_dir=os.path.dirname(user_agents_skills)),
        )
    )

    files: list[tuple[str, dict[str, str]]] = []
    seen: set[str] = set()
    for root_dir, mode, info in roots:
        for path in collect_skill_entries(root_dir, mode):
            identity = _fs.real_identity(path)
            if identity in seen:
                continue
            seen.add(identity)
            files.append((path, info))
    return files


def discover_skills(
    *,
    cwd: str,
    agent_dir: str,
    skill_paths: Iterable[str] = (),
    no_skills: bool = False,
    project_trusted: bool = True,
    home: str | None = None,
    package_files: Sequence[tuple[str, Mapping[str, str]]] = (),
) -> SkillsResult:
    """Load every skill pi would load for this cwd/agent dir and these CLI flags.
    ``package_files``: skill files of installed packages with their ``sourceInfo``, loaded
    after the auto-discovered ones (upstream's precedence) unless ``no_skills``."""
    cwd = _fs.abspath(cwd)
    agent_dir = _fs.abspath(agent_dir)
    auto = (
        [] if no_skills else auto_skill_files(cwd=cwd, agent_dir=agent_dir, project_trusted=project_trusted, home=home)
    )
    if not no_skills:
        auto = auto + [(path, dict(info)) for path, info in package_files]
    auto_info = {path: info for path, info in auto}

    # Explicit paths come after the auto-discovered files; the same real file is loaded once.
    paths: list[str] = []
    seen: set[str] = set()
    for p in [path for path, _ in auto] + [_fs.resolve_user_path(p, cwd, home) for p in skill_paths]:
        identity = _fs.real_identity(p)
        if identity in seen:
            continue
        seen.add(identity)
        paths.append(p)

    user_skills_dir = os.path.join(agent_dir, "skills")
    project_skills_dir = os.path.join(cwd, CONFIG_DIR_NAME, "skills")

    def source_for(path: str) -> SkillSource:
        if _fs.is_under(path, user_skills_dir):
            return "user"
        if _fs.is_under(path, project_skills_dir):
            return "project"
        return "path"

    by_name: dict[str, Skill] = {}
    real_paths: set[str] = set()
    diagnostics: list[Diagnostic] = []
    collisions: list[Diagnostic] = []

    def add(loaded: SkillsResult) -> None:
        diagnostics.extend(loaded.diagnostics)
        for skill in loaded.skills:
            identity = _fs.real_identity(skill.file_path)
            if identity in real_paths:
                continue
            existing = by_name.get(skill.name)
            if existing is not None:
                collisions.append(collision("skill", skill.name, skill.name, existing.file_path, skill.file_path))
                continue
            if skill.file_path in auto_info:
                skill.source_info = {**auto_info[skill.file_path], "path": skill.file_path}
            by_name[skill.name] = skill
            real_paths.add(identity)

    for path in paths:
        if not os.path.exists(path):
            diagnostics.append(warning("skill path does not exist", path))
            continue
        if os.path.isdir(path):
            add(load_skills_from_dir(path, source_for(path)))
        elif os.path.isfile(path) and path.endswith(".md"):
            skill, diags = load_skill_file(path, source_for(path))
            add(SkillsResult([skill] if skill else [], diags))
        else:
            diagnostics.append(warning("skill path is not a markdown file", path))

    return SkillsResult(list(by_name.values()), diagnostics + collisions)


# --------------------------------------------------------------------------- prompt listing


def escape_xml(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


SkillReadTool = Literal["read", "bash", "indirect"]

_LOAD_HINT: dict[str, str] = {
    "read": "When a task fits one of these descriptions, open that skill's file with the read tool before starting.",
    "bash": "When a task fits one of these descriptions, print that skill's file with bash before starting.",
    "indirect": "When a task fits one of these descriptions, load that skill's file before starting.",
}


def format_skills_for_prompt(skills: Iterable[Skill], read_tool: SkillReadTool = "read") -> str:
    """The skills block of the system prompt: only name, description and file location of
    each skill the model may invoke itself; ``""`` when there is none."""
    visible = [s for s in skills if not s.disable_model_invocation]
    if not visible:
        return ""
    lines = [
        "Skills are packaged instructions for particular kinds of work.",
        _LOAD_HINT[read_tool],
        "Paths inside a skill file are relative to the folder that holds the file; make them absolute before passing them to a tool.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines.append("  <skill>")
        lines.append(f"    <name>{escape_xml(skill.name)}</name>")
        lines.append(f"    <description>{escape_xml(skill.description)}</description>")
        lines.append(f"    <location>{escape_xml(skill.file_path)}</location>")
        lines.append("  </skill>")
    lines.append("</available_skills>")
    return "\n".join(lines)


# --------------------------------------------------------------------------- /skill:name


SKILL_COMMAND_PREFIX = "/skill:"


def expand_skill_command(
    text: str,
    skills: Iterable[Skill],
    on_error: Callable[[str, str], None] | None = None,
) -> str | None:
    """Expand ``/skill:<name> [args]``. Returns ``None`` when ``text`` is not a skill command
    for a known skill, or when the skill file cannot be read (then ``on_error(file_path,
    message)`` is called; upstream reports it as an ``extension_error`` with
    ``event:"skill_expansion"`` and keeps the original text)."""
    if not text.startswith(SKILL_COMMAND_PREFIX):
        return None
    space = text.find(" ")
    name = text[len(SKILL_COMMAND_PREFIX) :] if space == -1 else text[len(SKILL_COMMAND_PREFIX) : space]
    args = "" if space == -1 else js_trim(text[space + 1 :])
    skill = next((s for s in skills if s.name == name), None)
    if skill is None:
        return None
    try:
        body = js_trim(strip_frontmatter(read_text(skill.file_path)))
    except (OSError, FrontmatterError) as exc:
        if on_error is not None:
            message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            on_error(skill.file_path, message)
        return None
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block

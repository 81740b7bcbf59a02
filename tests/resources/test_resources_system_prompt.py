"""Context files, SYSTEM.md / APPEND_SYSTEM.md, the section builder (checked against the real
1.6 system message structure) and the system-message patches."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_rpc.resources import (
    build_system_message,
    build_system_sections,
    diff_system_message,
    join_sections,
    load_append_system_prompts,
    load_context_files,
    load_custom_system_prompt,
    replay_system_messages,
)
from pi_rpc.resources.context_files import ContextFile
from pi_rpc.resources.skills import load_skill_file

from .rsrc_helpers import skill_md, write

FIXTURES = Path(__file__).parent / "fixtures"
ENTRY = json.loads((FIXTURES / "b_text_system_entry.json").read_text(encoding="utf-8"))
REQUEST = json.loads((FIXTURES / "b_text_request_system.json").read_text(encoding="utf-8"))
UPSTREAM_MESSAGE = ENTRY["message"]

TOOLS = [
    {
        "name": "read",
        "summary": "Show the contents of a file",
        "guidelines": ["Look at files with read rather than cat or sed."],
    },
    {"name": "bash", "summary": "Run a shell command"},
    {
        "name": "edit",
        "summary": "Replace exact text in a file",
        "guidelines": ["Make targeted edits; group changes to one file in one call."],
    },
    {
        "name": "write",
        "summary": "Create or overwrite a file",
        "guidelines": ["Use write only for new files or full rewrites."],
    },
]
DOCS = {"readme": "/opt/pi/README.md", "docs": "/opt/pi/protocol", "examples": "/opt/pi/examples"}


# --------------------------------------------------------------------------- context files


def test_context_file_walk(layout: dict[str, Path]) -> None:
    write(layout["agent"] / "CLAUDE.md", "global claude")
    write(layout["tmp"] / "CLAUDE.md", "outer claude")
    write(layout["repo"] / "AGENTS.md", "repo agents")
    write(layout["repo"] / "CLAUDE.md", "repo claude: shadowed by AGENTS.md")
    write(layout["cwd"] / "CLAUDE.md", "cwd claude")
    (layout["repo"] / "pkg" / "AGENTS.md").mkdir()  # unreadable candidate: falls back to CLAUDE.md
    write(layout["repo"] / "pkg" / "CLAUDE.md", "pkg claude")
    warnings: list[str] = []
    files = load_context_files(cwd=str(layout["cwd"]), agent_dir=str(layout["agent"]), warnings=warnings)
    assert [(f.path, f.content) for f in files] == [
        (str(layout["agent"] / "CLAUDE.md"), "global claude"),
        (str(layout["tmp"] / "CLAUDE.md"), "outer claude"),
        (str(layout["repo"] / "AGENTS.md"), "repo agents"),
        (str(layout["repo"] / "pkg" / "CLAUDE.md"), "pkg claude"),
        (str(layout["cwd"] / "CLAUDE.md"), "cwd claude"),
    ]
    assert len(warnings) == 1 and str(layout["repo"] / "pkg" / "AGENTS.md") in warnings[0]
    assert load_context_files(cwd=str(layout["cwd"]), agent_dir=str(layout["agent"]), no_context_files=True) == []


def test_agent_dir_inside_cwd_chain_is_not_repeated(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "root")
    (tmp_path / "work").mkdir()
    files = load_context_files(cwd=str(tmp_path / "work"), agent_dir=str(tmp_path))
    assert [f.path for f in files] == [str(tmp_path / "AGENTS.md")]


def test_system_md_and_append_system_md(layout: dict[str, Path]) -> None:
    cwd, agent = str(layout["cwd"]), str(layout["agent"])
    assert load_custom_system_prompt(cwd=cwd, agent_dir=agent) is None
    write(layout["agent"] / "SYSTEM.md", "global system")
    assert load_custom_system_prompt(cwd=cwd, agent_dir=agent) == "global system"
    write(layout["cwd"] / ".pi" / "SYSTEM.md", "project system")
    assert load_custom_system_prompt(cwd=cwd, agent_dir=agent) == "project system"
    assert load_custom_system_prompt(cwd=cwd, agent_dir=agent, system_prompt="literal text") == "literal text"
    custom = write(layout["tmp"] / "custom.txt", "from a file")
    assert load_custom_system_prompt(cwd=cwd, agent_dir=agent, system_prompt=str(custom)) == "from a file"

    assert load_append_system_prompts(cwd=cwd, agent_dir=agent) == []
    write(layout["agent"] / "APPEND_SYSTEM.md", "global append")
    write(layout["cwd"] / ".pi" / "APPEND_SYSTEM.md", "project append")
    assert load_append_system_prompts(cwd=cwd, agent_dir=agent) == ["project append"]
    assert load_append_system_prompts(cwd=cwd, agent_dir=agent, append_system_prompt=["one", str(custom)]) == [
        "one",
        "from a file",
    ]


# --------------------------------------------------------------------------- sections


def test_default_sections_match_upstream_structure() -> None:
    cwd = "/work/project"
    sections = build_system_sections(cwd=cwd, tools=TOOLS, docs_paths=DOCS)
    upstream = UPSTREAM_MESSAGE["sections"]
    assert list(sections) == list(upstream) == ["preamble", "tools", "rules", "docs", "cwd"]
    for name, text in sections.items():
        if name == "preamble":
            assert not text.startswith("<")
            continue
        assert text.startswith(f"<{name}>\n") and text.endswith(f"\n</{name}>")
        assert upstream[name].startswith(f"<{name}>\n") and upstream[name].endswith(f"\n</{name}>")
    assert sections["cwd"] == f"<cwd>\n{cwd}\n</cwd>"
    # Tool list: one "- name: summary" line per tool, then a blank line and a closing note.
    tool_lines = sections["tools"].split("\n")
    assert tool_lines[1:5] == [f"- {t['name']}: {t['summary']}" for t in TOOLS]
    assert tool_lines[5] == "" and tool_lines[6] and tool_lines[7] == "</tools>"
    up_lines = upstream["tools"].split("\n")
    assert [line.split(":")[0] for line in up_lines[1:5]] == [line.split(":")[0] for line in tool_lines[1:5]]
    assert up_lines[5] == "" and up_lines[7] == "</tools>"
    # Rules: bullets; bash without grep/find/ls adds the file-operations rule first, tool
    # guidelines follow in tool order, the two standing rules close the list.
    rules = sections["rules"].split("\n")[1:-1]
    assert all(r.startswith("- ") for r in rules)
    assert rules[0].startswith("- Do file listing") and "bash" in rules[0]
    assert rules[1:4] == [
        "- " + TOOLS[0]["guidelines"][0],
        "- " + TOOLS[2]["guidelines"][0],
        "- " + TOOLS[3]["guidelines"][0],
    ]
    assert len(rules) == 6
    assert len(upstream["rules"].split("\n")[1:-1]) == 8  # upstream: 1 bash rule, 5 tool rules, 2 standing
    for path in DOCS.values():
        assert path in sections["docs"]
    # Our own wording, not upstream's.
    for name in ("preamble", "tools", "rules", "docs"):
        assert sections[name] != upstream[name]


def test_join_rule_matches_upstream_request() -> None:
    assert join_sections(UPSTREAM_MESSAGE["sections"]) == REQUEST["system"]["content"]


def test_upstream_message_key_order_and_tools() -> None:
    tool_defs = UPSTREAM_MESSAGE["toolsAdded"]
    msg = build_system_message(UPSTREAM_MESSAGE["sections"], tool_defs, UPSTREAM_MESSAGE["timestamp"])
    assert msg == UPSTREAM_MESSAGE
    assert list(msg) == list(UPSTREAM_MESSAGE) == ["role", "content", "sections", "timestamp", "toolsAdded"]
    assert list(msg["sections"]) == list(UPSTREAM_MESSAGE["sections"])
    # Serialised compactly it is byte-identical to the persisted upstream message.
    raw_entry = (FIXTURES / "b_text_system_entry.json").read_text(encoding="utf-8").strip()
    raw_message = raw_entry[raw_entry.index('"message":') + len('"message":') : -1]
    assert json.dumps(msg, separators=(",", ":"), ensure_ascii=False) == raw_message
    # The request carries the same tool definitions (name, description, parameters).
    assert [t["function"]["name"] for t in REQUEST["tools"]] == [t["name"] for t in tool_defs]


def test_custom_prompt_keeps_context_skills_and_cwd(tmp_path: Path) -> None:
    skill, _ = load_skill_file(str(write(tmp_path / "s" / "lint" / "SKILL.md", skill_md("lint", "Run the linters"))))
    assert skill is not None
    files = [ContextFile("/p/AGENTS.md", "Use tabs."), ContextFile("/p/sub/CLAUDE.md", "No emojis.")]
    sections = build_system_sections(
        cwd="C:\\work\\proj",
        tools=TOOLS,
        skills=[skill],
        context_files=files,
        custom_prompt="You are a reviewer.",
        append_prompts=["Extra one.", "", "Extra two."],
    )
    assert list(sections) == ["preamble", "addendum", "project_context", "skills", "cwd"]
    assert sections["preamble"] == "You are a reviewer."
    assert sections["addendum"] == "<addendum>\nExtra one.\n\nExtra two.\n</addendum>"
    ctx = sections["project_context"]
    assert ctx.startswith("<project_context>\n") and ctx.endswith("\n</project_context>")
    assert (
        '<project_instructions path="/p/AGENTS.md">\nUse tabs.\n</project_instructions>\n\n'
        '<project_instructions path="/p/sub/CLAUDE.md">\nNo emojis.\n</project_instructions>'
    ) in ctx
    assert "<name>lint</name>" in sections["skills"] and "read tool" in sections["skills"]
    assert sections["cwd"] == "<cwd>\nC:/work/proj\n</cwd>"
    text = join_sections(sections)
    assert text.startswith("You are a reviewer.\n\n<addendum>") and text.endswith("</cwd>")


def test_skills_section_needs_a_reading_tool(tmp_path: Path) -> None:
    skill, _ = load_skill_file(str(write(tmp_path / "s" / "lint" / "SKILL.md", skill_md("lint", "Run the linters"))))
    hidden, _ = load_skill_file(
        str(write(tmp_path / "s" / "h" / "SKILL.md", skill_md("h", "Hidden", extra="disable-model-invocation: true")))
    )
    assert skill and hidden
    only_edit = build_system_sections(cwd="/x", tools=[{"name": "edit", "summary": "Edit"}], skills=[skill])
    assert "skills" not in only_edit
    bash_only = build_system_sections(cwd="/x", tools=[{"name": "bash", "summary": "Shell"}], skills=[skill])
    assert "with bash" in bash_only["skills"]
    assert "skills" not in build_system_sections(cwd="/x", tools=TOOLS, skills=[hidden])
    no_tools = build_system_sections(cwd="/x", tools=[], docs_paths=DOCS)
    assert no_tools["tools"].split("\n")[1] == "(none)"
    assert "Do file listing" not in no_tools["rules"]
    with_grep = build_system_sections(cwd="/x", tools=[*TOOLS, {"name": "grep", "summary": "Search"}])
    assert "Do file listing" not in with_grep["rules"]


def test_rules_dedupe_and_extra_guidelines() -> None:
    sections = build_system_sections(
        cwd="/x",
        tools=[{"name": "read", "summary": "Read", "guidelines": ["  Same rule  ", "Same rule"]}],
        guidelines=["Same rule", "", "Extension rule"],
    )
    rules = sections["rules"].split("\n")[1:-1]
    assert rules[:2] == ["- Same rule", "- Extension rule"] and len(rules) == 4


def test_date_and_extra_sections() -> None:
    sections = build_system_sections(
        cwd="/x", tools=TOOLS, date="2026-01-02", extra_sections={"mode": "plan", "empty": ""}
    )
    assert list(sections)[-3:] == ["date", "cwd", "mode"]
    assert sections["mode"] == "<mode>\nplan\n</mode>"
    with pytest.raises(ValueError, match="Invalid system prompt section name: Bad"):
        build_system_sections(cwd="/x", tools=TOOLS, extra_sections={"Bad": "x"})


# --------------------------------------------------------------------------- patches


def test_diff_system_message() -> None:
    tools = UPSTREAM_MESSAGE["toolsAdded"]
    old = build_system_sections(cwd="/x", tools=TOOLS)
    assert diff_system_message(old, tools, dict(old), [dict(t) for t in tools], timestamp=5) is None

    new = build_system_sections(cwd="/y", tools=TOOLS, append_prompts=["more"])
    grep = {"name": "grep", "description": "Search", "parameters": {"type": "object", "properties": {}}}
    changed_bash = {**tools[1], "description": "changed"}
    new_tools = [tools[0], changed_bash, tools[2], grep]
    patch = diff_system_message(old, tools, new, new_tools, timestamp=7)
    assert patch == {
        "role": "system",
        "content": "",
        "sections": {"addendum": "<addendum>\nmore\n</addendum>", "cwd": "<cwd>\n/y\n</cwd>"},
        "timestamp": 7,
        "toolsAdded": [changed_bash, grep],
        "toolsRemoved": [{"name": "write"}],
    }
    assert list(patch) == ["role", "content", "sections", "timestamp", "toolsAdded", "toolsRemoved"]

    # Removing a section yields null; a tools-only change carries no sections key.
    back = diff_system_message(new, new_tools, old, new_tools, timestamp=8)
    assert back is not None and back["sections"] == {"cwd": "<cwd>\n/x\n</cwd>", "addendum": None}
    assert "toolsAdded" not in back and "toolsRemoved" not in back
    tools_only = diff_system_message(old, tools, old, tools[:3], timestamp=9)
    assert tools_only == {"role": "system", "content": "", "timestamp": 9, "toolsRemoved": [{"name": "write"}]}

    # Replaying the first message plus the patches gives the latest state.
    first = build_system_message(old, tools, 1)
    state_sections, state_tools = replay_system_messages([first, {"role": "user"}, patch, back])
    assert state_sections == old
    assert [t["name"] for t in state_tools] == ["read", "bash", "edit", "grep"]
    assert state_tools[1]["description"] == "changed"
    assert join_sections(state_sections) == join_sections(old)


def test_default_docs_paths_point_at_this_project() -> None:
    sections = build_system_sections(cwd="/x", tools=TOOLS)
    import pi_rpc

    root = os.path.dirname(os.path.dirname(os.path.abspath(pi_rpc.__file__)))
    assert os.path.join(root, "README.md") in sections["docs"]
    assert "node_modules" not in sections["docs"]

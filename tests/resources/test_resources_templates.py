"""Prompt templates: discovery, descriptions, quoting, every substitution form, expansion, and
the get_commands listing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_rpc.resources import (
    discover_skills,
    discover_templates,
    expand_prompt_template,
    list_slash_commands,
    parse_command_args,
    substitute_args,
)

from .rsrc_helpers import skill_md, write


def discover(layout: dict[str, Path], **kw):
    return discover_templates(cwd=str(layout["cwd"]), agent_dir=str(layout["agent"]), home=str(layout["home"]), **kw)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Bob "Big Al" c', ["Bob", "Big Al", "c"]),
        ("  a\t b  ", ["a", "b"]),
        ("'single quoted' x", ["single quoted", "x"]),
        ('mid"dle quo"te', ["middle quote"]),
        ('"" empty "" gone', ["empty", "gone"]),
        ("'it\"s' fine", ['it"s', "fine"]),
        ('"unterminated quote runs on', ["unterminated quote runs on"]),
        ("back\\slash 'no \\escapes'", ["back\\slash", "no \\escapes"]),
        ("", []),
    ],
)
def test_parse_command_args(text: str, expected: list[str]) -> None:
    assert parse_command_args(text) == expected


@pytest.mark.parametrize(
    ("template", "args", "expected"),
    [
        (
            "Say hi to $1 and $@ / ${@:2} / $ARGUMENTS",
            ["Bob", "Big Al", "c"],
            "Say hi to Bob and Bob Big Al c / Big Al c / Bob Big Al c",
        ),
        ("[$1][$2][$3][$0]", ["a", "b"], "[a][b][][]"),
        ("${@:2:1}|${@:0}|${@:1:2}|${@:5}", ["a", "b", "c"], "b|a b c|a b|"),
        ("${1:-fallback} ${2:-two words} ${3:-}", ["given"], "given two words "),
        ("${1:-dflt}", [], "dflt"),
        ("$10 $1", [str(i) for i in range(1, 11)], "10 1"),
        ("$ARGUMENTS!", [], "!"),
        ("cost: $5 and $", ["x"], "cost:  and $"),
    ],
)
def test_substitute_args(template: str, args: list[str], expected: str) -> None:
    assert substitute_args(template, args) == expected


def test_argument_values_are_not_substituted_again() -> None:
    args = ["$2", "${@:1}", "$ARGUMENTS"]
    assert substitute_args("$1|$2|$@", args) == "$2|${@:1}|$2 ${@:1} $ARGUMENTS"
    # An empty argument falls back to the default.
    assert substitute_args("${1:-d}", [""]) == "d"


def test_discovery_descriptions_collisions_and_expansion(layout: dict[str, Path]) -> None:
    user = layout["agent"] / "prompts"
    project = layout["cwd"] / ".pi" / "prompts"
    write(
        user / "greet.md",
        "---\ndescription: Greet someone\nargument-hint: <name>\n---\n\nSay hi to $1 and $@ / ${@:2} / $ARGUMENTS\n",
    )
    write(user / "long.md", "\n\n   " + "x" * 70 + "\nsecond line\n")
    write(user / "short.md", "Just a line\n")
    write(user / "dup.md", "---\ndescription: user dup\n---\nuser\n")
    write(user / "sub" / "nested.md", "Not discovered: non-recursive\n")
    write(user / ".hidden.md", "dot-file\n")
    write(user / "skipme.md", "ignored\n")
    write(user / ".gitignore", "skipme.md\n")
    write(user / "notes.txt", "not markdown\n")
    write(user / "badyaml.md", "---\ndescription: [oops\n---\nbody\n")
    write(project / "dup.md", "---\ndescription: project dup\n---\nproject\n")
    result = discover(layout)

    names = [t.name for t in result.templates]
    assert names == ["dup", "greet", "long", "short"]  # badyaml, sub/, dot-files, ignored: skipped
    by_name = {t.name: t for t in result.templates}
    assert by_name["dup"].description == "project dup"
    assert by_name["greet"].description == "Greet someone"
    assert by_name["greet"].argument_hint == "<name>"
    assert by_name["long"].description == "   " + "x" * 57 + "..."
    assert by_name["short"].description == "Just a line"
    assert by_name["short"].content == "Just a line\n"  # no frontmatter: body kept as is

    assert result.diagnostics == [
        {
            "type": "collision",
            "message": 'name "/dup" collision',
            "path": str(user / "dup.md"),
            "collision": {
                "resourceType": "prompt",
                "name": "dup",
                "winnerPath": str(project / "dup.md"),
                "loserPath": str(user / "dup.md"),
            },
        }
    ]
    assert by_name["greet"].source_info == {
        "path": str(user / "greet.md"),
        "source": "auto",
        "scope": "user",
        "origin": "top-level",
        "baseDir": str(layout["agent"]),
    }
    assert by_name["dup"].source_info["scope"] == "project"
    assert by_name["dup"].source_info["baseDir"] == str(layout["cwd"] / ".pi")

    templates = result.templates
    assert (
        expand_prompt_template('/greet Bob "Big Al" c', templates)
        == "Say hi to Bob and Bob Big Al c / Big Al c / Bob Big Al c"
    )
    assert expand_prompt_template("/greet", templates) == "Say hi to  and  /  / "
    assert (
        expand_prompt_template("/greet\n'multi line' arg", templates)
        == "Say hi to multi line and multi line arg / arg / multi line arg"
    )
    assert expand_prompt_template("/gree Bob", templates) is None
    assert expand_prompt_template("greet Bob", templates) is None
    assert expand_prompt_template("/", templates) is None


def test_explicit_template_paths(layout: dict[str, Path]) -> None:
    extra = layout["tmp"] / "extra"
    write(extra / "one.md", "---\ndescription: One\n---\nfirst $1\n")
    write(extra / ".dotted.md", "explicit dirs do not skip dot-files\n")
    write(extra / "deeper" / "two.md", "not loaded: non-recursive\n")
    single = write(layout["tmp"] / "single.md", "Single file\n")
    result = discover(
        layout,
        no_prompt_templates=True,
        template_paths=[str(extra), str(single), str(layout["tmp"] / "missing")],
    )
    assert [t.name for t in result.templates] == [".dotted", "one", "single"]
    assert {t.name: t.source_info for t in result.templates}["one"] == {
        "path": str(extra / "one.md"),
        "source": "local",
        "scope": "temporary",
        "origin": "top-level",
        "baseDir": str(extra),
    }
    assert result.diagnostics == [
        {"type": "error", "message": "Prompt template path does not exist", "path": str(layout["tmp"] / "missing")}
    ]


def test_untrusted_project_skips_project_templates(layout: dict[str, Path]) -> None:
    write(layout["cwd"] / ".pi" / "prompts" / "p.md", "project\n")
    write(layout["agent"] / "prompts" / "u.md", "user\n")
    assert [t.name for t in discover(layout, project_trusted=False).templates] == ["u"]
    assert [t.name for t in discover(layout).templates] == ["p", "u"]


def test_get_commands_shape(layout: dict[str, Path]) -> None:
    write(layout["agent"] / "prompts" / "review.md", "---\ndescription: Review changes\n---\nReview $@\n")
    write(layout["agent"] / "prompts" / "empty.md", "")
    write(
        layout["agent"] / "skills" / "lint" / "SKILL.md",
        skill_md("lint", "Run linters", extra="disable-model-invocation: true"),
    )
    extra = write(layout["tmp"] / "x" / "SKILL.md", skill_md("x", "Explicit skill"))
    templates = discover(layout).templates
    skills = discover_skills(
        cwd=str(layout["cwd"]), agent_dir=str(layout["agent"]), home=str(layout["home"]), skill_paths=[str(extra)]
    ).skills
    ext = [
        {
            "name": "mcp",
            "description": "Manage MCP servers",
            "source": "extension",
            "sourceInfo": {"path": "builtin:mcp", "source": "builtin", "scope": "temporary", "origin": "top-level"},
        }
    ]
    commands = list_slash_commands(templates, skills, ext)
    agent = str(layout["agent"])
    assert commands == [
        ext[0],
        {
            "name": "empty",
            "description": "",
            "source": "prompt",
            "sourceInfo": {
                "path": f"{agent}/prompts/empty.md",
                "source": "auto",
                "scope": "user",
                "origin": "top-level",
                "baseDir": agent,
            },
        },
        {
            "name": "review",
            "description": "Review changes",
            "source": "prompt",
            "sourceInfo": {
                "path": f"{agent}/prompts/review.md",
                "source": "auto",
                "scope": "user",
                "origin": "top-level",
                "baseDir": agent,
            },
        },
        {
            "name": "skill:lint",
            "description": "Run linters",
            "source": "skill",
            "sourceInfo": {
                "path": f"{agent}/skills/lint/SKILL.md",
                "source": "auto",
                "scope": "user",
                "origin": "top-level",
                "baseDir": agent,
            },
        },
        {
            "name": "skill:x",
            "description": "Explicit skill",
            "source": "skill",
            "sourceInfo": {
                "path": str(extra),
                "source": "local",
                "scope": "temporary",
                "origin": "top-level",
                "baseDir": os.path.dirname(extra),
            },
        },
    ]
    assert [list(c) for c in commands[1:]] == [["name", "description", "source", "sourceInfo"]] * 4


def test_expand_input_order(tmp_path: Path) -> None:
    from pi_rpc.resources import expand_input
    from pi_rpc.resources.skills import load_skill_file
    from pi_rpc.resources.templates import load_template_file

    skill, _ = load_skill_file(
        str(write(tmp_path / "s" / "fix" / "SKILL.md", skill_md("fix", "Fix things", body="Fix it.")))
    )
    tpl = load_template_file(str(write(tmp_path / "p" / "fix.md", "Template for $1")), {})
    odd = load_template_file(str(write(tmp_path / "p" / "skill:nope.md", "odd template $1")), {})
    assert skill and tpl and odd
    kw = {"skills": [skill], "templates": [tpl, odd]}
    assert expand_input("/skill:fix now", **kw).startswith('<skill name="fix"')
    assert expand_input("/skill:fix now", **kw).endswith("</skill>\n\nnow")
    assert expand_input("/fix now", **kw) == "Template for now"
    # An unknown skill passes through to template expansion.
    assert expand_input("/skill:nope x", **kw) == "odd template x"
    assert expand_input("/unknown x", **kw) == "/unknown x"
    assert expand_input("plain", **kw) == "plain"

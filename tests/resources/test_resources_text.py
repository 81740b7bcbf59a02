"""Frontmatter parsing (upstream's splitting rules, YAML 1.2 scalars), JS-compatible trimming and
UTF-16 lengths, and symlink loops in skill trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_rpc.resources._text import FrontmatterError, js_trim, parse_frontmatter, utf16_len, utf16_prefix
from pi_rpc.resources.skills import collect_skill_entries, load_skills_from_dir

from .rsrc_helpers import skill_md, write


def test_frontmatter_split_rules() -> None:
    fm = parse_frontmatter("---\r\nname: a\r\ndescription: b\r\n---\r\n\r\n body \r\n")
    assert fm.data == {"name": "a", "description": "b"} and fm.body == "body"
    no_fm = parse_frontmatter("  text\n---\nx: 1\n---\n")
    assert no_fm.data == {} and no_fm.body == "  text\n---\nx: 1\n---\n"
    unclosed = parse_frontmatter("---\nname: a\nbody without end\n")
    assert unclosed.data == {} and unclosed.body == "---\nname: a\nbody without end\n"
    assert parse_frontmatter("---\n---\nbody").data == {}
    assert parse_frontmatter("---\n- a list\n---\nbody").data == {}


def test_yaml_core_schema_scalars() -> None:
    data = parse_frontmatter("---\na: yes\nb: on\nc: 2024-01-02\nd: true\ne: False\nf: 12\n---\n").data
    assert data == {"a": "yes", "b": "on", "c": "2024-01-02", "d": True, "e": False, "f": 12}


def test_yaml_errors() -> None:
    with pytest.raises(FrontmatterError):
        parse_frontmatter("---\na: [1\n---\n")
    with pytest.raises(FrontmatterError, match="unique"):
        parse_frontmatter("---\nname: a\nname: b\n---\n")


def test_js_string_helpers() -> None:
    assert js_trim("\ufeff\u00a0 x \u2028\n") == "x"
    assert js_trim("\x1cx\x85") == "\x1cx\x85"  # not whitespace in JavaScript
    assert utf16_len("a😀") == 3
    assert utf16_prefix("ab😀c", 3) == "ab"
    assert utf16_prefix("ab😀c", 4) == "ab😀"


def test_symlink_loops_terminate(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "a" / "b" / "x.md", skill_md("x", "loose below root"))
    write(root / "real" / "SKILL.md", skill_md("real", "A skill"))
    os.symlink(root, root / "a" / "b" / "loop")
    assert collect_skill_entries(str(root), "agents") == [
        str(root / "a" / "b" / "x.md"),
        str(root / "real" / "SKILL.md"),
    ]
    result = load_skills_from_dir(str(root))
    assert [s.name for s in result.skills] == ["real"]

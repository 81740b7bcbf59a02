"""Skills: discovery over real directory trees, validation diagnostics, collisions, the prompt
listing and the exact /skill:name expansion."""

from __future__ import annotations

import os
from pathlib import Path

from pi_rpc.resources import discover_skills, expand_skill_command, format_skills_for_prompt
from pi_rpc.resources.skills import collect_skill_entries, load_skill_file

from .rsrc_helpers import skill_md, write


def discover(layout: dict[str, Path], **kw):
    return discover_skills(cwd=str(layout["cwd"]), agent_dir=str(layout["agent"]), home=str(layout["home"]), **kw)


def build_tree(layout: dict[str, Path]) -> None:
    agent_skills = layout["agent"] / "skills"
    write(agent_skills / "loose.md", skill_md(None, "A loose skill file"))
    write(agent_skills / "alpha" / "SKILL.md", skill_md("alpha", "Alpha skill"))
    write(agent_skills / "alpha" / "nested" / "SKILL.md", skill_md("alpha-nested", "Must not load"))
    write(agent_skills / "alpha" / "notes.md", skill_md("alpha-notes", "Not a skill"))
    write(agent_skills / "group" / "beta" / "SKILL.md", skill_md("beta", "Beta skill"))
    write(agent_skills / "group" / "readme.md", skill_md("group-readme", "Loose file below a pi root"))
    write(agent_skills / "group" / "gamma" / "SKILL.md", skill_md("gamma", "Ignored by .ignore"))
    write(agent_skills / "group" / ".ignore", "gamma\n")
    write(agent_skills / ".hidden" / "SKILL.md", skill_md("hidden", "Dot dirs are skipped"))
    write(agent_skills / "node_modules" / "dep" / "SKILL.md", skill_md("dep", "Skipped"))
    write(agent_skills / "ignored" / "SKILL.md", skill_md("ignored", "Ignored by .gitignore"))
    write(agent_skills / ".gitignore", "# comment\nignored/\n")
    write(agent_skills / "wip.draft.md", skill_md("wip", "Ignored by .fdignore"))
    write(agent_skills / ".fdignore", "*.draft.md\n")

    cwd = layout["cwd"]
    write(cwd / ".pi" / "skills" / "proj" / "SKILL.md", skill_md("proj", "Project skill"))
    repo_agents = layout["repo"] / ".agents" / "skills"
    write(repo_agents / "shared" / "SKILL.md", skill_md("shared", "Repo-wide skill"))
    write(repo_agents / "root-level.md", skill_md("root-level", "Loose at an .agents root: skipped"))
    write(repo_agents / "tools" / "helper.md", skill_md("helper", "Loose below an .agents root"))
    write(layout["tmp"] / ".agents" / "skills" / "outside" / "SKILL.md", skill_md("outside", "Above the git root"))
    write(layout["home"] / ".agents" / "skills" / "homeskill" / "SKILL.md", skill_md("homeskill", "From ~/.agents"))


def test_discovery_order_rules_and_source_info(layout: dict[str, Path]) -> None:
    build_tree(layout)
    result = discover(layout)
    assert result.diagnostics == []
    names = [s.name for s in result.skills]
    assert names == ["proj", "shared", "helper", "alpha", "beta", "skills", "homeskill"]

    by_name = {s.name: s for s in result.skills}
    agent, cwd, repo, home = (str(layout[k]) for k in ("agent", "cwd", "repo", "home"))
    proj = by_name["proj"]
    assert proj.file_path == f"{cwd}/.pi/skills/proj/SKILL.md"
    assert proj.base_dir == f"{cwd}/.pi/skills/proj"
    assert proj.source_info == {
        "path": proj.file_path,
        "source": "auto",
        "scope": "project",
        "origin": "top-level",
        "baseDir": f"{cwd}/.pi",
    }
    assert by_name["shared"].source_info["baseDir"] == f"{repo}/.agents"
    assert by_name["shared"].source_info["scope"] == "project"
    assert by_name["alpha"].source_info == {
        "path": f"{agent}/skills/alpha/SKILL.md",
        "source": "auto",
        "scope": "user",
        "origin": "top-level",
        "baseDir": agent,
    }
    assert by_name["homeskill"].source_info["baseDir"] == f"{home}/.agents"
    assert by_name["homeskill"].source_info["scope"] == "user"
    # A loose .md without a name takes its directory's name, which is the root's name.
    assert by_name["skills"].file_path == f"{agent}/skills/loose.md"
    assert list(proj.source_info) == ["path", "source", "scope", "origin", "baseDir"]


def test_collect_entries_stops_at_skill_md_root(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "SKILL.md", skill_md("top", "Root is itself a skill"))
    write(root / "child" / "SKILL.md", skill_md("child", "Never reached"))
    write(root / "loose.md", skill_md("loose", "Never reached"))
    assert collect_skill_entries(str(root), "pi") == [str(root / "SKILL.md")]


def test_gitignore_negation_and_ignored_skill_md(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "a" / "SKILL.md", skill_md("a", "kept"))
    write(root / "b" / "SKILL.md", skill_md("b", "ignored"))
    write(root / "c.md", skill_md("c", "kept by negation"))
    write(root / "d.md", skill_md("d", "ignored by glob"))
    write(root / ".gitignore", "b/\n*.md\n!c.md\n")
    found = collect_skill_entries(str(root), "pi")
    # *.md also matches a/SKILL.md, so directory a yields nothing either.
    assert found == [str(root / "c.md")]


def test_untrusted_project_skips_project_skills(layout: dict[str, Path]) -> None:
    build_tree(layout)
    names = [s.name for s in discover(layout, project_trusted=False).skills]
    assert names == ["alpha", "beta", "skills", "homeskill"]


def test_no_skills_keeps_explicit_paths(layout: dict[str, Path]) -> None:
    build_tree(layout)
    extra = write(layout["tmp"] / "extra" / "x" / "SKILL.md", skill_md("x", "Explicit"))
    result = discover(layout, no_skills=True, skill_paths=[str(extra)])
    assert [s.name for s in result.skills] == ["x"]
    assert result.skills[0].source_info == {
        "path": str(extra),
        "source": "local",
        "scope": "temporary",
        "origin": "top-level",
        "baseDir": str(extra.parent),
    }


def test_validation_diagnostics(layout: dict[str, Path]) -> None:
    skills = layout["agent"] / "skills"
    write(skills / "bad-yaml" / "SKILL.md", "---\nname: bad-yaml\ndescription: [unclosed\n---\nBody\n")
    write(skills / "loose-bad.md", "---\ndescription: [unclosed\n---\nBody\n")
    write(skills / "nodesc" / "SKILL.md", skill_md("nodesc", None))
    write(skills / "blankdesc" / "SKILL.md", skill_md("blankdesc", "'   '"))
    write(skills / "upper" / "SKILL.md", skill_md("Bad_Name", "Invalid characters still load"))
    write(skills / "hyphen" / "SKILL.md", skill_md("-a--b-", "Hyphen rules"))
    long_name = "a" * 65
    write(skills / "long" / "SKILL.md", skill_md(long_name, "x" * 1025))
    write(skills / "loose-nodesc.md", "---\nname: whatever\n---\nNo description: silently not a skill\n")
    result = discover(layout)
    names = sorted(s.name for s in result.skills)
    assert names == sorted(["Bad_Name", "-a--b-", long_name])

    by_path = {}
    for d in result.diagnostics:
        assert d["type"] == "warning"
        by_path.setdefault(os.path.relpath(d["path"], skills), []).append(d["message"])
    assert set(by_path) == {
        "bad-yaml/SKILL.md",
        "nodesc/SKILL.md",
        "blankdesc/SKILL.md",
        "upper/SKILL.md",
        "hyphen/SKILL.md",
        "long/SKILL.md",
    }
    assert len(by_path["bad-yaml/SKILL.md"]) == 1 and by_path["bad-yaml/SKILL.md"][0]
    assert by_path["nodesc/SKILL.md"] == ["description is required"]
    assert by_path["blankdesc/SKILL.md"] == ["description is required"]
    assert by_path["upper/SKILL.md"] == ["name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"]
    assert by_path["hyphen/SKILL.md"] == [
        "name must not start or end with a hyphen",
        "name must not contain consecutive hyphens",
    ]
    assert by_path["long/SKILL.md"] == [
        "description exceeds 1024 characters (1025)",
        "name exceeds 64 characters (65)",
    ]


def test_name_collision_first_wins(layout: dict[str, Path]) -> None:
    project = write(layout["cwd"] / ".pi" / "skills" / "dup" / "SKILL.md", skill_md("dup", "Project copy"))
    user = write(layout["agent"] / "skills" / "dup" / "SKILL.md", skill_md("dup", "User copy"))
    write(layout["agent"] / "skills" / "bad" / "SKILL.md", skill_md("bad", None))
    result = discover(layout)
    assert [(s.name, s.description) for s in result.skills] == [("dup", "Project copy")]
    # Collisions come after every other diagnostic.
    assert [d["type"] for d in result.diagnostics] == ["warning", "collision"]
    assert result.diagnostics[1] == {
        "type": "collision",
        "message": 'name "dup" collision',
        "path": str(user),
        "collision": {
            "resourceType": "skill",
            "name": "dup",
            "winnerPath": str(project),
            "loserPath": str(user),
        },
    }


def test_symlinked_skill_loaded_once(layout: dict[str, Path]) -> None:
    real = write(layout["tmp"] / "store" / "linked" / "SKILL.md", skill_md("linked", "Via symlink"))
    (layout["agent"] / "skills").mkdir(parents=True)
    os.symlink(real.parent, layout["agent"] / "skills" / "linked")
    os.symlink(layout["tmp"] / "nowhere", layout["agent"] / "skills" / "broken")
    result = discover(layout, skill_paths=[str(real)])
    assert [s.name for s in result.skills] == ["linked"]
    assert result.diagnostics == []
    assert result.skills[0].source_info["source"] == "auto"


def test_explicit_paths(layout: dict[str, Path]) -> None:
    lib = layout["tmp"] / "lib"
    write(lib / "top.md", skill_md("top", "Direct .md in an explicit dir"))
    write(lib / "deep" / "inner" / "SKILL.md", skill_md("inner", "Recursive"))
    write(lib / "deep" / "inner" / "more" / "SKILL.md", skill_md("more", "Below a skill root"))
    write(lib / "deep" / "note.md", skill_md("note", "Loose below the root: ignored"))
    write(layout["home"] / "mine" / "SKILL.md", skill_md("mine", "Tilde path"))
    write(layout["cwd"] / "rel" / "SKILL.md", skill_md("rel", "Relative path"))
    write(layout["tmp"] / "notes.txt", "not markdown")
    result = discover(
        layout,
        no_skills=True,
        skill_paths=[
            str(lib),
            "~/mine/SKILL.md",
            "rel",
            str(layout["tmp"] / "notes.txt"),
            str(layout["tmp"] / "missing"),
        ],
    )
    assert [s.name for s in result.skills] == ["inner", "top", "mine", "rel"]
    assert result.diagnostics == [
        {"type": "warning", "message": "skill path is not a markdown file", "path": str(layout["tmp"] / "notes.txt")},
        {"type": "warning", "message": "skill path does not exist", "path": str(layout["tmp"] / "missing")},
    ]


def test_explicit_path_under_user_dir_gets_user_scope(layout: dict[str, Path]) -> None:
    path = write(layout["agent"] / "skills" / "u" / "SKILL.md", skill_md("u", "User dir, explicit"))
    result = discover(layout, no_skills=True, skill_paths=[str(path)])
    assert result.skills[0].source_info == {
        "path": str(path),
        "source": "local",
        "scope": "user",
        "origin": "top-level",
        "baseDir": str(path.parent),
    }


def test_disable_model_invocation_and_prompt_listing(tmp_path: Path) -> None:
    write(tmp_path / "s" / "vis" / "SKILL.md", skill_md("vis", 'Visible <tag> & "quotes"'))
    write(tmp_path / "s" / "hid" / "SKILL.md", skill_md("hid", "Hidden", extra="disable-model-invocation: true"))
    write(
        tmp_path / "s" / "yes" / "SKILL.md", skill_md("yes", "yes is not true", extra="disable-model-invocation: yes")
    )
    vis, _ = load_skill_file(str(tmp_path / "s" / "vis" / "SKILL.md"))
    hid, _ = load_skill_file(str(tmp_path / "s" / "hid" / "SKILL.md"))
    yes, _ = load_skill_file(str(tmp_path / "s" / "yes" / "SKILL.md"))
    assert vis and hid and yes
    assert hid.disable_model_invocation is True
    assert yes.disable_model_invocation is False

    text = format_skills_for_prompt([vis, hid, yes])
    assert "<name>hid</name>" not in text and "Hidden" not in text
    block = text[text.index("<available_skills>") :]
    assert block == (
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>vis</name>\n"
        "    <description>Visible &lt;tag&gt; &amp; &quot;quotes&quot;</description>\n"
        f"    <location>{tmp_path}/s/vis/SKILL.md</location>\n"
        "  </skill>\n"
        "  <skill>\n"
        "    <name>yes</name>\n"
        "    <description>yes is not true</description>\n"
        f"    <location>{tmp_path}/s/yes/SKILL.md</location>\n"
        "  </skill>\n"
        "</available_skills>"
    )
    assert "Body." not in text  # the body is never in the prompt
    assert format_skills_for_prompt([hid]) == ""


def test_skill_expansion_exact_text(tmp_path: Path) -> None:
    path = tmp_path / "skills" / "deploy" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"---\r\nname: deploy\r\ndescription: Deploys\r\n---\r\n\r\n  Step one.\r\nStep two.\r\n\r\n")
    skill, diags = load_skill_file(str(path))
    assert skill is not None and diags == []
    base = str(path.parent)
    expected_block = (
        f'<skill name="deploy" location="{path}">\nReferences are relative to {base}.\n\nStep one.\nStep two.\n</skill>'
    )
    assert expand_skill_command("/skill:deploy", [skill]) == expected_block
    assert expand_skill_command("/skill:deploy   to prod  ", [skill]) == expected_block + "\n\nto prod"
    assert expand_skill_command("/skill:deploy \n\nmulti\nline\n", [skill]) == expected_block + "\n\nmulti\nline"
    assert expand_skill_command("/skill:other args", [skill]) is None
    assert expand_skill_command("please /skill:deploy", [skill]) is None
    assert expand_skill_command("/skill:deploy\nargs", [skill]) is None  # only a space ends the name


def test_skill_expansion_read_failure_reports(tmp_path: Path) -> None:
    path = write(tmp_path / "k" / "SKILL.md", skill_md("k", "Will vanish", extra="disable-model-invocation: true"))
    skill, _ = load_skill_file(str(path))
    assert skill is not None
    # disable-model-invocation skills can still be invoked explicitly.
    assert expand_skill_command("/skill:k", [skill]) is not None
    path.unlink()
    errors: list[tuple[str, str]] = []
    assert expand_skill_command("/skill:k go", [skill], lambda p, m: errors.append((p, m))) is None
    assert len(errors) == 1 and errors[0][0] == str(path) and errors[0][1]

"""``pi config`` details upstream 1.6 has: a project's ``.agents/skills`` folders of the cwd and
its ancestors (up to the git root) are listed, each under ``Project (<that .agents>/)``, and a
toggle there writes a pattern relative to that folder that both programs honour; project
toggles cycle through upstream's three states (inherit, load, unload) and write what its
screen writes; a top-level ``themes`` array's ``-``/``!`` entries leave a theme out of the
interactive mode's theme list."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.package_world import OURS, UPSTREAM, command_names, env_for, rpc_commands, run, write


def _skill(folder: Path, name: str) -> None:
    write(folder / name / "SKILL.md", f"---\nname: {name}\ndescription: Skill {name}\n---\nDo {name}.\n")


def _skills(argv: list[str], env: dict[str, str], cwd: Path) -> set[str]:
    commands, stderr = rpc_commands(argv, env, cwd, "--approve")
    assert "Failed" not in stderr, stderr
    return {n for n in command_names(commands) if n.startswith("skill:")}


def test_ancestor_agents_skills_are_listed_and_toggled_as_upstream(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "sub"
    _skill(repo / ".agents" / "skills", "far")
    _skill(cwd / ".agents" / "skills", "near")
    _skill(tmp_path / ".agents" / "skills", "outside")  # above the git root: not discovered
    env = env_for(None, tmp_path, offline=True)
    listing = run(OURS, ["config", "--approve"], env, cwd)
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    near, far = f"Project ({cwd / '.agents'}/)", f"Project ({repo / '.agents'}/)"
    assert lines[lines.index(near) + 1] == f"  [x] skill: {cwd / '.agents' / 'skills' / 'near' / 'SKILL.md'}"
    assert lines[lines.index(far) + 1] == f"  [x] skill: {repo / '.agents' / 'skills' / 'far' / 'SKILL.md'}"
    assert lines.index(near) < lines.index(far)
    assert "outside" not in listing.stdout
    assert _skills(OURS, env, cwd) == {"skill:near", "skill:far"}
    if UPSTREAM is not None:
        assert _skills(UPSTREAM, env, cwd) == {"skill:near", "skill:far"}

    far_skill = repo / ".agents" / "skills" / "far" / "SKILL.md"
    done = run(OURS, ["config", "--approve", "--disable", str(far_skill)], env, cwd)
    assert done.returncode == 0, done.stderr
    assert json.loads((cwd / ".pi" / "settings.json").read_text()) == {"skills": ["-skills/far/SKILL.md"]}
    assert f"  [ ] skill: {far_skill}" in run(OURS, ["config", "--approve"], env, cwd).stdout
    assert _skills(OURS, env, cwd) == {"skill:near"}
    if UPSTREAM is not None:
        assert _skills(UPSTREAM, env, cwd) == {"skill:near"}


def _prompts(argv: list[str], env: dict[str, str], cwd: Path) -> set[str]:
    commands, stderr = rpc_commands(argv, env, cwd, "--approve")
    assert "Failed" not in stderr, stderr
    return command_names(commands) & {"review", "local"}


def _both(env: dict[str, str], cwd: Path, expected: set[str]) -> None:
    assert _prompts(OURS, env, cwd) == expected
    if UPSTREAM is not None:
        assert _prompts(UPSTREAM, env, cwd) == expected


def test_project_overrides_have_three_states_written_as_upstream(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    review = write(agent / "prompts" / "review.md", "---\ndescription: Review\n---\nReview.\n")
    local = write(cwd / ".pi" / "prompts" / "local.md", "---\ndescription: Local\n---\nLocal.\n")
    env = env_for(None, tmp_path, offline=True)
    project_file = cwd / ".pi" / "settings.json"

    def config(*args: str) -> None:
        done = run(OURS, ["config", "--approve", *args], env, cwd)
        assert done.returncode == 0, done.stderr

    _both(env, cwd, {"review", "local"})
    # a global resource: the project names it by its absolute path, then decides it
    config("-l", "--disable", str(review))
    assert json.loads(project_file.read_text()) == {"prompts": [str(review), f"-{review}"]}
    _both(env, cwd, {"local"})
    config("-l", "--enable", str(review))
    assert json.loads(project_file.read_text()) == {"prompts": [str(review), f"+{review}"]}
    _both(env, cwd, {"review", "local"})
    config("-l", "--inherit", str(review))
    assert json.loads(project_file.read_text()) == {"prompts": []}
    # disabled globally: inherit leaves it out, a project load brings it back
    config("--disable", str(review))
    _both(env, cwd, {"local"})
    config("-l", "--enable", str(review))
    _both(env, cwd, {"review", "local"})
    config("-l", "--inherit", str(review))
    _both(env, cwd, {"local"})
    # the project's own resource: a pattern relative to .pi
    config("-l", "--disable", str(local))
    assert json.loads(project_file.read_text()) == {"prompts": ["-prompts/local.md"]}
    _both(env, cwd, set())
    config("-l", "--inherit", str(local))
    assert json.loads(project_file.read_text()) == {"prompts": []}
    _both(env, cwd, {"local"})
    refused = run(OURS, ["config", "--inherit", str(review)], env, cwd)
    assert refused.returncode == 1 and "use it with -l" in refused.stderr


def test_a_project_unload_of_a_global_extension_holds_in_both(tmp_path: Path) -> None:
    from tests.packages.test_config_top_level import LOOSE_TS

    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    loose = write(agent / "extensions" / "loose.ts", LOOSE_TS)
    env = env_for(None, tmp_path, offline=True)

    def names(argv: list[str]) -> set[str]:
        commands, stderr = rpc_commands(argv, env, cwd, "--approve")
        assert "Failed" not in stderr, stderr
        return command_names(commands) & {"loose-hello"}

    done = run(OURS, ["config", "--approve", "-l", "--disable", str(loose)], env, cwd)
    assert done.returncode == 0, done.stderr
    assert json.loads((cwd / ".pi" / "settings.json").read_text()) == {"extensions": [str(loose), f"-{loose}"]}
    assert names(OURS) == set()
    if UPSTREAM is not None:
        assert names(UPSTREAM) == set()
    done = run(OURS, ["config", "--approve", "-l", "--enable", str(loose)], env, cwd)
    assert done.returncode == 0, done.stderr
    assert names(OURS) == {"loose-hello"}
    if UPSTREAM is not None:
        assert names(UPSTREAM) == {"loose-hello"}


def test_a_project_override_of_a_user_package_resource_and_its_removal(tmp_path: Path) -> None:
    agent, cwd, package = tmp_path / "agent", tmp_path / "proj", tmp_path / "localpkg"
    a = write(package / "prompts" / "a.md", "---\ndescription: A\n---\nA\n")
    write(package / "prompts" / "b.md", "---\ndescription: B\n---\nB\n")
    write(agent / "settings.json", json.dumps({"packages": ["../localpkg"]}))
    env = env_for(None, tmp_path, offline=True)
    project_file = cwd / ".pi" / "settings.json"

    def names(argv: list[str]) -> set[str]:
        commands, stderr = rpc_commands(argv, env, cwd, "--approve")
        assert "Failed" not in stderr, stderr
        return command_names(commands) & {"a", "b"}

    def config(*args: str) -> None:
        done = run(OURS, ["config", "--approve", "-l", *args], env, cwd)
        assert done.returncode == 0, done.stderr

    config("--disable", str(a))
    # the delta entry names the package relative to .pi, as upstream's screen writes it
    assert json.loads(project_file.read_text()) == {
        "packages": [{"source": "../../localpkg", "autoload": False, "prompts": ["-prompts/a.md"]}]
    }
    assert names(OURS) == {"b"}
    if UPSTREAM is not None:
        assert names(UPSTREAM) == {"b"}
    config("--inherit", str(a))
    assert json.loads(project_file.read_text()) == {"packages": []}
    assert names(OURS) == {"a", "b"}
    if UPSTREAM is not None:
        assert names(UPSTREAM) == {"a", "b"}

"""Source parsing, identity and resource filters (in-process, no npm): upstream's rules for
``npm:``/``git:``/URL/local sources and the ``[]``/``!pattern``/``+path``/``-path`` filters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_rpc.packages import collect
from pi_rpc.packages.manager import PackageManager, version_satisfies
from pi_rpc.packages.sources import GitSource, LocalSource, NpmSource, PypiSource, identity, parse_source
from tests.support.package_world import write


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("npm:@scope/pkg@1.2.3", NpmSource("@scope/pkg@1.2.3", "@scope/pkg", "1.2.3", True)),
        ("npm:pkg@^1.0.0", NpmSource("pkg@^1.0.0", "pkg", "^1.0.0", False)),
        ("npm:pkg", NpmSource("pkg", "pkg", None, False)),
        (
            "git:github.com/user/repo@v1",
            GitSource("https://github.com/user/repo", "github.com", "user/repo", "v1", True),
        ),
        (
            "git:git@github.com:user/repo.git",
            GitSource("git@github.com:user/repo.git", "github.com", "user/repo", None, False),
        ),
        (
            "ssh://git@example.com:2222/team/repo.git",
            GitSource("ssh://git@example.com:2222/team/repo.git", "example.com", "team/repo", None, False),
        ),
        ("https://example.com/a/b@main", GitSource("https://example.com/a/b", "example.com", "a/b", "main", True)),
        ("pypi:Pi_Hello==0.1.0", PypiSource("Pi_Hello==0.1.0", "pi-hello", True)),
        ("./local", LocalSource("./local")),
        ("git:nohost/repo", None),  # a host needs a dot (or localhost): not a git source
    ],
)
def test_parse_source(source: str, expected: object) -> None:
    parsed = parse_source(source)
    if expected is None:
        assert not isinstance(parsed, GitSource)
    else:
        assert parsed == expected


def test_identity_ignores_version_ref_scheme_port_and_dot_git(tmp_path: Path) -> None:
    assert identity("npm:foo@1.0.0", "/x") == identity("npm:foo", "/y") == "npm:foo"
    same = {
        identity(s, "/x")
        for s in (
            "git:github.com/u/r",
            "git:github.com/u/r@v2",
            "https://github.com/u/r.git",
            "ssh://git@github.com:22/u/r",
            "git:git@github.com:u/r",
        )
    }
    assert same == {"git:github.com/u/r"}
    assert identity("../pkg", str(tmp_path / "agent")) == f"local:{tmp_path / 'pkg'}"


def test_apply_patterns_and_delta(tmp_path: Path) -> None:
    files = [str(tmp_path / p) for p in ("prompts/a.md", "prompts/b.md", "prompts/sub/c.md")]
    assert collect.apply_patterns(files, ["!prompts/b.md"], str(tmp_path)) == {files[0], files[2]}
    assert collect.apply_patterns(files, ["prompts/*.md"], str(tmp_path)) == {files[0], files[1]}
    assert collect.apply_patterns(files, ["prompts/**/*.md", "!*.md", "+prompts/a.md"], str(tmp_path)) == {files[0]}
    assert collect.apply_patterns(files, ["+prompts/a.md", "-prompts/a.md"], str(tmp_path)) == {files[1], files[2]} | {
        files[0]
    } - {files[0]}
    assert collect.delta_patterns(files, ["-prompts/b.md"], str(tmp_path)) == {files[1]: False}


def test_object_form_filters_narrow_what_the_manifest_declares(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    write(pkg / "package.json", json.dumps({"name": "p", "pi": {"prompts": ["./prompts"], "skills": ["./skills"]}}))
    write(pkg / "prompts" / "a.md", "a")
    write(pkg / "prompts" / "b.md", "b")
    write(pkg / "skills" / "s" / "SKILL.md", "---\nname: s\ndescription: s\n---\n")
    write(pkg / "themes" / "t.json", "{}")  # not in the manifest: only the object form falls back to it
    found = collect.package_resources(str(pkg), {"source": "x", "skills": [], "prompts": ["!b.md"]})
    assert found is not None
    assert [(Path(p).name, on) for p, on in found["prompts"]] == [("a.md", True), ("b.md", False)]
    assert [on for _, on in found["skills"]] == [False]
    assert [Path(p).name for p, _ in found["themes"]] == ["t.json"]
    plain = collect.package_resources(str(pkg), None)
    assert plain is not None and plain["themes"] == []


def test_settings_entries_are_stored_relative_and_replaced_by_identity(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(tmp_path / "work" / "pkg" / "prompts" / "a.md", "a")
    manager = PackageManager(cwd=str(tmp_path / "work"), agent_dir=str(agent), project_trusted=True)
    manager.install_and_persist("./pkg")
    assert (agent / "settings.json").read_text() == '{\n  "packages": [\n    "../work/pkg"\n  ]\n}'
    assert manager.add_to_settings("npm:foo", "user")
    assert manager.add_to_settings("npm:foo@2.0.0", "user")
    assert json.loads((agent / "settings.json").read_text()) == {"packages": ["../work/pkg", "npm:foo@2.0.0"]}
    assert manager.remove_from_settings(str(tmp_path / "work" / "pkg"), "user")
    assert json.loads((agent / "settings.json").read_text()) == {"packages": ["npm:foo@2.0.0"]}


@pytest.mark.parametrize(
    ("version", "spec", "ok"),
    [
        ("1.2.3", "1.2.3", True),
        ("1.2.4", "1.2.3", False),
        ("1.9.0", "^1.2.0", True),
        ("2.0.0", "^1.2.0", False),
        ("0.2.5", "^0.2.1", True),
        ("0.3.0", "^0.2.1", False),
        ("1.2.9", "~1.2.0", True),
        ("1.3.0", "~1.2.0", False),
        ("1.4.0", "1.x", True),
        ("2.0.0", "1.x", False),
    ],
)
def test_version_ranges_checked_at_startup(version: str, spec: str, ok: bool) -> None:
    assert version_satisfies(version, spec) is ok

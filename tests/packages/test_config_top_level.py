"""``pi config`` lists and toggles every discovered resource, as upstream's does: besides the
packages' resources, the loose extensions, skills, prompt templates and themes of the
conventional folders, the files the settings name, and the built-in extensions, grouped under
upstream's labels (``User (<agentDir>/)``, ``User settings``, ``Built-in`` …). A toggle writes the
``-pattern``/``+pattern`` entry upstream's screen writes (the path relative to the folder's base,
``builtin:<name>`` for a built-in), and both programs then leave the resource out — or load it
again — the same way (``get_commands`` of ``--mode rpc``, side by side with upstream pi 1.6)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.package_world import OURS, UPSTREAM, command_names, env_for, rpc_commands, run, write

LOOSE_TS = """
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
export default function (pi: ExtensionAPI) {
  pi.registerCommand("loose-hello", { description: "a loose extension", handler: async () => {} });
}
"""


def _world(root: Path) -> Path:
    agent = root / "agent"
    write(agent / "extensions" / "loose.ts", LOOSE_TS)
    write(agent / "skills" / "tidy" / "SKILL.md", "---\nname: tidy\ndescription: Tidy up\n---\nTidy.\n")
    write(agent / "prompts" / "review.md", "---\ndescription: Review\n---\nReview this.\n")
    write(root / "more" / "named.md", "---\ndescription: Named\n---\nNamed.\n")
    write(agent / "settings.json", json.dumps({"prompts": ["../more/named.md"]}, indent=2))
    return agent


def _names(argv: list[str], env: dict[str, str], cwd: Path) -> set[str]:
    commands, stderr = rpc_commands(argv, env, cwd)
    assert "Failed" not in stderr, stderr
    return command_names(commands) & {"loose-hello", "skill:tidy", "review", "named"}


def test_config_lists_and_toggles_top_level_resources_as_upstream(tmp_path: Path) -> None:
    agent = _world(tmp_path)
    env = env_for(None, tmp_path, offline=True)
    cwd = tmp_path / "cwd"
    listing = run(OURS, ["config"], env, cwd)
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    user_group = f"User ({agent}/)"
    assert lines[lines.index(user_group) + 1 : lines.index(user_group) + 4] == [
        f"  [x] extension: {agent / 'extensions' / 'loose.ts'}",
        f"  [x] skill: {agent / 'skills' / 'tidy' / 'SKILL.md'}",
        f"  [x] prompt: {agent / 'prompts' / 'review.md'}",
    ]
    assert f"  [x] prompt: {tmp_path / 'more' / 'named.md'}" in lines[lines.index("User settings") :]
    assert "  [x] extension: builtin:mcp" in lines[lines.index("Built-in") :]
    everything = {"loose-hello", "skill:tidy", "review", "named"}
    assert _names(OURS, env, cwd) == everything

    for path in (agent / "extensions" / "loose.ts", agent / "prompts" / "review.md", tmp_path / "more" / "named.md"):
        done = run(OURS, ["config", "--disable", str(path)], env, cwd)
        assert done.returncode == 0, done.stderr
    done = run(OURS, ["config", "--disable", "builtin:mcp"], env, cwd)
    assert done.returncode == 0, done.stderr
    assert json.loads((agent / "settings.json").read_text()) == {
        # upstream's toggle drops every entry naming the file, its plain entry too
        "prompts": ["-prompts/review.md", "-../more/named.md"],
        "extensions": ["-extensions/loose.ts", "-builtin:mcp"],
    }
    listing = run(OURS, ["config"], env, cwd)
    assert f"  [ ] extension: {agent / 'extensions' / 'loose.ts'}" in listing.stdout
    assert "  [ ] extension: builtin:mcp" in listing.stdout
    assert _names(OURS, env, cwd) == {"skill:tidy"}
    if UPSTREAM is not None:
        assert _names(UPSTREAM, env, cwd) == {"skill:tidy"}

    done = run(OURS, ["config", "--enable", str(agent / "extensions" / "loose.ts")], env, cwd)
    assert done.returncode == 0, done.stderr
    assert json.loads((agent / "settings.json").read_text())["extensions"] == ["-builtin:mcp", "+extensions/loose.ts"]
    assert _names(OURS, env, cwd) == {"skill:tidy", "loose-hello"}
    if UPSTREAM is not None:
        assert _names(UPSTREAM, env, cwd) == {"skill:tidy", "loose-hello"}

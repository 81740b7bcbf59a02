"""``pi config``'s screen side by side with upstream pi 1.6's in a real terminal (tmux): the same
world (a local package with a skill and two prompts, a user prompt, a project prompt), the same
keys (Tab to the project mode, Space cycling a package prompt through unload, load and inherit,
a search, Tab back, Space turning a prompt off globally), and after each key the same screen —
the text and each character's colour and attributes — and the same settings written.

Upstream also lists its built-in ``llama.cpp`` extension, which pi_rpc does not offer (§8.13):
that line is left out of upstream's screens; the terminal is tall enough that nothing scrolls,
so no other line moves."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.package_world import OURS, UPSTREAM, write
from tests.support.pi_process import isolated_env

pytestmark = [
    pytest.mark.skipif(UPSTREAM is None, reason="upstream pi 1.6 not installed"),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="no tmux"),
]

KEYS: list[tuple[str, ...]] = [
    (),
    ("Tab",),
    ("Down", "Space"),
    ("Space",),
    ("Space",),
    ("-l", "rev"),
    ("BSpace", "BSpace", "BSpace"),
    ("Tab",),
    ("Down", "Space"),
]
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def _world(root: Path) -> Path:
    agent, cwd, package = root / "agent", root / "proj", root / "localpkg"
    write(package / "prompts" / "a.md", "---\ndescription: A\n---\nA\n")
    write(package / "prompts" / "b.md", "---\ndescription: B\n---\nB\n")
    write(package / "skills" / "s" / "SKILL.md", "---\nname: s\ndescription: S\n---\nS\n")
    write(agent / "settings.json", json.dumps({"packages": ["../localpkg"]}))
    write(agent / "prompts" / "review.md", "---\ndescription: Review\n---\nReview\n")
    write(cwd / ".pi" / "prompts" / "local.md", "---\ndescription: Local\n---\nLocal\n")
    write(cwd / ".pi" / "settings.json", "{}")
    return cwd


def _cells(screen: str) -> list[list[tuple[Any, ...]]]:
    """Each line's characters with their colour and attributes (tmux writes a palette colour
    either as ``3N`` or ``38;5;N``: both are colour N); a space keeps only reverse video (the
    programs reset attributes at different places after the text)."""
    lines = []
    for line in screen.splitlines():
        bold = dim = reverse = False
        fg: object = None
        out: list[tuple[Any, ...]] = []
        pos = 0
        for match in [*SGR.finditer(line), None]:
            text = line[pos : match.start() if match else len(line)]
            out.extend(((" ", reverse) if ch == " " else (ch, bold, dim, reverse, fg)) for ch in text)
            if match is None:
                break
            pos = match.end()
            params = [int(p) if p else 0 for p in match.group(1).split(";")]
            while params:
                code = params.pop(0)
                if code == 0:
                    bold = dim = reverse = False
                    fg = None
                elif code in (1, 2, 7):
                    bold, dim, reverse = bold or code == 1, dim or code == 2, reverse or code == 7
                elif code == 22:
                    bold = dim = False
                elif code == 27:
                    reverse = False
                elif code == 39:
                    fg = None
                elif 30 <= code <= 37 or 90 <= code <= 97:
                    fg = code - 30 if code < 90 else code - 82
                elif code == 38 and params[:1] == [5]:
                    fg = params[1]
                    params = params[2:]
                elif code == 38 and params[:1] == [2]:
                    fg = tuple(params[1:4])
                    params = params[4:]
        while out and out[-1] == (" ", False):
            out.pop()
        lines.append(out)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _drive(argv: list[str], root: Path) -> dict[str, Any]:
    cwd = _world(root)
    env = isolated_env(root)
    name = f"pi-config-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", name, "-f", "/dev/null"]
    keep = ("HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE", "PI_SKIP_VERSION_CHECK", "PI_TELEMETRY", "PYTHONPATH", "PATH")
    command = "unset COLUMNS LINES; exec " + shlex.join([*argv, "config", "--approve"])
    env_args = [arg for key in keep for arg in ("-e", f"{key}={env[key]}")]
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", name, "-x", "100", "-y", "40", "-c", str(cwd), *env_args, command],
        check=True,
        # The tmux server (a new one per socket) starts from this environment and not the
        # test's: under CI=true upstream's screen drops its bold title.
        env={key: env[key] for key in keep},
    )

    def capture() -> str:
        done = subprocess.run([*tmux, "capture-pane", "-p", "-e", "-t", name], capture_output=True, text=True)
        return done.stdout

    screens: list[str] = []
    try:
        previous = ""
        for keys in KEYS:
            if keys:
                subprocess.run([*tmux, "send-keys", "-t", name, *keys], check=True)
            # the screen after the key: changed, then unchanged for a moment
            deadline, last, stable_since = time.monotonic() + 30, capture(), time.monotonic()
            while time.monotonic() < deadline:
                time.sleep(0.1)
                now = capture()
                if now != last:
                    last, stable_since = now, time.monotonic()
                elif now != previous and "Resources" in now and time.monotonic() - stable_since > 0.6:
                    break
            previous = last
            screens.append(last)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    return {
        "screens": screens,
        "project": json.loads((cwd / ".pi" / "settings.json").read_text()),
        "global": json.loads((root / "agent" / "settings.json").read_text()),
    }


def test_the_config_screen_is_upstreams(tmp_path: Path) -> None:
    assert UPSTREAM is not None
    # the same absolute paths in both runs: the group labels name the folders
    root = tmp_path / "w"
    theirs = _drive(UPSTREAM, root)
    shutil.rmtree(root)
    ours = _drive(OURS, root)
    assert ours["project"] == theirs["project"] == {"packages": []}
    assert ours["global"] == theirs["global"]
    assert theirs["global"] == {"packages": [{"source": "../localpkg", "prompts": ["-prompts/a.md"]}]}
    for step, (mine, upstream) in enumerate(zip(ours["screens"], theirs["screens"], strict=True)):
        upstream = "\n".join(line for line in upstream.splitlines() if "llama.cpp" not in line)
        plain_mine, plain_upstream = SGR.sub("", mine).rstrip(), SGR.sub("", upstream).rstrip()
        assert plain_mine == plain_upstream, (step, KEYS[step])
        assert _cells(mine) == _cells(upstream), (step, KEYS[step])
    # the marks the steps went through (project mode: unload, load, inherit; global: off)
    text = [SGR.sub("", screen) for screen in ours["screens"]]
    assert ">     [-] a.md  project unload" in text[2]
    assert ">     [+] a.md  project load" in text[3]
    assert ">     [x] a.md  inherited global" in text[4]
    assert ">     [ ] a.md" in text[8]

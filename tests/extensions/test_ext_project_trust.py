"""``project_trust``: extensions loaded without trust decide whether the project is trusted,
before its settings, resources and extensions load (upstream 1.6). The first yes/no wins,
``remember`` writes ``trust.json``, a raising handler is reported on stderr and the next one
decides, the project's own extensions never take part, dialogs return their defaults and
``notify`` goes to stderr. Compared with upstream running ``trust.ts`` when it is installed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .ext_upstream import OURS, UPSTREAM, UPSTREAM_AVAILABLE, Run, drive

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "extensions"
PROJECT_EXT_PY = """
def setup(pi):
    @pi.on("project_trust")
    async def project_trust(event, ctx):
        import sys
        print("PROJECT EXTENSION RAN project_trust", file=sys.stderr)
        return {"trusted": "no"}

    pi.register_command("projcmd", {"handler": lambda args, ctx: None})
"""
PROJECT_EXT_TS = """
export default function (pi: any) {
  pi.on("project_trust", async () => { console.error("PROJECT EXTENSION RAN project_trust"); return { trusted: "no" }; });
  pi.registerCommand("projcmd", { handler: async () => {} });
}
"""


def _run(
    argv: list[str], root: Path, ext: Path, env: dict[str, str], extra: tuple[str, ...] = ()
) -> tuple[Run, list[str], list[str]]:
    project_ext = PROJECT_EXT_TS if ext.suffix == ".ts" else PROJECT_EXT_PY
    files = {
        "cwd/.pi/prompts/projtpl.md": "A project template\n",
        f"cwd/.pi/extensions/project{ext.suffix}": project_ext,
    }
    run = drive(
        argv,
        root,
        [],
        [{"cmd": {"id": "c", "type": "get_commands"}}],
        args=("--no-session", "-e", str(ext), *extra),
        files=files,
        env=env,
    )
    commands = next(r for r in run.records if r.get("id") == "c")["data"]["commands"]
    names = [c["name"] for c in commands if c["name"] != "llama"]  # upstream's llama.cpp (§8.13)
    stderr = [
        line
        for line in run.stderr.splitlines()
        if line.strip() and "No models available" not in line and not line.startswith("  ")
    ]
    return run, names, stderr


CASES = {
    # decision env -> (trusted, stderr lines after trust1's notify)
    "undecided": (True, ["trust2 ran"]),
    "yes": (True, []),
    "no": (False, []),
    "boom": (True, ["trust2 ran", 'Warning: Extension "<EXT>" project_trust error: trust handler broke']),
}


@pytest.mark.parametrize("decision", list(CASES))
def test_project_trust_decides_before_the_project_loads(tmp_path: Path, decision: str) -> None:
    ext = FIXTURES / "trust.py"
    run, names, stderr = _run(OURS, tmp_path, ext, {"TRUST_DECISION": decision})
    trusted, after = CASES[decision]
    cwd = (tmp_path / "cwd").resolve()
    assert stderr == [
        f"trust1 cwd={cwd} keys=cwd,type mode=rpc hasUI=false confirm=false",
        *[line.replace("<EXT>", str(ext)) for line in after],
    ]
    assert run.ui() == [f"session_start trusted={str(trusted).lower()}"]
    assert names == (["projcmd", "mcp", "projtpl"] if trusted else ["mcp"])
    assert not (tmp_path / "agent" / "trust.json").exists()


def test_remembered_decision_and_overrides(tmp_path: Path) -> None:
    ext = FIXTURES / "trust.py"
    _run(OURS, tmp_path / "a", ext, {"TRUST_DECISION": "yes", "TRUST_REMEMBER": "1"})
    saved = json.loads((tmp_path / "a" / "agent" / "trust.json").read_text())
    assert saved == {str((tmp_path / "a" / "cwd").resolve()): True}
    # -a / -na decide without asking the extensions.
    for flag, trusted in (("-na", False), ("-a", True)):
        run, names, stderr = _run(OURS, tmp_path / flag, ext, {"TRUST_DECISION": "no"}, (flag,))
        assert not any(line.startswith("trust1") for line in stderr)
        assert run.ui() == [f"session_start trusted={str(trusted).lower()}"]


@pytest.mark.skipif(not UPSTREAM_AVAILABLE, reason="upstream pi 1.6 not installed")
def test_project_trust_as_upstream(tmp_path: Path) -> None:
    for decision in ("undecided", "no", "boom"):
        py, ts = FIXTURES / "trust.py", FIXTURES / "trust.ts"
        ours_run, ours_names, ours_err = _run(OURS, tmp_path / f"ours-{decision}", py, {"TRUST_DECISION": decision})
        up_run, up_names, up_err = _run(UPSTREAM, tmp_path / f"up-{decision}", ts, {"TRUST_DECISION": decision})
        assert ours_names == up_names
        assert ours_run.ui() == up_run.ui()

        def norm(lines: list[str], root: Path, ext: Path) -> list[str]:
            return [line.replace(str((root / "cwd").resolve()), "<CWD>").replace(str(ext), "<EXT>") for line in lines]

        assert norm(ours_err, tmp_path / f"ours-{decision}", py) == norm(up_err, tmp_path / f"up-{decision}", ts)

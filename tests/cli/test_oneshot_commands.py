"""`pi --list-models [search]` and `pi --export <session> [out]` as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pi_rpc.modes.commands import format_token_count

ROOT = Path(__file__).resolve().parents[2]
FIXTURE_SESSIONS = ROOT / "tests" / "fixtures" / "pi-oracle"


def run_pi(args: list[str], agent_dir: Path, cwd: Path, faux: bool = True) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "PI_CODING_AGENT_DIR": str(agent_dir), "PYTHONPATH": str(ROOT)}
    if faux:
        env["PI_FAUX_SCRIPT"] = os.devnull  # opt in to the offline faux provider
    return subprocess.run(
        [sys.executable, "-m", "pi_rpc", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60
    )


def test_format_token_count_like_upstream() -> None:
    assert [format_token_count(n) for n in (512, 4096, 128000, 200000, 1_000_000, 1_500_000)] == [
        "512",
        "4.1K",
        "128K",
        "200K",
        "1M",
        "1.5M",
    ]


def test_list_models_table_and_search(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "local": {
                        "baseUrl": "http://127.0.0.1:9/v1",
                        "api": "openai-completions",
                        "apiKey": "k",
                        "models": [{"id": "coder-7b", "contextWindow": 32768, "maxTokens": 4096, "reasoning": True}],
                    }
                }
            }
        )
    )
    result = run_pi(["--list-models"], agent, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["provider", "model", "context", "max-out", "thinking", "images"]
    rows = [line.split() for line in lines[1:]]
    assert ["local", "coder-7b", "32.8K", "4.1K", "yes", "no"] in rows
    assert ["faux", "faux-1", "128K", "16.4K", "no", "yes"] in rows
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)  # sorted by provider
    found = run_pi(["--list-models", "coder"], agent, tmp_path)
    assert [line.split()[1] for line in found.stdout.splitlines()[1:]] == ["coder-7b"]
    none = run_pi(["--list-models", "zzzz"], agent, tmp_path)
    assert none.stdout.strip() == 'No models matching "zzzz"'


def test_list_models_without_faux_or_providers_says_so_like_upstream(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    empty = run_pi(["--list-models"], agent, tmp_path, faux=False)
    assert empty.returncode == 0
    assert empty.stdout.startswith("No models available. ") and "faux" not in empty.stdout.split(".")[0]
    assert empty.stderr.startswith("Warning: No models available. ")
    opted = run_pi(["--list-models", "--faux-script", os.devnull], agent, tmp_path, faux=False)
    assert [line.split()[:2] for line in opted.stdout.splitlines()[1:]] == [
        ["faux", "faux-1"],
        ["faux", "faux-reasoner"],
    ]


def test_export_writes_a_self_contained_page(tmp_path: Path) -> None:
    session = next(iter(sorted((FIXTURE_SESSIONS / "b_text.sessions").glob("*.jsonl"))))
    out = tmp_path / "page.html"
    result = run_pi(["--export", str(session), str(out)], tmp_path / "agent", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"Exported to: {out}"
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "</html>" in page
    assert "<script src" not in page and "<link" not in page  # no external assets
    assert "pi-session-entries" in page
    # default name in the cwd, like upstream
    default = run_pi(["--export", str(session)], tmp_path / "agent", tmp_path)
    assert default.returncode == 0
    assert (tmp_path / f"pi-session-{session.stem}.html").exists()
    missing = run_pi(["--export", str(tmp_path / "nope.jsonl")], tmp_path / "agent", tmp_path)
    assert missing.returncode == 1 and "File not found" in missing.stderr


def test_bad_faux_script_is_a_clear_startup_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    for mode_args in (["--mode", "rpc"], ["-p", "hi"]):
        result = run_pi([*mode_args, "--no-session", "--faux-script", str(bad)], tmp_path / "agent", tmp_path)
        assert result.returncode == 1
        assert f"Faux script {bad}: not JSON or JSONL" in result.stderr
    missing = run_pi(["--mode", "rpc", "--faux-script", str(tmp_path / "nope.json")], tmp_path / "agent", tmp_path)
    assert missing.returncode == 1 and "cannot read it" in missing.stderr

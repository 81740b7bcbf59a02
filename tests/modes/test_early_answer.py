"""The first ``get_state`` answered before the runtime is built (``pi_rpc/modes/rpc/early.py``):
the same bytes as the runtime's answer, nothing of the runtime imported to give it, and only
when nothing could make the two differ."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.config.cli_args import parse_args
from pi_rpc.modes.wire.jsonout import dumps_line
from pi_rpc.runtime.factory import build_runtime_options
from pi_rpc.runtime.queries import initial_state

CUSTOM_MODELS = {
    "providers": {
        "local": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "k",
            "models": [
                {"id": "plain", "contextWindow": 64000, "maxTokens": 4096, "cost": {"input": 0.5, "output": 1.5}},
                {"id": "thinker", "reasoning": True, "contextWindow": 64000, "maxTokens": 4096},
            ],
        }
    }
}

# (command line, settings.json, models.json, extra environment)
CASES: dict[str, tuple[list[str], dict[str, Any] | None, dict[str, Any] | None, dict[str, str]]] = {
    "nothing configured": (["--no-session"], None, None, {}),
    "faux, in memory": (["--no-session"], None, None, {"PI_FAUX_SCRIPT": os.devnull}),
    "faux reasoner, thinking high": (
        ["--no-session", "--model", "faux/faux-reasoner", "--thinking", "high"],
        None,
        None,
        {},
    ),
    "session file in the default dir": ([], None, CUSTOM_MODELS, {}),
    "session dir and id": (["--session-dir", "sessions", "--session-id", "abc-123"], None, CUSTOM_MODELS, {}),
    "new --session path": (["--session", "new.jsonl"], None, CUSTOM_MODELS, {}),
    "settings: modes, compaction, default model and level": (
        ["--no-session"],
        {
            "steeringMode": "all",
            "followUpMode": "whatever-was-stored",
            "compaction": {"enabled": False},
            "defaultProvider": "local",
            "defaultModel": "thinker",
            "defaultThinkingLevel": "xhigh",
        },
        CUSTOM_MODELS,
        {},
    ),
    "model pattern with level, clamped": (["--no-session", "--model", "local/plain:high"], None, CUSTOM_MODELS, {}),
    "models.json fails to parse": (["--no-session"], None, {"providers": "nope"}, {}),
}


def _prepare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any, models: Any, env: dict[str, str]) -> None:
    agent = tmp_path / "agent"
    cwd = tmp_path / "cwd"
    agent.mkdir()
    cwd.mkdir()
    if settings is not None:
        (agent / "settings.json").write_text(json.dumps(settings))
    if models is not None:
        (agent / "models.json").write_text(json.dumps(models))
    for key in [k for k in os.environ if k.startswith("PI_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.setenv("PI_OFFLINE", "1")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(cwd)


@pytest.mark.parametrize("case", list(CASES))
def test_initial_state_is_the_runtimes_get_state(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_rpc.runtime.session import AgentSession

    argv, settings, models, env = CASES[case]
    _prepare(tmp_path, monkeypatch, settings, models, env)
    options = build_runtime_options(parse_args(["--mode", "rpc", *argv]))
    early = dumps_line(initial_state(options))
    session = AgentSession(options)
    try:
        assert dumps_line(session.get_state()) == early
    finally:
        session.session.close()


def test_initial_state_refuses_a_session_with_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_rpc.modes.rpc.early import can_answer_early

    _prepare(tmp_path, monkeypatch, None, None, {"PI_FAUX_SCRIPT": os.devnull})
    args = parse_args(["--mode", "rpc", "--no-session"])
    options = build_runtime_options(args)
    options.session.append_thinking_level_change("off")
    read, write = os.pipe()
    try:
        assert can_answer_early(args, options, read) is False
        with pytest.raises(ValueError):
            initial_state(options)
    finally:
        os.close(read)
        os.close(write)


def test_when_the_early_answer_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_rpc.modes.rpc.early import can_answer_early

    _prepare(tmp_path, monkeypatch, None, None, {"PI_FAUX_SCRIPT": os.devnull})
    read, write = os.pipe()
    regular = tmp_path / "input.jsonl"
    regular.write_text("")
    try:
        plain = parse_args(["--mode", "rpc", "--no-session"])
        assert can_answer_early(plain, build_runtime_options(plain), read) is True
        with open(regular, "rb") as fh:  # stdin from a file: the server reads it all
            assert can_answer_early(plain, build_runtime_options(plain), fh.fileno()) is False
        named = parse_args(["--mode", "rpc", "--no-session", "--name", "x"])  # named at server start
        assert can_answer_early(named, build_runtime_options(named), read) is False
        ext = tmp_path / "noop.py"
        ext.write_text("def setup(pi):\n    pass\n")
        extended = parse_args(["--mode", "rpc", "--no-session", "-e", str(ext)])  # session_start first
        assert can_answer_early(extended, build_runtime_options(extended), read) is False
    finally:
        os.close(read)
        os.close(write)


# Everything the runtime needs and the first answer must not wait for.
RUNTIME_MODULES = (
    "asyncio",
    "anyio",
    "httpx",
    "pydantic",
    "jsonschema",
    "pathspec",
    "yaml",
    "PIL",
    "mcp",
    "pi_rpc.agent",
    "pi_rpc.tools",
    "pi_rpc.runtime.session",
    "pi_rpc.resources",
    "pi_rpc.compaction",
    "pi_rpc.extensions.runner",
    "pi_rpc.ai.providers.openai_completions",
)

PROBE = """
import json, os, sys
from pi_rpc.config.cli_args import parse_args
from pi_rpc.modes.rpc.main import start_early
stdin_r, stdin_w = os.pipe()
out_r, out_w = os.pipe()
os.write(stdin_w, sys.argv[1].encode())
options, so_far = start_early(parse_args(["--mode", "rpc", "--no-session"]), out_w, input_fd=stdin_r)
os.close(out_w)
prefixes = tuple(sys.argv[2:])
print(json.dumps({
    "out": os.read(out_r, 1 << 20).decode(),
    "unanswered": [f.decode() for f in so_far.frames] if so_far else None,
    "partial": so_far.framer.buffered if so_far else None,
    "runtime_modules": sorted(m for m in sys.modules if m == "mcp" or m.startswith(prefixes)),
}))
"""


def _probe(pi_environ: Any, tmp_path: Path, stdin: bytes) -> dict[str, Any]:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, stdin.decode(), *RUNTIME_MODULES],
        capture_output=True,
        env=pi_environ(),
        cwd=tmp_path,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr.decode()
    return json.loads(run.stdout)


def test_waiting_get_state_is_answered_before_the_runtime_is_imported(pi_environ: Any, tmp_path: Path) -> None:
    probe = _probe(
        pi_environ,
        tmp_path,
        b'{"id":1,"type":"get_state"}\n{"type":"get_state","extra":[1]}\n'
        b'{"id":"c","type":"get_commands"}\n{"id":3,"type":"get_state"}\n{"id":"par',
    )
    lines = probe["out"].splitlines()
    assert [json.loads(line).get("id", "-") for line in lines] == [1, "-"]
    assert all(json.loads(line)["success"] for line in lines)
    # From the first other command on, everything is left to the server, in order.
    assert probe["unanswered"] == ['{"id":"c","type":"get_commands"}', '{"id":3,"type":"get_state"}']
    assert probe["partial"] == len(b'{"id":"par')
    assert probe["runtime_modules"] == []


def test_nothing_waiting_reads_nothing(pi_environ: Any, tmp_path: Path) -> None:
    probe = _probe(pi_environ, tmp_path, b"")
    assert probe["out"] == "" and probe["unanswered"] is None


def test_early_and_runtime_answers_are_the_same_bytes(spawn_pi: Any) -> None:
    for argv in (["--no-session"], [], ["--thinking", "high", "--model", "faux/faux-reasoner"]):
        proc = spawn_pi(*argv)
        # One write before the process is up: the first get_state is waiting when it looks.
        proc.write(
            b'{"id":"a","type":"get_state"}\n{"id":"x","type":"get_available_thinking_levels"}\n'
            b'{"id":"b","type":"get_state"}\n'
        )
        lines = [proc.read_line() for _ in range(3)]
        assert lines[0] is not None and lines[2] is not None
        assert lines[0].replace(b'"id":"a"', b'"id":"b"', 1) == lines[2]
        proc.close_stdin()
        assert proc.wait() == 0


TRUST_PROBE = """
import json, os, sys
from pi_rpc.config.cli_args import parse_args
from pi_rpc.modes.rpc.main import start_early
from pi_rpc.runtime.options import RuntimeOptions
stdin_r, stdin_w = os.pipe()
out_r, out_w = os.pipe()
os.write(stdin_w, b'{"id":1,"type":"get_state"}\\n')
started, so_far = start_early(parse_args(["--mode", "rpc", "--no-session", *sys.argv[1:]]), out_w, input_fd=stdin_r)
os.close(out_w)
os.close(stdin_w)
print(json.dumps({
    "options": isinstance(started, RuntimeOptions),
    "out": os.read(out_r, 1 << 20).decode(),
    "left_on_stdin": os.read(stdin_r, 1 << 20).decode(),
}))
"""


def test_no_early_answer_while_extensions_must_decide_project_trust(pi_environ: Any, tmp_path: Path) -> None:
    # A project resource that needs trust, and an extension that loads without it: its
    # project_trust handler runs (in the event loop) before the options exist.
    (tmp_path / ".pi" / "prompts").mkdir(parents=True)
    (tmp_path / ".pi" / "prompts" / "t.md").write_text("A template\n")
    ext = tmp_path / "trusting.py"
    ext.write_text("def setup(pi):\n    pass\n")

    def probe(*argv: str) -> dict[str, Any]:
        run = subprocess.run(
            [sys.executable, "-c", TRUST_PROBE, *argv], capture_output=True, env=pi_environ(), cwd=tmp_path, timeout=60
        )
        assert run.returncode == 0, run.stderr.decode()
        return json.loads(run.stdout)

    pending = probe("-e", str(ext))
    assert pending == {"options": False, "out": "", "left_on_stdin": '{"id":1,"type":"get_state"}\n'}
    # Trust given on the command line: nothing to decide; the extension still rules out the
    # early answer (its session_start runs first), so stdin is left to the server.
    decided = probe("-e", str(ext), "-na")
    assert decided == {"options": True, "out": "", "left_on_stdin": '{"id":1,"type":"get_state"}\n'}
    # Only the built-ins (no project_trust handler): answered early.
    plain = probe()
    assert plain["options"] is True and plain["left_on_stdin"] == ""
    assert json.loads(plain["out"])["id"] == 1


def test_signals_before_the_server_exits_with_its_codes(tmp_path: Path) -> None:
    code = (
        "import os, signal, sys, time\n"
        "from pi_rpc.modes.rpc.early import exit_on_signals\n"
        "exit_on_signals()\n"
        "os.kill(os.getpid(), getattr(signal, sys.argv[1]))\n"
        "time.sleep(30)\n"
    )
    for name, expected in (("SIGTERM", 143), ("SIGHUP", 129)):
        run = subprocess.run([sys.executable, "-c", code, name], cwd=tmp_path, timeout=60)
        assert run.returncode == expected

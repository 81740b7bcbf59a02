"""Run limits and structured output on the real subprocess with the faux model: ``prompt
{limits}`` of each kind (``agent_end.limit``), ``prompt {outputSchema}`` (``agent_end.output`` /
``outputError``, at most two corrections), and print mode's exit codes and output."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.pi_process import PiProcess, isolated_env

BASH = {"name": "bash", "arguments": {"command": "echo hi"}}
LOOP = [{"text": f"step {i}", "toolCalls": [BASH]} for i in range(6)] + [{"text": "done"}]
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
HOST = {"name": "wait_here", "description": "Waits for the client.", "parameters": {"type": "object"}}


def _last_agent_end(proc: PiProcess, start: int) -> dict[str, Any]:
    proc.settle(start)
    return [r for r in proc.since(start) if r.get("type") == "agent_end"][-1]


def _roles(proc: PiProcess) -> list[str]:
    return [m["role"] for m in proc.ok("get_messages")["messages"] if m["role"] != "system"]


@pytest.mark.parametrize(
    ("limits", "kind", "used"),
    [
        ({"maxTurns": 2}, "maxTurns", 2),
        ({"maxToolCalls": 3}, "maxToolCalls", 3),
        ({"maxOutputTokens": 10}, "maxOutputTokens", None),
    ],
)
def test_each_count_limit_ends_the_run_cleanly(
    pi: Callable[..., PiProcess], limits: dict[str, Any], kind: str, used: int | None
) -> None:
    proc = pi(script=LOOP)
    mark = proc.mark()
    proc.ok("prompt", message="go", limits=limits)
    end = _last_agent_end(proc, mark)
    assert end["limit"]["kind"] == kind and end["limit"]["limit"] == limits[kind]
    if used is not None:
        assert end["limit"]["used"] == used
    else:
        assert end["limit"]["used"] >= limits[kind]
    roles = _roles(proc)
    # Every turn's assistant message and tool results are on record; no further turn ran.
    assert roles[0] == "user" and roles[-1] == "toolResult"
    assert proc.ok("get_messages")["messages"] == end["messages"]
    if kind == "maxTurns":
        assert roles.count("assistant") == 2
    if kind == "maxToolCalls":
        # One call per turn: the 4th is blocked with the reason, and that turn is the last.
        results = [m for m in proc.ok("get_messages")["messages"] if m["role"] == "toolResult"]
        assert [r["isError"] for r in results] == [False, False, False, True]
        assert results[-1]["content"][0]["text"] == "Not run: the run's tool call limit (maxToolCalls 3) was reached"
    # The next prompt runs unbounded.
    mark = proc.mark()
    proc.ok("prompt", message="again")
    assert "limit" not in _last_agent_end(proc, mark)


def test_cost_limit(pi: Callable[..., PiProcess]) -> None:
    models = {"providers": {"faux": {"modelOverrides": {"faux-1": {"cost": {"input": 1000, "output": 1000}}}}}}
    proc = pi(script=LOOP, models=models)
    mark = proc.mark()
    proc.ok("prompt", message="go", limits={"maxCostUsd": 0.5})
    end = _last_agent_end(proc, mark)
    assert end["limit"]["kind"] == "maxCostUsd" and end["limit"]["used"] >= 0.5
    assert _roles(proc).count("assistant") == 2  # each response costs about 0.44 USD


def test_timeout_cancels_pending_tools(pi: Callable[..., PiProcess]) -> None:
    proc = pi(script=[{"text": "x", "toolCalls": [{"name": "wait_here", "arguments": {}}]}])
    proc.ok("set_host_tools", tools=[HOST])
    mark = proc.mark()
    proc.ok("prompt", message="go", limits={"timeoutMs": 400})
    request = proc.wait_for("host_tool_request")
    assert proc.wait_for("host_tool_cancelled")["id"] == request["id"]
    end = _last_agent_end(proc, mark)
    assert end["limit"]["kind"] == "timeoutMs" and end["limit"]["used"] >= 400
    results = [m for m in proc.ok("get_messages")["messages"] if m["role"] == "toolResult"]
    assert results[-1]["isError"] is True and results[-1]["content"][0]["text"] == "Operation aborted"


def test_limits_are_checked(pi: Callable[..., PiProcess]) -> None:
    proc = pi()
    for limits, error in [
        ({"maxTurns": 0}, '"limits.maxTurns" must be a positive number'),
        ({"maxTurns": 1.5}, '"limits.maxTurns" must be a positive integer'),
        ({"maxFoo": 1}, '"limits.maxFoo" is not a limit'),
        ([], '"limits" must be an object'),
    ]:
        response = proc.cmd("prompt", message="x", limits=limits)
        assert response["success"] is False and error in response["error"], response
    response = proc.cmd("prompt", message="x", outputSchema={"type": 5})
    assert response["success"] is False and '"outputSchema" is not a valid JSON Schema' in response["error"]
    response = proc.cmd("steer", message="x", limits={"maxTurns": 2})
    assert response["error"] == '"limits" apply to a running run, and none is running'


def test_steer_changes_the_running_runs_limits(pi: Callable[..., PiProcess]) -> None:
    slow = [{**turn, "delayMs": 30} for turn in LOOP]
    proc = pi(script=slow)
    mark = proc.mark()
    proc.ok("prompt", message="go", limits={"maxTurns": 50})
    proc.wait_for("turn_start")
    proc.ok("follow_up", message="later", limits={"maxTurns": 1})
    end = _last_agent_end(proc, mark)
    assert end["limit"] == {"kind": "maxTurns", "limit": 1, "used": 1}


STRUCTURED = [
    (['{"n": 1}'], {"n": 1}, 0),
    (["nope", '```json\n{"n": 2}\n```'], {"n": 2}, 1),
    (["nope", '{"n": "x"}', "[]"], None, 2),
]


def test_structured_output(pi: Callable[..., PiProcess]) -> None:
    # Valid the first time, after one correction, never (the fourth answer is not asked for).
    proc = pi(script=[{"text": text} for answers, _, _ in STRUCTURED for text in answers] + [{"text": '{"n": 9}'}])
    for answers, output, corrections in STRUCTURED:
        mark = proc.mark()
        proc.ok("prompt", message="give n", outputSchema=SCHEMA)
        end = _last_agent_end(proc, mark)
        assert len([r for r in proc.since(mark) if r.get("type") == "agent_end"]) == 1
        users = [m for m in end["messages"] if m["role"] == "user"]
        assert len(users) == 1 + corrections
        assert [m for m in end["messages"] if m["role"] == "assistant"][-1]["content"][0]["text"] == answers[-1]
        if output is not None:
            assert end["output"] == output and "outputError" not in end
        else:
            assert "output" not in end
            assert end["outputError"] == "the answer does not match the schema at /: [] is not of type 'object'"
            assert "does not match the schema at /n" in users[-1]["content"][0]["text"]
        if corrections:
            assert users[1]["content"][0]["text"].startswith("Your final answer must be only JSON")
    # A prompt without a schema after them: no output keys.
    mark = proc.mark()
    proc.ok("prompt", message="plain")
    assert set(_last_agent_end(proc, mark)) == {"type", "messages", "willRetry"}


def _print(tmp_path: Path, script: list[dict[str, Any]], *args: str) -> subprocess.CompletedProcess[bytes]:
    (tmp_path / "script.json").write_text(json.dumps(script))
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    env = isolated_env(tmp_path, {"PI_FAUX_SCRIPT": str(tmp_path / "script.json")})
    argv = [sys.executable, "-m", "pi_rpc", "-p", "--no-session", *args, "go"]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=60)


def test_print_mode_limit_exit_code(tmp_path: Path) -> None:
    done = _print(tmp_path, LOOP, "--max-turns", "2")
    assert done.returncode == 3
    assert "Run limit reached: maxTurns 2 (used 2)" in done.stderr.decode()
    ok = _print(tmp_path, [{"text": "fine"}], "--max-turns", "2")
    assert (ok.returncode, ok.stdout) == (0, b"fine\n")


def test_print_mode_output_schema(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    done = _print(
        tmp_path,
        [{"text": "nope"}, {"text": 'Sure: {"n": 7}'}, {"text": '{ "n" : 7 }'}],
        "--output-schema",
        str(schema),
    )
    assert (done.returncode, done.stdout) == (0, b'{"n": 7}\n')
    never = _print(tmp_path, [{"text": "a"}, {"text": "b"}, {"text": "c"}], "--output-schema", str(schema))
    assert never.returncode == 4 and never.stdout == b""
    assert "does not match --output-schema" in never.stderr.decode()
    schema.write_text('{"type": 5}')
    bad = _print(tmp_path, [{"text": "a"}], "--output-schema", str(schema))
    assert bad.returncode == 1 and "--output-schema" in bad.stderr.decode()


def test_command_line_limits_are_rpc_defaults(pi: Callable[..., PiProcess]) -> None:
    proc = pi(script=LOOP, args=("--max-turns", "1"))
    mark = proc.mark()
    proc.ok("prompt", message="go")
    assert _last_agent_end(proc, mark)["limit"] == {"kind": "maxTurns", "limit": 1, "used": 1}
    mark = proc.mark()
    proc.ok("prompt", message="more", limits={"maxTurns": 3})  # the prompt's own key wins
    assert _last_agent_end(proc, mark)["limit"] == {"kind": "maxTurns", "limit": 3, "used": 3}


def test_limit_flags_are_checked() -> None:
    from pi_rpc.config.cli_args import CliError, parse_args

    args = parse_args(["--max-turns", "4", "--max-cost", "0.5", "--timeout", "1.5", "--host-tool-timeout", "30"])
    assert args.run_limits() == {"maxTurns": 4, "maxCostUsd": 0.5, "timeoutMs": 1500}
    assert args.host_tool_timeout == 30.0 and parse_args([]).run_limits() == {}
    assert parse_args(["--output-schema", "s.json"]).output_schema == "s.json"
    for flag, bad, kind in [
        ("--max-turns", "1.5", "integer"),
        ("--max-cost", "-1", "number"),
        ("--timeout", "x", "number"),
    ]:
        with pytest.raises(CliError, match=f'Invalid {flag} "{bad}": expected a positive {kind}'):
            parse_args([flag, bad])

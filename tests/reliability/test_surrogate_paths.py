"""Lone UTF-16 surrogates (and undecodable OS bytes) on every path where outside strings are
written: client strings, model output from a real local OpenAI-compatible server, tool
arguments and output, file content, the environment (cwd, argv). Each path ends in a valid
stdout record and a session file that reloads with the same strings; nothing crashes.

JS semantics are the reference: ``JSON.stringify`` writes a lone surrogate as a ``\\udXXX``
escape; node writes U+FFFD when it turns such a string into bytes (files, argv).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from protocol.conformance.scripted_llm import ScriptedLLM, write_agent_config

Spawn = Callable[..., Any]
HALF = "\ud83d"  # the first half of U+1F600, as a JS client's "😀".slice(0, 1) sends it


def _session_lines(path: str) -> list[bytes]:
    data = Path(path).read_bytes()
    data.decode("utf-8")  # the file is valid UTF-8 (escapes, not raw surrogates)
    return [line for line in data.split(b"\n") if line]


def _reload(spawn_pi: Spawn, session_file: str, tmp: Path) -> dict[str, Any]:
    """A second process opens the file: messages and name as the writer saw them."""
    proc = spawn_pi("--session", session_file, env={"PI_FAUX_SCRIPT": str(tmp / "none.json")})
    proc.send({"id": "m", "type": "get_messages"})
    proc.send({"id": "s", "type": "get_state"})
    out = {"messages": proc.response("m")["data"]["messages"], "state": proc.response("s")["data"]}
    proc.close_stdin()
    assert proc.wait(timeout=30) == 0
    return out


def test_client_strings_reach_the_session_file_as_escapes_and_reload(spawn_pi: Spawn, tmp_path: Path) -> None:
    (tmp_path / "none.json").write_text("[]")
    sessions = tmp_path / "sessions"
    proc = spawn_pi("--session-dir", str(sessions), env={"PI_FAUX_SCRIPT": str(tmp_path / "none.json")})
    proc.write(json.dumps({"id": "n", "type": "set_session_name", "name": f"name{HALF}"}).encode() + b"\n")
    proc.write(b'{"id":"p","type":"prompt","message":"say \\udc00 back"}\n')
    assert proc.response("p")["success"] is True
    proc.wait_for(lambda r: r.get("type") == "agent_settled", timeout=30)
    proc.send({"id": "s", "type": "get_state"})
    state = proc.response("s")["data"]
    proc.close_stdin()
    assert proc.wait(timeout=30) == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = _session_lines(state["sessionFile"])
    assert any(b'"name":"name\\ud83d"' in line for line in lines)
    # The faux model answers "You said: ..." — model output carrying the surrogate too.
    assert any(b"say \\udc00 back" in line and b'"role":"user"' in line for line in lines)
    assert any(b"say \\udc00 back" in line and b'"role":"assistant"' in line for line in lines)
    again = _reload(spawn_pi, state["sessionFile"], tmp_path)
    assert again["state"]["sessionName"] == f"name{HALF}"
    texts = [b.get("text") for m in again["messages"] for b in (m.get("content") or []) if isinstance(b, dict)]
    assert "say \udc00 back" in texts


@pytest.fixture
def llm_env(tmp_path: Path) -> Iterator[Callable[[Any], tuple[ScriptedLLM, dict[str, str]]]]:
    servers: list[ScriptedLLM] = []

    def start(script: Any) -> tuple[ScriptedLLM, dict[str, str]]:
        llm = ScriptedLLM(script).start()
        servers.append(llm)
        agent = tmp_path / "agent"
        write_agent_config(str(agent), llm.base_url)
        return llm, {"PI_OFFLINE": "1"}

    yield start
    for llm in servers:
        llm.stop()


def test_model_output_and_tool_arguments_with_surrogates(
    spawn_pi: Spawn, tmp_path: Path, llm_env: Callable[[Any], tuple[ScriptedLLM, dict[str, str]]]
) -> None:
    llm, env = llm_env(
        [
            # Text deltas that split an emoji, a tool call whose arguments hold a lone half,
            {
                "chunks": ["Half ", HALF, " and ", "\ude00", " end ", HALF, "\ude00"],
                "tool_calls": [{"name": "write", "id": "w1", "arguments": {"path": "out.txt", "content": f"a{HALF}b"}}],
            },
            # a bash command with one (node would run it with U+FFFD; so do we),
            {"tool_calls": [{"name": "bash", "id": "b1", "arguments": {"command": f"printf 'x{HALF}y'; cat out.txt"}}]},
            {"text": "done"},
        ]
    )
    sessions = tmp_path / "sessions"
    proc = spawn_pi("--session-dir", str(sessions), env=env)
    proc.send({"id": "p", "type": "prompt", "message": "go"})
    assert proc.response("p")["success"] is True
    proc.wait_for(lambda r: r.get("type") == "agent_settled", timeout=60)
    proc.send({"id": "s", "type": "get_state"})
    state = proc.response("s")["data"]
    proc.close_stdin()
    assert proc.wait(timeout=30) == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr

    deltas = [r["assistantMessageEvent"].get("delta") for r in proc.records if r.get("type") == "message_update"]
    assert HALF in deltas and "\ude00" in deltas  # each half travels as its own escape
    first_reply = next(
        r["message"] for r in proc.records if r.get("type") == "message_end" and r["message"]["role"] == "assistant"
    )
    # Apart they stay lone; adjacent, the two halves are the emoji (as in JS).
    assert first_reply["content"][0]["text"] == f"Half {HALF} and \ude00 end \U0001f600"
    # node writes a lone surrogate to a file as U+FFFD
    assert (proc.cwd / "out.txt").read_bytes() == "a\ufffdb".encode()
    bash_result = next(r for r in proc.records if r.get("type") == "tool_execution_end" and r["toolName"] == "bash")
    assert bash_result["result"]["content"][0]["text"] == "x\ufffdya\ufffdb"
    # What went back to the model: the JSON of the arguments, with the escape.
    second_request = json.dumps(llm.requests[1]["body"])
    assert "\\ud83d" in second_request
    lines = _session_lines(state["sessionFile"])
    assert any(b'"content":"a\\ud83db"' in line for line in lines)  # the write call's arguments
    again = _reload(spawn_pi, state["sessionFile"], tmp_path)
    assert again["state"]["messageCount"] == state["messageCount"]


def test_undecodable_bytes_from_files_and_the_environment(spawn_pi: Spawn, tmp_path: Path) -> None:
    """Python hands undecodable OS bytes to us as lone surrogates (surrogateescape): a cwd,
    an argv value. They must be written as escapes, never crash the writer."""
    odd = os.fsdecode(b"dir-\xff\xfe")
    assert "\udcff" in odd
    cwd = tmp_path / odd
    cwd.mkdir()
    (cwd / "bytes.txt").write_bytes(b"ok \xff\xfe end\n")
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"toolCalls": [{"name": "read", "arguments": {"path": "bytes.txt"}}]},
                {"text": "read it"},
            ]
        )
    )
    sessions = tmp_path / "sessions"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(
        HOME=str(tmp_path / "home"),
        PI_CODING_AGENT_DIR=str(tmp_path / "agent"),
        PI_OFFLINE="1",
        PI_FAUX_SCRIPT=str(script),
    )
    argv = [
        os.fsencode(sys.executable),
        b"-m",
        b"pi_rpc",
        b"--mode",
        b"rpc",
        b"--session-dir",
        os.fsencode(sessions),
        b"--name",
        b"name-\xff",
    ]
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(b'{"id":"p","type":"prompt","message":"read"}\n')
    proc.stdin.flush()
    records = []
    for line in proc.stdout:  # EOF would abort the run: close stdin once it settled
        records.append(json.loads(line))
        if records[-1].get("type") == "agent_settled":
            proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    reads = [r for r in records if r.get("type") == "tool_execution_end"]
    assert reads and "ok \ufffd\ufffd end" in reads[0]["result"]["content"][0]["text"]  # file bytes: U+FFFD
    files = list(sessions.iterdir())
    assert len(files) == 1
    lines = _session_lines(str(files[0]))
    header = json.loads(lines[0])
    assert header["cwd"] == str(cwd) and "\\udcff" in lines[0].decode()  # written as an escape
    assert any(b'"name":"name-\\udcff"' in line for line in lines)

"""``pi --mode json`` end to end (real subprocess): header line, wire-form events, one prompt
per message, exit codes, and signal handling."""

from __future__ import annotations

import json
import signal
import time

from .modes_support import read_jsonl, session_files, user_texts

HEADER_KEYS = ["type", "version", "id", "timestamp", "cwd"]


def test_header_then_events_for_each_prompt(run_pi, project):
    rc, out, err = run_pi("--mode", "json", "--no-session", "first", "second")
    assert rc == 0, err
    assert out.endswith(b"\n")
    records = read_jsonl(out)
    header = records[0]
    assert list(header) == HEADER_KEYS
    assert header["type"] == "session" and header["version"] == 3
    assert header["cwd"] == str(project)
    events = records[1:]
    types = [e["type"] for e in events]
    assert types[0] == "agent_start"
    assert types[-1] == "agent_settled"
    assert types.count("agent_start") == 2 and types.count("agent_settled") == 2
    # One run per message, in order: the second run starts after the first settled.
    first_settled = types.index("agent_settled")
    assert types[first_settled + 1] == "agent_start"
    assert user_texts(events) == ["first", "second"]
    finals = [e["message"] for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    assert [m["content"][0]["text"] for m in finals] == ["You said: first", "You said: second"]


def test_message_update_is_in_wire_form(run_pi):
    rc, out, err = run_pi("--mode", "json", "--no-session", "hello there")
    assert rc == 0, err
    updates = [e for e in read_jsonl(out) if e["type"] == "message_update"]
    assert updates
    for update in updates:
        assert list(update) == ["type", "usage", "assistantMessageEvent"]
        assert "partial" not in update["assistantMessageEvent"]
    deltas = "".join(
        u["assistantMessageEvent"].get("delta", "")
        for u in updates
        if u["assistantMessageEvent"]["type"] == "text_delta"
    )
    assert deltas == "You said: hello there"


def test_toolcall_start_carries_id_and_name(run_pi, faux_script):
    script = faux_script(
        [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo hi"}, "id": "call_7"}]}, {"text": "ok"}]
    )
    rc, out, err = run_pi("--mode", "json", "--no-session", "--faux-script", script, "go")
    assert rc == 0, err
    events = read_jsonl(out)
    starts = [
        e for e in events if e["type"] == "message_update" and e["assistantMessageEvent"]["type"] == "toolcall_start"
    ]
    assert starts and starts[0]["assistantMessageEvent"]["id"] == "call_7"
    assert starts[0]["assistantMessageEvent"]["toolName"] == "bash"
    assert any(e["type"] == "tool_execution_end" and e["toolCallId"] == "call_7" for e in events)


def test_model_error_still_exits_0(run_pi, faux_script):
    script = faux_script([{"error": {"status": 400, "body": "nope"}}])
    rc, out, err = run_pi("--mode", "json", "--no-session", "--faux-script", script, "hello")
    assert rc == 0, err
    events = read_jsonl(out)[1:]
    final = [e for e in events if e["type"] == "message_end"][-1]["message"]
    assert final["stopReason"] == "error" and final["errorMessage"] == "400 nope"
    assert events[-1] == {"type": "agent_settled", "aborted": False}


def test_header_is_the_session_files_header(run_pi, tmp_path):
    rc, out, err = run_pi("--mode", "json", "hello")
    assert rc == 0, err
    header = read_jsonl(out)[0]
    files = session_files(tmp_path / "agent")
    assert len(files) == 1
    assert read_jsonl(files[0])[0] == header


def test_piped_stdin_is_the_first_prompt(run_pi):
    rc, out, err = run_pi("--mode", "json", "--no-session", stdin=b"from stdin\n")
    assert rc == 0, err
    assert user_texts(read_jsonl(out)) == ["from stdin"]


def test_refused_prompt_exits_1_after_the_header(run_pi):
    rc, out, err = run_pi("--mode", "json", "--no-session", "--model", "anthropic/claude-sonnet-4-5", "hi")
    assert rc == 1
    records = read_jsonl(out)
    assert [r["type"] for r in records] == ["session"]
    assert "No API key found for anthropic" in err


def _slow_script(faux_script):
    return faux_script([{"text": "x" * 2000, "chunkChars": 1, "delayMs": 20}])


def _start_slow_run(spawn_pi, faux_script):
    proc = spawn_pi("--no-session", "--faux-script", _slow_script(faux_script), "hello", mode="json")
    proc.close_stdin()
    assert proc.read_record(timeout=30)["type"] == "session"
    proc.wait_for(lambda r: r.get("type") == "message_update", timeout=30)
    return proc


def test_sigterm_during_a_run_exits_143_without_further_events(spawn_pi, faux_script):
    proc = _start_slow_run(spawn_pi, faux_script)
    proc.popen.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 143
    rest = []
    while (line := proc.read_line(timeout=5)) is not None:
        rest.append(json.loads(line))  # every line written is complete JSON
    seen = proc.records + rest
    # The event stream is unsubscribed first: the aborted run reports no end.
    assert not any(r["type"] in ("agent_end", "agent_settled") for r in seen)
    assert "Traceback" not in proc.stderr


def test_sighup_during_a_run_exits_129(spawn_pi, faux_script):
    proc = _start_slow_run(spawn_pi, faux_script)
    proc.popen.send_signal(signal.SIGHUP)
    assert proc.wait(timeout=20) == 129
    assert "Traceback" not in proc.stderr


def test_sigterm_in_print_mode_exits_143(spawn_pi, faux_script):
    # Print mode writes nothing until the end, so the run announces itself with a file: the
    # first turn runs a tool that creates it, the second streams slowly.
    script = faux_script(
        [
            {"toolCalls": [{"name": "bash", "arguments": {"command": "touch started.marker"}}]},
            {"text": "y" * 2000, "chunkChars": 1, "delayMs": 20},
        ]
    )
    proc = spawn_pi("-p", "--no-session", "--faux-script", script, "hello", mode=None)
    proc.close_stdin()
    marker = proc.cwd / "started.marker"
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert proc.popen.poll() is None, proc.stderr
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)
    proc.popen.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 143
    assert proc.read_line(timeout=5) is None  # no reply printed

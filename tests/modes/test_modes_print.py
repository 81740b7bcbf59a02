"""``pi -p`` (print/text mode) end to end: the real ``python -m pi_rpc`` subprocess, offline
faux model, isolated agent dir."""

from __future__ import annotations

from pathlib import Path

from .modes_support import read_jsonl, session_files, user_texts


def test_prints_final_reply_and_exits_0(run_pi):
    rc, out, err = run_pi("-p", "--no-session", "hello")
    assert rc == 0, err
    assert out == b"You said: hello\n"
    assert "Traceback" not in err


def test_each_message_is_its_own_prompt_only_last_reply_printed(run_pi, faux_script, tmp_path):
    script = faux_script([{"text": "first answer"}, {"text": "second answer"}])
    rc, out, err = run_pi("-p", "--faux-script", script, "one", "two")
    assert rc == 0, err
    assert out == b"second answer\n"
    files = session_files(tmp_path / "agent")
    assert len(files) == 1
    assert user_texts(read_jsonl(files[0])) == ["one", "two"]


def test_error_reply_exits_1_with_error_message_on_stderr(run_pi, faux_script):
    script = faux_script([{"error": {"status": 400, "body": "bad request from script"}}])
    rc, out, err = run_pi("-p", "--no-session", "--faux-script", script, "hello")
    assert rc == 1
    assert out == b""
    assert "400 bad request from script" in err


def test_error_only_counts_when_it_is_the_last_reply(run_pi, faux_script):
    script = faux_script([{"error": {"status": 400, "body": "early failure"}}, {"text": "recovered"}])
    rc, out, err = run_pi("-p", "--no-session", "--faux-script", script, "a", "b")
    assert rc == 0, err
    assert out == b"recovered\n"


def test_truncated_reply_prints_text_then_exits_1(run_pi, faux_script):
    # Output at the model's own limit (faux-1 maxTokens): truncated by its budget, so the
    # runtime does not try to recover by compacting; the reply stays the last message.
    script = faux_script([{"text": "partial answ", "stopReason": "length", "usage": {"input": 10, "output": 16384}}])
    rc, out, err = run_pi("-p", "--no-session", "--faux-script", script, "hello")
    assert rc == 1
    assert out == b"partial answ\n"
    assert "Response was truncated: the model reached its output token limit." in err


def test_piped_stdin_is_trimmed_and_joined_into_the_first_prompt(run_pi, tmp_path):
    rc, out, err = run_pi("-p", "summarize", "next", stdin=b"  piped data\n\n")
    assert rc == 0, err
    # Upstream 1.6 buildInitialMessage: stdin + first message joined with nothing.
    assert out == b"You said: next\n"
    files = session_files(tmp_path / "agent")
    assert user_texts(read_jsonl(files[0])) == ["piped datasummarize", "next"]


def test_piped_stdin_alone_selects_print_mode(run_pi):
    # No -p: stdin is not a TTY, so the mode resolves to print (upstream resolveAppMode).
    rc, out, err = run_pi("--no-session", stdin=b"only stdin\n")
    assert rc == 0, err
    assert out == b"You said: only stdin\n"


def test_no_message_and_empty_stdin_runs_nothing(run_pi, tmp_path):
    # Upstream 1.6 runPrintMode sends no prompt, prints nothing and exits 0.
    rc, out, err = run_pi("-p")
    assert rc == 0, err
    assert out == b""
    assert session_files(tmp_path / "agent") == []


def test_file_argument_is_inlined_before_the_first_message(run_pi, project, tmp_path):
    (project / "notes.txt").write_text("\ufeffline one\nline two")
    (project / "empty.txt").write_text("")
    rc, out, err = run_pi("-p", "@notes.txt", "@empty.txt", "explain", "again")
    assert rc == 0, err
    path = project / "notes.txt"
    first = user_texts(read_jsonl(session_files(tmp_path / "agent")[0]))[0]
    assert first == f'<file name="{path}">\nline one\nline two\n</file>\nexplain'


def test_missing_file_argument_exits_1(run_pi, project):
    rc, out, err = run_pi("-p", "@nope.txt", "hi")
    assert rc == 1
    assert out == b""
    assert f"Error: File not found: {project / 'nope.txt'}" in err


def test_unknown_model_is_a_startup_error(run_pi):
    rc, out, err = run_pi("-p", "--no-session", "--model", "nosuchprovider/nosuchmodel", "hi")
    assert rc == 1
    assert out == b""
    assert 'Model "nosuchprovider/nosuchmodel" not found' in err


def test_refused_prompt_exits_1_with_message(run_pi):
    # A catalog model without credentials: the prompt preflight refuses (no API key).
    rc, out, err = run_pi("-p", "--no-session", "--model", "anthropic/claude-sonnet-4-5", "hi")
    assert rc == 1
    assert out == b""
    assert "No API key found for anthropic" in err


def test_stdout_carries_only_the_reply(run_pi, faux_script, project):
    # A tool's output belongs in the tool result; only the final reply reaches stdout.
    script = faux_script(
        [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo tool-noise"}}]}, {"text": "done"}]
    )
    rc, out, err = run_pi("-p", "--no-session", "--faux-script", script, "go")
    assert rc == 0, err
    assert out == b"done\n"


def test_name_is_recorded(run_pi, tmp_path):
    rc, out, err = run_pi("-p", "--name", "my run", "hello")
    assert rc == 0, err
    entries = read_jsonl(session_files(tmp_path / "agent")[0])
    assert any(e.get("type") == "session_info" and e.get("name") == "my run" for e in entries)


def test_text_mode_via_mode_flag(run_pi, tmp_path: Path):
    rc, out, err = run_pi("--mode", "text", "--no-session", "hey")
    assert rc == 0, err
    assert out == b"You said: hey\n"


def test_nothing_configured_warns_and_fails_like_upstream(run_pi):
    # faux is opt-in: without it and without a provider, upstream's warning and refusal, exit 1.
    rc, out, err = run_pi("-p", "--no-session", "hi", faux=False)
    assert rc == 1 and out == b""
    assert err.startswith("Warning: No models available. ")
    assert "\nNo API key found for the selected model.\n\n" in err

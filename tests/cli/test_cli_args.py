"""Argument parsing into CliArgs, mode resolution and CLI error texts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pi_rpc.config.cli_args import CliArgs, CliError, parse_args, resolve_app_mode


def test_full_flag_set() -> None:
    args = parse_args(
        [
            "--mode",
            "rpc",
            "--provider",
            "openai",
            "--model",
            "openai/gpt-4o:high",
            "--models",
            "a, b,c",
            "--thinking",
            "low",
            "--no-session",
            "--session-dir",
            "sd",
            "--session",
            "s",
            "--session-id",
            "abc.1",
            "-c",
            "-n",
            "name",
            "--api-key",
            "k",
            "--system-prompt",
            "sp",
            "--append-system-prompt",
            "a1",
            "--append-system-prompt",
            "a2",
            "-t",
            "read,grep",
            "-xt",
            "bash",
            "--offline",
            "--faux-script",
            "f.json",
            "--max-frame-bytes",
            "1024",
            "--skill",
            "s1",
            "--skill",
            "s2",
            "-ns",
            "--prompt-template",
            "p",
            "-np",
            "-nc",
            "-ne",
            "-a",
            "--verbose",
            "hello",
            "world",
        ]
    )
    assert args.mode == "rpc" and args.provider == "openai" and args.model == "openai/gpt-4o:high"
    assert args.models == ("a", "b", "c") and args.thinking == "low" and args.no_session
    assert args.session_dir == "sd" and args.session == "s" and args.session_id == "abc.1"
    assert args.continue_session and args.name == "name" and args.api_key == "k"
    assert args.system_prompt == "sp" and args.append_system_prompt == ("a1", "a2")
    assert args.tools == ("read", "grep") and args.exclude_tools == ("bash",)
    assert args.offline and args.faux_script == "f.json" and args.max_frame_bytes == 1024
    assert args.skills == ("s1", "s2") and args.no_skills and args.prompt_templates == ("p",)
    assert args.no_prompt_templates and args.no_context_files and args.no_extensions
    assert args.approve is True and args.verbose and args.messages == ("hello", "world")
    with pytest.raises(Exception):
        args.mode = "json"  # type: ignore[misc]  # frozen


def test_defaults() -> None:
    args = parse_args([])
    assert args == CliArgs()
    assert args.max_frame_bytes == 64 * 1024 * 1024 and args.approve is None and args.tools is None


def test_invalid_mode_error_text() -> None:
    with pytest.raises(CliError) as info:
        parse_args(["--mode", "bogus"])
    assert 'Invalid mode "bogus". Valid values: text, json, rpc' in info.value.message


def test_unknown_short_flag_is_error_unknown_long_flag_kept() -> None:
    with pytest.raises(CliError):
        parse_args(["-z"])
    assert parse_args(["--plan"]).unknown_flags == ("--plan",)


def test_value_flag_without_value_is_ignored() -> None:
    assert parse_args(["--model"]).model is None


def test_warnings_for_bad_thinking_and_tool_names_kept_for_extensions() -> None:
    # Tool names are checked once extensions are loaded (they may register "nope"); the
    # factory warns about names nobody provides.
    args = parse_args(["--thinking", "huge", "--tools", "read,nope", "-e", "ext.py"])
    assert args.thinking is None and args.tools == ("read", "nope")
    assert args.extensions == ("ext.py",)
    assert any('Invalid thinking level "huge"' in w for w in args.warnings)
    assert not any("tool" in w.lower() or "extension" in w.lower() for w in args.warnings)


def test_unknown_long_flags_keep_their_values_for_extensions() -> None:
    args = parse_args(["--plan", "--level=3", "--mode-x", "fast", "msg", "--last"])
    assert args.flag_values == (("plan", True), ("level", "3"), ("mode-x", "fast"), ("last", True))
    assert args.unknown_flags == ("--plan", "--level", "--mode-x", "--last")
    assert args.messages == ("msg",)


def test_file_args_and_double_dash() -> None:
    args = parse_args(["@a.txt", "msg", "--", "-not-a-flag"])
    assert args.file_args == ("a.txt",) and args.messages == ("msg", "-not-a-flag")


def test_session_id_and_fork_rules() -> None:
    with pytest.raises(CliError) as info:
        parse_args(["--session-id", "-bad-"])
    assert "Session id must be non-empty" in info.value.message
    with pytest.raises(CliError):
        parse_args(["--fork", "x", "--no-session"])
    with pytest.raises(CliError):
        parse_args(["--max-frame-bytes", "0"])


def test_session_store_flags() -> None:
    args = parse_args(["--session-store", "sqlite", "--session-db", "~/x.db"])
    assert (args.session_store, args.session_db) == ("sqlite", "~/x.db")
    assert (parse_args([]).session_store, parse_args([]).session_db) == (None, None)
    assert parse_args(["--session-store", "jsonl"]).session_store == "jsonl"
    assert parse_args(["--session-store", "postgres"]).session_store == "postgres"
    with pytest.raises(CliError) as err:
        parse_args(["--session-store", "mongo"])
    assert err.value.message == 'Error: Invalid --session-store "mongo". Valid values: jsonl, sqlite, postgres'
    assert parse_args(["--session-store"]).session_store is None  # a value flag without a value


def test_approve_flags() -> None:
    assert parse_args(["-na"]).approve is False
    assert parse_args(["--approve"]).approve is True


def test_resolve_app_mode() -> None:
    assert resolve_app_mode(parse_args(["--mode", "rpc"]), stdin_is_tty=True, stdout_is_tty=True) == "rpc"
    assert resolve_app_mode(parse_args(["--mode", "json"]), stdin_is_tty=True, stdout_is_tty=True) == "json"
    assert resolve_app_mode(parse_args(["-p"]), stdin_is_tty=True, stdout_is_tty=True) == "print"
    assert resolve_app_mode(parse_args([]), stdin_is_tty=False, stdout_is_tty=True) == "print"
    assert resolve_app_mode(parse_args([]), stdin_is_tty=True, stdout_is_tty=True) == "interactive"


def _run(*argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "pi_rpc", *argv], capture_output=True, timeout=60, stdin=subprocess.DEVNULL
    )


def test_version_and_help_exit_zero() -> None:
    from pi_rpc import __version__

    # The upstream version we are compatible with (adapters and SDKs parse a bare N.N.N);
    # ours only with --verbose, on a second line.
    for flag in ("--version", "-v"):
        out = _run(flag)
        assert out.returncode == 0 and out.stdout == b"1.6.0\n"
    out = _run("--version", "--verbose")
    assert out.returncode == 0 and out.stdout.decode() == f"1.6.0\npi_rpc {__version__}\n"
    out = _run("-h")
    assert out.returncode == 0 and b"--mode" in out.stdout


def test_cli_error_exits() -> None:
    out = _run("--mode", "nope")
    assert out.returncode == 1 and b'Invalid mode "nope". Valid values: text, json, rpc' in out.stderr
    out = _run("--mode", "rpc", "@file.txt")
    assert out.returncode == 1
    assert out.stderr.decode().strip() == "Error: @file arguments are not supported in RPC mode"
    assert out.stdout == b""
    out = _run("-q")
    assert out.returncode == 1 and b"-q" in out.stderr
    out = _run("--mode", "rpc", "--api-key", "k")
    assert out.returncode == 1 and b"--api-key requires a model" in out.stderr


def test_max_sessions() -> None:
    assert parse_args([]).max_sessions == 64
    assert parse_args(["--max-sessions", "3"]).max_sessions == 3
    for bad in ("0", "-2", "x"):
        with pytest.raises(CliError, match=f'Invalid --max-sessions "{bad}": expected a positive integer'):
            parse_args(["--max-sessions", bad])

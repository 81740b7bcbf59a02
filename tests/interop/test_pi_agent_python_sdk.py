"""``pi-agent-python-sdk`` (PyPI), a third-party client of pi's RPC mode, drives ours through
its sync and async clients with default options: it finds ``pi`` on PATH, checks
``pi --version`` (it refuses anything but a bare N.N.N of at least 0.85.1), waits for
``get_state``, runs prompts through to ``agent_settled`` and reads the session back."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

pi_agent = pytest.importorskip("pi_agent")

SCRIPT = [
    {"toolCalls": [{"name": "bash", "arguments": {"command": "echo sdk-tool-output"}}]},
    {"text": "The command printed sdk-tool-output."},
]


@pytest.fixture
def pi_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pi_environ) -> Path:
    """The client inherits the environment: point it at an isolated agent dir with the faux
    script, and at this interpreter's ``pi`` entry point on PATH."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    env = pi_environ({"PI_FAUX_SCRIPT": str(script)})
    for key in [k for k in os.environ if k.startswith("PI_")]:
        monkeypatch.delenv(key)
    for key in ("HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE", "PI_FAUX_SCRIPT"):
        monkeypatch.setenv(key, env[key])
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "pi").exists(), "the package's `pi` entry point is not installed next to the interpreter"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    cwd = tmp_path / "project"
    cwd.mkdir()
    return cwd


def test_sync_client_with_default_options(pi_on_path: Path) -> None:
    from pi_agent import PiClient

    with PiClient(cwd=pi_on_path) as client:
        assert client.pi_version == "1.6.0"
        result = client.run("run the tool", timeout=60)
        assert result.text == "The command printed sdk-tool-output."
        assert result.stop_reason == "stop"
        tool_results = [m for m in result.messages if m.get("role") == "toolResult"]
        assert tool_results and "sdk-tool-output" in tool_results[0]["content"][0]["text"]
        state = client.get_state()
        assert state["model"]["provider"] == "faux" and state["sessionId"] == client.session.session_id
        assert [m["id"] for m in client.get_available_models()] == ["faux-1", "faux-reasoner"]


def test_async_client_with_default_options(pi_on_path: Path) -> None:
    from pi_agent import AsyncPiClient

    async def main() -> None:
        async with AsyncPiClient(cwd=pi_on_path) as client:
            assert client.pi_version == "1.6.0"
            # run() first: the SDK refuses run() after low-level submissions on the same client.
            result = await client.run("run the tool", timeout=60)
            assert result.text == "The command printed sdk-tool-output." and result.stop_reason == "stop"
            events = await client.prompt_and_wait("and again", timeout=60)
            kinds = [e.type for e in events]
            assert kinds[0] == "agent_start" and kinds[-1] == "agent_settled"
            assert [e for e in events if e.type == "message_end"][-1].raw["message"]["content"][0][
                "text"
            ] == "You said: and again"
            stats = await client.get_session_stats()
            assert stats["userMessages"] == 2

    asyncio.run(main())


def test_every_option_the_sdk_passes_through_is_a_known_flag() -> None:
    # The SDK's extra_args allow-list names upstream's flags; ours must know every one of them
    # (an unknown flag would be taken for an extension flag and silently do nothing).
    from pi_agent._launch import _FLAGS, _VALUES

    from pi_rpc.config.cli_args import parse_args

    values = {
        "--thinking": "high",
        "--tools": "read",
        "-t": "read",
        "--exclude-tools": "bash",
        "-xt": "bash",
        "--tui-mode": "regular",  # an unknown mode is refused, as upstream refuses it
    }
    for flag in sorted(_FLAGS):
        assert parse_args(["--mode", "rpc", flag]).unknown_flags == (), flag
    for flag in sorted(_VALUES):
        assert parse_args(["--mode", "rpc", flag, values.get(flag, "x")]).unknown_flags == (), flag

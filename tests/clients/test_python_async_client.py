"""Async Python client (clients/python/pi_rpc_client/aio.py) against the REAL ``python -m pi_rpc --mode rpc``
subprocess driven by the offline ``faux`` model (``--faux-script``), plus the misbehaving stub for the
paths a healthy server never shows (raw U+2028 on stdout, death with a stderr message, ignoring SIGTERM)."""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from pi_rpc_client import COMMAND_TYPES, RpcClient
from pi_rpc_client.aio import (
    AsyncRpcClient,
    RpcCommandError,
    RpcProcessExited,
    RpcTimeoutError,
)

from .pi_client_testkit import REPO, server_env

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

STUB = str(Path(__file__).with_name("stub_rpc_server.py"))
LS, PS = "\u2028", "\u2029"
TEN_MB = 10 * 1024 * 1024
SLOW_TURN = {"text": "slow " * 400, "delayMs": 25, "chunkChars": 5}  # ~10 s unless aborted


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def faux_pi(tmp_path: Path, script: list[dict[str, Any]] | None = None, **kw: Any) -> AsyncRpcClient:
    """An unstarted client for the real server on faux/faux-1, isolated agent dir/HOME/cwd under tmp_path."""
    for d in ("agent", "home", "cwd"):
        (tmp_path / d).mkdir(exist_ok=True)
    argv = [sys.executable, "-m", "pi_rpc", "--mode", "rpc", "--no-session", "--model", "faux/faux-1"]
    if script is not None:
        path = tmp_path / "faux-script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        argv += ["--faux-script", str(path)]
    kw.setdefault("default_timeout", 20.0)
    return AsyncRpcClient(argv, cwd=tmp_path / "cwd", env=server_env(tmp_path), inherit_env=False, **kw)


# ---------------------------------------------------------------- API shape (no process)
async def test_async_commands_mirror_the_sync_ones() -> None:
    for name in COMMAND_TYPES:
        method = getattr(AsyncRpcClient, name)
        assert inspect.iscoroutinefunction(method), name
        assert inspect.signature(method) == inspect.signature(getattr(RpcClient, name)), name
    assert inspect.iscoroutinefunction(AsyncRpcClient.prompt_and_wait)


def test_sync_client_imports_without_anyio() -> None:
    code = (
        "import sys; sys.modules['anyio'] = None\n"
        "import pi_rpc_client\n"
        "assert pi_rpc_client.RpcClient and 'pi_rpc_client.aio' not in sys.modules\n"
        "try:\n    pi_rpc_client.AsyncRpcClient\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PYTHONPATH": str(REPO / "clients" / "python")},
    )
    assert out.returncode == 0, out.stderr
    assert "pi-rpc-client[async]" in out.stdout


# ---------------------------------------------------------------- real server
async def test_prompt_and_wait_u2028_in_faux_reply(tmp_path: Path) -> None:
    reply = f"line{LS}sep{PS}para{LS}{PS}end"
    seen: list[str] = []
    async with faux_pi(tmp_path, [{"text": reply, "chunkChars": 3}]) as pi:
        pi.on_event(lambda rec: seen.append(rec["type"]))
        result = await pi.prompt_and_wait("Answer with separators")
        assert result.disposition == "started"
        types = [e["type"] for e in result.events]
        assert types[0] == "agent_start" and types[-1] == "agent_settled"
        assert types.index("agent_end") < types.index("agent_settled")
        assert result.text() == reply
        assert result.aborted is False
        assert await pi.get_last_assistant_text() == reply
        assert seen[: len(types)] == types  # listeners see the same records, in order
        assert pi.protocol_errors == [] and pi.unmatched_responses == []
    assert pi.returncode == 0


async def test_ten_megabyte_prompt(tmp_path: Path) -> None:
    message = "p" * (TEN_MB - 3) + "end"
    async with faux_pi(tmp_path, [{"text": "got it"}], default_timeout=60) as pi:
        result = await pi.prompt_and_wait(message)
        users = [e["message"] for e in result.events if e["type"] == "message_end" and e["message"]["role"] == "user"]
        assert users and users[0]["content"][0]["text"] == message
        assert result.text() == "got it"


async def test_concurrent_commands_in_flight_are_answered_by_id(tmp_path: Path) -> None:
    gate = tmp_path / "cwd" / "go"
    blocker = f"while [ ! -e {gate} ]; do sleep 0.02; done; echo released"
    results: dict[str, Any] = {}

    async with faux_pi(tmp_path) as pi:

        async def blocked_bash() -> None:
            results["bash"] = await pi.bash(blocker)

        async def quick(i: int) -> None:
            # ids of any JSON type are echoed verbatim and correlated
            rid: Any = i if i % 2 else f"custom-{i}"
            resp = await pi.request({"type": "get_state", "id": rid})
            results[f"q{i}"] = resp

        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(blocked_bash)
                async with anyio.create_task_group() as quick_tg:
                    for i in range(8):
                        quick_tg.start_soon(quick, i)
                    quick_tg.start_soon(pi.set_session_name, f"n{LS}m")
                    quick_tg.start_soon(pi.get_messages)
                # every quick command was answered while the bash command is still in flight
                assert "bash" not in results
                gate.write_text("")
        assert results["bash"]["output"] == "released\n"
        for i in range(8):
            resp = results[f"q{i}"]
            assert resp["id"] == (i if i % 2 else f"custom-{i}")
            assert resp["command"] == "get_state" and resp["success"] is True
        assert (await pi.get_state())["sessionName"] == f"n{LS}m"
        assert pi.unmatched_responses == []


async def test_abort_during_slow_turn_returns_after_agent_settled(tmp_path: Path) -> None:
    outcome: dict[str, Any] = {}
    async with faux_pi(tmp_path, [SLOW_TURN]) as pi:
        with pi.events() as stream:

            async def run() -> None:
                outcome["result"] = await pi.prompt_and_wait("take your time")

            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                await stream.wait_for("message_update", timeout=10)
                await pi.abort()
                # abort answered: the settled event was read before its response
                settled = [e for e in stream.drain() if e["type"] == "agent_settled"]
                assert settled and settled[-1]["aborted"] is True
        result = outcome["result"]
        assert result.aborted is True and result.events[-1]["type"] == "agent_settled"
        assert len(result.text()) < len(SLOW_TURN["text"])
        assert (await pi.get_state())["isStreaming"] is False


async def test_server_killed_mid_run_raises_process_exited(tmp_path: Path) -> None:
    async with faux_pi(tmp_path, [SLOW_TURN]) as pi:

        def kill_on_first_delta(rec: dict[str, Any]) -> None:
            if rec.get("type") == "message_update" and pi.returncode is None:
                os.kill(pi.pid, signal.SIGKILL)

        pi.on_event(kill_on_first_delta)
        with anyio.fail_after(30), pytest.raises(RpcProcessExited) as info:
            await pi.prompt_and_wait("stream forever")
        assert info.value.returncode == -signal.SIGKILL
        with pytest.raises(RpcProcessExited):  # later calls fail fast instead of hanging
            await pi.get_state()
        async for _ in pi.events():  # a stream opened after the death ends at once
            pytest.fail("no records expected")
    assert pi.returncode == -signal.SIGKILL


async def test_per_call_timeouts(tmp_path: Path) -> None:
    async with faux_pi(tmp_path, [SLOW_TURN]) as pi:
        with pytest.raises(RpcTimeoutError) as info:
            await pi.bash("sleep 20", timeout=0.5)
        assert "bash" in str(info.value) and isinstance(info.value, TimeoutError)
        await pi.abort_bash()
        assert (await pi.bash("echo ok"))["output"] == "ok\n"

        with pytest.raises(RpcTimeoutError) as info:
            await pi.prompt_and_wait("slow", timeout=0.5)
        assert "agent_settled" in str(info.value)
        await pi.abort()
        assert (await pi.get_state())["isStreaming"] is False
        assert pi.returncode is None  # client-side timeouts do not hurt the session


async def test_command_error_carries_response(tmp_path: Path) -> None:
    async with faux_pi(tmp_path) as pi:
        with pytest.raises(RpcCommandError) as info:
            await pi.set_session_name("   ")
        resp = info.value.response
        assert resp["success"] is False and resp["command"] == "set_session_name"
        assert resp["error"] == "Session name cannot be empty"
        assert resp["id"].startswith("aio-")


async def test_clean_shutdown_exit_code_zero(tmp_path: Path) -> None:
    client = faux_pi(tmp_path)
    async with client as pi:
        assert (await pi.get_state())["model"]["id"] == "faux-1"
    assert pi.returncode == 0
    assert await pi.aclose() == 0  # idempotent
    with pytest.raises(RpcProcessExited):
        await pi.get_state()


# ---------------------------------------------------------------- stub server (client mechanics)
async def test_stub_out_of_order_responses_and_raw_u2028() -> None:
    async with AsyncRpcClient([sys.executable, STUB, "reverse"], default_timeout=10) as c:
        with c.events() as stream:
            got: dict[str, Any] = {}

            async def call(name: str) -> None:
                got[name] = await c.request({"type": name})

            async with anyio.create_task_group() as tg:
                tg.start_soon(call, "get_state")
                tg.start_soon(call, "get_messages")
            for name in ("get_state", "get_messages"):
                assert got[name]["command"] == name and got[name]["data"]["echo"] == got[name]["id"]
            ev = await stream.wait_for("session_info_changed", timeout=5)
            assert ev["name"] == f"x{LS}y"  # raw U+2028 on stdout is not a line break
            stray = await stream.wait_for(lambda r: r.get("type") == "response", timeout=5)
            assert stray["command"] == "parse" and c.unmatched_responses == [stray]
        assert c.protocol_errors == []


async def test_stub_death_reports_exit_code_and_stderr() -> None:
    async with AsyncRpcClient([sys.executable, STUB, "die"], default_timeout=10) as c:
        with pytest.raises(RpcProcessExited) as info:
            await c.prompt_and_wait("hello")
        assert info.value.returncode == 3
        assert "exploded mid-run" in info.value.stderr_tail
        assert "exploded mid-run" in c.stderr_text


async def test_stub_close_escalates_to_sigkill() -> None:
    c = AsyncRpcClient([sys.executable, STUB, "stubborn"])
    await c.start()
    with anyio.fail_after(30):
        while "ignoring SIGTERM" not in c.stderr_text:
            await anyio.sleep(0.01)  # (a slow start must not meet SIGTERM before the stub ignores it)
    assert await c.aclose(timeout=0.3) == -signal.SIGKILL

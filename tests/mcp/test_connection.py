"""Connections to real MCP servers (the demo server, written with the ``mcp`` SDK) over stdio
and streamable HTTP: tools, results, progress, timeouts, abort with cancellation, dropped
connections, ``tools/list_changed``, the server log, environment and process groups."""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from pi_rpc.ai.abort import AbortController
from pi_rpc.mcp.config import ServerEntry
from pi_rpc.mcp.connection import McpAborted, McpConnection, McpConnectionClosed, McpTimeout
from pi_rpc.mcp.log import ServerLog

from .mcp_helpers import DEMO, alive

pytestmark = pytest.mark.anyio


async def _with_connection(
    config: dict[str, Any], cwd: Path, body: Callable[[McpConnection], Awaitable[None]], **kwargs: Any
) -> McpConnection:
    async with anyio.create_task_group() as tg:
        connection = McpConnection(ServerEntry("demo", config, "test", "global"), str(cwd), tg, **kwargs)
        try:
            await body(connection)
        finally:
            await connection.close()
        tg.cancel_scope.cancel()
    return connection


async def _wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    with anyio.fail_after(timeout):
        while not predicate():
            await anyio.sleep(0.02)


async def test_stdio_tools_results_progress_and_log(tmp_path: Path) -> None:
    log = ServerLog(str(tmp_path / "mcp.log"))
    changes: list[str] = []

    async def body(connection: McpConnection) -> None:
        await connection.get_session()
        assert connection.state == "connected" and connection.has_resources
        assert connection.instructions == "Demo tools for pi's MCP tests.\nCall echo first."
        assert [t["name"] for t in connection.tools][:3] == ["echo", "add", "image"]
        assert connection.tools[0]["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
        assert await connection.call_tool("echo", {"text": "hi"}) == {
            "content": [{"type": "text", "text": "echo: hi"}],
            "isError": False,
        }
        assert (await connection.call_tool("add", {"a": 1, "b": 2}))["structuredContent"] == {"sum": 3}
        progress: list[tuple[float, float | None, str | None]] = []
        done = await connection.call_tool("slow", {"seconds": 0.2}, on_progress=lambda *p: progress.append(p))
        assert done["content"][0]["text"] == "done" and progress[0] == (1, 10, "step 1") and len(progress) == 10
        assert [r["uri"] for r in await connection.all_resources()] == [
            "file:///notes.txt",
            "file:///pixel.png",
            "ui://app",
        ]
        assert (await connection.templates_page(None))["resourceTemplates"][0]["uriTemplate"] == "note://{id}"
        read = await connection.read_resource("file:///notes.txt")
        assert read["contents"] == [{"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "hello notes\n"}]

    await _with_connection(
        {"command": sys.executable, "args": [DEMO]},
        tmp_path,
        body,
        log=log,
        on_change=lambda c: changes.append(c.state),
    )
    assert changes[:2] == ["connecting", "connected"] and changes[-1] == "closed"
    lines = (tmp_path / "mcp.log").read_text().splitlines()
    assert lines and lines[0].endswith("[demo] info demo: echoing hi")


async def test_abort_cancels_the_request_on_the_server_and_returns_at_once(tmp_path: Path) -> None:
    events = tmp_path / "events"

    async def body(connection: McpConnection) -> None:
        await connection.get_session()
        controller = AbortController()
        async with anyio.create_task_group() as tg:

            async def abort_soon() -> None:
                await anyio.sleep(0.3)
                controller.abort()

            tg.start_soon(abort_soon)
            started = time.monotonic()
            with pytest.raises(McpAborted, match="MCP request aborted"):
                await connection.call_tool("slow", {"seconds": 30}, signal=controller.signal)
            assert time.monotonic() - started < 5  # not the 30 s the call would take
        await _wait_for(lambda: events.exists() and "cancelled slow" in events.read_text())
        assert connection.state == "connected"  # the connection stays usable
        assert (await connection.call_tool("echo", {"text": "after"}))["content"][0]["text"] == "echo: after"

    await _with_connection(
        {"command": sys.executable, "args": [DEMO], "env": {"DEMO_EVENTS_FILE": str(events)}}, tmp_path, body
    )


async def test_an_abort_cancels_on_the_server_only_the_request_it_aborted(tmp_path: Path) -> None:
    """Two calls in flight at once: ``notifications/cancelled`` names the aborted call's own
    JSON-RPC id (as the write stream saw it go out), so the other call completes."""
    events = tmp_path / "events"

    async def body(connection: McpConnection) -> None:
        await connection.get_session()
        controller = AbortController()
        results: dict[str, Any] = {}

        async def kept() -> None:
            results["kept"] = await connection.call_tool("slow", {"seconds": 1.5})

        async def aborted() -> None:
            with pytest.raises(McpAborted):
                await connection.call_tool("slow", {"seconds": 30}, signal=controller.signal)
            results["aborted"] = True

        async with anyio.create_task_group() as tg:
            tg.start_soon(kept)
            tg.start_soon(aborted)
            await anyio.sleep(0.5)
            controller.abort()
        assert results["aborted"] and results["kept"]["content"][0]["text"] == "done"
        await _wait_for(lambda: events.exists() and "cancelled slow" in events.read_text())
        assert events.read_text().count("cancelled slow") == 1

    await _with_connection(
        {"command": sys.executable, "args": [DEMO], "env": {"DEMO_EVENTS_FILE": str(events)}}, tmp_path, body
    )


async def test_timeout_fails_the_request_and_progress_resets_it(tmp_path: Path) -> None:
    async def body(connection: McpConnection) -> None:
        await connection.get_session()
        # 10 progress notifications 0.6 s apart: each resets the 3 s timeout, so the call
        # succeeds although it takes longer; 6 s between notifications do not.
        assert (await connection.call_tool("slow", {"seconds": 6}))["content"][0]["text"] == "done"
        with pytest.raises(McpTimeout, match="MCP request timed out after 3000ms"):
            await connection.call_tool("slow", {"seconds": 60})

    await _with_connection({"command": sys.executable, "args": [DEMO], "timeout": 3}, tmp_path, body)


async def test_a_crashed_server_fails_the_call_and_reconnects_on_the_next(tmp_path: Path) -> None:
    pids = tmp_path / "pids"

    async def body(connection: McpConnection) -> None:
        await connection.get_session()
        with pytest.raises(McpConnectionClosed, match="MCP connection closed"):
            await connection.call_tool("crash", {})
        await _wait_for(lambda: connection.state == "disconnected")
        assert connection.error is not None and connection.error.startswith("Connection closed\n")
        assert "demo server starting (stdio)" in connection.error  # the stderr tail
        assert (await connection.call_tool("echo", {"text": "back"}))["content"][0]["text"] == "echo: back"
        assert connection.state == "connected"

    await _with_connection(
        {"command": sys.executable, "args": [DEMO], "env": {"DEMO_PID_FILE": str(pids)}}, tmp_path, body
    )
    first, second = (int(p) for p in pids.read_text().split())
    assert first != second and not alive(second)


async def test_failures_to_connect_are_reported(tmp_path: Path) -> None:
    async def missing(connection: McpConnection) -> None:
        with pytest.raises(
            ConnectionError, match='MCP server "demo" failed to connect: spawn no-such-server-binary ENOENT'
        ):
            await connection.get_session()
        assert connection.state == "failed" and connection.error == "spawn no-such-server-binary ENOENT"

    await _with_connection({"command": "no-such-server-binary"}, tmp_path, missing)

    async def exits(connection: McpConnection) -> None:
        with pytest.raises(ConnectionError):
            await connection.get_session()
        assert connection.state == "failed"
        assert connection.error is not None and "boom on stderr" in connection.error

    script = "import sys; print('boom on stderr', file=sys.stderr); sys.exit(2)"
    await _with_connection({"command": sys.executable, "args": ["-c", script]}, tmp_path, exits)

    async def unresolved(connection: McpConnection) -> None:
        with pytest.raises(ConnectionError, match='env "TOKEN" from environment variable: PI_TEST_UNSET_VAR'):
            await connection.get_session()

    await _with_connection({"command": sys.executable, "env": {"TOKEN": "${PI_TEST_UNSET_VAR}"}}, tmp_path, unresolved)


async def test_servers_get_the_whole_environment_their_env_and_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TEST_INHERITED", "from-pi")
    monkeypatch.setenv("PI_TEST_SECRET", "s3cret")
    (tmp_path / "work").mkdir()
    script = (
        "import os, sys\n"
        "open(os.environ['OUT'], 'w').write('|'.join([os.environ.get('PI_TEST_INHERITED', ''), os.environ.get('TOKEN', ''), os.getcwd()]))\n"
        "os.execv(sys.executable, [sys.executable, sys.argv[1]])\n"
    )
    out = tmp_path / "env.txt"

    async def body(connection: McpConnection) -> None:
        await connection.get_session()

    config = {
        "command": sys.executable,
        "args": ["-c", script, DEMO],
        "cwd": "work",
        "env": {"OUT": str(out), "TOKEN": "Bearer ${PI_TEST_SECRET}"},
    }
    await _with_connection(config, tmp_path, body)
    assert out.read_text() == f"from-pi|Bearer s3cret|{tmp_path / 'work'}"


async def test_stopping_a_server_stops_its_process_group(tmp_path: Path) -> None:
    # A wrapper that starts the real server as its child and ignores stdin closing, like npx.
    child_pid = tmp_path / "child"
    wrapper = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"p = subprocess.Popen([sys.executable, {DEMO!r}], env={{'DEMO_PID_FILE': {str(child_pid)!r}}})\n"
        "p.wait()\n"
        "time.sleep(60)\n"
    )

    async def body(connection: McpConnection) -> None:
        await connection.get_session()
        assert (await connection.call_tool("echo", {"text": "x"}))["isError"] is False

    started = time.monotonic()
    await _with_connection({"command": sys.executable, "args": ["-c", wrapper]}, tmp_path, body)
    assert time.monotonic() - started < 15
    server = int(child_pid.read_text())
    await _wait_for(lambda: not alive(server), 5)


async def test_http_server_tools_list_changes_and_a_dropped_server(
    tmp_path: Path, http_demo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TEST_TOKEN", "t0k3n")
    server = http_demo()
    refreshed: list[list[str]] = []

    async def body(connection: McpConnection) -> None:
        await connection.get_session()
        assert "extra" not in [t["name"] for t in connection.tools]
        assert (await connection.call_tool("grow", {}))["content"][0]["text"] == "grown"
        await _wait_for(lambda: "extra" in [t["name"] for t in connection.tools])
        assert refreshed[-1][-1] == "extra"
        assert (await connection.call_tool("extra", {"x": "1"}))["content"][0]["text"] == "extra 1"
        server.stop()
        with pytest.raises(McpConnectionClosed):
            await connection.call_tool("echo", {"text": "gone"})

    await _with_connection(
        {"url": server.url, "headers": {"Authorization": "Bearer ${PI_TEST_TOKEN}"}},
        tmp_path,
        body,
        on_tools=lambda c: refreshed.append([t["name"] for t in c.tools]),
    )


async def test_http_connect_failure_is_retried_then_reported(tmp_path: Path) -> None:
    async def body(connection: McpConnection) -> None:
        with pytest.raises(ConnectionError, match='MCP server "demo" failed to connect'):
            await connection.get_session()
        assert connection.state == "failed"

    await _with_connection({"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "x"}}, tmp_path, body)

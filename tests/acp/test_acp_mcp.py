"""The client's ``mcpServers`` in ACP sessions: real MCP servers written with the ``mcp`` SDK
(the demo server of ``tests/mcp``, over stdio and over streamable HTTP on 127.0.0.1) passed by
the official ACP client SDK, connected through pi's MCP support on top of the user's mcp.json,
with ``acp.permissions: ask-writes`` asking for MCP tools that are not read-only — also when a
codemode script calls them."""

from __future__ import annotations

import json
import sys

import pytest
from acp import schema
from acp.exceptions import RequestError

from tests.mcp.mcp_helpers import DEMO, http_demo  # noqa: F401 (http_demo: a fixture)

pytestmark = pytest.mark.anyio


def _stdio(name: str, **env: str):
    return schema.McpServerStdio(
        name=name,
        command=sys.executable,
        args=[DEMO],
        env=[schema.EnvVariable(name=k, value=v) for k, v in env.items()],
    )


def _codemode(code: str, call_id: str = "cm"):
    return {"toolCalls": [{"id": call_id, "name": "codemode", "arguments": {"code": code}}]}


def _text(update) -> str:
    return "\n".join(item.content.text for item in update.content if getattr(item.content, "text", None))


def _final(run, call_id):
    return [
        u
        for u in run.client.of("tool_call_update")
        if u.tool_call_id == call_id and u.status in ("completed", "failed")
    ][-1]


async def test_client_stdio_and_http_servers_reach_the_model(acp_agent, http_demo, tmp_path):  # noqa: F811
    events = tmp_path / "events.txt"
    remote = http_demo({"DEMO_EVENTS_FILE": str(events)})
    code = (
        'a = await tools.mcp__local__echo(text="hi")\ntext(a["content"][0]["text"])\n'
        'b = await tools.mcp__remote_demo__add(a=2, b=3)\ntext(json.dumps(b["structuredContent"]))'
    )
    script = [_codemode("import json\n" + code), {"text": "done"}]
    async with acp_agent(script=script) as run:
        init = await run.initialize()
        assert (init.agent_capabilities.mcp_capabilities.http, init.agent_capabilities.mcp_capabilities.sse) == (
            True,
            False,
        )
        http = schema.HttpMcpServer(
            type="http",
            name="remote demo",
            url=remote.url,
            headers=[schema.HttpHeader(name="X-Demo-Token", value="!$NOT_EXPANDED")],
        )
        session = await run.new_session([_stdio("local", DEMO_EVENTS_FILE=str(events)), http])
        result = await run.prompt(session.session_id, "use the servers")
        assert result.stop_reason == "end_turn"
        output = _text(_final(run, "cm"))
        assert "echo: hi" in output and '{"sum": 5}' in output
        nested = {u.tool_call_id: u for u in run.client.of("tool_call")}
        assert nested["cm/1"].title == "mcp__local__echo" and nested["cm/2"].title == "mcp__remote_demo__add"
        lines = events.read_text().splitlines()
        assert "call echo" in lines and "call add" in lines  # the stdio server got the client's env
        assert "header x-demo-token=!$NOT_EXPANDED" in lines  # headers are literal text

        before = len(run.client.text())
        await run.prompt(session.session_id, "/mcp")
        status = run.client.text()[before:]
        assert (
            "local: connected, 11 tools (codemode)" in status
            and "remote_demo: connected, 11 tools (codemode)" in status
        )


async def test_mcp_json_servers_take_precedence_and_both_connect(acp_agent, tmp_path):
    script = [_codemode('r = await tools.mcp__mine__echo(text="x")\ntext(r["content"][0]["text"])'), {"text": "ok"}]
    async with acp_agent(script=script) as run:
        mcp_json = run.agent_dir / "mcp.json"
        mcp_json.write_text(
            json.dumps({"mcpServers": {"shared": {"command": sys.executable, "args": [DEMO], "exposure": "direct"}}})
        )
        await run.initialize()
        session = await run.new_session([_stdio("shared"), _stdio("mine")])
        await run.prompt(session.session_id, "go")
        assert "echo: x" in _text(_final(run, "cm"))
        before = len(run.client.text())
        await run.prompt(session.session_id, "/mcp")
        status = run.client.text()[before:]
        assert "shared: connected, 11 tools (direct)" in status and "mine: connected, 11 tools (codemode)" in status
        assert f'overridden: "shared" registered by the ACP client is overridden by "shared" in {mcp_json}' in status


async def test_ask_writes_asks_for_mcp_tools_without_read_only_hint(acp_agent):
    code = (
        'await tools.mcp__demo__echo(text="read only")\n'
        'await tools.mcp__demo__add(a=1, b=1)\ntext("first add ran")\n'
        'try:\n    await tools.mcp__demo__add(a=2, b=2)\nexcept Exception as exc:\n    text(f"second add: {exc}")'
    )
    script = [_codemode(code), {"text": "ok"}]
    async with acp_agent(script=script, settings={"acp": {"permissions": "ask-writes"}}) as run:
        run.client.permission_answers = ["allow", "reject"]
        await run.initialize()
        session = await run.new_session([_stdio("demo")])
        await run.prompt(session.session_id, "go")
        asked = [(call.tool_call_id, call.title) for call, _ in run.client.permission_requests]
        assert asked == [("cm/2", "mcp__demo__add"), ("cm/3", "mcp__demo__add")]  # echo is readOnlyHint
        output = _text(_final(run, "cm"))
        assert "first add ran" in output and "second add: The user rejected this tool call" in output
        assert _final(run, "cm/3").status == "failed"


async def test_bad_mcp_server_entries_are_invalid_params(acp_agent):
    async with acp_agent() as run:
        await run.initialize()
        for servers, detail in (
            (
                [schema.SseMcpServer(type="sse", name="old", url="http://127.0.0.1:1/sse", headers=[])],
                "SSE transport is not supported",
            ),
            ([_stdio("same"), _stdio("same")], 'server "same" conflicts with "same"'),
            (
                [schema.HttpMcpServer(type="http", name="x", url="ftp://nowhere", headers=[])],
                "url must be an http or https URL",
            ),
        ):
            with pytest.raises(RequestError) as bad:
                await run.new_session(servers)
            assert bad.value.code == -32602 and detail in bad.value.data["details"]
        session = await run.new_session()
        assert (await run.prompt(session.session_id, "still fine")).stop_reason == "end_turn"

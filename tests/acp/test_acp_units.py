"""Pure pieces of the ACP mode: stop reasons, prompt blocks, tool-call presentation, replay."""

from __future__ import annotations

import pytest

from pi_rpc.modes.acp.content import prompt_from_blocks, replay_updates
from pi_rpc.modes.acp.jsonrpc import RpcError
from pi_rpc.modes.acp.session import stop_reason_for
from pi_rpc.modes.acp.tool_calls import tool_call_fields


def test_stop_reasons() -> None:
    assert stop_reason_for({"stopReason": "stop"}, False) == "end_turn"
    assert stop_reason_for({"stopReason": "length"}, False) == "max_tokens"
    assert stop_reason_for({"stopReason": "aborted"}, False) == "cancelled"
    assert stop_reason_for({"stopReason": "stop"}, True) == "cancelled"
    assert (
        stop_reason_for({"stopReason": "error", "errorMessage": "The model refused to complete the request"}, False)
        == "refusal"
    )
    assert (
        stop_reason_for({"stopReason": "error", "errorMessage": "Provider stopped with: sensitive"}, False) == "refusal"
    )
    own_words = {"stopReason": "error", "errorMessage": "I will not help with that.", "rawStopReason": "refusal"}
    assert stop_reason_for(own_words, False) == "refusal"
    assert (
        stop_reason_for(
            {"stopReason": "error", "errorMessage": "Provider stopped with: SAFETY", "rawStopReason": "SAFETY"}, False
        )
        == "refusal"
    )
    with pytest.raises(RpcError) as failed:
        stop_reason_for({"stopReason": "error", "errorMessage": "503 overloaded"}, False)
    assert (failed.value.code, failed.value.message) == (-32603, "503 overloaded")
    with pytest.raises(RpcError) as auth:
        stop_reason_for({"stopReason": "error", "errorMessage": "No API key found for anthropic."}, False)
    assert auth.value.code == -32000


def test_prompt_blocks() -> None:
    text, images = prompt_from_blocks(
        [
            {"type": "text", "text": "Look at"},
            {"type": "resource_link", "uri": "file:///p/a.py", "name": "a.py"},
            {"type": "resource", "resource": {"uri": "file:///p/b.py", "text": "print(1)"}},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        ]
    )
    assert text == 'Look at\n[@a.py](file:///p/a.py)\n\n<context uri="file:///p/b.py">\nprint(1)\n</context>'
    assert images == [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]
    with pytest.raises(RpcError) as bad:
        prompt_from_blocks([{"type": "video"}])
    assert bad.value.code == -32602 and "prompt[0]" in bad.value.data["details"]
    with pytest.raises(RpcError):
        prompt_from_blocks("text")


def test_tool_call_fields_use_absolute_paths() -> None:
    fields = tool_call_fields("read", {"path": "src/x.py", "offset": 10, "limit": 5}, "/work")
    assert fields["title"] == "Read src/x.py (lines 10–14)" and fields["kind"] == "read"
    assert fields["locations"] == [{"path": "/work/src/x.py", "line": 10}]
    assert tool_call_fields("grep", {"pattern": "TODO"}, "/work")["locations"] == [{"path": "/work"}]
    assert tool_call_fields("mcp_tool", {}, "/work") == {
        "title": "mcp_tool",
        "kind": "other",
        "locations": [],
        "rawInput": {},
    }
    assert tool_call_fields("bash", {"command": "ls\nrm -rf x"}, "/w")["title"] == "ls …"


def test_replay_covers_every_role() -> None:
    messages = [
        {"role": "system", "content": ""},
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t"},
                {"type": "toolCall", "id": "c", "name": "edit", "arguments": {"path": "f"}},
            ],
        },
        {
            "role": "toolResult",
            "toolCallId": "c",
            "toolName": "edit",
            "content": [{"type": "text", "text": "ok"}],
            "isError": False,
        },
        {"role": "compactionSummary", "summary": "S"},
    ]
    kinds = [u["sessionUpdate"] for u in replay_updates(messages, "/w")]
    assert kinds == [
        "user_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "agent_thought_chunk",
    ]


def test_client_mcp_servers_become_literal_mcp_json_entries() -> None:
    from pi_rpc.modes.acp.mcp_servers import client_mcp_servers, literal

    assert literal("$HOME and $$") == "$$HOME and $$$$" and literal("!rm -rf /") == "$!rm -rf /"
    from pi_rpc.ai.models.config_value import resolve_config_value

    for text in ("$HOME", "${X}", "!echo hi", "a$!b", "plain"):
        assert resolve_config_value(literal(text), cached=False) == text
    servers = client_mcp_servers(
        [
            {
                "name": "My Server",
                "command": "/bin/srv",
                "args": ["-v"],
                "env": [{"name": "TOKEN", "value": "$SECRET"}],
            },
            {
                "type": "http",
                "name": "web",
                "url": "https://example.com/mcp",
                "headers": [{"name": "Authorization", "value": "Bearer x"}],
            },
        ]
    )
    assert servers == [
        {
            "name": "My_Server",
            "config": {"command": "/bin/srv", "args": ["-v"], "env": {"TOKEN": "$$SECRET"}},
            "extensionPath": "the ACP client",
        },
        {
            "name": "web",
            "config": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
            "extensionPath": "the ACP client",
        },
    ]
    for bad, detail in (
        ("nope", '"mcpServers" must be an array'),
        ([{"name": "x"}], "mcpServers[0].command must be a non-empty string"),
        ([{"name": "x", "command": "c", "env": {"A": "b"}}], "mcpServers[0].env must be an array"),
        ([{"name": "x", "command": "c", "args": [1]}], "mcpServers[0].args must be an array of strings"),
        ([{"type": "acp", "name": "x", "serverId": "s"}], "MCP over ACP is not supported"),
        ([{"name": "a-b", "command": "c"}, {"name": "a_b", "command": "c"}], 'server "a_b" conflicts with "a-b"'),
    ):
        with pytest.raises(RpcError) as failure:
            client_mcp_servers(bad)
        assert failure.value.code == -32602 and detail in failure.value.data["details"]

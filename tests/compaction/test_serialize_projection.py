"""Transcript serialization, LLM conversion of coding-agent roles, projection, settings."""

from __future__ import annotations

from pi_rpc.compaction import CompactionSettings, build_projection, convert_to_llm, serialize_conversation

from .conftest import SessionBuilder


def test_serialize_conversation_format() -> None:
    messages = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hi"}, {"type": "image", "data": "A", "mimeType": "image/png"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "let me look"},
                {"type": "toolCall", "id": "1", "name": "read", "arguments": {"path": "a.py", "limit": 5}},
                {"type": "toolCall", "id": "2", "name": "bash", "arguments": {"command": "ls -la"}},
            ],
        },
        {
            "role": "toolResult",
            "toolCallId": "1",
            "toolName": "read",
            "content": [{"type": "text", "text": "x" * 2005}],
        },
        {"role": "user", "content": ""},
    ]
    assert serialize_conversation(messages) == (
        "[User]: hi\n\n"
        "[Assistant thinking]: hmm\n\n"
        "[Assistant]: let me look\n\n"
        '[Assistant tool calls]: read(path="a.py", limit=5); bash(command="ls -la")\n\n'
        "[Tool result]: " + "x" * 2000 + "\n\n[... 5 more characters truncated]"
    )


def test_convert_to_llm_roles() -> None:
    out = convert_to_llm(
        [
            {"role": "system", "content": "", "sections": {"preamble": "p"}, "timestamp": 1},
            {
                "role": "bashExecution",
                "command": "make",
                "output": "out\n",
                "exitCode": 2,
                "cancelled": False,
                "truncated": False,
                "timestamp": 2,
            },
            {
                "role": "bashExecution",
                "command": "true",
                "output": "",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "timestamp": 3,
            },
            {
                "role": "bashExecution",
                "command": "secret",
                "output": "x",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "excludeFromContext": True,
                "timestamp": 4,
            },
            {"role": "custom", "customType": "note", "content": "remember", "display": True, "timestamp": 5},
            {"role": "compactionSummary", "summary": "S1", "tokensBefore": 9, "timestamp": 6},
            {"role": "branchSummary", "summary": "S2", "fromId": "x", "timestamp": 7},
        ]
    )
    texts = [m["content"][0]["text"] for m in out]
    assert all(m["role"] == "user" for m in out)
    assert texts == [
        "Ran `make`\n```\nout\n\n```\n\nCommand exited with code 2",
        "Ran `true`\n(no output)",
        "remember",
        "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS1\n</summary>",
        "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nS2</summary>",
    ]


def test_projection_after_compaction() -> None:
    b = SessionBuilder()
    b.user("one")
    system = b.message({"role": "system", "content": "", "sections": {"preamble": "p"}})
    kept = b.user("two")
    b.assistant("r2")
    omitted = b.assistant("bad", stop="error", error="x")
    b.add("context_edit", targetId=omitted["id"], replacement=None)
    c = b.add(
        "compaction",
        summary="SUM",
        firstKeptEntryId=kept["id"],
        tokensBefore=77,
        systemMessage={"role": "system", "content": "CHK", "timestamp": 0},
    )
    b.add("custom_message", customType="ext", content="injected", display=False)
    b.add("branch_summary", fromId="root", summary="")  # empty summaries contribute nothing
    projection = build_projection(b.path())
    assert projection[0].entry is c
    assert [m["role"] for m in projection[0].messages] == ["system", "compactionSummary"]
    assert projection[0].messages[1]["summary"] == "SUM" and projection[0].messages[1]["tokensBefore"] == 77
    roles = [m["role"] for pe in projection[1:] for m in pe.messages]
    assert roles == ["user", "assistant", "custom"]  # old system message and omitted reply gone
    assert system["id"] not in [pe.entry["id"] for pe in projection if pe.messages]


def test_projection_with_unknown_first_kept_keeps_nothing_before() -> None:
    b = SessionBuilder()
    b.user("one")
    b.add("compaction", summary="S", firstKeptEntryId="nope", tokensBefore=1)
    b.user("two")
    projection = build_projection(b.path())
    assert [m["role"] for pe in projection for m in pe.messages] == ["compactionSummary", "user"]


def test_settings_from_json() -> None:
    assert CompactionSettings.from_dict(None) == CompactionSettings(True, 16384, 20000)
    section = {
        "enabled": False,
        "reserveTokens": 8000,
        "modelOverrides": {"fake/fake-model": {"keepRecentTokens": 5000}},
    }
    assert CompactionSettings.from_dict(section) == CompactionSettings(False, 8000, 20000)
    assert CompactionSettings.from_dict(section, "fake/fake-model") == CompactionSettings(False, 8000, 5000)

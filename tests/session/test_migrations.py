"""v1 -> v3 and v2 -> v3 migrations rewrite the file."""

from __future__ import annotations

import orjson

from pi_rpc.session import SessionManager

from .session_helpers import read_lines


def _write(path, lines):
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))


def test_v1_file_is_migrated_and_rewritten(tmp_path):
    path = tmp_path / "v1.jsonl"
    v1 = [
        {"type": "session", "id": "old-session", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": str(tmp_path)},
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:01.000Z",
            "message": {"role": "user", "content": "first", "timestamp": 1},
        },
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}],
                "provider": "p",
                "model": "m",
                "usage": {},
                "stopReason": "stop",
                "timestamp": 2,
            },
        },
        {
            "type": "message",
            "timestamp": "2025-01-01T00:00:03.000Z",
            "message": {"role": "hookMessage", "customType": "x", "content": "hook", "display": True, "timestamp": 3},
        },
        {
            "type": "compaction",
            "timestamp": "2025-01-01T00:00:04.000Z",
            "summary": "S",
            "firstKeptEntryIndex": 2,
            "tokensBefore": 50,
        },
    ]
    data = b"".join(orjson.dumps(x) + b"\n" for x in v1)
    path.write_bytes(data + b"{torn")  # a torn tail is dropped by the rewrite too
    m = SessionManager.open(str(path))
    assert any("migrated from format v1 to v3" in d for d in m.diagnostics)
    lines = read_lines(str(path))  # rewritten: every line parses
    header = lines[0]
    assert header["version"] == 3 and list(header)[-1] == "version"  # new key appended
    ids = [e["id"] for e in lines[1:]]
    assert [e["parentId"] for e in lines[1:]] == [None] + ids[:-1]
    assert list(lines[1])[-2:] == ["id", "parentId"]
    assert lines[3]["message"]["role"] == "custom"
    compaction = lines[4]
    assert "firstKeptEntryIndex" not in compaction and compaction["firstKeptEntryId"] == ids[1]
    assert m.session_id == "old-session"
    ctx = m.build_session_context()
    assert [x["role"] for x in ctx["messages"]] == ["compactionSummary", "assistant", "custom"]
    m.close()
    again = SessionManager.open(str(path))
    assert again.diagnostics == []
    again.close()


def test_v2_hook_message_becomes_custom(tmp_path):
    path = tmp_path / "v2.jsonl"
    _write(
        path,
        [
            {"type": "session", "version": 2, "id": "s2", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/"},
            {
                "type": "message",
                "id": "aaaaaaaa",
                "parentId": None,
                "timestamp": "2025-01-01T00:00:01.000Z",
                "message": {"role": "hookMessage", "customType": "h", "content": "x", "display": False, "timestamp": 1},
            },
        ],
    )
    m = SessionManager.open(str(path))
    assert m.diagnostics == ["migrated from format v2 to v3 (file rewritten)"]
    lines = read_lines(str(path))
    assert lines[0]["version"] == 3 and lines[1]["id"] == "aaaaaaaa"
    assert lines[1]["message"]["role"] == "custom"
    m.close()

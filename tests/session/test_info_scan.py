"""The listing scanner (``session.info_scan``) skips most lines unparsed; on every file shape here
it must give exactly what upstream's ``buildSessionInfo`` gives by parsing every line (the
reference below is a line-by-line port of it)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest

from pi_rpc.session.ids import iso_to_ms
from pi_rpc.session.listing import build_session_info, list_sessions

from .session_helpers import session_files


def upstream_build_session_info(path: str) -> dict[str, Any] | None:
    """Upstream 1.6 ``buildSessionInfo``, line by line (JSON.parse of each non-blank line)."""
    data = Path(path).read_bytes()
    header = None
    count = 0
    first = ""
    texts: list[str] = []
    name = None
    last = None
    for raw in data.split(b"\n"):
        line = raw[:-1] if raw.endswith(b"\r") else raw  # readline with crlfDelay: Infinity
        if not line.strip():
            continue
        try:
            entry = orjson.loads(line.decode("utf-8", "replace"))
        except orjson.JSONDecodeError:
            continue
        if entry is None or entry is False or entry == 0 or entry == "":
            continue
        if header is None:
            if not isinstance(entry, dict) or entry.get("type") != "session":
                return None
            header = entry
            continue
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "session_info":
            raw_name = entry.get("name")
            name = (raw_name.strip() or None) if isinstance(raw_name, str) else None
        if entry.get("type") != "message":
            continue
        count += 1
        message = entry.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("role"), str) or "content" not in message:
            continue
        if message["role"] not in ("user", "assistant"):
            continue
        ts = message.get("timestamp")
        activity = (
            ts if isinstance(ts, (int, float)) and not isinstance(ts, bool) else iso_to_ms(entry.get("timestamp"))
        )
        if activity is not None:
            last = max(last or 0, activity)
        content = message["content"]
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            text = " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
        else:
            text = ""
        if not text:
            continue
        texts.append(text)
        if not first and message["role"] == "user":
            first = text
    if header is None:
        return None
    header_ms = iso_to_ms(header.get("timestamp"))
    modified = last if last is not None and last > 0 else header_ms
    return {
        "id": str(header.get("id")),
        "name": name,
        "count": count,
        "first": first or "(no messages)",
        "modified": datetime.fromtimestamp(modified / 1000, tz=timezone.utc) if modified is not None else None,
        "texts": texts,
    }


def ours(path: str, with_texts: bool) -> dict[str, Any] | None:
    info = build_session_info(path, with_texts=with_texts)
    if info is None:
        return None
    return {
        "id": info.id,
        "name": info.name,
        "count": info.message_count,
        "first": info.first_message,
        "modified": info.modified,
        "texts": list(info.message_texts),
    }


HEADER = '{"type":"session","version":3,"id":"s-1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}'


def msg(eid: str, role: str, text: str, ts: Any = 1_736_000_000_000, **extra: Any) -> str:
    message = {"role": role, "content": [{"type": "text", "text": text}], **extra}
    if ts is not None:
        message["timestamp"] = ts
    return json.dumps(
        {"type": "message", "id": eid, "parentId": None, "timestamp": "2025-01-02T00:00:00.000Z", "message": message},
        separators=(",", ":"),
        ensure_ascii=False,
    )


CASES: dict[str, list[str] | bytes] = {
    "plain": [HEADER, msg("a", "user", "hello"), msg("b", "assistant", "hi there", 1_736_000_000_500)],
    "timestamps out of order": [
        HEADER,
        msg("a", "user", "q", 1_736_000_009_000),
        msg("b", "assistant", "x", 1_736_000_001_000),
    ],
    "nested timestamp after the message's": [
        HEADER,
        msg("a", "user", "q"),
        msg("b", "assistant", "x", 1_736_000_000_100, details={"timestamp": 1_999_999_999_999}),
    ],
    "brace in a string after the timestamp": [
        HEADER,
        msg("a", "user", "q"),
        msg("b", "assistant", "x", 1_736_000_000_100, errorMessage="bad } here {"),
    ],
    "timestamp before content": [
        HEADER,
        msg("a", "user", "q"),
        '{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-03T00:00:00.000Z","message":{"role":"assistant",'
        '"timestamp":1736000000001,"content":[{"type":"toolCall","arguments":{"timestamp":1999999999999}}]}}',
    ],
    "no message timestamp (entry time)": [HEADER, msg("a", "user", "q", None), msg("b", "assistant", "x", None)],
    "string message timestamp": [HEADER, msg("a", "user", "q", "soon"), msg("b", "assistant", "x", "later")],
    "float timestamp": [
        HEADER,
        msg("a", "user", "q", 1.7360000000005e12),
        msg("b", "assistant", "x", 1736000000000.25),
    ],
    "no content": [
        HEADER,
        '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-02T00:00:00.000Z",'
        '"message":{"role":"user","timestamp":1736000000000}}',
    ],
    "string content": [
        HEADER,
        '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-02T00:00:00.000Z",'
        '"message":{"role":"user","content":"plain string","timestamp":1736000000000}}',
    ],
    "other roles and entries": [
        HEADER,
        '{"type":"model_change","id":"m","parentId":null,"timestamp":"2025-01-02T00:00:00.000Z","provider":"p","modelId":"x"}',
        msg("s", "system", "system prompt"),
        msg("a", "user", "q"),
        msg("t", "toolResult", 'output with "timestamp":1 and {braces}', 1_999_999_999_999),
        msg("c", "custom", "custom"),
        msg("x", "bashExecution", "ran"),
        msg("k", "compactionSummary", "sum"),
        '{"type":"label","id":"l","parentId":"a","timestamp":"2025-01-02T00:00:00.000Z","targetId":"a","label":"L"}',
        '{"type":"compaction","id":"cp","parentId":"a","timestamp":"2025-01-02T00:00:00.000Z","summary":"s"}',
    ],
    "names": [
        HEADER,
        '{"type":"session_info","id":"n1","parentId":null,"timestamp":"x","name":"  First  "}',
        msg("a", "user", "q"),
        '{"type":"session_info","id":"n2","parentId":"a","timestamp":"x","name":"   "}',
    ],
    "name kept": [HEADER, '{"type":"session_info","id":"n1","parentId":null,"timestamp":"x","name":"Kept"}'],
    "non-string name": [HEADER, '{"type":"session_info","id":"n1","parentId":null,"timestamp":"x","name":5}'],
    "other key order": [
        HEADER,
        '{"id":"a","type":"message","parentId":null,"timestamp":"2025-01-02T00:00:00.000Z",'
        '"message":{"role":"user","content":[{"type":"text","text":"reordered"}],"timestamp":1}}',
    ],
    "escaped type and role": [
        HEADER,
        '{"type":"mess\\u0061ge","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"esc type","timestamp":5}}',
        '{"type":"message","id":"b","parentId":null,"timestamp":"t","message":{"role":"us\\u0065r","content":"esc role","timestamp":6}}',
        '{"type":"message","id":"c","parentId":null,"timestamp":"t","message":{"role":"tool\\u0052esult","content":"x","timestamp":7}}',
    ],
    "object before the message": [
        HEADER,
        '{"type":"message","id":"a","meta":{"k":1},"parentId":null,"timestamp":"t",'
        '"message":{"role":"system","content":"s","timestamp":9}}',
    ],
    "message without a message": [HEADER, '{"type":"message"}', '{"type":"message","id":"z"}'],
    "unknown role": [HEADER, msg("a", "robot", "beep"), msg("b", "user", "q")],
    "garbage, blanks and values": [
        "",
        "not json",
        "null",
        HEADER,
        "  ",
        "42",
        "[1]",
        "{bad",
        msg("a", "user", "q"),
        "false",
    ],
    "first value not a session": ["42", HEADER, msg("a", "user", "q")],
    "first object not a session": [msg("a", "user", "q"), HEADER],
    "only a header": [HEADER],
    "torn last line": [HEADER, msg("a", "user", "q"), msg("b", "toolResult", "cut")[:-7]],
    "torn user line": [HEADER, msg("a", "user", "first"), msg("b", "user", "second")[:-3]],
    "crlf": b"\r\n".join(
        x.encode()
        for x in [
            HEADER,
            msg("a", "user", "q"),
            msg("t", "toolResult", "o"),
            msg("b", "assistant", "x", 1_736_000_000_700),
        ]
    )
    + b"\r\n",
    "invalid utf-8": HEADER.encode()
    + b"\n"
    + msg("a", "user", "caf\u00e9").encode().replace(b"\xc3\xa9", b"\xff")
    + b"\n",
    "empty": b"",
    "spaces in json": [
        HEADER,
        '{"type": "message", "id": "a", "message": {"role": "user", "content": "spaced", "timestamp": 3}}',
    ],
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("with_texts", [False, True])
def test_scanner_equals_upstream_line_by_line(tmp_path: Path, case: str, with_texts: bool) -> None:
    content = CASES[case]
    path = tmp_path / "s.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else ("\n".join(content) + "\n").encode())
    expected = upstream_build_session_info(str(path))
    got = ours(str(path), with_texts)
    if expected is None:
        assert got is None
        return
    assert got is not None
    if expected["modified"] is None:  # neither activity nor header time: the file's mtime
        expected["modified"] = datetime.fromtimestamp(os.stat(path).st_mtime, tz=timezone.utc)
    if not with_texts:
        expected["texts"] = []
    assert got == expected


def test_upstream_session_files_scan_like_upstream(tmp_path: Path) -> None:
    paths = [p for scenario in ("b_text", "c_tool_bash", "d_fork") for p in session_files(scenario)]
    assert paths
    for path in paths:
        expected = upstream_build_session_info(path)
        assert expected is not None
        assert ours(path, True) == expected
        expected["texts"] = []
        assert ours(path, False) == expected


def test_listing_query_needs_and_uses_the_texts(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(
        "\n".join([HEADER, msg("a", "user", "Fix the Parser"), msg("b", "assistant", "Done: tokenizer")]) + "\n"
    )
    infos = list_sessions(str(tmp_path), with_texts=True)
    assert infos[0].matches("parser") and infos[0].matches("TOKENIZER") and not infos[0].matches("lexer")
    assert not infos[0].matches("parser done")  # one message at a time, not across messages
    assert list_sessions(str(tmp_path))[0].message_texts == ()


def test_unchanged_files_are_not_read_again_and_changed_ones_are(tmp_path: Path) -> None:
    from pi_rpc.session.listing import SUMMARY_CACHE

    path = tmp_path / "a.jsonl"
    path.write_text("\n".join([HEADER, msg("a", "user", "first")]) + "\n")
    assert list_sessions(str(tmp_path))[0].first_message == "first"
    stat = os.stat(path)
    # Same size and times, other bytes: only a re-read could notice, and none happens.
    path.write_text("\n".join([HEADER, msg("a", "user", "FIRST")]) + "\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert list_sessions(str(tmp_path))[0].first_message == "first"
    # An appended entry changes size and mtime: read again.
    with open(path, "a") as f:
        f.write(msg("b", "assistant", "answer", 1_736_000_009_999) + "\n")
    infos = list_sessions(str(tmp_path))
    assert infos[0].first_message == "FIRST" and infos[0].message_count == 2
    # A search reads the texts from the file, never from the cache.
    assert list_sessions(str(tmp_path), with_texts=True)[0].message_texts == ("FIRST", "answer")
    SUMMARY_CACHE.clear()

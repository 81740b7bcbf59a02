"""File format v3: header, entry shapes/key order, ids, timestamps, JS number formatting."""

from __future__ import annotations

import os
import re
import stat
import uuid

import pytest

from pi_rpc.session import (
    SESSION_ID_ERROR,
    SessionManager,
    assert_valid_session_id,
    dumps_line,
    iso_to_ms,
    js_normalize,
    new_entry_id,
    now_iso,
    uuid7,
)

from .session_helpers import read_lines, session_files

ISO_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def _shape(value):
    """Keys (in order) and JSON types, recursively; ids, texts and numbers are not compared."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()} | {"__order__": list(value)}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__


def test_written_session_is_structurally_identical_to_upstream(tmp_path):
    (src,) = session_files("b_text")
    upstream = read_lines(src)
    m = SessionManager.create(upstream[0]["cwd"], str(tmp_path))
    m.append_model_change(upstream[1]["provider"], upstream[1]["modelId"])
    m.append_thinking_level_change(upstream[2]["thinkingLevel"])
    for entry in upstream[3:]:
        m.append_message(entry["message"])
    m.close()
    ours = read_lines(m.session_file)
    assert len(ours) == len(upstream)
    for mine, theirs in zip(ours, upstream):
        assert _shape(mine) == _shape(theirs)
    header = ours[0]
    assert header["version"] == 3 and ISO_RE.match(header["timestamp"])
    assert uuid.UUID(header["id"]).version == 7
    assert (
        os.path.basename(m.session_file)
        == header["timestamp"].replace(":", "-").replace(".", "-") + f"_{header['id']}.jsonl"
    )
    for entry in ours[1:]:
        assert re.fullmatch(r"[0-9a-f]{8}", entry["id"])
        assert ISO_RE.match(entry["timestamp"])
    assert [e["parentId"] for e in ours[1:]] == [None] + [e["id"] for e in ours[1:-1]]
    assert stat.S_IMODE(os.stat(m.session_file).st_mode) == 0o600


def test_entry_key_orders(tmp_path):
    m = SessionManager.in_memory("/w")
    root = m.append_model_change("p", "m")
    m.append_message({"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1})
    ids = {
        "usage": m.append_usage("cache_warm", "p", "m", {"input": 1}, note="n")["id"],
        "custom": m.append_custom_entry("ext", {"a": 1}),
        "custom_message": m.append_custom_message_entry("ext", "text", True, {"d": 1}),
        "session_info": m.append_session_info("  My\r\nSession  "),
        "label": m.append_label_change(root, "start"),
        "compaction": m.append_compaction("sum", None, 10, {"readFiles": []}, False, {"input": 2}),
        "branch_summary": m.branch_with_summary(root, "bs", None, True),
    }
    m.branch(ids["custom_message"])
    ids["context_edit"] = m.append_context_edit(ids["custom_message"], None)
    ids["thinking_level_change"] = m.append_thinking_level_change("high")
    expected = {
        "usage": ["type", "id", "parentId", "timestamp", "kind", "provider", "model", "usage", "note"],
        "custom": ["type", "customType", "data", "id", "parentId", "timestamp"],
        "custom_message": ["type", "customType", "content", "display", "details", "id", "parentId", "timestamp"],
        "session_info": ["type", "id", "parentId", "timestamp", "name"],
        "label": ["type", "id", "parentId", "timestamp", "targetId", "label"],
        "compaction": [
            "type",
            "id",
            "parentId",
            "timestamp",
            "summary",
            "firstKeptEntryId",
            "tokensBefore",
            "details",
            "usage",
            "fromHook",
        ],
        "branch_summary": ["type", "id", "parentId", "timestamp", "fromId", "summary", "fromHook"],
        "context_edit": ["type", "id", "parentId", "timestamp", "targetId", "replacement"],
        "thinking_level_change": ["type", "id", "parentId", "timestamp", "thinkingLevel"],
    }
    for kind, keys in expected.items():
        assert list(m.get_entry(ids[kind])) == keys, kind
    assert m.get_entry(ids["session_info"])["name"] == "My Session"
    compaction = m.get_entry(ids["compaction"])
    assert compaction["firstKeptEntryId"] == compaction["id"]  # None = keep nothing
    summary = m.get_entry(ids["branch_summary"])
    assert summary["parentId"] == root and summary["fromId"] == ids["compaction"]
    assert m.get_entry(ids["context_edit"])["replacement"] is None
    assert "details" not in m.get_entry(m.append_custom_message_entry("x", [], False))


def test_js_number_formatting():
    value = {"a": 0.0, "b": 1.5, "c": [2.0, -0.0, 1e21, 3], "d": {"e": 1e15}, "f": True}
    assert dumps_line(value) == b'{"a":0,"b":1.5,"c":[2,0,1e+21,3],"d":{"e":1000000000000000},"f":true}\n'
    plain = {"x": [1, "s", None]}
    assert js_normalize(plain) is plain
    assert dumps_line({"s": "é\u2028"}) == '{"s":"é\u2028"}\n'.encode()


def test_ids_and_timestamps():
    ids = [uuid7() for _ in range(500)]
    assert ids == sorted(ids) and len(set(ids)) == 500
    assert all(uuid.UUID(i).version == 7 and uuid.UUID(i).variant == uuid.RFC_4122 for i in ids)
    assert new_entry_id(set()) != new_entry_id(set()) or True
    taken = {format(i, "08x") for i in range(0)}
    assert re.fullmatch(r"[0-9a-f]{8}", new_entry_id(taken))

    class Everything:
        def __contains__(self, item):
            return len(item) == 8

    assert len(new_entry_id(Everything())) == 36  # 100 collisions -> full UUID
    ts = now_iso()
    assert ISO_RE.match(ts)
    assert iso_to_ms("2026-11-29T19:34:22.662Z") == 1795980862662
    assert iso_to_ms("garbage") is None


def test_session_id_validation():
    for good in ("a", "abc-1.2_x", "01a228cd-24c5-7416-9a97-7df4b43a65ec"):
        assert_valid_session_id(good)
    for bad in ("", "-a", "a-", "a b", "a/b", ".x"):
        with pytest.raises(ValueError) as err:
            assert_valid_session_id(bad)
        assert str(err.value) == SESSION_ID_ERROR
    with pytest.raises(ValueError):
        SessionManager.create("/tmp", "/tmp/none-here", session_id="bad id")


def test_custom_session_id_and_parent_in_header(tmp_path):
    m = SessionManager.create(str(tmp_path), str(tmp_path), session_id="my-id", parent_session="/x/p.jsonl")
    m.append_message({"role": "user", "content": [], "timestamp": 1})
    header = read_lines(m.session_file)[0]
    assert header["id"] == "my-id" and header["parentSession"] == "/x/p.jsonl"
    assert list(header) == ["type", "version", "id", "timestamp", "cwd", "parentSession"]
    m.close()
    empty_parent = SessionManager.create(str(tmp_path), str(tmp_path), parent_session="")
    assert "parentSession" not in empty_parent.get_header()

"""Tree semantics (leaf, branch, labels, names, get_tree, get_entries, fork messages) and the
model-visible projection (compaction, branch summaries, custom messages, context edits)."""

from __future__ import annotations

import pytest

from pi_rpc.session import EntryNotFoundError, SessionError, SessionManager


def user(text, ts=1):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def assistant(text, ts=2, stop="stop", total=10):
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "a",
        "provider": "prov",
        "model": "mod",
        "usage": {
            "input": total,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": total,
            "cost": {"total": 0.5},
        },
        "stopReason": stop,
        "timestamp": ts,
    }


SYSTEM = {
    "role": "system",
    "content": "",
    "sections": {"preamble": "P", "cwd": "C"},
    "timestamp": 0,
    "toolsAdded": [{"name": "read", "description": "d", "parameters": {}}],
}


def test_leaf_branch_reset_and_tree(tmp_path):
    m = SessionManager.in_memory("/w")
    a = m.append_model_change("p", "m")
    b = m.append_message(user("one"))
    c = m.append_message(assistant("r1"))
    m.branch(b)
    d = m.append_message(assistant("r1-alt"))
    assert m.get_entry(d)["parentId"] == b and m.get_leaf_id() == d
    assert [e["id"] for e in m.get_branch()] == [a, b, d]
    assert [e["id"] for e in m.get_branch(c)] == [a, b, c]
    assert [e["id"] for e in m.get_children(b)] == [c, d]
    m.reset_leaf()
    assert m.build_session_context() == {"messages": [], "thinkingLevel": "off", "model": None}
    r = m.append_message(user("new root"))
    assert m.get_entry(r)["parentId"] is None
    with pytest.raises(EntryNotFoundError) as err:
        m.branch("nope")
    assert str(err.value) == "Entry nope not found"
    m.append_label_change(b, "L1")
    m.append_label_change(b, "L2")
    lbl = m.append_label_change(c, "gone")
    m.append_label_change(c, None)
    assert m.get_label(b) == "L2" and m.get_label(c) is None
    tree = m.get_tree()
    assert [n["entry"]["id"] for n in tree] == [a, r]  # roots in append order
    node_b = tree[0]["children"][0]
    assert list(node_b) == ["entry", "children", "label", "labelTimestamp"] and node_b["label"] == "L2"
    assert [n["entry"]["id"] for n in node_b["children"]] == [c, d]
    assert list(node_b["children"][0]) == ["entry", "children"]
    with pytest.raises(EntryNotFoundError):
        m.append_label_change("zzz", "x")
    assert m.get_entries(since=lbl)[0]["type"] == "label" and len(m.get_entries(since=lbl)) == 1


def test_tree_orphans_children_sorted_by_timestamp(tmp_path):
    entries = [
        {
            "type": "model_change",
            "id": "r",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "provider": "p",
            "modelId": "m",
        },
        {"type": "custom", "customType": "x", "id": "late", "parentId": "r", "timestamp": "2026-01-01T00:00:09.000Z"},
        {"type": "custom", "customType": "x", "id": "early", "parentId": "r", "timestamp": "2026-01-01T00:00:01.000Z"},
        {
            "type": "custom",
            "customType": "x",
            "id": "orph",
            "parentId": "missing",
            "timestamp": "2026-01-01T00:00:02.000Z",
        },
        {
            "type": "custom",
            "customType": "x",
            "id": "self",
            "parentId": "self",
            "timestamp": "2026-01-01T00:00:03.000Z",
        },
    ]
    m = SessionManager.in_memory("/w", entries=entries)
    tree = m.get_tree()
    assert [n["entry"]["id"] for n in tree] == ["r", "orph", "self"]
    assert [n["entry"]["id"] for n in tree[0]["children"]] == ["early", "late"]
    assert m.get_leaf_id() == "self"  # leaf = last entry in file order


def test_session_name_and_fork_messages():
    m = SessionManager.in_memory("/w")
    m.append_session_info("first")
    u1 = m.append_message(
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "x", "mimeType": "image/png"},
                {"type": "text", "text": "b"},
            ],
            "timestamp": 1,
        }
    )
    m.append_message(
        {"role": "user", "content": [{"type": "image", "data": "x", "mimeType": "image/png"}], "timestamp": 2}
    )
    u3 = m.append_message({"role": "user", "content": "plain", "timestamp": 3})
    assert m.get_session_name() == "first"
    m.branch(u1)
    m.append_session_info("second")  # name is not branch-aware: latest in file order
    m.branch(u1)
    assert m.get_session_name() == "second"
    m.append_session_info("   ")
    assert m.get_session_name() is None
    assert m.get_fork_messages() == [{"entryId": u1, "text": "a\nb"}, {"entryId": u3, "text": "plain"}]


def test_projection_with_compaction_summary_custom_and_edits():
    m = SessionManager.in_memory("/w")
    m.append_model_change("p", "m")
    m.append_thinking_level_change("high")
    m.append_message(SYSTEM)
    u1 = m.append_message(user("u1"))
    m.append_message(assistant("a1"))
    u2 = m.append_message(user("u2"))
    a2 = m.append_message(assistant("a2"))
    m.append_custom_entry("state", {"k": 1})  # never in context
    m.append_usage("cache_warm", "p", "m", {"input": 1})  # never in context
    cm = m.append_custom_message_entry("ext", "note", True)
    comp = m.append_compaction("SUMMARY", u2, 123, {"readFiles": [], "modifiedFiles": []}, False)
    m.append_message({"role": "system", "content": "", "sections": {"cwd": "C2"}, "timestamp": 5})
    u3 = m.append_message(user("u3"))
    ctx = m.build_session_context()
    roles = [x["role"] for x in ctx["messages"]]
    # checkpoint, summary, kept non-system entries from firstKept, then everything after.
    assert roles == ["system", "compactionSummary", "user", "assistant", "custom", "system", "user"]
    checkpoint = ctx["messages"][0]
    entry = m.get_entry(comp)
    assert entry["systemMessage"] == checkpoint
    assert checkpoint == {
        "role": "system",
        "content": "",
        "sections": {"preamble": "P", "cwd": "C"},
        "toolsAdded": SYSTEM["toolsAdded"],
        "timestamp": checkpoint["timestamp"],
    }
    summary = ctx["messages"][1]
    assert list(summary) == ["role", "summary", "tokensBefore", "timestamp"]
    assert summary["summary"] == "SUMMARY" and summary["tokensBefore"] == 123
    assert isinstance(summary["timestamp"], int) and summary["timestamp"] == checkpoint["timestamp"]
    custom = ctx["messages"][4]
    assert list(custom) == ["role", "customType", "content", "display", "timestamp"]
    assert ctx["thinkingLevel"] == "high" and ctx["model"] == {"provider": "prov", "modelId": "mod"}
    # Context edits: omit the kept assistant, replace the custom message and the new user text.
    m.append_context_edit(a2, None)
    m.append_context_edit(cm, {"content": "edited"})
    m.append_context_edit(u3, {"content": [{"type": "text", "text": "u3'"}]})
    msgs = m.build_session_context()["messages"]
    assert [x["role"] for x in msgs] == ["system", "compactionSummary", "user", "custom", "system", "user"]
    assert msgs[3]["content"] == "edited" and msgs[5]["content"] == [{"type": "text", "text": "u3'"}]
    m.branch(u1)
    with pytest.raises(SessionError, match="is not on the active branch"):
        m.append_context_edit(a2, None)
    with pytest.raises(SessionError, match="does not contribute editable model content"):
        m.branch(u3)
        m.append_context_edit(comp, None)
    with pytest.raises(SessionError, match="Context edit replacement must be null"):
        m.append_context_edit(u3, {"nope": 1})


def test_string_replacement_for_assistant_is_wrapped_and_model_from_assistant():
    m = SessionManager.in_memory("/w")
    m.append_model_change("p", "m")
    m.append_message(user("q"))
    a = m.append_message(assistant("long answer"))
    m.append_context_edit(a, {"content": "short"})
    ctx = m.build_session_context()
    assert ctx["messages"][1]["content"] == [{"type": "text", "text": "short"}]
    assert ctx["model"] == {"provider": "prov", "modelId": "mod"}


def test_branch_summary_and_compaction_keep_nothing():
    m = SessionManager.in_memory("/w")
    root = m.append_message(user("q"))
    m.append_message(assistant("a"))
    bs = m.branch_with_summary(root, "what happened on the other branch")
    empty = m.branch_with_summary(root, "")  # empty summaries are skipped
    msgs = m.build_session_context()["messages"]
    assert [x["role"] for x in msgs] == ["user"] and m.get_entry(empty)["parentId"] == root
    assert m.get_entry(empty)["fromId"] == bs
    m.branch(bs)
    msgs = m.build_session_context()["messages"]
    assert msgs[1] == {
        "role": "branchSummary",
        "summary": "what happened on the other branch",
        "fromId": m.get_entry(bs)["fromId"],
        "timestamp": msgs[1]["timestamp"],
    }
    m.append_compaction("S", None, 5)  # keep nothing; no system message -> no checkpoint
    m.append_message(user("after"))
    assert [x["role"] for x in m.build_session_context()["messages"]] == ["compactionSummary", "user"]


def test_null_content_is_normalised_in_projection():
    entries = [
        {
            "type": "message",
            "id": "a",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "system", "timestamp": 0},
        },
        {
            "type": "message",
            "id": "b",
            "parentId": "a",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": None, "timestamp": 0},
        },
    ]
    m = SessionManager.in_memory("/w", entries=entries)
    assert m.build_session_context()["messages"] == [
        {"role": "system", "timestamp": 0, "content": ""},
        {"role": "user", "content": [], "timestamp": 0},
    ]


def test_dumps_tree_matches_orjson_and_handles_deep_sessions():

    from pi_rpc.session import dumps_js, dumps_tree

    m = SessionManager.in_memory("/w")
    a = m.append_message(user("a"))
    m.append_message(assistant("b"))
    m.branch(a)
    m.append_message(assistant("c"))
    m.append_label_change(a, "L")
    m.reset_leaf()
    m.append_message(user("root2"))
    tree = m.get_tree()
    assert dumps_tree(tree) == dumps_js(tree)
    assert dumps_tree([]) == b"[]"
    deep = SessionManager.in_memory("/w")
    for i in range(3000):  # far beyond orjson's 254-level and Python's recursion limits
        deep.append_message(user(str(i)))
    data = dumps_tree(deep.get_tree())
    import json
    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(20000)
    try:
        parsed = json.loads(data)
    finally:
        sys.setrecursionlimit(old)
    depth = 0
    node = parsed[0]
    while node["children"]:
        node = node["children"][0]
        depth += 1
    assert depth == 2999 and node["entry"]["message"]["content"][0]["text"] == "2999"

"""Hand-edited session files with entries of every shape (issue 31 item 7): an ``id`` or
``parentId`` that is an array, an object, a number; types, timestamps and messages of the
wrong kind. No entry may disable a session: opening it and every query (tree, entries,
context, fork messages, stats, HTML export), appending a turn after it, reopening it and
importing it into a session database never raise.

An id that is an array or object is kept and equal only to itself, as upstream pi 1.6 keeps
it as a JavaScript ``Map`` key: it is in the tree under its parent, but no ``parentId`` names
it (the entry naming it is a root), and the context walk stops there (checked against
upstream with ``--session <file>``: ``get_tree``, ``get_messages``, ``get_session_stats``,
``prompt``). A number id is an ordinary key (``parentId: 5`` names ``id: 5``)."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_rpc.runtime.export_html import render_session_html
from pi_rpc.runtime.queries import session_stats
from pi_rpc.session.manager import SessionManager
from pi_rpc.session.sqlite_store import make_locator
from pi_rpc.session.transfer import import_sessions
from pi_rpc.session.tree import dumps_tree

TS = "2026-01-01T00:00:00.000Z"
MISSING = object()

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=4),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=4,
)
ids = st.one_of(st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 3), values, st.just(MISSING))
types = st.one_of(
    st.sampled_from(
        [
            "message",
            "custom",
            "custom_message",
            "label",
            "compaction",
            "branch_summary",
            "model_change",
            "thinking_level_change",
            "session_info",
            "context_edit",
            "session",
        ]
    ),
    values,
)
blocks = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": st.one_of(st.text(max_size=5), values)}),
    st.fixed_dictionaries({"type": st.sampled_from(["toolCall", "thinking", "image"]), "x": values}),
    values,
)
messages = st.one_of(
    st.fixed_dictionaries(
        {
            "role": st.one_of(st.sampled_from(["user", "assistant", "toolResult", "custom", "bashExecution"]), values),
            "content": st.one_of(st.text(max_size=5), st.lists(blocks, max_size=3), values),
        },
        optional={"timestamp": values, "usage": values, "stopReason": values, "toolName": values},
    ),
    values,
)
extra_fields = st.dictionaries(
    st.sampled_from(
        [
            "targetId",
            "label",
            "summary",
            "firstKeptEntryId",
            "fromId",
            "tokensBefore",
            "provider",
            "modelId",
            "thinkingLevel",
            "name",
            "customType",
            "content",
            "display",
            "details",
            "data",
            "replacement",
        ]
    ),
    st.one_of(values, st.sampled_from(["a", "b", "c"])),
    max_size=4,
)


@st.composite
def entries(draw: st.DrawFn) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    for key, strategy in (
        ("type", types),
        ("id", ids),
        ("parentId", ids),
        ("timestamp", st.one_of(st.just(TS), values)),
    ):
        value = draw(strategy)
        if value is not MISSING:
            entry[key] = value
    if draw(st.booleans()):
        entry["message"] = draw(messages)
    entry.update(draw(extra_fields))
    return entry


def _query(m: SessionManager) -> None:
    dumps_tree(m.get_tree())
    m.get_entries()
    m.build_session_context()
    m.build_session_projection()
    m.get_fork_messages()
    m.get_session_name()
    session_stats({"contextWindow": 1000}, m)
    render_session_html(m)
    for entry in m.get_entries():
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            m.branch(entry_id)
            m.build_session_context()
            m.get_label(entry_id)


@settings(
    max_examples=int(os.environ.get("PI_FUZZ_EXAMPLES", "70")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(entries(), min_size=1, max_size=8))
def test_no_entry_disables_a_session(body: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.jsonl")
        header = {"type": "session", "version": 3, "id": "s-hostile", "timestamp": TS, "cwd": tmp}
        user = {"type": "message", "id": "u0", "parentId": None, "timestamp": TS}
        user["message"] = {"role": "user", "content": "hello", "timestamp": 1}
        with open(path, "w", encoding="utf-8") as f:
            for entry in (header, user, *body):
                f.write(json.dumps(entry) + "\n")
        m = SessionManager.open(path)
        try:
            _query(m)
            if m.get_entries():
                last = m.get_entries()[-1].get("id")
                if isinstance(last, str):
                    m.branch(last)
            # A prompt's turn after the hostile entries.
            m.append_message({"role": "user", "content": [{"type": "text", "text": "next"}], "timestamp": 2})
            m.append_message({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "timestamp": 3})
            _query(m)
        finally:
            m.close()
        again = SessionManager.open(path, read_only=True)
        try:
            _query(again)
        finally:
            again.close()
        # ``pi sessions import`` keeps the file's bytes; the stored session opens and answers.
        db = os.path.join(tmp, "s.db")
        outcomes: list[Any] = []
        assert import_sessions(db, [path], lambda header: tmp, outcomes.append) == 0, outcomes
        stored = SessionManager.open(make_locator(db, "s-hostile"), read_only=True)
        try:
            _query(stored)
            assert len(stored.get_entries()) == len(again.get_entries())
        finally:
            stored.close()


def test_an_array_id_is_kept_as_upstream_keeps_it(tmp_path: Any) -> None:
    """The shape upstream answers with for ``id: ["a"]`` and ``parentId: ["a"]``."""
    path = tmp_path / "s.jsonl"
    lines = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": TS, "cwd": str(tmp_path)},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": TS, "message": {"role": "user", "content": "q"}},
        {
            "type": "message",
            "id": ["a"],
            "parentId": "a1",
            "timestamp": TS,
            "message": {"role": "assistant", "content": "r"},
        },
        {
            "type": "message",
            "id": "a3",
            "parentId": ["a"],
            "timestamp": TS,
            "message": {"role": "user", "content": "s"},
        },
        {
            "type": "message",
            "id": 5,
            "parentId": "a3",
            "timestamp": TS,
            "message": {"role": "assistant", "content": "t"},
        },
        {"type": "message", "id": "a5", "parentId": 5, "timestamp": TS, "message": {"role": "user", "content": "u"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    m = SessionManager.open(str(path), read_only=True)
    tree = m.get_tree()
    assert [node["entry"]["id"] for node in tree] == ["a1", "a3"]
    assert list(tree[0]["children"][0]["entry"]["id"]) == ["a"]
    assert tree[1]["children"][0]["entry"]["id"] == 5
    assert tree[1]["children"][0]["children"][0]["entry"]["id"] == "a5"
    assert [msg["content"] for msg in m.build_session_context()["messages"]] == ["s", "t", "u"]
    assert json.loads(dumps_tree(tree))[0]["children"][0]["entry"]["id"] == ["a"]
    assert session_stats(None, m)["totalMessages"] == 5
    m.close()

"""Session replacement and the tree queries (reference §2.6, §2.24–§2.29, §3.3 J; upstream
transcript d_fork), on both session backends (``store_kind``: every process here runs with its
``--session-store``; the database's sessions are ``sqlite:<db>#<id>`` locators)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_rpc.session.backends import is_sqlite_locator
from tests.support.pi_process import kinds
from tests.support.session_stores import StoreKind, is_stored, stored_lines


@pytest.fixture
def pi(pi, store_kind: StoreKind):
    """The ``pi`` starter with the backend under test selected."""
    return store_kind.starter(pi)


def _home(locator: str) -> str:
    """Where a session lives beside its siblings: its file's folder, or its database."""
    return locator.rpartition("#")[0] if is_sqlite_locator(locator) else str(Path(locator).parent)


def _prompt(p, text):
    mark = p.mark()
    p.cmd("prompt", message=text)
    p.settle(mark)


def _walk(nodes):
    for node in nodes:
        yield node
        yield from _walk(node["children"])


def test_j_fork_clone_tree_entries_like_d_fork(pi):
    p = pi(
        script=[
            {"text": "Answer one."},
            {"text": "Answer two."},
            {"text": "Answer after fork."},
            {"text": "Answer after clone."},
        ]
    )
    _prompt(p, "First question")
    _prompt(p, "Second question")
    st1 = p.ok("get_state")
    file1 = st1["sessionFile"]
    fm = p.ok("get_fork_messages")["messages"]
    assert [m["text"] for m in fm] == ["First question", "Second question"]
    assert all(set(m) == {"entryId", "text"} for m in fm)
    entries = p.ok("get_entries")
    types = [e["type"] for e in entries["entries"]]
    assert types[:2] == ["model_change", "thinking_level_change"]
    assert [e["message"]["role"] for e in entries["entries"] if e["type"] == "message"] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert entries["leafId"] == entries["entries"][-1]["id"]
    tree = p.ok("get_tree")
    assert tree["leafId"] == entries["leafId"]
    assert len(tree["tree"]) == 1 and all(set(n) == {"entry", "children"} for n in _walk(tree["tree"]))
    assert [n["entry"]["id"] for n in _walk(tree["tree"])] == [e["id"] for e in entries["entries"]]

    # fork at the second user message: a new file holding the path up to its parent
    mark = p.mark()
    f = p.cmd("fork", entryId=fm[1]["entryId"])
    assert f["data"] == {"text": "Second question", "cancelled": False}
    assert kinds(p.since(mark)) == [f"response:{f['id']}"]
    st2 = p.ok("get_state")
    assert st2["sessionFile"] != file1 and st2["sessionId"] != st1["sessionId"]
    assert _home(st2["sessionFile"]) == _home(file1)
    header = stored_lines(st2["sessionFile"])[0]
    assert header["parentSession"] == file1
    roles = [m["role"] for m in p.ok("get_messages")["messages"]]
    assert roles == ["system", "user", "assistant"]
    assert st2["messageCount"] == 3
    assert [m["text"] for m in p.ok("get_fork_messages")["messages"]] == ["First question"]
    # original ids are kept
    new_ids = [e["id"] for e in p.ok("get_entries")["entries"]]
    assert new_ids == [e["id"] for e in entries["entries"]][: len(new_ids)]

    _prompt(p, "Question after fork")
    assert p.ok("get_last_assistant_text") == {"text": "Answer after fork."}
    # the run after fork has no system message (context restored)
    fm3 = p.ok("get_fork_messages")["messages"]
    assert [m["text"] for m in fm3] == ["First question", "Question after fork"]
    # Deliberate extension (protocol/README.md): position "at" keeps the selected message
    # (upstream's RPC ignores position and always forks "before").
    f_at = p.ok("fork", entryId=fm3[0]["entryId"], position="at")
    assert f_at == {"text": "First question", "cancelled": False}
    assert [m["text"] for m in p.ok("get_fork_messages")["messages"]] == ["First question"]
    assert [m["role"] for m in p.ok("get_messages")["messages"]] == ["system", "user"]
    # omitted (as upstream sends it): "before" — the copy ends at the message's parent
    f2 = p.ok("fork", entryId=fm3[0]["entryId"])
    assert f2 == {"text": "First question", "cancelled": False}
    assert p.ok("get_fork_messages")["messages"] == []
    assert [m["role"] for m in p.ok("get_messages")["messages"]] == ["system"]

    _prompt(p, "Question before clone")
    before = p.ok("get_state")
    before_msgs = p.ok("get_messages")["messages"]
    cl = p.ok("clone")
    assert cl == {"cancelled": False}
    after = p.ok("get_state")
    assert after["sessionFile"] != before["sessionFile"]
    assert p.ok("get_messages")["messages"] == before_msgs
    assert is_stored(after["sessionFile"])
    assert stored_lines(after["sessionFile"])[0]["parentSession"] == before["sessionFile"]

    # (a missing entryId is rejected earlier by the RPC validation layer with its own text)
    r = p.cmd("fork", entryId="does-not-exist")
    assert r["success"] is False and r["error"] == "Invalid entry ID for forking"
    # a non-user entry is invalid too
    first_entry = p.ok("get_entries")["entries"][0]["id"]
    assert p.cmd("fork", entryId=first_entry)["error"] == "Invalid entry ID for forking"
    leaf = p.ok("get_entries")["leafId"]
    assert p.ok("get_entries", since=leaf) == {"entries": [], "leafId": leaf}
    r = p.cmd("get_entries", since="nope")
    assert r["success"] is False and r["error"] == "Entry not found: nope"


def test_j_new_session_and_switch_back(pi):
    p = pi(script=[{"text": "A1"}, {"text": "B1"}, {"text": "A2"}])
    _prompt(p, "in A")
    a = p.ok("get_state")
    mark = p.mark()
    ns = p.cmd("new_session")
    assert ns["data"] == {"cancelled": False}
    assert kinds(p.since(mark)) == [f"response:{ns['id']}"]
    b = p.ok("get_state")
    assert b["sessionId"] != a["sessionId"] and b["messageCount"] == 0
    assert _home(b["sessionFile"]) == _home(a["sessionFile"])
    assert not is_stored(b["sessionFile"])  # written at the first message
    assert [e["type"] for e in p.ok("get_entries")["entries"]] == ["model_change", "thinking_level_change"]
    # the first prompt of the new session carries the system message again
    mark = p.mark()
    p.cmd("prompt", message="in B")
    p.settle(mark)
    assert kinds(p.since(mark))[3:5] == ["message_start:system", "message_end:system"]
    assert is_stored(b["sessionFile"])

    sw = p.ok("switch_session", sessionPath=a["sessionFile"])
    assert sw == {"cancelled": False}
    st = p.ok("get_state")
    assert st["sessionId"] == a["sessionId"] and st["sessionFile"] == a["sessionFile"]
    assert [m["role"] for m in p.ok("get_messages")["messages"]] == ["system", "user", "assistant"]
    mark = p.mark()
    p.cmd("prompt", message="back in A")
    p.settle(mark)
    assert "message_start:system" not in kinds(p.since(mark))
    assert p.ok("get_last_assistant_text") == {"text": "A2"}

    ns2 = p.ok("new_session", parentSession=a["sessionFile"])
    assert ns2 == {"cancelled": False}
    _prompt(p, "child")
    header = stored_lines(p.ok("get_state")["sessionFile"])[0]
    assert header["parentSession"] == a["sessionFile"]


def test_j_switch_session_nonexistent_and_invalid(pi, tmp_path, store_kind: StoreKind):
    p = pi()
    target = tmp_path / "elsewhere" / "s.jsonl"
    sw = p.ok("switch_session", sessionPath=str(target))
    assert sw == {"cancelled": False}
    assert p.ok("get_state")["sessionFile"] == str(target)
    # a session of a database, named by its locator (its database path made real and absolute);
    # an id the database does not hold is refused (switching never creates one there, #31)
    spelled = f"sqlite:{tmp_path}/./sessions.db#chosen-id"
    assert p.cmd("switch_session", sessionPath=spelled)["error"] == (
        f"Session file not found: sqlite:{os.path.realpath(tmp_path)}/sessions.db#chosen-id"
    )
    assert p.ok("get_state")["sessionFile"] == str(target)
    assert p.cmd("switch_session", sessionPath="sqlite:/nowhere.db")["error"] == (
        "Session file not found: sqlite:/nowhere.db"
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"message"}\n')
    r = p.cmd("switch_session", sessionPath=str(bad))
    assert r["success"] is False and r["error"] == f"Session file is not a valid pi session: {bad}"


def test_j_session_replacement_during_run_aborts_first(pi):
    p = pi(script=[{"text": "slow " * 40, "delayMs": 40, "chunkChars": 5}])
    p.cmd("prompt", message="long")
    p.wait_for(lambda r: r["type"] == "message_update")
    ns = p.request("new_session")
    p.response(ns)
    seq = kinds(p.records)
    assert seq[-4:] == ["turn_end", "agent_end", "agent_settled", f"response:{ns}"]
    assert p.wait_for("agent_settled")["aborted"] is True
    st = p.ok("get_state")
    assert st["isStreaming"] is False and st["messageCount"] == 0


def test_no_session_clone_and_fork_in_memory(pi):
    p = pi(args=("--no-session",), script=[{"text": "x"}])
    st = p.ok("get_state")
    assert "sessionFile" not in st
    _prompt(p, "hello")
    uid = p.ok("get_fork_messages")["messages"][0]["entryId"]
    assert p.ok("clone") == {"cancelled": False}
    assert "sessionFile" not in p.ok("get_state")
    assert p.ok("fork", entryId=uid) == {"text": "hello", "cancelled": False}
    assert [m["role"] for m in p.ok("get_messages")["messages"]] == ["system"]
    r = p.cmd("export_html")
    assert r["success"] is False and r["error"] == "Cannot export in-memory session to HTML"


def test_switch_session_rebinds_cwd_for_tools(pi, tmp_path):
    other = tmp_path / "other-project"
    other.mkdir()
    (other / "marker.txt").write_text("I am the other project")
    session_file = tmp_path / "other.jsonl"
    session_file.write_text(
        json.dumps(
            {
                "type": "session",
                "version": 3,
                "id": "01a228cd-2e4d-73e0-804e-4237a2e2b1b3",
                "timestamp": "2026-11-29T19:34:25.102Z",
                "cwd": str(other),
            }
        )
        + "\n"
    )
    p = pi(
        script=[
            {"toolCalls": [{"id": "c1", "name": "bash", "arguments": {"command": "pwd; cat marker.txt"}}]},
            {"text": "done"},
        ]
    )
    assert p.ok("switch_session", sessionPath=str(session_file)) == {"cancelled": False}
    assert p.ok("bash", command="pwd")["output"].strip() == str(other)
    p.cmd("prompt", message="where am I")
    p.settle()
    result = p.wait_for("tool_execution_end")["result"]
    assert result["content"][0]["text"] == f"{other}\nI am the other project"
    system = p.wait_for(lambda r: r["type"] == "message_end" and r["message"]["role"] == "system")["message"]
    assert str(other) in system["sections"]["cwd"]


def test_fork_keeps_queued_texts_and_new_session_clears_them(pi):
    p = pi(script=[{"text": "a"}])
    _prompt(p, "first")
    uid = p.ok("get_fork_messages")["messages"][0]["entryId"]
    p.ok("follow_up", message="later")
    assert p.ok("get_state")["pendingMessageCount"] == 1
    p.ok("fork", entryId=uid)
    assert p.ok("get_state")["pendingMessageCount"] == 1
    p.ok("new_session")
    assert p.ok("get_state")["pendingMessageCount"] == 0


def test_session_fsync_setting_entry_mode_writes_each_entry_durably(pi):
    # sessionFsync "entry": every entry is fsynced as it is appended; the session works as usual.
    p = pi(script=[{"text": "one"}, {"text": "two"}], settings={"sessionFsync": "entry"})
    for text in ("a", "b"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    state = p.ok("get_state")
    lines = stored_lines(state["sessionFile"])
    assert [line["type"] for line in lines][:3] == ["session", "model_change", "thinking_level_change"]
    assert sum(1 for line in lines if line.get("message", {}).get("role") == "assistant") == 2


def test_session_fsync_setting_invalid_value_warns_and_falls_back(pi):
    p = pi(script=[{"text": "one"}], settings={"sessionFsync": "sometimes"})
    mark = p.mark()
    p.cmd("prompt", message="a")
    p.settle(mark)
    assert is_stored(p.ok("get_state")["sessionFile"])
    p.close()
    assert 'invalid sessionFsync "sometimes"' in p.stderr

"""Beyond upstream: list_sessions, rename_session, delete_session, set_label and navigate_tree
over RPC, against real sessions and the real subprocess, on both session backends (every
process here runs with the ``store_kind``'s ``--session-store``: the JSONL files, then a
session database named by ``sqlite:<db>#<id>`` locators)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from pi_rpc.config.paths import encode_cwd
from tests.support.pi_process import is_event, kinds
from tests.support.session_stores import StoreKind, is_stored, stored_bytes, stored_lines

T0 = 1_760_000_000_000


@pytest.fixture
def pi(pi, store_kind: StoreKind):
    """The ``pi`` starter with the backend under test selected."""
    return store_kind.starter(pi)


def make_session(
    kind: StoreKind,
    directory: Path,
    cwd: Path | str,
    turns: list[tuple[str, str]],
    *,
    name: str | None = None,
    t0: int = T0,
    parent: str | None = None,
) -> str:
    """A real session written by the session store: ``turns`` of (user, assistant) text."""
    manager = kind.create(cwd, directory)
    if parent:
        manager._header["parentSession"] = parent
    manager.append_model_change("faux", "faux-1")
    manager.append_message({"role": "system", "content": "", "timestamp": t0})
    for i, (question, answer) in enumerate(turns):
        manager.append_message(
            {"role": "user", "content": [{"type": "text", "text": question}], "timestamp": t0 + 10 * i + 1}
        )
        manager.append_message(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": answer}],
                "api": "faux",
                "provider": "faux",
                "model": "faux-1",
                "stopReason": "stop",
                "timestamp": t0 + 10 * i + 2,
            }
        )
        manager.append_message(
            {
                "role": "toolResult",
                "toolCallId": "c",
                "toolName": "bash",
                "content": [{"type": "text", "text": "tool output mentions zebra"}],
                "isError": False,
                "timestamp": t0 + 10 * i + 3,
            }
        )
    if name:
        manager.append_session_info(name)
    manager.close()
    assert manager.session_file
    return manager.session_file


def lines(path: str) -> list[dict]:
    return stored_lines(path)


def folder(p) -> Path:
    return p.agent_dir / "sessions" / encode_cwd(p.cwd)


# ---------------------------------------------------------------- list_sessions


def test_list_sessions_cwd_all_query_limit(pi, store_kind: StoreKind):
    p = pi(script=[{"text": "live answer"}])
    here = folder(p)
    here.mkdir(parents=True, exist_ok=True)
    old = make_session(store_kind, here, p.cwd, [("Fix the PARSER", "done")], name="Parser work", t0=T0)
    new = make_session(store_kind, here, p.cwd, [("first", "a"), ("second", "b")], t0=T0 + 100_000, parent=old)
    elsewhere = p.agent_dir / "sessions" / encode_cwd("/some/other/project")
    elsewhere.mkdir(parents=True, exist_ok=True)
    far = make_session(store_kind, elsewhere, "/some/other/project", [("far away", "yes")], t0=T0 + 50_000)
    (here / "junk.jsonl").write_text("not a session\n")
    (here / "notes.txt").write_text("ignored\n")
    unreadable = here / "locked-out.jsonl"
    unreadable.write_text('{"type":"session","version":3,"id":"x","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}\n')
    unreadable.chmod(0)

    sessions = p.ok("list_sessions")["sessions"]
    if os.geteuid() == 0:  # root reads the chmod 000 file anyway
        sessions = [s for s in sessions if s["path"] != str(unreadable)]
    assert [s["path"] for s in sessions] == [new, old]  # newest modified first; junk skipped
    assert sessions[1] == {
        "path": old,
        "id": lines(old)[0]["id"],
        "cwd": str(p.cwd),
        "name": "Parser work",
        "created": lines(old)[0]["timestamp"],
        "modified": "2025-10-09T08:53:20.002Z",
        "messageCount": 4,
        "firstMessage": "Fix the PARSER",
    }
    assert sessions[0]["parentSessionPath"] == old and "name" not in sessions[0]
    assert sessions[0]["messageCount"] == 7 and sessions[0]["firstMessage"] == "first"
    assert all("allMessagesText" not in s for s in sessions)

    everything = p.ok("list_sessions", scope="all")["sessions"]
    paths = [s["path"] for s in everything if s["path"] != str(unreadable)]
    assert paths == [new, far, old]
    assert p.ok("list_sessions", scope="all", limit=2)["sessions"][:2] == everything[:2]
    assert [s["path"] for s in p.ok("list_sessions", limit=1)["sessions"]] == [new]

    # query: names and user/assistant texts, case-insensitive; not tool output
    assert [s["path"] for s in p.ok("list_sessions", query="parser")["sessions"]] == [old]
    assert [s["path"] for s in p.ok("list_sessions", query="PARSER WORK")["sessions"]] == [old]
    assert [s["path"] for s in p.ok("list_sessions", query="Second")["sessions"]] == [new]
    assert p.ok("list_sessions", query="zebra")["sessions"] == []
    assert [s["path"] for s in p.ok("list_sessions", scope="all", query="FAR")["sessions"]] == [far]

    # the live session appears once it is on disk
    p.cmd("prompt", message="live question")
    p.settle()
    live = p.ok("get_state")["sessionFile"]
    listed = p.ok("list_sessions")["sessions"]
    assert listed[0]["path"] == live and listed[0]["firstMessage"] == "live question"


def test_list_sessions_with_a_custom_session_dir_filters_by_cwd(pi, tmp_path, store_kind: StoreKind):
    flat = tmp_path / "flat"
    flat.mkdir()
    p = pi(args=("--session-dir", str(flat)))
    mine = make_session(store_kind, flat, p.cwd, [("mine", "ok")])
    theirs = make_session(store_kind, flat, "/elsewhere", [("theirs", "ok")], t0=T0 + 5)
    assert [s["path"] for s in p.ok("list_sessions")["sessions"]] == [mine]
    assert [s["path"] for s in p.ok("list_sessions", scope="all")["sessions"]] == [theirs, mine]


def test_list_sessions_errors(pi):
    p = pi()
    cases = [
        ({"limit": 0}, 'Invalid command "list_sessions": field "limit": expected a positive integer, got 0'),
        ({"limit": -3}, 'Invalid command "list_sessions": field "limit": expected a positive integer, got -3'),
        ({"limit": "5"}, 'Invalid command "list_sessions": field "limit": expected integer, got string'),
        (
            {"scope": "everything"},
            'Invalid command "list_sessions": field "scope": expected one of "cwd" or "all", got string',
        ),
        ({"query": 5}, 'Invalid command "list_sessions": field "query": expected string, got number'),
    ]
    for fields, error in cases:
        response = p.cmd("list_sessions", **fields)
        assert response["success"] is False and response["error"] == error, response
    assert p.ok("list_sessions") == {"sessions": []}  # no folder yet: nothing, not an error


# ---------------------------------------------------------------- rename_session


def test_rename_other_and_current_session(pi, store_kind: StoreKind):
    p = pi(script=[{"text": "answer"}])
    here = folder(p)
    here.mkdir(parents=True, exist_ok=True)
    other = make_session(store_kind, here, p.cwd, [("q", "a")])
    before = lines(other)
    mark = p.mark()
    p.ok("rename_session", sessionPath=other, name="  Renamed\r\nsession  ")
    assert not any(r["type"] == "session_info_changed" for r in p.since(mark))  # not the live session
    after = lines(other)
    assert after[:-1] == before
    assert after[-1]["type"] == "session_info" and after[-1]["name"] == "Renamed session"
    assert after[-1]["parentId"] == before[-1]["id"]
    assert not Path(store_kind.lock_file(other)).exists()
    assert p.ok("list_sessions")["sessions"][0]["name"] == "Renamed session"

    # the live session: exactly set_session_name (event first, then the response)
    live = p.ok("get_state")["sessionFile"]
    mark = p.mark()
    rid = p.request("rename_session", sessionPath=live, name="Live name")
    p.response(rid)
    assert kinds(p.since(mark)) == ["session_info_changed", f"response:{rid}"]
    assert p.wait_for(is_event("session_info_changed"), start=mark)["name"] == "Live name"
    assert p.ok("get_state")["sessionName"] == "Live name"
    if store_kind.postgres:  # the locator as listed
        assert live.startswith("postgres://") and other.startswith("postgres://")
        p.ok("rename_session", sessionPath=other, name="Via relative path")
    elif store_kind.sqlite:  # a locator with another spelling of the database path names it too
        assert live.startswith("sqlite:") and other.startswith(f"sqlite:{store_kind.db}#")
        spelled = other.replace(str(store_kind.db), f"{store_kind.db.parent}/./{store_kind.db.name}")
        p.ok("rename_session", sessionPath=spelled, name="Via relative path")
    else:  # a relative path is read like switch_session reads it (from the process's cwd)
        rel = os.path.relpath(other, p.cwd)
        p.ok("rename_session", sessionPath=rel, name="Via relative path")
    assert lines(other)[-1]["name"] == "Via relative path"


def test_rename_errors_and_torn_tail(pi, store_kind: StoreKind):
    p = pi()
    here = folder(p)
    here.mkdir(parents=True, exist_ok=True)
    missing = store_kind.locator_at(here, "nope")
    assert p.cmd("rename_session", sessionPath=missing, name="x")["error"] == f"Session file not found: {missing}"
    other = make_session(store_kind, here, p.cwd, [("q", "a")])
    assert p.cmd("rename_session", sessionPath=other, name="  \n ")["error"] == "Session name cannot be empty"
    if store_kind.database:
        bad_locator = other.partition("#")[0]  # no '#<session id>'
        assert p.cmd("rename_session", sessionPath=bad_locator, name="x")["error"] == (
            f"Session file not found: {bad_locator}"
        )
        return  # the rest is about files that are not sessions and torn lines of files
    not_session = here / "plain.jsonl"
    not_session.write_text('{"hello":1}\n')
    error = p.cmd("rename_session", sessionPath=str(not_session), name="x")["error"]
    assert error == f"Session file is not a valid pi session: {not_session}"
    assert not_session.read_text() == '{"hello":1}\n'
    bad = p.cmd("rename_session", sessionPath=other)
    assert bad["error"] == 'Invalid command "rename_session": field "name": expected string, got undefined'
    bad = p.cmd("rename_session", name="x", sessionPath=5)
    assert bad["error"] == 'Invalid command "rename_session": field "sessionPath": expected string, got number'
    # A torn last line (a crash mid-append) is moved aside, never glued to.
    data = Path(other).read_bytes()
    Path(other).write_bytes(data + b'{"type":"message","id":"tor')
    p.ok("rename_session", sessionPath=other, name="After a crash")
    entries = lines(other)  # every line parses
    assert entries[-1]["name"] == "After a crash"
    assert Path(other).read_bytes().startswith(data)
    sidecars = [f for f in os.listdir(here) if ".torn-" in f]
    assert len(sidecars) == 1 and (here / sidecars[0]).read_bytes() == b'{"type":"message","id":"tor'


def test_rename_and_delete_refuse_a_session_another_process_has_open(pi, pi_process, store_kind: StoreKind):
    p = pi()
    here = folder(p)
    here.mkdir(parents=True, exist_ok=True)
    other = make_session(store_kind, here, p.cwd, [("q", "a")])
    holder = store_kind.starter(pi_process)(args=("--session", other))  # another process
    assert holder.ok("get_state")["sessionFile"] == other  # it has the file open (and locked)
    before = stored_bytes(other)
    rename = p.cmd("rename_session", sessionPath=other, name="x")
    assert rename["success"] is False
    # a database server's lock names the holder's host too (it may be another machine)
    who = f"pid {holder.popen.pid}" + (f" on {socket.gethostname()}" if store_kind.postgres else "")
    assert rename["error"] == f"Cannot rename {other}: the session is in use by another pi process ({who})"
    delete = p.cmd("delete_session", sessionPath=other)
    assert delete["error"] == (f"Cannot delete {other}: the session is in use by another pi process ({who})")
    assert stored_bytes(other) == before
    holder.close()
    p.ok("delete_session", sessionPath=other)
    assert not is_stored(other)


# ---------------------------------------------------------------- delete_session


def test_delete_session_and_its_refusals(pi, tmp_path, store_kind: StoreKind):
    p = pi(script=[{"text": "answer"}])
    here = folder(p)
    here.mkdir(parents=True, exist_ok=True)
    victim = make_session(store_kind, here, p.cwd, [("q", "a")])
    keep = make_session(store_kind, here, p.cwd, [("keep", "me")], t0=T0 + 5)
    p.ok("delete_session", sessionPath=victim)
    assert not is_stored(victim) and not Path(store_kind.lock_file(victim)).exists()
    assert [s["path"] for s in p.ok("list_sessions")["sessions"]] == [keep]
    # missing (deleted already)
    assert p.cmd("delete_session", sessionPath=victim)["error"] == f"Session file not found: {victim}"
    # the current session
    p.cmd("prompt", message="q")
    p.settle()
    live = p.ok("get_state")["sessionFile"]
    error = p.cmd("delete_session", sessionPath=live)["error"]
    assert error == f"Cannot delete {live}: it is the current session (switch to another session first)"
    assert is_stored(live)
    if store_kind.postgres:
        assert store_kind.jsonl_files_under(tmp_path) == []  # nothing was ever written as a file
        return
    if store_kind.sqlite:
        # a session of another database is not the store in use: refused, left alone
        other_db = StoreKind("sqlite", tmp_path / "elsewhere")
        (tmp_path / "elsewhere").mkdir()
        foreign = make_session(other_db, here, p.cwd, [("q", "a")])
        error = p.cmd("delete_session", sessionPath=foreign)["error"]
        assert error == f"Cannot delete {foreign}: it is not in the session store in use ({store_kind.db})"
        assert is_stored(foreign)
        assert store_kind.jsonl_files_under(tmp_path) == []  # nothing was ever written as a file
        return
    # outside the sessions root (also through a symlink that points out of it)
    outside_dir = tmp_path / "outside"
    outside_dir.mkdir()
    outside = make_session(store_kind, outside_dir, p.cwd, [("q", "a")])
    root = p.agent_dir / "sessions"
    error = p.cmd("delete_session", sessionPath=outside)["error"]
    assert error == f"Cannot delete {outside}: it is outside the sessions directory {root}"
    link = here / "link.jsonl"
    link.symlink_to(outside)
    assert "outside the sessions directory" in p.cmd("delete_session", sessionPath=str(link))["error"]
    assert Path(outside).exists()
    assert "outside the sessions directory" in p.cmd("delete_session", sessionPath=str(root))["error"]
    # not a session file, inside the root
    notes = here / "notes.jsonl"
    notes.write_text('{"todo":1}\n')
    assert (
        p.cmd("delete_session", sessionPath=str(notes))["error"] == f"Session file is not a valid pi session: {notes}"
    )
    assert notes.exists()
    bad = p.cmd("delete_session")
    assert bad["error"] == 'Invalid command "delete_session": field "sessionPath": expected string, got undefined'


# ---------------------------------------------------------------- set_label


def test_set_label_shows_in_get_tree_and_clears(pi):
    p = pi(script=[{"text": "answer"}])
    p.cmd("prompt", message="q")
    p.settle()
    entries = p.ok("get_entries")["entries"]
    target = next(e for e in entries if e["type"] == "message" and e["message"]["role"] == "user")["id"]

    def label_of(entry_id):
        stack = list(p.ok("get_tree")["tree"])
        while stack:
            node = stack.pop()
            if node["entry"]["id"] == entry_id:
                return node.get("label")
            stack.extend(node["children"])
        raise AssertionError("entry not in tree")

    assert p.ok("set_label", entryId=target, label="checkpoint") is None
    assert label_of(target) == "checkpoint"
    file = p.ok("get_state")["sessionFile"]
    last = lines(file)[-1]
    assert last["type"] == "label" and last["targetId"] == target and last["label"] == "checkpoint"
    p.ok("set_label", entryId=target, label=None)
    assert label_of(target) is None and "label" not in lines(file)[-1]
    p.ok("set_label", entryId=target, label="again")
    p.ok("set_label", entryId=target, label="")
    assert label_of(target) is None
    assert p.cmd("set_label", entryId="nope", label="x")["error"] == "Entry nope not found"
    bad = p.cmd("set_label", entryId=target)
    assert bad["error"] == 'Invalid command "set_label": field "label": expected string, got undefined'
    bad = p.cmd("set_label", entryId=target, label=3)
    assert bad["success"] is False and bad["error"].startswith('Invalid command "set_label": field "label"')


# ---------------------------------------------------------------- navigate_tree

SUMMARY = {"text": "The abandoned branch explored the DATABASE layer.", "match": "FOCUS ON THE DATABASE"}


def test_navigate_tree_moves_the_leaf_and_summarizes_with_instructions(pi):
    p = pi(script=[SUMMARY, {"text": "Answer one."}, {"text": "Answer two."}, {"text": "Back on the main line."}])
    for text in ("first question", "explore the database"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    forks = p.ok("get_fork_messages")["messages"]
    second_user = forks[1]["entryId"]
    leaf_before = p.ok("get_entries")["leafId"]
    mark = p.mark()
    result = p.ok("navigate_tree", targetId=second_user, summarize=True, customInstructions="FOCUS ON THE DATABASE")
    assert result == {"cancelled": False, "editorText": "explore the database"}
    assert all(r["type"] in ("response",) or r["type"].startswith("summarization_retry") for r in p.since(mark))
    entries = p.ok("get_entries")
    summary = entries["entries"][-1]
    by_id = {e["id"]: e for e in entries["entries"]}
    user_entry = by_id[second_user]
    assert summary["type"] == "branch_summary" and "DATABASE" in summary["summary"]
    assert summary["parentId"] == user_entry["parentId"]  # attached at the new position
    assert summary["fromId"] == leaf_before
    assert entries["leafId"] == summary["id"]
    roles = [m["role"] for m in p.ok("get_messages")["messages"]]
    assert roles == ["system", "user", "assistant", "branchSummary"]
    mark = p.mark()
    p.cmd("prompt", message="continue")
    p.settle(mark)
    assert p.ok("get_last_assistant_text") == {"text": "Back on the main line."}


def test_navigate_tree_without_summary_and_to_a_non_user_entry(pi):
    p = pi(script=[{"text": "A1"}, {"text": "A2"}])
    for text in ("q1", "q2"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    entries = p.ok("get_entries")["entries"]
    first_answer = [e for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"][0]["id"]
    assert p.ok("navigate_tree", targetId=first_answer) == {"cancelled": False}
    assert p.ok("get_entries")["leafId"] == first_answer
    assert [m["role"] for m in p.ok("get_messages")["messages"]] == ["system", "user", "assistant"]
    assert p.ok("navigate_tree", targetId=first_answer) == {"cancelled": False}  # already there
    assert p.cmd("navigate_tree", targetId="nope")["error"] == "Entry nope not found"
    bad = p.cmd("navigate_tree", summarize=True)
    assert bad["error"] == 'Invalid command "navigate_tree": field "targetId": expected string, got undefined'
    bad = p.cmd("navigate_tree", targetId=first_answer, summarize="yes")
    assert bad["error"] == 'Invalid command "navigate_tree": field "summarize": expected boolean, got string'


def test_navigate_tree_is_refused_during_a_run_and_abort_cancels_its_summary(pi):
    slow_summary = {"text": "never finished " * 50, "delayMs": 40, "chunkChars": 4, "match": "<conversation>"}
    p = pi(script=[slow_summary, {"text": "A1"}, {"text": "A2"}, {"text": "slow " * 200, "delayMs": 30}])
    for text in ("q1", "q2"):
        mark = p.mark()
        p.cmd("prompt", message=text)
        p.settle(mark)
    target = p.ok("get_fork_messages")["messages"][0]["entryId"]
    entries_before = p.ok("get_entries")["entries"]
    # refused while a run is active
    mark = p.mark()
    p.cmd("prompt", message="long one")
    p.wait_for(lambda r: r.get("type") == "message_update", start=mark, timeout=20)
    busy = p.cmd("navigate_tree", targetId=target)
    assert busy["error"] == "Wait for the current response to finish before navigating the session tree."
    abort = p.cmd("abort", timeout=20)
    assert abort["data"] == {"outcome": "aborted"}
    p.settle(mark)
    entries_before = p.ok("get_entries")["entries"]
    # abort during the branch summary: nothing appended, the leaf stays
    nav = p.request("navigate_tree", targetId=target, summarize=True)
    for _ in range(500):  # until the summary is under way (it streams for seconds)
        if p.ok("get_state")["isCompacting"]:
            break
    else:
        raise AssertionError("the branch summary never started")
    assert p.cmd("prompt", message="x")["success"] is False  # a summary in progress blocks prompts
    abort = p.cmd("abort", timeout=20)
    assert abort["data"] == {"outcome": "aborted"}
    assert p.response(nav, timeout=20)["data"] == {"cancelled": True}
    assert p.ok("get_entries")["entries"] == entries_before
    assert p.ok("abort") == {"outcome": "idle"}

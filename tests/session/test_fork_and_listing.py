"""fork / clone / new / switch storage effects, and discovery: default dir, listing,
--continue, --session <path|id|prefix>, --session-id, --fork. The tests taking ``store_kind``
run against both session backends (the JSONL files, a session database)."""

from __future__ import annotations

import os
import time

import pytest

from pi_rpc.session import (
    MissingSessionCwdError,
    SessionError,
    SessionManager,
    SessionNotFoundError,
    default_session_dir,
    encode_cwd,
    find_by_id,
    find_most_recent,
    list_all_sessions,
    list_sessions,
    resolve_session_arg,
)
from tests.support.session_stores import StoreKind, is_stored, stored_lines

from .session_helpers import copy_session, read_lines, session_files


def user(text, ts=1):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def test_fork_errors_and_unsaved_session(tmp_path, store_kind: StoreKind):
    m = store_kind.create(tmp_path, tmp_path)
    mc = m.append_model_change("p", "m")
    sys_id = m.append_message({"role": "system", "content": "S", "timestamp": 0})
    with pytest.raises(SessionError) as err:
        m.create_branched_session(mc, "before")  # not a user message
    assert str(err.value) == "Invalid entry ID for forking"
    with pytest.raises(SessionError) as err:
        m.create_branched_session(sys_id, "at")
    assert str(err.value) == "This session has not been saved yet. Send a message before cloning or forking it."
    with pytest.raises(SessionError) as err:
        m.clone()
    assert "not been saved yet" in str(err.value)
    m.close()
    fresh = SessionManager.in_memory("/w")
    with pytest.raises(SessionError) as err:
        fresh.clone()
    assert str(err.value) == "Cannot clone session: no current entry selected"


def test_fork_root_user_message_gives_empty_session_with_parent(tmp_path, store_kind: StoreKind):
    m = store_kind.create(tmp_path, tmp_path)
    u = m.append_message(user("root"))
    result = m.create_branched_session(u)
    assert result.selected_text == "root"
    new = result.manager
    assert new.get_entries() == [] and new.get_header()["parentSession"] == m.session_file
    assert not is_stored(new.session_file)
    m.close()
    new.close()


def test_labels_recreated_and_compaction_repointed(tmp_path, store_kind: StoreKind):
    m = store_kind.create(tmp_path, tmp_path)
    u1 = m.append_message(user("q"))
    lab = m.append_label_change(u1, "mark")
    a = m.append_message(
        {
            "role": "assistant",
            "content": [],
            "provider": "p",
            "model": "m",
            "usage": {},
            "stopReason": "stop",
            "timestamp": 2,
        }
    )
    comp = m.append_compaction("S", lab, 3)  # first kept = the label entry (dropped on fork)
    clone = m.clone().manager
    entries = clone.get_entries()
    assert [e["type"] for e in entries] == ["message", "message", "compaction", "label"]
    assert entries[1]["parentId"] == u1 and entries[1]["id"] == a  # re-chained over the label
    assert entries[2]["firstKeptEntryId"] == a
    new_label = entries[3]
    assert new_label["targetId"] == u1 and new_label["label"] == "mark" and new_label["parentId"] == comp
    assert new_label["timestamp"] == m.get_entry(lab)["timestamp"] and new_label["id"] != lab
    assert clone.get_label(u1) == "mark"
    assert stored_lines(clone.session_file)[1:] == entries  # written at once
    assert stored_lines(clone.session_file)[0]["parentSession"] == m.session_file
    assert m.get_entry(comp)["firstKeptEntryId"] == lab  # the original is untouched
    m.close()
    clone.close()


def test_in_memory_fork_stays_in_memory():
    m = SessionManager.in_memory("/w")
    u1 = m.append_message(user("one"))
    m.append_message(user("two"))
    forked = m.create_branched_session(u1, "at").manager
    assert not forked.is_persisted() and forked.session_file is None
    assert [e["id"] for e in forked.get_entries()] == [u1]
    assert "parentSession" not in forked.get_header()


def test_new_session_and_switch_to_missing_path(tmp_path, store_kind: StoreKind):
    m = store_kind.create(tmp_path, tmp_path)
    m.append_message(user("x"))
    n = m.new_session(parent_session=m.session_file)
    assert n.session_dir == str(tmp_path) and not is_stored(n.session_file)
    if not store_kind.database:
        assert os.path.dirname(n.session_file) == str(tmp_path)
    n.append_model_change("p", "m")
    assert not is_stored(n.session_file)
    n.append_message(user("y"))
    assert stored_lines(n.session_file)[0]["parentSession"] == m.session_file
    os.makedirs(tmp_path / "sub")
    target = store_kind.locator_at(tmp_path / "sub", "chosen")
    s = SessionManager.open(target, base_cwd=str(tmp_path))
    assert s.session_file == target and not is_stored(target) and s.get_entries() == []
    s.append_message(user("z"))
    assert stored_lines(target)[1]["message"]["content"][0]["text"] == "z"
    for x in (m, n, s):
        x.close()
    if store_kind.database:  # nothing but the database was written
        assert store_kind.jsonl_files_under(tmp_path) == []


def test_exclusive_create_never_overwrites(tmp_path):
    target = tmp_path / "taken.jsonl"
    s = SessionManager.open(str(target), base_cwd=str(tmp_path))
    target.write_bytes(b"someone else's file\n")
    entry_id = s.append_message(user("z"))  # a write fault: kept in memory, never overwriting
    assert target.read_bytes() == b"someone else's file\n"
    assert [e["id"] for e in s.get_entries()] == [entry_id]
    assert s.write_error is not None and "EEXIST" in s.write_error and s.pending_entry_count() == 1
    target.unlink()  # the fault is gone: the pending entries are written
    assert s.retry_writes() is True and s.write_error is None
    assert read_lines(str(target))[1]["id"] == entry_id
    s.close()


def test_missing_cwd_check(tmp_path):
    (src,) = session_files("b_text")
    path = tmp_path / "s.jsonl"
    path.write_bytes(open(src, "rb").read().replace(b"<BASE>/cwd", b"/nonexistent/pi-cwd", 1))
    m = SessionManager.open(str(path))
    assert m.cwd == "/nonexistent/pi-cwd"
    with pytest.raises(MissingSessionCwdError) as err:
        m.check_cwd_exists("/here")
    assert str(err.value) == (
        "Stored session working directory does not exist: /nonexistent/pi-cwd\n"
        f"Session file: {path}\nCurrent working directory: /here"
    )
    m.close()
    other = SessionManager.open(str(path), cwd_override=str(tmp_path))
    assert other.cwd == str(tmp_path)
    other.check_cwd_exists("/here")
    other.close()


def _session(kind: StoreKind, d, cwd, text, name=None):
    m = kind.create(cwd, d)
    m.append_message(user(text, ts=int(time.time() * 1000)))
    if name:
        m.append_session_info(name)
    m.close()
    return m


def test_locations_listing_and_resolution(tmp_path, store_kind: StoreKind):
    agent = tmp_path / "agent"
    backend = store_kind.backend()
    assert encode_cwd("/home/me/t8/cwd") == "--home-me-t8-cwd--"
    d = default_session_dir("/home/me/proj", str(agent))
    assert d == str(agent / "sessions" / "--home-me-proj--") and os.path.isdir(d)
    a = _session(store_kind, d, "/home/me/proj", "first question", name="Named")
    time.sleep(0.01)
    b = _session(store_kind, d, "/home/me/proj", "second question")
    (tmp_path / "agent" / "sessions" / "--home-me-proj--" / "junk.jsonl").write_text("nope\n")
    other_dir = default_session_dir("/elsewhere", str(agent))
    c = _session(store_kind, other_dir, "/elsewhere", "far away")
    infos = backend.list_sessions(d)
    assert [i.id for i in infos] == [b.session_id, a.session_id]  # newest first, junk skipped
    info = infos[1]
    assert info.name == "Named" and info.first_message == "first question" and info.message_count == 1
    assert info.cwd == "/home/me/proj" and info.parent_session_path is None
    assert info.to_dict()["firstMessage"] == "first question"
    all_ids = {i.id for i in backend.list_all_sessions(str(agent / "sessions"))}
    assert all_ids == {a.session_id, b.session_id, c.session_id}
    # --continue: the session written last; with a cwd filter only matching headers count.
    store_kind.make_most_recent(a.session_file)
    assert backend.find_most_recent(d) == a.session_file
    assert backend.find_most_recent(d, "/nowhere") is None
    recent = SessionManager.continue_recent("/home/me/proj", d, backend=backend)
    assert recent.session_file == a.session_file
    recent.close()
    # --session <path|id|prefix|locator>
    roots = dict(cwd="/home/me/proj", session_dir=d, all_sessions_dir=str(agent / "sessions"), backend=backend)
    assert resolve_session_arg("x/y.jsonl", **roots).path == "/home/me/proj/x/y.jsonl"
    assert resolve_session_arg(b.session_id, **roots).path == b.session_file
    assert resolve_session_arg(a.session_id[:30], **roots).type == "local"
    far = resolve_session_arg(c.session_id[:33], **roots)
    assert far.type == "global" and far.cwd == "/elsewhere" and far.path == c.session_file
    with pytest.raises(SessionNotFoundError) as err:
        resolve_session_arg("zzz", **roots)
    assert str(err.value) == "No session found matching 'zzz'"
    assert backend.find_by_id(d, b.session_id) == b.session_file and backend.find_by_id(d, "nope") is None
    assert resolve_session_arg(c.session_file, **roots).path == c.session_file  # a path or a locator
    if store_kind.sqlite:
        assert resolve_session_arg(c.session_file.replace(str(tmp_path), str(tmp_path) + "/."), **roots).path == (
            c.session_file
        )
    elif not store_kind.database:  # the module-level functions are the JSONL backend's
        assert [i.id for i in list_sessions(d)] == [i.id for i in infos]
        assert len(list_all_sessions(str(agent / "sessions"))) == 3
        assert find_most_recent(d) == a.session_file and find_by_id(d, b.session_id) == b.session_file


def test_fork_from_copies_everything(tmp_path, store_kind: StoreKind):
    (src,) = session_files("c_tool_bash")
    source = copy_session(src, tmp_path)
    target_dir = tmp_path / "target"
    backend = store_kind.backend()
    m = SessionManager.fork_from(source, str(tmp_path), str(target_dir), backend=backend)
    lines = stored_lines(m.session_file)
    original = read_lines(source)
    assert lines[1:] == original[1:]
    assert lines[0]["cwd"] == str(tmp_path) and lines[0]["parentSession"] == source
    assert lines[0]["id"] == m.session_id != original[0]["id"]
    m.close()
    # a fork of that fork: its source named by its locator, kept as the parent
    again = SessionManager.fork_from(m.session_file, str(tmp_path), str(target_dir), backend=backend)
    assert stored_lines(again.session_file)[1:] == original[1:]
    assert again.get_header()["parentSession"] == m.session_file
    again.close()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("")
    with pytest.raises(SessionError) as err:
        SessionManager.fork_from(str(bad), str(tmp_path), str(target_dir), backend=backend)
    assert str(err.value) == f"Cannot fork: source session file is empty or invalid: {bad}"
    missing = store_kind.locator_at(tmp_path, "missing")
    with pytest.raises(SessionError) as err:
        SessionManager.fork_from(missing, str(tmp_path), str(target_dir), backend=backend)
    assert str(err.value) == f"Cannot fork: source session file is empty or invalid: {missing}"

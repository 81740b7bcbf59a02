"""Upstream session files must open in our store and answer get_messages / get_entries /
get_tree / get_fork_messages / get_session_stats exactly as upstream 1.6.0 did for them."""

from __future__ import annotations

import os

import orjson
import pytest

from pi_rpc.session import (
    EntryNotFoundError,
    SessionManager,
    compute_context_usage,
    compute_session_stats,
    dumps_js,
)
from tests.support.session_stores import StoreKind, is_stored

from .session_helpers import copy_session, read_lines, responses, session_files

CONTEXT_WINDOW = 128000  # the fake model's window in the oracle's models.json


def _js(value: object) -> bytes:
    return dumps_js(value)


def _stats(manager: SessionManager, session_file: str) -> dict:
    usage = compute_context_usage(manager.build_session_projection(), manager.get_branch(), CONTEXT_WINDOW)
    return compute_session_stats(
        manager.get_entries(), session_file=session_file, session_id=manager.session_id, context_usage=usage
    )


@pytest.mark.parametrize("scenario", ["b_text", "c_tool_bash"])
def test_full_session_matches_upstream_queries(tmp_path, scenario):
    (src,) = session_files(scenario)
    path = copy_session(src, tmp_path)
    before = open(path, "rb").read()
    rs = responses(scenario)
    with SessionManager.open(path) as manager:
        assert manager.diagnostics == []
        gm = next(r for r in rs.values() if r["command"] == "get_messages")
        assert _js(manager.build_session_context()["messages"]) == _js(gm["data"]["messages"])
        ss = next(r for r in rs.values() if r["command"] == "get_session_stats")
        assert _js(_stats(manager, ss["data"]["sessionFile"])) == _js(ss["data"])
        ge = [r for r in rs.values() if r["command"] == "get_entries"]
        for r in ge:
            assert _js(manager.get_entries()) == _js(r["data"]["entries"])
            assert manager.get_leaf_id() == r["data"]["leafId"]
        for state in (r for r in rs.values() if r["command"] == "get_state"):
            assert len(manager.build_session_context()["messages"]) == state["data"]["messageCount"]
            assert manager.session_id == state["data"]["sessionId"]
    # Opening a healthy file must not change a byte of it.
    assert open(path, "rb").read() == before


def test_d_fork_states_match_upstream(tmp_path):
    """Each d_fork query was answered while the session was one of the four files, at a
    known number of lines; replay those states from the files."""
    original, fork1, fork2, clone = session_files("d_fork")
    rs = responses("d_fork")

    def at(src: str, lines: int | None) -> SessionManager:
        d = tmp_path / f"{os.path.basename(src)}-{lines}"
        d.mkdir()
        return SessionManager.open(copy_session(src, d, lines))

    with at(original, None) as m:  # after two prompts
        assert _js(m.get_fork_messages()) == _js(rs["fm1"]["data"]["messages"])
        assert _js(m.get_tree()) == _js(rs["gt1"]["data"]["tree"])
        assert m.get_leaf_id() == rs["gt1"]["data"]["leafId"]
        assert _js(m.get_entries()) == _js(rs["ge1"]["data"]["entries"])
    with at(fork1, 6) as m:  # right after fork(aa514c09): header + 5 copied entries
        assert _js(m.build_session_context()["messages"]) == _js(rs["gm2"]["data"]["messages"])
        assert _js(m.get_tree()) == _js(rs["gt2"]["data"]["tree"])
        assert m.get_leaf_id() == rs["gt2"]["data"]["leafId"]
        assert _js(m.get_fork_messages()) == _js(rs["fm2"]["data"]["messages"])
        assert len(m.build_session_context()["messages"]) == rs["st2"]["data"]["messageCount"]
    with at(fork1, None) as m:  # after "Question after fork"
        assert _js(m.get_tree()) == _js(rs["gt3"]["data"]["tree"])
        assert _js(m.get_fork_messages()) == _js(rs["fm3"]["data"]["messages"])
    with at(fork2, 4) as m:  # right after fork(fbf041d5): model, thinking, system only
        assert _js(m.build_session_context()["messages"]) == _js(rs["gm3"]["data"]["messages"])
        assert _js(m.get_fork_messages()) == _js(rs["fm4"]["data"]["messages"])
        assert len(m.build_session_context()["messages"]) == rs["st3"]["data"]["messageCount"] == 1
    with at(clone, None) as m:  # after clone
        assert _js(m.build_session_context()["messages"]) == _js(rs["gm5"]["data"]["messages"])
        assert _js(m.get_tree()) == _js(rs["gt5"]["data"]["tree"])
        assert m.get_leaf_id() == rs["gt5"]["data"]["leafId"]
        assert _js(m.get_entries(since="4a1b3b7c")) == _js(rs["ge2"]["data"]["entries"]) == b"[]"
        with pytest.raises(EntryNotFoundError) as err:
            m.get_entries(since="nope")
        assert str(err.value) == rs["ge3"]["error"] == "Entry not found: nope"
        assert m.session_id == rs["st5"]["data"]["sessionId"]


def test_d_fork_file_effects_reproduced(tmp_path):
    """Forking/cloning upstream's file with our store yields upstream's next files
    (same entries and ids; new header with parentSession)."""
    original, fork1, fork2, clone = session_files("d_fork")
    rs = responses("d_fork")
    path = copy_session(original, tmp_path)
    with SessionManager.open(path) as m:
        with pytest.raises(Exception) as err:
            m.create_branched_session("does-not-exist")
        assert str(err.value) == rs["fe1"]["error"] == "Invalid entry ID for forking"
        with pytest.raises(Exception) as err:
            m.create_branched_session(None)
        assert str(err.value) == rs["fe2"]["error"]
        result = m.create_branched_session("aa514c09")
    f1 = result.manager
    assert result.selected_text == rs["f1"]["data"]["text"] == "Second question"
    upstream1 = read_lines(fork1)
    ours1 = read_lines(f1.session_file)  # written at once: the path has a conversation
    assert ours1[1:] == upstream1[1:6]
    assert list(ours1[0]) == list(upstream1[0])  # type, version, id, timestamp, cwd, parentSession
    assert ours1[0]["parentSession"] == path
    assert os.path.dirname(f1.session_file) == str(tmp_path)
    assert os.path.basename(f1.session_file).endswith(f"_{f1.session_id}.jsonl")

    result2 = f1.create_branched_session("fbf041d5")
    f2 = result2.manager
    f1.close()
    assert result2.selected_text == "First question"
    assert not os.path.exists(f2.session_file)  # no user/assistant message on the path yet
    assert [e["id"] for e in f2.get_entries()] == [e["id"] for e in read_lines(fork2)[1:4]]
    assert f2.get_header()["parentSession"] == f1.session_file
    msg = read_lines(fork2)[4]["message"]
    f2.append_message(msg)
    assert os.path.exists(f2.session_file)
    assert [e["type"] for e in read_lines(f2.session_file)] == [e["type"] for e in read_lines(fork2)[:5]]
    f2.append_message(read_lines(fork2)[5]["message"])
    cloned = f2.clone().manager
    f2.close()
    ours_clone = read_lines(cloned.session_file)
    upstream_clone = read_lines(clone)
    assert [e["id"] for e in ours_clone[1:4]] == [e["id"] for e in upstream_clone[1:4]]
    assert len(ours_clone) == len(upstream_clone)
    assert ours_clone[0]["parentSession"] == f2.session_file
    cloned.close()


def test_a_queries_fresh_session_shapes():
    """A fresh session (model_change + thinking_level_change, never written): entries, tree
    and stats as upstream answered them."""
    rs = responses("a_queries")
    upstream_entries = next(r for r in rs.values() if r["command"] == "get_entries")["data"]
    m = SessionManager.in_memory("/tmp", entries=upstream_entries["entries"])
    assert _js(m.get_entries()) == _js(upstream_entries["entries"])
    tree = next(r for r in rs.values() if r["command"] == "get_tree")["data"]
    assert _js({"tree": m.get_tree(), "leafId": m.get_leaf_id()}) == _js(tree)
    stats = next(r for r in rs.values() if r["command"] == "get_session_stats")["data"]
    mine = compute_session_stats(
        m.get_entries(),
        session_file=stats["sessionFile"],
        session_id=stats["sessionId"],
        context_usage=compute_context_usage(m.build_session_projection(), m.get_branch(), CONTEXT_WINDOW),
    )
    assert _js(mine) == _js(stats)
    assert m.build_session_context()["messages"] == []
    assert m.get_fork_messages() == []


def test_fresh_persisted_session_writes_nothing(tmp_path, store_kind: StoreKind):
    sessions = tmp_path / "sessions"
    m = store_kind.create("/tmp", sessions)
    m.append_model_change("fake", "fake-model")
    m.append_thinking_level_change("off")
    m.append_session_info("named")
    assert m.session_file and not is_stored(m.session_file)
    assert os.listdir(tmp_path) == (["sessions"] if not store_kind.database else [])  # no database either
    assert not sessions.exists() or os.listdir(sessions) == []
    m.close()


def test_entry_bytes_round_trip_exactly(tmp_path):
    """Re-serialising every upstream line with our writer reproduces it byte for byte."""
    for scenario in ("b_text", "c_tool_bash", "d_fork"):
        for src in session_files(scenario):
            from pi_rpc.session import dumps_line

            data = open(src, "rb").read()
            lines = [orjson.loads(x) for x in data.split(b"\n") if x]
            assert b"".join(dumps_line(x) for x in lines) == data

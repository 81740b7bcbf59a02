"""Python clients (sync and anyio) on the protocol beyond upstream: the typed methods, and the
gap-recovery helper (``sequenced_events``: seq + get_events) against our real server."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pi_rpc_client import (
    BEYOND_UPSTREAM_COMMAND_TYPES,
    EventsLost,
    RpcClient,
    RpcCommandError,
    SeqTracker,
)
from pi_rpc_client.aio import AsyncRpcClient

from .pi_client_testkit import server_env

LONG = {"text": "".join(f"w{i} " for i in range(600)), "chunkChars": 5, "delayMs": 1}


def _argv(tmp_path: Path, script: list[dict[str, Any]] | None, extra: tuple[str, ...]) -> list[str]:
    for d in ("agent", "home", "cwd", "sessions"):
        (tmp_path / d).mkdir(exist_ok=True)
    argv = [
        sys.executable,
        "-m",
        "pi_rpc",
        "--mode",
        "rpc",
        "--model",
        "faux/faux-1",
        "--session-dir",
        str(tmp_path / "sessions"),
        *extra,
    ]
    if script is not None:
        path = tmp_path / "faux-script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        argv += ["--faux-script", str(path)]
    return argv


def faux_client(tmp_path: Path, script: list[dict[str, Any]] | None = None, *extra: str) -> RpcClient:
    return RpcClient(
        _argv(tmp_path, script, extra),
        cwd=tmp_path / "cwd",
        env=server_env(tmp_path),
        inherit_env=False,
        default_timeout=20.0,
    )


def _text(events: list[dict[str, Any]]) -> str:
    return "".join(
        e["assistantMessageEvent"].get("delta", "")
        for e in events
        if e["type"] == "message_update" and e["assistantMessageEvent"]["type"] == "text_delta"
    )


def _node(nodes: list[dict[str, Any]], entry_id: str) -> dict[str, Any]:
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if node["entry"]["id"] == entry_id:
            return node
        stack.extend(node["children"])
    raise AssertionError(f"{entry_id} not in the tree")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# ---------------------------------------------------------------- typed methods


def test_typed_methods_beyond_upstream(tmp_path: Path) -> None:
    assert len(BEYOND_UPSTREAM_COMMAND_TYPES) == 17
    for name in BEYOND_UPSTREAM_COMMAND_TYPES:
        assert callable(getattr(RpcClient, name)), name
    with faux_client(tmp_path, [{"text": "one"}, {"text": "two"}]) as pi:
        info = pi.get_protocol_info()
        assert info["protocolVersion"] == 4 and set(BEYOND_UPSTREAM_COMMAND_TYPES) <= set(info["commands"])
        assert pi.abort() == "idle"
        assert pi.get_scoped_models() == []
        assert pi.set_scoped_models(["faux/faux-reasoner"]) == ["faux/faux-reasoner"]
        assert pi.get_scoped_models() == ["faux/faux-reasoner"]
        assert pi.set_scoped_models([]) == []
        assert pi.reload() == []
        assert pi.set_event_options(run_id=True) == {"seq": False, "runId": True}
        pi.prompt_and_wait("first")
        pi.prompt_and_wait("second")
        sessions = pi.list_sessions()
        assert len(sessions) == 1 and sessions[0]["firstMessage"] == "first"
        assert pi.list_sessions(scope="all", query="SECOND", limit=1)[0]["path"] == sessions[0]["path"]
        pi.rename_session(sessions[0]["path"], "Named")
        assert pi.get_state()["sessionName"] == "Named"
        user = [m for m in pi.get_fork_messages()][1]["entryId"]
        pi.set_label(user, "mark")
        assert _node(pi.get_tree()["tree"], user)["label"] == "mark"
        pi.set_label(user, None)  # sent as JSON null: clears
        assert "label" not in _node(pi.get_tree()["tree"], user)
        assert pi.navigate_tree(user) == {"cancelled": False, "editorText": "second"}
        with pytest.raises(RpcCommandError) as info_err:
            pi.delete_session(sessions[0]["path"])
        assert "current session" in info_err.value.response["error"]
        with pytest.raises(RpcCommandError):
            pi.get_events(0)  # seq is off
        assert pi.set_event_options(seq=True) == {"seq": True, "runId": True}
        assert pi.get_events(10_000) == {"events": [], "lastSeq": 10_000, "truncated": False}


# ---------------------------------------------------------------- the gap-recovery helper


def test_sequenced_events_recover_what_a_bounded_buffer_dropped(tmp_path: Path) -> None:
    with faux_client(tmp_path, [LONG], "--event-buffer", "5000") as pi:
        with pi.sequenced_events(max_buffer=20, run_id=True) as events:
            pi.prompt("go")
            # The consumer is busy while the whole answer streams: the buffer overflows.
            deadline = time.monotonic() + 30
            while events.dropped == 0 or pi.get_state()["isStreaming"] is not False:
                assert time.monotonic() < deadline, "the run never finished"
                time.sleep(0.05)
            got = []
            while not got or got[-1]["type"] != "agent_settled":
                got.append(events.next(timeout=10))
            assert events.dropped > 0 and events.replayed >= events.dropped
            seqs = [e["seq"] for e in got]
            assert seqs == sorted(set(seqs))  # in order, each once
            assert _text(got) == LONG["text"]  # nothing lost
            assert all(e.get("runId") for e in got)
            # No record numbered in between is an event the consumer did not get.
            replay = pi.get_events(seqs[0] - 1)
            assert [e["seq"] for e in replay["events"] if e["seq"] <= seqs[-1]] == seqs


def test_sequenced_events_resume_after_a_reload_and_report_lost_events(tmp_path: Path) -> None:
    with faux_client(
        tmp_path, [{"text": "alpha beta gamma delta", "chunkChars": 3}, LONG], "--event-buffer", "30"
    ) as pi:
        first = pi.sequenced_events()
        plain = pi.events()
        pi.prompt("one")
        seen = []
        while len(seen) < 3:
            seen.append(first.next(timeout=10))
        stored = first.last_seq
        first.close()  # the UI goes away mid-run...
        plain.wait_for("agent_settled", timeout=20)
        plain.close()
        with pi.sequenced_events(since=stored) as again:  # ...and comes back with its stored seq
            rest = []
            while not rest or rest[-1]["type"] != "agent_settled":
                rest.append(again.next(timeout=10))
        assert [e["seq"] for e in rest][0] > stored
        assert _text(seen + rest) == "alpha beta gamma delta"
        # Too late: the ring (30 events) no longer holds what a stale consumer missed.
        stale = pi.sequenced_events(since=1)
        pi.prompt_and_wait("two")
        with pytest.raises(EventsLost) as lost:
            stale.next(timeout=10)
        assert lost.value.since_seq == 1
        stale.close()


def test_seq_tracker_without_io() -> None:
    t = SeqTracker(last_seq=1)
    assert t.classify({"type": "x", "seq": 2}) == SeqTracker.DELIVER
    t.note_response(3)
    assert t.classify({"type": "x", "seq": 4}) == SeqTracker.DELIVER  # 3 was a response
    assert t.classify({"type": "x", "seq": 4}) == SeqTracker.OLD
    assert t.classify({"type": "x"}) == SeqTracker.DELIVER  # unnumbered
    assert t.classify({"type": "x", "seq": 8}) == SeqTracker.GAP
    missed = t.fill({"events": [{"seq": 5}, {"seq": 7}, {"seq": 8}], "lastSeq": 8, "truncated": False}, until_seq=8)
    assert [e["seq"] for e in missed] == [5, 7] and t.last_seq == 7
    with pytest.raises(EventsLost):
        t.fill({"events": [{"seq": 12}], "lastSeq": 12, "truncated": True}, until_seq=13)
    assert t.last_seq == 12


# ---------------------------------------------------------------- anyio flavour


@pytest.mark.anyio
async def test_async_sequenced_events_recover_dropped_events(tmp_path: Path) -> None:
    client = AsyncRpcClient(
        _argv(tmp_path, [LONG], ("--event-buffer", "5000")),
        cwd=tmp_path / "cwd",
        env=server_env(tmp_path),
        inherit_env=False,
        default_timeout=20.0,
    )
    async with client as pi:
        assert (await pi.get_protocol_info())["name"] == "pi_rpc"
        with await pi.sequenced_events(max_buffer=10) as events:
            await pi.prompt("go")
            with pi.events() as plain:
                await plain.wait_for("agent_settled", timeout=30)
            got = []
            while not got or got[-1]["type"] != "agent_settled":
                got.append(await events.next(timeout=10))
            assert events.dropped > 0 and events.replayed >= events.dropped
            assert _text(got) == LONG["text"]
            assert [e["seq"] for e in got] == sorted({e["seq"] for e in got})
        assert await pi.abort() == "idle"


# ---------------------------------------------------------------- credentials


def test_auth_methods_answer_the_login_dialog(tmp_path: Path) -> None:
    import threading

    with faux_client(tmp_path) as pi:
        assert pi.get_auth_status("groq") == [
            {"provider": "groq", "name": "Groq", "authType": None, "status": "missing", "loginMethods": ["api_key"]}
        ]
        stream = pi.events()
        result: dict[str, Any] = {}
        login = threading.Thread(target=lambda: result.update(pi.auth_login("groq", timeout=20)))
        login.start()
        request = stream.next(timeout=20)
        while request.get("type") != "extension_ui_request":
            request = stream.next(timeout=20)
        assert (request["method"], request["title"]) == ("input", "Enter Groq API key")
        pi.notify({"type": "extension_ui_response", "id": request["id"], "value": "gsk-test"})
        login.join(20)
        assert result == {"provider": "groq", "authType": "api_key"}
        assert pi.get_auth_status("groq")[0]["status"] == "ready"
        assert pi.auth_logout("groq") == {"provider": "groq", "removed": True, "authType": "api_key"}
        assert pi.auth_logout("groq") == {"provider": "groq", "removed": False}

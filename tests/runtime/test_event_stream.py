"""Beyond upstream: get_protocol_info, set_event_options (seq, runId) and get_events replay,
against the real subprocess (protocol/README.md "Beyond upstream")."""

from __future__ import annotations

import json
import threading
import time

import pi_rpc
from pi_rpc.modes.wire.protocol import names
from tests.support.pi_process import is_response


def _stamped(p, start: int = 0) -> list[dict]:
    return [r for r in p.records[start:] if "seq" in r]


# ---------------------------------------------------------------- get_protocol_info


def test_protocol_info_describes_the_process_and_leaves_the_stream_alone(pi):
    p = pi(script=[{"text": "hi"}])
    info = p.ok("get_protocol_info")
    assert info["name"] == "pi_rpc" and info["version"] == pi_rpc.__version__
    assert info["protocolVersion"] == 4 and info["upstreamCompat"] == "1.6"
    commands = info["commands"]
    assert len(commands) == len(set(commands))
    assert set(commands) == set(names.COMMAND_TYPES) | set(names.BEYOND_UPSTREAM_COMMAND_TYPES) | {
        "extension_ui_response",
        "host_tool_result",
        "host_tool_update",
    }
    assert {"set_host_tools", "get_tools", "set_active_tools"} <= set(commands)
    assert {"host_tool_request", "host_tool_cancelled"} <= set(info["events"])
    assert {
        "get_protocol_info",
        "set_event_options",
        "get_events",
        "list_sessions",
        "rename_session",
        "delete_session",
        "navigate_tree",
        "set_label",
    } <= set(commands)
    assert info["events"] == [
        *names.EVENT_TYPES,
        *names.OUR_EVENT_TYPES,
        "extension_ui_request",
        "extension_ui_resolved",
        "host_tool_request",
        "host_tool_cancelled",
    ]
    assert info["limits"] == {"maxFrameBytes": 64 * 1024 * 1024, "eventBuffer": 10_000, "maxSessions": 64}
    assert info["features"] == {"seq": False, "runId": False, "handle": False}
    assert info["transports"] == ["stdio"]
    # Off by default: a client that never asks sees no seq and no runId anywhere.
    response = p.cmd("prompt", message="hello")
    assert response["data"] == {"disposition": "started"}
    p.settle()
    assert not any("seq" in r or "runId" in r for r in p.records)
    # features follow set_event_options
    assert p.ok("set_event_options", runId=True) == {"seq": False, "runId": True}
    assert p.ok("get_protocol_info")["features"] == {"seq": False, "runId": True, "handle": False}


def test_protocol_info_limits_follow_the_flags(pi):
    p = pi(args=("--event-buffer", "7", "--max-frame-bytes", "4096"))
    assert p.ok("get_protocol_info")["limits"] == {"maxFrameBytes": 4096, "eventBuffer": 7, "maxSessions": 64}


# ---------------------------------------------------------------- seq


def test_seq_starts_at_the_response_that_turns_it_on_and_stops_at_the_one_that_turns_it_off(pi):
    p = pi(script=[{"text": "one"}, {"text": "two"}])
    p.ok("get_state")
    on = p.cmd("set_event_options", seq=True)
    assert on["data"] == {"seq": True, "runId": False} and on["seq"] == 1
    assert p.raw[-1].endswith(b',"seq":1}')  # after every other key
    start = p.index_of(on)
    p.cmd("prompt", message="go")
    p.settle(start)
    same = p.cmd("set_event_options")  # nothing given: nothing changes
    assert same["data"] == {"seq": True, "runId": False}
    off = p.cmd("set_event_options", seq=False)
    assert off["data"] == {"seq": False, "runId": False} and "seq" not in off
    numbered = [r["seq"] for r in p.records[start : p.index_of(off)]]
    assert numbered == list(range(1, len(numbered) + 1))
    assert "seq" not in p.cmd("get_state")
    # On again: numbering and the ring start over.
    again = p.cmd("set_event_options", seq=True)
    assert again["seq"] == 1
    replay = p.cmd("get_events", sinceSeq=0)
    assert replay["seq"] == 2 and replay["data"] == {"events": [], "lastSeq": 0, "truncated": False}


def test_seq_is_gap_free_over_20000_records_with_concurrent_queries(pi_process):
    # 20,000 records through the real stdout pipe while this process queries: a real process
    # (in-process, the server and the reader would share one interpreter lock).
    pi = pi_process
    p = pi(script=[{"text": "x" * 80_000, "chunkChars": 4}], args=("--event-buffer", "30000"))
    on = p.cmd("set_event_options", seq=True, runId=True)
    start = p.index_of(on)
    p.send({"id": "run", "type": "prompt", "message": "stream"})
    sent: list[str] = []
    done = threading.Event()

    def queries() -> None:
        kinds = [
            ("get_state", {}),
            ("get_session_stats", {}),
            ("get_events", {"sinceSeq": 0}),
            ("get_last_assistant_text", {}),
            ("get_protocol_info", {}),
        ]
        i = 0
        while not done.is_set() and i < 400:
            ctype, fields = kinds[i % len(kinds)]
            if ctype == "get_events" and i >= len(kinds):
                # A replay of the latest events, not the whole buffer each time: from seq 0 every
                # fifth query serialised up to 20,000 events (most of the test's CPU).
                latest = next((r["seq"] for r in reversed(p.records) if r.get("seq")), 0)
                fields = {"sinceSeq": max(0, latest - 200)}
            cid = f"q{i}"
            p.send({"id": cid, "type": ctype, **fields})
            sent.append(cid)
            i += 1
            time.sleep(0.002)

    writer = threading.Thread(target=queries)
    writer.start()
    try:
        p.settle(start, timeout=120)
    finally:
        done.set()
        writer.join()
    for cid in sent:
        p.wait_for(is_response(cid), timeout=30)
    records = p.records[start:]
    seqs = [r.get("seq") for r in records]
    assert None not in seqs
    assert seqs == list(range(1, len(seqs) + 1))  # stdout order, no gap, no reordering
    deltas = [
        r for r in records if r["type"] == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta"
    ]
    assert len(deltas) == 20_000 and len(records) > 20_000
    # runId: on every event of the run, never on a response.
    run_start = next(i for i, r in enumerate(records) if r["type"] == "agent_start")
    run_end = next(i for i, r in enumerate(records) if r["type"] == "agent_settled")
    for r in records[run_start : run_end + 1]:
        assert r.get("runId") == ("run" if r["type"] != "response" else None), r
    answered = [r for r in records if r["type"] == "response" and str(r.get("id", "")).startswith("q")]
    assert len(answered) == len(sent) and all(r["success"] for r in answered)
    assert any(run_start < records.index(r) < run_end for r in answered)  # they really were concurrent


def test_get_events_replays_the_exact_bytes_missed_in_a_gap(pi):
    tricky = "tab\there \u2028sep\u2029 é 1.0, 😀"
    p = pi(
        script=[
            {"text": "first run"},
            {
                "text": "Looking.",
                "toolCalls": [{"id": "call_1", "name": "bash", "arguments": {"command": "echo hi; echo 2.50"}}],
            },
            {"text": tricky},
        ]
    )
    p.ok("set_event_options", seq=True, runId=True)
    p.cmd("prompt", message="first")
    p.settle()
    seen_until = _stamped(p)[-1]["seq"]
    # The client "loses" everything from here (a UI reload): it keeps reading but forgets.
    mark = p.mark()
    p.cmd("prompt", message="second")
    p.settle(mark)
    missed = [(r, raw) for r, raw in zip(p.records[mark:], p.raw[mark:]) if r["type"] != "response"]
    replay_response = p.cmd("get_events", sinceSeq=seen_until)
    replay_line = p.raw[p.index_of(replay_response)]
    data = replay_response["data"]
    assert data["truncated"] is False
    assert [e["seq"] for e in data["events"]] == [r["seq"] for r, _ in missed]
    assert data["events"] == [r for r, _ in missed]
    assert data["lastSeq"] == missed[-1][0]["seq"]
    for _, raw in missed:
        assert raw in replay_line  # spliced in byte for byte (escapes, numbers, key order)
    assert b"\\u2028" in replay_line and "\u2028".encode() not in replay_line
    # Nothing newer: an empty answer that keeps the client's place.
    last = replay_response["seq"]
    later = p.ok("get_events", sinceSeq=last + 50)
    assert later == {"events": [], "lastSeq": last + 50, "truncated": False}


def test_event_ring_is_bounded_and_says_when_it_dropped_events(pi):
    p = pi(script=[{"text": "one two three four five six", "chunkChars": 3}], args=("--event-buffer", "5"))
    p.ok("set_event_options", seq=True)
    p.cmd("prompt", message="go")
    p.settle()
    events = [r for r in p.records if "seq" in r and r["type"] != "response"]
    assert len(events) > 5
    everything = p.ok("get_events", sinceSeq=0)
    assert everything["truncated"] is True
    assert everything["events"] == events[-5:]
    tail = p.ok("get_events", sinceSeq=events[-3]["seq"])
    assert tail["events"] == events[-2:] and tail["truncated"] is False
    p.kill()
    q = pi(script=[{"text": "x"}], args=("--event-buffer", "0"))
    q.ok("set_event_options", seq=True)
    q.cmd("prompt", message="go")
    q.settle()
    assert q.ok("get_events", sinceSeq=0) == {"events": [], "lastSeq": 0, "truncated": True}


def test_event_options_and_get_events_errors(pi):
    p = pi()
    off = p.cmd("get_events", sinceSeq=0)
    assert off["success"] is False and "set_event_options" in off["error"] and '"seq":true' in off["error"]
    p.ok("set_event_options", seq=True)
    cases = [
        ({}, 'Invalid command "get_events": field "sinceSeq": expected integer, got undefined'),
        ({"sinceSeq": "3"}, 'Invalid command "get_events": field "sinceSeq": expected integer, got string'),
        ({"sinceSeq": 1.5}, 'Invalid command "get_events": field "sinceSeq": expected integer, got number'),
        ({"sinceSeq": True}, 'Invalid command "get_events": field "sinceSeq": expected integer, got boolean'),
        ({"sinceSeq": -1}, 'Invalid command "get_events": field "sinceSeq": expected a non-negative integer, got -1'),
    ]
    for fields, error in cases:
        response = p.cmd("get_events", **fields)
        assert response["success"] is False and response["error"] == error, response
    bad = p.cmd("set_event_options", seq="yes")
    assert bad["error"] == 'Invalid command "set_event_options": field "seq": expected boolean, got string'
    bad = p.cmd("set_event_options", runId=1)
    assert bad["error"] == 'Invalid command "set_event_options": field "runId": expected boolean, got number'
    # A failed command changes nothing, and is itself numbered.
    info = p.cmd("get_protocol_info")
    assert info["data"]["features"] == {"seq": True, "runId": False, "handle": False}
    numbered = [r["seq"] for r in _stamped(p)]
    assert numbered == list(range(1, len(numbered) + 1))


# ---------------------------------------------------------------- runId

SUMMARY = {"text": "SUMMARY OF WORK", "match": "<conversation>"}
PREFIX = {"text": "PREFIX NOTE", "match": "first part of a single long turn"}


def test_run_id_covers_a_retry_a_compaction_and_a_follow_up(pi):
    script = [
        PREFIX,
        SUMMARY,
        {"text": "first answer " * 10},
        {"error": {"status": 503, "body": "overloaded"}},
        {"text": "slow big answer " * 10, "delayMs": 30, "chunkChars": 8, "usage": {"input": 3500, "output": 10}},
        {"text": "follow-up answer"},
    ]
    p = pi(
        script=script,
        models={"providers": {"faux": {"modelOverrides": {"faux-1": {"contextWindow": 4000}}}}},
        settings={"compaction": {"reserveTokens": 1000, "keepRecentTokens": 1}, "retry": {"baseDelayMs": 20}},
    )
    p.ok("set_event_options", seq=True, runId=True)
    p.cmd("prompt", message="one")
    p.settle()
    mark = p.mark()
    p.send({"id": "run-2", "type": "prompt", "message": "two"})
    p.wait_for(
        lambda r: r.get("type") == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta",
        timeout=20,
        start=mark,
    )
    p.send({"id": "fu", "type": "follow_up", "message": "and then?"})
    p.send({"id": "nm", "type": "set_session_name", "name": "during the run"})
    p.send({"id": "st", "type": "get_state"})
    p.settle(mark, timeout=30)
    records = p.since(mark)
    prompt_response = next(r for r in records if r.get("id") == "run-2")
    assert prompt_response["data"] == {"disposition": "started", "runId": "run-2"}
    start = next(i for i, r in enumerate(records) if r["type"] == "agent_start")
    settled = next(i for i, r in enumerate(records) if r["type"] == "agent_settled")
    caused_by_commands = {id(r) for r in records if r["type"] == "response"}
    # What the follow_up and set_session_name commands emitted themselves carries no runId.
    follow_up_queued = next(r for r in records if r["type"] == "queue_update" and r["followUp"] == ["and then?"])
    renamed = next(r for r in records if r["type"] == "session_info_changed")
    assert "runId" not in follow_up_queued and "runId" not in renamed
    caused_by_commands |= {id(follow_up_queued), id(renamed)}
    run = [r for r in records[start : settled + 1] if id(r) not in caused_by_commands]
    assert all(r.get("runId") == "run-2" for r in run), [r for r in run if r.get("runId") != "run-2"]
    kinds = [r["type"] for r in run]
    for expected in (
        "auto_retry_start",
        "entry_appended",
        "auto_retry_end",
        "compaction_start",
        "compaction_end",
        "queue_update",
        "agent_settled",
    ):
        assert expected in kinds, expected
    assert kinds.count("agent_start") == 2  # the retry's second low-level run
    delivered = next(r for r in run if r["type"] == "queue_update")
    assert delivered["followUp"] == []  # the follow-up taken off the queue inside the run
    follow_up_user = [r for r in run if r["type"] == "message_end" and r["message"]["role"] == "user"]
    assert follow_up_user[-1]["message"]["content"][0]["text"] == "and then?"
    assert all("runId" not in r for r in records if r["type"] == "response")


def test_generated_run_ids_for_numeric_and_missing_ids(pi):
    p = pi(script=[{"text": "a"}, {"text": "b", "delayMs": 20}, {"text": "c"}, {"text": "queued answer"}])
    p.ok("set_event_options", runId=True)
    p.send({"id": 7, "type": "prompt", "message": "one"})
    numeric = p.response(7)
    run_a = numeric["data"]["runId"]
    assert isinstance(run_a, str) and run_a.startswith("run_") and run_a != "7"
    p.settle()
    assert all(r.get("runId") == run_a for r in p.records if r["type"] not in ("response",))
    mark = p.mark()
    p.send({"type": "prompt", "message": "two"})
    unnamed = p.wait_for(lambda r: r.get("type") == "response" and r.get("command") == "prompt", start=mark)
    run_b = unnamed["data"]["runId"]
    assert run_b.startswith("run_") and run_b != run_a
    queued = p.cmd("prompt", message="three", streamingBehavior="followUp")
    assert queued["data"] == {"disposition": "queued"}  # joins the running run: no id of its own
    p.settle(mark, timeout=20)
    assert {r.get("runId") for r in p.since(mark) if r["type"] not in ("response", "queue_update")} == {run_b}
    # seq stays off: runId alone never numbers records
    assert not any("seq" in r for r in p.records)
    # runId off again: nothing carries it
    p.ok("set_event_options", runId=False)
    mark = p.mark()
    plain = p.cmd("prompt", message="four")
    assert plain["data"] == {"disposition": "started"}
    p.settle(mark)
    assert not any("runId" in r for r in p.since(mark))
    assert json.dumps(p.records[-1]).find("runId") < 0

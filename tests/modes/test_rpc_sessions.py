"""Many sessions in one RPC process (#24; protocol/README.md "Session handles"), against the real
subprocess and the offline faux provider: ``open_session`` / ``close_session`` /
``list_open_sessions``, the ``handle`` on commands and events, concurrent runs, isolation of
failures, the single-writer rule across handles and processes, ``--max-sessions``."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from tests.reliability.conftest import read_only_dir  # noqa: F401 - the fixture, used by name
from tests.support.pi_process import PiProcess, is_event


def _answer(i: int) -> str:
    return " ".join(f"answer-{i:02d}-word{w}" for w in range(8))


def _settled(handle: str | None) -> Any:
    return lambda r: r.get("type") == "agent_settled" and r.get("handle") == handle


def _of(records: list[Any], handle: str | None) -> list[dict[str, Any]]:
    return [r for r in records if r.get("type") != "response" and r.get("handle") == handle]


def _assistant_text(message: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in message.get("content") or [] if block.get("type") == "text")


def _open(p: PiProcess, **fields: Any) -> str:
    data = p.ok("open_session", **fields)
    assert set(data) == {"handle", "sessionId", "sessionFile", "cwd"}
    return str(data["handle"])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) is gone as far as work goes.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


# ------------------------------------------------------------------ concurrency and attribution


def test_twenty_sessions_stream_at_once_and_every_event_is_attributed_to_its_own(pi):
    script = [{"match": f"task-{i:02d}", "text": _answer(i), "delayMs": 15, "chunkChars": 4} for i in range(20)]
    p = pi(script=script)
    handles: list[str | None] = [None] + [_open(p) for _ in range(19)]
    assert len(set(handles)) == 20 and "default" not in handles
    start = p.mark()
    ids = []
    for i, handle in enumerate(handles):
        fields = {"message": f"task-{i:02d} please"}
        if handle is not None:
            fields["handle"] = handle
        ids.append(p.request("prompt", **fields))
    for cmd_id in ids:
        response = p.response(cmd_id, timeout=30)
        assert response["command"] == "prompt" and response["success"] is True, response
        assert response["data"] == {"disposition": "started"}
        assert "handle" not in response  # responses are correlated by id alone
    for handle in handles:
        p.wait_for(_settled(handle), start=start, timeout=60)
    records = p.since(start)
    # They ran at once: every run had started before the first one finished.
    starts = [i for i, r in enumerate(records) if r.get("type") == "agent_start"]
    settles = [i for i, r in enumerate(records) if r.get("type") == "agent_settled"]
    assert len(starts) == 20 and len(settles) == 20
    assert max(starts) < min(settles)
    for i, handle in enumerate(handles):
        own = _of(records, handle)
        answer = _answer(i)
        users = [r for r in own if r["type"] == "message_end" and r["message"]["role"] == "user"]
        assert [m["message"]["content"][0]["text"] for m in users] == [f"task-{i:02d} please"]
        ends = [r for r in own if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
        assert [_assistant_text(r["message"]) for r in ends] == [answer]
        deltas = [
            r["assistantMessageEvent"]["delta"]
            for r in own
            if r["type"] == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta"
        ]
        assert "".join(deltas) == answer and len(deltas) > 10
        assert [r["type"] for r in own].count("agent_settled") == 1
        # The handle comes after the event's own keys.
        if handle is not None:
            assert all(list(r)[-1] == "handle" for r in own)
    # Each session's file holds its own conversation only.
    for i, handle in enumerate(handles):
        state = p.ok("get_state", **({} if handle is None else {"handle": handle}))
        text = Path(state["sessionFile"]).read_text()
        assert f"task-{i:02d}" in text and _answer(i) in text
        assert all(f"task-{j:02d}" not in text for j in range(20) if j != i)


def test_abort_of_one_session_leaves_the_others_running(pi):
    slow = {"delayMs": 30, "chunkChars": 3}
    p = pi(script=[{"match": "alpha", "text": _answer(1), **slow}, {"match": "beta", "text": _answer(2), **slow}])
    a, b = _open(p), _open(p)
    start = p.mark()
    p.ok("prompt", message="alpha go", handle=a)
    p.ok("prompt", message="beta go", handle=b)
    p.wait_for(lambda r: r.get("type") == "message_update" and r.get("handle") == a, start=start)
    assert p.ok("abort", handle=a) == {"outcome": "aborted"}
    settled_a = p.wait_for(_settled(a), start=start, timeout=20)
    assert settled_a["aborted"] is True
    settled_b = p.wait_for(_settled(b), start=start, timeout=30)
    assert settled_b["aborted"] is False
    records = p.since(start)
    assert p.index_of(settled_a) < p.index_of(settled_b)  # b was still running when a stopped
    ends = [r for r in _of(records, b) if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert _assistant_text(ends[-1]["message"]) == _answer(2)
    assert p.ok("abort") == {"outcome": "idle"}  # the default session had nothing to abort
    assert not _of(records, None)


# ------------------------------------------------------------------ isolation of failures


def test_a_provider_error_in_one_session_does_not_touch_another(pi):
    p = pi(
        script=[
            {"match": "fails", "error": {"status": 400, "body": "bad request for this one"}},
            {"match": "works", "text": _answer(4), "delayMs": 10, "chunkChars": 4},
        ]
    )
    a, b = _open(p), _open(p)
    start = p.mark()
    p.ok("prompt", message="works fine", handle=b)
    p.ok("prompt", message="fails now", handle=a)
    p.wait_for(_settled(a), start=start, timeout=30)
    p.wait_for(_settled(b), start=start, timeout=30)
    records = p.since(start)
    failed = [r for r in _of(records, a) if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert failed[-1]["message"]["stopReason"] == "error"
    assert "bad request for this one" in failed[-1]["message"]["errorMessage"]
    ends = [r for r in _of(records, b) if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert ends[-1]["message"]["stopReason"] == "stop" and _assistant_text(ends[-1]["message"]) == _answer(4)
    assert p.ok("get_last_assistant_text", handle=b) == {"text": _answer(4)}


SHUTDOWN_EXTENSION = """
def setup(pi):
    def bye(args, ctx):
        ctx.shutdown()

    pi.register_command("bye", {"description": "Shut down", "handler": bye})
"""


def test_ctx_shutdown_in_a_hosted_session_closes_that_session_only(pi):
    p = pi(files={"ext/bye.py": SHUTDOWN_EXTENSION}, args=("-e", "../ext/bye.py"))
    a = _open(p)
    p.ok("prompt", message="/bye", handle=a)
    deadline = time.monotonic() + 10
    while [s["handle"] for s in p.ok("list_open_sessions")["sessions"]] != ["default"]:
        assert time.monotonic() < deadline, "the session did not close"
        time.sleep(0.05)
    p.ok("prompt", message="still serving")
    p.settle()
    assert p.popen.poll() is None
    assert p.close() == 0


COUNTING_EXTENSION = """
def setup(pi):
    seen = []  # one list per extension instance: per session

    @pi.on("input")
    def count(event, ctx):
        seen.append(event["text"])
        if "boom" in event["text"]:
            raise RuntimeError("boom from this session's extension")

    def show(args, ctx):
        ctx.ui.notify("seen=" + str(len(seen)))

    pi.register_command("seen", {"description": "How many prompts this instance saw", "handler": show})
"""


def test_a_raising_extension_stays_in_its_session_and_instances_are_per_session(pi):
    p = pi(
        script=[{"match": "calm", "text": _answer(3), "delayMs": 10, "chunkChars": 3}],
        files={"ext/counting.py": COUNTING_EXTENSION},
        args=("-e", "../ext/counting.py"),
    )
    a, b = _open(p), _open(p)
    start = p.mark()
    p.ok("prompt", message="calm down", handle=b)
    p.ok("prompt", message="boom now", handle=a)
    p.ok("prompt", message="/seen", handle=a)
    error = p.wait_for(is_event("extension_error"), start=start)
    assert error["handle"] == a and "boom from this session" in error["error"]
    p.wait_for(_settled(b), start=start, timeout=30)
    records = p.since(start)
    ends = [r for r in _of(records, b) if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert _assistant_text(ends[-1]["message"]) == _answer(3)
    assert [r for r in records if r.get("type") == "extension_error"] == [error]
    # Each session has its own instance: a and b saw one prompt each (a command is no
    # input), default none; one shared instance would have counted two everywhere.
    notes = {}
    for handle in (a, b, None):
        mark = p.mark()
        p.ok("prompt", message="/seen", **({} if handle is None else {"handle": handle}))
        note = p.wait_for(is_event("extension_ui_request", method="notify"), start=mark)
        assert note.get("handle") == handle
        notes[handle] = note["message"]
    assert notes == {a: "seen=1", b: "seen=1", None: "seen=0"}


def test_a_read_only_session_directory_faults_only_its_session(pi, read_only_dir):  # noqa: F811
    p = pi(script=[{"match": "other", "text": _answer(5), "delayMs": 5, "chunkChars": 4}])
    elsewhere = p.root / "elsewhere"
    elsewhere.mkdir()
    a = _open(p, cwd=str(elsewhere))  # its sessions live in their own per-cwd directory
    first = p.mark()
    p.ok("prompt", message="warm up", handle=a)
    p.wait_for(_settled(a), start=first)
    p.ok("new_session", handle=a)  # its next entries need a new file
    directory = Path(p.ok("get_state", handle=a)["sessionFile"]).parent
    assert directory != Path(p.ok("get_state")["sessionFile"]).parent
    read_only_dir(directory, True)
    start = p.mark()
    p.ok("prompt", message="write fails", handle=a)
    p.ok("prompt", message="other session")
    p.wait_for(_settled(a), start=start, timeout=30)
    p.wait_for(_settled(None), start=start, timeout=30)
    records = p.since(start)
    faults = [r for r in records if r.get("type") == "session_write_error"]
    assert faults and all(r["handle"] == a for r in faults)
    ends = [r for r in _of(records, None) if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert _assistant_text(ends[-1]["message"]) == _answer(5)
    default_file = Path(p.ok("get_state")["sessionFile"])
    assert _answer(5) in default_file.read_text()  # written as usual
    read_only_dir(directory, False)
    assert p.close() == 0


# ------------------------------------------------------------------ one writer per session file


def test_a_session_file_is_held_by_one_handle_and_one_process(pi):
    p = pi()
    own_file = p.ok("get_state")["sessionFile"]
    p.ok("prompt", message="make the file")
    p.settle()
    refused = p.cmd("open_session", sessionPath=own_file)
    assert refused["success"] is False and 'handle "default"' in refused["error"] and own_file in refused["error"]
    a = _open(p)
    p.ok("prompt", message="second file", handle=a)
    p.wait_for(_settled(a))
    a_file = p.ok("get_state", handle=a)["sessionFile"]
    switched = p.cmd("switch_session", sessionPath=a_file)  # default onto a's file
    assert switched["success"] is False and f'handle "{a}"' in switched["error"]
    assert p.ok("get_state")["sessionFile"] == own_file  # nothing changed
    # A second process: the lock's holder pid is named.
    other = pi()
    held = other.cmd("open_session", sessionPath=own_file)
    assert held["success"] is False
    assert f"pid {p.pid}" in held["error"] and own_file in held["error"]
    assert [s["handle"] for s in other.ok("list_open_sessions")["sessions"]] == ["default"]


# ------------------------------------------------------------------ close_session


def test_close_session_kills_its_children_leaves_a_loadable_file_and_goes_quiet(pi, tmp_path):
    marker = tmp_path / "child.pid"
    command = f"sh -c 'echo $$ > {marker}; exec sleep 300'"
    p = pi(script=[{"match": "run it", "toolCalls": [{"name": "bash", "arguments": {"command": command}}]}])
    a = _open(p)
    start = p.mark()
    p.ok("prompt", message="run it", handle=a)
    p.wait_for(is_event("tool_execution_start", handle=a), start=start)
    deadline = time.monotonic() + 10
    while not (marker.exists() and marker.read_text().strip()):
        assert time.monotonic() < deadline, "the child never started"
        time.sleep(0.02)
    child = int(marker.read_text())
    assert _alive(child)
    session_file = p.ok("get_state", handle=a)["sessionFile"]
    close_id = p.request("close_session", handle=a)
    response = p.response(close_id, timeout=20)
    assert response["success"] is True and "data" not in response
    deadline = time.monotonic() + 5
    while _alive(child):
        assert time.monotonic() < deadline, "close_session left its child process running"
        time.sleep(0.02)
    # Nothing of the closed session follows its response; the handle is unknown now.
    p.ok("prompt", message="still here")
    p.settle(p.index_of(response))
    assert not _of(p.records[p.index_of(response) :], a)
    unknown = p.cmd("get_state", handle=a)
    assert unknown["success"] is False and f'"{a}"' in unknown["error"]
    assert [s["handle"] for s in p.ok("list_open_sessions")["sessions"]] == ["default"]
    # The file is complete and can be opened again, here (the lock was released).
    lines = [json.loads(line) for line in Path(session_file).read_text().splitlines()]
    assert lines[0]["type"] == "session"
    b = _open(p, sessionPath=session_file)
    messages = p.ok("get_messages", handle=b)["messages"]
    assert [m["role"] for m in messages][:2] == ["system", "user"] or "user" in [m["role"] for m in messages]
    assert any(m["role"] == "user" and m["content"][0]["text"] == "run it" for m in messages)


# ------------------------------------------------------------------ addressing, listing, limits


def test_handles_listing_and_the_session_limit(pi):
    p = pi(args=("--max-sessions", "3"))
    info = p.ok("get_protocol_info")
    assert info["limits"]["maxSessions"] == 3 and info["features"]["handle"] is False
    assert {"open_session", "close_session", "list_open_sessions"} <= set(info["commands"])
    cwd = p.root / "cwd"
    a = _open(p, model="faux/faux-1", thinkingLevel="off", noSession=True)
    listing = p.ok("list_open_sessions")["sessions"]
    assert [s["handle"] for s in listing] == ["default", a]
    assert listing[1] == {
        "handle": a,
        "sessionId": p.ok("get_state", handle=a)["sessionId"],
        "sessionFile": None,
        "cwd": str(cwd),
        "model": "faux/faux-1",
        "isStreaming": False,
        "pendingMessageCount": 0,
    }
    assert p.ok("get_state", handle="default")["sessionId"] == listing[0]["sessionId"]
    b = _open(p)
    refused = p.cmd("open_session")
    assert refused["success"] is False and "--max-sessions 3" in refused["error"]
    p.ok("close_session", handle=b)
    c = _open(p)
    assert c not in (a, b)
    for bad in ({"handle": "nope"}, {"handle": b}):
        answer = p.cmd("get_state", **bad)
        assert answer["success"] is False and f'"{bad["handle"]}"' in answer["error"]
    wrong_type = p.cmd("get_state", handle=7)
    assert wrong_type["error"] == 'Invalid command "get_state": field "handle": expected string, got number'
    default = p.cmd("close_session", handle="default")
    assert default["success"] is False and "cannot be closed" in default["error"]
    p.ok("close_session", handle=a)
    missing = p.cmd("open_session", cwd=str(p.root / "no-such-dir"))
    assert missing["success"] is False and "no-such-dir" in missing["error"]
    bad_model = p.cmd("open_session", model="faux/none-such")
    assert bad_model["success"] is False and "none-such" in bad_model["error"]
    # Commands go to the addressed session only, and what they emit carries its handle.
    mark = p.mark()
    p.ok("set_session_name", name="named", handle=c)
    assert p.ok("get_state", handle=c)["sessionName"] == "named"
    assert "sessionName" not in p.ok("get_state", handle=None)  # null: "default"
    p.ok("bash", command="echo from-c", handle=c)
    emitted = [r for r in p.since(mark) if r.get("type") != "response"]
    assert {r["type"] for r in emitted} >= {"session_info_changed", "bash_execution_update"}
    assert all(r.get("handle") == c for r in emitted)
    # A handle keeps its name when it gets another session.
    before = p.ok("get_state", handle=c)["sessionId"]
    assert p.ok("new_session", handle=c) == {"cancelled": False}
    after = p.ok("get_state", handle=c)["sessionId"]
    assert after != before
    assert [(s["handle"], s["sessionId"]) for s in p.ok("list_open_sessions")["sessions"]][1:] == [(c, after)]
    # Its tools work in its own cwd.
    p.ok("close_session", handle=c)
    elsewhere = p.root / "elsewhere"
    elsewhere.mkdir()
    d = _open(p, cwd=str(elsewhere))
    assert p.ok("bash", command="pwd", handle=d)["output"].strip() == str(elsewhere)
    assert p.ok("bash", command="pwd")["output"].strip() == str(cwd)


def test_handle_tagging_of_the_default_session_and_one_numbering(pi):
    p = pi()
    a = _open(p)
    assert p.ok("set_event_options", seq=True) == {"seq": True, "runId": False}  # old shape unless asked
    on = p.cmd("set_event_options", handle=True, runId=True)
    assert on["data"] == {"seq": True, "runId": True, "handle": True}
    start = p.index_of(on)
    p.ok("prompt", message="one")
    p.ok("prompt", message="two", handle=a)
    p.wait_for(_settled("default"), start=start)
    p.wait_for(_settled(a), start=start)
    records = p.since(start)
    events = [r for r in records if r.get("type") != "response"]
    assert {r["handle"] for r in events} == {"default", a}
    for r in events:  # handle, then runId, then seq: the last three keys
        assert list(r)[-3:] == ["handle", "runId", "seq"]
    numbers = [r["seq"] for r in records]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # one numbering across handles
    replay = p.ok("get_events", sinceSeq=0)["events"]
    assert {e.get("handle") for e in replay if e.get("type") == "agent_settled"} == {"default", a}
    assert p.ok("get_protocol_info")["features"] == {"seq": True, "runId": True, "handle": True}


CONFIRM_EXTENSION = """
def setup(pi):
    async def ask(args, ctx):
        ok = await ctx.ui.confirm("Sure?", args)
        ctx.ui.notify("answer=" + str(ok))

    pi.register_command("ask", {"description": "Ask and report", "handler": ask})
"""


def test_extension_dialogs_are_tagged_and_answers_routed_by_id(pi):
    p = pi(files={"ext/ask.py": CONFIRM_EXTENSION}, args=("-e", "../ext/ask.py"))
    a, b = _open(p), _open(p)
    start = p.mark()
    # (a prompt that runs an extension command is answered when the command is done)
    ask_ids = [
        p.request("prompt", message="/ask from-a", handle=a),
        p.request("prompt", message="/ask from-b", handle=b),
    ]
    ask_a = p.wait_for(is_event("extension_ui_request", method="confirm", message="from-a"), start=start)
    ask_b = p.wait_for(is_event("extension_ui_request", method="confirm", message="from-b"), start=start)
    assert ask_a["handle"] == a and ask_b["handle"] == b
    # A handle that does not match the asking session: ignored (never answered either way).
    p.send({"type": "extension_ui_response", "id": ask_b["id"], "confirmed": True, "handle": a})
    # By id alone, to the right session.
    p.send({"type": "extension_ui_response", "id": ask_a["id"], "confirmed": True})
    note_a = p.wait_for(is_event("extension_ui_request", method="notify", handle=a), start=start)
    assert note_a["message"] == "answer=True"
    p.send({"type": "extension_ui_response", "id": ask_b["id"], "confirmed": False, "handle": b})
    note_b = p.wait_for(is_event("extension_ui_request", method="notify", handle=b), start=start)
    assert note_b["message"] == "answer=False"
    for cmd_id in ask_ids:
        assert p.response(cmd_id)["success"] is True
    # extension_ui_response is never answered.
    assert [r["id"] for r in p.since(start) if r.get("type") == "response"] == ask_ids


def test_a_second_process_sees_nothing_of_this_feature(pi):
    """Without open_session, the stream of a client is unchanged: no handle anywhere."""
    p = pi()
    p.ok("prompt", message="hello")
    p.settle()
    assert p.ok("set_event_options", runId=True) == {"seq": False, "runId": True}
    assert not any("handle" in r for r in p.records)
    p.popen.send_signal(signal.SIGTERM)
    assert p.wait() == 143


TRUST_BY_DIRECTORY = """
def setup(pi):
    @pi.on("project_trust")
    async def decide(event, ctx):
        import os
        return {"trusted": "yes" if os.path.basename(event["cwd"]) == "trusted" else "no"}
"""


def test_each_opened_session_has_its_project_trust_decided_for_its_own_cwd(pi):
    # The extensions' project_trust handlers run for every session's cwd, as at startup: one
    # decision does not carry over to another project.
    p = pi(
        files={
            "ext/trust_by_directory.py": TRUST_BY_DIRECTORY,
            "trusted/.pi/prompts/projtpl.md": "A project template\n",
            "other/.pi/prompts/projtpl.md": "A project template\n",
        },
        args=("-e", "../ext/trust_by_directory.py"),
    )
    commands = {}
    for name in ("trusted", "other", "trusted"):
        handle = _open(p, cwd=str(p.cwd.parent / name))
        listed = p.ok("get_commands", handle=handle)["commands"]
        commands.setdefault(name, []).append(sorted(c["name"] for c in listed if c.get("source") == "prompt"))
    assert commands == {"trusted": [["projtpl"], ["projtpl"]], "other": [[]]}

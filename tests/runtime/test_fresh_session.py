"""A replacement puts a fresh session in place (issue 32 item 1), seen from a client of the real
``pi --mode rpc`` process: after ``new_session``, ``switch_session``, ``fork`` and ``clone`` a
prompt runs on the new session, its events reach the client, ``get_state`` describes the new
session, and the extensions' handlers fire once per event (the old session's extension
instances are gone with it, not left bound beside the new ones)."""

from __future__ import annotations

from typing import Any

from tests.support.pi_process import PiProcess, is_event

COUNTING_EXTENSION = """
def setup(pi):
    @pi.on("session_start")
    def started(event, ctx):
        ctx.ui.notify("session_start:" + str(event["reason"]))

    @pi.on("agent_start")
    def run(event, ctx):
        ctx.ui.notify("agent_start:" + ctx.session_manager.get_session_id())
"""


def _notes(records: list[Any]) -> list[str]:
    return [r["message"] for r in records if r.get("type") == "extension_ui_request" and r.get("method") == "notify"]


def _prompt(p: PiProcess, text: str) -> list[Any]:
    mark = p.mark()
    assert p.ok("prompt", message=text) == {"disposition": "started"}
    p.settle(mark, timeout=20)
    return p.since(mark)


def _replace(p: PiProcess, ctype: str, **fields: Any) -> tuple[dict[str, Any], list[Any]]:
    mark = p.mark()
    data = p.ok(ctype, **fields)
    return data, p.since(mark)


def test_every_replacement_then_a_prompt_reaches_the_client_once(pi_process):
    script = [{"text": f"reply {i}"} for i in range(6)]
    p = pi_process(script=script, files={"ext/count.py": COUNTING_EXTENSION}, args=("-e", "../ext/count.py"))
    p.wait_for(lambda r: r.get("method") == "notify" and r.get("message") == "session_start:startup")
    records = _prompt(p, "first question")
    first = p.ok("get_state")
    assert _notes(records) == [f"agent_start:{first['sessionId']}"]
    assert first["messageCount"] == 3  # system, user, assistant

    steps: list[tuple[str, dict[str, Any], str]] = [
        ("new_session", {}, "new"),
        ("switch_session", {"sessionPath": first["sessionFile"]}, "resume"),
        ("clone", {}, "fork"),
    ]
    seen_ids = {first["sessionId"]}
    current_count = first["messageCount"]
    for ctype, fields, reason in steps:
        data, records = _replace(p, ctype, **fields)
        assert data["cancelled"] is False
        # The new session's extensions started once (the old ones' handlers are gone).
        p.wait_for(lambda r, reason=reason: r.get("message") == f"session_start:{reason}", start=0)
        state = p.ok("get_state")
        assert state["isStreaming"] is False and state["pendingMessageCount"] == 0
        if ctype == "new_session":
            assert state["sessionId"] not in seen_ids and state["messageCount"] == 0
        elif ctype == "switch_session":
            assert state["sessionId"] == first["sessionId"] and state["sessionFile"] == first["sessionFile"]
            assert state["messageCount"] == 3
        else:  # a clone: the whole current session, in a new file
            assert state["sessionId"] not in seen_ids and state["messageCount"] == current_count
        seen_ids.add(state["sessionId"])
        records = _prompt(p, f"after {ctype}")
        types = [r.get("type") for r in records]
        assert types.count("agent_start") == 1 and types.count("agent_settled") == 1
        ends = [r for r in records if r.get("type") == "message_end" and r["message"]["role"] == "assistant"]
        assert len(ends) == 1
        # One handler call per event, and it saw the session now current.
        assert _notes(records) == [f"agent_start:{state['sessionId']}"]
        after = p.ok("get_state")
        # (a new session's first prompt brings the leading system message along)
        added = 3 if state["messageCount"] == 0 else 2
        assert after["sessionId"] == state["sessionId"] and after["messageCount"] == state["messageCount"] + added
        current_count = after["messageCount"]

    # fork at the first user message of the current session: a new file with what came before
    fork_messages = p.ok("get_fork_messages")["messages"]
    data, _records = _replace(p, "fork", entryId=fork_messages[0]["entryId"])
    assert data == {"text": "first question", "cancelled": False}
    p.wait_for(lambda r: r.get("message") == "session_start:fork", start=0)
    state = p.ok("get_state")
    assert state["sessionId"] not in seen_ids
    records = _prompt(p, "after fork")
    assert _notes(records) == [f"agent_start:{state['sessionId']}"]
    assert [r["message"]["role"] for r in records if r.get("type") == "message_end"] == ["user", "assistant"]
    starts = [r for r in p.since(0) if is_event("extension_ui_request", method="notify")(r)]
    assert [n["message"] for n in starts if n["message"].startswith("session_start:")] == [
        "session_start:startup",
        "session_start:new",
        "session_start:resume",
        "session_start:fork",
        "session_start:fork",
    ]
    assert p.close() == 0


EDITOR = {
    "name": "open_editor",
    "description": "Open a file in the user's editor.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}


def _host_tool_round(p: PiProcess, path: str) -> None:
    """A prompt whose reply calls the client's tool: the request reaches the client, its answer
    ends the call."""
    mark = p.mark()
    p.ok("prompt", message=f"open {path}")
    request = p.wait_for(is_event("host_tool_request"), start=mark, timeout=20)
    assert request["name"] == "open_editor" and request["arguments"] == {"path": path}
    p.send({"type": "host_tool_result", "id": request["id"], "content": [{"type": "text", "text": "shown"}]})
    end = p.wait_for(is_event("tool_execution_end"), start=mark, timeout=20)
    assert end["isError"] is False
    p.settle(mark, timeout=20)


def _host_tools_survive(p: PiProcess) -> None:
    assert p.ok("set_host_tools", tools=[EDITOR]) == {"tools": ["open_editor"]}
    _host_tool_round(p, "a.txt")
    first = p.ok("get_state")
    for ctype, fields in (
        ("new_session", {}),
        ("switch_session", {"sessionPath": first["sessionFile"]}),
        ("clone", {}),
    ):
        assert p.ok(ctype, **fields)["cancelled"] is False
        tools = {t["name"]: t for t in p.ok("get_tools")["tools"]}
        assert tools["open_editor"]["source"] == "host" and tools["open_editor"]["active"] is True, ctype
    _host_tool_round(p, "b.txt")


def test_the_clients_host_tools_go_along_with_every_replacement(pi_process):
    call = {"toolCalls": [{"name": "open_editor", "arguments": {"path": "a.txt"}}]}
    script = [
        {"text": "opening", **call},
        {"text": "done"},
        {"text": "again", "toolCalls": [{"name": "open_editor", "arguments": {"path": "b.txt"}}]},
        {"text": "done again"},
    ]
    _host_tools_survive(pi_process(script=script))
    # With extensions, the new session's loadout composes the host tools once its extensions bound.
    p = pi_process(script=script, files={"ext/count.py": COUNTING_EXTENSION}, args=("-e", "../ext/count.py"))
    _host_tools_survive(p)
    assert p.close() == 0

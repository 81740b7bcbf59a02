"""Event orders of a prompt's run against pi 1.6 (reference §3.3 A–D, §2.1, §2.2)."""

from __future__ import annotations

from tests.support.pi_process import is_event, is_response, kinds


def test_a_first_prompt_emits_system_pair_then_user_then_reply(pi):
    p = pi(script=[{"text": "Hello, world!"}, {"text": "Second answer."}])
    resp = p.cmd("prompt", message="Say hello")
    assert resp == {
        "id": resp["id"],
        "type": "response",
        "command": "prompt",
        "success": True,
        "data": {"disposition": "started"},
    }
    p.settle()
    seq = kinds(p.records)
    assert seq == [
        f"response:{resp['id']}",
        "agent_start",
        "turn_start",
        "message_start:system",
        "message_end:system",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    system = p.wait_for(is_event("message_end"))["message"]
    assert system["role"] == "system" and system["content"] == ""
    assert set(system["sections"]) >= {"preamble", "tools", "cwd"}
    assert [t["name"] for t in system["toolsAdded"]] == ["read", "bash", "edit", "write"]
    start = p.wait_for(lambda r: r["type"] == "message_start" and r["message"]["role"] == "assistant")
    assert start["message"]["content"] == [] and start["message"]["stopReason"] == "pending"
    user = p.wait_for(lambda r: r["type"] == "message_end" and r["message"]["role"] == "user")["message"]
    assert user["content"] == [{"type": "text", "text": "Say hello"}]
    updates = [r for r in p.records if r["type"] == "message_update"]
    assert updates and all(set(u) == {"type", "usage", "assistantMessageEvent"} for u in updates)
    assert "partial" not in updates[0]["assistantMessageEvent"]
    assert (
        "".join(
            u["assistantMessageEvent"].get("delta", "")
            for u in updates
            if u["assistantMessageEvent"]["type"] == "text_delta"
        )
        == "Hello, world!"
    )
    end = p.wait_for("agent_end")
    assert end["willRetry"] is False
    assert [m["role"] for m in end["messages"]] == ["system", "user", "assistant"]
    assert p.wait_for("agent_settled") == {"type": "agent_settled", "aborted": False}

    # The second prompt has no system message.
    mark = p.mark()
    p.cmd("prompt", message="Again")
    p.settle(mark)
    roles = [r["message"]["role"] for r in p.since(mark) if r["type"] == "message_end"]
    assert roles == ["user", "assistant"]
    assert p.ok("get_last_assistant_text") == {"text": "Second answer."}
    messages = p.ok("get_messages")["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant"]


def test_b_tool_call_turn_with_bash(pi):
    p = pi(
        script=[
            {
                "text": "Let me run it.",
                "toolCalls": [{"id": "call_1", "name": "bash", "arguments": {"command": "echo hi"}}],
            },
            {"text": "The command printed hi."},
        ]
    )
    p.cmd("prompt", message="Run echo hi")
    p.settle()
    seq = kinds(p.records)
    first_end = seq.index("message_end:assistant")
    assert (
        seq[first_end : first_end + 8]
        == [
            "message_end:assistant",
            "tool_execution_start",
            *["tool_execution_update"] * (seq.count("tool_execution_update")),
            "tool_execution_end",
            "message_start:toolResult",
            "message_end:toolResult",
            "turn_end",
            "turn_start",
        ][:8]
    )
    assert seq.count("turn_start") == 2 and seq.count("agent_end") == 1
    toolcall_start = p.wait_for(
        lambda r: r["type"] == "message_update" and r["assistantMessageEvent"]["type"] == "toolcall_start"
    )
    assert toolcall_start["assistantMessageEvent"]["id"] == "call_1"
    assert toolcall_start["assistantMessageEvent"]["toolName"] == "bash"
    assistant = p.wait_for(lambda r: r["type"] == "message_end" and r["message"]["role"] == "assistant")["message"]
    assert assistant["stopReason"] == "toolUse"
    start = p.wait_for("tool_execution_start")
    assert start == {
        "type": "tool_execution_start",
        "toolCallId": "call_1",
        "toolName": "bash",
        "args": {"command": "echo hi"},
    }
    tend = p.wait_for("tool_execution_end")
    assert tend["isError"] is False and tend["result"]["content"] == [{"type": "text", "text": "hi\n"}]
    turn_end = p.wait_for("turn_end")
    assert [t["toolCallId"] for t in turn_end["toolResults"]] == ["call_1"]
    assert turn_end["message"]["stopReason"] == "toolUse"
    end = p.wait_for("agent_end")
    assert [m["role"] for m in end["messages"]] == ["system", "user", "assistant", "toolResult", "assistant"]


def test_c_steer_and_follow_up_queueing_order(pi):
    p = pi(
        script=[
            {"text": "slow reply that takes a while", "delayMs": 80, "chunkChars": 3},
            {"text": "answer to steer"},
            {"text": "answer to follow"},
        ]
    )
    p.cmd("prompt", message="start")
    p.wait_for(lambda r: r["type"] == "message_update")
    s = p.request("prompt", message="steer me", streamingBehavior="steer")
    p.response(s)
    f = p.request("follow_up", message="follow me")
    p.response(f)
    busy = p.cmd("prompt", message="no behaviour")
    assert busy["success"] is False
    assert busy["error"] == (
        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
    )
    state = p.ok("get_state")
    assert state["isStreaming"] is True and state["pendingMessageCount"] == 2
    p.settle(timeout=20)
    seq = kinds(p.records)
    # queue_update precedes each queued response
    i_s = seq.index(f"response:{s}")
    i_f = seq.index(f"response:{f}")
    assert seq[i_s - 1] == "queue_update" and seq[i_f - 1] == "queue_update"
    q1 = p.records[[i for i, r in enumerate(p.records) if is_response(s)(r)][0] - 1]
    assert q1 == {"type": "queue_update", "steering": ["steer me"], "followUp": []}
    # deliveries: turn_start, queue_update, user message
    deliveries = [i for i, k in enumerate(seq) if k == "message_start:user"][1:]
    assert len(deliveries) == 2
    for i in deliveries:
        assert seq[i - 2 : i] == ["turn_start", "queue_update"]
    updates = [r for r in p.records if r["type"] == "queue_update"]
    assert updates[-2] == {"type": "queue_update", "steering": [], "followUp": ["follow me"]}
    assert updates[-1] == {"type": "queue_update", "steering": [], "followUp": []}
    assert seq.count("agent_start") == 1 and seq.count("agent_end") == 1 and seq.count("agent_settled") == 1
    users = [
        r["message"]["content"][0]["text"]
        for r in p.records
        if r["type"] == "message_end" and r["message"]["role"] == "user"
    ]
    assert users == ["start", "steer me", "follow me"]
    assert p.ok("get_state")["pendingMessageCount"] == 0


def test_clear_queue_returns_texts_and_emits_empty_update(pi):
    p = pi(script=[{"text": "slow reply " * 4, "delayMs": 60, "chunkChars": 2}])
    p.cmd("prompt", message="start")
    p.wait_for(lambda r: r["type"] == "message_update")
    p.ok("steer", message="s1")
    p.ok("follow_up", message="f1")
    mark = p.mark()
    cq = p.cmd("clear_queue")
    assert cq["data"] == {"steering": ["s1"], "followUp": ["f1"]}
    before = p.since(mark)
    assert before[-2] == {"type": "queue_update", "steering": [], "followUp": []}
    p.ok("abort")


def test_d_abort_while_streaming(pi):
    p = pi(script=[{"text": "slow " * 40, "delayMs": 50, "chunkChars": 5}])
    p.cmd("prompt", message="Long answer")
    p.wait_for(lambda r: r["type"] == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta")
    p.ok("steer", message="kept for later")
    mark = p.mark()
    ab = p.request("abort")
    p.response(ab, timeout=10)
    seq = kinds(p.since(mark))
    assert seq[-5:] == ["message_end:assistant", "turn_end", "agent_end", "agent_settled", f"response:{ab}"]
    end = p.wait_for("message_end", start=mark)["message"]
    assert end["stopReason"] == "aborted" and end["errorMessage"] == "Request was aborted"
    assert p.wait_for("agent_end", start=mark)["willRetry"] is False
    assert p.wait_for("agent_settled", start=mark)["aborted"] is True
    abort_resp = p.response(ab)
    # Our only addition to an upstream command (protocol/README.md §8): what the abort met.
    assert abort_resp["data"] == {"outcome": "aborted"}
    state = p.ok("get_state")
    assert state["isStreaming"] is False and state["pendingMessageCount"] == 1
    # An aborted reply with non-blank text still counts (only blank non-"stop" replies are skipped).
    assert p.ok("get_last_assistant_text")["text"].startswith("slow")
    # idle abort answers at once
    assert p.cmd("abort")["success"] is True


def test_steer_while_idle_joins_next_prompt(pi):
    p = pi(script=[{"text": "one"}, {"text": "two"}])
    data = p.ok("steer", message="queued while idle")
    assert data == {"disposition": "queued"}
    assert p.ok("get_state")["pendingMessageCount"] == 1
    mark = p.mark()
    p.cmd("prompt", message="now")
    p.settle(mark)
    users = [
        r["message"]["content"][0]["text"]
        for r in p.since(mark)
        if r["type"] == "message_end" and r["message"]["role"] == "user"
    ]
    assert users == ["now", "queued while idle"]
    assert kinds(p.since(mark)).count("turn_start") == 1


def test_prompt_expands_skill_and_template(pi):
    p = pi(
        files={
            "agent/prompts/review.md": "---\ndescription: Review code\n---\nReview $1 carefully. All: $@",
            "agent/skills/hello/SKILL.md": "---\nname: hello\ndescription: Say hello nicely\n---\nAlways greet warmly.",
        }
    )
    p.cmd("prompt", message="/review main.py tests")
    p.settle()
    user = p.wait_for(lambda r: r["type"] == "message_end" and r["message"]["role"] == "user")["message"]
    assert user["content"] == [{"type": "text", "text": "Review main.py carefully. All: main.py tests"}]
    mark = p.mark()
    p.cmd("prompt", message="/skill:hello be brief")
    p.settle(mark)
    user = p.wait_for(lambda r: r["type"] == "message_end" and r["message"]["role"] == "user", start=mark)["message"]
    skill_md = p.agent_dir / "skills" / "hello" / "SKILL.md"
    assert user["content"][0]["text"] == (
        f'<skill name="hello" location="{skill_md}">\nReferences are relative to {skill_md.parent}.\n\n'
        "Always greet warmly.\n</skill>\n\nbe brief"
    )
    # An unknown /word passes through as text.
    mark = p.mark()
    p.cmd("prompt", message="/nosuch thing")
    p.settle(mark)
    user = p.wait_for(lambda r: r["type"] == "message_end" and r["message"]["role"] == "user", start=mark)["message"]
    assert user["content"][0]["text"] == "/nosuch thing"
    commands = p.ok("get_commands")["commands"]
    names = [(c["name"], c["source"]) for c in commands]
    # Upstream's built-in `mcp` command is listed first, as an extension command (§8.20).
    assert names == [("mcp", "extension"), ("review", "prompt"), ("skill:hello", "skill")]
    review, hello = commands[1], commands[2]
    assert review["description"] == "Review code"
    assert hello["description"] == "Say hello nicely"
    assert review["sourceInfo"]["path"] == str(p.agent_dir / "prompts" / "review.md")
    assert review["sourceInfo"]["scope"] == "user"


def test_abort_right_after_prompt_aborts_the_run(pi):
    p = pi(script=[{"text": "slow " * 40, "delayMs": 50, "chunkChars": 5}])
    p.send({"id": "p", "type": "prompt", "message": "x"})
    p.send({"id": "a", "type": "abort"})
    p.response("a")
    seq = kinds(p.records)
    assert seq[0] == "response:p" and seq[-3:] == ["agent_end", "agent_settled", "response:a"]
    ends = [r["message"] for r in p.records if r["type"] == "message_end" and r["message"]["role"] == "assistant"]
    assert [m["stopReason"] for m in ends] == ["aborted"]
    assert p.wait_for("agent_settled")["aborted"] is True


def test_eof_during_run_stops_events_and_exits_zero(pi):
    p = pi(script=[{"text": "slow " * 40, "delayMs": 50, "chunkChars": 5}])
    p.cmd("prompt", message="x")
    p.wait_for(lambda r: r["type"] == "message_update")
    rc = p.close()
    assert rc == 0
    assert not any(r["type"] in ("agent_end", "agent_settled") for r in p.records)


def test_thinking_model_streams_thinking_then_text(pi):
    p = pi(
        args=("--model", "faux/faux-reasoner", "--thinking", "low"),
        script=[{"thinking": "pondering deeply", "text": "answer"}],
    )
    assert p.ok("get_state")["thinkingLevel"] == "low"
    p.cmd("prompt", message="think")
    p.settle()
    types = [r["assistantMessageEvent"]["type"] for r in p.records if r["type"] == "message_update"]
    assert types[0] == "thinking_start" and "thinking_end" in types and types[-1] == "text_end"
    assert types.index("thinking_end") < types.index("text_start")
    final = [r["message"] for r in p.records if r["type"] == "message_end" and r["message"]["role"] == "assistant"][0]
    assert [b["type"] for b in final["content"]] == ["thinking", "text"]
    assert final["thinkingLevel"] == "low"

"""Extensions and the session: session_start/session_shutdown reasons (startup, new, fork,
switch, EOF quit, SIGTERM), cancellable switch, ctx.shutdown() with upstream's deferral,
pi.send_message / send_user_message / append_entry / set_label, before_agent_start,
message_end replacement, custom compaction (fromHook), model and thinking selection, user_bash."""

from __future__ import annotations

import json
import signal
import textwrap

from tests.support.pi_process import kinds

LIFECYCLE = textwrap.dedent(
    """
    import json, os
    LOG = os.path.join(os.path.dirname(__file__), "life.log")

    def setup(pi):
        def log(kind):
            def handler(event, ctx):
                with open(LOG, "a") as fh:
                    fh.write(json.dumps({k: v for k, v in event.items() if isinstance(v, (str, type(None)))} | {"type": kind}) + "\\n")
            return handler
        for name in ("session_start", "session_shutdown", "session_before_switch", "session_before_fork"):
            pi.on(name, log(name))
    """
)


def _log(proc) -> list[dict]:
    return [json.loads(line) for line in (proc.root / "ext" / "life.log").read_text().splitlines()]


def test_session_start_and_shutdown_reasons(pi, store_kind) -> None:
    """On both session backends: a database's sessions are named by their locators."""
    proc = store_kind.starter(pi)(
        files={"ext/life.py": LIFECYCLE}, args=("-e", "../ext/life.py"), script=[{"text": "one"}, {"text": "two"}]
    )
    proc.ok("prompt", message="first")
    proc.wait_for("agent_settled")
    first_file = proc.ok("get_state")["sessionFile"]
    entry = proc.ok("get_fork_messages")["messages"][0]["entryId"]
    assert proc.ok("fork", entryId=entry)["cancelled"] is False
    assert proc.ok("new_session")["cancelled"] is False
    assert proc.ok("switch_session", sessionPath=first_file)["cancelled"] is False
    assert proc.close() == 0
    log = [(e["type"], e.get("reason")) for e in _log(proc)]
    assert log == [
        ("session_start", "startup"),
        ("session_before_fork", None),
        ("session_shutdown", "fork"),
        ("session_start", "fork"),
        ("session_before_switch", "new"),
        ("session_shutdown", "new"),
        ("session_start", "new"),
        ("session_before_switch", "resume"),
        ("session_shutdown", "resume"),
        ("session_start", "resume"),
        ("session_shutdown", "quit"),
    ]
    events = _log(proc)
    assert events[3]["previousSessionFile"] == first_file  # session_start of the fork
    assert events[8]["targetSessionFile"] == first_file  # session_shutdown before the switch back
    assert first_file.startswith("sqlite:") == store_kind.sqlite


def test_sigterm_emits_session_shutdown_quit(pi) -> None:
    proc = pi(files={"ext/life.py": LIFECYCLE}, args=("-e", "../ext/life.py"))
    proc.ok("get_state")
    proc.popen.send_signal(signal.SIGTERM)
    assert proc.popen.wait(20) == 143
    assert [(e["type"], e.get("reason")) for e in _log(proc)][-1] == ("session_shutdown", "quit")


SHUTDOWN = textwrap.dedent(
    """
    def setup(pi):
        async def bye(args, ctx):
            ctx.ui.notify("bye")
            ctx.shutdown()
        pi.register_command("bye", {"handler": bye})

        @pi.on("turn_end")
        def stop_after_turn(event, ctx):
            if "stop" in str(event["message"]["content"]):
                ctx.shutdown()
    """
)


def test_ctx_shutdown_when_idle_exits_after_the_response(pi) -> None:
    proc = pi(files={"ext/bye.py": SHUTDOWN}, args=("-e", "../ext/bye.py"))
    proc.send({"id": "b", "type": "prompt", "message": "/bye"})
    assert proc.popen.wait(20) == 0
    proc.drain(0.2)
    assert kinds(proc.records) == ["extension_ui_request", "response:b"]


def test_ctx_shutdown_during_a_run_waits_for_agent_settled(pi) -> None:
    proc = pi(
        files={"ext/bye.py": SHUTDOWN}, args=("-e", "../ext/bye.py"), script=[{"text": "please stop", "delayMs": 20}]
    )
    proc.send({"id": "p", "type": "prompt", "message": "go"})
    assert proc.popen.wait(20) == 0
    proc.drain(0.2)
    assert kinds(proc.records)[-3:] == ["turn_end", "agent_end", "agent_settled"]


ACTIONS = textwrap.dedent(
    """
    def setup(pi):
        async def note(args, ctx):
            pi.append_entry("note-state", {"count": 1})
            pi.send_message({"customType": "note", "content": "remember " + args, "display": True})
            leaf = ctx.session_manager.get_leaf_id()
            pi.set_label(leaf, "checkpoint")
        pi.register_command("note", {"handler": note})

        async def ask(args, ctx):
            pi.send_user_message("asked by the extension: " + args)
        pi.register_command("ask", {"handler": ask})

        async def nudge(args, ctx):
            pi.send_message({"customType": "nudge", "content": "nudge " + args}, {"triggerTurn": True})
        pi.register_command("nudge", {"handler": nudge})

        @pi.on("input")
        def tag(event, ctx):
            if event["source"] == "extension":
                return {"action": "transform", "text": event["text"] + " [via extension]"}

        @pi.on("before_agent_start")
        def inject(event, ctx):
            if event["messageType"] == "user" and "inject" in event["prompt"]:
                return {"message": {"customType": "ctx-note", "content": "injected context", "display": False},
                        "systemPrompt": event["systemPrompt"] + "\\n\\nEXTRA INSTRUCTIONS"}

        @pi.on("message_end")
        def stamp(event, ctx):
            message = event["message"]
            if message["role"] == "assistant":
                return {"message": {**message, "content": [{"type": "text", "text": "rewritten"}]}}
    """
)


def test_send_message_append_entry_and_labels(pi) -> None:
    proc = pi(files={"ext/actions.py": ACTIONS}, args=("-e", "../ext/actions.py"), script=[{"text": "x"}])
    start = proc.mark()
    assert proc.ok("prompt", message="/note the plan")["disposition"] == "handled"
    records = proc.since(start)
    assert kinds(records) == ["entry_appended", "message_start:custom", "message_end:custom", "response:prompt-1"]
    assert records[0]["entry"]["type"] == "custom" and records[0]["entry"]["data"] == {"count": 1}
    custom = records[2]["message"]
    assert {k: custom[k] for k in ("role", "customType", "content", "display")} == {
        "role": "custom",
        "customType": "note",
        "content": "remember the plan",
        "display": True,
    }
    entries = proc.ok("get_entries")["entries"]
    assert entries[-1]["type"] == "label" and entries[-1]["label"] == "checkpoint"
    assert entries[-2] == {
        **entries[-2],
        "type": "custom_message",
        "customType": "note",
        "content": "remember the plan",
        "display": True,
    }

    def labels(nodes: list) -> list:
        return [n.get("label") for n in nodes] + [x for n in nodes for x in labels(n["children"])]

    assert "checkpoint" in labels(proc.ok("get_tree")["tree"])


def test_send_user_message_runs_input_handlers_with_source_extension(pi) -> None:
    proc = pi(files={"ext/actions.py": ACTIONS}, args=("-e", "../ext/actions.py"), script=[{"text": "answer"}])
    assert proc.ok("prompt", message="/ask why")["disposition"] == "handled"
    user = proc.wait_for(lambda r: r.get("type") == "message_end" and r["message"]["role"] == "user")
    assert user["message"]["content"] == [{"type": "text", "text": "asked by the extension: why [via extension]"}]
    proc.wait_for("agent_settled")


def test_send_message_with_trigger_turn_starts_a_run_from_the_custom_message(pi) -> None:
    proc = pi(files={"ext/actions.py": ACTIONS}, args=("-e", "../ext/actions.py"), script=[{"text": "ok"}])
    assert proc.ok("prompt", message="/nudge now")["disposition"] == "handled"
    proc.wait_for("agent_settled")
    starts = [r["message"]["role"] for r in proc.records if r.get("type") == "message_start"]
    assert starts[:3] == ["system", "custom", "assistant"]


def test_before_agent_start_injects_a_message_and_forces_the_prompt_and_message_end_replaces(pi) -> None:
    proc = pi(files={"ext/actions.py": ACTIONS}, args=("-e", "../ext/actions.py"), script=[{"text": "original"}])
    proc.ok("prompt", message="please inject")
    proc.wait_for("agent_settled")
    roles = [r["message"]["role"] for r in proc.records if r.get("type") == "message_end"]
    assert roles == ["system", "user", "custom", "assistant"]
    final = [r for r in proc.records if r.get("type") == "message_end"][-1]["message"]
    assert final["content"] == [{"type": "text", "text": "rewritten"}]
    messages = proc.ok("get_messages")["messages"]
    assert messages[-1]["content"] == [{"type": "text", "text": "rewritten"}]  # recorded as replaced


COMPACTION = textwrap.dedent(
    """
    def setup(pi):
        @pi.on("session_before_compact")
        def custom(event, ctx):
            prep = event["preparation"]
            if event["customInstructions"] == "cancel":
                return {"cancel": True}
            return {"compaction": {"summary": "CUSTOM SUMMARY of " + str(len(prep["messagesToSummarize"])) + " messages",
                                   "firstKeptEntryId": prep["firstKeptEntryId"], "tokensBefore": prep["tokensBefore"]}}

        @pi.on("session_compact")
        def done(event, ctx):
            ctx.ui.notify("compacted fromExtension=" + str(event["fromExtension"]) + " " + event["compactionEntry"]["summary"])
    """
)


def test_custom_compaction_from_hook_and_cancel(pi) -> None:
    proc = pi(
        files={"ext/cc.py": COMPACTION},
        args=("-e", "../ext/cc.py"),
        script=[{"text": "a" * 400}, {"text": "b" * 400}, {"text": "c" * 400}],
        settings={"compaction": {"keepRecentTokens": 10}},
    )
    for i in range(3):
        start = proc.mark()
        proc.ok("prompt", message=f"question {i} " + "q" * 300)
        proc.settle(start)
    cancelled = proc.cmd("compact", customInstructions="cancel")
    assert cancelled["success"] is False and cancelled["error"] == "Compaction cancelled"
    end = [r for r in proc.records if r.get("type") == "compaction_end"][-1]
    assert end["aborted"] is True and "errorMessage" not in end
    result = proc.ok("compact")
    assert result["summary"].startswith("CUSTOM SUMMARY of ")
    entries = proc.ok("get_entries")["entries"]
    compaction = [e for e in entries if e["type"] == "compaction"][-1]
    assert compaction["fromHook"] is True and compaction["summary"] == result["summary"]
    note = [r for r in proc.records if r.get("type") == "extension_ui_request"][-1]
    assert note["message"] == "compacted fromExtension=True " + result["summary"]


SELECTION = textwrap.dedent(
    """
    def setup(pi):
        @pi.on("model_select")
        def model(event, ctx):
            ctx.ui.notify("model " + event["model"]["id"] + " from " + str((event["previousModel"] or {}).get("id")) + " " + event["source"])

        @pi.on("thinking_level_select")
        def thinking(event, ctx):
            ctx.ui.notify("thinking " + event["level"] + " from " + event["previousLevel"])

        @pi.on("user_bash")
        def bash(event, ctx):
            if event["command"] == "whoami":
                return {"result": {"output": "an extension", "exitCode": 0, "cancelled": False, "truncated": False}}
            if event["command"] == "explode":
                raise RuntimeError("bash hook failed")
    """
)


def test_model_and_thinking_selection_events(pi) -> None:
    proc = pi(files={"ext/sel.py": SELECTION}, args=("-e", "../ext/sel.py"))
    models = proc.ok("get_available_models")["models"]
    reasoning = next(m for m in models if m.get("reasoning"))
    start = proc.mark()
    proc.ok("set_model", provider=reasoning["provider"], modelId=reasoning["id"])
    proc.ok("set_thinking_level", level="high")
    notes = [r["message"] for r in proc.since(start) if r.get("type") == "extension_ui_request"]
    assert notes[0].startswith(f"model {reasoning['id']} from ") and notes[0].endswith(" set")
    assert notes[-1].startswith("thinking high from ")
    seq = kinds(proc.since(start))
    assert seq.index("thinking_level_changed") < len(seq) - 1 - seq[::-1].index("extension_ui_request")


def test_user_bash_result_replaces_execution_and_a_raising_hook_fails_the_command(pi) -> None:
    proc = pi(files={"ext/sel.py": SELECTION}, args=("-e", "../ext/sel.py"))
    data = proc.ok("bash", command="whoami")
    assert data == {"output": "an extension", "exitCode": 0, "cancelled": False, "truncated": False}
    messages = proc.ok("get_messages")["messages"]
    assert messages[-1]["role"] == "bashExecution" and messages[-1]["output"] == "an extension"
    failed = proc.cmd("bash", command="explode")
    assert failed["success"] is False and failed["error"] == "bash hook failed"
    error = [r for r in proc.records if r.get("type") == "extension_error"][-1]
    assert error["event"] == "user_bash" and error["error"] == "bash hook failed"
    assert proc.ok("bash", command="echo local")["output"] == "local\n"


SETTLED = textwrap.dedent(
    """
    def setup(pi):
        state = {"asked": False}

        @pi.on("agent_settled")
        def follow(event, ctx):
            if not state["asked"]:
                state["asked"] = True
                pi.send_user_message("follow-up from agent_settled")

        @pi.on("turn_end")
        def during(event, ctx):
            # Sent while the run streams and without a turn: recorded after this turn.
            pi.send_message({"customType": "aside", "content": "noted", "display": False}, {"triggerTurn": False})

        async def squash(args, ctx):
            ctx.compact({"on_complete": lambda result: ctx.ui.notify("compacted " + str(bool(result["summary"]))),
                         "on_error": lambda error: ctx.ui.notify("failed " + str(error))})
        pi.register_command("squash", {"handler": squash})
    """
)


def test_work_requested_from_agent_settled_starts_after_it_and_deferred_custom_messages(pi) -> None:
    proc = pi(
        files={"ext/settled.py": SETTLED},
        args=("-e", "../ext/settled.py"),
        script=[{"text": "first"}, {"text": "second"}],
        settings={"compaction": {"keepRecentTokens": 1}},
    )
    proc.ok("prompt", message="start")
    first = proc.wait_for("agent_settled")
    second = proc.wait_for(lambda r: r.get("type") == "agent_settled" and r is not first, timeout=20)
    order = kinds(proc.records[: proc.index_of(second) + 1])
    assert order.count("agent_settled") == 2
    assert order.index("agent_settled") < order.index("agent_start", order.index("agent_settled"))
    users = [
        r["message"]["content"]
        for r in proc.records
        if r.get("type") == "message_end" and r["message"]["role"] == "user"
    ]
    assert users[-1] == [{"type": "text", "text": "follow-up from agent_settled"}]
    customs = [r for r in proc.records if r.get("type") == "message_end" and r["message"]["role"] == "custom"]
    assert customs and all(c["message"]["content"] == "noted" for c in customs)
    turn_end = proc.index_of(next(r for r in proc.records if r.get("type") == "turn_end"))
    assert proc.index_of(customs[0]) > turn_end
    entries = proc.ok("get_entries")["entries"]
    assert any(e["type"] == "custom_message" and e["display"] is False for e in entries)
    start = proc.mark()
    proc.ok("prompt", message="/squash")
    note = proc.wait_for(
        lambda r: r.get("type") == "extension_ui_request" and r.get("message", "").startswith(("compacted", "failed")),
        start=start,
    )
    assert note["message"] == "compacted True"

"""The extension UI sub-protocol (RPC) and the no-UI modes: request shapes and key order,
undefined keys left out, abort dismissing only dialogs given the run's signal (upstream),
stdin EOF resolving pending dialogs, stale answers ignored; print and JSON modes
where ctx.has_ui is false, dialogs return their defaults and errors go to stderr."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from .ext_support import EXAMPLES

UI = textwrap.dedent(
    """
    def setup(pi):
        async def ui(args, ctx):
            value = await ctx.ui.input("Name?", "your name", timeout=250)
            text = await ctx.ui.editor("Edit", "line 1\\nline 2")
            ctx.ui.notify(f"input={value!r} editor={text!r} mode={ctx.mode} has_ui={ctx.has_ui}", "warning")
            ctx.ui.set_status("ext", "working")
            ctx.ui.set_status("ext")
            ctx.ui.set_widget("w", ["a", "b"], "belowEditor")
            ctx.ui.set_widget("w")
            ctx.ui.set_title("pi - test")
            ctx.ui.set_editor_text("prefilled")
            ctx.ui.paste_to_editor("pasted")
            ctx.ui.set_footer(lambda *a: None)
            assert ctx.ui.get_editor_text() == ""
            assert await ctx.ui.custom(lambda *a: None) is None
            ctx.ui.notify(str(ctx.ui.set_theme("light")))
        pi.register_command("ui", {"handler": ui})
    """
)


def test_ui_request_shapes(pi) -> None:
    proc = pi(files={"ext/ui.py": UI}, args=("-e", "../ext/ui.py"))
    proc.send({"id": "u", "type": "prompt", "message": "/ui"})
    first = proc.wait_for("extension_ui_request")
    assert first["method"] == "input"  # never answered: resolved by its 250 ms timeout
    editor = proc.wait_for(lambda r: r.get("method") == "editor", timeout=10)
    proc.send({"type": "extension_ui_response", "id": editor["id"], "value": "edited"})
    proc.response("u")
    lines = [line for line in _raw(proc) if '"extension_ui_request"' in line]

    def strip_id(line: str) -> str:
        record = json.loads(line)
        assert len(record["id"]) == 36
        return line.replace(record["id"], "ID")

    assert [strip_id(line) for line in lines] == [
        '{"type":"extension_ui_request","id":"ID","method":"input","title":"Name?","placeholder":"your name","timeout":250}',
        '{"type":"extension_ui_request","id":"ID","method":"editor","title":"Edit","prefill":"line 1\\nline 2"}',
        '{"type":"extension_ui_request","id":"ID","method":"notify","message":"input=None editor=\'edited\' mode=rpc has_ui=True","notifyType":"warning"}',
        '{"type":"extension_ui_request","id":"ID","method":"setStatus","statusKey":"ext","statusText":"working"}',
        '{"type":"extension_ui_request","id":"ID","method":"setStatus","statusKey":"ext"}',
        '{"type":"extension_ui_request","id":"ID","method":"setWidget","widgetKey":"w","widgetLines":["a","b"],"widgetPlacement":"belowEditor"}',
        '{"type":"extension_ui_request","id":"ID","method":"setWidget","widgetKey":"w"}',
        '{"type":"extension_ui_request","id":"ID","method":"setTitle","title":"pi - test"}',
        '{"type":"extension_ui_request","id":"ID","method":"set_editor_text","text":"prefilled"}',
        '{"type":"extension_ui_request","id":"ID","method":"set_editor_text","text":"pasted"}',
        '{"type":"extension_ui_request","id":"ID","method":"notify","message":"{\'success\': False, \'error\': \'Theme switching not supported in RPC mode\'}"}',
    ]
    assert len({json.loads(line)["id"] for line in lines}) == len(lines)
    # Every request validates against the protocol model behind protocol/schema.
    from pi_rpc.modes.wire.protocol.events import ExtensionUiRequest

    for line in lines:
        ExtensionUiRequest.model_validate(json.loads(line))


def _raw(proc) -> list[str]:
    return [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in proc.records]


def test_abort_waits_for_a_dialog_without_signal_as_upstream(pi) -> None:
    """Upstream's abort dismisses no dialog by itself: the gate's select keeps waiting, the
    abort is answered once the handler returned and the run settled, and the call does not run
    even though the answer allowed it."""
    script = [
        {"toolCalls": [{"name": "bash", "arguments": {"command": "rm -rf /tmp/nothing-here"}, "id": "c_rm"}]},
        {"text": "x"},
    ]
    proc = pi(args=("-e", str(EXAMPLES / "permission_gate.py")), script=script)
    proc.ok("prompt", message="go")
    question = proc.wait_for("extension_ui_request")
    assert question["method"] == "select"
    abort_id = proc.request("abort")
    # Commands keep being served while the abort waits for the dialog.
    state = proc.ok("get_state")
    assert state["isStreaming"] is True
    assert not any(r.get("id") == abort_id for r in proc.records)
    start = proc.mark()
    proc.send({"type": "extension_ui_response", "id": question["id"], "value": "Yes"})
    end = proc.wait_for("tool_execution_end", start=start)
    assert end["isError"] is True and end["result"]["content"] == [{"type": "text", "text": "Operation aborted"}]
    assert proc.wait_for("agent_settled", start=start)["aborted"] is True
    assert proc.response(abort_id)["success"] is True
    # Nothing told the client about the dialog; an answer now finds nothing.
    assert not any(r["type"] == "extension_ui_request" for r in proc.since(start))
    later = proc.mark()
    proc.send({"type": "extension_ui_response", "id": question["id"], "value": "No"})
    proc.send({"type": "extension_ui_response", "id": "no-such-dialog", "cancelled": True})
    assert proc.ok("get_state")["isStreaming"] is False
    assert [r["type"] for r in proc.since(later)] == ["response"]


SIGNAL_GATE = textwrap.dedent(
    """
    def setup(pi):
        @pi.on("tool_call")
        async def gate(event, ctx):
            ok = await ctx.ui.confirm("Run it?", event["input"]["command"], signal=ctx.signal)
            ctx.ui.notify(f"gate saw {ok} aborted={ctx.signal.aborted}")
            if not ok:
                return {"block": True, "reason": "Blocked by user"}
    """
)


def test_abort_resolves_a_dialog_given_the_run_signal_silently(pi) -> None:
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo hi"}, "id": "c1"}]}, {"text": "x"}]
    proc = pi(files={"ext/gate.py": SIGNAL_GATE}, args=("-e", "../ext/gate.py"), script=script)
    proc.ok("prompt", message="go")
    question = proc.wait_for("extension_ui_request")
    start = proc.mark()
    assert proc.ok("abort") == {"outcome": "aborted"}
    after = proc.since(start)
    # The handler went on with the default; no record withdrew the dialog.
    ui = [r for r in after if r["type"] == "extension_ui_request"]
    assert [(r["method"], r["message"]) for r in ui] == [("notify", "gate saw False aborted=True")]
    end = next(r for r in after if r["type"] == "tool_execution_end")
    assert end["result"]["content"] == [{"type": "text", "text": "Operation aborted"}]
    proc.send({"type": "extension_ui_response", "id": question["id"], "confirmed": True})
    later = proc.mark()
    assert proc.ok("get_state")["isStreaming"] is False
    assert [r["type"] for r in proc.since(later)] == ["response"]


ASKING_COMMAND = textwrap.dedent(
    """
    def setup(pi):
        async def ask(args, ctx):
            choice = await ctx.ui.select("Pick", ["a", "b"])
            ctx.ui.notify(f"picked {choice}")
        pi.register_command("ask", {"handler": ask})
    """
)


def test_stdin_eof_resolves_pending_dialogs_and_the_process_exits(pi) -> None:
    proc = pi(files={"ext/ask.py": ASKING_COMMAND}, args=("-e", "../ext/ask.py"))
    proc.send({"id": "p", "type": "prompt", "message": "/ask"})
    proc.wait_for("extension_ui_request")
    assert proc.close() == 0
    # In-flight commands are answered at EOF (§8.7): the dialog resolved with its default.
    assert proc.wait_for(lambda r: r.get("method") == "notify")["message"] == "picked None"
    assert proc.response("p")["data"] == {"disposition": "handled"}


def _run(mode_args: list[str], tmp_path: Path, env: dict[str, str], ext: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_rpc", *mode_args, "-e", str(ext), "remove the build directory"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )


def test_print_and_json_modes_have_no_ui(tmp_path: Path, pi_environ) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"toolCalls": [{"name": "bash", "arguments": {"command": "rm -rf build"}, "id": "c1"}]},
                {"text": "blocked, as expected"},
            ]
        )
    )
    ext = tmp_path / "both.py"
    ext.write_text(
        textwrap.dedent(
            f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("gate", {str(EXAMPLES / "permission_gate.py")!r})
        gate = importlib.util.module_from_spec(spec); spec.loader.exec_module(gate)

        def setup(pi):
            gate.setup(pi)

            @pi.on("session_start")
            async def hello(event, ctx):
                ctx.ui.notify("never shown")
                assert await ctx.ui.confirm("t", "m") is False and await ctx.ui.select("t", ["a"]) is None
                with open({str(tmp_path / "modes.log")!r}, "a") as fh:
                    fh.write(ctx.mode + " " + str(ctx.has_ui) + "\\n")

            @pi.on("agent_end")
            def broken(event, ctx):
                raise RuntimeError("agent_end handler broke")
        """
        )
    )
    env = pi_environ({"PI_FAUX_SCRIPT": str(script)})
    text = _run(["-p"], tmp_path, env, ext)
    assert text.returncode == 0, text.stderr
    assert text.stdout == "blocked, as expected\n"
    assert f"Extension error ({ext}): agent_end handler broke" in text.stderr

    as_json = _run(["--mode", "json"], tmp_path, env, ext)
    assert as_json.returncode == 0, as_json.stderr
    records = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert records[0]["type"] == "session"
    assert not any(r["type"] in ("extension_ui_request", "extension_error") for r in records)
    end = next(r for r in records if r["type"] == "tool_execution_end")
    assert end["isError"] is True
    assert end["result"]["content"] == [{"type": "text", "text": "Dangerous command blocked (no UI for confirmation)"}]
    assert "agent_end handler broke" in as_json.stderr
    assert (tmp_path / "modes.log").read_text() == "print False\njson False\n"

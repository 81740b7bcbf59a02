"""Registered tools in the tool pipeline: argument validation, tool_call input mutation and
blocking, tool_result rewriting, parallel and sequential execution, abort, --tools and
--exclude-tools filtering, pi.set_active_tools / get_all_tools, prompt listing."""

from __future__ import annotations

import textwrap

from .ext_support import stderr_contains

TOOLS = textwrap.dedent(
    """
    import anyio

    def setup(pi):
        async def slow(tool_call_id, params, signal, on_update, ctx):
            on_update({"content": [{"type": "text", "text": "started " + params["tag"]}], "details": {}})
            await anyio.sleep(params.get("seconds", 0.2))
            return {"content": [{"type": "text", "text": "slept " + params["tag"]}], "details": {"tag": params["tag"]}}

        pi.register_tool({
            "name": "nap", "label": "Nap", "description": "Sleep a little",
            "promptSnippet": "Sleep  for a\\nmoment", "promptGuidelines": ["Use nap when asked to wait."],
            "parameters": {"type": "object", "required": ["tag"],
                           "properties": {"tag": {"type": "string"}, "seconds": {"type": "number"}}},
            "execute": slow,
        })

        def exact(tool_call_id, params, signal, on_update, ctx):
            if params["n"] < 0:
                raise ValueError("n must not be negative")
            return {"content": [{"type": "text", "text": str(params["n"] * 2)}], "details": None}

        pi.register_tool({
            "name": "double", "label": "Double", "description": "Double a number",
            "executionMode": "sequential",
            "parameters": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}},
            "execute": exact,
        })

        pi.register_tool({
            "name": "hidden_helper", "label": "Helper", "description": "Only when activated",
            "defaultActive": False,
            "parameters": {"type": "object", "properties": {}},
            "execute": lambda *a: {"content": [{"type": "text", "text": "helped"}]},
        })

        @pi.on("tool_call")
        def patch(event, ctx):
            if event["toolName"] == "bash":
                event["input"]["command"] = "echo patched-by-extension"

        @pi.on("tool_result")
        def rewrite(event, ctx):
            if event["toolName"] == "double":
                return {"content": [{"type": "text", "text": "doubled: " + event["content"][0]["text"]}]}

        async def tools(args, ctx):
            if args:
                pi.set_active_tools(args.split(","))
            ctx.ui.notify(",".join(pi.get_active_tools()) + " | " + ",".join(t["name"] for t in pi.get_all_tools()))
        pi.register_command("tools", {"handler": tools})
    """
)


def _ends(proc) -> dict[str, dict]:
    return {r["toolCallId"]: r for r in proc.records if r.get("type") == "tool_execution_end"}


def test_registered_tools_validation_mutation_rewrite_and_parallelism(pi) -> None:
    script = [
        {
            "toolCalls": [
                {"name": "nap", "arguments": {"tag": "a", "seconds": 0.3}, "id": "c_a"},
                {"name": "nap", "arguments": {"tag": "b", "seconds": 0.05}, "id": "c_b"},
                {"name": "nap", "arguments": {"seconds": 1}, "id": "c_bad"},
                {"name": "bash", "arguments": {"command": "echo original"}, "id": "c_bash"},
            ]
        },
        {
            "toolCalls": [
                {"name": "double", "arguments": {"n": "21"}, "id": "c_d"},
                {"name": "double", "arguments": {"n": -1}, "id": "c_neg"},
            ]
        },
        {"text": "done"},
    ]
    proc = pi(files={"ext/tools.py": TOOLS}, args=("-e", "../ext/tools.py"), script=script)
    proc.ok("prompt", message="go")
    proc.wait_for("agent_settled", timeout=20)
    ends = _ends(proc)
    # Parallel: the short nap finishes first; validation failures end at once (no durationMs).
    order = [r["toolCallId"] for r in proc.records if r.get("type") == "tool_execution_end"]
    assert order.index("c_b") < order.index("c_a")
    assert ends["c_bad"]["isError"] is True and "durationMs" not in ends["c_bad"]
    assert ends["c_bad"]["result"]["content"][0]["text"].startswith('Validation failed for tool "nap"')
    assert ends["c_a"]["result"] == {"content": [{"type": "text", "text": "slept a"}], "details": {"tag": "a"}}
    updates = [r for r in proc.records if r.get("type") == "tool_execution_update" and r["toolCallId"] == "c_a"]
    assert updates and updates[0]["partialResult"]["content"][0]["text"] == "started a"
    # tool_call mutated the bash input before it ran.
    assert ends["c_bash"]["result"]["content"][0]["text"] == "patched-by-extension\n"
    # Coercion ("21" -> 21), tool_result rewriting, a raising execute becomes an error result.
    assert ends["c_d"]["result"]["content"] == [{"type": "text", "text": "doubled: 42"}]
    assert ends["c_neg"]["isError"] is True
    assert ends["c_neg"]["result"]["content"] == [{"type": "text", "text": "doubled: n must not be negative"}]
    system = next(r for r in proc.records if r.get("type") == "message_end" and r["message"]["role"] == "system")
    declared = [t["name"] for t in system["message"]["toolsAdded"]]
    assert declared == ["read", "bash", "edit", "write", "nap", "double"]
    sections = system["message"]["sections"]
    assert "- nap: Sleep for a moment" in sections["tools"] and "double" not in sections["tools"]
    assert "- Use nap when asked to wait." in sections["rules"]


def test_tools_filters_and_set_active_tools(pi) -> None:
    proc = pi(
        files={"ext/tools.py": TOOLS}, args=("-e", "../ext/tools.py", "--tools", "read,double,hidden_helper,nosuch")
    )
    start = proc.mark()
    proc.ok("prompt", message="/tools")
    note = [r for r in proc.since(start) if r.get("type") == "extension_ui_request"][0]["message"]
    assert note == "read,double,hidden_helper | read,double,hidden_helper"
    assert stderr_contains(proc, 'Unknown tool "nosuch"')

    excluded = pi(files={"ext/tools.py": TOOLS}, args=("-e", "../ext/tools.py", "--exclude-tools", "nap,bash"))
    start = excluded.mark()
    excluded.ok("prompt", message="/tools")
    note = [r for r in excluded.since(start) if r.get("type") == "extension_ui_request"][0]["message"]
    active, registered = note.split(" | ")
    assert active == "read,edit,write,double"
    # Upstream's built-in codemode and tool_search tools are registered (inactive) as well.
    assert registered == "read,edit,write,grep,find,ls,double,hidden_helper,codemode,tool_search"
    start = excluded.mark()
    excluded.ok("prompt", message="/tools hidden_helper,read,grep,nap,unknown")
    note = [r for r in excluded.since(start) if r.get("type") == "extension_ui_request"][0]["message"]
    assert note.split(" | ")[0] == "read,hidden_helper,grep"


def test_abort_cancels_a_running_registered_tool(pi) -> None:
    script = [
        {"toolCalls": [{"name": "nap", "arguments": {"tag": "long", "seconds": 30}, "id": "c_long"}]},
        {"text": "x"},
    ]
    proc = pi(files={"ext/tools.py": TOOLS}, args=("-e", "../ext/tools.py"), script=script)
    proc.ok("prompt", message="go")
    proc.wait_for(lambda r: r.get("type") == "tool_execution_update" and r["toolCallId"] == "c_long")
    proc.ok("abort")
    end = _ends(proc)["c_long"]
    assert end["isError"] is True and end["result"]["content"] == [{"type": "text", "text": "Operation aborted"}]
    assert proc.wait_for("agent_settled")["aborted"] is True

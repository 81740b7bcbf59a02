"""``builtin:codemode``: the ``codemode`` tool definition (registered inactive; ``--tools
+codemode``, ``defaultTools`` or MCP turn it on).

- Its description: how scripts are written, the globals, and (within ``codemode.inlineBudget``
  estimated tokens) the declarations of callable tools that are not declared to the model,
  grouped by namespace. Tools with ``deferred`` exposure (MCP tools included) are never listed,
  so the description does not change while servers connect; scripts find them with
  ``search_tools()``/``describe_tool()``/``describe_namespace()``/``ALL_TOOLS``.
- ``prepareLoadout``: with ``codemode.mode`` ``on`` (default) the declared tools' descriptions
  say how scripts call them; with ``only`` the declared direct tools are hidden from the model,
  which reaches them through scripts.
- ``reachesTools``: every tool when the script uses a discovery global, else the words of its
  source, so MCP waits only for the servers a script names.
- ``store()`` writes of a successful script become ``codemode-store`` custom entries, so each
  branch sees the values written on its own path.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pi_rpc.mcp.codemode.declarations import describe_output, identifier, render_tool_sample
from pi_rpc.mcp.codemode.runner import CODEMODE_TOOL_NAME, STORE_ENTRY_TYPE, run_script, tool_description
from pi_rpc.mcp.codemode.source import SOURCE_GRAMMAR

DEFAULT_INLINE_BUDGET = 3000
CHARS_PER_TOKEN = 4
TEXT_OUTPUT_SCHEMA: dict[str, object] = {"type": "string"}

PARAMETERS: dict[str, object] = {
    "type": "object",
    "required": ["code"],
    "properties": {"code": {"type": "string", "description": "Raw Python source."}},
}
PROMPT_SNIPPET = "Run a Python script that calls other tools"
PROMPT_GUIDELINES = (
    "Use codemode to run independent tool calls together (asyncio.gather), chain them, or filter large output, "
    "instead of making many separate calls.",
)
DESCRIPTION_INTRO = """Run a Python script that calls other tools. The input is raw Python source (not JSON, no code fence), run as the body of an async function in a separate process: top-level `await` and `return` work. The script has no file system, network or subprocess access of its own; it reaches the outside world only through tools.
- `await tools.<name>({...args})` (keyword arguments work too) returns a string, or a dict when the tool's declaration says so, and raises `ToolError` on failure. A tool whose declaration returns a dict returns it on failure too when it produced one; check its fields. Calls still running when the script ends are cancelled. Run independent calls together with `asyncio.gather(..., return_exceptions=True)`.
- Optional first line: `# @options: {"max_output_tokens": 10000, "timeout_ms": 60000}`"""
GLOBALS = """Globals:
- `text(value)`, `image(data_url_or_image_block)`, `print(...)` and a top-level `return` add output; `exit()` ends the script. With several text items, each starts with a `==> text N/M <==` line, and printed lines follow the other output in one `<console_output>` block. `image()` also saves the image to a temp file and the result names its path.
- `store(key, value)` and `load(key)` keep JSON values across codemode calls; `store(key)` deletes.
- `ALL_TOOLS`, `await search_tools(query, limit=..., namespace=...)`, `await describe_tool(name)`, `await describe_namespace(name)`: find unlisted tools, such as MCP tools."""

_DISCOVERY = re.compile(
    r"\b(search_tools|searchTools|describe_namespace|describeNamespace|describe_tool|describeTool|ALL_TOOLS)\b"
)


def script_reach(code: object) -> object:
    """The tools a script may call: ``"all"`` with a discovery global, else its words."""
    if not isinstance(code, str):
        return []
    return "all" if _DISCOVERY.search(code) else re.findall(r"\w+", code)


def _section(tool: dict[str, Any]) -> str:
    tool_id = identifier(tool["name"])
    heading = f"### `{tool_id}`" if tool_id == tool["name"] else f"### `{tool_id}` (`{tool['name']}`)"
    sample = render_tool_sample(tool["name"], tool_description(tool), tool.get("parameters"), tool.get("outputSchema"))
    return f"{heading}\n{sample.strip()}"


def _select(groups: list[list[dict[str, Any]]], budget: int | None) -> set[str]:
    if budget is None:
        return {entry["name"] for group in groups for entry in group}
    queues = [sorted(group, key=lambda e: e["cost"]) for group in groups]
    shown: set[str] = set()
    remaining = budget
    active = [q for q in queues if q]
    while active:
        still: list[list[dict[str, object]]] = []
        for queue in active:
            entry = queue[0]
            if entry["cost"] > remaining:
                continue
            remaining -= entry["cost"]
            shown.add(entry["name"])
            queue.pop(0)
            if queue:
                still.append(queue)
        active = still
    return shown


def create_description(tools: list[dict[str, Any]], inline_budget: int | None = DEFAULT_INLINE_BUDGET) -> str:
    """The codemode description listing ``tools`` (already filtered: no deferred tools)."""
    listed = [t for t in tools if t["name"] != CODEMODE_TOOL_NAME]
    sections = [DESCRIPTION_INTRO, GLOBALS]
    if not listed:
        return "\n\n".join(sections)
    groups: dict[str, dict[str, Any]] = {"": {"namespace": None, "entries": []}}
    for tool in listed:
        namespace = tool.get("namespace")
        key = f"ns:{namespace['name']}" if namespace else ""
        group = groups.setdefault(key, {"namespace": namespace, "entries": []})
        text = _section(tool)
        group["entries"].append({"name": tool["name"], "section": text, "cost": math.ceil(len(text) / CHARS_PER_TOKEN)})
    ordered = sorted(
        groups.values(), key=lambda g: (g["namespace"] is not None, (g["namespace"] or {}).get("name", ""))
    )
    shown = _select([g["entries"] for g in ordered], inline_budget)
    lines = ["Nested tools:"]
    for group in ordered:
        visible = [e for e in group["entries"] if e["name"] in shown]
        namespace = group["namespace"]
        if namespace:
            listing = (
                ""
                if len(visible) == len(group["entries"])
                else " (tools not listed)"
                if not visible
                else " (some tools not listed)"
            )
            description = (namespace.get("description") or "").strip()
            lines.append(f"## {namespace['name']}{listing}" + (f"\n{description}" if description else ""))
        lines.extend(e["section"] for e in visible)
    sections.append("\n\n".join(lines))
    return "\n\n".join(sections)


def describe_script_call(tool: dict[str, Any]) -> str:
    """A declared tool's description plus how scripts call it and what that returns."""
    output = tool.get("outputSchema") if tool.get("outputSchema") is not None else TEXT_OUTPUT_SCHEMA
    return (
        f"{str(tool.get('description') or '').strip()}\n\n"
        f"Codemode: `await tools.{identifier(tool['name'])}(args)` returns {describe_output(tool['name'], output)}."
    )


def prepare_loadout(loadout: dict[str, Any], mode: str, inline_budget: int | None) -> dict[str, Any]:
    """Descriptions of declared tools and the codemode description for this tool set."""
    exposure = loadout["getExposure"]
    callable_tools = [t for t in loadout["callable"] if t["name"] != CODEMODE_TOOL_NAME]
    callable_names = {t["name"] for t in callable_tools}
    descriptions: dict[str, str] = {}
    if mode == "on":
        for tool in loadout["declared"]:
            if tool["name"] in callable_names:
                descriptions[tool["name"]] = describe_script_call(tool)
    listed = callable_tools if mode == "only" else [t for t in callable_tools if exposure(t["name"]) != "direct"]
    with_guidelines = [{**t, "promptGuidelines": loadout["getPromptGuidelines"](t["name"])} for t in listed]
    descriptions[CODEMODE_TOOL_NAME] = create_description(
        [t for t in with_guidelines if exposure(t["name"]) != "deferred"], inline_budget
    )
    declared = {t["name"] for t in loadout["declared"]}
    hidden = [
        t["name"]
        for t in callable_tools
        if mode == "only" and exposure(t["name"]) == "direct" and t["name"] in declared
    ]
    return {"descriptions": descriptions, "hiddenDeclarations": hidden}


def read_store(branch: list[dict[str, object]]) -> dict[str, object]:
    """``load()`` values: the ``codemode-store`` entries of the branch, applied from the root."""
    store: dict[str, object] = {}
    for entry in branch:
        data = entry.get("data")
        if entry.get("type") != "custom" or entry.get("customType") != STORE_ENTRY_TYPE or not isinstance(data, dict):
            continue
        if not isinstance(data.get("set"), dict) or not isinstance(data.get("delete"), list):
            continue
        for key in data["delete"]:
            store.pop(key, None)
        store.update(data["set"])
    return store


class _Host:
    """What a script reaches through the tool's ``ctx``."""

    def __init__(self, pi: Any, ctx: Any) -> None:
        self.pi = pi
        self.ctx = ctx

    def callable_tools(self) -> list[dict[str, object]]:
        return list(self.ctx.get_callable_tools())

    async def execute_tool(
        self, name: str, args: dict[str, object], signal: object, on_update: object = None
    ) -> dict[str, object]:
        outcome: dict[str, object] = await self.ctx.execute_tool(name, args, signal=signal, on_update=on_update)
        return outcome

    def read_store(self) -> dict[str, object]:
        return read_store(self.ctx.session_manager.get_branch())

    def append_store(self, data: dict[str, object]) -> None:
        self.pi.append_entry(STORE_ENTRY_TYPE, data)


def _settings(pi: Any) -> tuple[str, int | None]:
    codemode = (pi.get_settings() or {}).get("codemode") or {}
    mode = "only" if codemode.get("mode") == "only" else "on"
    budget = codemode.get("inlineBudget")
    if isinstance(budget, (int, float)) and not isinstance(budget, bool) and math.isfinite(budget) and budget >= 0:
        return mode, int(budget)
    return mode, DEFAULT_INLINE_BUDGET


def create_tool(pi: object) -> dict[str, object]:
    async def execute(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> dict[str, Any]:
        return await run_script(
            tool_call_id,
            str((params or {}).get("code") or ""),
            signal,
            on_update,
            _Host(pi, ctx) if ctx is not None else None,
        )

    def loadout(view: dict[str, object]) -> dict[str, object]:
        mode, budget = _settings(pi)
        return prepare_loadout(view, mode, budget)

    return {
        "name": CODEMODE_TOOL_NAME,
        "label": CODEMODE_TOOL_NAME,
        "description": create_description([]),
        "promptSnippet": PROMPT_SNIPPET,
        "promptGuidelines": list(PROMPT_GUIDELINES),
        "parameters": PARAMETERS,
        # Scripts must not start other scripts.
        "exposure": "model-only",
        "prepareLoadout": loadout,
        "reachesTools": lambda input: script_reach((input or {}).get("code") if isinstance(input, dict) else None),
        # Capable models write the script as raw text instead of a JSON-escaped string.
        "constrainedSampling": {"type": "grammar", "variants": {"openai_lark": SOURCE_GRAMMAR}},
        "defaultActive": False,
        "execute": execute,
    }


def setup(pi: Any) -> None:
    pi.register_tool(create_tool(pi))

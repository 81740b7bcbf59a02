"""``builtin:tool-search``: the ``tool_search`` tool (registered inactive; ``--tools`` or
``defaultTools`` turn it on, MCP activates it for servers with ``deferred`` tools).

It ranks the tools that are not declared yet and can be loaded (``codemode`` and ``deferred``
exposure) with the BM25 ranker of ``search``, and activates the matches: the next model call
declares them, and since loading goes through the active tool set it is recorded in the
transcript like any other tool change.
"""

from __future__ import annotations

from typing import Any

from pi_rpc.mcp.search import DEFAULT_LIMIT, create_document, rank

TOOL_SEARCH_TOOL_NAME = "tool_search"

DESCRIPTION = (
    "# Tool discovery\n\n"
    "Find tools that are not declared to you yet, such as the tools of MCP servers, by a BM25 search over "
    "their names and descriptions, and declare the matches for your next call.\n\n"
    f"When a task needs a tool you do not have, search for it with `{TOOL_SEARCH_TOOL_NAME}` first; "
    f"tools of MCP servers in particular are found this way."
)
PARAMETERS: dict[str, object] = {
    "type": "object",
    "required": ["query"],
    "properties": {
        "query": {"type": "string", "description": "What the tool should do, in a few words."},
        "limit": {"type": "number", "description": f"How many tools to load at most. Defaults to {DEFAULT_LIMIT}."},
    },
}
PROMPT_SNIPPET = "Find tools that are not loaded yet and load the matches"


def _searchable(exposure: object) -> bool:
    return exposure in ("codemode", "deferred")


def search_and_load(pi: Any, query: str, limit: int) -> list[dict[str, str]]:
    active = list(pi.get_active_tools())
    candidates = [t for t in pi.get_all_tools() if _searchable(t.get("exposure")) and t.get("name") not in active]
    documents = [
        create_document(str(t["name"]), str(t.get("description") or ""), t.get("parameters"), t.get("namespace"))
        for t in candidates
    ]
    matches = [name for name, _score in rank(query, documents, limit)]
    if matches:
        pi.set_active_tools([*active, *matches])
    by_name = {t["name"]: t for t in candidates}
    return [{"name": name, "description": str(by_name[name].get("description") or "")} for name in matches]


def create_tool(pi: object) -> dict[str, object]:
    async def execute(
        _tool_call_id: str, params: Any, _signal: Any = None, _on_update: Any = None, _ctx: Any = None
    ) -> dict[str, object]:
        query = str((params or {}).get("query") or "")
        if query.strip() == "":
            raise ValueError("query must not be empty")
        limit = (params or {}).get("limit", DEFAULT_LIMIT)
        if isinstance(limit, float) and limit.is_integer():
            limit = int(limit)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
            raise ValueError("limit must be a positive integer")
        loaded = search_and_load(pi, query, limit)
        if not loaded:
            text = "No matching tools found."
        else:
            lines = "\n".join(
                f"- {tool['name']}: {(tool['description'].strip().splitlines() or [''])[0]}" for tool in loaded
            )
            count = len(loaded)
            text = f"Loaded {count} tool{'' if count == 1 else 's'}. They are available from your next call:\n{lines}"
        return {"content": [{"type": "text", "text": text}], "details": {"loaded": [t["name"] for t in loaded]}}

    return {
        "name": TOOL_SEARCH_TOOL_NAME,
        "label": TOOL_SEARCH_TOOL_NAME,
        "description": DESCRIPTION,
        "promptSnippet": PROMPT_SNIPPET,
        "parameters": PARAMETERS,
        # Searching changes what the model sees; scripts have no use for it.
        "exposure": "model-only",
        # A query can match any tool that is not declared yet.
        "reachesTools": lambda _input: "all",
        "defaultActive": False,
        "execute": execute,
    }


def setup(pi: Any) -> None:
    pi.register_tool(create_tool(pi))

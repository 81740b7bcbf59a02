"""Shared pieces of the built-in tools: the base class, schema builders and a per-file lock.

Schema builders reproduce upstream TypeBox output key order exactly
(``{"type":"object","required":[...],"properties":{...}}``, ``required`` omitted when empty),
because the schemas travel verbatim in ``toolsAdded`` and provider requests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import anyio

from pi_rpc.agent.types import AgentToolResult, ToolError, ToolUpdateCallback
from pi_rpc.ai.abort import AbortSignal

CONSTRAINED_SAMPLING: dict[str, object] = {"type": "json_schema", "strict": "prefer"}

OPERATION_ABORTED = "Operation aborted"


def string_prop(description: str) -> dict[str, object]:
    return {"type": "string", "description": description}


def number_prop(description: str) -> dict[str, object]:
    return {"type": "number", "description": description}


def boolean_prop(description: str) -> dict[str, object]:
    return {"type": "boolean", "description": description}


def object_schema(properties: dict[str, object], required: list[str] | None = None) -> dict[str, object]:
    schema: dict[str, object] = {"type": "object"}
    if required:
        schema["required"] = list(required)
    schema["properties"] = properties
    return schema


Notice = tuple[str, str, object]  # (text for the [..] footer, details key, details value)


def listing_result(lines: list[str], before: list[Notice], after: list[Notice] = ()) -> AgentToolResult:  # type: ignore[assignment]
    """The shared tail of grep/find/ls: head-truncate to the byte limit, then a ``[...]``
    footer of notices (``before`` ones, the byte-limit one, ``after`` ones, in that order as
    upstream prints them) with the matching ``details`` keys."""
    from pi_rpc.tools.truncate import DEFAULT_MAX_BYTES, format_size, truncate_head

    truncation = truncate_head("\n".join(lines), max_lines=2**53 - 1)
    output = truncation["content"]
    details: dict[str, object] = {}
    notices: list[str] = []
    for text, key, value in before:
        notices.append(text)
        details[key] = value
    if truncation["truncated"]:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = truncation
    for text, key, value in after:
        notices.append(text)
        details[key] = value
    if notices:
        output += f"\n\n[{'. '.join(notices)}]"
    result: AgentToolResult = {"content": [{"type": "text", "text": output}]}
    if details:
        result["details"] = details
    return result


def check_aborted(signal: AbortSignal | None) -> None:
    if signal is not None and signal.aborted:
        raise ToolError(OPERATION_ABORTED)


class BuiltinTool:
    """Base for the built-in tools. Subclasses set the class attributes and ``run``."""

    name: str = ""
    label: str = ""
    description: str = ""
    parameters: dict[str, object] = {}
    constrained_sampling: dict[str, object] | None = CONSTRAINED_SAMPLING
    prompt_snippet: str = ""
    prompt_guidelines: tuple[str, ...] = ()

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, object],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult:
        check_aborted(signal)
        if signal is None:
            return await self.run(args, None, on_update)
        # Abort cancels the work structurally; the cancelled run then reports the abort.
        with signal.scope():
            return await self.run(args, signal, on_update)
        raise ToolError(OPERATION_ABORTED)

    async def run(
        self, args: dict[str, object], signal: AbortSignal | None, on_update: ToolUpdateCallback | None
    ) -> AgentToolResult:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} cwd={self.cwd!r}>"


class FileMutationQueue:
    """Serialises edits and writes to the same file within this process."""

    def __init__(self) -> None:
        self._locks: dict[str, anyio.Lock] = {}
        self._users: dict[str, int] = {}

    async def run(self, path: str, fn: Callable[[], Awaitable[AgentToolResult]]) -> AgentToolResult:
        lock = self._locks.get(path)
        if lock is None:
            lock = self._locks[path] = anyio.Lock()
        self._users[path] = self._users.get(path, 0) + 1
        try:
            async with lock:
                return await fn()
        finally:
            self._users[path] -= 1
            if self._users[path] == 0:
                del self._users[path]
                del self._locks[path]


file_mutation_queue = FileMutationQueue()


async def emit_update(on_update: ToolUpdateCallback | None, partial: AgentToolResult) -> None:
    if on_update is None:
        return
    result = on_update(partial)
    if result is not None and hasattr(result, "__await__"):
        await result

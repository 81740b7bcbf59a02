"""Tools registered with ``pi.register_tool``, as first-class agent tools.

``ExtensionTool`` adapts a definition dict to the agent's tool contract, so a registered tool
goes through the same pipeline as the built-in ones: argument preparation and validation
against its JSON Schema, ``tool_call``/``tool_result`` handlers, parallel execution (or
sequential with ``executionMode: "sequential"``), structural abort, ``--tools`` filtering and the
system prompt's tool list (only with a ``promptSnippet``, as upstream) and rules
(``promptGuidelines``).

``execute(tool_call_id, params, signal, on_update, ctx)`` may be sync or async and returns
``{"content": [...], "details": ..., "isError"?, "terminate"?}``; raising makes an error result
with the message. ``on_update(partial)`` streams ``tool_execution_update`` events (awaiting its
return value is optional). Abort cancels the call at its next ``await``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_rpc.agent.types import AgentToolResult, ToolError, ToolUpdateCallback

if TYPE_CHECKING:
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.extensions.runner import ExtensionRunner
    from pi_rpc.extensions.types import RegisteredTool

OPERATION_ABORTED = "Operation aborted"
#: How long a tool that settles by itself after an abort is waited for before the call ends
#: as aborted (upstream waits without bound; a hung Node tool must not hang the run).
ABORT_SETTLE_SECONDS = 5.0


def normalize_prompt_snippet(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    return " ".join(text.split())


def normalize_prompt_guidelines(guidelines: Any) -> tuple[str, ...]:
    unique: list[str] = []
    for line in guidelines or ():
        text = str(line).strip()
        if text and text not in unique:
            unique.append(text)
    return tuple(unique)


class ExtensionTool:
    """An ``AgentTool`` backed by an extension's definition."""

    extension_tool = True

    def __init__(self, registered: RegisteredTool, runner: Callable[[], ExtensionRunner]) -> None:
        definition = registered.definition
        self.definition = definition
        self.source_info = registered.source_info
        self.extension_path = registered.extension_path
        self._runner = runner
        self.name: str = str(definition["name"])
        self.label: str = str(definition.get("label") or self.name)
        self.description: str = str(definition.get("description") or "")
        self.parameters: dict[str, Any] = definition["parameters"]
        self.prompt_snippet = normalize_prompt_snippet(definition.get("promptSnippet"))
        self.prompt_guidelines = normalize_prompt_guidelines(definition.get("promptGuidelines"))
        self.execution_mode = definition.get("executionMode")
        self.constrained_sampling = definition.get("constrainedSampling")
        self.default_active = definition.get("defaultActive") is not False
        prepare = definition.get("prepareArguments")
        # An async preparation (a TypeScript tool's) is awaited by the agent before validation.
        awaited = callable(prepare) and inspect.iscoroutinefunction(prepare)
        self.prepare_arguments = prepare if callable(prepare) and not awaited else None
        self.prepare_arguments_async = prepare if awaited else None

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, Any],
        signal: AbortSignal | None,
        on_update: ToolUpdateCallback | None,
    ) -> AgentToolResult:
        if signal is not None and signal.aborted:
            raise ToolError(OPERATION_ABORTED)
        ctx = self._runner().create_tool_context(tool_call_id)
        execute = self.definition["execute"]
        result: Any = _CANCELLED  # stays so when an abort cancels the call
        if signal is None:
            result = await _call(execute, tool_call_id, args, signal, on_update, ctx)
        elif getattr(execute, "settles_after_abort", False):
            result = await _settle(_call(execute, tool_call_id, args, signal, on_update, ctx), signal)
        else:
            with signal.scope():
                result = await _call(execute, tool_call_id, args, signal, on_update, ctx)
        if result is _CANCELLED:
            raise ToolError(OPERATION_ABORTED)
        if not isinstance(result, dict):
            raise ToolError(f'Tool "{self.name}" returned {type(result).__name__}; expected a dict with "content"')
        out: dict[str, Any] = dict(result)
        if out.get("content") is None:
            out["content"] = []
        return out  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"<ExtensionTool {self.name!r} from {self.extension_path}>"


_CANCELLED = object()


async def _settle(call: Any, signal: AbortSignal) -> Any:
    """``call``'s result; after an abort it gets ``ABORT_SETTLE_SECONDS`` more, then is cancelled."""
    import anyio

    result: Any = _CANCELLED
    async with anyio.create_task_group() as tg:

        async def run() -> None:
            nonlocal result
            result = await call
            tg.cancel_scope.cancel()

        async def deadline() -> None:
            await signal.wait()
            await anyio.sleep(ABORT_SETTLE_SECONDS)
            tg.cancel_scope.cancel()

        tg.start_soon(run)
        tg.start_soon(deadline)
    return result


async def _call(execute: Callable[..., Any], *args: Any) -> Any:
    value = execute(*args)
    if inspect.isawaitable(value):
        value = await value
    return value

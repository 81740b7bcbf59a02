"""A registered tool's argument preparation in the agent's pipeline: a synchronous
``prepareArguments`` runs inside validation, an ``async`` one (a TypeScript tool's, run in Node)
is awaited first; either way validation checks what it returned, and a failing preparation is
the call's error result. In process: the pipeline, not a process, is what is tested."""

from __future__ import annotations

from typing import Any

import pytest

from pi_rpc.agent.tool_exec import PreparedToolCall, ToolOutcome, prepare_tool_call
from pi_rpc.agent.types import AgentContext
from pi_rpc.agent.validation import resolve_validator
from pi_rpc.extensions.tools import ExtensionTool
from pi_rpc.extensions.types import RegisteredTool

pytestmark = pytest.mark.anyio

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "edits": {"type": "array", "items": {"type": "string"}}},
    "required": ["path", "edits"],
}


def _fold(args: Any) -> Any:
    if isinstance(args, dict) and "edit" in args:
        rest = {k: v for k, v in args.items() if k != "edit"}
        return {**rest, "edits": [args["edit"]]}
    if isinstance(args, dict) and args.get("edit") is None and args.get("boom"):
        raise ValueError("cannot prepare that")
    return args


async def _afold(args: Any) -> Any:
    return _fold(args)


class _Policy:
    validate_args = staticmethod(resolve_validator())
    before_tool_call = None
    after_tool_call = None


def _tool(prepare: Any) -> ExtensionTool:
    definition = {"name": "patch", "parameters": SCHEMA, "prepareArguments": prepare, "execute": lambda *a: {}}
    return ExtensionTool(RegisteredTool(definition, {}, "<test>"), lambda: None)  # type: ignore[arg-type,return-value]


async def _prepare(tool: ExtensionTool, arguments: dict[str, Any]) -> PreparedToolCall | ToolOutcome:
    call = {"type": "toolCall", "id": "c1", "name": "patch", "arguments": arguments}
    message = {"role": "assistant", "content": [call]}
    return await prepare_tool_call(AgentContext(tools=[tool]), message, call, _Policy(), None)  # type: ignore[arg-type]


@pytest.mark.parametrize("prepare", [_fold, _afold], ids=["sync", "async"])
async def test_prepared_arguments_are_validated_and_used(prepare: Any) -> None:
    tool = _tool(prepare)
    assert (tool.prepare_arguments is None) == (prepare is _afold)
    prepared = await _prepare(tool, {"path": "a", "edit": "x"})
    assert isinstance(prepared, PreparedToolCall)
    assert prepared.args == {"path": "a", "edits": ["x"]}


@pytest.mark.parametrize("prepare", [_fold, _afold], ids=["sync", "async"])
async def test_what_preparation_leaves_invalid_is_a_validation_error(prepare: Any) -> None:
    outcome = await _prepare(_tool(prepare), {"path": 3})
    assert isinstance(outcome, ToolOutcome) and outcome.is_error
    assert 'Validation failed for tool "patch"' in outcome.result["content"][0]["text"]


async def test_a_failing_async_preparation_is_the_calls_error() -> None:
    outcome = await _prepare(_tool(_afold), {"path": "a", "boom": True})
    assert isinstance(outcome, ToolOutcome) and outcome.is_error
    assert outcome.result["content"][0]["text"] == "cannot prepare that"

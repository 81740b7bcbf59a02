"""agent layer: the run/turn loop, tool execution, steering and follow-up queues, abort."""

from pi_rpc._lazy import lazy_exports
from pi_rpc.agent.agent import Agent, PendingMessageQueue
from pi_rpc.agent.convert import build_llm_context, convert_to_llm, transform_messages
from pi_rpc.agent.loop import LoopConfig, TurnSnapshot, TurnUpdate, run_agent_loop, run_agent_loop_continue
from pi_rpc.agent.types import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    ToolError,
)

__all__ = [
    "AfterToolCallContext",
    "AfterToolCallResult",
    "Agent",
    "AgentContext",
    "AgentEvent",
    "AgentTool",
    "AgentToolResult",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "LoopConfig",
    "PendingMessageQueue",
    "ToolError",
    "TurnSnapshot",
    "TurnUpdate",
    "build_llm_context",
    "convert_to_llm",
    "run_agent_loop",
    "run_agent_loop_continue",
    "transform_messages",
]

# The event types load on first use (``pi_rpc.agent.AgentEvent``): startup needs none of them.
__getattr__, __dir__ = lazy_exports(globals(), {"AgentEvent": "pi_rpc.agent.events"})

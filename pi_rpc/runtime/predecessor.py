"""``Predecessor``: what a session replacement reads of the session it replaces.

The factory (``successor_session``) builds the fresh session from it and the holder
(``HeldSession``, which extends it) holds sessions that satisfy it. It is its own module because
the holder imports the factory (to build a successor) and the factory must not import the
holder back: both import this one. ``AgentSession`` implements it (a protocol, so that neither
imports the session).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.agent.types import BeforeToolCallHook
    from pi_rpc.runtime.builtin_commands import McpCommand
    from pi_rpc.runtime.model_control import ModelControl
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.prompt_queue import PromptQueue
    from pi_rpc.runtime.tool_control import ToolControl


class Predecessor(Protocol):
    """The session a replacement disposes, as the factory reads it to build its successor."""

    options: RuntimeOptions
    agent: Agent
    models: ModelControl
    queue: PromptQueue
    tool_control: ToolControl | None
    mcp_command: McpCommand | None

    def __init__(self, options: RuntimeOptions, holder: object = None) -> None: ...

    @property
    def holder(self) -> object: ...

    @property
    def tool_gate(self) -> BeforeToolCallHook | None: ...

    def set_tool_gate(self, gate: BeforeToolCallHook | None) -> None: ...

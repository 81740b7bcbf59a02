"""``SessionPort``: all that a session's extensions may use of the session they belong to.

The extension modules of the runtime (``extension_host``, ``extension_actions``,
``extension_hooks``, ``extension_state``, ``boundaries``) reach the live session only through
this Protocol, never through ``AgentSession`` itself: they do not import ``runtime.session``
(not even for type checking), so the runtime has no import circle, and every member listed here
is public. ``AgentSession`` satisfies it structurally (mypy checks that where the session
creates its ``SessionExtensions``).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.agent.types import BeforeToolCallHook
    from pi_rpc.ai.types import CustomMessage, Model
    from pi_rpc.config.settings import Settings
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.resources_state import ResourcesState
    from pi_rpc.session.manager import SessionManager


class CompactionView(Protocol):
    """The session's compaction runner, as far as extensions wait for it."""

    async def wait_idle(self) -> None: ...


class SessionPort(Protocol):
    """The live session, as its extensions see it (implemented by ``AgentSession``)."""

    # ------------------------------------------------------------------ what the session is made of
    @property
    def options(self) -> RuntimeOptions: ...
    @property
    def cwd(self) -> str: ...
    @property
    def agent(self) -> Agent: ...
    @property
    def session(self) -> SessionManager:
        """The session store (the current one: it changes when the session is replaced)."""

    @property
    def resources(self) -> ResourcesState:
        """The loaded resources (rebuilt by a reload or a cwd change: read it each time)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def registry(self) -> Any: ...  # pi_rpc.ai.models.ModelRegistry
    @property
    def compaction(self) -> CompactionView: ...
    @property
    def tool_gate(self) -> BeforeToolCallHook | None:
        """The running mode's check before every tool call (runs after ``tool_call`` handlers)."""

    # ------------------------------------------------------------------ state
    @property
    def model(self) -> Model | None: ...
    @property
    def thinking_level(self) -> str: ...
    @property
    def is_streaming(self) -> bool: ...
    @property
    def is_compacting(self) -> bool: ...
    @property
    def pending_message_count(self) -> int: ...
    @property
    def entry_ids_by_message(self) -> dict[int, str]:
        """Session entry ids of the live messages, by ``id()`` (actionable boundaries)."""

    # ------------------------------------------------------------------ events and background work
    async def emit(self, event: dict[str, Any]) -> None:
        """Send ``event`` to the session's clients."""

    def emit_now(self, event: dict[str, Any]) -> None:
        """Send ``event`` to the clients without awaiting (in order with UI requests)."""

    def spawn(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> bool:
        """Start ``fn(*args)`` in the mode's task group; False (nothing started) when none is
        bound yet."""

    # ------------------------------------------------------------------ actions
    async def prompt(
        self,
        text: str,
        images: list[dict[str, Any]] | None = None,
        streaming_behavior: str | None = None,
        *,
        source: str = "interactive",
        expand_templates: bool = True,
    ) -> str: ...
    async def start_custom_run(self, message: CustomMessage) -> None: ...
    def append_custom_message_now(self, message: CustomMessage) -> None: ...
    async def select_model(self, model: dict[str, Any], source: str = "set") -> None: ...
    async def abort(self) -> bool: ...
    async def wait_for_settled(self) -> None: ...
    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]: ...
    def get_commands(self) -> list[dict[str, Any]]: ...
    def get_session_stats(self) -> dict[str, Any]: ...
    def extend_resources(self, skill_paths: list[str], prompt_paths: list[str]) -> None: ...
    def reload_resources(self) -> None: ...
    async def rediscover_extensions(self) -> list[Any] | None:
        """A reload: extensions and packages discovered again from the settings on disk; the
        new extension sources (None: this session keeps its startup ones)."""
        ...

    def install_tools(self, tools: list[Any], hidden: set[str] | None = None) -> None: ...
    async def new_session(self, parent_session: str | None = None, *, setup: Any = None) -> dict[str, Any]: ...
    async def fork(self, entry_id: Any, position: str = "before") -> dict[str, Any]: ...
    async def switch_session(self, session_path: str) -> dict[str, Any]: ...
    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, Any]: ...

"""``SessionPort``: all that a session's extensions may use of the session they belong to.

The extension modules of the runtime (``extension_host``, ``extension_actions``,
``extension_hooks``, ``extension_state``, ``boundaries``) and, through the ``ExtensionHost``
they bind, every module of ``pi_rpc.extensions`` reach the live session only through this
Protocol. It names verbs (steer, follow up, append a custom entry, set the model, navigate the
tree, compact, abort, wait for idle ...) and plain typed state, never the objects the session is
made of: neither the agent nor the session store is a member (``tests/test_structure.py`` gates
that), so an extension cannot reach past what is listed here. The store is readable only as the
``ReadonlySessionManager`` view extensions get as ``ctx.session_manager``.

``LiveSessionPort`` (``session_port``) implements it over an ``AgentSession``; the extension
modules import neither of them (not even for type checking), so the runtime has no import
circle.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pi_rpc.agent.types import BeforeToolCallHook
    from pi_rpc.agent.validation import ValidateArgs
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.models import ModelRegistry
    from pi_rpc.ai.types import CustomMessage, Message, Model
    from pi_rpc.extensions.context import ReadonlySessionManager
    from pi_rpc.runtime.events import SessionEvent
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.resources_state import ResourcesState
    from pi_rpc.session.entries import Entry


class SessionPort(Protocol):
    """The live session, as its extensions see it (implemented by ``LiveSessionPort``)."""

    # ------------------------------------------------------------------ configuration
    @property
    def options(self) -> RuntimeOptions: ...
    @property
    def cwd(self) -> str: ...
    @property
    def resources(self) -> ResourcesState:
        """The loaded resources (rebuilt by a reload or a cwd change: read it each time)."""

    @property
    def registry(self) -> ModelRegistry: ...
    @property
    def tool_gate(self) -> BeforeToolCallHook | None:
        """The running mode's check before every tool call (runs after ``tool_call`` handlers)."""

    @property
    def store_view(self) -> ReadonlySessionManager:
        """The current session store, read-only (``ctx.session_manager``)."""

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

    @property
    def messages(self) -> list[Message]:
        """The live context (read only: ``commit_entries`` replaces it)."""

    @property
    def signal(self) -> AbortSignal | None:
        """The running run's abort signal (``ctx.signal``)."""

    @property
    def argument_validator(self) -> ValidateArgs | None: ...
    def active_tool_names(self) -> list[str]: ...
    def get_settings(self) -> dict[str, object]:
        """A copy of the effective settings."""

    def get_commands(self) -> list[dict[str, object]]: ...
    def get_session_stats(self) -> dict[str, object]: ...

    # ------------------------------------------------------------------ events and background work
    async def emit(self, event: SessionEvent) -> None:
        """Send ``event`` to the session's clients."""

    def emit_now(self, event: SessionEvent) -> None:
        """Send ``event`` to the clients without awaiting (in order with UI requests)."""

    def spawn(self, fn: Callable[..., Coroutine[object, object, object]], *args: object) -> bool:
        """Start ``fn(*args)`` in the mode's task group; False (nothing started) when none is
        bound yet."""

    # ------------------------------------------------------------------ messages and entries
    async def prompt(
        self,
        text: str,
        images: list[dict[str, object]] | None = None,
        streaming_behavior: str | None = None,
        *,
        source: str = "interactive",
        expand_templates: bool = True,
    ) -> str: ...
    def steer(self, message: Message) -> None:
        """Deliver ``message`` to the running run after the current tool calls."""

    def follow_up(self, message: Message) -> None:
        """Deliver ``message`` once the running run would stop."""

    def queued_messages(self) -> list[Message]:
        """The queued messages the run delivers next (the steered ones, else the follow-ups);
        empty when nothing is queued."""

    async def start_custom_run(self, message: CustomMessage) -> None: ...
    def append_custom_message_now(self, message: CustomMessage) -> None: ...
    def append_custom_entry(self, custom_type: str, data: object) -> Entry | None:
        """Persist a ``custom`` entry; the appended entry."""

    def append_session_name(self, name: str) -> str | None:
        """Record the session's name; the name the store now reports."""

    def set_entry_label(self, entry_id: str, label: str | None) -> None: ...
    def commit_entries(self, drafts: object) -> list[Entry]:
        """Append an actionable boundary's entry drafts to the session; when any was appended
        the live context becomes the session's projection. Returns the appended entries."""

    # ------------------------------------------------------------------ model and thinking level
    async def set_model(self, model: dict[str, object]) -> bool:
        """Select ``model`` (``pi.set_model``); False when its provider has no credentials."""

    def record_thinking_level(self, level: str) -> tuple[str, str] | None:
        """Set the thinking level (clamped to the model): ``(effective, previous)``, or None
        when it did not change."""

    # ------------------------------------------------------------------ runs and the session tree
    async def abort(self) -> bool: ...
    async def wait_for_idle(self) -> None:
        """Until the running run settled and compaction finished."""

    async def compact(self, custom_instructions: str | None = None) -> dict[str, object]: ...
    async def rediscover_extensions(self) -> list[object] | None:
        """A reload: extensions and packages discovered again from the settings on disk; the
        new extension sources (None: this session keeps its startup ones)."""

    async def new_session(
        self,
        parent_session: str | None = None,
        *,
        setup: Callable[..., object] | None = None,
        with_session: Callable[..., object] | None = None,
    ) -> dict[str, object]:
        """``setup(session_manager)`` runs on the new store before it is announced;
        ``with_session(ctx)`` (each replacement) runs after, with the new session's ``ctx``."""

    async def fork(
        self, entry_id: str, position: str = "before", *, with_session: Callable[..., object] | None = None
    ) -> dict[str, object]: ...
    async def switch_session(
        self, session_path: str, *, with_session: Callable[..., object] | None = None
    ) -> dict[str, object]: ...
    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, object]: ...

    # ------------------------------------------------------------------ resources and tools
    def extend_resources(self, skill_paths: list[str], prompt_paths: list[str]) -> None: ...
    def reload_resources(self) -> None: ...
    def install_tools(self, tools: list[object], hidden: set[str] | None = None) -> None: ...

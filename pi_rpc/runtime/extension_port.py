"""``SessionPort``: all that a session's extensions may do to the session they belong to.

The extension modules of the runtime (``extension_host``, ``extension_actions``,
``extension_hooks``, ``extension_state``, ``boundaries``) and, through the ``ExtensionHost``
they bind, every module of ``pi_rpc.extensions`` reach the live session only through this
Protocol. It has two kinds of members and nothing else (``tests/test_structure.py`` gates its
size and that it names none of the session's parts):

* the verbs extensions act with (steer, follow up, append a custom entry, set the model,
  navigate the tree, compact, abort, wait for idle ...), each typed;
* ``state``: one read-only ``SessionStateView`` of what they read (model, thinking level,
  streaming, messages, settings, commands, stats, the store as ``ReadonlySessionManager`` ...).
  Its extension-facing half is ``pi_rpc.extensions.host.SessionView``, which ``ctx`` and ``pi``
  read directly.

What the session's extension parts need that no extension does (background work, events to the
clients, installing tools and resources, the mode's tool gate, the argument validator, the
messages' entry ids) is ``SessionWiring``, given to those parts explicitly, not on the port.

Neither the agent nor the session store is a member of any of them, so an extension cannot
reach past what is listed here. ``LiveSessionPort`` (``session_port``) implements the port and
the view over an ``AgentSession``, which is its own ``SessionWiring``; the extension modules
import neither (not even for type checking), so the runtime has no import circle.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Protocol

from pi_rpc.extensions.host import SessionView

if TYPE_CHECKING:
    from pi_rpc.agent.types import BeforeToolCallHook
    from pi_rpc.agent.validation import ValidateArgs
    from pi_rpc.ai.types import CustomMessage, Message
    from pi_rpc.runtime.events import SessionEvent
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.resources_state import ResourcesState
    from pi_rpc.session.entries import Entry


class SessionStateView(SessionView, Protocol):
    """What extensions read of the session (``SessionView``), plus what the runtime's extension
    parts read on their behalf: the options, the loaded resources and the live context."""

    @property
    def options(self) -> RuntimeOptions: ...
    @property
    def resources(self) -> ResourcesState:
        """The loaded resources (rebuilt by a reload or a cwd change: read it each time)."""

    @property
    def messages(self) -> list[Message]:
        """The live context (read only: ``SessionPort.commit_entries`` replaces it)."""

    def queued_messages(self) -> list[Message]:
        """The queued messages the run delivers next (the steered ones, else the follow-ups);
        empty when nothing is queued."""


class SessionWiring(Protocol):
    """What the runtime's extension parts need of the session that is no extension's action
    (implemented by ``AgentSession`` itself; given to ``SessionExtensions`` next to the port)."""

    @property
    def tool_gate(self) -> BeforeToolCallHook | None:
        """The running mode's check before every tool call (runs after ``tool_call`` handlers)."""

    @property
    def argument_validator(self) -> ValidateArgs | None: ...
    @property
    def entry_ids_by_message(self) -> dict[int, str]:
        """Session entry ids of the live messages, by ``id()`` (actionable boundaries)."""

    async def emit(self, event: SessionEvent) -> None:
        """Send ``event`` to the session's clients."""

    def emit_now(self, event: SessionEvent) -> None:
        """Send ``event`` to the clients without awaiting (in order with UI requests)."""

    def spawn(self, fn: Callable[..., Coroutine[object, object, object]], *args: object) -> bool:
        """Start ``fn(*args)`` in the mode's task group; False (nothing started) when none is
        bound yet."""

    def install_tools(self, tools: list[object], hidden: set[str] | None = None) -> None: ...
    def extend_resources(self, skill_paths: list[str], prompt_paths: list[str]) -> None:
        """Skills and prompt templates the extensions contributed (``resources_discover``)."""


class SessionPort(Protocol):
    """The live session, as its extensions act on it (implemented by ``LiveSessionPort``)."""

    @property
    def state(self) -> SessionStateView:
        """Everything extensions read of the session (read-only)."""

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
    async def reload_sources(self) -> list[object] | None:
        """A reload's discovery: extensions and packages discovered again from the settings on
        disk, then the resources loaded again; the new extension sources (None: this session
        keeps its startup ones)."""

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

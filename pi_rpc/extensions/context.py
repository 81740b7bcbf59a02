"""``ctx``: what every handler receives as its second argument (upstream ``ExtensionContext``),
the wider context of command handlers (``ExtensionCommandContext``), and the read-only view of
the session store they expose as ``ctx.session_manager``.

Every attribute is read when used, so a context always reflects the live session. Once its
runtime is replaced (new, switch, fork, reload) a captured context is stale and raises with
upstream's explanation instead of acting on the wrong session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.extensions.host import ExtensionHost, SessionView
    from pi_rpc.extensions.runner import ExtensionRunner
    from pi_rpc.extensions.ui import ExtensionUI
    from pi_rpc.session.entries import Entry, SessionHeader
    from pi_rpc.session.manager import SessionManager


class ReadonlySessionManager:
    """The session store as extensions see it: reads only (upstream's ``ReadonlySessionManager``
    with snake_case names). Entries are the store's dicts; treat them as read-only."""

    def __init__(self, store: SessionManager) -> None:
        self._store = store

    def get_cwd(self) -> str:
        return self._store.cwd

    def get_session_dir(self) -> str:
        return self._store.session_dir

    def get_session_id(self) -> str:
        return self._store.session_id

    def get_session_file(self) -> str | None:
        return self._store.session_file

    def get_session_name(self) -> str | None:
        return self._store.get_session_name()

    def get_header(self) -> SessionHeader:
        return self._store.get_header().copy()

    def get_entries(self) -> list[Entry]:
        return self._store.get_entries()

    def get_entry(self, entry_id: str) -> Entry | None:
        return self._store.get_entry(entry_id)

    def get_children(self, parent_id: str) -> list[Entry]:
        return self._store.get_children(parent_id)

    def get_branch(self, from_id: str | None = None) -> list[Entry]:
        return self._store.get_branch(from_id)

    def get_tree(self) -> list[dict[str, Any]]:
        return self._store.get_tree()

    def get_leaf_id(self) -> str | None:
        return self._store.get_leaf_id()

    def get_leaf_entry(self) -> Entry | None:
        return self._store.get_leaf_entry()

    def get_label(self, entry_id: str) -> str | None:
        return self._store.get_label(entry_id)

    def build_context_entries(self) -> list[Entry]:
        return self._store.build_context_entries()

    def build_session_projection(self) -> dict[str, Any]:
        return self._store.build_session_projection()

    def build_session_context(self) -> dict[str, Any]:
        return self._store.build_session_context()

    def is_persisted(self) -> bool:
        return self._store.is_persisted()


class ExtensionContext:
    """``ctx`` of event handlers and tools."""

    def __init__(self, runner: ExtensionRunner) -> None:
        self._runner = runner

    def _host(self) -> ExtensionHost:
        self._runner.assert_active()
        return self._runner.host

    def _view(self) -> SessionView:
        self._runner.assert_active()
        return self._runner.host.view

    @property
    def ui(self) -> ExtensionUI:
        self._runner.assert_active()
        return self._runner.ui

    @property
    def mode(self) -> str:
        self._runner.assert_active()
        return self._runner.binding.mode

    @property
    def has_ui(self) -> bool:
        self._runner.assert_active()
        return self._runner.binding.ui is not None

    @property
    def cwd(self) -> str:
        return self._view().cwd

    @property
    def session_manager(self) -> ReadonlySessionManager:
        self._runner.assert_active()
        return self._runner.session_view

    @property
    def model_registry(self) -> Any:
        return self._view().registry

    @property
    def model(self) -> dict[str, Any] | None:
        return cast("dict[str, Any] | None", self._view().model)  # extensions see plain objects

    @property
    def thinking_level(self) -> str:
        return self._view().thinking_level

    @property
    def signal(self) -> AbortSignal | None:
        return self._view().signal

    def is_idle(self) -> bool:
        view = self._view()
        return not view.is_streaming and not view.is_compacting

    def is_project_trusted(self) -> bool:
        return self._view().project_trusted

    def abort(self) -> None:
        self._host().abort()

    def has_pending_messages(self) -> bool:
        return self._view().pending_message_count > 0

    def shutdown(self) -> None:
        self._runner.assert_active()
        self._runner.binding.shutdown()

    def get_context_usage(self) -> dict[str, Any] | None:
        usage = self._view().session_stats().get("contextUsage")
        return dict(usage) if isinstance(usage, dict) else None

    def compact(self, options: dict[str, Any] | None = None) -> None:
        """Start a compaction without waiting; ``options``: ``customInstructions``,
        ``on_complete(result)`` / ``onComplete``, ``on_error(error)`` / ``onError``."""
        self._host().compact(options)

    def get_system_prompt(self) -> str:
        return str(self._host().get_system_prompt())


class ExtensionCommandContext(ExtensionContext):
    """``ctx`` of command handlers: session control, which would deadlock inside events."""

    def get_system_prompt_options(self) -> dict[str, Any]:
        return self._host().get_system_prompt_options()

    async def wait_for_idle(self) -> None:
        await self._host().wait_for_idle()

    async def new_session(self, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """``options``: ``parentSession``, ``setup(session_manager)``, ``with_session(ctx)`` /
        ``withSession``. Returns ``{"cancelled": bool}``."""
        return await self._host().new_session(options)

    async def fork(self, entry_id: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """``options``: ``position`` ("before" | "at"), ``with_session(ctx)``."""
        return await self._host().fork(entry_id, options)

    async def navigate_tree(self, target_id: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """``options``: ``summarize``, ``customInstructions``, ``replaceInstructions``, ``label``."""
        return await self._host().navigate_tree(target_id, options)

    async def switch_session(self, session_path: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self._host().switch_session(session_path, options)

    async def reload(self) -> None:
        await self._host().reload()


class ExtensionToolContext(ExtensionContext):
    """``ctx`` of a registered tool's ``execute``: it may call other tools."""

    def __init__(self, runner: ExtensionRunner, tool_call_id: str) -> None:
        super().__init__(runner)
        self.tool_call_id = tool_call_id

    async def execute_tool(
        self, name: str, args: Any = None, *, signal: AbortSignal | None = None, on_update: Any = None
    ) -> dict[str, Any]:
        """Call another tool through the agent's tool pipeline (validation, ``tool_call``/
        ``tool_result`` handlers, events with ``parentToolCallId``). Returns ``{toolCall,
        result, isError, durationMs?}``; a failure is ``isError: True``, never an exception.
        Callable: the active ``direct`` tools and every ``deferred`` one (MCP tools)."""
        outcome: dict[str, Any] = await self._host().execute_tool(
            self.tool_call_id, name, args if args is not None else {}, signal, on_update
        )
        return outcome

    def get_callable_tools(self) -> list[dict[str, Any]]:
        """The tools ``execute_tool`` may call, with ``name``, ``description``, ``parameters``,
        ``exposure`` and, when they have them, ``namespace``, ``outputSchema``, ``annotations``."""
        tools: list[dict[str, Any]] = self._host().get_callable_tools()
        return tools

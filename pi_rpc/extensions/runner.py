"""``ExtensionRunner``: the extensions of one session runtime, and every way the runtime calls
them, with upstream's composition of handler results.

Every event goes through one call path, ``emit``. Handlers run in extension load order, then
registration order; a handler added or removed during a dispatch does not affect it. An index of
the handlers by event makes an event nobody handles cost one lookup. A handler that raises is
reported through the mode's error sink (``extension_error`` in RPC mode) and the next handler
runs, except:

* ``tool_call``: a raising handler blocks that call (its message becomes the error result);
* ``user_bash``: a raising handler is reported and the command fails instead of running locally.

How each event's results combine is declared once, in ``pi_rpc.extensions.combine.FOLDS``:
``session_before_*`` stop at the first ``{"cancel": True}``; ``input`` transforms chain and
``handled`` short-circuits; ``context``, ``message_end``, ``tool_result`` and
``before_provider_request`` chain their replacements; ``tool_call`` stops at the first block and
later handlers see earlier mutations of ``event["input"]``.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from pi_rpc.extensions.api import STALE_MESSAGE, SharedRuntime, apply_provider_change, error_message
from pi_rpc.extensions.combine import FOLDS, BoundaryResult, Fold
from pi_rpc.extensions.context import (
    ExtensionCommandContext,
    ExtensionContext,
    ExtensionToolContext,
    ReadonlySessionManager,
)
from pi_rpc.extensions.host import ModeBinding
from pi_rpc.extensions.types import Extension, ExtensionErrorRecord, Handler, RegisteredCommand, RegisteredTool
from pi_rpc.extensions.ui import PromptTrackingUI
from pi_rpc.resources.commands import command_entry

if TYPE_CHECKING:
    from pi_rpc.extensions.events import BeforeAgentStartEvent, BoundaryEvent, ExtensionEvent, UIPromptEvent
    from pi_rpc.extensions.host import ExtensionHost


async def call_handler(handler: Handler, *args: Any) -> Any:
    """Call a sync or async handler and return its (awaited) result."""
    result = handler(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


HandlerIndex = dict[str, tuple[tuple[Extension, Handler], ...]]


class ExtensionRunner:
    """The loaded extensions of one session runtime: their registrations, their binding to the
    live session and the mode, and the dispatch of every event to their handlers."""

    def __init__(self, extensions: list[Extension], runtime: SharedRuntime) -> None:
        self.extensions = extensions
        self.runtime = runtime
        self.binding = ModeBinding()
        self.ui: Any = self.binding.effective_ui
        self._host: ExtensionHost | None = None
        self._session_view: ReadonlySessionManager | None = None
        self._error_listeners: list[Callable[[ExtensionErrorRecord], None]] = []
        self._reported_mcp_servers: set[str] = set()
        self._index: HandlerIndex = {}  # event -> its handlers (see _handlers)
        self._indexed_version = -1
        runtime.report_error = self._report_from_runtime
        runtime.create_context = self.create_context
        runtime.create_command_context = self.create_command_context
        runtime.create_tool_context = self.create_tool_context

    # ------------------------------------------------------------------ binding

    @property
    def host(self) -> ExtensionHost:
        if self._host is None:
            raise RuntimeError("Extension runtime not initialized.")
        return self._host

    @property
    def session_view(self) -> ReadonlySessionManager:
        if self._session_view is None:
            self._session_view = self.host.view.session_manager
        return self._session_view

    def bind(self, host: ExtensionHost, binding: ModeBinding) -> None:
        """Bind the live session and the mode, then apply provider registrations queued while
        the extensions loaded (failures are reported as ``register_provider`` errors)."""
        self._host = host
        self.set_binding(binding)
        self.runtime.host = host
        self.runtime.bus.spawn = host.spawn
        # Servers registered from now on reach whoever connects them at once (those registered
        # while loading are read at session_start).
        self.runtime.mcp_servers.on_change = self._mcp_servers_changed
        pending, self.runtime.pending_provider_changes = self.runtime.pending_provider_changes, []
        for op, name, config, path in pending:
            try:
                apply_provider_change(host, op, name, config)
            except Exception as exc:  # noqa: BLE001
                event = "register_virtual_model" if op in ("virtual", "unvirtual") else "register_provider"
                self.emit_error({"extensionPath": path, "event": event, "error": error_message(exc)})

    def _mcp_servers_changed(self) -> None:
        """``mcp_servers_change`` (not awaited, as upstream); with no handler nothing connects
        registered servers: each is reported once."""
        if self.stale:
            return
        servers = self.runtime.mcp_servers.list()
        if self.has_handlers("mcp_servers_change"):
            self.host.spawn(self.emit({"type": "mcp_servers_change", "servers": servers}))
            return
        for server in servers:
            name = str(server["name"])
            if name in self._reported_mcp_servers:
                continue
            self._reported_mcp_servers.add(name)
            self.emit_error(
                {
                    "extensionPath": str(server["extensionPath"]),
                    "event": "register_mcp_server",
                    "error": f'MCP server "{name}" is registered, but no loaded extension connects MCP servers; '
                    "another extension may have replaced the built-in MCP support",
                }
            )

    def set_binding(self, binding: ModeBinding) -> None:
        self.binding = binding
        if binding.ui is None:
            self.ui = binding.effective_ui
        else:
            self.ui = PromptTrackingUI(binding.ui, self._notify_prompt_event)

    def _notify_prompt_event(self, event: UIPromptEvent) -> None:
        # Best effort and not awaited before the dialog shows, as upstream's queueMicrotask.
        if self._host is not None and self.has_handlers(event["type"]):
            self._host.spawn(self.emit(event))

    def assert_active(self) -> None:
        self.runtime.assert_active()

    @property
    def stale(self) -> bool:
        return self.runtime.stale_message is not None

    def invalidate(self, message: str = STALE_MESSAGE) -> None:
        self.runtime.invalidate(message)

    # ------------------------------------------------------------------ errors

    def on_error(self, listener: Callable[[ExtensionErrorRecord], None]) -> Callable[[], None]:
        self._error_listeners.append(listener)
        return lambda: self._error_listeners.remove(listener) if listener in self._error_listeners else None

    def emit_error(self, error: ExtensionErrorRecord) -> None:
        try:
            self.binding.on_error(error)
        finally:
            for listener in list(self._error_listeners):
                listener(error)

    def _report_from_runtime(self, error: ExtensionErrorRecord) -> None:
        # A handler still running after its session was replaced must not report into the new one.
        if not self.stale:
            self.emit_error(error)

    def _report(self, extension: Extension, event: str, exc: BaseException) -> None:
        self.emit_error({"extensionPath": extension.path, "event": event, "error": error_message(exc)})

    # ------------------------------------------------------------------ contexts

    def create_context(self) -> ExtensionContext:
        return ExtensionContext(self)

    def create_command_context(self) -> ExtensionCommandContext:
        return ExtensionCommandContext(self)

    def create_tool_context(self, tool_call_id: str) -> ExtensionToolContext:
        return ExtensionToolContext(self, tool_call_id)

    # ------------------------------------------------------------------ registrations

    def has_handlers(self, event: str) -> bool:
        return bool(self._handlers(event))

    def _handlers(self, event: str) -> tuple[tuple[Extension, Handler], ...]:
        """The handlers of ``event`` in extension load order, then registration order. The
        index is rebuilt after ``pi.on`` or an unsubscribe changed any extension's handlers;
        its tuples are never changed, so a dispatch iterates a snapshot for free."""
        version = self.runtime.handlers_version
        if self._indexed_version != version:
            index: dict[str, list[tuple[Extension, Handler]]] = {}
            for ext in self.extensions:
                for name, handlers in ext.handlers.items():
                    index.setdefault(name, []).extend((ext, handler) for handler in handlers)
            self._index = {name: tuple(pairs) for name, pairs in index.items() if pairs}
            self._indexed_version = version
        return self._index.get(event, ())

    def registered_tools(self) -> list[RegisteredTool]:
        """Every registered tool; the first registration of a name wins."""
        by_name: dict[str, RegisteredTool] = {}
        for ext in self.extensions:
            for tool in ext.tools.values():
                by_name.setdefault(str(tool.definition["name"]), tool)
        return list(by_name.values())

    def registered_commands(self) -> list[tuple[str, RegisteredCommand]]:
        """``(invocation name, command)`` in load order; a name registered by several
        extensions gets numeric suffixes (``review:1``, ``review:2``), as upstream."""
        commands = [command for ext in self.extensions for command in ext.commands.values()]
        counts: dict[str, int] = {}
        for command in commands:
            counts[command.name] = counts.get(command.name, 0) + 1
        seen: dict[str, int] = {}
        taken: set[str] = set()
        resolved: list[tuple[str, RegisteredCommand]] = []
        for command in commands:
            occurrence = seen.get(command.name, 0) + 1
            seen[command.name] = occurrence
            name = f"{command.name}:{occurrence}" if counts[command.name] > 1 else command.name
            suffix = occurrence
            while name in taken:
                suffix += 1
                name = f"{command.name}:{suffix}"
            taken.add(name)
            resolved.append((name, command))
        return resolved

    def get_command(self, name: str) -> RegisteredCommand | None:
        return next((command for invocation, command in self.registered_commands() if invocation == name), None)

    def command_listing(self) -> list[dict[str, Any]]:
        """``get_commands`` entries of the extension commands (they come first)."""
        return [
            command_entry(name, command.description, "extension", command.source_info)
            for name, command in self.registered_commands()
        ]

    def flags(self) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for ext in self.extensions:
            for name, flag in ext.flags.items():
                found.setdefault(name, flag)
        return found

    # ------------------------------------------------------------------ dispatch

    async def emit(self, event: ExtensionEvent, **fold_options: object) -> Any:
        """Run the handlers of ``event["type"]`` and combine their results as ``FOLDS`` declares
        for it (``fold_options`` go to its fold); a notification's result is None. The one call
        path of every event: the handlers are snapshotted (one added or removed meanwhile does
        not change this dispatch), each gets the event its fold builds and the context, a raising
        one is handled as the fold's ``on_error`` says."""
        name = event["type"]
        handlers = self._handlers(name)
        fold_type = FOLDS.get(name, Fold)
        if not handlers and fold_type is Fold:
            return None  # a notification nobody handles costs one lookup
        # A fold reads the keys of the events it is declared for (``FOLDS``), by name.
        fold = fold_type(cast("dict[str, Any]", event), self.emit_error, **fold_options)
        if handlers:
            ctx = self.create_context()
            for ext, handler in handlers:
                try:
                    stop = fold.take(ext, await call_handler(handler, fold.event(), ctx))
                except Exception as exc:
                    if fold.on_error == "raise":
                        raise
                    self._report(ext, name, exc)
                    if fold.on_error == "reraise":
                        raise
                    stop = False
                if fold.checks:
                    await fold.check(ext)
                if stop:
                    break
        return fold.result()

    async def emit_boundary(
        self, base_event: BoundaryEvent, build_context: Callable[[list[Any]], Awaitable[dict[str, Any]]]
    ) -> BoundaryResult:
        """An actionable boundary (``turn_end``, ``agent_before_settle``): ``context`` is built
        for the empty proposal first, then the handlers run (``BoundaryProposal``)."""
        context = await build_context([])
        result: BoundaryResult = await self.emit(base_event, build_context=build_context, context=context)
        return result

    async def emit_context(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``context`` handlers on a deep copy of ``messages`` (``ContextChain``), then
        ``context_with_system`` handlers on the result (``SystemContextChain``). Without a
        handler for either, ``messages`` itself (nothing is copied)."""
        if not (self.has_handlers("context") or self.has_handlers("context_with_system")):
            return messages
        current = await self.emit({"type": "context", "messages": copy.deepcopy(messages)})
        result: list[dict[str, Any]] = await self.emit({"type": "context_with_system", "messages": current})
        return result

    async def emit_before_agent_start(
        self, trigger: dict[str, Any], options: dict[str, Any], render: Callable[[dict[str, Any]], str]
    ) -> list[dict[str, Any]]:
        """``before_agent_start`` (``PromptInjections``): ``options`` are the
        ``systemPromptOptions`` handlers edit in place, ``render`` renders ``systemPrompt`` from
        them. Returns the messages handlers injected."""
        # The trigger's fields as the prompt gave them (messageType, prompt, images, message, systemPrompt).
        event = cast("BeforeAgentStartEvent", {**trigger, "type": "before_agent_start", "systemPromptOptions": options})
        messages: list[dict[str, Any]] = await self.emit(event, render=render)
        return messages

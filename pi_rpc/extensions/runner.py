"""``ExtensionRunner``: the extensions of one session runtime, and every way the runtime calls
them, with upstream's composition of handler results.

Handlers run in extension load order, then registration order; a handler added or removed
during a dispatch does not affect it. A handler that raises is reported through the mode's
error sink (``extension_error`` in RPC mode) and the next handler runs, except:

* ``tool_call``: a raising handler blocks that call (its message becomes the error result);
* ``user_bash``: a raising handler is reported and the command fails instead of running locally.

Composition: ``session_before_*`` stop at the first ``{"cancel": True}``; ``input`` transforms
chain and ``handled`` short-circuits; ``context``, ``message_end``, ``tool_result`` and
``before_provider_request`` chain their replacements; ``tool_call`` stops at the first block and
later handlers see earlier mutations of ``event["input"]``.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from pi_rpc.extensions.api import STALE_MESSAGE, SharedRuntime, error_message
from pi_rpc.extensions.context import (
    ExtensionCommandContext,
    ExtensionContext,
    ExtensionToolContext,
    ReadonlySessionManager,
)
from pi_rpc.extensions.events import CANCELLABLE_EVENTS
from pi_rpc.extensions.host import ModeBinding
from pi_rpc.extensions.types import Extension, ExtensionErrorRecord, Handler, RegisteredCommand, RegisteredTool
from pi_rpc.extensions.ui import PromptTrackingUI
from pi_rpc.resources.commands import command_entry

if TYPE_CHECKING:
    from pi_rpc.extensions.host import ExtensionHost

INVALID_USER_BASH_RESULT = (
    "Invalid user_bash handler result: return None for local execution or exactly one valid "
    '{"operations"} or {"result"} dict'
)


async def call_handler(handler: Handler, *args: Any) -> Any:
    """Call a sync or async handler and return its (awaited) result."""
    result = handler(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


def _same_items(left: list[Any], right: list[Any]) -> bool:
    return len(left) == len(right) and all(a is b for a, b in zip(left, right))


def _current_system_message(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    from pi_rpc.ai.transcript import get_current_system_message

    # The context pipeline hands extensions plain JSON objects.
    return cast("dict[str, Any] | None", get_current_system_message(messages))


def _valid_bash_result(result: Any) -> bool:
    if not isinstance(result, dict):
        return False
    has_operations = result.get("operations") is not None
    has_result = result.get("result") is not None
    if has_operations == has_result:
        return False
    if has_operations:
        operations = result["operations"]
        return callable(getattr(operations, "exec", None)) or (isinstance(operations, dict) and callable(operations.get("exec")))
    record = result["result"]
    return (
        isinstance(record, dict)
        and isinstance(record.get("output"), str)
        and "exitCode" in record
        and (record["exitCode"] is None or isinstance(record["exitCode"], int))
        and isinstance(record.get("cancelled"), bool)
        and isinstance(record.get("truncated"), bool)
        and (record.get("fullOutputPath") is None or isinstance(record.get("fullOutputPath"), str))
    )


class _PromptEvent(dict[str, Any]):
    """A ``before_agent_start`` event whose ``systemPrompt`` is rendered from the options when
    read (upstream's getter), so it reflects edits made before the read."""

    def __init__(self, fields: dict[str, Any], options: dict[str, Any], render: Callable[[dict[str, Any]], str]) -> None:
        super().__init__(fields)
        self["systemPrompt"] = ""  # listed among the keys; the value is rendered on access
        self._options = options
        self._render = render

    def __getitem__(self, key: Any) -> Any:
        if key == "systemPrompt":
            return self._render(self._options)
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        if key == "systemPrompt":
            return self._render(self._options)
        return super().get(key, default)


@dataclass
class BoundaryResult:
    """What the handlers of an actionable boundary proposed (``valid`` False: nothing)."""

    entries: Any
    continue_: bool
    context: dict[str, Any]
    valid: bool


LOST_SYSTEM_HEAD = (
    "Handler removed the leading system message; the request has no prompt or initial tool declarations. "
    "Keep it at index 0 or replace a dropped prefix with getCurrentSystemMessage()."
)


class ExtensionRunner:
    def __init__(self, extensions: list[Extension], runtime: SharedRuntime) -> None:
        self.extensions = extensions
        self.runtime = runtime
        self.binding = ModeBinding()
        self.ui: Any = self.binding.effective_ui
        self._host: ExtensionHost | None = None
        self._session_view: ReadonlySessionManager | None = None
        self._error_listeners: list[Callable[[ExtensionErrorRecord], None]] = []
        self._reported_mcp_servers: set[str] = set()
        runtime.report_error = self._report_from_runtime
        runtime.create_context = self.create_context

    # ------------------------------------------------------------------ binding

    @property
    def host(self) -> ExtensionHost:
        if self._host is None:
            raise RuntimeError("Extension runtime not initialized.")
        return self._host

    @property
    def session_view(self) -> ReadonlySessionManager:
        if self._session_view is None:
            self._session_view = ReadonlySessionManager(self.host.session_manager)
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
                if op == "register":
                    host.register_provider(name, config)
                else:
                    host.unregister_provider(name)
            except Exception as exc:  # noqa: BLE001
                self.emit_error({"extensionPath": path, "event": "register_provider", "error": error_message(exc)})

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

    def _notify_prompt_event(self, event: dict[str, Any]) -> None:
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
        return any(ext.handlers.get(event) for ext in self.extensions)

    def _snapshot(self, event: str) -> Iterator[tuple[Extension, Handler]]:
        for ext, handlers in [(ext, list(ext.handlers.get(event, ()))) for ext in self.extensions]:
            for handler in handlers:
                yield ext, handler

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

    async def emit(self, event: dict[str, Any]) -> Any:
        """Notification events; for ``session_before_*`` the last non-empty result, or the
        first one that cancels."""
        etype = str(event.get("type"))
        cancellable = etype in CANCELLABLE_EVENTS
        ctx = self.create_context()
        result: Any = None
        for ext, handler in self._snapshot(etype):
            try:
                handler_result = await call_handler(handler, event, ctx)
            except Exception as exc:  # noqa: BLE001 - reported; the next handler runs
                self._report(ext, etype, exc)
                continue
            if cancellable and handler_result:
                result = handler_result
                if isinstance(result, dict) and result.get("cancel"):
                    return result
        return result

    async def emit_boundary(
        self, base_event: dict[str, Any], build_context: Callable[[list[Any]], Awaitable[dict[str, Any]]]
    ) -> BoundaryResult:
        """An actionable boundary (``turn_end``, ``agent_before_settle``; upstream
        ``emitBoundary``): each handler sees the entries and continuation proposed so far and
        ``context`` rebuilt from them; a returned ``entries`` or ``continue`` replaces only that
        field. The proposal is checked after every handler (``build_context`` raises for an
        invalid one: reported as ``Invalid boundary entries: …``; a later handler may fix it).
        A raising handler is reported and the next one runs. An invalid final proposal commits
        nothing and does not continue."""
        etype = str(base_event.get("type"))
        ctx = self.create_context()
        entries: Any = []
        should_continue = False
        context = await build_context(entries)
        valid = True
        for ext, handler in self._snapshot(etype):
            event = {**base_event, "entries": entries, "continue": should_continue, "context": context}
            try:
                result = await call_handler(handler, event, ctx)
                if isinstance(result, dict):
                    if result.get("entries") is not None:
                        entries = result["entries"]
                    if result.get("continue") is not None:
                        should_continue = bool(result["continue"])
            except Exception as exc:  # noqa: BLE001 - reported; later handlers still run
                self._report(ext, etype, exc)
            try:
                context = await build_context(entries)
                valid = True
            except Exception as exc:  # noqa: BLE001 - the proposal is invalid
                valid = False
                self.emit_error(
                    {"extensionPath": ext.path, "event": etype, "error": f"Invalid boundary entries: {error_message(exc)}"}
                )
        if not valid:
            return BoundaryResult([], False, context, False)
        return BoundaryResult(entries, should_continue, context, True)

    async def emit_tool_call(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """``tool_call``: handlers may mutate ``event["input"]``; the first ``{"block": True}``
        wins. A raising handler is not caught: the caller blocks the call with its message."""
        ctx = self.create_context()
        result: dict[str, Any] | None = None
        for _ext, handler in self._snapshot("tool_call"):
            handler_result = await call_handler(handler, event, ctx)
            if handler_result:
                result = handler_result
                if isinstance(result, dict) and result.get("block"):
                    return result
        return result

    async def emit_tool_result(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """``tool_result`` handlers chain partial patches of ``content``, ``details``,
        ``structuredContent``, ``isError`` and ``usage``; ``None`` when nothing changed."""
        ctx = self.create_context()
        current = dict(event)
        modified = False
        for ext, handler in self._snapshot("tool_result"):
            try:
                patch = await call_handler(handler, current, ctx)
            except Exception as exc:  # noqa: BLE001
                self._report(ext, "tool_result", exc)
                continue
            if not isinstance(patch, dict):
                continue
            if patch.get("content") is not None:
                current["content"] = patch["content"]
                if patch.get("structuredContent") is None:
                    current.pop("structuredContent", None)
                modified = True
            for key in ("details", "structuredContent", "isError", "usage"):
                if patch.get(key) is not None:
                    current[key] = patch[key]
                    modified = True
        if not modified:
            return None
        return {
            "content": current.get("content"),
            "details": current.get("details"),
            "structuredContent": current.get("structuredContent"),
            "isError": current.get("isError"),
            "usage": current.get("usage"),
        }

    async def emit_user_bash(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """``user_bash``: the first valid ``{"result"}`` or ``{"operations"}`` wins. An invalid
        result or a raising handler is reported and raised (the command must not fall through
        to local execution)."""
        ctx = self.create_context()
        for ext, handler in self._snapshot("user_bash"):
            try:
                result = await call_handler(handler, event, ctx)
                if result is None:
                    continue
                if not _valid_bash_result(result):
                    raise ValueError(INVALID_USER_BASH_RESULT)
                return result
            except Exception as exc:
                self._report(ext, "user_bash", exc)
                raise
        return None

    async def emit_context(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``context``: handlers see a deep copy of the conversation without system messages and
        may return ``{"messages": [...]}`` or edit the list in place. A changed list gets the
        current prompt and tools back as one leading system message. Then
        ``context_with_system``: handlers see the full transcript (system messages included)
        and what they return is sent as it is; dropping the leading system message is
        reported (upstream's text) but honoured."""
        ctx = self.create_context()
        current = copy.deepcopy(messages)
        for ext, handler in self._snapshot("context"):
            try:
                visible = [m for m in current if m.get("role") != "system"]
                snapshot = list(visible)
                result = await call_handler(handler, {"type": "context", "messages": visible}, ctx)
                returned = result.get("messages") if isinstance(result, dict) else None
                if returned is None:
                    if _same_items(visible, snapshot):
                        continue
                    returned = visible
                if _same_items(list(returned), snapshot):
                    continue
                head = _current_system_message(current)
                current = [head, *returned] if head is not None else list(returned)
            except Exception as exc:  # noqa: BLE001
                self._report(ext, "context", exc)
        for ext, handler in self._snapshot("context_with_system"):
            # The whole transcript, system messages included; the result is sent as returned.
            try:
                had_head = bool(current) and current[0].get("role") == "system"
                result = await call_handler(handler, {"type": "context_with_system", "messages": current}, ctx)
                returned = result.get("messages") if isinstance(result, dict) else None
                if returned is not None:
                    current = list(returned)
                if had_head and not (current and isinstance(current[0], dict) and current[0].get("role") == "system"):
                    self.emit_error(
                        {"extensionPath": ext.path, "event": "context_with_system", "error": LOST_SYSTEM_HEAD}
                    )
            except Exception as exc:  # noqa: BLE001
                self._report(ext, "context_with_system", exc)
        return current

    async def emit_before_provider_request(self, payload: Any) -> Any:
        ctx = self.create_context()
        current = payload
        for ext, handler in self._snapshot("before_provider_request"):
            try:
                result = await call_handler(handler, {"type": "before_provider_request", "payload": current}, ctx)
            except Exception as exc:  # noqa: BLE001
                self._report(ext, "before_provider_request", exc)
                continue
            if result is not None:
                current = result
        return current

    async def emit_before_provider_headers(self, headers: dict[str, Any]) -> dict[str, Any]:
        """Handlers mutate ``headers`` in place (a value of ``None`` deletes the header)."""
        ctx = self.create_context()
        for ext, handler in self._snapshot("before_provider_headers"):
            try:
                await call_handler(handler, {"type": "before_provider_headers", "headers": headers}, ctx)
            except Exception as exc:  # noqa: BLE001
                self._report(ext, "before_provider_headers", exc)
        return headers

    async def emit_before_agent_start(
        self, trigger: dict[str, Any], options: dict[str, Any], render: Callable[[dict[str, Any]], str]
    ) -> list[dict[str, Any]]:
        """``before_agent_start``: handlers see ``systemPromptOptions`` (``options``, edited in
        place and seen by later handlers) and ``systemPrompt`` rendered from it at the moment
        they read it; a returned ``systemPrompt`` sets ``options["forceSystemPrompt"]``.
        Returns the messages handlers injected."""
        ctx = self.create_context()
        messages: list[dict[str, Any]] = []
        for ext, handler in self._snapshot("before_agent_start"):
            try:
                event = _PromptEvent({**trigger, "type": "before_agent_start", "systemPromptOptions": options}, options, render)
                result = await call_handler(handler, event, ctx)
            except Exception as exc:  # noqa: BLE001
                self._report(ext, "before_agent_start", exc)
                continue
            if isinstance(result, dict):
                if result.get("message"):
                    messages.append(result["message"])
                if result.get("systemPrompt") is not None:
                    options["forceSystemPrompt"] = str(result["systemPrompt"])
        return messages

    async def emit_input(
        self, text: str, images: list[dict[str, Any]] | None, source: str, streaming_behavior: str | None
    ) -> dict[str, Any]:
        """``input``: ``{"action": "continue"|"transform"|"handled", "text"?, "images"?}``."""
        ctx = self.create_context()
        current_text, current_images = text, images
        for ext, handler in self._snapshot("input"):
            try:
                event = {
                    "type": "input",
                    "text": current_text,
                    "images": current_images,
                    "source": source,
                    "streamingBehavior": streaming_behavior,
                }
                result = await call_handler(handler, event, ctx)
            except Exception as exc:  # noqa: BLE001
                self._report(ext, "input", exc)
                continue
            if not isinstance(result, dict):
                continue
            if result.get("action") == "handled":
                return result
            if result.get("action") == "transform":
                current_text = str(result.get("text", current_text))
                if result.get("images") is not None:
                    current_images = result["images"]
        if current_text != text or current_images is not images:
            return {"action": "transform", "text": current_text, "images": current_images}
        return {"action": "continue"}

    async def emit_message_end(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """``message_end`` handlers may return ``{"message": replacement}`` with the same role."""
        ctx = self.create_context()
        current = event["message"]
        modified = False
        for ext, handler in self._snapshot("message_end"):
            try:
                result = await call_handler(handler, {**event, "message": current}, ctx)
            except Exception as exc:  # noqa: BLE001
                self._report(ext, "message_end", exc)
                continue
            replacement = result.get("message") if isinstance(result, dict) else None
            if not replacement:
                continue
            if replacement.get("role") != current.get("role"):
                self.emit_error(
                    {
                        "extensionPath": ext.path,
                        "event": "message_end",
                        "error": "message_end handlers must return a message with the same role",
                    }
                )
                continue
            current = replacement
            modified = True
        return current if modified else None

    async def emit_resources_discover(self, cwd: str, reason: str) -> dict[str, list[str]]:
        ctx = self.create_context()
        found: dict[str, list[str]] = {"skillPaths": [], "promptPaths": [], "themePaths": []}
        for ext, handler in self._snapshot("resources_discover"):
            try:
                result = await call_handler(handler, {"type": "resources_discover", "cwd": cwd, "reason": reason}, ctx)
            except Exception as exc:  # noqa: BLE001
                self._report(ext, "resources_discover", exc)
                continue
            if isinstance(result, dict):
                for key in found:
                    paths = result.get(key)
                    if isinstance(paths, list):
                        found[key].extend(str(p) for p in paths)
        return found

"""``pi``: the object ``setup(pi)`` receives (upstream ``ExtensionAPI``, names in snake_case).

Registration methods (``on``, ``register_tool``, ``register_command``, ``register_flag`` ...) write
to the extension being loaded and are valid while it loads and afterwards. Action methods
(``send_message``, ``set_model``, ``get_active_tools`` ...) act on the live session through the
``ExtensionHost`` the runtime binds once the session exists; called from ``setup`` itself they
raise, as upstream's do. Provider registrations made while loading are queued and applied when
the runtime binds. After the session is replaced, every method of the old ``pi`` raises with
upstream's "stale" explanation.

Events, tool definitions and results are plain dicts with upstream's camelCase keys.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from pi_rpc.extensions.bus import EventBus
from pi_rpc.extensions.events import ALL_EVENTS
from pi_rpc.extensions.mcp_servers import McpServerRegistry
from pi_rpc.extensions.types import Extension, ExtensionErrorRecord, Handler, RegisteredCommand, RegisteredTool

if TYPE_CHECKING:
    from pi_rpc.extensions.context import ExtensionContext
    from pi_rpc.extensions.host import ExtensionHost

STALE_MESSAGE = (
    "This extension ctx is stale after session replacement or reload. Do not use a captured pi or "
    "command ctx after ctx.new_session(), ctx.fork(), ctx.switch_session(), or ctx.reload(). For "
    "new_session, fork, and switch_session, move post-replacement work into with_session and use the "
    "ctx passed to with_session. For reload, do not use the old ctx after await ctx.reload()."
)
NOT_INITIALIZED = "Extension runtime not initialized. Action methods cannot be called during extension loading."

_JS_TYPEOF = {bool: "boolean", str: "string", int: "number", float: "number"}


def _js_typeof(value: Any) -> str:
    return _JS_TYPEOF.get(type(value), "object" if value is not None else "undefined")


def apply_provider_change(target: Any, op: str, name: str, config: Any) -> None:
    """Apply one queued provider change to ``target`` (the host, or the model registry at
    startup): ``register``/``unregister`` a provider, ``virtual``/``unvirtual`` a virtual model
    (``name`` is ``provider/id``)."""
    if op == "register":
        target.register_provider(name, config)
    elif op == "unregister":
        target.unregister_provider(name)
    elif op == "virtual":
        target.register_virtual_model(config)
    else:
        provider, _, model_id = name.partition("/")
        target.unregister_virtual_model(provider, model_id)


class SharedRuntime:
    """State shared by the ``pi`` objects of one load of the extensions: flag values, provider
    registrations queued during loading, the bound host, the error reporter and staleness."""

    def __init__(self, bus: EventBus, flag_values: dict[str, Any] | None = None) -> None:
        self.bus = bus
        self.flag_values: dict[str, Any] = dict(flag_values or {})
        self.pending_provider_changes: list[tuple[str, str, Any, str]] = []  # (op, name, config, path)
        self.host: ExtensionHost | None = None
        self.stale_message: str | None = None
        self.report_error: Callable[[ExtensionErrorRecord], None] = lambda _error: None
        self.create_context: Callable[[], ExtensionContext] | None = None
        self.create_command_context: Callable[[], ExtensionContext] | None = None
        self.create_tool_context: Callable[[str], ExtensionContext] | None = None
        # TypeScript extensions (pi_rpc.extensions.nodejs): this load's generation in the Node
        # sidecar, and who must hear that it turned stale.
        self.script_generation: int | None = None
        self.on_invalidate: list[Callable[[str], None]] = []
        # Set while a TypeScript extension's synchronous call runs: background work it starts
        # waits for this (see ExtensionState.spawn).
        self.spawn_barrier: Callable[[], Awaitable[Any]] | None = None
        self._bus_unsubscribers: list[Callable[[], None]] = []
        self.mcp_servers = McpServerRegistry()
        # Bumped by every pi.on and unsubscribe: runners rebuild their handler index.
        self.handlers_version = 0

    def assert_active(self) -> None:
        if self.stale_message is not None:
            raise RuntimeError(self.stale_message)

    def require_host(self) -> ExtensionHost:
        self.assert_active()
        if self.host is None:
            raise RuntimeError(NOT_INITIALIZED)
        return self.host

    def track_bus_subscription(self, unsubscribe: Callable[[], None]) -> Callable[[], None]:
        self._bus_unsubscribers.append(unsubscribe)
        return unsubscribe

    def invalidate(self, message: str = STALE_MESSAGE) -> None:
        if self.stale_message is not None:
            return
        self.stale_message = message
        for unsubscribe in self._bus_unsubscribers:
            unsubscribe()
        self._bus_unsubscribers.clear()
        for listener in self.on_invalidate:
            listener(message)


class ExtensionEvents:
    """``pi.events``: ``on(channel, handler)`` -> unsubscribe, ``emit(channel, data)``."""

    def __init__(self, extension: Extension, runtime: SharedRuntime, api: ExtensionAPI) -> None:
        self._extension = extension
        self._runtime = runtime
        self._api = api

    def emit(self, channel: str, data: Any = None) -> None:
        self._api._assert_active()
        self._runtime.bus.emit(channel, data)

    def on(self, channel: str, handler: Callable[[Any], Any]) -> Callable[[], None]:
        self._api._assert_active()
        path = self._extension.path
        runtime = self._runtime

        def report(exc: BaseException) -> None:
            runtime.report_error({"extensionPath": path, "event": f"events:{channel}", "error": error_message(exc)})

        def reporting(data: Any) -> Any:
            try:
                result = handler(data)
            except Exception as exc:  # noqa: BLE001 - reported like every extension error
                report(exc)
                return None
            if inspect.isawaitable(result):
                return _await_reporting(result, report)
            return None

        return runtime.track_bus_subscription(runtime.bus.on(channel, reporting))


async def _await_reporting(awaitable: Any, report: Callable[[BaseException], None]) -> None:
    try:
        await awaitable
    except Exception as exc:  # noqa: BLE001
        report(exc)


def unknown_event_message(event: Any) -> str:
    """``pi.on``'s refusal of a name that is no event (upstream's TypeScript types refuse it
    when the extension is compiled; a Python extension learns it when ``setup`` runs)."""
    return f"Unknown event {event!r} for pi.on(); known events: {', '.join(ALL_EVENTS)}"


def error_message(exc: BaseException) -> str:
    """What ``extension_error.error`` carries: the message only (upstream ``err.message``)."""
    return str(exc) or type(exc).__name__


class ExtensionAPI:
    """The ``pi`` object of one extension."""

    def __init__(self, extension: Extension, runtime: SharedRuntime) -> None:
        self._extension = extension
        self._runtime = runtime
        self._state = "loading"  # loading -> active | failed
        self.events = ExtensionEvents(extension, runtime, self)
        # Runtime changes made while loading apply once setup returned (upstream).
        self._pending_changes: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ lifecycle (loader)

    def _assert_active(self) -> None:
        if self._state == "failed":
            raise RuntimeError(self._failed_message())
        self._runtime.assert_active()

    def _failed_message(self) -> str:
        return f'Extension "{self._extension.path}" failed to load and its API is no longer active.'

    def _commit(self) -> None:
        self._state = "active"
        changes, self._pending_changes = self._pending_changes, []
        for change in changes:
            change()

    def _discard(self) -> None:
        self._state = "failed"
        self._pending_changes = []

    def _apply(self, change: Callable[[], None]) -> None:
        if self._state == "loading":
            self._pending_changes.append(change)
        else:
            change()

    @property
    def extension_path(self) -> str:
        """The path ``extension_error`` reports for this extension."""
        return self._extension.path

    # ------------------------------------------------------------------ registration

    def on(self, event: str, handler: Handler | None = None) -> Any:
        """Subscribe ``handler(event, ctx)`` (sync or async) to ``event``. Returns an
        unsubscribe function; without ``handler`` it is a decorator: ``@pi.on("tool_call")``.
        A name that is not one of upstream's events (``ALL_EVENTS``) raises ``ValueError``
        (protocol/README.md §8.13: upstream's TypeScript types refuse it at compile time)."""
        self._assert_active()
        if event not in ALL_EVENTS:
            raise ValueError(unknown_event_message(event))
        if handler is None:

            def decorate(fn: Handler) -> Handler:
                self.on(event, fn)
                return fn

            return decorate
        handlers = self._extension.handlers.setdefault(event, [])
        handlers.append(handler)
        runtime = self._runtime
        runtime.handlers_version += 1

        def unsubscribe() -> None:
            current = self._extension.handlers.get(event)
            if current and handler in current:
                current.remove(handler)
                if not current:
                    del self._extension.handlers[event]
                runtime.handlers_version += 1

        return unsubscribe

    def register_tool(self, tool: dict[str, Any]) -> None:
        """Register a tool the model can call: ``name``, ``label``, ``description``,
        ``parameters`` (JSON Schema object), ``execute(tool_call_id, params, signal, on_update,
        ctx)``; optional ``promptSnippet``, ``promptGuidelines``, ``prepareArguments``,
        ``executionMode`` ("sequential"), ``defaultActive``. A tool named like a built-in one
        replaces it."""
        self._assert_active()
        name = tool.get("name") if isinstance(tool, dict) else None
        parameters = tool.get("parameters") if isinstance(tool, dict) else None
        if not isinstance(parameters, dict):
            raise ValueError(
                f'Tool "{name}" registered by extension "{self._extension.path}" must define an object parameter schema.'
            )
        if not isinstance(name, str) or not name:
            raise ValueError(
                f'A tool registered by extension "{self._extension.path}" must have a non-empty string name.'
            )
        if not callable(tool.get("execute")):
            raise ValueError(f'Tool "{name}" registered by extension "{self._extension.path}" must define execute().')
        self._extension.tools[name] = RegisteredTool(dict(tool), self._extension.source_info, self._extension.path)
        host = self._runtime.host
        if host is not None and self._runtime.stale_message is None:
            host.refresh_tools()

    def register_command(self, name: str, options: dict[str, Any]) -> None:
        """Register ``/name``: ``{"description": ..., "handler": fn(args, ctx)}``."""
        self._assert_active()
        if not isinstance(name, str) or not name:
            raise ValueError(
                f'Command registered by extension "{self._extension.path}" must have a non-empty string name. '
                'Use pi.register_command("name", {"description": ..., "handler": ...}).'
            )
        if not isinstance(options, dict) or not callable(options.get("handler")):
            raise ValueError(
                f'Command "/{name}" registered by extension "{self._extension.path}" must define handler().'
            )
        self._extension.commands[name] = RegisteredCommand(
            name, dict(options), self._extension.source_info, self._extension.path
        )

    def register_flag(self, name: str, options: dict[str, Any]) -> None:
        """Register ``--name`` (``{"type": "boolean"|"string", "default"?, "description"?}``)."""
        self._assert_active()
        flag_type = options.get("type", "boolean")
        default = options.get("default")
        if default is not None and _js_typeof(default) != flag_type:
            raise ValueError(f'Invalid default for flag "{name}": expected {flag_type}, got {_js_typeof(default)}')
        self._extension.flags[name] = {"name": name, "extensionPath": self._extension.path, **options}
        if default is not None and name not in self._runtime.flag_values:
            self._runtime.flag_values[name] = default

    def get_flag(self, name: str) -> Any:
        """The flag's value (from the command line, else its default); ``None`` for a flag this
        extension did not register."""
        self._assert_active()
        if name not in self._extension.flags:
            return None
        return self._runtime.flag_values.get(name)

    def register_shortcut(self, shortcut: str, options: dict[str, Any]) -> None:
        """Accepted; keyboard shortcuts need a terminal UI."""
        self._assert_active()
        self._extension.shortcuts[shortcut] = {"shortcut": shortcut, "extensionPath": self._extension.path, **options}

    def register_message_renderer(self, custom_type: str, renderer: Any) -> None:
        """Accepted; rendering needs a terminal UI."""
        self._assert_active()
        self._extension.renderers.append(("message", custom_type, renderer))

    def register_entry_renderer(self, custom_type: str, renderer: Any) -> None:
        """Accepted; rendering needs a terminal UI."""
        self._assert_active()
        self._extension.renderers.append(("entry", custom_type, renderer))

    def register_tool_renderer(self, resolver: Any) -> None:
        """Accepted; rendering needs a terminal UI."""
        self._assert_active()
        self._extension.renderers.append(("tool", None, resolver))

    def register_markdown_transformer(self, transformer: Any, options: Any = None) -> None:
        """Accepted; rendering needs a terminal UI."""
        self._assert_active()
        self._extension.renderers.append(("markdown", None, transformer))

    # ------------------------------------------------------------------ actions

    def _host(self) -> ExtensionHost:
        # ``require_host`` checks staleness itself: only this extension's own state is left.
        if self._state == "failed":
            raise RuntimeError(self._failed_message())
        return self._runtime.require_host()

    def send_message(self, message: dict[str, Any], options: dict[str, Any] | None = None) -> None:
        """Add a custom message (``customType``, ``content``, ``display``, ``details``) to the
        session. ``options``: ``triggerTurn``, ``deliverAs`` ("steer" | "followUp" | "nextTurn")."""
        self._host().send_message(message, options)

    def send_user_message(self, content: Any, options: dict[str, Any] | None = None) -> None:
        """Send a user message (text or content blocks) as if typed. ``options``: ``deliverAs``
        ("steer" | "followUp", required while a run is active), ``expandPromptTemplates``."""
        self._host().send_user_message(content, options)

    def append_entry(self, custom_type: str, data: Any = None) -> None:
        """Persist extension state as a ``custom`` entry (never sent to the model)."""
        self._host().append_entry(custom_type, data)

    def set_session_name(self, name: str) -> None:
        self._host().set_session_name(name)

    def get_session_name(self) -> str | None:
        return self._host().view.session_manager.get_session_name()

    def set_label(self, entry_id: str, label: str | None = None) -> None:
        self._host().set_label(entry_id, label)

    def get_commands(self) -> list[dict[str, Any]]:
        """Slash commands of this session as ``get_commands`` lists them."""
        return self._host().view.commands()

    async def exec(
        self, command: str, args: list[str] | None = None, options: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run ``command`` with ``args`` without a shell. ``options``: ``cwd``, ``timeout`` (ms),
        ``signal``, ``maxBuffer``. Returns ``{stdout, stderr, code, killed, truncated}``."""
        self._assert_active()
        from pi_rpc.extensions.exec import exec_command

        host = self._runtime.host
        cwd = (options or {}).get("cwd") or (host.view.cwd if host is not None else None)
        return await exec_command(command, list(args or []), cwd, options or {})

    def get_active_tools(self) -> list[str]:
        return self._host().view.active_tool_names()

    def get_all_tools(self) -> list[dict[str, Any]]:
        return self._host().get_all_tools()

    def set_active_tools(self, names: list[str]) -> None:
        self._host().set_active_tools(list(names))

    async def set_model(self, model: dict[str, Any]) -> bool:
        """Select ``model`` (a model dict, e.g. from ``ctx.model_registry``) for this session;
        ``False`` when its provider has no credentials."""
        return await self._host().set_model(model)

    def get_thinking_level(self) -> str:
        return self._host().view.thinking_level

    def set_thinking_level(self, level: str) -> None:
        self._host().set_thinking_level(level)

    def get_settings(self) -> dict[str, Any]:
        """A copy of the effective settings (global and project merged)."""
        return self._host().view.settings()

    def register_provider(self, name: str, config: dict[str, Any]) -> None:
        """Register or override a model provider (``models.json`` provider shape). Calls made
        while loading are applied when the runtime binds; later ones at once."""
        self._assert_active()
        if not isinstance(config, dict):
            raise ValueError("Provider config is required when registering by name")
        if self._runtime.host is None:
            self._runtime.pending_provider_changes.append(("register", name, config, self._extension.path))
        else:
            self._runtime.host.register_provider(name, config)

    def unregister_provider(self, name: str) -> None:
        self._assert_active()
        if self._runtime.host is None:
            self._runtime.pending_provider_changes = [
                change
                for change in self._runtime.pending_provider_changes
                if change[1] != name or change[0] in ("virtual", "unvirtual")
            ]
        else:
            self._runtime.host.unregister_provider(name)

    def register_virtual_model(self, definition: dict[str, Any]) -> None:
        """Register (or replace) a virtual model: ``{provider, id, name, thinkingLevels,
        contextWindow, maxTokens, input, route}``; ``route(request, ctx)`` (sync or async)
        answers each request with ``{"model", "thinkingLevel", "state"?}``
        (``pi_rpc.ai.models.virtual``). Queued while loading, like ``register_provider``."""
        self._assert_active()
        if not isinstance(definition, dict):
            raise ValueError("Virtual model definition is required")
        route = definition.get("route")
        runtime = self._runtime

        def routed(request: dict[str, Any]) -> Any:
            # Routing runs once the runtime is bound: the context is made per request.
            factory = runtime.create_context
            return route(request, factory() if factory is not None else None)  # type: ignore[misc]

        entry = {**definition, "route": routed if callable(route) else route}
        key = f"{definition.get('provider')}/{definition.get('id')}"
        if runtime.host is None:
            runtime.pending_provider_changes.append(("virtual", key, entry, self._extension.path))
        else:
            apply_provider_change(runtime.host, "virtual", key, entry)

    def unregister_virtual_model(self, provider: str, model_id: str) -> None:
        self._assert_active()
        key = f"{provider}/{model_id}"
        if self._runtime.host is None:
            self._runtime.pending_provider_changes = [
                change
                for change in self._runtime.pending_provider_changes
                if not (change[0] == "virtual" and change[1] == key)
            ]
        else:
            apply_provider_change(self._runtime.host, "unvirtual", key, None)

    # ------------------------------------------------------------------ MCP servers

    def register_mcp_server(self, name: str, config: dict[str, Any]) -> None:
        """Add an MCP server for this session (``mcp.json``'s ``mcpServers`` entry shape): the
        built-in MCP support connects it (at ``session_start`` when registered while loading,
        at once later); an ``mcp.json`` server of the same name wins. Registering the name
        again replaces this extension's registration; another extension's name, an invalid
        name or config raise."""
        self._assert_active()
        registry = self._runtime.mcp_servers
        server = registry.check(str(name), config, self._extension.path)
        self._apply(lambda: registry.register(server))

    def unregister_mcp_server(self, name: str) -> None:
        """Remove a server this extension registered (its connection closes, its tools become
        unreachable); other names are ignored."""
        self._assert_active()
        registry = self._runtime.mcp_servers
        path = self._extension.path
        self._apply(lambda: registry.unregister(str(name), path))

    def get_mcp_servers(self) -> list[dict[str, Any]]:
        """Every server registered for this session, in registration order: the mode's (ACP
        client's) first, then extensions'; ``{"name", "config", "extensionPath"}`` (copies)."""
        self._assert_active()
        return self._runtime.mcp_servers.list()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` in the session's task group (background work of an extension, e.g. a
        connection opened in ``session_start``); its failure is reported as an extension error."""
        host = self._host()
        path = self._extension.path
        runtime = self._runtime

        async def guarded() -> None:
            try:
                await coro
            except Exception as exc:  # noqa: BLE001
                runtime.report_error({"extensionPath": path, "event": "spawn", "error": error_message(exc)})

        host.spawn(guarded())

"""The RPC backend over the session runtime: one handler per command (``cmd_<name>``, here or in
the part the command table names), each a thin adapter from the validated command dict to an
``AgentSession`` method, plus the session-event subscription
(with the wire transform of ``message_update``) and, when extensions are loaded, their binding
to RPC mode: the extension UI sub-protocol, ``extension_error`` records and ``ctx.shutdown()``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import anyio
import orjson

from pi_rpc.errors import CommandError
from pi_rpc.modes.rpc.auth_commands import AuthCommands
from pi_rpc.modes.rpc.backend import ServerHandle
from pi_rpc.modes.rpc.catalog_commands import CatalogCommands
from pi_rpc.modes.rpc.host_tools import HostToolCommands
from pi_rpc.modes.rpc.registry import JSON_NULL, CommandContext, HandlerRegistry
from pi_rpc.modes.rpc.setup_commands import SetupCommands
from pi_rpc.modes.wire.event_transform import to_wire_event
from pi_rpc.modes.wire.protocol.names import HOST_TOOL_RESULT, HOST_TOOL_UPDATE
from pi_rpc.modes.wire.protocol.table import AUTH, CATALOG, COMMANDS, SESSION, SETUP, TOOLS
from pi_rpc.runtime.listeners import ImmediateListener
from pi_rpc.runtime.run_context import new_run_id
from pi_rpc.session.errors import SessionError
from pi_rpc.session.tree import dumps_tree

if TYPE_CHECKING:
    from collections.abc import Callable

    from pi_rpc.modes.rpc.events import EventEmitter
    from pi_rpc.runtime.events import SessionEvent
    from pi_rpc.runtime.session import AgentSession


# How long after startup, without a prompt, the first request is prepared in the background.
WARM_UP_AFTER_S = 0.05


def _images(cmd: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The command's (validated) images, each with ``type:"image"``: ``type`` is optional on
    the wire (``ImageContent``), and a queued message's images are found by that type."""
    images = cmd.get("images")
    return [image if "type" in image else {"type": "image", **image} for image in images] if images else None


def _run_bounds(cmd: dict[str, Any], *, schema_allowed: bool = True) -> tuple[Any, Any]:
    """The command's checked ``limits`` and ``outputSchema`` (``runtime.run_limits``); absent:
    None (nothing is imported for a command without them)."""
    if "limits" not in cmd and "outputSchema" not in cmd:
        return None, None
    from pi_rpc.runtime.run_limits import LimitsError, check_output_schema, parse_limits

    ctype = cmd.get("type")
    try:
        limits = parse_limits(cmd["limits"]) if cmd.get("limits") is not None else None
        schema = None
        if cmd.get("outputSchema") is not None:
            if not schema_allowed:
                raise LimitsError('"outputSchema" belongs on the prompt that starts a run')
            schema = check_output_schema(cmd["outputSchema"])
    except LimitsError as exc:
        raise CommandError(f'Invalid command "{ctype}": {exc}') from None
    return limits, schema


class _EventForwarder(ImmediateListener):
    """The session's events onto the server's event stream, in wire form; the events extensions
    cause synchronously (``AgentSession.emit_now``) are written at once."""

    __slots__ = ("_events", "_on_settled")

    def __init__(self, events: EventEmitter, on_settled: Callable[[], None]) -> None:
        self._events = events
        self._on_settled = on_settled

    async def __call__(self, event: SessionEvent) -> None:
        wire = to_wire_event(event)
        events = self._events
        if not events.try_emit(wire):  # (queued at once: every streamed delta)
            await events.emit(wire)
        if event.get("type") == "agent_settled":
            self._on_settled()

    def emit_nowait(self, event: SessionEvent) -> None:
        self._events.emit_nowait(to_wire_event(event))


class RuntimeBackend:
    """One session's command handlers over the runtime: its own ``cmd_*`` methods, plus the
    session-catalog and credential commands of its collaborators."""

    def __init__(self, session: AgentSession, initial_name: str | None = None) -> None:
        # The session's holder: commands go to its current session, events come through it.
        self.holder = session.holder
        self.catalog = CatalogCommands(session)
        self.auth = AuthCommands(session, self._login_ui)
        self.setup = SetupCommands(session)
        # The client's own tools and tool control (their records go out as the UI's do).
        self.host_tools = HostToolCommands(session, lambda: self.server.events.send_direct)
        self._initial_name = initial_name
        self._unsubscribe: Any = None
        self._ui: Any = None  # RpcExtensionUI once extensions are bound
        self._active_commands = 0
        self._shutdown_requested = False
        self._prompted = False

    # ------------------------------------------------------------------ Backend protocol

    def register(self, registry: HandlerRegistry) -> None:
        for name, handler in self.command_handlers().items():
            registry.register(name, handler)
        registry.register("extension_ui_response", self._extension_ui_response)
        registry.register(HOST_TOOL_RESULT, self._host_tool_answer)
        registry.register(HOST_TOOL_UPDATE, self._host_tool_answer)

    def command_handlers(self) -> dict[str, Any]:
        """This session's handler of every command it answers (not the server's own, not the
        session host's): the ``cmd_<name>`` of the part the command table names."""
        parts = {
            SESSION: self,
            CATALOG: self.catalog,
            AUTH: self.auth,
            TOOLS: self.host_tools,
            SETUP: self.setup,
        }
        return {
            spec.name: self._wrap(getattr(parts[spec.by], f"cmd_{spec.name}")) for spec in COMMANDS if spec.by in parts
        }

    @property
    def session(self) -> AgentSession:
        """The holder's current session (a replacement never leaves this backend on an old one)."""
        return self.holder.current

    @property
    def ui(self) -> Any:
        """The extension UI of RPC mode once extensions are bound (``RpcExtensionUI``), else None."""
        return self._ui

    async def start(self, server: ServerHandle, *, warm_up: bool = True, own_session: bool = True) -> None:
        """Subscribe the server's event stream to the session. ``own_session=False``: the
        session belongs to another mode that serves it too (the interactive mode's ``--listen``):
        its task group, name, extension binding and ``/mcp`` notices stay that mode's."""
        self.server = server
        if own_session:
            self.session.bind_task_group(server.task_group)

        forward = _EventForwarder(server.events, self._settled)

        if not own_session:
            self._unsubscribe = self.session.subscribe(forward)
            return
        if self._initial_name:
            try:
                await self.session.set_session_name(self._initial_name)
            except CommandError:
                pass  # an empty --name is ignored
        if self.session.mcp_command is not None:
            self.session.mcp_command.notify = self._notify
        # Subscribed before extensions bind, so what session_start handlers do reaches clients.
        self._unsubscribe = self.holder.subscribe(forward)
        if self.session.ext is not None:
            await self._bind_extensions(server)
        if warm_up:  # (a session opened later finds the process warm, its catalogues refreshed)
            server.task_group.start_soon(self._warm_up_while_idle)
            if os.environ.get("PI_OFFLINE") is None:
                server.task_group.start_soon(self._refresh_gateway_catalogues)

    async def _refresh_gateway_catalogues(self) -> None:
        """Upstream's RPC mode refreshes the model catalogues in the background once started
        (15 s at most, failures ignored): here the Radius gateways' (protocol/README §8, 29)."""
        registry = self.session.registry
        targets = registry.radius_refresh_targets()
        if not targets:
            return
        import time

        from pi_rpc.ai.models.models_store import fetch_gateway_models, save_entry

        async def refresh(provider: str, gateway: str, key: str | None) -> None:
            try:
                models = await fetch_gateway_models(provider, gateway, key)
                entry = {"models": models, "checkedAt": int(time.time() * 1000)}
                await save_entry(registry.agent_dir, provider, entry)
            except Exception:  # noqa: BLE001 - as upstream's refresh(...).catch(() => {})
                return
            registry.restore_catalogue(provider, entry)

        with anyio.move_on_after(15.0):
            async with anyio.create_task_group() as group:
                for target in targets:
                    group.start_soon(refresh, *target)

    async def _warm_up_while_idle(self) -> None:
        """If the client has not prompted shortly after startup, prepare what the first request
        needs in the background (``ai.warmup``); a prompt already running does it itself, and
        a thread doing it alongside would only slow it down (they share the GIL)."""
        await anyio.sleep(WARM_UP_AFTER_S)
        model = self.session.model
        if model is not None and not self._prompted and not self.session.is_streaming:
            from pi_rpc.ai.warmup import start_warm_up

            start_warm_up(model)

    async def _bind_extensions(self, server: ServerHandle) -> None:
        from pi_rpc.extensions.host import ModeBinding
        from pi_rpc.modes.rpc.extension_ui import RpcExtensionUI

        self._ui = RpcExtensionUI(server.events.send_direct, getattr(server.events, "dialogs", None))

        def on_error(error: dict[str, object]) -> None:
            server.events.send_direct(
                {
                    "type": "extension_error",
                    "extensionPath": error["extensionPath"],
                    "event": error["event"],
                    "error": error["error"],
                }
            )

        binding = ModeBinding(mode="rpc", ui=self._ui, on_error=on_error, shutdown=self._request_shutdown)  # type: ignore[arg-type]
        await self.session.start_extensions(binding)  # StartupError: the server reports it

    def _login_ui(self) -> Any:
        """The extension UI channel (made on first use when no extension bound it)."""
        if self._ui is None:
            from pi_rpc.modes.rpc.extension_ui import RpcExtensionUI

            self._ui = RpcExtensionUI(self.server.events.send_direct, getattr(self.server.events, "dialogs", None))
        return self._ui

    def _notify(self, message: str, kind: str | None) -> None:
        """A ``notify`` record for what the session answers itself (``/mcp`` without MCP)."""
        self._login_ui().notify(message, kind)

    # ------------------------------------------------------------------ ctx.shutdown()

    def _request_shutdown(self) -> None:
        """Upstream: at once when idle and no command is being handled, else once the current
        command is answered or the run settles. Checked on the next tick so the requesting
        handler finishes first."""
        self._shutdown_requested = True

        async def check_soon() -> None:
            await anyio.sleep(0)
            self._check_shutdown()

        self.server.task_group.start_soon(check_soon)

    def _settled(self) -> None:
        if self._shutdown_requested:
            self._check_shutdown()

    def _check_shutdown(self) -> None:
        if not self._shutdown_requested or self._active_commands > 0:
            return
        if self.session.is_streaming or self.session.is_compacting:
            return
        self.server.request_shutdown()

    def input_closed(self) -> None:
        # stdin ended (or ctx.shutdown()): dialogs still waiting can never be answered.
        if self._ui is not None:
            self._ui.close()
        self.host_tools.input_closed()  # pending host tool calls end with an error result

    async def aclose(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        await self.session.shutdown()

    # ------------------------------------------------------------------ dispatch

    def _wrap(self, method: Any) -> Any:
        """A ``cmd_<name>`` method as a handler. The one place where the runtime's errors become failed
        responses (see ``pi_rpc.errors``): a ``CommandError`` reaches the dispatcher as is, a
        ``SessionError`` from the store (a session that is locked, invalid, not found, an
        entry that is not there) is answered with its own text, like upstream's."""

        async def handler(ctx: CommandContext, cmd: dict[str, Any]) -> Any:
            self._active_commands += 1
            generation = self.session.store_faults.generation()
            try:
                return await method(ctx, cmd)
            except SessionError as exc:
                raise CommandError(str(exc)) from None
            finally:
                self._active_commands -= 1
                if self._shutdown_requested:
                    # After the response is written (a deferred shutdown keeps upstream's order).
                    previous = ctx.extras.get("after_response")

                    def after() -> None:
                        if previous is not None:
                            previous()
                        self._check_shutdown()

                    ctx.extras["after_response"] = after
                # What the command stored is stored before its response (a session database's
                # queue, a store's own writer), and a write fault it ran into is reported
                # before it (session_write_error).
                if self.session.store_faults.needs_settle_since(generation):
                    await self.session.store_faults.settle()

        return handler

    async def _extension_ui_response(self, ctx: CommandContext, cmd: dict[str, object]) -> None:
        # Routed to the pending dialog with that id; stale or unknown answers are ignored.
        if self._ui is not None:
            self._ui.resolve(cmd)

    async def _host_tool_answer(self, ctx: CommandContext, cmd: dict[str, object]) -> None:
        # Routed to the pending call with that id; stale or unknown answers are ignored.
        await self.host_tools.answer(cmd)

    # ------------------------------------------------------------------ prompting

    async def cmd_prompt(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        self._prompted = True
        gate = anyio.Event()
        ctx.extras["after_response"] = gate.set
        # The run is known by the prompt's id when that is a string; a number (or no id) could
        # collide with a client's string ids, so such runs get a generated one.
        run_id = ctx.id if ctx.has_id and isinstance(ctx.id, str) else new_run_id()
        limits, schema = _run_bounds(cmd)
        disposition = await self.session.prompt(
            cmd["message"],
            _images(cmd),
            cmd.get("streamingBehavior"),
            start_gate=gate,
            source="rpc",
            run_id=run_id,
            limits=limits,
            output_schema=schema,
        )
        data = {"disposition": disposition}
        options = self.server.event_options
        if disposition == "started" and options is not None and options.run_id:
            data["runId"] = run_id
        return data

    async def cmd_steer(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        limits, _ = _run_bounds(cmd, schema_allowed=False)
        return {"disposition": await self.session.steer(cmd["message"], _images(cmd), source="rpc", limits=limits)}

    async def cmd_follow_up(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        limits, _ = _run_bounds(cmd, schema_allowed=False)
        return {"disposition": await self.session.follow_up(cmd["message"], _images(cmd), source="rpc", limits=limits)}

    async def cmd_abort(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        # Beyond upstream (which answers no data; its clients ignore data): what the abort met.
        # A running auth_login is cancelled too.
        cancelled_login = self.auth.cancel_login()
        return {"outcome": "aborted" if await self.session.abort() or cancelled_login else "idle"}

    async def cmd_clear_queue(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return await self.session.clear_queue()

    # ------------------------------------------------------------------ session replacement

    async def cmd_new_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return await self.session.new_session(cmd.get("parentSession") or None)

    async def cmd_switch_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return await self.session.switch_session(cmd["sessionPath"])

    async def cmd_fork(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        # Upstream's RPC ignores `position` (always "before"); ours accepts "before" | "at"
        # like upstream's runtime fork(). Omitted, it is exactly upstream's behaviour.
        position = cmd.get("position", "before")
        if position not in ("before", "at"):
            raise CommandError('Invalid command "fork": field "position": expected "before" or "at"')
        return await self.session.fork(cmd.get("entryId"), position)

    async def cmd_clone(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return await self.session.clone()

    # ------------------------------------------------------------------ state and models

    async def cmd_get_state(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return self.session.get_state()

    async def cmd_set_model(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return await self.session.set_model(cmd["provider"], cmd["modelId"])

    async def cmd_cycle_model(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        result = await self.session.cycle_model()
        return JSON_NULL if result is None else result

    async def cmd_get_available_models(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return {"models": self.session.get_available_models()}

    async def cmd_set_thinking_level(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        await self.session.set_thinking_level(cmd["level"])
        return None

    async def cmd_cycle_thinking_level(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        result = await self.session.cycle_thinking_level()
        return JSON_NULL if result is None else result

    async def cmd_get_available_thinking_levels(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return {"levels": self.session.get_available_thinking_levels()}

    async def cmd_set_steering_mode(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        self.session.set_steering_mode(cmd["mode"])
        return None

    async def cmd_set_follow_up_mode(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        self.session.set_follow_up_mode(cmd["mode"])
        return None

    # ------------------------------------------------------------------ compaction and retry

    async def cmd_compact(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return await self.session.compact(cmd.get("customInstructions"))

    async def cmd_set_auto_compaction(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        self.session.set_auto_compaction(cmd["enabled"])
        return None

    async def cmd_set_auto_retry(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        self.session.set_auto_retry(cmd["enabled"])
        return None

    async def cmd_abort_retry(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        gate = anyio.Event()
        ctx.extras["after_response"] = gate.set
        await self.session.abort_retry(gate)
        return None

    # ------------------------------------------------------------------ bash

    async def cmd_bash(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        async def on_chunk(delta: str) -> None:
            await ctx.emit(ctx.with_id({"type": "bash_execution_update", "delta": delta}))

        return await self.session.bash(cmd["command"], cmd.get("excludeFromContext"), on_chunk)

    async def cmd_abort_bash(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        self.session.abort_bash()
        return None

    # ------------------------------------------------------------------ queries

    async def cmd_get_session_stats(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return self.session.get_session_stats()

    async def cmd_export_html(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return self.session.export_html(cmd.get("outputPath"))

    async def cmd_get_fork_messages(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return {"messages": self.session.session.get_fork_messages()}

    async def cmd_get_entries(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        since = cmd.get("since")
        try:
            entries = self.session.session.get_entries(since)
        except KeyError:
            raise CommandError(f"Entry not found: {since}") from None
        return {"entries": entries, "leafId": self.session.session.get_leaf_id()}

    async def cmd_get_tree(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        # A linear session is a tree as deep as it is long: serialise it without recursion
        # (orjson refuses nesting beyond 254 levels) and splice the bytes in.
        tree = orjson.Fragment(dumps_tree(self.session.session.get_tree()))
        return {"tree": tree, "leafId": self.session.session.get_leaf_id()}

    async def cmd_get_last_assistant_text(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return self.session.get_last_assistant_text()

    async def cmd_set_session_name(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        await self.session.set_session_name(cmd["name"])
        return None

    async def cmd_get_messages(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return {"messages": self.session.get_messages()}

    async def cmd_get_commands(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        return {"commands": self.session.get_commands()}

"""Many sessions in one RPC process: the session host (the RPC backend over the runtime).

It owns the hosted session slots, each a ``RuntimeBackend`` over its own ``AgentSession`` and
named by a **handle** (an opaque string; the process's first session is ``"default"``):

- ``open_session`` builds another session like the first (``build_runtime_options`` with the
  process's command line, minus what names the first session's file; its own model, thinking
  level, queues, tools rooted at its cwd, extension instances and MCP connections);
- every other command goes to the session its ``handle`` names (absent: ``"default"``; the
  dispatcher has already refused an unknown one), with that session's event emitter, so
  events it causes carry its handle;
- ``extension_ui_response``, ``host_tool_result`` and ``host_tool_update`` are routed by their
  request ``id`` (a ``handle`` on them must match);
- ``close_session`` aborts, settles, flushes and shuts a session down (its extensions'
  ``session_shutdown``, its lock), kills the child processes it started
  (``config.children.owner``) and silences its events before the response is written;
- ``list_open_sessions`` lists the slots.

A session's own file can only be held by one slot: ``open_session`` and ``switch_session``
refuse a file another handle has open, and ``rename_session`` / ``delete_session`` refuse to
change or remove it (the single-writer lock is shared within a process, so it would not). A
database session is the same session by any path to its database (its real path plus its
id). A second process is refused by the lock itself (its error names the holder's pid).

With no session opened, and ``set_event_options {handle}`` off, nothing here changes a byte
of what the single-session backend wrote: events of ``"default"`` are passed on untouched.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.errors import CommandError, StartupError
from pi_rpc.modes.rpc.backend import ServerHandle
from pi_rpc.modes.rpc.dispatch import unknown_handle_error
from pi_rpc.modes.rpc.events import EventEmitter
from pi_rpc.modes.rpc.registry import CommandContext, HandlerRegistry
from pi_rpc.modes.rpc.runtime_backend import RuntimeBackend
from pi_rpc.modes.wire.protocol.names import DEFAULT_HANDLE, THINKING_LEVELS
from pi_rpc.modes.wire.protocol.table import COMMANDS, HOST

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs
    from pi_rpc.modes.rpc.event_options import EventOptions
    from pi_rpc.runtime.session import AgentSession


# Commands naming a session by ``sessionPath`` that would open, change or remove it (the
# command table's ``touches_session_path``): refused when another handle has that session open
# (its writes would go on into a replaced, renamed behind its back or deleted session).
_TOUCHES_ANOTHER_SESSION = frozenset(spec.name for spec in COMMANDS if spec.touches_session_path)


class HandleEvents(EventEmitter):
    """One session's view of the event stream: its events carry ``"handle"`` (after their own
    keys; ``runId``/``seq`` are spliced in later, after it) — always for an opened session, for
    ``"default"`` only while ``set_event_options {handle: true}`` is on. Once its session is
    closed nothing of it reaches the stream."""

    def __init__(self, inner: EventEmitter, handle: str, options: EventOptions | None, *, always: bool) -> None:
        # (not the base's __init__: every method goes through ``inner``)
        self._inner = inner
        self.handle = handle
        self._options = options
        self._always = always
        self._closed = False

    def _tag(self, event: Mapping[str, object]) -> Mapping[str, object]:
        if self._always or (self._options is not None and self._options.handle):
            return {**event, "handle": self.handle}
        return event

    @property
    def closed(self) -> bool:
        return self._closed or self._inner.closed

    def close(self) -> None:
        """This session was closed: drop whatever it still emits."""
        self._closed = True

    def try_emit(self, event: Mapping[str, object]) -> bool:
        if self._closed:
            return True
        return self._inner.try_emit(self._tag(event))

    async def emit(self, event: Mapping[str, object]) -> None:
        if not self._closed:
            await self._inner.emit(self._tag(event))

    def emit_nowait(self, event: Mapping[str, object]) -> None:
        if not self._closed:
            self._inner.emit_nowait(self._tag(event))

    def send_direct(self, record: Mapping[str, object]) -> None:
        if not self._closed:
            self._inner.send_direct(self._tag(record))

    async def send_raw(self, record: dict[str, Any]) -> None:
        await self.emit(record)


class HostedSession:
    """One slot: its handle, its backend (session, extension UI, event subscription) and events."""

    def __init__(self, handle: str, backend: RuntimeBackend, events: EventEmitter) -> None:
        self.handle = handle
        self.backend = backend
        self.events = events
        self.handlers = backend.command_handlers()
        # The token its child processes are registered under (None: the first session's).
        self.owner: object | None = None if handle == DEFAULT_HANDLE else object()

    @property
    def session(self) -> AgentSession:
        return self.backend.holder.current

    def session_file(self) -> str | None:
        return self.backend.session.session.session_file

    def summary(self) -> dict[str, Any]:
        session = self.backend.session
        model = session.model
        return {
            "handle": self.handle,
            "sessionId": session.session.session_id,
            "sessionFile": session.session.session_file or None,
            "cwd": session.cwd,
            "model": f"{model['provider']}/{model['id']}" if model is not None else None,
            "isStreaming": session.is_streaming,
            "pendingMessageCount": session.queue.pending_message_count,
        }


def _same_file(a: str | None, b: str | None) -> bool:
    """Whether two locators name one session: a file by any path (relative, symlinked), a
    database session by its database's real path plus its id (``backends.same_session``)."""
    if not a or not b:
        return False
    from pi_rpc.session.backends import same_session

    try:
        return same_session(a, b)
    except ValueError:  # a path no file system can hold (NUL, a lone surrogate): no file of ours
        return False


class SessionHost:
    """The RPC backend: the first session (``"default"``) and the ones ``open_session`` adds."""

    def __init__(self, first: RuntimeBackend, args: CliArgs, *, max_sessions: int) -> None:
        self.args = args
        self.max_sessions = max_sessions
        self._first = first
        self.slots: dict[str, HostedSession] = {}
        self._opening = 0  # open_session commands between the limit check and their slot
        self._next = 1
        self._shut_down = False  # the process is shutting down: no session opens any more

    # ------------------------------------------------------------------ Backend protocol

    def register(self, registry: HandlerRegistry) -> None:
        for name in self._first.command_handlers():
            registry.register(name, self._route(name))
        for spec in COMMANDS:
            if spec.by == HOST:  # its own commands and the unanswered records' routing
                registry.register(spec.name, getattr(self, f"cmd_{spec.name}"))

    async def start(self, server: ServerHandle) -> None:
        self.server = server
        events = self._events_for(DEFAULT_HANDLE)
        self.slots[DEFAULT_HANDLE] = HostedSession(DEFAULT_HANDLE, self._first, events)
        await self._first.start(replace(server, events=events))

    def _events_for(self, handle: str) -> EventEmitter:
        """The event stream of the session ``handle``: its connections' on --listen, else stdout
        (tagged with the handle, always for an opened session)."""
        if self.server.session_events is not None:
            return self.server.session_events(handle)
        return HandleEvents(self.server.events, handle, self.server.event_options, always=handle != DEFAULT_HANDLE)

    def input_closed(self) -> None:
        for slot in list(self.slots.values()):
            slot.backend.input_closed()

    async def aclose(self) -> None:
        """Process shutdown: every session at once (each has the same grace)."""
        self._shut_down = True
        slots = list(self.slots.values())
        async with anyio.create_task_group() as tg:
            for slot in slots:
                tg.start_soon(self._shut, slot)

    def known_handle(self, handle: str) -> bool:
        return handle in self.slots

    # ------------------------------------------------------------------ routing

    def _slot(self, cmd: dict[str, Any]) -> HostedSession:
        handle = cmd.get("handle")
        slot = self.slots.get(DEFAULT_HANDLE if handle is None else handle)
        if slot is None:  # closed since the dispatcher looked
            raise CommandError(unknown_handle_error(str(handle)))
        return slot

    def _route(self, name: str) -> Any:
        async def handler(ctx: CommandContext, cmd: dict[str, Any]) -> Any:
            slot = self._slot(cmd)
            if name in _TOUCHES_ANOTHER_SESSION:
                self._refuse_held(cmd["sessionPath"], slot)
            ctx.events = slot.events  # (events it emits carry its handle)
            if slot.owner is None:
                return await slot.handlers[name](ctx, cmd)
            from pi_rpc.config import children

            token = children.owner.set(slot.owner)
            try:
                return await slot.handlers[name](ctx, cmd)
            finally:
                children.owner.reset(token)

        return handler

    def _refuse_held(self, session_path: str, asking: HostedSession | None) -> None:
        """Refuse a session another handle has open (the lock is shared within the process,
        so it would not), named as the command would read it (a locator normalised)."""
        from pi_rpc.runtime.errors import RuntimeCommandError
        from pi_rpc.runtime.session_catalog import client_session_ref

        try:
            target = client_session_ref(session_path)
        except RuntimeCommandError:
            return  # not a session locator at all: the command answers with its own error
        for slot in self.slots.values():
            if slot is not asking and _same_file(slot.session_file(), target):
                raise CommandError(f'Session file is already open in session handle "{slot.handle}": {target}')

    async def cmd_extension_ui_response(self, ctx: CommandContext, cmd: dict[str, Any]) -> None:
        # By the request id alone; a handle, when given, must be the asking session's.
        handle = cmd.get("handle")
        if handle is not None:
            slot = self.slots.get(handle) if isinstance(handle, str) else None
            if slot is not None and slot.backend.ui is not None:
                slot.backend.ui.resolve(cmd)
            return
        for slot in list(self.slots.values()):
            if slot.backend.ui is not None and slot.backend.ui.resolve(cmd):
                return

    async def cmd_host_tool_result(self, ctx: CommandContext, cmd: dict[str, Any]) -> None:
        await self._host_tool_answer(cmd)

    async def cmd_host_tool_update(self, ctx: CommandContext, cmd: dict[str, Any]) -> None:
        await self._host_tool_answer(cmd)

    async def _host_tool_answer(self, cmd: dict[str, Any]) -> None:
        # By the request id alone, as extension_ui_response (a handle, when given, must match).
        handle = cmd.get("handle")
        slots = list(self.slots.values())
        if handle is not None:
            slot = self.slots.get(handle) if isinstance(handle, str) else None
            slots = [slot] if slot is not None else []
        for slot in slots:
            if await slot.backend.host_tools.answer(cmd):
                return

    # ------------------------------------------------------------------ open

    def _args_for(self, cmd: dict[str, Any]) -> CliArgs:
        args = replace(
            self.args,
            session=None,
            continue_session=False,
            resume=False,
            fork=None,
            session_id=None,
            name=None,
        )
        path = cmd.get("sessionPath")
        no_session = cmd.get("noSession")
        if path is not None and no_session:
            raise CommandError('Invalid command "open_session": "sessionPath" and "noSession" exclude each other')
        if path is not None:
            if self.args.no_session:
                raise CommandError(
                    'Invalid command "open_session": "sessionPath" needs session files (the process runs --no-session)'
                )
            args = replace(args, session=path)
        if no_session is not None:
            args = replace(args, no_session=no_session)
        if cmd.get("model") is not None:
            args = replace(args, model=cmd["model"], provider=None)
        level = cmd.get("thinkingLevel")
        if level is not None:
            if level not in THINKING_LEVELS:
                raise CommandError(
                    f'Invalid command "open_session": field "thinkingLevel": expected one of '
                    f'{", ".join(THINKING_LEVELS)}, got "{level}"'
                )
            args = replace(args, thinking=level)
        return args

    @staticmethod
    def _cwd(cmd: dict[str, Any]) -> str:
        raw = cmd.get("cwd")
        if raw is None:
            return os.getcwd()
        cwd: str = os.path.abspath(os.path.expanduser(raw))
        if not os.path.isdir(cwd):
            raise CommandError(f'Invalid command "open_session": field "cwd": not a directory: {raw}')
        return cwd

    async def cmd_open_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        args = self._args_for(cmd)
        cwd = self._cwd(cmd)
        if len(self.slots) + self._opening >= self.max_sessions:
            raise CommandError(
                f"Too many open sessions: this process hosts at most {self.max_sessions} "
                f'(--max-sessions {self.max_sessions}, "default" included); close one with close_session first'
            )
        if cmd.get("sessionPath") is not None:
            from pi_rpc.runtime.session_catalog import client_session_ref

            client_session_ref(cmd["sessionPath"])  # a NUL or a bad locator: refused before anything opens
            self._refuse_held(cmd["sessionPath"], None)
        self._opening += 1
        try:
            return await self._open(args, cwd)
        finally:
            self._opening -= 1

    async def _open(self, args: CliArgs, cwd: str) -> dict[str, Any]:
        from pi_rpc.config import children
        from pi_rpc.runtime.factory import build_runtime_options
        from pi_rpc.runtime.project_trust import resolve_startup_trust
        from pi_rpc.runtime.session import AgentSession

        handle = f"s{self._next}"
        self._next += 1
        owner = object()
        token = children.owner.set(owner)  # what its extensions start at once is its own
        try:
            try:
                # Settings, models and the session file: disk work, kept off the event loop so
                # the other sessions keep streaming.
                # Its cwd is a project of its own: the extensions' project_trust handlers decide
                # for it as they did for the first session's at startup.
                trust = await resolve_startup_trust(args, cwd=cwd, mode="rpc")
                options = await anyio.to_thread.run_sync(lambda: build_runtime_options(args, cwd=cwd, trust=trust))
            except StartupError as exc:
                raise CommandError(exc.message) from None
            for slot in self.slots.values():
                if _same_file(slot.session_file(), options.session.session_file):
                    options.session.close()
                    raise CommandError(
                        f'Session file is already open in session handle "{slot.handle}": {options.session.session_file}'
                    )
            backend = RuntimeBackend(AgentSession(options))
            events = self._events_for(handle)
            slot = HostedSession(handle, backend, events)
            slot.owner = owner

            def close_later() -> None:  # an extension's ctx.shutdown(): this session only
                self.server.task_group.start_soon(self._close_quietly, handle)

            server = replace(self.server, events=events, request_shutdown=close_later)
            try:
                await backend.start(server, warm_up=False)
            except StartupError as exc:
                await self._shut(slot)
                raise CommandError(exc.message) from None
            except BaseException:
                await self._shut(slot)
                raise
            if self._shut_down:  # the process began shutting down while it opened
                await self._shut(slot)
                raise CommandError("The process is shutting down")
            self.slots[handle] = slot
        finally:
            children.owner.reset(token)
        store = backend.session.session
        return {
            "handle": handle,
            "sessionId": store.session_id,
            "sessionFile": store.session_file or None,
            "cwd": backend.session.cwd,
        }

    # ------------------------------------------------------------------ close and list

    async def cmd_close_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        handle = cmd["handle"]
        if handle == DEFAULT_HANDLE:
            raise CommandError('The "default" session cannot be closed (it lives as long as the process)')
        slot = self.slots.pop(handle, None)
        if slot is None:
            raise CommandError(unknown_handle_error(handle))
        await self._shut(slot)
        # Entries a write fault still kept off its file are lost now (the store stops retrying
        # at close, so nothing is written later behind the next owner's back): say so.
        unwritten = slot.session.unwritten
        if not unwritten:
            return None
        return {
            "unwrittenEntries": sum(u.entries for u in unwritten),
            "error": next((u.error for u in unwritten if u.error), None),
        }

    async def _close_quietly(self, handle: str) -> None:
        slot = self.slots.pop(handle, None)
        if slot is not None:
            await self._shut(slot)

    async def _shut(self, slot: HostedSession) -> None:
        """Abort, settle, flush, fire the extensions' shutdown and release the lock (the
        backend's ``aclose``), kill what it started, then silence it."""
        from pi_rpc.modes.exit import SHUTDOWN_GRACE_SECONDS
        from pi_rpc.runtime.grace import SETTLE_GRACE_SECONDS

        with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
            try:
                if slot.owner is not None:
                    # A closed session's pending dialogs resolve with their defaults. (Not the
                    # first session's at exit: its session_shutdown dialogs are still written,
                    # as upstream's are.)
                    slot.backend.input_closed()
                    # Its run ends as an abort does, its agent_end / agent_settled written
                    # (tagged) before the close response; shutting down emits nothing more.
                    with anyio.move_on_after(SETTLE_GRACE_SECONDS):
                        await slot.session.abort()
                await slot.backend.aclose()
            except Exception as exc:  # noqa: BLE001 - one session's fault stays its own
                from pi_rpc.log import logger

                where = "during shutdown" if slot.owner is None else f"closing session {slot.handle}"
                logger().error(f"pi_rpc: error {where}: {exc}")
        try:
            # However the shutdown ended (its grace ran out, a fault): the store stops retrying
            # and gives up its lock now, never to write into the file's next owner's session.
            slot.session.close_store()
        except Exception as exc:  # noqa: BLE001 - one session's fault stays its own
            from pi_rpc.log import logger

            logger().error(f"pi_rpc: error closing the session file of {slot.handle}: {exc}")
        if slot.owner is not None:
            from pi_rpc.config import children

            children.kill_owned(slot.owner)
        slot.events.close()

    async def cmd_list_open_sessions(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return {"sessions": [slot.summary() for slot in self.slots.values()]}

"""The stdio transport and the process lifecycle of ``pi --mode rpc``.

- stdin (fd 0) is framed (``wire.framing``) and parsed (``wire.jsonparse``); every record is
  dispatched in its own task as soon as it arrives.
- All output goes through one ``RecordWriter`` on the private protocol fd.
- stdin EOF: commands already in flight are answered first (upstream drops them), then events
  stop, the backend is closed, stdout is flushed; exit 0.
- SIGTERM -> 143 (no flush), SIGHUP -> 129 (flush). Every signal first kills tracked child
  processes. A second signal during shutdown exits at once with its code, except that the
  very first signal ever received is ignored while an EOF shutdown is running (upstream rule).
- A stdout write error (EPIPE: the client went away) exits 1 without a traceback.
"""

from __future__ import annotations

import signal
import sys
from contextlib import aclosing
from typing import Any

import anyio

from pi_rpc.config.cli_args import DEFAULT_MAX_SESSIONS
from pi_rpc.errors import StartupError
from pi_rpc.log import logger
from pi_rpc.modes.exit import SHUTDOWN_GRACE_SECONDS, hard_exit, signal_exit_code
from pi_rpc.modes.rpc.backend import Backend, ServerHandle
from pi_rpc.modes.rpc.dispatch import Dispatcher
from pi_rpc.modes.rpc.events import EventEmitter
from pi_rpc.modes.rpc.protocol_info import register_stream_commands
from pi_rpc.modes.rpc.registry import HandlerRegistry
from pi_rpc.modes.wire.event_ring import DEFAULT_EVENT_BUFFER
from pi_rpc.modes.wire.framing import DEFAULT_MAX_FRAME_BYTES, ReadSoFar, read_frames
from pi_rpc.modes.wire.jsonparse import ParseFailure, parse_record
from pi_rpc.modes.wire.output import RecordWriter


def _parse(frame: bytes) -> object:
    """``parse_record``, which must never take the reader loop down with it."""
    try:
        return parse_record(frame)
    except Exception as exc:  # noqa: BLE001 - e.g. MemoryError on a huge record
        return ParseFailure(f"{type(exc).__name__}: {exc}")


class RpcServer:
    def __init__(
        self,
        backend: Backend,
        *,
        output_fd: int,
        input_fd: int = 0,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        verbose: bool = False,
        handle_signals: bool = True,
        event_buffer: int = DEFAULT_EVENT_BUFFER,
        so_far: ReadSoFar | None = None,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
    ) -> None:
        self.backend = backend
        self.max_sessions = max_sessions
        self.so_far = so_far  # input read (and not answered) before the server existed
        self.event_buffer = event_buffer
        self.input_fd = input_fd
        self.output_fd = output_fd
        self.max_frame_bytes = max_frame_bytes
        self.verbose = verbose
        self.handle_signals = handle_signals
        self.registry = HandlerRegistry()
        backend.register(self.registry)
        self.exit_code = 0
        self._shutting_down = False
        self._flush_on_exit = True
        self._signal_count = 0
        self._backend_closed = False
        self._main_scope: anyio.CancelScope | None = None
        self._input_scope: anyio.CancelScope | None = None

    # ------------------------------------------------------------------ entry

    async def serve(self) -> int:
        self.writer = RecordWriter(self.output_fd, on_fatal=self._on_write_error)
        self.event_options = register_stream_commands(
            self.registry,
            self.writer,
            max_frame_bytes=self.max_frame_bytes,
            event_buffer=self.event_buffer,
            max_sessions=self.max_sessions,
        )
        self.events = EventEmitter(self.writer)
        self.dispatcher = self._make_dispatcher()
        async with anyio.create_task_group() as root:
            root.start_soon(self.writer.run)
            if self.handle_signals:
                root.start_soon(self._watch_signals)
            with anyio.CancelScope() as scope:
                self._main_scope = scope
                await self._main()
            await self._finish()
            root.cancel_scope.cancel()
        return self.exit_code

    async def _main(self) -> None:
        async with anyio.create_task_group() as backend_tg:
            try:
                await self.backend.start(
                    ServerHandle(self.events, backend_tg, self.request_shutdown, event_options=self.event_options)
                )
            except StartupError as exc:
                # E.g. an extension failed to load: nothing was read or written on stdout.
                logger().error(exc.message)
                self.exit_code = exc.exit_code
                self._flush_on_exit = False
                self._shutting_down = True
                self.events.close()
                await self._close_backend()
                backend_tg.cancel_scope.cancel()
                return
            async with anyio.create_task_group() as commands:
                dispatch = self.dispatcher.dispatch
                with anyio.CancelScope() as input_scope:
                    self._input_scope = input_scope
                    frames = read_frames(self.input_fd, max_frame_bytes=self.max_frame_bytes, so_far=self.so_far)
                    self.so_far = None
                    async with aclosing(frames):
                        async for frame in frames:
                            item: object = _parse(frame) if type(frame) is bytes else frame
                            commands.start_soon(dispatch, item)
                input_closed = getattr(self.backend, "input_closed", None)
                if input_closed is not None:
                    input_closed()  # e.g. nobody can answer a dialog any more
                await self._input_ended()
            # stdin EOF and every in-flight command answered.
            self._shutting_down = True
            self.events.close()
            await self._close_backend()
            backend_tg.cancel_scope.cancel()

    def _make_dispatcher(self) -> Any:
        """What handles each input item (``dispatch(item)``); the ACP server speaks JSON-RPC."""
        return Dispatcher(
            self.registry,
            self.writer,
            events=self.events,
            verbose=self.verbose,
            known_handle=getattr(self.backend, "known_handle", None),
        )

    async def _input_ended(self) -> None:
        """stdin reached EOF; in-flight commands are still running (RPC answers them)."""

    async def _close_backend(self) -> None:
        if self._backend_closed:
            return
        self._backend_closed = True
        with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
            try:
                await self.backend.aclose()
            except Exception as exc:  # noqa: BLE001 - never a traceback on stdout; keep stderr short
                logger().error(f"pi_rpc: error during shutdown: {exc}")

    async def _finish(self) -> None:
        self._shutting_down = True
        self.events.close()
        await self._close_backend()
        if self.writer.failed is None and self._flush_on_exit:
            with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
                await self.writer.drain()
        self.writer.close()

    # ------------------------------------------------------------------ triggers

    def request_shutdown(self) -> None:
        """Stop reading stdin and shut down as at EOF (in-flight commands are answered)."""
        if self._input_scope is not None:
            self._input_scope.cancel()

    def _on_write_error(self, exc: BaseException) -> None:
        if self.exit_code == 0:
            self.exit_code = 1
        self._flush_on_exit = False
        self._shutting_down = True
        self.events.close()
        if self._main_scope is not None:
            self._main_scope.cancel()

    def begin_signal_shutdown(self, code: int, *, flush: bool) -> None:
        self.exit_code = code
        self._flush_on_exit = flush
        self._shutting_down = True
        self.events.close()
        if self._main_scope is not None:
            self._main_scope.cancel()

    async def _watch_signals(self) -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
            async for signum in signals:
                self._signal_count += 1
                code = signal_exit_code(signum)
                # Children are registered through pi_rpc.config.children: when nothing has
                # imported it, there is none to kill (and it stays off the startup path).
                children = sys.modules.get("pi_rpc.config.children")
                if children is not None:
                    children.kill_all()
                if self._shutting_down:
                    if self._signal_count == 1 and self.exit_code == 0:
                        continue  # first signal ever, during an EOF shutdown: ignored
                    hard_exit(code)
                self.begin_signal_shutdown(code, flush=signum != signal.SIGTERM)

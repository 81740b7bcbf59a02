"""In-memory transport: drive a ``Dispatcher`` without processes or pipes (fast tests).

    async with MemoryTransport(backend) as t:
        await t.send({"id": 1, "type": "get_state"})
        resp = await t.response(1)

Inputs may be Python objects (already parsed) or raw bytes (framed and parsed exactly like
stdin). Every input is dispatched in its own task, as in the stdio server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from pi_rpc.modes.rpc.backend import Backend, ServerHandle
from pi_rpc.modes.rpc.dispatch import Dispatcher
from pi_rpc.modes.rpc.events import EventEmitter
from pi_rpc.modes.rpc.registry import HandlerRegistry
from pi_rpc.modes.wire.framing import DEFAULT_MAX_FRAME_BYTES, LineFramer
from pi_rpc.modes.wire.jsonout import dumps_record, loads
from pi_rpc.modes.wire.jsonparse import parse_record


class MemorySink:
    """Collects records; each record is round-tripped through the real encoder so tests see
    exactly what would be on the wire."""

    def __init__(self) -> None:
        self.records: list[object] = []
        self.lines: list[bytes] = []
        self._changed = anyio.Event()

    def _add(self, record: object) -> None:
        line = dumps_record(record)
        self.lines.append(line)
        self.records.append(loads(line))
        self._changed.set()
        self._changed = anyio.Event()

    async def send(self, record: object) -> None:
        self._add(record)
        await anyio.sleep(0)

    def send_nowait(self, record: object) -> None:
        self._add(record)

    async def send_bounded(self, record: object) -> None:
        self._add(record)

    async def wait_for(self, predicate: Callable[[object], bool], timeout: float = 5.0) -> object:
        with anyio.fail_after(timeout):
            while True:
                for record in self.records:
                    if predicate(record):
                        return record
                await self._changed.wait()


class MemoryTransport:
    def __init__(self, backend: Backend, *, max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES) -> None:
        self.backend = backend
        self.registry = HandlerRegistry()
        backend.register(self.registry)
        self.sink = MemorySink()
        self.events = EventEmitter(self.sink)
        self.dispatcher = Dispatcher(self.registry, self.sink, events=self.events)
        self.framer = LineFramer(max_frame_bytes)

    async def __aenter__(self) -> MemoryTransport:
        # Entered backend-first so that exiting finishes commands before the backend stops.
        self._backend_tg = anyio.create_task_group()
        await self._backend_tg.__aenter__()
        await self.backend.start(ServerHandle(self.events, self._backend_tg))
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self._tg.__aexit__(*exc)  # wait for in-flight commands
        finally:
            self.events.close()
            await self.backend.aclose()
            self._backend_tg.cancel_scope.cancel()
            await self._backend_tg.__aexit__(None, None, None)

    @property
    def records(self) -> list[object]:
        return self.sink.records

    async def send(self, obj: object) -> None:
        """Dispatch a parsed JSON value (``dict``, ``None``, ``42`` …)."""
        self._tg.start_soon(self.dispatcher.dispatch, obj)
        await anyio.sleep(0)

    async def send_bytes(self, data: bytes, *, eof: bool = False) -> None:
        """Frame and parse ``data`` exactly as stdin would be."""
        frames = self.framer.feed(data)
        if eof:
            frames += self.framer.feed_eof()
        for frame in frames:
            item = parse_record(frame) if type(frame) is bytes else frame
            self._tg.start_soon(self.dispatcher.dispatch, item)
        await anyio.sleep(0)

    async def response(self, cmd_id: object, timeout: float = 5.0) -> object:
        return await self.sink.wait_for(
            lambda r: isinstance(r, dict) and r.get("type") == "response" and "id" in r and r["id"] == cmd_id,
            timeout,
        )

"""Sessions belong to the process: the hub between the hosted sessions and the connections.

Every record a session emits is **published** once: encoded once, numbered with the next
process-wide ``seq`` (responses take numbers from the same counter, so a connection sees the
subsequence of records sent to it), kept in the ring (``--event-buffer`` records, 32 MiB) and
pushed, in the same call, onto the queue of every connection attached to its session, so all of
them receive the same records in the same order with the same ``seq``. Publishing never waits:
each connection's queue is bounded on its own (``connection``), so a client that stops reading
slows neither the session nor the other clients.

``attach`` replays the ring's events of a session numbered above ``since`` and joins the live
stream in the same step (no await in between): no gap and no duplicate.

Extension dialogs (``extension_ui_request`` with ``select``/``confirm``/``input``/``editor``) go
to every attached connection; the first ``extension_ui_response`` wins and, once the dialog is
settled (answered, timed out or aborted), the other connections get ``extension_ui_resolved
{id}``. A dialog asked while no connection is attached waits for the first that attaches (its
timeout starts then: ``DialogTracker.delivered``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING

import anyio

from pi_rpc.modes.rpc.events import EventEmitter
from pi_rpc.modes.wire.event_ring import EVENT_RING_MAX_BYTES
from pi_rpc.modes.wire.jsonout import dumps_line
from pi_rpc.modes.wire.protocol.names import DEFAULT_HANDLE, EXTENSION_UI_REQUEST, EXTENSION_UI_RESOLVED
from pi_rpc.runtime.run_context import current_run_id

if TYPE_CHECKING:
    from pi_rpc.modes.rpc.listen.connection import Connection

DIALOG_METHODS = frozenset({"select", "confirm", "input", "editor"})
MAX_OPEN_DIALOGS = 4096  # dialogs the hub remembers (a dialog settles long before this many open)
# Publishing never waits for a client, so a run that produces events without awaiting anything
# (an offline model, a tool's burst of output) would keep the event loop from the connections'
# writers, the listeners and every other command. After this long without yielding, the next
# agent-loop event is published through ``send``, which yields once.
YIELD_EVERY_S = 0.002

# The connection whose command is running (set by its reader; contextvars follow its tasks):
# ``open_session`` attaches the opener as soon as the new session's event stream exists.
CURRENT_CONNECTION: ContextVar[Connection | None] = ContextVar("pi_rpc_listen_connection", default=None)


class Published:
    """One published record: its number, session, encoded line (LF included) and run id."""

    __slots__ = ("seq", "handle", "line", "run_id", "variants")

    def __init__(self, seq: int, handle: str, line: bytes, run_id: str | None) -> None:
        self.seq = seq
        self.handle = handle
        self.line = line
        self.run_id = run_id
        # The line as rendered for each combination of a connection's options (connection.render).
        self.variants: dict[int, bytes] | None = None


class OpenDialog:
    __slots__ = ("handle", "published", "recipients", "answered_by", "waiting")

    def __init__(self, handle: str, published: Published) -> None:
        self.handle = handle
        self.published = published
        self.recipients: set[Connection] = set()
        self.answered_by: Connection | None = None
        # Set once a connection received it; None while it has reached one.
        self.waiting: anyio.Event | None = None


class _Channel:
    """The record sink under one session's ``EventEmitter``: publishing never waits."""

    __slots__ = ("_hub", "_handle")

    def __init__(self, hub: Hub, handle: str) -> None:
        self._hub = hub
        self._handle = handle

    def try_send(self, record: object) -> bool:
        hub = self._hub
        if time.monotonic() - hub.yielded_at > YIELD_EVERY_S:
            return False  # (the emitter awaits ``send``: published, then a yield)
        hub.publish(self._handle, record)
        return True

    async def send(self, record: object) -> None:
        hub = self._hub
        hub.publish(self._handle, record)
        hub.yielded_at = time.monotonic()
        await anyio.lowlevel.checkpoint()

    def send_nowait(self, record: object) -> None:
        self._hub.publish(self._handle, record)

    async def send_bounded(self, record: object) -> None:
        self._hub.publish(self._handle, record)


class HubEvents(EventEmitter):
    """One hosted session's event stream on --listen. ``dialogs`` is read by the RPC extension
    UI (``extension_ui.DialogTracker``)."""

    def __init__(self, hub: Hub, handle: str) -> None:
        super().__init__(_Channel(hub, handle))
        self._hub = hub
        self.handle = handle
        self.dialogs = hub

    def close(self) -> None:
        """Its session was closed: nothing more of it is published; its attachments end."""
        if not self._closed:
            super().close()
            self._hub.session_closed(self.handle)

    def send_direct(self, record: Mapping[str, object]) -> None:
        if not self._closed:
            super().send_direct(record)


class Hub:
    def __init__(self, ring_records: int, ring_bytes: int = EVENT_RING_MAX_BYTES) -> None:
        self.ring_records = ring_records
        self.ring_bytes = ring_bytes
        self._seq = 0
        self._ring: deque[Published] = deque()
        self._ring_size = 0
        self._dropped: dict[str, int] = {}  # per session: the newest seq the ring no longer holds
        self.attached: dict[str, list[Connection]] = {}
        self.dialogs: dict[str, OpenDialog] = {}
        self.yielded_at = 0.0  # when an agent-loop event last yielded the event loop (_Channel)

    # ------------------------------------------------------------------ numbering and the ring

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    @property
    def last_seq(self) -> int:
        return self._seq

    def _remember(self, published: Published) -> None:
        size = len(published.line)
        if self.ring_records == 0 or size > self.ring_bytes:
            self._dropped[published.handle] = published.seq
            return
        self._ring.append(published)
        self._ring_size += size
        while len(self._ring) > self.ring_records or self._ring_size > self.ring_bytes:
            old = self._ring.popleft()
            self._ring_size -= len(old.line)
            self._dropped[old.handle] = old.seq

    def since(self, handles: Iterable[str], since: int) -> tuple[list[Published], bool]:
        """The ring's records of ``handles`` numbered above ``since``, oldest first, and whether
        the ring had to drop one of theirs numbered above it."""
        wanted = set(handles)
        found: list[Published] = []
        for published in reversed(self._ring):
            if published.seq <= since:
                break
            if published.handle in wanted:
                found.append(published)
        found.reverse()
        truncated = any(self._dropped.get(handle, 0) > since for handle in wanted)
        return found, truncated

    # ------------------------------------------------------------------ publishing

    def session_events(self, handle: str) -> HubEvents:
        """``ServerHandle.session_events``: the stream of a session being built. The connection
        opening it (``open_session``) is attached before its first event."""
        opener = CURRENT_CONNECTION.get()
        if opener is not None and handle != DEFAULT_HANDLE and not opener.closed:
            self.attached.setdefault(handle, []).append(opener)
            opener.attached.add(handle)
            opener.live_from[handle] = self._seq
        return HubEvents(self, handle)

    def publish(self, handle: str, record: object, *, exclude: Connection | None = None) -> Published:
        line = dumps_line(record)  # (first: a record that cannot be encoded takes no number)
        published = Published(self.next_seq(), handle, line, current_run_id())
        self._remember(published)
        connections = self.attached.get(handle, ())
        if (
            type(record) is dict
            and record.get("type") == EXTENSION_UI_REQUEST
            and record.get("method") in DIALOG_METHODS
        ):
            self._open_dialog(handle, published, record.get("id"), connections)
        for connection in connections:
            if connection is not exclude:
                connection.push_event(published)
        return published

    # ------------------------------------------------------------------ attachments

    def attach(self, connection: Connection, handle: str, since: int | None = None) -> tuple[int, bool]:
        """Attach ``connection`` to ``handle`` (replaying the ring above ``since`` first); the
        number of records replayed and whether the ring still held them all."""
        replayed: list[Published] = []
        complete = True
        members = self.attached.setdefault(handle, [])
        already = connection in members
        if since is not None:
            replayed, truncated = self.since((handle,), since)
            complete = not truncated
            if already:  # what it received live since it attached is not sent twice
                live_from = connection.live_from.get(handle, 0)
                replayed = [published for published in replayed if published.seq <= live_from]
        for published in replayed:
            connection.push_event(published)
        if not already:
            members.append(connection)
            connection.live_from[handle] = self._seq
        connection.attached.add(handle)
        # Open dialogs it has not seen (those above ``since`` were just replayed).
        for dialog in list(self.dialogs.values()):
            if dialog.handle != handle or connection in dialog.recipients:
                continue
            if since is None or dialog.published.seq <= since:
                connection.push_event(dialog.published)
            dialog.recipients.add(connection)
            if dialog.waiting is not None:
                dialog.waiting.set()
                dialog.waiting = None
        return len(replayed), complete

    def detach(self, connection: Connection, handle: str) -> bool:
        members = self.attached.get(handle)
        connection.attached.discard(handle)
        if members is None or connection not in members:
            return False
        members.remove(connection)
        if not members:
            del self.attached[handle]
        return True

    def detach_all(self, connection: Connection) -> None:
        for handle in list(connection.attached):
            self.detach(connection, handle)
        for dialog in self.dialogs.values():
            dialog.recipients.discard(connection)
            if dialog.answered_by is connection:
                dialog.answered_by = None

    def attached_count(self, handle: str) -> int:
        return len(self.attached.get(handle, ()))

    def session_closed(self, handle: str) -> None:
        for connection in self.attached.pop(handle, []):
            connection.attached.discard(handle)
        for key in [key for key, dialog in self.dialogs.items() if dialog.handle == handle]:
            del self.dialogs[key]

    # ------------------------------------------------------------------ dialogs (DialogTracker)

    def _open_dialog(self, handle: str, published: Published, key: object, connections: Iterable[Connection]) -> None:
        if not isinstance(key, str):
            return
        dialog = OpenDialog(handle, published)
        dialog.recipients.update(connections)
        if not dialog.recipients:
            dialog.waiting = anyio.Event()
        self.dialogs[key] = dialog
        while len(self.dialogs) > MAX_OPEN_DIALOGS:
            del self.dialogs[next(iter(self.dialogs))]

    def delivered(self, request_id: str) -> anyio.Event | None:
        dialog = self.dialogs.get(request_id)
        return dialog.waiting if dialog is not None else None

    def answering(self, request_id: object, connection: Connection) -> None:
        """``connection`` sent an ``extension_ui_response`` for ``request_id`` (the first one
        that arrives is the one the dialog takes)."""
        dialog = self.dialogs.get(request_id) if isinstance(request_id, str) else None
        if dialog is not None and dialog.answered_by is None:
            dialog.answered_by = connection

    def settled(self, request_id: str) -> None:
        dialog = self.dialogs.pop(request_id, None)
        if dialog is None or not dialog.recipients:
            return
        if dialog.handle not in self.attached:
            return
        self.publish(dialog.handle, {"type": EXTENSION_UI_RESOLVED, "id": request_id}, exclude=dialog.answered_by)

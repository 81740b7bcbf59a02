"""``pi attach``'s automatic reconnect: when the connection drops (the server restarted, a
network blip), connect again with backoff and re-attach with ``since`` = the last ``seq``
received, so the records sent meanwhile arrive once, in order, as ordinary events.

- Backoff: 0.25 s doubling to 4 s between attempts, for at most ``reconnect_seconds`` (30 by
  default, ``pi attach --reconnect <seconds>``; 0 turns reconnecting off). Meanwhile the footer
  shows ``reconnecting to <address> (attempt n)…``; a command sent meanwhile fails (the
  connection is closed) and says so.
- Catch-up: ``attach_session {since}`` replays the ring's records above ``since`` before its
  response, then the connection is live: nothing is missed and nothing comes twice.
- What a replay cannot mend: the ring no longer held every record (``complete: false``), or the
  server is another process (a restart: another ``sessionId``, or, between runs, its
  ``messageCount`` is not the mirror's). Then the mirror is read again in full and the
  transcript redrawn.
- Giving up: ``closed`` is set with ``lost_reason``; ``pi attach`` ends with 1 and says why.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from pi_rpc.modes.attach.remote_session import RemoteSession

STATUS_KEY = "pi-attach"
FIRST_DELAY = 0.25
MAX_DELAY = 4.0


def _status(remote: RemoteSession, text: str | None) -> None:
    remote.dialogs.status(STATUS_KEY, text)


def _notify(remote: RemoteSession, text: str, kind: str = "info") -> None:
    remote.dialogs.in_app(remote.dialogs.notify, text, kind)


async def reconnect(remote: RemoteSession) -> None:
    """Connect again and catch up, or give up (``remote.closed``)."""
    if remote.reconnecting:
        return
    remote.reconnecting = True
    try:
        await _reconnect(remote)
    finally:
        remote.reconnecting = False
    if remote.connection.closed and not remote.closed.is_set():
        await reconnect(remote)  # (dropped again while catching up)


async def _reconnect(remote: RemoteSession) -> None:
    deadline = time.monotonic() + remote.reconnect_seconds
    delay = FIRST_DELAY
    attempt = 0
    failure = "the server closed the connection"
    since = remote.last_seq
    session_id = remote.state.get("sessionId")
    while True:
        attempt += 1
        _status(remote, f"reconnecting to {remote.address} (attempt {attempt})…")
        connection = None
        try:
            connection = await remote.reopen()
            data = await remote.attach(connection, since=since)
            break
        except Exception as exc:  # noqa: BLE001 - refused, unreachable, closed again: retry
            failure = str(exc) or type(exc).__name__
            if connection is not None:
                with anyio.CancelScope(shield=True):
                    await connection.aclose()
        if time.monotonic() + delay > deadline:
            _status(remote, None)
            remote.lost_reason = (
                f"the connection was lost and could not be made again in {remote.reconnect_seconds:g} s ({failure})"
            )
            remote.closed.set()
            return
        await anyio.sleep(delay)
        delay = min(delay * 2, MAX_DELAY)
    replayed = int(data.get("replayed") or 0)
    try:
        await remote.read_state()
        # (while a run goes on, the server may count a message whose message_end is still on
        # its way: the count is compared only between runs, where a restart leaves it)
        mended = (
            bool(data.get("complete", True))
            and remote.state.get("sessionId") == session_id
            and (remote.is_streaming or remote.state.get("messageCount") == len(remote.messages))
        )
        if not mended:
            await remote.refresh()
            await remote.holder.announce_replaced()
    except Exception:  # noqa: BLE001 - dropped again at once: the next record None retries
        return
    remote.reconnects.append({"attempts": attempt, "replayed": replayed, "reread": not mended})
    _status(remote, None)
    how = f"caught up {replayed} event{'s' if replayed != 1 else ''}" if mended else "read the session again"
    _notify(remote, f"Reconnected to {remote.address}: {how}")

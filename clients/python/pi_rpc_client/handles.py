"""Session handle objects (pi_rpc beyond upstream, issue 24): one RPC process hosting many sessions.

``client.open_session(...)`` sends ``open_session`` and returns a :class:`SessionHandle`: an object
with the client's per-session command methods (the ones of :class:`pi_rpc_client.commands._CommandSet`,
bound generically: each command it sends carries ``"handle"``), its own event subscription (the
records whose ``handle`` is its handle) and ``close()`` (``close_session``). Process-wide commands
(``get_protocol_info``, ``set_event_options``, ``get_events``, ``list_open_sessions``) stay on the client.

This module owns the handle object of the sync client, the open_session request and the rule that
says which records belong to a handle; the anyio flavour (``AsyncSessionHandle``) is in ``aio.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .commands import CommandsMixin, Record, Timeout, build_command

if TYPE_CHECKING:
    from .client import EventStream, PromptResult, RpcClient

DEFAULT_HANDLE = "default"


def belongs_to(handle: str) -> Callable[[Record], bool]:
    """The records of one handle: those tagged with it; for ``"default"`` also the untagged ones (the
    server tags the default session's events only after ``set_event_options {handle: true}``)."""
    if handle == DEFAULT_HANDLE:
        return lambda rec: rec.get("handle", DEFAULT_HANDLE) == DEFAULT_HANDLE
    return lambda rec: rec.get("handle") == handle


def open_session_command(
    cwd: str | None,
    session_path: str | None,
    model: str | None,
    thinking_level: str | None,
    no_session: bool | None,
) -> Record:
    """The ``open_session`` record (absent fields left out)."""
    return build_command(
        "open_session",
        {
            "cwd": cwd,
            "sessionPath": session_path,
            "model": model,
            "thinkingLevel": thinking_level,
            "noSession": no_session,
        },
    )


class SessionHandle(CommandsMixin):
    """One session hosted by the client's process, addressed by its ``handle``.

    Has every per-session command method of :class:`pi_rpc_client.RpcClient` (``prompt``, ``get_state``,
    ``new_session``, ``abort``, ...) plus :meth:`prompt_and_wait`, :meth:`events`, :meth:`on_event` and
    :meth:`request`, all bound to the handle. ``session_id``/``session_file``/``cwd`` are what
    ``open_session`` answered; ``new_session``, ``switch_session`` and ``fork`` give the handle another
    session (ask ``get_state()`` for the current one). ``close()`` (or leaving ``with``) closes it.
    """

    def __init__(self, client: "RpcClient", info: Record) -> None:
        self.client = client
        self.handle: str = str(info["handle"])
        self.session_id: str | None = info.get("sessionId")
        self.session_file: str | None = info.get("sessionFile")
        self.cwd: str | None = info.get("cwd")
        self.closed = False

    def __repr__(self) -> str:
        return f"SessionHandle({self.handle!r}, session_id={self.session_id!r}{', closed' if self.closed else ''})"

    @property
    def default_timeout(self) -> float | None:
        return self.client.default_timeout

    # -- commands: the client's, with ``handle`` added -------------------------------------------
    def request(self, command: Record, timeout: Timeout = ..., *, check: bool = True) -> Record:
        """:meth:`RpcClient.request` for this handle (``handle`` set unless the record has one)."""
        return self.client.request({**command, "handle": command.get("handle", self.handle)}, timeout, check=check)

    def _call(self, type_: str, timeout: Timeout = ..., **fields: Any) -> Any:
        return self.request(build_command(type_, fields), timeout).get("data")

    # -- events: this handle's only --------------------------------------------------------------
    def events(self) -> "EventStream":
        """Subscribe to this handle's records from now on (see :meth:`RpcClient.events`)."""
        return self.client.events(handle=self.handle)

    def on_event(self, listener: Callable[[Record], None]) -> Callable[[], None]:
        """``listener(record)`` for each of this handle's records (reader thread); returns unsubscribe."""
        return self.client.on_event(listener, handle=self.handle)

    def prompt_and_wait(
        self,
        message: str,
        images: list[Record] | None = None,
        *,
        streaming_behavior: str | None = None,
        timeout: Timeout = ...,
    ) -> "PromptResult":
        """:meth:`RpcClient.prompt_and_wait` in this session: its events until its ``agent_settled``."""
        return self.client._run_prompt(
            self.events, self.request, message, images, streaming_behavior=streaming_behavior, timeout=timeout
        )

    # -- lifetime ----------------------------------------------------------------------------------
    def close(self, *, timeout: Timeout = ...) -> None:
        """``close_session``: its work is aborted, its file flushed and released; the handle is then
        unknown to the server. Closing twice is a no-op; ``"default"`` cannot be closed."""
        if self.closed:
            return
        self.client.close_session(self.handle, timeout=timeout)
        self.closed = True

    def __enter__(self) -> "SessionHandle":
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.closed and self.client.returncode is None:
            self.close()


__all__ = ["DEFAULT_HANDLE", "SessionHandle", "belongs_to", "open_session_command"]

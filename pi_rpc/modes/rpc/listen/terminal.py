"""``pi --listen <address>`` in the interactive mode: the session on screen, served to clients.

The terminal's ``AgentSession`` is the ``"default"`` session of a ``ListenServer`` running in
the same event loop as the Textual app. Both subscribe to the one session: the app renders its
events, the server publishes them (``hub``) to every connection attached to ``"default"``, so an
editor plugin and the person at the terminal see the same run; a client's ``prompt``, ``steer``,
``abort``, ``set_model`` … act on that session and the screen shows what they cause.

The session stays the terminal's: its task group, name, extension binding (``ctx.ui`` dialogs
are the terminal's) and lifetime. When the app quits the server stops first (connections are
closed; the sessions clients opened with ``open_session`` are shut down as at any server's
exit), then the interactive mode shuts its session down as it always does.

The listeners are checked and bound before the app starts: a bad flag, a taken port or a live
socket refuses startup with the same message as ``pi --mode rpc --listen``. The bound addresses
(and the token file) are shown in the conversation rather than written on stderr, which is the
terminal's screen while the app runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from pi_rpc.modes.rpc.backend import ServerHandle
from pi_rpc.modes.rpc.runtime_backend import RuntimeBackend
from pi_rpc.modes.rpc.session_host import HostedSession, SessionHost
from pi_rpc.modes.wire.protocol.names import DEFAULT_HANDLE

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs
    from pi_rpc.modes.rpc.listen.server import ListenServer
    from pi_rpc.runtime.session import AgentSession


class TerminalSessionBackend(RuntimeBackend):
    """The commands of the terminal's session for connections; the session stays the app's."""

    async def start(self, server: ServerHandle, *, warm_up: bool = True, own_session: bool = True) -> None:
        await super().start(server, warm_up=False, own_session=False)

    async def aclose(self) -> None:
        # The interactive mode shuts its session down itself, after the server is gone.
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None


class TerminalSessionHost(SessionHost):
    """``SessionHost`` whose ``"default"`` is the terminal's session: at the server's exit only
    the sessions clients opened are shut down."""

    async def _shut(self, slot: HostedSession) -> None:
        if slot.handle == DEFAULT_HANDLE:
            await slot.backend.aclose()
            return
        await super()._shut(slot)


class TerminalListener:
    """The listeners of an interactive ``pi --listen``: ``prepare`` (flags, token, TLS: a
    ``StartupError``), ``bind`` before the app starts, ``serve`` alongside it, ``stop`` after."""

    def __init__(self, args: CliArgs, session: AgentSession) -> None:
        from pi_rpc.modes.rpc.listen.server import ListenServer, listen_setup

        addresses, token, token_path, context = listen_setup(args)
        backend = TerminalSessionHost(TerminalSessionBackend(session), args, max_sessions=args.max_sessions)
        self.announced: dict[str, object] | None = None
        self.server: ListenServer = ListenServer(
            backend,
            args,
            output_fd=-1,  # (no --stdio: stdin and stdout are the terminal's)
            addresses=addresses,
            token=token,
            token_path=token_path,
            ssl_context=context,
            handle_signals=False,  # the interactive mode's own (SIGTERM/SIGHUP quit the app)
            announce=self._announce,
        )
        self.shown: list[str] = []
        self._served = False
        self._done = anyio.Event()
        self._stopping = False

    def _announce(self, line: dict[str, object]) -> None:
        self.announced = line

    async def bind(self) -> list[str]:
        """Bind every listener (``StartupError``); the addresses as bound."""
        self.shown = await self.server.bind()
        return self.shown

    def notice(self) -> str:
        """What the conversation shows: where clients connect, and the token's file."""
        text = "Serving this session to RPC clients on " + ", ".join(self.shown)
        if self.server.token_path is not None:
            text += f" (token in {self.server.token_path})"
        return text

    async def serve(self) -> None:
        if self._stopping:  # (the app quit before this task started)
            return
        self._served = True
        try:
            await self.server.serve()
        finally:
            self._done.set()

    async def stop(self) -> None:
        """Close the listeners and the connections and wait for the server to end (the
        terminal's session goes on until the app's shutdown)."""
        self._stopping = True
        self.server.request_shutdown()
        if self._served:
            await self._done.wait()
        else:
            await self.server.unbind()

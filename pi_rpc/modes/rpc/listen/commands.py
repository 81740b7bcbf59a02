"""The commands a --listen connection answers itself, over the process's handler table:

- ``authenticate``: again after the first time (a wrong token closes the connection);
- ``attach_session {handle, since?}`` / ``detach_session {handle}``;
- ``set_event_options`` / ``get_events`` / ``get_protocol_info``: the connection's own options,
  the process's ring and listeners;
- ``open_session`` (the opener is attached: ``hub.session_events``), ``list_open_sessions``
  (``attached`` per session), ``close_session`` and ``extension_ui_response`` (the first answer
  to a dialog wins) wrap the session host's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from pi_rpc.modes.rpc.event_options import ERR_SEQ_OFF
from pi_rpc.modes.rpc.listen.auth import token_matches
from pi_rpc.modes.rpc.protocol_info import protocol_info
from pi_rpc.modes.rpc.registry import CommandContext, CommandError, Handler, HandlerRegistry
from pi_rpc.modes.wire.protocol.names import EXTENSION_UI_RESPONSE
from pi_rpc.modes.wire.protocol.table import COMMANDS, HOST, STREAM

if TYPE_CHECKING:
    from pi_rpc.modes.rpc.listen.connection import Connection
    from pi_rpc.modes.rpc.listen.server import ListenServer


class ConnectionRegistry(HandlerRegistry):
    """The process's handlers with this connection's own in front."""

    def __init__(self, base: HandlerRegistry, own: dict[str, Handler]) -> None:
        super().__init__()
        self._base = base
        self._handlers = own

    def get(self, command_type: str) -> Handler | None:
        return self._handlers.get(command_type) or self._base.get(command_type)

    def __contains__(self, command_type: object) -> bool:
        return command_type in self._handlers or command_type in self._base


class ConnectionCommands:
    def __init__(self, server: ListenServer, connection: Connection) -> None:
        self.server = server
        self.connection = connection
        self.hub = server.hub

    def handlers(self) -> dict[str, Handler]:
        base = self.server.registry
        self._open = base.get("open_session")
        self._close = base.get("close_session")
        self._list = base.get("list_open_sessions")
        self._ui_response = base.get(EXTENSION_UI_RESPONSE)
        # The command table's stream rows, and the session host's commands this connection
        # wraps (those it has a ``cmd_<name>`` for).
        return {
            spec.name: getattr(self, f"cmd_{spec.name}")
            for spec in COMMANDS
            if spec.by == STREAM or (spec.by == HOST and hasattr(self, f"cmd_{spec.name}"))
        }

    # ------------------------------------------------------------------ connection commands

    async def cmd_authenticate(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        if self.server.token is None or token_matches(self.server.token, cmd.get("token")):
            return None
        # As a wrong first record: no second chance on this connection.
        ctx.extras["after_response"] = self.connection.abort_soon
        raise CommandError("Authentication failed: wrong token")

    async def cmd_attach_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        since = cmd.get("since")
        if since is not None and since < 0:
            raise CommandError(
                f'Invalid command "attach_session": field "since": expected a non-negative integer, got {since}'
            )
        handle = cmd["handle"]
        if not self.server.known_handle(handle):  # closed since the dispatcher looked
            from pi_rpc.modes.rpc.dispatch import unknown_handle_error

            raise CommandError(unknown_handle_error(handle))
        replayed, complete = self.hub.attach(self.connection, handle, since)
        return {"replayed": replayed, "complete": complete}

    async def cmd_detach_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        self.hub.detach(self.connection, cmd["handle"])
        return None

    async def cmd_set_event_options(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        connection = self.connection
        if cmd.get("seq") is not None:
            connection.seq_on = cmd["seq"]
        if cmd.get("runId") is not None:
            connection.run_id_on = cmd["runId"]
        if cmd.get("handle") is not None:
            connection.tag_default = cmd["handle"]
        data: dict[str, object] = {"seq": connection.seq_on, "runId": connection.run_id_on}
        if cmd.get("handle") is not None or connection.tag_default:
            data["handle"] = connection.tag_default
        return data

    async def cmd_get_events(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        since = cmd["sinceSeq"]
        if since < 0:
            raise CommandError(
                f'Invalid command "get_events": field "sinceSeq": expected a non-negative integer, got {since}'
            )
        connection = self.connection
        if not connection.seq_on:
            raise CommandError(ERR_SEQ_OFF)
        found, truncated = self.hub.since(connection.attached, since)
        events = [orjson.Fragment(connection.render(published)[:-1]) for published in found]
        return {"events": events, "lastSeq": found[-1].seq if found else since, "truncated": truncated}

    async def cmd_get_protocol_info(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        server = self.server
        return protocol_info(
            max_frame_bytes=server.max_frame_bytes,
            options=None,
            max_sessions=server.max_sessions,
            features=self.connection.features,
            event_buffer=self.hub.ring_records,
            transports=server.transport_kinds,
        )

    # ------------------------------------------------------------------ the session host's, wrapped

    async def cmd_open_session(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        assert self._open is not None
        # (the opener is attached when the session's stream is made: CURRENT_CONNECTION)
        return await self._open(ctx, cmd)

    async def cmd_close_session(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        assert self._close is not None
        return await self._close(ctx, cmd)

    async def cmd_list_open_sessions(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        assert self._list is not None
        data = await self._list(ctx, cmd)
        for summary in data["sessions"]:
            summary["attached"] = self.hub.attached_count(summary["handle"])
        return data

    async def cmd_extension_ui_response(self, ctx: CommandContext, cmd: dict[str, object]) -> object:
        self.hub.answering(cmd.get("id"), self.connection)
        if self._ui_response is not None:
            await self._ui_response(ctx, cmd)
        return None

"""``get_protocol_info`` (feature detection without parsing ``--version``), and the commands the
stdio server answers itself (``StreamCommands``: the command table's rows answered by the
stream: ``get_protocol_info``, ``set_event_options`` and ``get_events`` over ``event_options``,
and the --listen connection commands, which over stdio have nothing to do).

Everything comes from memory: the command table (so a command added there shows up here by
itself), the protocol's event names, the process's limits and the current ``set_event_options``
values. No pydantic, no disk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from pi_rpc import __version__
from pi_rpc.config.cli_args import DEFAULT_MAX_SESSIONS
from pi_rpc.errors import CommandError
from pi_rpc.modes.rpc.event_options import ERR_SEQ_OFF, EventOptions
from pi_rpc.modes.wire.protocol.names import (
    OUTBOUND_EVENT_TYPES,
    PROTOCOL_VERSION,
    UPSTREAM_COMPAT,
)
from pi_rpc.modes.wire.protocol.table import COMMANDS, STREAM

if TYPE_CHECKING:
    from pi_rpc.modes.rpc.registry import CommandContext, HandlerRegistry
    from pi_rpc.modes.wire.output import RecordWriter


def accepted_commands() -> list[str]:
    """Every command type the process accepts, the records that get no response
    (``extension_ui_response``, ``host_tool_result``, ``host_tool_update``) included: the
    command table's rows, in its order."""
    return [spec.name for spec in COMMANDS]


def protocol_info(
    *,
    max_frame_bytes: int,
    options: EventOptions | None,
    max_sessions: int,
    features: dict[str, bool] | None = None,
    event_buffer: int | None = None,
    transports: tuple[str, ...] = ("stdio",),
) -> dict[str, Any]:
    """The ``get_protocol_info`` data; a --listen connection passes its own ``features`` and the
    process's ring size instead of the stdio ``options``."""
    return {
        "name": "pi_rpc",
        "version": __version__,
        "protocolVersion": PROTOCOL_VERSION,
        "upstreamCompat": UPSTREAM_COMPAT,
        "commands": accepted_commands(),
        "events": list(dict.fromkeys(OUTBOUND_EVENT_TYPES)),
        "limits": {
            "maxFrameBytes": max_frame_bytes,
            "eventBuffer": options.ring.max_records if options is not None else event_buffer,
            "maxSessions": max_sessions,
        },
        "features": options.features if options is not None else features,
        "transports": list(transports),
    }


class StreamCommands:
    """The commands the stdio server answers itself (the command table's ``StreamCommands``
    rows; a --listen connection answers them with its ``ConnectionCommands``)."""

    def __init__(self, options: EventOptions, *, max_frame_bytes: int, max_sessions: int) -> None:
        self.options = options
        self.max_frame_bytes = max_frame_bytes
        self.max_sessions = max_sessions

    async def cmd_get_protocol_info(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return protocol_info(max_frame_bytes=self.max_frame_bytes, options=self.options, max_sessions=self.max_sessions)

    async def cmd_set_event_options(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return await self.options.update(seq=cmd.get("seq"), run_id=cmd.get("runId"), handle=cmd.get("handle"))

    async def cmd_get_events(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        since = cmd["sinceSeq"]
        if since < 0:
            raise CommandError(
                f'Invalid command "get_events": field "sinceSeq": expected a non-negative integer, got {since}'
            )
        if not self.options.seq:
            raise CommandError(ERR_SEQ_OFF)
        found, truncated = self.options.ring.since(since)
        # Each event is spliced in as the exact bytes that were written (without the LF).
        events = [orjson.Fragment(line[:-1]) for _, line in found]
        return {"events": events, "lastSeq": found[-1][0] if found else since, "truncated": truncated}

    async def cmd_authenticate(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        """stdio is the parent's own pipe: there is nothing to authenticate (the token is not read)."""
        return None

    async def cmd_attach_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        raise _listen_only(ctx)

    async def cmd_detach_session(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        raise _listen_only(ctx)


def _listen_only(ctx: CommandContext) -> CommandError:
    return CommandError(
        f"{ctx.command_type} is for connections to a --listen server: over stdio the events of every "
        "open session are written already"
    )


def register_stream_commands(
    registry: HandlerRegistry,
    writer: RecordWriter,
    *,
    max_frame_bytes: int,
    event_buffer: int,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
) -> EventOptions:
    """Bind ``set_event_options``/``get_events`` to ``writer`` and register the server's own
    commands (the table's ``StreamCommands`` rows); returns the options object (the backend
    reads ``runId`` from it)."""
    options = EventOptions(writer, ring_records=event_buffer)
    own = StreamCommands(options, max_frame_bytes=max_frame_bytes, max_sessions=max_sessions)
    for spec in COMMANDS:
        if spec.by == STREAM:
            registry.register(spec.name, getattr(own, f"cmd_{spec.name}"))
    return options

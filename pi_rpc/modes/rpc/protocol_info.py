"""``get_protocol_info`` (feature detection without parsing ``--version``), and the
registration of the commands the RPC server answers itself: ``get_protocol_info``,
``set_event_options`` and ``get_events`` (``event_options``).

Everything comes from memory: the protocol's names module (so a command or event type added
there shows up here by itself), the process's limits and the current ``set_event_options``
values. No pydantic, no disk.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_rpc import __version__
from pi_rpc.config.cli_args import DEFAULT_MAX_SESSIONS
from pi_rpc.modes.rpc.event_options import EventOptions
from pi_rpc.modes.wire.protocol.names import (
    ACCEPTED_COMMAND_TYPES,
    EXTENSION_UI_RESPONSE,
    HOST_TOOL_RESULT,
    HOST_TOOL_UPDATE,
    OUTBOUND_EVENT_TYPES,
    PROTOCOL_VERSION,
    UPSTREAM_COMPAT,
)

if TYPE_CHECKING:
    from pi_rpc.modes.rpc.registry import CommandContext, HandlerRegistry
    from pi_rpc.modes.wire.output import RecordWriter


def accepted_commands() -> list[str]:
    """Every command type the process accepts, the records that get no response
    (``extension_ui_response``, ``host_tool_result``, ``host_tool_update``) included, once each."""
    return list(dict.fromkeys((*ACCEPTED_COMMAND_TYPES, EXTENSION_UI_RESPONSE, HOST_TOOL_RESULT, HOST_TOOL_UPDATE)))


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


def register_stream_commands(
    registry: HandlerRegistry,
    writer: RecordWriter,
    *,
    max_frame_bytes: int,
    event_buffer: int,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
) -> EventOptions:
    """Bind ``set_event_options``/``get_events`` to ``writer`` and register the server's own
    commands; returns the options object (the backend reads ``runId`` from it)."""
    options = EventOptions(writer, ring_records=event_buffer)

    async def get_protocol_info(ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return protocol_info(max_frame_bytes=max_frame_bytes, options=options, max_sessions=max_sessions)

    registry.register("get_protocol_info", get_protocol_info)
    registry.register("set_event_options", options.cmd_set_event_options)
    registry.register("get_events", options.cmd_get_events)
    registry.register("authenticate", _stdio_authenticate)
    registry.register("attach_session", _stdio_attach)
    registry.register("detach_session", _stdio_attach)
    return options


async def _stdio_authenticate(ctx: CommandContext, cmd: dict[str, Any]) -> Any:
    """stdio is the parent's own pipe: there is nothing to authenticate (the token is not read)."""
    return None


async def _stdio_attach(ctx: CommandContext, cmd: dict[str, Any]) -> Any:
    from pi_rpc.errors import CommandError

    raise CommandError(
        f"{ctx.command_type} is for connections to a --listen server: over stdio the events of every "
        "open session are written already"
    )

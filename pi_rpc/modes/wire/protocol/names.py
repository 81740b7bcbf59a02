"""Command and event type names (no pydantic; safe to import at startup). The command names and
sets are derived from the command table (``table``), never written here."""

from __future__ import annotations

from pi_rpc import COMPATIBLE_PI_VERSION
from pi_rpc.modes.wire.protocol.table import (
    BEYOND_UPSTREAM_COMMANDS,
    COMMANDS,
    UNANSWERED_RECORDS,
    UPSTREAM_COMMANDS,
)

# Command names, derived from the command table (``table``: one row per command).
# The 33 commands of pi 1.6 RPC, in upstream's table order.
COMMAND_TYPES: tuple[str, ...] = tuple(spec.name for spec in UPSTREAM_COMMANDS)

# Commands beyond upstream 1.6 (protocol/README.md "Beyond upstream"). A client that never
# sends them sees exactly upstream's protocol.
BEYOND_UPSTREAM_COMMAND_TYPES: tuple[str, ...] = tuple(spec.name for spec in BEYOND_UPSTREAM_COMMANDS)

# The handle of the process's first session: commands without a ``handle`` go to it.
DEFAULT_HANDLE = "default"

# Every command type that gets a response.
ACCEPTED_COMMAND_TYPES: tuple[str, ...] = COMMAND_TYPES + BEYOND_UPSTREAM_COMMAND_TYPES

# ``get_protocol_info.protocolVersion``: bump whenever the set of commands and events beyond
# upstream, or one of their shapes, changes.
PROTOCOL_VERSION = 4
# The upstream release line this protocol is compatible with ("1.6" for pi 1.6.x).
UPSTREAM_COMPAT = ".".join(COMPATIBLE_PI_VERSION.split(".")[:2])

EXTENSION_UI_RESPONSE = "extension_ui_response"
EXTENSION_UI_REQUEST = "extension_ui_request"
# --listen: a dialog another connection answered (or that timed out) is no longer open.
EXTENSION_UI_RESOLVED = "extension_ui_resolved"

# The transports a process can serve the protocol on (get_protocol_info.transports).
TRANSPORT_KINDS: tuple[str, ...] = ("stdio", "unix", "tcp", "ws")

# The client's answers to a host_tool_request: records like extension_ui_response, never
# answered with a response.
HOST_TOOL_RESULT = "host_tool_result"
HOST_TOOL_UPDATE = "host_tool_update"
HOST_TOOL_REQUEST = "host_tool_request"
HOST_TOOL_CANCELLED = "host_tool_cancelled"
# Every client record that gets no response.
UNANSWERED_RECORD_TYPES: frozenset[str] = frozenset(spec.name for spec in UNANSWERED_RECORDS)

# Commands whose only fields are ``id`` and ``type``: nothing to validate.
FIELDLESS_COMMANDS: frozenset[str] = frozenset(spec.name for spec in COMMANDS if spec.answered and spec.request is None)

# Control commands: must never wait behind other work (every command already runs in its
# own task; this set documents the guarantee and is asserted by tests).
CONTROL_COMMANDS: frozenset[str] = frozenset(spec.name for spec in COMMANDS if spec.control)

# Commands whose ``handle`` field is not the session address: an option (set_event_options) or
# the session the host acts on (close_session, which names an unknown one itself).
OWN_HANDLE_COMMANDS: frozenset[str] = frozenset(spec.name for spec in COMMANDS if spec.own_handle)

# The 24 session events of pi 1.6 (plus ``extension_ui_request``, a separate family).
EVENT_TYPES: tuple[str, ...] = (
    "agent_start",
    "agent_end",
    "agent_settled",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "queue_update",
    "compaction_start",
    "compaction_end",
    "auto_retry_start",
    "auto_retry_end",
    "summarization_retry_scheduled",
    "summarization_retry_attempt_start",
    "summarization_retry_finished",
    "entry_appended",
    "session_info_changed",
    "thinking_level_changed",
    "bash_execution_update",
    "extension_error",
)

# Events pi_rpc adds to upstream's 24 (§6 of protocol/README.md). Each reports a fault that
# upstream does not survive, so a client of upstream sees them only when that fault happens.
OUR_EVENT_TYPES: tuple[str, ...] = (
    "session_write_error",
    "session_write_resumed",
)

# Every record type written on stdout other than ``response``: the session events and the
# extension UI requests (``get_protocol_info.events``).
OUTBOUND_EVENT_TYPES: tuple[str, ...] = (
    EVENT_TYPES
    + OUR_EVENT_TYPES
    + (EXTENSION_UI_REQUEST, EXTENSION_UI_RESOLVED, HOST_TOOL_REQUEST, HOST_TOOL_CANCELLED)
)

# Agent-loop events are written with backpressure; the rest are queued without waiting.
BLOCKING_EVENT_TYPES: frozenset[str] = frozenset(
    {
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
    }
)

THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")

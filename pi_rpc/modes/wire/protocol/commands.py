"""The 33 commands (client -> pi), the commands beyond upstream (protocol/README.md "Beyond
upstream") and ``extension_ui_response``.

Field types follow upstream's declared types, with two deliberate leniencies that mirror what
upstream observably accepts (so clients recorded against it keep working):
``set_thinking_level.level`` and ``set_*_mode.mode`` take any string (upstream clamps the level
and stores the mode verbatim), and ``prompt.streamingBehavior`` takes any string (upstream
treats any value other than ``followUp`` as ``steer``).

The command table (``table``) names each command's model; a command without fields of its own
has no class here: its model is generated from its row (``GetStateCommand`` for ``get_state``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, create_model

from pi_rpc.modes.wire.protocol.base import WireModel
from pi_rpc.modes.wire.protocol.host_tools import HostToolDefinition, RunLimits, ToolContentBlock
from pi_rpc.modes.wire.protocol.shapes import ImageContent
from pi_rpc.modes.wire.protocol.table import (
    BEYOND_UPSTREAM_COMMANDS,
    COMMANDS,
    UPSTREAM_COMMANDS,
    CommandSpec,
    request_model_name,
)


class CommandBase(WireModel):
    id: Any = Field(
        default=None,
        description="Optional correlation id: any JSON value, echoed verbatim in the response.",
    )
    handle: str | None = Field(
        default=None,
        description='The hosted session this command addresses (open_session); absent: "default".',
    )


class PromptCommand(CommandBase):
    type: Literal["prompt"]
    message: str
    images: list[ImageContent] | None = None
    streaming_behavior: str | None = Field(
        default=None,
        description='"steer" or "followUp"; read only while a run is active.',
    )
    limits: RunLimits | None = Field(default=None, description="Bounds of the run it starts (over --max-* defaults).")
    output_schema: dict[str, Any] | None = Field(
        default=None, description="The final answer must be JSON valid against this schema (agent_end.output)."
    )


class SteerCommand(CommandBase):
    type: Literal["steer"]
    message: str
    images: list[ImageContent] | None = None
    limits: RunLimits | None = Field(default=None, description="New limits for the running run.")


class FollowUpCommand(CommandBase):
    type: Literal["follow_up"]
    message: str
    images: list[ImageContent] | None = None
    limits: RunLimits | None = Field(default=None, description="New limits for the running run.")


class NewSessionCommand(CommandBase):
    type: Literal["new_session"]
    parent_session: str | None = None


class SetModelCommand(CommandBase):
    type: Literal["set_model"]
    provider: str
    model_id: str


class SetThinkingLevelCommand(CommandBase):
    type: Literal["set_thinking_level"]
    level: str = Field(description="A thinking level; unknown strings clamp to the model's first level.")


class SetSteeringModeCommand(CommandBase):
    type: Literal["set_steering_mode"]
    mode: str = Field(description='"all" or "one-at-a-time" (stored verbatim).')


class SetFollowUpModeCommand(CommandBase):
    type: Literal["set_follow_up_mode"]
    mode: str = Field(description='"all" or "one-at-a-time" (stored verbatim).')


class CompactCommand(CommandBase):
    type: Literal["compact"]
    custom_instructions: str | None = None


class SetAutoCompactionCommand(CommandBase):
    type: Literal["set_auto_compaction"]
    enabled: bool


class SetAutoRetryCommand(CommandBase):
    type: Literal["set_auto_retry"]
    enabled: bool


class BashCommand(CommandBase):
    type: Literal["bash"]
    command: str
    exclude_from_context: bool | None = None


class ExportHtmlCommand(CommandBase):
    type: Literal["export_html"]
    output_path: str | None = None


class SwitchSessionCommand(CommandBase):
    type: Literal["switch_session"]
    session_path: str


class ForkCommand(CommandBase):
    type: Literal["fork"]
    # Optional on the wire: a missing or unknown id is answered with upstream's
    # "Invalid entry ID for forking".
    entry_id: str | None = None
    # Our extension (upstream's runtime has it; its RPC does not): omitted means "before".
    position: Literal["before", "at"] | None = None


class GetEntriesCommand(CommandBase):
    type: Literal["get_entries"]
    since: str | None = None


class SetSessionNameCommand(CommandBase):
    type: Literal["set_session_name"]
    name: str


# ---------------------------------------------------------------- beyond upstream 1.6


class SetEventOptionsCommand(CommandBase):
    type: Literal["set_event_options"]
    seq: bool | None = Field(default=None, description="Number every stdout record; left out: unchanged.")
    run_id: bool | None = Field(default=None, description="Tag the events of each run; left out: unchanged.")
    handle: bool | None = Field(  # type: ignore[assignment]  # here an option, not the address
        default=None,
        description='Tag the "default" session\'s events with "handle" too; left out: unchanged.',
    )


class GetEventsCommand(CommandBase):
    type: Literal["get_events"]
    since_seq: int = Field(description="Replay the events numbered above this (0: all that are kept).")


class ListSessionsCommand(CommandBase):
    type: Literal["list_sessions"]
    scope: Literal["cwd", "all"] | None = Field(default=None, description='"cwd" (default) or "all".')
    limit: int | None = Field(default=None, description="At most this many sessions (positive).")
    query: str | None = Field(
        default=None, description="Case-insensitive substring of the name or of a user/assistant message."
    )


class RenameSessionCommand(CommandBase):
    type: Literal["rename_session"]
    session_path: str
    name: str


class DeleteSessionCommand(CommandBase):
    type: Literal["delete_session"]
    session_path: str


class NavigateTreeCommand(CommandBase):
    type: Literal["navigate_tree"]
    target_id: str
    summarize: bool | None = None
    custom_instructions: str | None = None


class SetLabelCommand(CommandBase):
    type: Literal["set_label"]
    entry_id: str
    label: str | None = Field(description='The label; null or "" clears it.')


class OpenSessionCommand(CommandBase):
    type: Literal["open_session"]
    cwd: str | None = Field(default=None, description="Its working directory (default: the process's).")
    session_path: str | None = Field(default=None, description="Open this session file instead of a new one.")
    model: str | None = Field(default=None, description='"provider/id" (default: as the first session).')
    thinking_level: str | None = None
    no_session: bool | None = Field(default=None, description="In memory only, no session file.")


class CloseSessionCommand(CommandBase):
    type: Literal["close_session"]
    handle: str = Field(description='The session to close (never "default").')


class GetAuthStatusCommand(CommandBase):
    type: Literal["get_auth_status"]
    provider: str | None = Field(default=None, description="Only this provider; left out: every known provider.")


class AuthLoginCommand(CommandBase):
    type: Literal["auth_login"]
    provider: str
    method: str | None = Field(
        default=None,
        description='"oauth" (default when the provider has an account sign-in), "api_key", or a sign-in '
        'method id ("browser", "copy_code") that answers the method choice.',
    )


class AuthLogoutCommand(CommandBase):
    type: Literal["auth_logout"]
    provider: str


class SetScopedModelsCommand(CommandBase):
    type: Literal["set_scoped_models"]
    models: list[str] = Field(
        description='The models model cycling goes through, as "provider/id" keys of get_available_models; '
        "empty: every available model."
    )
    save: bool | None = Field(
        default=None, description="Also keep the scope in settings.json (enabledModels), as /scoped-models' Save."
    )


class SetHostToolsCommand(CommandBase):
    type: Literal["set_host_tools"]
    tools: list[HostToolDefinition] = Field(description="Replaces the client's tools of the session.")


class SetActiveToolsCommand(CommandBase):
    type: Literal["set_active_tools"]
    names: list[str] = Field(description="Exactly these tools are active; an unknown name refuses the command.")


class HostToolResult(CommandBase):
    """Answer to a ``host_tool_request``; never gets a response."""

    type: Literal["host_tool_result"]
    id: str = Field(description="The request's id.")
    content: list[ToolContentBlock]
    is_error: bool | None = None
    details: Any = None


class HostToolUpdate(CommandBase):
    """Progress of a host tool call (a ``tool_execution_update``); never gets a response."""

    type: Literal["host_tool_update"]
    id: str = Field(description="The request's id.")
    content: list[ToolContentBlock]
    details: Any = None


class AuthenticateCommand(CommandBase):
    type: Literal["authenticate"]
    token: str = Field(description="The --listen bearer token (first record of a TCP/WebSocket connection).")


class AttachSessionCommand(CommandBase):
    type: Literal["attach_session"]
    handle: str = Field(description="The open session whose events this connection receives from now on.")
    since: int | None = Field(
        default=None,
        ge=0,
        description="Replay the session's events numbered above this seq from the event ring first.",
    )


class DetachSessionCommand(CommandBase):
    type: Literal["detach_session"]
    handle: str = Field(description="The session whose events this connection stops receiving.")


class ExtensionUiResponse(CommandBase):
    """Answer to an ``extension_ui_request`` dialog; never gets a response."""

    type: Literal["extension_ui_response"]
    value: str | None = None
    confirmed: bool | None = None
    cancelled: bool | None = None


def _fieldless(name: str, class_name: str) -> type[CommandBase]:
    """The model of a command without fields of its own (``id``, ``type``, ``handle``)."""
    kind: Any = Literal.__getitem__(name)  # (a Literal of a value known at run time)
    model = create_model(class_name, __base__=CommandBase, __module__=__name__, type=(kind, ...))
    globals()[class_name] = model  # (``commands.GetStateCommand`` as for the declared ones)
    return model


def _request_model(spec: CommandSpec) -> type[CommandBase]:
    class_name = request_model_name(spec)
    if spec.request is None:
        return _fieldless(spec.name, class_name)
    model: object = globals()[class_name]
    assert isinstance(model, type) and issubclass(model, CommandBase), class_name
    return model


# The request model of every row of the command table, in its order.
INBOUND_MODELS: dict[str, type[CommandBase]] = {spec.name: _request_model(spec) for spec in COMMANDS}

COMMAND_MODELS: dict[str, type[CommandBase]] = {spec.name: INBOUND_MODELS[spec.name] for spec in UPSTREAM_COMMANDS}

BEYOND_UPSTREAM_COMMAND_MODELS: dict[str, type[CommandBase]] = {
    spec.name: INBOUND_MODELS[spec.name] for spec in BEYOND_UPSTREAM_COMMANDS
}

# Every command this implementation accepts (validation, schema).
ALL_COMMAND_MODELS: dict[str, type[CommandBase]] = {**COMMAND_MODELS, **BEYOND_UPSTREAM_COMMAND_MODELS}

Command = Annotated[  # type: ignore[valid-type]  # union built at runtime from the table
    Union[tuple(ALL_COMMAND_MODELS.values())],
    Field(discriminator="type"),
]

InboundRecord = Annotated[  # type: ignore[valid-type]  # union built at runtime from the table
    Union[tuple(INBOUND_MODELS.values())],
    Field(discriminator="type"),
]

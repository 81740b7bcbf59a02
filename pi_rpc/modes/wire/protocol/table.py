"""The command table: one row per inbound record type, the one place a command is declared.

A row names the command, its request model (``commands``; ``None``: no fields of its own, the
model is generated), the model of its success ``data`` (``responses``; ``None``: no data key),
and the class whose ``cmd_<name>`` method answers it (``modes.rpc``). Everything else is
derived from the rows: the name tuples of ``names`` (dispatch, ``get_protocol_info``), the
validation (the pydantic models and the fast check below), the JSON Schema export and which
part of the process answers (the stream, the session host or a session's parts).

No pydantic and no import of ``modes.rpc`` here: this module is read at startup on the hot
path, and ``modes.wire`` sits below ``modes.rpc``. Models and handler classes are named by
their class names; ``tests/test_structure.py`` checks that every name resolves, that every
``cmd_*`` method of ``modes.rpc`` is reached from a row, and that no other module keeps a
second list of command names.

Adding a command (protocol/README.md "Adding a command"): append a row, write its handler
``cmd_<name>`` in the class the row names, and its request/data models when it has fields or
data. Nothing else.
"""

from __future__ import annotations

# A fast-check field: (wire key, its type: a type, a tuple of types or a set of allowed
# strings, required). Fields not listed that need deep validation (``images``) always go to
# pydantic (``modes.rpc.validation``).
FastField = tuple[str, type | tuple[type, ...] | frozenset[str], bool]

# The classes whose ``cmd_<name>`` methods answer commands (the values of ``CommandSpec.by``):
#   StreamCommands     the connection's own stream (stdio; --listen: its ConnectionCommands),
#   SessionHost        which sessions the process holds (and routing the unanswered records),
#   RuntimeBackend     one session (the one ``handle`` names) ...
#   CatalogCommands    ... its session-catalog commands,
#   AuthCommands       ... its credential commands,
#   HostToolCommands   ... its client tools,
#   SetupCommands      ... its model-cycling scope and reload.
STREAM = "StreamCommands"
HOST = "SessionHost"
SESSION = "RuntimeBackend"
CATALOG = "CatalogCommands"
AUTH = "AuthCommands"
TOOLS = "HostToolCommands"
SETUP = "SetupCommands"
SESSION_PARTS: tuple[str, ...] = (SESSION, CATALOG, AUTH, TOOLS, SETUP)


class CommandSpec:
    """One command. (A plain class, not a dataclass: the table is built at startup, and a
    dataclass's generated methods cost more than the whole table.)"""

    __slots__ = (
        "name",
        "request",
        "response",
        "by",
        "fast",
        "answered",
        "control",
        "nullable",
        "data_ours",
        "own_handle",
        "touches_session_path",
    )

    def __init__(
        self,
        name: str,
        request: str | None,
        response: str | None,
        by: str = SESSION,
        *,
        fast: tuple[FastField, ...] | None = None,
        answered: bool = True,
        control: bool = False,
        nullable: bool = False,
        data_ours: bool = False,
        own_handle: bool = False,
        touches_session_path: bool = False,
    ) -> None:
        self.name = name
        # Request model class in ``protocol.commands``; None: only ``id``/``type``/``handle``.
        self.request = request
        # Success ``data`` model class in ``protocol.responses``; None: answered without data.
        self.response = response
        # The class whose ``cmd_<name>`` answers it (see above).
        self.by = by
        # Plain-scalar fields checked without pydantic (a hot-path shortcut; optional: a
        # command without it is validated by its model). Must never accept what the model
        # refuses (tests/wire/test_dispatch.py).
        self.fast = fast
        # False: a record that never gets a response (a dialog's or a host tool's answer).
        self.answered = answered
        # Never waits behind other work (documents the guarantee; asserted by tests).
        self.control = control
        # ``data`` may be ``null`` (nothing to cycle).
        self.nullable = nullable
        # Upstream answers it without data, ours with: a response without data is still valid.
        self.data_ours = data_ours
        # Its ``handle`` field is its own (an option, or the session it acts on), not the address.
        self.own_handle = own_handle
        # Opens, renames or removes the session ``sessionPath`` names: refused when another
        # handle has that session open.
        self.touches_session_path = touches_session_path

    def __repr__(self) -> str:
        return f"CommandSpec({self.name!r}, by={self.by!r})"


_c = CommandSpec


# The 33 commands of pi 1.6 RPC, in upstream's table order.
UPSTREAM_COMMANDS: tuple[CommandSpec, ...] = (
    _c("prompt", "PromptCommand", "PromptData", fast=(("message", str, True), ("streamingBehavior", str, False))),
    _c("steer", "SteerCommand", "QueueData", fast=(("message", str, True),)),
    _c("follow_up", "FollowUpCommand", "QueueData", fast=(("message", str, True),)),
    _c("abort", None, "AbortData", control=True, data_ours=True),
    _c("clear_queue", None, "ClearQueueData", control=True),
    _c("new_session", "NewSessionCommand", "CancelledData", fast=(("parentSession", str, False),)),
    _c("get_state", None, "SessionState"),
    _c("set_model", "SetModelCommand", "ModelInfo", fast=(("provider", str, True), ("modelId", str, True))),
    _c("cycle_model", None, "CycleModelData", nullable=True),
    _c("get_available_models", None, "ModelsData"),
    _c("set_thinking_level", "SetThinkingLevelCommand", None, fast=(("level", str, True),)),
    _c("cycle_thinking_level", None, "LevelData", nullable=True),
    _c("get_available_thinking_levels", None, "LevelsData"),
    _c("set_steering_mode", "SetSteeringModeCommand", None, fast=(("mode", str, True),)),
    _c("set_follow_up_mode", "SetFollowUpModeCommand", None, fast=(("mode", str, True),)),
    _c("compact", "CompactCommand", "CompactionResult", fast=(("customInstructions", str, False),)),
    _c("set_auto_compaction", "SetAutoCompactionCommand", None, fast=(("enabled", bool, True),)),
    _c("set_auto_retry", "SetAutoRetryCommand", None, fast=(("enabled", bool, True),)),
    _c("abort_retry", None, None, control=True),
    _c("bash", "BashCommand", "BashResult", fast=(("command", str, True), ("excludeFromContext", bool, False))),
    _c("abort_bash", None, None, control=True),
    _c("get_session_stats", None, "SessionStats"),
    _c("export_html", "ExportHtmlCommand", "PathData", fast=(("outputPath", str, False),)),
    _c(
        "switch_session",
        "SwitchSessionCommand",
        "CancelledData",
        fast=(("sessionPath", str, True),),
        touches_session_path=True,
    ),
    _c("fork", "ForkCommand", "ForkData", fast=(("entryId", str, False),)),
    _c("clone", None, "CancelledData"),
    _c("get_fork_messages", None, "ForkMessagesData"),
    _c("get_entries", "GetEntriesCommand", "EntriesData", fast=(("since", str, False),)),
    _c("get_tree", None, "TreeData"),
    _c("get_last_assistant_text", None, "LastAssistantTextData"),
    _c("set_session_name", "SetSessionNameCommand", None, fast=(("name", str, True),)),
    _c("get_messages", None, "MessagesData"),
    _c("get_commands", None, "CommandsData"),
)

# Commands beyond upstream 1.6 (protocol/README.md "Beyond upstream"). A client that never
# sends them sees exactly upstream's protocol.
BEYOND_UPSTREAM_COMMANDS: tuple[CommandSpec, ...] = (
    _c("get_protocol_info", None, "ProtocolInfoData", STREAM),
    _c(
        "set_event_options",
        "SetEventOptionsCommand",
        "EventOptionsData",
        STREAM,
        fast=(("seq", bool, False), ("runId", bool, False), ("handle", bool, False)),
        own_handle=True,
    ),
    _c("get_events", "GetEventsCommand", "EventsData", STREAM, fast=(("sinceSeq", int, True),)),
    _c(
        "list_sessions",
        "ListSessionsCommand",
        "SessionsData",
        CATALOG,
        fast=(("scope", frozenset({"cwd", "all"}), False), ("limit", int, False), ("query", str, False)),
    ),
    _c(
        "rename_session",
        "RenameSessionCommand",
        None,
        CATALOG,
        fast=(("sessionPath", str, True), ("name", str, True)),
        touches_session_path=True,
    ),
    _c(
        "delete_session",
        "DeleteSessionCommand",
        None,
        CATALOG,
        fast=(("sessionPath", str, True),),
        touches_session_path=True,
    ),
    _c(
        "navigate_tree",
        "NavigateTreeCommand",
        "NavigateTreeData",
        CATALOG,
        fast=(("targetId", str, True), ("summarize", bool, False), ("customInstructions", str, False)),
    ),
    _c(
        "set_label", "SetLabelCommand", None, CATALOG, fast=(("entryId", str, True), ("label", (str, type(None)), True))
    ),
    # Many sessions in one process (protocol/README.md "Session handles").
    _c(
        "open_session",
        "OpenSessionCommand",
        "OpenSessionData",
        HOST,
        fast=(
            ("cwd", str, False),
            ("sessionPath", str, False),
            ("model", str, False),
            ("thinkingLevel", str, False),
            ("noSession", bool, False),
        ),
    ),
    _c(
        "close_session",
        "CloseSessionCommand",
        "CloseSessionData",
        HOST,
        fast=(("handle", str, True),),
        own_handle=True,
    ),
    _c("list_open_sessions", None, "OpenSessionsData", HOST),
    # Credentials: login from an editor (README "Credentials").
    _c("get_auth_status", "GetAuthStatusCommand", "AuthStatusData", AUTH, fast=(("provider", str, False),)),
    _c("auth_login", "AuthLoginCommand", "AuthLoginData", AUTH, fast=(("provider", str, True), ("method", str, False))),
    _c("auth_logout", "AuthLogoutCommand", "AuthLogoutData", AUTH, fast=(("provider", str, True),)),
    # The client's own tools and tool control (protocol/README.md "Host tools").
    _c("set_host_tools", "SetHostToolsCommand", "SetHostToolsData", TOOLS),
    _c("get_tools", None, "ToolsData", TOOLS),
    _c("set_active_tools", "SetActiveToolsCommand", "ActiveToolsData", TOOLS),
    # Clients that come and go (protocol/README.md "Listeners"): a --listen connection's own.
    _c("authenticate", "AuthenticateCommand", None, STREAM, fast=(("token", str, True),)),
    _c(
        "attach_session",
        "AttachSessionCommand",
        "AttachSessionData",
        STREAM,
        fast=(("handle", str, True), ("since", int, False)),
    ),
    _c("detach_session", "DetachSessionCommand", None, STREAM, fast=(("handle", str, True),)),
    # What the interactive /scoped-models and /reload do, for clients such as `pi attach`
    # (protocol/README.md "Model scope and reload").
    _c("get_scoped_models", None, "ScopedModelsData", SETUP),
    _c("set_scoped_models", "SetScopedModelsCommand", "ScopedModelsData", SETUP),
    _c("reload", None, "ReloadData", SETUP),
)

# The client's answers that never get a response: to an ``extension_ui_request`` dialog and
# to a ``host_tool_request``. Routed by their request ``id`` (the session host finds the asker).
UNANSWERED_RECORDS: tuple[CommandSpec, ...] = (
    _c("extension_ui_response", "ExtensionUiResponse", None, HOST, answered=False, control=True),
    _c("host_tool_result", "HostToolResult", None, HOST, answered=False, control=True),
    _c("host_tool_update", "HostToolUpdate", None, HOST, answered=False, control=True),
)

# Every row, in the order get_protocol_info lists them and the schema's union has them.
COMMANDS: tuple[CommandSpec, ...] = UPSTREAM_COMMANDS + BEYOND_UPSTREAM_COMMANDS + UNANSWERED_RECORDS

BY_NAME: dict[str, CommandSpec] = {spec.name: spec for spec in COMMANDS}


def request_model_name(spec: CommandSpec) -> str:
    """The class name of ``spec``'s request model (a generated one for a command without fields:
    ``get_state`` -> ``GetStateCommand``)."""
    if spec.request is not None:
        return spec.request
    return "".join(part.capitalize() for part in spec.name.split("_")) + "Command"

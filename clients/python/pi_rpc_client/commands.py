"""Typed wrappers for the 33 commands of the pi 1.6 RPC protocol and the commands pi_rpc adds beyond it
(one method each, snake_case), shared by
the sync client (``CommandsMixin``) and the async one (``AsyncCommandsMixin``).

Every method takes an optional ``timeout`` (seconds; ``...`` = the client's default) and returns the
response's ``data`` (absent data -> None), reshaped by a small pure function where the command has an
obvious single value. Failures raise RpcCommandError carrying the response.
Field names on the wire stay camelCase; optional fields are omitted when None, never sent as null.

Each command is written once (in ``_CommandSet``), as a method that calls
``self._command(type, timeout, post, **fields)``. The sync client's ``_command`` returns ``post(data)``; the
async client's is a coroutine. The ``_Command`` descriptor hands out the plain method on sync clients and an
``async def`` wrapper (same signature and docstring) on async ones, and tells type checkers the same.

The per-session commands (``_CommandSet``) are also the methods of a session handle object
(:mod:`pi_rpc_client.handles`), whose ``_command`` adds ``"handle"``; the process-wide ones
(``_ProcessCommandSet``: protocol info, event options and replay, the handle commands) are on the
clients only.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Coroutine
from types import EllipsisType
from typing import Any, Concatenate, Generic, Literal, ParamSpec, TypeVar, overload

Record = dict[str, Any]
Timeout = float | None | EllipsisType
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueMode = Literal["all", "one-at-a-time"]
Post = Callable[[Any], Any] | None
P = ParamSpec("P")
R = TypeVar("R")

COMMAND_TYPES: tuple[str, ...] = (
    "prompt",
    "steer",
    "follow_up",
    "abort",
    "clear_queue",
    "new_session",
    "get_state",
    "set_model",
    "cycle_model",
    "get_available_models",
    "set_thinking_level",
    "cycle_thinking_level",
    "get_available_thinking_levels",
    "set_steering_mode",
    "set_follow_up_mode",
    "compact",
    "set_auto_compaction",
    "set_auto_retry",
    "abort_retry",
    "bash",
    "abort_bash",
    "get_session_stats",
    "export_html",
    "switch_session",
    "fork",
    "clone",
    "get_fork_messages",
    "get_entries",
    "get_tree",
    "get_last_assistant_text",
    "set_session_name",
    "get_messages",
    "get_commands",
)


# Commands beyond upstream 1.6 (pi_rpc only; upstream answers "Unknown command: <type>").
BEYOND_UPSTREAM_COMMAND_TYPES: tuple[str, ...] = (
    "get_protocol_info",
    "set_event_options",
    "get_events",
    "list_sessions",
    "rename_session",
    "delete_session",
    "navigate_tree",
    "set_label",
    "get_auth_status",
    "auth_login",
    "auth_logout",
    "set_host_tools",
    "get_tools",
    "set_active_tools",
    "get_scoped_models",
    "set_scoped_models",
    "reload",
)


# Many sessions in one process (pi_rpc, issue 24): ``open_session`` returns a handle object
# (``RpcClient.open_session``); every other command takes an optional ``handle``.
SESSION_HANDLE_COMMAND_TYPES: tuple[str, ...] = ("open_session", "close_session", "list_open_sessions")

# Commands of the process, not of one session: a session handle object does not have them.
PROCESS_COMMAND_TYPES: tuple[str, ...] = ("get_protocol_info", "set_event_options", "get_events")


class _JsonNull:
    """A field value sent as JSON ``null`` (``None`` means "leave the field out")."""

    def __repr__(self) -> str:
        return "JSON_NULL"


JSON_NULL: Any = _JsonNull()


def build_command(type_: str, fields: dict[str, Any]) -> Record:
    """The wire record for a command: ``type`` plus every field that is not None (absent, never null;
    ``JSON_NULL`` for an explicit null)."""
    cmd: Record = {"type": type_}
    cmd.update({k: (None if v is JSON_NULL else v) for k, v in fields.items() if v is not None})
    return cmd


# -- result shapers (pure; applied to the response's ``data``) ---------------------------------------
def _nothing(_data: Any) -> None:
    return None


def _field(key: str) -> Callable[[Any], Any]:
    return lambda data: (data or {}).get(key)


def _str_field(key: str) -> Callable[[Any], str]:
    return lambda data: str((data or {}).get(key))


def _list_field(key: str) -> Callable[[Any], list[Any]]:
    return lambda data: list((data or {}).get(key, []))


_disposition = _str_field("disposition")


def _asyncify(method: Callable[..., Any]) -> Callable[..., Any]:
    # The shared body returns whatever ``self._command`` returns: a coroutine on the async client.
    @functools.wraps(method)
    async def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        return await method(self, *args, **kwargs)

    wrapper.__qualname__ = f"AsyncCommandsMixin.{method.__name__}"
    return wrapper


class _Command(Generic[P, R]):
    """Descriptor around one command method: the method itself on sync clients, a coroutine on async ones."""

    def __init__(self, fn: Callable[Concatenate[Any, P], R]) -> None:
        self._fn = fn
        self._async = _asyncify(fn)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Callable[..., Any]: ...
    @overload
    def __get__(self, obj: "AsyncCommandsMixin", owner: type | None = None) -> Callable[P, Coroutine[Any, Any, R]]: ...
    @overload
    def __get__(self, obj: "CommandsMixin", owner: type | None = None) -> Callable[P, R]: ...

    def __get__(self, obj: Any, owner: type | None = None) -> Callable[..., Any]:
        if obj is None:
            return self._async if owner is not None and issubclass(owner, AsyncCommandsMixin) else self._fn
        return types.MethodType(self._async if isinstance(obj, AsyncCommandsMixin) else self._fn, obj)


class _CommandSet:
    """The 33 commands and the ones beyond upstream, written once; subclasses provide ``_command``."""

    def _command(self, type_: str, timeout: Timeout, post: Post, /, **fields: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    # -- input --------------------------------------------------------------
    @_Command
    def prompt(
        self,
        message: str,
        images: list[Record] | None = None,
        streaming_behavior: Literal["steer", "followUp"] | None = None,
        *,
        limits: Record | None = None,
        output_schema: Record | None = None,
        timeout: Timeout = ...,
    ) -> str:
        """Returns the disposition: "started" | "queued" | "handled". Events follow on the event stream.
        pi_rpc: ``limits`` (``{maxTurns, maxToolCalls, maxOutputTokens, maxCostUsd, timeoutMs}``) bound the
        run (its ``agent_end`` then says which ``limit`` ended it); with ``output_schema`` the final answer must
        be JSON valid against it (``agent_end["output"]``)."""
        return self._command(
            "prompt",
            timeout,
            _disposition,
            message=message,
            images=images,
            streamingBehavior=streaming_behavior,
            limits=limits,
            outputSchema=output_schema,
        )

    @_Command
    def steer(
        self, message: str, images: list[Record] | None = None, *, limits: Record | None = None, timeout: Timeout = ...
    ) -> str:
        return self._command("steer", timeout, _disposition, message=message, images=images, limits=limits)

    @_Command
    def follow_up(
        self, message: str, images: list[Record] | None = None, *, limits: Record | None = None, timeout: Timeout = ...
    ) -> str:
        return self._command("follow_up", timeout, _disposition, message=message, images=images, limits=limits)

    @_Command
    def abort(self, *, timeout: Timeout = ...) -> str | None:
        """Returns after the run settled (the response follows ``agent_settled{aborted:true}``):
        ``"aborted"`` or ``"idle"`` (nothing was running) from pi_rpc, None from upstream pi."""
        return self._command("abort", timeout, _field("outcome"))

    @_Command
    def clear_queue(self, *, timeout: Timeout = ...) -> Record:
        """``{"steering": [...], "followUp": [...]}`` — the texts that were dropped."""
        return self._command("clear_queue", timeout, None)

    # -- session ------------------------------------------------------------
    @_Command
    def new_session(self, parent_session: str | None = None, *, timeout: Timeout = ...) -> Record:
        return self._command("new_session", timeout, None, parentSession=parent_session)

    @_Command
    def get_state(self, *, timeout: Timeout = ...) -> Record:
        return self._command("get_state", timeout, None)

    @_Command
    def switch_session(self, session_path: str, *, timeout: Timeout = ...) -> Record:
        return self._command("switch_session", timeout, None, sessionPath=session_path)

    @_Command
    def fork(self, entry_id: str, *, timeout: Timeout = ...) -> Record:
        """``{"text"?: str, "cancelled": bool}``."""
        return self._command("fork", timeout, None, entryId=entry_id)

    @_Command
    def clone(self, *, timeout: Timeout = ...) -> Record:
        return self._command("clone", timeout, None)

    @_Command
    def get_fork_messages(self, *, timeout: Timeout = ...) -> list[Record]:
        return self._command("get_fork_messages", timeout, _list_field("messages"))

    @_Command
    def get_entries(self, since: str | None = None, *, timeout: Timeout = ...) -> Record:
        """``{"entries": [...], "leafId": str | None}``; ``since`` is an exclusive entry-id cursor."""
        return self._command("get_entries", timeout, None, since=since)

    @_Command
    def get_tree(self, *, timeout: Timeout = ...) -> Record:
        return self._command("get_tree", timeout, None)

    @_Command
    def get_last_assistant_text(self, *, timeout: Timeout = ...) -> str | None:
        return self._command("get_last_assistant_text", timeout, _field("text"))

    @_Command
    def set_session_name(self, name: str, *, timeout: Timeout = ...) -> None:
        return self._command("set_session_name", timeout, _nothing, name=name)

    @_Command
    def get_messages(self, *, timeout: Timeout = ...) -> list[Record]:
        return self._command("get_messages", timeout, _list_field("messages"))

    @_Command
    def get_session_stats(self, *, timeout: Timeout = ...) -> Record:
        return self._command("get_session_stats", timeout, None)

    @_Command
    def export_html(self, output_path: str | None = None, *, timeout: Timeout = ...) -> str:
        return self._command("export_html", timeout, _str_field("path"), outputPath=output_path)

    @_Command
    def get_commands(self, *, timeout: Timeout = ...) -> list[Record]:
        return self._command("get_commands", timeout, _list_field("commands"))

    # -- model / thinking ---------------------------------------------------
    @_Command
    def set_model(self, provider: str, model_id: str, *, timeout: Timeout = ...) -> Record:
        return self._command("set_model", timeout, None, provider=provider, modelId=model_id)

    @_Command
    def cycle_model(self, *, timeout: Timeout = ...) -> Record | None:
        return self._command("cycle_model", timeout, None)

    @_Command
    def get_available_models(self, *, timeout: Timeout = ...) -> list[Record]:
        return self._command("get_available_models", timeout, _list_field("models"))

    @_Command
    def set_thinking_level(self, level: ThinkingLevel | str, *, timeout: Timeout = ...) -> None:
        return self._command("set_thinking_level", timeout, _nothing, level=level)

    @_Command
    def cycle_thinking_level(self, *, timeout: Timeout = ...) -> Record | None:
        return self._command("cycle_thinking_level", timeout, None)

    @_Command
    def get_available_thinking_levels(self, *, timeout: Timeout = ...) -> list[str]:
        return self._command("get_available_thinking_levels", timeout, _list_field("levels"))

    # -- queue modes / compaction / retry -----------------------------------
    @_Command
    def set_steering_mode(self, mode: QueueMode | str, *, timeout: Timeout = ...) -> None:
        return self._command("set_steering_mode", timeout, _nothing, mode=mode)

    @_Command
    def set_follow_up_mode(self, mode: QueueMode | str, *, timeout: Timeout = ...) -> None:
        return self._command("set_follow_up_mode", timeout, _nothing, mode=mode)

    @_Command
    def compact(self, custom_instructions: str | None = None, *, timeout: Timeout = ...) -> Record:
        """CompactionResult ``{summary, firstKeptEntryId, tokensBefore, ...}``."""
        return self._command("compact", timeout, None, customInstructions=custom_instructions)

    @_Command
    def set_auto_compaction(self, enabled: bool, *, timeout: Timeout = ...) -> None:
        return self._command("set_auto_compaction", timeout, _nothing, enabled=enabled)

    @_Command
    def set_auto_retry(self, enabled: bool, *, timeout: Timeout = ...) -> None:
        return self._command("set_auto_retry", timeout, _nothing, enabled=enabled)

    @_Command
    def abort_retry(self, *, timeout: Timeout = ...) -> None:
        return self._command("abort_retry", timeout, _nothing)

    # -- bash ---------------------------------------------------------------
    @_Command
    def bash(self, command: str, exclude_from_context: bool | None = None, *, timeout: Timeout = ...) -> Record:
        """BashResult ``{output, exitCode?, cancelled, truncated, fullOutputPath?}``; a non-zero exit is not an error."""
        return self._command("bash", timeout, None, command=command, excludeFromContext=exclude_from_context)

    @_Command
    def abort_bash(self, *, timeout: Timeout = ...) -> None:
        return self._command("abort_bash", timeout, _nothing)

    # -- beyond upstream 1.6 (pi_rpc; protocol/README.md "Beyond upstream") ---------------------
    @_Command
    def list_sessions(
        self,
        scope: Literal["cwd", "all"] | None = None,
        limit: int | None = None,
        query: str | None = None,
        *,
        timeout: Timeout = ...,
    ) -> list[Record]:
        """Session infos (``path, id, cwd, name?, parentSessionPath?, created, modified, messageCount,
        firstMessage``), newest first."""
        return self._command("list_sessions", timeout, _list_field("sessions"), scope=scope, limit=limit, query=query)

    @_Command
    def rename_session(self, session_path: str, name: str, *, timeout: Timeout = ...) -> None:
        return self._command("rename_session", timeout, _nothing, sessionPath=session_path, name=name)

    @_Command
    def delete_session(self, session_path: str, *, timeout: Timeout = ...) -> None:
        """Refused for the current session, a session another process has open, and paths outside
        the sessions directory."""
        return self._command("delete_session", timeout, _nothing, sessionPath=session_path)

    @_Command
    def navigate_tree(
        self,
        target_id: str,
        summarize: bool | None = None,
        custom_instructions: str | None = None,
        *,
        timeout: Timeout = ...,
    ) -> Record:
        """``{cancelled, editorText?}``; with ``summarize`` the abandoned branch is summarized first."""
        return self._command(
            "navigate_tree",
            timeout,
            None,
            targetId=target_id,
            summarize=summarize,
            customInstructions=custom_instructions,
        )

    @_Command
    def set_label(self, entry_id: str, label: str | None, *, timeout: Timeout = ...) -> None:
        """Label an entry (shown by ``get_tree``); None or "" clears it."""
        return self._command(
            "set_label", timeout, _nothing, entryId=entry_id, label=JSON_NULL if label is None else label
        )

    # -- credentials (pi_rpc; protocol/README.md "Credentials: get_auth_status, auth_login, auth_logout")
    @_Command
    def get_auth_status(self, provider: str | None = None, *, timeout: Timeout = ...) -> list[Record]:
        """Every known provider's ``{provider, name, authType, status, expiresAt?, source?,
        loginMethods}`` (or only ``provider``'s); never a secret."""
        return self._command("get_auth_status", timeout, _list_field("providers"), provider=provider)

    @_Command
    def auth_login(self, provider: str, method: str | None = None, *, timeout: Timeout = ...) -> Record:
        """Log in to ``provider`` in the server: the flow asks through ``extension_ui_request``
        dialogs (answer them with your UI handler) and the response says what was stored,
        ``{provider, authType, expiresAt?}``. ``method``: ``"oauth"``, ``"api_key"`` or a sign-in
        method id (``"browser"``, ``"copy_code"``). It waits for the user: pass a long
        ``timeout`` (or None); ``abort()`` cancels it."""
        return self._command("auth_login", timeout, None, provider=provider, method=method)

    @_Command
    def auth_logout(self, provider: str, *, timeout: Timeout = ...) -> Record:
        """Remove ``provider``'s stored credential: ``{provider, removed, authType?}``."""
        return self._command("auth_logout", timeout, None, provider=provider)

    # -- tools (pi_rpc; protocol/README.md "Host tools, tool control and run limits") ----------
    @_Command
    def set_host_tools(self, tools: list[Record], *, timeout: Timeout = ...) -> list[str]:
        """Replace the client's own tools (``{name, description, parameters}`` each); returns their names.
        :meth:`RpcClient.host_tool` registers a tool and answers its calls for you."""
        return self._command("set_host_tools", timeout, _list_field("tools"), tools=tools)

    @_Command
    def get_tools(self, *, timeout: Timeout = ...) -> list[Record]:
        """Every tool: ``{name, description, parameters, source, active}`` (source: builtin, extension, mcp, host)."""
        return self._command("get_tools", timeout, _list_field("tools"))

    @_Command
    def set_active_tools(self, names: list[str], *, timeout: Timeout = ...) -> list[str]:
        """Make exactly ``names`` active; returns the active names (an unknown name: RpcCommandError)."""
        return self._command("set_active_tools", timeout, _list_field("activeTools"), names=names)

    # -- model scope and reload (pi_rpc; protocol/README.md §11.15)
    @_Command
    def get_scoped_models(self, *, timeout: Timeout = ...) -> list[str]:
        """The ``"provider/id"`` keys ``cycle_model`` goes through (empty: every available model)."""
        return self._command("get_scoped_models", timeout, _list_field("models"))

    @_Command
    def set_scoped_models(self, models: list[str], save: bool | None = None, *, timeout: Timeout = ...) -> list[str]:
        """Set the cycling scope (``save=True``: also settings.json ``enabledModels``); returns it."""
        return self._command("set_scoped_models", timeout, _list_field("models"), models=models, save=save)

    @_Command
    def reload(self, *, timeout: Timeout = ...) -> list[str]:
        """Reload extensions, skills, prompt templates, themes and context files; returns the warnings."""
        return self._command("reload", timeout, _list_field("warnings"))


class _ProcessCommandSet:
    """Commands about the process rather than one hosted session: the protocol description, event
    options and replay (one numbering across all sessions), and the session handles. On the client
    only; a session handle object (:mod:`pi_rpc_client.handles`) has the per-session commands."""

    def _command(self, type_: str, timeout: Timeout, post: Post, /, **fields: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    @_Command
    def get_protocol_info(self, *, timeout: Timeout = ...) -> Record:
        """``{name, version, protocolVersion, upstreamCompat, commands, events, limits, features}``."""
        return self._command("get_protocol_info", timeout, None)

    @_Command
    def set_event_options(
        self,
        seq: bool | None = None,
        run_id: bool | None = None,
        handle: bool | None = None,
        *,
        timeout: Timeout = ...,
    ) -> Record:
        """Turn ``seq`` / ``runId`` / ``handle`` on or off (None leaves one as it is); returns the
        effective options. ``handle`` tags the ``"default"`` session's events with ``"handle"`` too
        (other sessions' events always carry it). :meth:`sequenced_events` turns ``seq`` on and
        recovers gaps for you."""
        return self._command("set_event_options", timeout, None, seq=seq, runId=run_id, handle=handle)

    @_Command
    def get_events(self, since_seq: int, *, timeout: Timeout = ...) -> Record:
        """``{events, lastSeq, truncated}``: the events numbered above ``since_seq`` (seq must be on)."""
        return self._command("get_events", timeout, None, sinceSeq=since_seq)

    # -- session handles (pi_rpc; protocol/README.md, issue 24) -----------------------------------
    @_Command
    def list_open_sessions(self, *, timeout: Timeout = ...) -> list[Record]:
        """The sessions this process hosts: ``{handle, sessionId, sessionFile, cwd, model, isStreaming,
        pendingMessageCount}`` each (``"default"`` first)."""
        return self._command("list_open_sessions", timeout, _list_field("sessions"))

    @_Command
    def close_session(self, handle: str, *, timeout: Timeout = ...) -> Record | None:
        """Abort, settle, flush and release the session at ``handle`` (not ``"default"``); no event of
        it follows. :meth:`SessionHandle.close` does this for a handle object. Returns None, or
        ``{unwrittenEntries, error}`` when a write fault kept entries off its file (they are lost)."""
        return self._command("close_session", timeout, None, handle=handle)

    # -- clients that come and go (pi_rpc --listen; protocol/README.md "Listeners", issue 34) ------
    @_Command
    def attach(self, handle: str, since: int | None = None, *, timeout: Timeout = ...) -> Record:
        """``attach_session``: receive the events of the open session ``handle`` from now on; with
        ``since`` (a ``seq``), the ring's events numbered above it first. ``{replayed, complete}``
        (``complete`` false: the ring no longer held them all)."""
        return self._command("attach_session", timeout, None, handle=handle, since=since)

    @_Command
    def detach(self, handle: str, *, timeout: Timeout = ...) -> None:
        """``detach_session``: stop receiving the events of ``handle`` (its runs go on)."""
        return self._command("detach_session", timeout, _nothing, handle=handle)


class CommandsMixin(_CommandSet):
    """Mixed into RpcClient; relies on its ``_call(type, timeout, **fields)``."""

    def _call(self, type_: str, timeout: Timeout = ..., **fields: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _command(self, type_: str, timeout: Timeout, post: Post, /, **fields: Any) -> Any:
        data = self._call(type_, timeout, **fields)
        return data if post is None else post(data)


class AsyncCommandsMixin(_CommandSet):
    """Mixed into AsyncRpcClient: the same 33 methods as ``CommandsMixin``, as coroutines
    (``await client.get_state()``). Relies on an ``async def _command(type, timeout, post, /, **fields)``.
    """

    async def _command(self, type_: str, timeout: Timeout, post: Post, /, **fields: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

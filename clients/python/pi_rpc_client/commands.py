"""Typed wrappers for the 33 commands of the pi 1.6 RPC protocol (one method each, snake_case).

Every method takes an optional ``timeout`` (seconds; ``...`` = the client's default) and returns the
response's ``data`` (absent data -> None). Failures raise RpcCommandError carrying the response.
Field names on the wire stay camelCase; optional fields are omitted when None, never sent as null.
"""

from __future__ import annotations

from types import EllipsisType
from typing import Any, Literal

Record = dict[str, Any]
Timeout = float | None | EllipsisType
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueMode = Literal["all", "one-at-a-time"]

COMMAND_TYPES: tuple[str, ...] = (
    "prompt", "steer", "follow_up", "abort", "clear_queue", "new_session", "get_state", "set_model",
    "cycle_model", "get_available_models", "set_thinking_level", "cycle_thinking_level",
    "get_available_thinking_levels", "set_steering_mode", "set_follow_up_mode", "compact",
    "set_auto_compaction", "set_auto_retry", "abort_retry", "bash", "abort_bash", "get_session_stats",
    "export_html", "switch_session", "fork", "clone", "get_fork_messages", "get_entries", "get_tree",
    "get_last_assistant_text", "set_session_name", "get_messages", "get_commands",
)


class CommandsMixin:
    """Mixed into RpcClient; relies on its ``_call(type, timeout, **fields)``."""

    def _call(self, type_: str, timeout: Timeout = ..., **fields: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    # -- input --------------------------------------------------------------
    def prompt(self, message: str, images: list[Record] | None = None,
               streaming_behavior: Literal["steer", "followUp"] | None = None, *, timeout: Timeout = ...) -> str:
        """Returns the disposition: "started" | "queued" | "handled". Events follow on the event stream."""
        data = self._call("prompt", timeout, message=message, images=images, streamingBehavior=streaming_behavior)
        return str((data or {}).get("disposition"))

    def steer(self, message: str, images: list[Record] | None = None, *, timeout: Timeout = ...) -> str:
        return str((self._call("steer", timeout, message=message, images=images) or {}).get("disposition"))

    def follow_up(self, message: str, images: list[Record] | None = None, *, timeout: Timeout = ...) -> str:
        return str((self._call("follow_up", timeout, message=message, images=images) or {}).get("disposition"))

    def abort(self, *, timeout: Timeout = ...) -> None:
        """Returns after the run settled (the response follows ``agent_settled{aborted:true}``)."""
        self._call("abort", timeout)

    def clear_queue(self, *, timeout: Timeout = ...) -> Record:
        """``{"steering": [...], "followUp": [...]}`` — the texts that were dropped."""
        return self._call("clear_queue", timeout)

    # -- session ------------------------------------------------------------
    def new_session(self, parent_session: str | None = None, *, timeout: Timeout = ...) -> Record:
        return self._call("new_session", timeout, parentSession=parent_session)

    def get_state(self, *, timeout: Timeout = ...) -> Record:
        return self._call("get_state", timeout)

    def switch_session(self, session_path: str, *, timeout: Timeout = ...) -> Record:
        return self._call("switch_session", timeout, sessionPath=session_path)

    def fork(self, entry_id: str, *, timeout: Timeout = ...) -> Record:
        """``{"text"?: str, "cancelled": bool}``."""
        return self._call("fork", timeout, entryId=entry_id)

    def clone(self, *, timeout: Timeout = ...) -> Record:
        return self._call("clone", timeout)

    def get_fork_messages(self, *, timeout: Timeout = ...) -> list[Record]:
        return list((self._call("get_fork_messages", timeout) or {}).get("messages", []))

    def get_entries(self, since: str | None = None, *, timeout: Timeout = ...) -> Record:
        """``{"entries": [...], "leafId": str | None}``; ``since`` is an exclusive entry-id cursor."""
        return self._call("get_entries", timeout, since=since)

    def get_tree(self, *, timeout: Timeout = ...) -> Record:
        return self._call("get_tree", timeout)

    def get_last_assistant_text(self, *, timeout: Timeout = ...) -> str | None:
        return (self._call("get_last_assistant_text", timeout) or {}).get("text")

    def set_session_name(self, name: str, *, timeout: Timeout = ...) -> None:
        self._call("set_session_name", timeout, name=name)

    def get_messages(self, *, timeout: Timeout = ...) -> list[Record]:
        return list((self._call("get_messages", timeout) or {}).get("messages", []))

    def get_session_stats(self, *, timeout: Timeout = ...) -> Record:
        return self._call("get_session_stats", timeout)

    def export_html(self, output_path: str | None = None, *, timeout: Timeout = ...) -> str:
        return str((self._call("export_html", timeout, outputPath=output_path) or {}).get("path"))

    def get_commands(self, *, timeout: Timeout = ...) -> list[Record]:
        return list((self._call("get_commands", timeout) or {}).get("commands", []))

    # -- model / thinking ---------------------------------------------------
    def set_model(self, provider: str, model_id: str, *, timeout: Timeout = ...) -> Record:
        return self._call("set_model", timeout, provider=provider, modelId=model_id)

    def cycle_model(self, *, timeout: Timeout = ...) -> Record | None:
        return self._call("cycle_model", timeout)

    def get_available_models(self, *, timeout: Timeout = ...) -> list[Record]:
        return list((self._call("get_available_models", timeout) or {}).get("models", []))

    def set_thinking_level(self, level: ThinkingLevel | str, *, timeout: Timeout = ...) -> None:
        self._call("set_thinking_level", timeout, level=level)

    def cycle_thinking_level(self, *, timeout: Timeout = ...) -> Record | None:
        return self._call("cycle_thinking_level", timeout)

    def get_available_thinking_levels(self, *, timeout: Timeout = ...) -> list[str]:
        return list((self._call("get_available_thinking_levels", timeout) or {}).get("levels", []))

    # -- queue modes / compaction / retry -----------------------------------
    def set_steering_mode(self, mode: QueueMode | str, *, timeout: Timeout = ...) -> None:
        self._call("set_steering_mode", timeout, mode=mode)

    def set_follow_up_mode(self, mode: QueueMode | str, *, timeout: Timeout = ...) -> None:
        self._call("set_follow_up_mode", timeout, mode=mode)

    def compact(self, custom_instructions: str | None = None, *, timeout: Timeout = ...) -> Record:
        """CompactionResult ``{summary, firstKeptEntryId, tokensBefore, ...}``."""
        return self._call("compact", timeout, customInstructions=custom_instructions)

    def set_auto_compaction(self, enabled: bool, *, timeout: Timeout = ...) -> None:
        self._call("set_auto_compaction", timeout, enabled=enabled)

    def set_auto_retry(self, enabled: bool, *, timeout: Timeout = ...) -> None:
        self._call("set_auto_retry", timeout, enabled=enabled)

    def abort_retry(self, *, timeout: Timeout = ...) -> None:
        self._call("abort_retry", timeout)

    # -- bash ---------------------------------------------------------------
    def bash(self, command: str, exclude_from_context: bool | None = None, *, timeout: Timeout = ...) -> Record:
        """BashResult ``{output, exitCode?, cancelled, truncated, fullOutputPath?}``; a non-zero exit is not an error."""
        return self._call("bash", timeout, command=command, excludeFromContext=exclude_from_context)

    def abort_bash(self, *, timeout: Timeout = ...) -> None:
        self._call("abort_bash", timeout)

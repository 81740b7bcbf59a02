"""Transport-agnostic command dispatch.

Feed it one inbound item at a time (a parsed JSON value, a ``ParseFailure`` or a
``FrameTooLarge``); it writes exactly one response per command through the sink (none for
``extension_ui_response``, ``host_tool_result`` and ``host_tool_update``), after any events the handler emitted. The transport decides the
concurrency: the stdio server runs every ``dispatch`` call in its own task, so no command ever
waits behind another (``abort``, ``abort_bash``, ``abort_retry``, ``clear_queue`` and
``extension_ui_response`` included).

``dispatch`` never raises: a handler bug, a validation crash or a response that cannot be
serialised becomes a ``success:false`` response carrying the command's id (and a traceback
on stderr), so one bad record can never end the process or leave its id unanswered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_rpc.errors import echo
from pi_rpc.log import logger
from pi_rpc.modes.rpc.events import EventEmitter, RecordSink, report_dropped
from pi_rpc.modes.rpc.registry import JSON_NULL, CommandContext, CommandError, HandlerRegistry, response_head
from pi_rpc.modes.rpc.validation import validate_command
from pi_rpc.modes.wire.framing import FrameTooLarge
from pi_rpc.modes.wire.jsonparse import PARSE_ERROR_PREFIX, ParseFailure
from pi_rpc.modes.wire.output import WriterClosed
from pi_rpc.modes.wire.protocol.names import (
    ACCEPTED_COMMAND_TYPES,
    DEFAULT_HANDLE,
    OWN_HANDLE_COMMANDS,
    UNANSWERED_RECORD_TYPES,
)

_KNOWN = frozenset(ACCEPTED_COMMAND_TYPES)


def unknown_handle_error(handle: str) -> str:
    return f'Unknown session handle "{echo(handle)}" (open_session returns handles; list_open_sessions lists them)'


def js_string(value: object) -> str:
    """``String(value)`` as JS would print it (for ``Unknown command: <type>``). Arrays are
    joined without recursion, so any nesting depth is fine."""
    if not isinstance(value, list):
        return _js_scalar_string(value)
    parts: list[str] = []
    stack = [iter(value)]
    first = [True]
    while stack:
        try:
            item = next(stack[-1])
        except StopIteration:
            stack.pop()
            first.pop()
            continue
        if not first[-1]:
            parts.append(",")
        first[-1] = False
        if isinstance(item, list):
            stack.append(iter(item))
            first.append(True)
        elif item is not None:  # null and undefined elements print as ""
            parts.append(_js_scalar_string(item))
    return "".join(parts)


def _js_scalar_string(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def frame_too_large_error(limit: int) -> str:
    return (
        f"{PARSE_ERROR_PREFIX}frame too large: record exceeds the {limit}-byte limit "
        f"(--max-frame-bytes); it was discarded up to the next newline"
    )


class Dispatcher:
    def __init__(
        self,
        registry: HandlerRegistry,
        sink: RecordSink,
        *,
        events: EventEmitter | None = None,
        verbose: bool = False,
        known_handle: Callable[[str], bool] | None = None,
    ) -> None:
        self.registry = registry
        # Whether a session handle names a hosted session (a backend that hosts sessions);
        # None: only "default" exists.
        self.known_handle = known_handle
        self.sink = sink
        self.events = events if events is not None else EventEmitter(sink)
        self.verbose = verbose
        self.responses_sent = 0

    async def _respond(self, response: dict[str, object]) -> None:
        try:
            await self.sink.send(response)
        except Exception as exc:  # noqa: BLE001 - dispatch never raises (module docstring)
            if isinstance(exc, WriterClosed):
                return
            # The response could not be serialised or queued: answer the id with an error.
            self._log_exception(str(response.get("command", "response")))
            fallback: dict[str, object] = {key: response[key] for key in ("id", "type", "command") if key in response}
            fallback["success"] = False
            fallback["error"] = f"Failed to write the response: {exc}"
            try:
                await self.sink.send(fallback)
            except Exception as again:  # noqa: BLE001 - dispatch never raises (module docstring)
                report_dropped(fallback, again)
                return
        self.responses_sent += 1

    async def dispatch(self, item: object) -> None:
        """Answer one inbound item; never raises (see the module docstring)."""
        try:
            await self._dispatch(item)
        except Exception:  # noqa: BLE001 - dispatch never raises (module docstring)
            # Only reachable through a bug outside the guarded steps; the id was answered
            # or unreadable. Keep serving.
            self._log_exception("dispatch")

    async def _dispatch(self, item: object) -> None:
        if type(item) is dict:
            await self._dispatch_object(item)
            return
        if isinstance(item, ParseFailure):
            await self._respond({"type": "response", "command": "parse", "success": False, "error": item.error})
            return
        if isinstance(item, FrameTooLarge):
            await self._respond(
                {
                    "type": "response",
                    "command": "parse",
                    "success": False,
                    "error": frame_too_large_error(item.limit),
                }
            )
            return
        # Valid JSON that is not an object (42, "s", [], true, null): upstream answers
        # "Unknown command: undefined" (and crashes on null; we do not).
        await self._respond({"type": "response", "success": False, "error": "Unknown command: undefined"})

    async def _dispatch_object(self, cmd: dict[str, Any]) -> None:
        has_id = "id" in cmd
        cmd_id = cmd.get("id")
        has_type = "type" in cmd
        ctype = cmd.get("type")

        if isinstance(ctype, str) and ctype in UNANSWERED_RECORD_TYPES:  # extension_ui_response, host_tool_*
            handler = self.registry.get(ctype)
            if handler is not None:
                ctx = CommandContext(ctype, has_id, cmd_id, self.events)
                try:
                    await handler(ctx, cmd)
                except Exception:  # noqa: BLE001 - dispatch never raises (module docstring)
                    self._log_exception(ctype)
            return  # never answered

        response = response_head(has_id, cmd_id, has_type, ctype)

        if not isinstance(ctype, str):
            response["error"] = "Unknown command: " + ("undefined" if not has_type else js_string(ctype))
            await self._respond(response)
            return

        handler = self.registry.get(ctype)
        if handler is None and ctype not in _KNOWN:
            response["error"] = f"Unknown command: {ctype}"
            await self._respond(response)
            return

        try:
            problem = validate_command(ctype, cmd)
        except Exception as exc:  # noqa: BLE001 - dispatch never raises (module docstring)
            self._log_exception(ctype)
            problem = f'Invalid command "{ctype}": {exc}'
        if problem is not None:
            response["error"] = problem
            await self._respond(response)
            return

        if handler is None:
            response["error"] = f"Not implemented yet: {ctype}"
            await self._respond(response)
            return

        handle = cmd.get("handle") if ctype not in OWN_HANDLE_COMMANDS else None
        if handle is not None and handle != DEFAULT_HANDLE and not (self.known_handle and self.known_handle(handle)):
            response["error"] = unknown_handle_error(handle)
            await self._respond(response)
            return

        ctx = CommandContext(ctype, has_id, cmd_id, self.events)
        try:
            result = await handler(ctx, cmd)
        except CommandError as exc:
            response["error"] = exc.message
        except Exception as exc:  # noqa: BLE001 - dispatch never raises (module docstring)
            self._log_exception(ctype)
            response["error"] = _exception_text(exc)
        else:
            response["success"] = True
            if result is JSON_NULL:
                response["data"] = None
            elif result is not None:
                response["data"] = result
        try:
            await self._respond(response)
        finally:
            # e.g. prompt: the run's agent_start must follow the response on the wire.
            after = ctx.extras.get("after_response")
            if after is not None:
                after()

    def _log_exception(self, ctype: str) -> None:
        """The exception being handled, with its traceback (the handler never raises)."""
        logger().error(f"pi_rpc: unexpected error in command {ctype!r}:", exc_info=True)


def _exception_text(exc: BaseException) -> str:
    try:
        return str(exc) or type(exc).__name__
    except Exception:  # noqa: BLE001 - a broken __str__
        return type(exc).__name__

"""JSON-RPC 2.0 over the RPC mode's framing: one peer that serves the client's requests and
notifications and sends its own requests (``fs/*``, ``session/request_permission``) and
notifications (``session/update``).

Input items come from ``wire.framing``/``wire.jsonparse`` exactly as in RPC mode (LF-only
records, the frame cap, invalid UTF-8 as U+FFFD). Every request runs in its own task, so a
``session/cancel`` or a client's answer to our request never waits behind a running prompt.
Bad input never ends the process; it gets the standard error codes:

- ``-32700`` the record is not JSON (or exceeded ``--max-frame-bytes``), ``id`` null;
- ``-32600`` not a request object (no ``"jsonrpc":"2.0"``, no string ``method``, a bad ``id``
  type, a batch), with the ``id`` when one is readable;
- ``-32601`` unknown method (``data.method`` names it);
- ``-32602`` bad params (raised by handlers, see ``params``);
- ``-32603`` an unexpected failure inside a handler (its message; never a traceback on stdout).
Responses to our own requests are matched by ``id``; unknown ones are ignored, as are unknown
notifications (JSON-RPC never answers a notification).
"""

from __future__ import annotations

import traceback
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from pi_rpc.log import logger
from pi_rpc.modes.wire.framing import FrameTooLarge
from pi_rpc.modes.wire.jsonparse import ParseFailure
from pi_rpc.modes.wire.output import RecordWriter, WriterClosed

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
AUTH_REQUIRED = -32000  # ACP: the client should offer its sign-in flow
RESOURCE_NOT_FOUND = -32002  # ACP: e.g. an unknown session id

Handler = Callable[[dict[str, object]], Awaitable[object]]
NotificationHandler = Callable[[dict[str, object]], Awaitable[None]]


class RpcError(Exception):
    """A JSON-RPC error: raised by handlers (sent as the response) and by ``request`` (the
    peer answered with an error)."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_wire(self) -> dict[str, object]:
        error: dict[str, object] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def invalid_params(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, "Invalid params", {"details": message})


class Reply:
    """A handler's result plus work to do right after the response is written (e.g. the
    ``available_commands_update`` that must follow the ``session/new`` result)."""

    def __init__(self, result: Any, after: Callable[[], Awaitable[None]]) -> None:
        self.result = result
        self.after = after


class PeerClosed(Exception):
    """Input ended (or the process is shutting down) while we waited for the client's answer."""


def _valid_id(value: object) -> bool:
    return value is None or type(value) in (str, int) or type(value) is float and value.is_integer()


class JsonRpcPeer:
    def __init__(self, writer: RecordWriter, *, verbose: bool = False) -> None:
        self.writer = writer
        self.verbose = verbose
        self._methods: dict[str, Handler] = {}
        self._notifications: dict[str, NotificationHandler] = {}
        self._next_id = 0
        self._pending: dict[int, tuple[anyio.Event, list[object]]] = {}
        self.closed = False

    # ------------------------------------------------------------------ registration

    def method(self, name: str, handler: Handler) -> None:
        self._methods[name] = handler

    def notification(self, name: str, handler: NotificationHandler) -> None:
        self._notifications[name] = handler

    # ------------------------------------------------------------------ output

    async def _send(self, record: dict[str, object]) -> None:
        try:
            await self.writer.send(record)
        except WriterClosed:
            pass

    async def notify(self, method: str, params: dict[str, object]) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def notify_nowait(self, method: str, params: dict[str, object]) -> None:
        """A notification from synchronous code (``ctx.ui.notify``), queued at once."""
        try:
            self.writer.send_nowait({"jsonrpc": "2.0", "method": method, "params": params})
        except WriterClosed:
            pass

    async def request(self, method: str, params: dict[str, object]) -> object:
        """Send a request to the client and wait for its result; ``RpcError`` if it answers
        with an error, ``PeerClosed`` if input ends first. Cancellable (the caller's scope)."""
        if self.closed:
            raise PeerClosed(method)
        self._next_id += 1
        request_id = self._next_id
        done = anyio.Event()
        slot: list[object] = []
        self._pending[request_id] = (done, slot)
        try:
            await self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            await done.wait()
        finally:
            self._pending.pop(request_id, None)
        if not slot:
            raise PeerClosed(method)
        outcome = slot[0]
        if isinstance(outcome, RpcError):
            raise outcome
        return outcome

    def close(self) -> None:
        """Input ended: every request still waiting for the client fails with ``PeerClosed``."""
        self.closed = True
        for done, _slot in list(self._pending.values()):
            done.set()

    async def _error(self, request_id: object, error: RpcError) -> None:
        await self._send({"jsonrpc": "2.0", "id": request_id, "error": error.to_wire()})

    # ------------------------------------------------------------------ input

    async def dispatch(self, item: object) -> None:
        """Handle one input item (a parsed value, ``ParseFailure`` or ``FrameTooLarge``)."""
        if isinstance(item, ParseFailure):
            await self._error(None, RpcError(PARSE_ERROR, "Parse error", {"details": item.message}))
            return
        if isinstance(item, FrameTooLarge):
            details = (
                f"frame too large: record exceeds the {item.limit}-byte limit (--max-frame-bytes); "
                "it was discarded up to the next newline"
            )
            await self._error(None, RpcError(PARSE_ERROR, "Parse error", {"details": details}))
            return
        if type(item) is not dict:
            reason = "batches are not supported" if type(item) is list else "a request must be a JSON object"
            await self._error(None, RpcError(INVALID_REQUEST, "Invalid Request", {"details": reason}))
            return
        has_id = "id" in item
        request_id = item.get("id")
        if has_id and not _valid_id(request_id):
            await self._error(
                None, RpcError(INVALID_REQUEST, "Invalid Request", {"details": "id must be a string, a number or null"})
            )
            return
        if item.get("jsonrpc") != "2.0":
            await self._error(
                request_id, RpcError(INVALID_REQUEST, "Invalid Request", {"details": 'jsonrpc must be "2.0"'})
            )
            return
        if "method" not in item and has_id and ("result" in item or "error" in item):
            self._on_response(item)
            return
        method = item.get("method")
        if type(method) is not str:
            if has_id:
                await self._error(
                    request_id, RpcError(INVALID_REQUEST, "Invalid Request", {"details": "method must be a string"})
                )
            return
        params = item.get("params", {})
        if params is None:
            params = {}
        if not has_id:
            await self._on_notification(method, params)
            return
        if type(params) is not dict:
            await self._error(request_id, invalid_params("params must be an object"))
            return
        handler = self._methods.get(method)
        if handler is None:
            await self._error(request_id, RpcError(METHOD_NOT_FOUND, "Method not found", {"method": method}))
            return
        try:
            result = await handler(params)
        except RpcError as exc:
            await self._error(request_id, exc)
            return
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:  # noqa: BLE001 - never die on input: answer with the failure
            if self.verbose:
                logger().error(traceback.format_exc().rstrip("\n"))
            await self._error(request_id, RpcError(INTERNAL_ERROR, str(exc) or type(exc).__name__))
            return
        after = None
        if isinstance(result, Reply):
            result, after = result.result, result.after
        await self._send({"jsonrpc": "2.0", "id": request_id, "result": {} if result is None else result})
        if after is not None:
            await after()

    async def _on_notification(self, method: str, params: object) -> None:
        handler = self._notifications.get(method)
        if handler is None or type(params) is not dict:
            return
        try:
            await handler(params)
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:  # noqa: BLE001 - a notification has nobody to answer
            logger().error(f"pi_rpc acp: {method} failed: {exc}")

    def _on_response(self, item: dict[str, object]) -> None:
        request_id = item.get("id")
        if type(request_id) is not int or request_id not in self._pending:
            return
        done, slot = self._pending[request_id]
        error = item.get("error")
        if "error" in item:
            if isinstance(error, dict):
                code = error.get("code")
                message = error.get("message")
                slot.append(
                    RpcError(code if type(code) is int else INTERNAL_ERROR, str(message or "error"), error.get("data"))
                )
            else:
                slot.append(RpcError(INTERNAL_ERROR, "malformed error response"))
        else:
            slot.append(item.get("result"))
        done.set()

"""Tools the client executes (pi_rpc ``set_host_tools``): register a Python function as a tool the
model can call, and the client answers its ``host_tool_request``s.

    @pi.host_tool("open_editor", {"type": "object", "properties": {"path": {"type": "string"}}},
                  description="Open a file in the user's editor.")
    def open_editor(args, call):
        call.update("opening…")  # a tool_execution_update (optional)
        return f"opened {args['path']}"  # str, content blocks, or {"content", "isError", "details"}

Each call runs on its own thread (calls of one turn run in parallel); an exception becomes an error
result with its message. ``call.cancelled`` is set when the server cancels the call (``abort``, the
``--host-tool-timeout``); the answer of a cancelled call is not sent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import RpcClient

Record = dict[str, Any]
HostToolFn = Callable[[Record, "HostToolCall"], Any]
DEFAULT_HANDLE = "default"


def content_of(value: Any) -> list[Record]:
    """A handler's text or blocks as tool-result content."""
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    if isinstance(value, list):
        return value
    return [{"type": "text", "text": str(value)}]


def result_record(call_id: str, value: Any) -> Record:
    """The ``host_tool_result`` for what a handler returned (str, blocks, or a result dict)."""
    record: Record = {"type": "host_tool_result", "id": call_id}
    if isinstance(value, dict) and "content" in value:
        record["content"] = content_of(value["content"])
        if value.get("isError") is not None:
            record["isError"] = bool(value["isError"])
        if value.get("details") is not None:
            record["details"] = value["details"]
    else:
        record["content"] = content_of(value)
    return record


class HostToolCall:
    """One call of a host tool: its arguments, progress updates and cancellation."""

    def __init__(self, client: RpcClient, record: Record) -> None:
        self._client = client
        self.id: str = record["id"]
        self.tool_call_id: str = record.get("toolCallId", "")
        self.name: str = record.get("name", "")
        self.arguments: Record = record.get("arguments") or {}
        self.handle: str = record.get("handle") or DEFAULT_HANDLE
        self.cancelled = threading.Event()

    def update(self, content: Any, details: Any = None) -> None:
        """Report progress (a ``tool_execution_update`` for the model's UI)."""
        if self.cancelled.is_set():
            return
        record: Record = {"type": "host_tool_update", "id": self.id, "content": content_of(content)}
        if details is not None:
            record["details"] = details
        self._client.notify(record)


class HostToolRunner:
    """The client's host tools per session handle, and the answers to their calls."""

    def __init__(self, client: RpcClient) -> None:
        self._client = client
        self._lock = threading.Lock()
        self._tools: dict[str, dict[str, tuple[Record, HostToolFn]]] = {}
        self._calls: dict[str, HostToolCall] = {}
        client.on_event(self._on_record)

    def register(
        self, name: str, parameters: Record | None, description: str, fn: HostToolFn, handle: str | None
    ) -> None:
        key = handle or DEFAULT_HANDLE
        spec: Record = {"name": name, "description": description}
        if parameters is not None:
            spec["parameters"] = parameters
        with self._lock:
            tools = dict(self._tools.get(key, {}))
            tools[name] = (spec, fn)
            specs = [entry[0] for entry in tools.values()]
        command: Record = {"type": "set_host_tools", "tools": specs}
        if handle is not None:
            command["handle"] = handle
        self._client.request(command)  # refused (RpcCommandError): nothing registered
        with self._lock:
            self._tools[key] = tools

    def _on_record(self, record: Record) -> None:
        kind = record.get("type")
        if kind == "host_tool_request":
            with self._lock:
                entry = self._tools.get(record.get("handle") or DEFAULT_HANDLE, {}).get(record.get("name", ""))
                call = HostToolCall(self._client, record)
                self._calls[call.id] = call
            threading.Thread(target=self._run, args=(call, entry), name="pi-host-tool", daemon=True).start()
        elif kind == "host_tool_cancelled":
            with self._lock:
                call = self._calls.get(record.get("id", ""))
            if call is not None:
                call.cancelled.set()

    def _run(self, call: HostToolCall, entry: tuple[Record, HostToolFn] | None) -> None:
        try:
            if entry is None:
                answer: Record = result_record(call.id, {"content": f"No handler for {call.name}", "isError": True})
            else:
                try:
                    answer = result_record(call.id, entry[1](call.arguments, call))
                except Exception as exc:  # noqa: BLE001 - the handler's failure is the model's error result
                    answer = result_record(call.id, {"content": str(exc) or type(exc).__name__, "isError": True})
            if not call.cancelled.is_set():
                self._client.notify(answer)
        except Exception:  # noqa: BLE001 - the process is gone: nobody to answer
            pass
        finally:
            with self._lock:
                self._calls.pop(call.id, None)

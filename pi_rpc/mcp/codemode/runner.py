"""Running one codemode script: the agent side of the worker process.

- At most ``PI_CODEMODE_MAX_WORKERS`` (default 2) script processes live in one pi process;
  others wait in arrival order, at most 60 s (or their deadline).
- ``timeout_ms`` is a hard deadline for the whole script, the wait for a worker included; an
  abort or the deadline kills the process group at once, so a spinning script never holds the
  agent. Calls still running when the script ends are cancelled.
- Every ``tools.<name>()`` the script makes is run by the host through the agent's tool
  pipeline (validation, ``tool_call``/``tool_result`` hooks, events with ``parentToolCallId``).
  Tools with an output schema resolve to their ``structuredContent``; others to their text;
  failures raise ``ToolError`` in the script.
- ``search_tools``/``describe_tool``/``describe_namespace`` are answered here, over the
  callable tools and their namespaces.
"""

from __future__ import annotations

import json
import os
import signal as signals
import subprocess
import sys
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any, Protocol

import anyio

from pi_rpc.ai.abort import AbortController, AbortSignal
from pi_rpc.ai.transcript import content_text
from pi_rpc.config import children
from pi_rpc.mcp.codemode.declarations import identifier, render_tool_sample
from pi_rpc.mcp.codemode.output import build_result
from pi_rpc.mcp.codemode.source import parse_source
from pi_rpc.mcp.search import DEFAULT_LIMIT, create_document, rank

WORKER = Path(__file__).with_name("worker.py")
DEFAULT_MAX_WORKERS = 2
CALLS_END_GRACE_S = 5.0  # once the script is over, for its cancelled tool calls to report their end
EXIT_GRACE_S = 2.0  # for the killed worker process to exit
CLOSE_GRACE_S = 1.0  # then for its pipes to close
WORKER_WAIT_S = 60.0
ARGS_PREVIEW_CHARS = 200
ERROR_PREVIEW_CHARS = 500
STORE_ENTRY_TYPE = "codemode-store"
CODEMODE_TOOL_NAME = "codemode"


class CodemodeHost(Protocol):
    def callable_tools(self) -> list[dict[str, Any]]: ...

    async def execute_tool(
        self,
        name: str,
        args: dict[str, object],
        signal: AbortSignal | None,
        on_update: Callable[[object], object] | None = None,
    ) -> dict[str, object]: ...

    def read_store(self) -> dict[str, object]: ...

    def append_store(self, data: dict[str, object]) -> None: ...


def max_workers() -> int:
    try:
        value = int(os.environ.get("PI_CODEMODE_MAX_WORKERS", ""))
    except ValueError:
        return DEFAULT_MAX_WORKERS
    return value if value > 0 else DEFAULT_MAX_WORKERS


class _Slots:
    """Worker slots shared by every session of this process, granted in arrival order."""

    def __init__(self) -> None:
        self.active = 0
        self.waiters: deque[anyio.Event] = deque()

    def _admit(self) -> None:
        while self.waiters and self.active < max_workers():
            self.active += 1
            self.waiters.popleft().set()

    async def reserve(self, signal: AbortSignal | None, timeout_s: float) -> str:
        if signal is not None and signal.aborted:
            return "aborted"
        granted = anyio.Event()
        self.waiters.append(granted)
        self._admit()
        outcome = "timeout"
        with anyio.move_on_after(timeout_s):
            async with anyio.create_task_group() as tg:

                async def on_abort() -> None:
                    nonlocal outcome
                    assert signal is not None
                    await signal.wait()
                    outcome = "aborted"
                    tg.cancel_scope.cancel()

                if signal is not None:
                    tg.start_soon(on_abort)
                await granted.wait()
                outcome = "reserved"
                tg.cancel_scope.cancel()
        if outcome != "reserved":
            if granted in self.waiters:
                self.waiters.remove(granted)
            elif granted.is_set():  # granted while we gave up: hand the slot on
                self.release()
        return outcome

    def release(self) -> None:
        self.active -= 1
        self._admit()


SLOTS = _Slots()


def _truncate(text: str, max_chars: int) -> str:
    return text[: max_chars - 3] + "..." if len(text) > max_chars else text


def _preview(args: object) -> str:
    try:
        return _truncate(json.dumps(args, ensure_ascii=False, separators=(",", ":")), ARGS_PREVIEW_CHARS)
    except (TypeError, ValueError):
        return ""


def tool_sample(tool: dict[str, Any]) -> str:
    return render_tool_sample(tool["name"], tool_description(tool), tool.get("parameters"), tool.get("outputSchema"))


def tool_description(tool: dict[str, Any]) -> str:
    """A tool's description followed by its prompt guidelines (the system prompt only has those
    of declared tools)."""
    bullets = [f"- {g.strip()}" for g in tool.get("promptGuidelines") or [] if g.strip()]
    description = str(tool.get("description") or "")
    return f"{description.strip()}\n\n" + "\n".join(bullets) if bullets else description


def _is_namespace(namespace: dict[str, Any] | None, query: str) -> bool:
    if not namespace:
        return False
    query_id = identifier(query)
    names = [namespace.get("name") or "", *(namespace.get("aliases") or [])]
    return any(name == query or identifier(name) == query_id for name in names)


class _Discovery:
    def __init__(self, tools: list[dict[str, Any]], samples: dict[str, str]) -> None:
        self.tools = tools
        self.samples = samples

    def entry(self, name: str) -> dict[str, str]:
        return {"name": identifier(name), "description": self.samples.get(name, "")}

    def call(self, name: str, args: list[object]) -> object:
        if name == "searchTools":
            query = args[0] if args else None
            options = args[1] if len(args) > 1 and isinstance(args[1], dict) else {}
            if not isinstance(query, str):
                raise ValueError("search_tools() expects a query string")
            limit = options.get("limit", DEFAULT_LIMIT)
            if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
                raise ValueError("search_tools() limit must be a positive integer")
            namespace = options.get("namespace")
            if namespace is not None and not isinstance(namespace, str):
                raise ValueError("search_tools() namespace must be a string")
            documents = [
                create_document(t["name"], str(t.get("description") or ""), t.get("parameters"), t.get("namespace"))
                for t in self.tools
                if not namespace or _is_namespace(t.get("namespace"), namespace)
            ]
            return [self.entry(match) for match, _score in rank(query, documents, limit)]
        if name == "describeTool":
            wanted = args[0] if args else None
            if not isinstance(wanted, str):
                raise ValueError("describe_tool() expects a tool name")
            for tool in self.tools:
                if tool["name"] == wanted or identifier(tool["name"]) == wanted:
                    return self.samples.get(tool["name"])
            return None
        if name == "describeNamespace":
            wanted = args[0] if args else None
            if not isinstance(wanted, str):
                raise ValueError("describe_namespace() expects a namespace name")
            found: dict[str, object] | None = None
            names: list[str] = []
            for tool in self.tools:
                namespace = tool.get("namespace")
                if not _is_namespace(namespace, wanted):
                    continue
                found = found or namespace
                names.append(identifier(tool["name"]))
            if found is None:
                return None
            described: dict[str, object] = {"name": found["name"]}
            if found.get("description"):
                described["description"] = found["description"]
            if found.get("instructions"):
                described["instructions"] = found["instructions"]
            described["tools"] = names
            return described
        raise ValueError(f"unknown function {name}")


async def run_script(
    tool_call_id: str,
    source: str,
    signal: AbortSignal | None,
    on_update: Callable[[dict[str, object]], object] | None,
    host: CodemodeHost | None,
) -> dict[str, object]:
    started = time.monotonic()
    code, options = parse_source(source)
    calls: list[dict[str, object]] = []

    async def publish() -> None:
        # Queued, not awaited (as upstream): a nested call's start event goes out first.
        if on_update is not None:
            on_update({"content": [], "details": {"calls": [dict(c) for c in calls]}})

    await publish()
    callable_tools = [t for t in (host.callable_tools() if host else []) if t["name"] != CODEMODE_TOOL_NAME]
    samples = {t["name"]: tool_sample(t) for t in callable_tools}
    by_name = {t["name"]: t for t in callable_tools}
    discovery = _Discovery(callable_tools, samples)

    deadline_s = options.timeout_ms / 1000 if options.timeout_ms is not None else float("inf")
    admission = await SLOTS.reserve(signal, min(deadline_s, WORKER_WAIT_S))
    if admission != "reserved":
        waited = f"{time.monotonic() - started:.1f}"
        if admission == "aborted":
            refusal = f"Script aborted: {(signal.reason if signal else None) or 'Execution aborted'}"
        elif deadline_s <= WORKER_WAIT_S:
            refusal = f"Script timed out: Execution timed out after {options.timeout_ms} ms while waiting for a free codemode worker"
        else:
            refusal = (
                f"No codemode worker became free within {int(WORKER_WAIT_S)} seconds. All {max_workers()} workers, "
                "shared by every session in this process, are held by other scripts. Retry after they finish."
            )
        return {
            "content": [
                {"type": "text", "text": f"Script failed\nWall time {waited} seconds\nOutput:\n"},
                {"type": "text", "text": f"Script error:\n{refusal}\n\nThe script did not start."},
            ],
            "details": {"calls": []},
            "isError": True,
        }
    try:
        remaining = deadline_s - (time.monotonic() - started)
        outcome = await _run_worker(tool_call_id, code, remaining, signal, host, by_name, discovery, calls, publish)
    finally:
        SLOTS.release()
    for call in calls:
        if call["status"] == "running":
            call["status"] = "cancelled"
    output, ok, error, value, store = outcome
    if ok:
        if store and (store.get("set") or store.get("delete")) and host is not None:
            host.append_store({"set": store.get("set") or {}, "delete": store.get("delete") or []})
        if value is not None:
            output.append({"type": "text", "text": value})
    return build_result(
        ok=ok,
        output=output,
        error=error,
        calls=calls,
        wall_seconds=time.monotonic() - started,
        max_output_tokens=options.max_output_tokens,
    )


async def _answer_global(
    send: Callable[[dict[str, object]], Awaitable[None]],
    discovery: _Discovery,
    call_id: object,
    name: str,
    args: object,
) -> None:
    """Answer the script's call of a discovery global (``search_tools`` and the like); a
    failure, sending the value included, reaches the script as an error."""
    try:
        value = discovery.call(name, args if isinstance(args, list) else [])
        await send({"type": "result", "id": call_id, "ok": True, "value": value})
    except Exception as exc:  # noqa: BLE001 - the script sees it as an error
        await send({"type": "result", "id": call_id, "ok": False, "error": str(exc)})


def _worker_outcome(
    failure: str | None, result: dict[str, Any]
) -> tuple[bool, str | None, str | None, dict[str, object] | None]:
    """(ok, error, value, store) of a finished script: its failure, or its ``done`` message."""
    if failure is not None:
        return False, failure, None, None
    if result.get("ok"):
        return True, None, result.get("value"), result.get("store")
    return False, str(result.get("error") or "Script failed"), None, None


def _record_outcome(
    record: dict[str, Any], outcome: dict[str, Any], name: str, duration_ms: float, cancelled: bool
) -> None:
    """A finished tool call's id, duration and status (and error preview) in its record."""
    record["id"] = (outcome.get("toolCall") or {}).get("id", record["id"])
    record["durationMs"] = duration_ms
    result = outcome.get("result") or {}
    if outcome.get("isError"):
        record["status"] = "cancelled" if cancelled else "error"
        record["error"] = _truncate(content_text(result.get("content")) or f'Tool "{name}" failed', ERROR_PREVIEW_CHARS)
    else:
        record["status"] = "ok"


def _call_result(call_id: Any, tool: dict[str, Any], outcome: dict[str, Any], name: str) -> dict[str, Any]:
    """The script's answer to a tool call: the structured content where the tool declares an
    output schema, else the text (or the error text)."""
    result = outcome.get("result") or {}
    if tool.get("outputSchema") is not None and result.get("structuredContent") is not None:
        return {"type": "result", "id": call_id, "ok": True, "value": result["structuredContent"]}
    if outcome.get("isError"):
        error = content_text(result.get("content")) or f'Tool "{name}" failed'
        return {"type": "result", "id": call_id, "ok": False, "error": error}
    return {"type": "result", "id": call_id, "ok": True, "value": content_text(result.get("content"))}


async def _run_worker(
    tool_call_id: str,
    code: str,
    remaining_s: float,
    signal: AbortSignal | None,
    host: CodemodeHost | None,
    by_name: dict[str, dict[str, object]],
    discovery: _Discovery,
    calls: list[dict[str, object]],
    publish: Callable[[], Awaitable[None]],
) -> tuple[list[dict[str, object]], bool, str | None, str | None, dict[str, object] | None]:
    output: list[dict[str, object]] = []
    result: dict[str, object] = {}
    nested = AbortController()  # cancels the script's calls still running when it ends
    process = await anyio.open_process(
        [sys.executable, "-I", "-S", str(WORKER)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    children.register(process.pid, pgid=process.pid)
    stderr_tail = bytearray()
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    write_lock = anyio.Lock()

    async def send(message: dict[str, object]) -> None:
        async with write_lock:
            with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await stdin.send((json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass"))

    async def run_call(message: dict[str, object]) -> None:
        call_id, name, args = message.get("id"), str(message.get("name")), message.get("args")
        if message.get("kind") == "global":
            await _answer_global(send, discovery, call_id, name, args)
            return
        tool = by_name.get(name)
        if tool is None or host is None:
            await send({"type": "result", "id": call_id, "ok": False, "error": f"Tool {name} not found"})
            return
        record: dict[str, object] = {
            "id": f"{tool_call_id}/?",
            "name": name,
            "args": _preview(args),
            "status": "running",
        }
        calls.append(record)
        await publish()
        begun = time.monotonic()
        outcome = await host.execute_tool(name, args if isinstance(args, dict) else {}, nested.signal)
        _record_outcome(record, outcome, name, (time.monotonic() - begun) * 1000, nested.signal.aborted)
        await publish()
        await send(_call_result(call_id, tool, outcome, name))

    async def read_stderr() -> None:
        with suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for chunk in stderr:
                stderr_tail.extend(chunk)
                del stderr_tail[:-4000]

    running: set[int] = set()
    idle = anyio.Event()

    async def tracked(message: dict[str, object]) -> None:
        nonlocal idle
        try:
            await run_call(message)
        finally:
            running.discard(id(message))
            idle.set()
            idle = anyio.Event()

    failure: str | None = None
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(read_stderr)
            catalog = [{"id": identifier(n), "name": n, "description": discovery.samples[n]} for n in by_name]
            await send({"type": "start", "code": code, "tools": catalog, "store": host.read_store() if host else {}})
            with anyio.CancelScope() as reading:

                async def watch_abort() -> None:
                    nonlocal failure
                    assert signal is not None
                    await signal.wait()
                    failure = f"Script aborted: {signal.reason or 'Execution aborted'}"
                    reading.cancel()

                if signal is not None:
                    tg.start_soon(watch_abort)
                with anyio.move_on_after(remaining_s) as deadline:
                    buffer = b""
                    async for chunk in stdout:
                        buffer += chunk
                        *lines, buffer = buffer.split(b"\n")
                        for line in lines:
                            try:
                                message = json.loads(line)
                            except ValueError:
                                continue
                            kind = message.get("type")
                            if kind == "output":
                                output.append(message.get("item") or {})
                            elif kind == "call":
                                running.add(id(message))
                                tg.start_soon(tracked, message)
                            elif kind == "done":
                                result = message
                                break
                        if result:
                            break
                if deadline.cancelled_caught and failure is None:
                    failure = f"Script timed out: Execution timed out after {round(remaining_s * 1000)} ms"
            if not result and failure is None:
                tail = stderr_tail.decode("utf-8", "replace").strip()
                failure = "Script sandbox failed: the script process exited" + (f"\n{tail}" if tail else "")
            # The script is over: kill it, then cancel its calls still running and let them
            # report their end before the script's.
            _kill(process.pid)
            nested.abort("The script ended")
            with anyio.move_on_after(CALLS_END_GRACE_S):
                while running:
                    await idle.wait()
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            nested.abort("The script ended")
            _kill(process.pid)
            with anyio.move_on_after(EXIT_GRACE_S), suppress(Exception):
                await process.wait()
            children.unregister(process.pid)
            with anyio.move_on_after(CLOSE_GRACE_S), suppress(Exception):
                await process.aclose()
    return (output, *_worker_outcome(failure, result))


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signals.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        with suppress(ProcessLookupError, PermissionError, OSError):
            os.kill(pid, signals.SIGKILL)

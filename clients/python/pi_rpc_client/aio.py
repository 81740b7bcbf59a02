"""Async pi RPC client on anyio (asyncio or trio): owns the child process, the reader tasks, id correlation
and event fan-out. Needs the ``async`` extra (``pip install 'pi-rpc-client[async]'``); the sync client does not.

Same wire semantics as :mod:`pi_rpc_client.client`: stdout is split on ``b"\\n"`` only, commands are
correlated by generated ids, everything that is not a correlated response goes to the event streams and
listeners, and a dead process fails every pending call and stream at once (RpcProcessExited).

Task model: ``start()`` (or ``async with``) enters a task group holding two reader tasks (stdout, stderr);
``aclose()`` leaves it, so both must run in the same task — which ``async with`` guarantees.
"""

from __future__ import annotations

import inspect
import math
import os
import signal
import ssl
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

try:
    import anyio
    import anyio.abc
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError("pi_rpc_client.aio needs anyio: pip install 'pi-rpc-client[async]'") from exc

from .aio_wire import _DEFAULT, _STREAM_ERRORS, RpcConnectionClosed, _open_wire, _Wire
from .client import PromptResult, _key
from .commands import AsyncCommandsMixin, Post, Record, Timeout, _ProcessCommandSet, build_command
from .connection import _read_token
from .errors import RpcCommandError, RpcError, RpcProcessExited, RpcProtocolError, RpcTimeoutError
from .framing import LineSplitter, decode_record, encode_record
from .handles import DEFAULT_HANDLE, belongs_to, open_session_command
from .host_tools import result_record
from .sequence import EventsLost, SeqTracker

EventListener = Callable[[Record], Awaitable[None] | None]
_PIPE_ERRORS = (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError)


class _Pending:
    __slots__ = ("command", "done", "response", "error")

    def __init__(self, command: str) -> None:
        self.command = command
        self.done = anyio.Event()
        self.response: Record | None = None
        self.error: BaseException | None = None


class AsyncEventStream:
    """A subscription to every record that is not a correlated response (events, UI requests, stray responses).

    Created by :meth:`AsyncRpcClient.events`; buffers (unbounded) from the moment it is created, so
    subscribe *before* sending the command whose events you want. ``async for`` ends when the process
    is gone. Used bare (``async for ev in client.events()``) the subscription closes when the loop is
    left; inside ``with client.events() as stream:`` it stays open until the ``with`` block ends.
    With ``accept`` it keeps only the records it accepts (one session handle's).
    """

    def __init__(self, client: "AsyncRpcClient", accept: Callable[[Record], bool] | None = None) -> None:
        self._client = client
        self._accept = accept
        self._send, self._recv = anyio.create_memory_object_stream[Record](math.inf)
        self._managed = False
        self.closed = False

    def _push(self, rec: Record) -> None:
        if self._accept is not None and not self._accept(rec):
            return
        try:
            self._send.send_nowait(rec)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass

    def _end(self) -> None:
        # closing the send side makes receive() raise EndOfStream once the buffer is drained
        self._send.close()

    async def next(self, timeout: float | None = None) -> Record:
        """Next record; RpcTimeoutError after ``timeout`` s, RpcProcessExited when the stream ended."""
        try:
            with anyio.fail_after(timeout):
                return await self._recv.receive()
        except TimeoutError:
            raise RpcTimeoutError("next event", timeout or 0.0) from None
        except anyio.EndOfStream:
            raise self._client._exit_error("waiting for events") from None
        except anyio.ClosedResourceError:
            raise RpcError("event stream is closed") from None

    async def wait_for(self, match: str | Callable[[Record], bool], timeout: float | None = None) -> Record:
        """Skip records until one has ``type == match`` (or ``match(record)`` is true)."""
        pred = (lambda r: r.get("type") == match) if isinstance(match, str) else match
        try:
            with anyio.fail_after(timeout):
                while True:
                    rec = await self.next()
                    if pred(rec):
                        return rec
        except TimeoutError:
            what = match if isinstance(match, str) else "<predicate>"
            raise RpcTimeoutError(f"event {what}", timeout or 0.0) from None

    def drain(self) -> list[Record]:
        """Everything buffered right now, without waiting."""
        out: list[Record] = []
        while True:
            try:
                out.append(self._recv.receive_nowait())
            except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                return out

    async def __aiter__(self) -> AsyncIterator[Record]:
        try:
            while True:
                try:
                    rec = await self.next()
                except RpcProcessExited:
                    return
                yield rec
        finally:
            if not self._managed:
                self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._client._unsubscribe(self)
            self._send.close()
            self._recv.close()

    def __enter__(self) -> "AsyncEventStream":
        self._managed = True
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> "AsyncEventStream":
        return self.__enter__()

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class AsyncSequencedEvents:
    """:class:`pi_rpc_client.sequence.SequencedEvents` on anyio: events in ``seq`` order, each once,
    gaps (a bounded buffer that overflowed, a resumed consumer) filled from ``get_events``. Create
    with ``await client.sequenced_events()``; ``await next()``, ``async for``; ``close()``."""

    def __init__(self, client: "AsyncRpcClient", *, max_buffer: int | None = None) -> None:
        if max_buffer is not None and max_buffer < 1:
            raise ValueError("max_buffer must be positive")
        self._client = client
        self._max = max_buffer
        self._send, self._recv = anyio.create_memory_object_stream[Record](math.inf)
        self._size = 0
        self._ready: deque[Record] = deque()
        self._resume = False
        self.dropped = 0
        self._dropped_through = 0
        self.replayed = 0
        self.closed = False
        self.tracker = SeqTracker()
        self._unobserve = client._observe_records(self._on_record)

    async def _begin(self, since: int | None, run_id: bool | None, timeout: Timeout) -> "AsyncSequencedEvents":
        try:
            if since is None:
                command: Record = {"type": "set_event_options", "seq": True}
                if run_id is not None:
                    command["runId"] = run_id
                response = await self._client.request(command, timeout)
                self.tracker.last_seq = int(response.get("seq", 0))
            else:
                self.tracker.last_seq = since
                self._resume = True
        except BaseException:
            self.close()
            raise
        return self

    def _on_record(self, rec: Record | None) -> None:
        if rec is None:
            self._send.close()
            return
        if rec.get("type") == "response":
            seq = rec.get("seq")
            if type(seq) is int:
                self.tracker.note_response(seq)
            return
        if self._max is not None and self._size >= self._max:
            self.dropped += 1
            seq = rec.get("seq")
            if type(seq) is int:
                self._dropped_through = max(self._dropped_through, seq)
            return
        try:
            self._send.send_nowait(rec)
            self._size += 1
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass

    async def _catch_up(self, timeout: Timeout, until_seq: int | None = None) -> None:
        replay = await self._client.request({"type": "get_events", "sinceSeq": self.tracker.last_seq}, timeout)
        missed = self.tracker.fill(replay.get("data") or {}, until_seq)
        self.replayed += len(missed)
        self._ready.extend(missed)

    async def next(self, timeout: float | None = None) -> Record:
        """The next event in order; RpcTimeoutError, RpcProcessExited, or EventsLost (see sequence.py)."""
        if self._resume:
            self._resume = False
            await self._catch_up(timeout)
        while True:
            if self._ready:
                return self._ready.popleft()
            if self._dropped_through > self.tracker.last_seq and self._size == 0:
                await self._catch_up(timeout)  # the newest records were let go: fetch them now
                continue
            try:
                with anyio.fail_after(timeout):
                    item = await self._recv.receive()
            except TimeoutError:
                raise RpcTimeoutError("next event", timeout or 0.0) from None
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                raise self._client._exit_error("waiting for events") from None
            self._size -= 1
            verdict = self.tracker.classify(item)
            if verdict == SeqTracker.DELIVER:
                return item
            if verdict == SeqTracker.GAP:
                try:
                    await self._catch_up(timeout, until_seq=item["seq"])
                finally:  # after EventsLost too, the stream goes on with this event
                    self.tracker.last_seq = item["seq"]
                    self._ready.append(item)

    async def __aiter__(self) -> AsyncIterator[Record]:
        while True:
            try:
                yield await self.next()
            except RpcProcessExited:
                return

    @property
    def last_seq(self) -> int:
        return self.tracker.last_seq

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._unobserve()
            self._send.close()

    def __enter__(self) -> "AsyncSequencedEvents":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _only(accept: Callable[[Record], bool], listener: EventListener) -> EventListener:
    def filtered(rec: Record) -> Awaitable[None] | None:
        return listener(rec) if accept(rec) else None

    return filtered


async def _await_quietly(awaitable: Awaitable[Any]) -> None:
    try:
        await awaitable
    except Exception:  # noqa: BLE001 - a faulty listener must not take down the client's task group
        pass


class AsyncHostToolCall:
    """One call of a host tool on the async client: arguments and progress updates."""

    def __init__(self, client: AsyncRpcClient, record: Record) -> None:
        self._client = client
        self.id: str = record["id"]
        self.tool_call_id: str = record.get("toolCallId", "")
        self.name: str = record.get("name", "")
        self.arguments: Record = record.get("arguments") or {}
        self.handle: str = record.get("handle") or DEFAULT_HANDLE
        self.scope = anyio.CancelScope()

    async def update(self, content: Any, details: Any = None) -> None:
        record: Record = {
            "type": "host_tool_update",
            "id": self.id,
            "content": result_record(self.id, content)["content"],
        }
        if details is not None:
            record["details"] = details
        await self._client.notify(record)


class AsyncHostToolRunner:
    """The async client's host tools per session handle, and the answers to their calls."""

    def __init__(self, client: AsyncRpcClient) -> None:
        self._client = client
        self._tools: dict[str, dict[str, tuple[Record, Callable[..., Any]]]] = {}
        self._calls: dict[str, AsyncHostToolCall] = {}
        client.on_event(self._on_record)

    async def register(
        self, name: str, parameters: Record | None, description: str, fn: Callable[..., Any], handle: str | None
    ) -> None:
        key = handle or DEFAULT_HANDLE
        spec: Record = {"name": name, "description": description}
        if parameters is not None:
            spec["parameters"] = parameters
        tools = {**self._tools.get(key, {}), name: (spec, fn)}
        command: Record = {"type": "set_host_tools", "tools": [entry[0] for entry in tools.values()]}
        if handle is not None:
            command["handle"] = handle
        await self._client.request(command)
        self._tools[key] = tools

    async def _on_record(self, record: Record) -> None:
        kind = record.get("type")
        if kind == "host_tool_cancelled":
            call = self._calls.get(record.get("id", ""))
            if call is not None:
                call.scope.cancel()
            return
        if kind != "host_tool_request":
            return
        call = AsyncHostToolCall(self._client, record)
        entry = self._tools.get(call.handle, {}).get(call.name)
        self._calls[call.id] = call
        answer: Record | None = None
        try:
            with call.scope:
                try:
                    if entry is None:
                        raise RuntimeError(f"No handler for {call.name}")
                    value = entry[1](call.arguments, call)
                    if inspect.isawaitable(value):
                        value = await value
                    answer = result_record(call.id, value)
                except Exception as exc:  # noqa: BLE001 - the handler's failure is the model's error result
                    answer = result_record(call.id, {"content": str(exc) or type(exc).__name__, "isError": True})
            if answer is not None and not call.scope.cancel_called:
                await self._client.notify(answer)
        except Exception:  # noqa: BLE001 - the process is gone: nobody to answer
            pass
        finally:
            self._calls.pop(call.id, None)


class AsyncRpcClient(AsyncCommandsMixin, _ProcessCommandSet):
    """Spawn ``argv`` (e.g. ``["pi", "--mode", "rpc"]``) and talk JSONL to it, asynchronously.

    ``async with AsyncRpcClient(argv) as pi: await pi.get_state()``; or ``await start()`` / ``await aclose()``
    from the same task. The 33 command methods are coroutines with the sync client's signatures.
    ``await open_session(...)`` hosts another session in the process (:class:`AsyncSessionHandle`).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        inherit_env: bool = True,
        default_timeout: float | None = 60.0,
        stderr_tail_bytes: int = 64 * 1024,
        stderr_callback: Callable[[bytes], None] | None = None,
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env: dict[str, str] = dict(os.environ) if inherit_env else {}
        self.env.update(env or {})
        self.default_timeout = default_timeout
        self._stderr_limit = stderr_tail_bytes
        self._stderr_cb = stderr_callback
        self._stderr = bytearray()
        self._pending: dict[str, _Pending] = {}
        self._streams: list[AsyncEventStream] = []
        self._listeners: list[EventListener] = []
        # Called on the reader task with every record (correlated responses too), then None at the end.
        self._record_observers: list[Callable[[Record | None], None]] = []
        self._next_id = 0
        self._closed_stream = False
        self._stdin_closed = False
        self._protocol_errors: list[RpcProtocolError] = []
        self.unmatched_responses: list[Record] = []
        self.proc: anyio.abc.Process | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._host_tools: AsyncHostToolRunner | None = None
        self._write_lock: anyio.Lock | None = None
        self._stdout_done: anyio.Event | None = None
        self._stderr_done: anyio.Event | None = None
        self._closed = False

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> "AsyncRpcClient":
        if self.proc is not None:
            raise RpcError("client already started")
        self._write_lock = anyio.Lock()
        self._stdout_done = anyio.Event()
        self._stderr_done = anyio.Event()
        self.proc = await anyio.open_process(
            self.argv,
            cwd=self.cwd,
            env=self.env,
            start_new_session=True,  # own group: SIGKILL reaches tools
        )
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._read_stderr, name="pi-rpc-stderr")
        self._tg.start_soon(self._read_stdout, name="pi-rpc-stdout")
        return self

    def _require_started(self) -> None:
        if self.proc is None:
            raise RpcError("client not started")

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode if self.proc else None

    @property
    def stderr_text(self) -> str:
        """Captured stderr tail (last ``stderr_tail_bytes`` bytes), decoded leniently."""
        return bytes(self._stderr).decode("utf-8", errors="replace")

    @property
    def protocol_errors(self) -> list[RpcProtocolError]:
        """Stdout lines that were not JSON objects (kept, not raised, so one bad line cannot kill a session)."""
        return list(self._protocol_errors)

    async def aclose(self, timeout: float = 5.0) -> int | None:
        """Close stdin, wait; then SIGTERM, wait; then SIGKILL the process group. Returns the exit code.

        Shielded: it completes even when the calling task is being cancelled.
        """
        proc = self.proc
        if proc is None:
            return None
        if self._closed:
            return proc.returncode
        self._closed = True
        assert self._write_lock is not None and self._tg is not None and self._stdout_done is not None
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(timeout):
                async with self._write_lock:  # never cut a record in half
                    self._stdin_closed = True
                    if proc.stdin is not None:
                        try:
                            await proc.stdin.aclose()
                        except _PIPE_ERRORS:
                            pass
            for sig in (None, signal.SIGTERM, signal.SIGKILL):
                if sig is not None and proc.returncode is None:
                    try:
                        if sig == signal.SIGKILL:
                            os.killpg(proc.pid, sig)  # also take down tool subprocesses in its group
                        else:
                            proc.send_signal(sig)
                    except (ProcessLookupError, PermissionError):
                        pass
                with anyio.move_on_after(timeout):
                    await proc.wait()
                if proc.returncode is not None:
                    break
            # the readers end at EOF; a grandchild still holding the pipe must not keep us here
            with anyio.move_on_after(2.0):
                await self._stdout_done.wait()
        # outside the shield: the task group's scope encloses it, so it must be left first
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                await stream.aclose()
        return proc.returncode

    async def __aenter__(self) -> "AsyncRpcClient":
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ reading
    async def _read_stdout(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        splitter = LineSplitter()
        try:
            async for chunk in self.proc.stdout:
                for line in splitter.feed(chunk):
                    self._dispatch_line(line)
            tail = splitter.rest()
            if tail.strip():
                self._dispatch_line(tail)
        except _PIPE_ERRORS:
            pass
        finally:
            with anyio.CancelScope(shield=True):
                await self._on_stream_end()

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        try:
            async for chunk in self.proc.stderr:
                self._stderr += chunk
                if len(self._stderr) > self._stderr_limit:
                    del self._stderr[: len(self._stderr) - self._stderr_limit]
                if self._stderr_cb:
                    try:
                        self._stderr_cb(chunk)
                    except Exception:  # noqa: BLE001 - diagnostics callback must not kill the reader
                        pass
        except _PIPE_ERRORS:
            pass
        finally:
            assert self._stderr_done is not None
            self._stderr_done.set()

    def _dispatch_line(self, line: bytes) -> None:
        try:
            rec = decode_record(line)
        except ValueError as e:
            self._protocol_errors.append(RpcProtocolError(line, f"invalid JSON on stdout ({e})"))
            return
        if not isinstance(rec, dict):
            self._protocol_errors.append(RpcProtocolError(line, "stdout record is not an object"))
            return
        for observe in list(self._record_observers):
            observe(rec)
        if rec.get("type") == "response" and "id" in rec:
            pending = self._pending.pop(_key(rec["id"]), None)
            if pending is not None:
                pending.response = rec
                pending.done.set()
                return
        if rec.get("type") == "response":
            self.unmatched_responses.append(rec)
        self._fan_out(rec)

    def _fan_out(self, rec: Record) -> None:
        for s in list(self._streams):
            s._push(rec)
        for fn in list(self._listeners):
            try:
                result = fn(rec)
            except Exception:  # noqa: BLE001 - a faulty listener must not stop the reader
                continue
            if inspect.isawaitable(result) and self._tg is not None:
                self._tg.start_soon(_await_quietly, result)

    async def _on_stream_end(self) -> None:
        # stdout closed: the process is exiting; collect its code and the rest of stderr for the report
        assert self.proc is not None and self._stderr_done is not None and self._stdout_done is not None
        try:
            with anyio.move_on_after(5.0):
                await self.proc.wait()
            with anyio.move_on_after(2.0):
                await self._stderr_done.wait()
        finally:
            self._closed_stream = True
            pending = list(self._pending.values())
            self._pending.clear()
            for p in pending:
                p.error = self._exit_error(f"waiting for the response to {p.command}")
                p.done.set()
            for s in list(self._streams):
                s._end()
            for observe in list(self._record_observers):
                observe(None)
            self._stdout_done.set()

    def _exit_error(self, context: str) -> RpcProcessExited:
        code = self.proc.returncode if self.proc else None
        return RpcProcessExited(code, self.stderr_text[-4000:], context)

    # ------------------------------------------------------------------ events
    def events(self, *, handle: str | None = None) -> AsyncEventStream:
        """Subscribe to records from now on (events, extension UI requests, uncorrelated responses);
        with ``handle``, only that session's (for ``"default"``: the untagged records too)."""
        s = AsyncEventStream(self, None if handle is None else belongs_to(handle))
        self._streams.append(s)
        if self._closed_stream:
            s._end()
        return s

    def _unsubscribe(self, s: AsyncEventStream) -> None:
        if s in self._streams:
            self._streams.remove(s)

    async def sequenced_events(
        self,
        *,
        max_buffer: int | None = None,
        since: int | None = None,
        run_id: bool | None = None,
        timeout: Timeout = ...,
    ) -> AsyncSequencedEvents:
        """Turn ``seq`` on (pi_rpc beyond upstream) and get the events in order, each once, gaps
        recovered with ``get_events``; as :meth:`RpcClient.sequenced_events`."""
        stream = AsyncSequencedEvents(self, max_buffer=max_buffer)
        return await stream._begin(since, run_id, self.default_timeout if timeout is ... else timeout)

    def _observe_records(self, observer: Callable[[Record | None], None]) -> Callable[[], None]:
        self._record_observers.append(observer)
        if self._closed_stream:
            observer(None)

        def unobserve() -> None:
            if observer in self._record_observers:
                self._record_observers.remove(observer)

        return unobserve

    def on_event(self, listener: EventListener, *, handle: str | None = None) -> Callable[[], None]:
        """Call ``listener(record)`` for every non-response record (with ``handle``: that session's
        only); returns unsubscribe.

        A plain function runs inline on the reader task (keep it quick, never block); a coroutine
        function runs as its own task, so it may await commands. Exceptions are swallowed.
        """
        if handle is not None:
            listener = _only(belongs_to(handle), listener)
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    # ------------------------------------------------------------------ writing
    async def send_raw(self, data: bytes) -> None:
        """Write bytes to stdin as-is (tests of framing edge cases).

        The write itself is shielded from cancellation: a record cut in half would corrupt the stream
        for every later command. Waiting for the write lock is cancellable.
        """
        proc = self.proc
        if proc is None or proc.stdin is None or self._write_lock is None:
            raise RpcError("client not started")
        async with self._write_lock:
            if self._stdin_closed:
                raise RpcError("client is closed")
            try:
                with anyio.CancelScope(shield=True):
                    await proc.stdin.send(data)
            except _PIPE_ERRORS as e:
                with anyio.move_on_after(2.0):
                    await proc.wait()
                raise self._exit_error("writing to stdin") from e

    async def notify(self, record: Record) -> None:
        """Send a record that gets no response (``extension_ui_response``)."""
        await self.send_raw(encode_record(record))

    async def add_host_tool(
        self,
        name: str,
        parameters: Record | None,
        fn: Callable[[Record, AsyncHostToolCall], Any],
        *,
        description: str = "",
        handle: str | None = None,
    ) -> None:
        """Register ``fn(args, call)`` (a function or coroutine function) as a tool the model can call
        (pi_rpc ``set_host_tools``) and answer its calls, each in its own task. It returns a str,
        content blocks or ``{"content", "isError", "details"}``; raising is an error result. The task is
        cancelled when the server cancels the call (``abort``, ``--host-tool-timeout``)."""
        if self._host_tools is None:
            self._host_tools = AsyncHostToolRunner(self)
        await self._host_tools.register(name, parameters, description, fn, handle)

    def new_id(self) -> str:
        self._next_id += 1
        return f"aio-{self._next_id}"

    async def request(self, command: Record, timeout: Timeout = ..., *, check: bool = True) -> Record:
        """Send one command, wait for its response (correlated by ``id``, generated when absent).

        Raises RpcCommandError for ``success: false`` when ``check``, RpcTimeoutError, RpcProcessExited.
        """
        if timeout is ...:
            timeout = self.default_timeout
        cmd = dict(command)
        if "id" not in cmd:
            cmd["id"] = self.new_id()
        self._require_started()
        if self._closed_stream:
            raise self._exit_error(f"sending {cmd.get('type')}")
        pending = _Pending(str(cmd.get("type")))
        key = _key(cmd["id"])
        self._pending[key] = pending
        try:
            await self.send_raw(encode_record(cmd))
            try:
                with anyio.fail_after(timeout):
                    await pending.done.wait()
            except TimeoutError:
                if not pending.done.is_set():
                    raise RpcTimeoutError(f"response to {cmd.get('type')} (id {cmd['id']!r})", timeout or 0.0) from None
        finally:
            if self._pending.get(key) is pending:  # timed out, cancelled or failed to send
                del self._pending[key]
        if pending.error is not None:
            raise pending.error
        assert pending.response is not None
        if check and not pending.response.get("success"):
            raise RpcCommandError(pending.response)
        return pending.response

    async def _command(self, type_: str, timeout: Timeout, post: Post, /, **fields: Any) -> Any:
        data = (await self.request(build_command(type_, fields), timeout)).get("data")
        return data if post is None else post(data)

    # ------------------------------------------------------------------ runs
    async def prompt_and_wait(
        self,
        message: str,
        images: list[Record] | None = None,
        *,
        streaming_behavior: str | None = None,
        timeout: Timeout = ...,
    ) -> PromptResult:
        """Send a prompt and collect events until ``agent_settled`` (not ``agent_end``: retries,
        compaction and queued follow-ups happen after it). A ``handled`` prompt returns at once.
        ``timeout`` bounds the whole run. With several sessions hosted, it is the ``"default"``
        session's run (its records only)."""
        return await self._run_prompt(
            lambda: self.events(handle=DEFAULT_HANDLE),
            self.request,
            message,
            images,
            streaming_behavior=streaming_behavior,
            timeout=timeout,
        )

    async def _run_prompt(
        self,
        subscribe: Callable[[], AsyncEventStream],
        request: Callable[[Record, Timeout], Awaitable[Record]],
        message: str,
        images: list[Record] | None,
        *,
        streaming_behavior: str | None,
        timeout: Timeout,
    ) -> PromptResult:
        # Shared by the client and its session handles: they differ in which records the
        # subscription keeps and in the handle the request carries.
        if timeout is ...:
            timeout = self.default_timeout
        waiting_for = "response to prompt"
        with subscribe() as stream:
            cmd = build_command(
                "prompt", {"message": message, "images": images, "streamingBehavior": streaming_behavior}
            )
            try:
                with anyio.fail_after(timeout):
                    response = await request(cmd, None)
                    disposition = (response.get("data") or {}).get("disposition")
                    result = PromptResult(response, disposition)
                    if disposition == "handled":
                        return result
                    waiting_for = "agent_settled"
                    while True:
                        ev = await stream.next()
                        result.events.append(ev)
                        if ev.get("type") == "agent_settled":
                            return result
            except TimeoutError as e:
                if isinstance(e, RpcError):
                    raise
                raise RpcTimeoutError(waiting_for, timeout or 0.0) from None

    # ------------------------------------------------------------------ session handles (pi_rpc)
    async def open_session(
        self,
        cwd: str | os.PathLike[str] | None = None,
        session_path: str | os.PathLike[str] | None = None,
        model: str | None = None,
        thinking_level: str | None = None,
        no_session: bool | None = None,
        *,
        timeout: Timeout = ...,
    ) -> "AsyncSessionHandle":
        """Host another session in this process; as :meth:`RpcClient.open_session`."""
        command = open_session_command(
            None if cwd is None else os.fspath(cwd),
            None if session_path is None else os.fspath(session_path),
            model,
            thinking_level,
            no_session,
        )
        return AsyncSessionHandle(self, (await self.request(command, timeout)).get("data") or {})

    @staticmethod
    def connect(address: str, token: str | None = None, **kwargs: Any) -> "AsyncRpcConnection":
        """A client of a running ``pi --mode rpc --listen <address>`` server instead of a spawned
        one (``unix:<path>``, ``tcp:<host>:<port>``, ``ws://…``/``wss://…``; ``token`` or
        ``token_file=`` for TCP and WebSocket; ``reconnect=True``, ``tls=``): ``async with
        AsyncRpcClient.connect(address) as pi`` or ``pi = await AsyncRpcClient.connect(address)``.
        See :mod:`pi_rpc_client.aio_connection`."""
        return AsyncRpcConnection(address, token=token, **kwargs)

    def session_handle(self, handle: str = DEFAULT_HANDLE) -> "AsyncSessionHandle":
        """A handle object for a session already open (``"default"``, or one from
        :meth:`list_open_sessions`), without a request."""
        return AsyncSessionHandle(self, {"handle": handle})


class AsyncSessionHandle(AsyncCommandsMixin):
    """:class:`pi_rpc_client.handles.SessionHandle` on anyio: the client's per-session command methods
    as coroutines, bound to ``handle``; ``events()``, ``on_event()``, ``prompt_and_wait()`` of this
    session only; ``await close()`` (or ``async with``) sends ``close_session``."""

    def __init__(self, client: AsyncRpcClient, info: Record) -> None:
        self.client = client
        self.handle: str = str(info["handle"])
        self.session_id: str | None = info.get("sessionId")
        self.session_file: str | None = info.get("sessionFile")
        self.cwd: str | None = info.get("cwd")
        self.closed = False

    def __repr__(self) -> str:
        closed = ", closed" if self.closed else ""
        return f"AsyncSessionHandle({self.handle!r}, session_id={self.session_id!r}{closed})"

    @property
    def default_timeout(self) -> float | None:
        return self.client.default_timeout

    async def request(self, command: Record, timeout: Timeout = ..., *, check: bool = True) -> Record:
        """:meth:`AsyncRpcClient.request` for this handle (``handle`` set unless the record has one)."""
        return await self.client.request(
            {**command, "handle": command.get("handle", self.handle)}, timeout, check=check
        )

    async def _command(self, type_: str, timeout: Timeout, post: Post, /, **fields: Any) -> Any:
        data = (await self.request(build_command(type_, fields), timeout)).get("data")
        return data if post is None else post(data)

    def events(self) -> AsyncEventStream:
        """Subscribe to this handle's records from now on."""
        return self.client.events(handle=self.handle)

    def on_event(self, listener: EventListener) -> Callable[[], None]:
        """``listener(record)`` for each of this handle's records; returns unsubscribe."""
        return self.client.on_event(listener, handle=self.handle)

    async def prompt_and_wait(
        self,
        message: str,
        images: list[Record] | None = None,
        *,
        streaming_behavior: str | None = None,
        timeout: Timeout = ...,
    ) -> PromptResult:
        """:meth:`AsyncRpcClient.prompt_and_wait` in this session."""
        return await self.client._run_prompt(
            self.events, self.request, message, images, streaming_behavior=streaming_behavior, timeout=timeout
        )

    async def close(self, *, timeout: Timeout = ...) -> None:
        """``close_session`` (idempotent); ``"default"`` cannot be closed."""
        if self.closed:
            return
        await self.client.close_session(self.handle, timeout=timeout)
        self.closed = True

    async def __aenter__(self) -> "AsyncSessionHandle":
        return self

    async def __aexit__(self, *exc: object) -> None:
        if not self.closed and self.client.returncode is None:
            await self.close()


class AsyncRpcConnection(AsyncRpcClient):
    """An :class:`AsyncRpcClient` over a connection to a listening server (see the module
    docstring). ``await`` it (or ``async with``) to connect."""

    def __init__(
        self,
        address: str,
        *,
        token: str | None = None,
        token_file: str | os.PathLike[str] | None = None,
        reconnect: bool = False,
        reconnect_for: float = 30.0,
        tls: ssl.SSLContext | None = None,
        default_timeout: float | None = 60.0,
        connect_timeout: float = 10.0,
    ) -> None:
        super().__init__([], default_timeout=default_timeout)
        self.address = address
        self.token = _read_token(token, token_file)
        self.reconnect = reconnect
        self.reconnect_for = reconnect_for
        self.tls = tls
        self.connect_timeout = connect_timeout
        self.attached: set[str] = {_DEFAULT}
        self.last_seq = 0
        self.reconnects: list[Record] = []
        self._closing = False
        self._started = False
        self._wire: _Wire | None = None
        self._observe_records(self._track)

    def __await__(self) -> Any:
        return self.start().__await__()

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> AsyncRpcConnection:
        if self._started:
            raise RpcError("client already started")
        self._started = True
        self._write_lock = anyio.Lock()
        self._stdout_done = anyio.Event()
        self._stderr_done = anyio.Event()
        self._stderr_done.set()  # (a connection has no stderr)
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        try:
            await self._connect()
        except BaseException:
            self._closing = True
            await self._leave_task_group()
            raise
        return self

    async def aclose(self, timeout: float = 5.0) -> int | None:
        """Close the connection; the server and its sessions go on. Returns None."""
        if not self._started or self._closed:
            return None
        self._closed = True
        self._closing = True
        wire = self._wire
        with anyio.CancelScope(shield=True):
            if wire is not None:
                await wire.aclose()
            assert self._stdout_done is not None
            with anyio.move_on_after(timeout):
                await self._stdout_done.wait()
        await self._leave_task_group()
        return None

    async def _leave_task_group(self) -> None:
        tg = self._tg
        if tg is None:
            return
        self._tg = None
        tg.cancel_scope.cancel()
        await tg.__aexit__(None, None, None)

    @property
    def pid(self) -> int | None:
        return None

    @property
    def returncode(self) -> int | None:
        return None

    def _require_started(self) -> None:
        if not self._started:
            raise RpcError("client not started")

    def _exit_error(self, context: str) -> RpcProcessExited:
        return RpcConnectionClosed(self.address, context)

    # ------------------------------------------------------------------ the connection
    async def _connect(self, *, since: int | None = None) -> None:
        """Connect, authenticate, number events; after a drop (``since``: the last seq received on
        the old connection), attach every session again from there."""
        ws = self.address.startswith(("ws://", "wss://"))
        wire = await _open_wire(self.address, self.token if ws else None, self.tls, self.connect_timeout)
        self._wire = wire
        assert self._tg is not None
        self._tg.start_soon(self._read_wire, wire, name="pi-rpc-connection")
        if self.token is not None and not ws:
            await self.request({"type": "authenticate", "token": self.token}, self.connect_timeout)
        if self.reconnect:
            await self.request({"type": "set_event_options", "seq": True}, self.connect_timeout)
        if since is not None:
            if _DEFAULT not in self.attached:
                await self.request({"type": "detach_session", "handle": _DEFAULT}, self.connect_timeout)
            for handle in sorted(self.attached):
                response = await self.request(
                    {"type": "attach_session", "handle": handle, "since": since}, self.connect_timeout
                )
                self.reconnects.append({"handle": handle, "since": since, **(response.get("data") or {})})

    async def _read_wire(self, wire: _Wire) -> None:
        splitter = LineSplitter()
        async for chunk in wire.chunks():
            for line in splitter.feed(chunk):
                self._dispatch_line(line)
        if wire is not self._wire:
            return
        with anyio.CancelScope(shield=True):
            if self.reconnect and not self._closing and await self._reconnect():
                return
            await self._on_stream_end()

    async def _reconnect(self) -> bool:
        # Requests in flight on the old connection fail; event streams carry on.
        pending = list(self._pending.values())
        self._pending.clear()
        for p in pending:
            p.error = RpcError(f"the connection dropped while waiting for the response to {p.command}")
            p.done.set()
        since = self.last_seq  # (the new connection's own responses are numbered too)
        deadline = anyio.current_time() + self.reconnect_for
        delay = 0.05
        while not self._closing and anyio.current_time() < deadline:
            try:
                await self._connect(since=since)  # (its reader is a new task; this one ends)
                return True
            except Exception:  # noqa: BLE001 - not up yet, or dropped again: retry
                wire = self._wire
                if wire is not None:
                    await wire.aclose()
                await anyio.sleep(delay)
                delay = min(delay * 2, 1.0)
        return False

    async def _on_stream_end(self) -> None:
        self._closed_stream = True
        pending = list(self._pending.values())
        self._pending.clear()
        for p in pending:
            p.error = self._exit_error(f"waiting for the response to {p.command}")
            p.done.set()
        for s in list(self._streams):
            s._end()
        for observe in list(self._record_observers):
            observe(None)
        assert self._stdout_done is not None
        self._stdout_done.set()

    def _track(self, record: Record | None) -> None:
        if record is None:
            return
        seq = record.get("seq")
        if isinstance(seq, int) and seq > self.last_seq:
            self.last_seq = seq
        if record.get("type") == "response" and record.get("success"):
            data = record.get("data") or {}
            if record.get("command") == "open_session" and isinstance(data.get("handle"), str):
                self.attached.add(data["handle"])

    # ------------------------------------------------------------------ writing
    async def send_raw(self, data: bytes) -> None:
        """Write bytes to the connection as-is (one record per line; on WebSocket one message per line)."""
        self._require_started()
        wire = self._wire
        if wire is None or self._write_lock is None:
            raise RpcError("not connected")
        async with self._write_lock:
            if self._closed or self._closed_stream:
                raise self._exit_error("writing")
            try:
                with anyio.CancelScope(shield=True):
                    await wire.send(data)
            except _STREAM_ERRORS as exc:
                raise RpcError(f"the connection to {self.address} dropped ({exc!r})") from exc

    # ------------------------------------------------------------------ attach / detach
    async def _command(self, type_: str, timeout: Timeout, post: Post, /, **fields: Any) -> Any:
        # ``attach``/``detach`` keep the sessions to attach again after a reconnect.
        data = await super()._command(type_, timeout, post, **fields)
        if type_ == "attach_session":
            self.attached.add(fields["handle"])
        elif type_ == "detach_session":
            self.attached.discard(fields["handle"])
        return data


__all__ = [
    "AsyncEventStream",
    "AsyncRpcClient",
    "AsyncRpcConnection",
    "AsyncSessionHandle",
    "AsyncSequencedEvents",
    "EventsLost",
    "PromptResult",
    "RpcCommandError",
    "RpcError",
    "RpcProcessExited",
    "RpcTimeoutError",
]

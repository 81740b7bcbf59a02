"""Synchronous pi RPC client: owns the child process, the reader threads, id correlation and event fan-out.

Threads: one reads stdout (LF-only framing), one drains stderr into a bounded tail. Callers block on
per-request events with timeouts; nothing here needs an event loop.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import EllipsisType
from typing import Any

from .commands import CommandsMixin, _ProcessCommandSet, build_command
from .errors import RpcCommandError, RpcError, RpcProcessExited, RpcProtocolError, RpcTimeoutError
from .framing import LineSplitter, decode_record, encode_record
from .handles import DEFAULT_HANDLE, SessionHandle, belongs_to, open_session_command
from .host_tools import HostToolFn, HostToolRunner
from .sequence import SequencedEvents

Record = dict[str, Any]
Timeout = float | None | EllipsisType  # ... means "the client's default_timeout"
EventListener = Callable[[Record], None]

_EXITED = object()  # sentinel pushed to subscriptions when the stream ends


def _key(request_id: Any) -> str:
    # ids may be any JSON value and are echoed verbatim; compare by canonical JSON
    return json.dumps(request_id, sort_keys=True, ensure_ascii=False)


def _only(accept: Callable[[Record], bool], listener: EventListener) -> EventListener:
    def filtered(rec: Record) -> None:
        if accept(rec):
            listener(rec)

    return filtered


class _Pending:
    __slots__ = ("command", "done", "response", "error")

    def __init__(self, command: str) -> None:
        self.command = command
        self.done = threading.Event()
        self.response: Record | None = None
        self.error: BaseException | None = None


class EventStream:
    """A subscription to every record that is not a correlated response (events, UI requests, stray responses).

    Created by :meth:`RpcClient.events`; buffers from the moment it is created, so subscribe *before*
    sending the command whose events you want. With ``accept`` it keeps only the records it accepts
    (one session handle's).
    """

    def __init__(self, client: "RpcClient", accept: Callable[[Record], bool] | None = None) -> None:
        self._client = client
        self._accept = accept
        self._q: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.closed = False

    def _push(self, item: Any) -> None:
        if self._accept is None or item is _EXITED or self._accept(item):
            self._q.put(item)

    def next(self, timeout: float | None = None) -> Record:
        """Next record; RpcTimeoutError after ``timeout`` s, RpcProcessExited when the stream ended."""
        try:
            item = self._q.get(timeout=timeout) if timeout is not None else self._q.get()
        except queue.Empty:
            raise RpcTimeoutError("next event", timeout or 0.0) from None
        if item is _EXITED:
            self._q.put(_EXITED)  # keep reporting for later calls
            raise self._client._exit_error("waiting for events")
        return item

    def wait_for(self, match: str | Callable[[Record], bool], timeout: float | None = None) -> Record:
        """Skip records until one has ``type == match`` (or ``match(record)`` is true)."""
        pred = (lambda r: r.get("type") == match) if isinstance(match, str) else match
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                rec = self.next(remaining)
            except RpcTimeoutError:
                raise RpcTimeoutError(
                    f"event {match if isinstance(match, str) else '<predicate>'}", timeout or 0.0
                ) from None
            if pred(rec):
                return rec

    def drain(self) -> list[Record]:
        """Everything buffered right now, without waiting."""
        out: list[Record] = []
        while True:
            try:
                item = self._q.get_nowait()
            except queue.Empty:
                return out
            if item is _EXITED:
                self._q.put(_EXITED)
                return out
            out.append(item)

    def __iter__(self) -> Iterator[Record]:
        while True:
            try:
                yield self.next()
            except RpcProcessExited:
                return

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._client._unsubscribe(self)

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class PromptResult:
    """Outcome of :meth:`RpcClient.prompt_and_wait`."""

    response: Record
    disposition: str | None
    events: list[Record] = field(default_factory=list)

    @property
    def settled(self) -> Record | None:
        return next((e for e in reversed(self.events) if e.get("type") == "agent_settled"), None)

    @property
    def aborted(self) -> bool:
        s = self.settled
        return bool(s and s.get("aborted"))

    def text(self) -> str:
        """Text of the last assistant message_end in this run (empty if none)."""
        for ev in reversed(self.events):
            msg = ev.get("message") if ev.get("type") == "message_end" else None
            if isinstance(msg, dict) and msg.get("role") == "assistant":
                return "".join(b.get("text", "") for b in msg.get("content", []) if b.get("type") == "text")
        return ""


class RpcClient(CommandsMixin, _ProcessCommandSet):
    """Spawn ``argv`` (e.g. ``["pi", "--mode", "rpc"]``) and talk JSONL to it.

    Use as a context manager, or call :meth:`start` / :meth:`close`. Commands go to the process's
    first session (``"default"``); :meth:`open_session` hosts more in the same process (pi_rpc).
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
        start: bool = True,
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env: dict[str, str] = dict(os.environ) if inherit_env else {}
        self.env.update(env or {})
        self.default_timeout = default_timeout
        self._stderr_limit = stderr_tail_bytes
        self._stderr_cb = stderr_callback
        self._stderr = bytearray()
        self._stderr_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._pending: dict[str, _Pending] = {}
        self._streams: list[EventStream] = []
        self._listeners: list[EventListener] = []
        # Called on the reader thread with every record (correlated responses too), then None at the end.
        self._record_observers: list[Callable[[Record | None], None]] = []
        self._next_id = 0
        self._closed_stream = False
        self._protocol_errors: list[RpcProtocolError] = []
        self.unmatched_responses: list[Record] = []
        self.proc: subprocess.Popen[bytes] | None = None
        self._threads: list[threading.Thread] = []
        self._host_tools: HostToolRunner | None = None
        if start:
            self.start()

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "RpcClient":
        if self.proc is not None:
            raise RpcError("client already started")
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.cwd,
            env=self.env,
            bufsize=0,
            start_new_session=True,
        )
        self._threads = [
            threading.Thread(target=self._read_stderr, name="pi-rpc-stderr", daemon=True),
            threading.Thread(target=self._read_stdout, name="pi-rpc-stdout", daemon=True),
        ]
        for t in self._threads:
            t.start()
        return self

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def returncode(self) -> int | None:
        return self.proc.poll() if self.proc else None

    @property
    def stderr_text(self) -> str:
        """Captured stderr tail (last ``stderr_tail_bytes`` bytes), decoded leniently."""
        with self._stderr_lock:
            return bytes(self._stderr).decode("utf-8", errors="replace")

    @property
    def protocol_errors(self) -> list[RpcProtocolError]:
        """Stdout lines that were not JSON objects (kept, not raised, so one bad line cannot kill a session)."""
        return list(self._protocol_errors)

    def close(self, timeout: float = 5.0) -> int | None:
        """Close stdin, wait; then SIGTERM, wait; then SIGKILL the process group. Returns the exit code."""
        proc = self.proc
        if proc is None:
            return None
        try:
            with self._write_lock:
                if proc.stdin and not proc.stdin.closed:
                    proc.stdin.close()
        except OSError:
            pass
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None and proc.poll() is None:
                try:
                    if sig == signal.SIGKILL:
                        os.killpg(proc.pid, sig)  # also take down tool subprocesses in its group
                    else:
                        proc.send_signal(sig)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                proc.wait(timeout=timeout)
                break
            except subprocess.TimeoutExpired:
                continue
        for t in self._threads:
            t.join(timeout=2.0)
        return proc.returncode

    def __enter__(self) -> "RpcClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ reading
    def _read_stdout(self) -> None:
        assert self.proc and self.proc.stdout
        fd = self.proc.stdout.fileno()
        splitter = LineSplitter()
        try:
            while True:
                try:
                    chunk = os.read(fd, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                for line in splitter.feed(chunk):
                    self._dispatch_line(line)
            tail = splitter.rest()
            if tail.strip():
                self._dispatch_line(tail)
        finally:
            self._on_stream_end()

    def _read_stderr(self) -> None:
        assert self.proc and self.proc.stderr
        fd = self.proc.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            with self._stderr_lock:
                self._stderr += chunk
                if len(self._stderr) > self._stderr_limit:
                    del self._stderr[: len(self._stderr) - self._stderr_limit]
            if self._stderr_cb:
                try:
                    self._stderr_cb(chunk)
                except Exception:  # noqa: BLE001 - diagnostics callback must not kill the reader
                    pass

    def _dispatch_line(self, line: bytes) -> None:
        try:
            rec = decode_record(line)
        except ValueError as e:
            self._protocol_errors.append(RpcProtocolError(line, f"invalid JSON on stdout ({e})"))
            return
        if not isinstance(rec, dict):
            self._protocol_errors.append(RpcProtocolError(line, "stdout record is not an object"))
            return
        for observe in self._record_observers:
            observe(rec)
        if rec.get("type") == "response" and "id" in rec:
            with self._state_lock:
                pending = self._pending.pop(_key(rec["id"]), None)
            if pending is not None:
                pending.response = rec
                pending.done.set()
                return
        if rec.get("type") == "response":
            self.unmatched_responses.append(rec)
        self._fan_out(rec)

    def _fan_out(self, rec: Record) -> None:
        with self._state_lock:
            streams = list(self._streams)
            listeners = list(self._listeners)
        for s in streams:
            s._push(rec)
        for fn in listeners:
            try:
                fn(rec)
            except Exception:  # noqa: BLE001 - a faulty listener must not stop the reader
                pass

    def _on_stream_end(self) -> None:
        # stdout closed: the process is exiting; collect its code and the rest of stderr for the report
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                pass
        for t in self._threads:
            if t is not threading.current_thread() and t.name == "pi-rpc-stderr":
                t.join(timeout=2.0)
        with self._state_lock:
            self._closed_stream = True
            pending = list(self._pending.values())
            self._pending.clear()
            streams = list(self._streams)
        for p in pending:
            p.error = self._exit_error(f"waiting for the response to {p.command}")
            p.done.set()
        for s in streams:
            s._push(_EXITED)
        for observe in list(self._record_observers):
            observe(None)

    def _exit_error(self, context: str) -> RpcProcessExited:
        code = self.proc.poll() if self.proc else None
        return RpcProcessExited(code, self.stderr_text[-4000:], context)

    # ------------------------------------------------------------------ events
    def events(self, *, handle: str | None = None) -> EventStream:
        """Subscribe to records from now on (events, extension UI requests, uncorrelated responses);
        with ``handle``, only that session's (for ``"default"``: the untagged records too)."""
        s = EventStream(self, None if handle is None else belongs_to(handle))
        with self._state_lock:
            self._streams.append(s)
            ended = self._closed_stream
        if ended:
            s._push(_EXITED)
        return s

    def _unsubscribe(self, s: EventStream) -> None:
        with self._state_lock:
            if s in self._streams:
                self._streams.remove(s)

    def sequenced_events(
        self,
        *,
        max_buffer: int | None = None,
        since: int | None = None,
        run_id: bool | None = None,
        timeout: Timeout = ...,
    ) -> SequencedEvents:
        """Turn ``seq`` numbering on (pi_rpc beyond upstream; ``run_id`` sets ``runId`` too) and get the
        events in order, each once, gaps recovered with ``get_events`` (:mod:`pi_rpc_client.sequence`).
        ``max_buffer`` bounds what waits for the consumer; ``since`` resumes after a stored ``last_seq``
        instead of turning numbering on."""
        return SequencedEvents(
            self,
            max_buffer=max_buffer,
            since=since,
            run_id=run_id,
            timeout=self.default_timeout if timeout is ... else timeout,
        )

    def _observe_records(self, observer: Callable[[Record | None], None]) -> Callable[[], None]:
        with self._state_lock:
            self._record_observers = [*self._record_observers, observer]
            ended = self._closed_stream
        if ended:
            observer(None)

        def unobserve() -> None:
            with self._state_lock:
                self._record_observers = [o for o in self._record_observers if o is not observer]

        return unobserve

    def on_event(self, listener: EventListener, *, handle: str | None = None) -> Callable[[], None]:
        """Call ``listener(record)`` on the reader thread for every non-response record (with ``handle``:
        that session's only); returns unsubscribe."""
        if handle is not None:
            listener = _only(belongs_to(handle), listener)
        with self._state_lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._state_lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    # ------------------------------------------------------------------ writing
    def send_raw(self, data: bytes) -> None:
        """Write bytes to stdin as-is (tests of framing edge cases)."""
        proc = self.proc
        if proc is None or proc.stdin is None:
            raise RpcError("client not started")
        with self._write_lock:
            try:
                view = memoryview(data)
                while view:
                    n = proc.stdin.write(view)
                    view = view[n or 0 :]
            except (BrokenPipeError, ValueError, OSError) as e:
                try:
                    proc.wait(timeout=2.0)
                except subprocess.TimeoutExpired:
                    pass
                raise self._exit_error("writing to stdin") from e

    def notify(self, record: Record) -> None:
        """Send a record that gets no response (``extension_ui_response``)."""
        self.send_raw(encode_record(record))

    def host_tool(
        self, name: str, parameters: Record | None = None, *, description: str = "", handle: str | None = None
    ) -> Callable[[HostToolFn], HostToolFn]:
        """Decorator: ``fn(args, call)`` becomes a tool the model can call (pi_rpc ``set_host_tools``;
        :mod:`pi_rpc_client.host_tools`). Registering sends the session's whole tool list again."""

        def decorate(fn: HostToolFn) -> HostToolFn:
            if self._host_tools is None:
                self._host_tools = HostToolRunner(self)
            self._host_tools.register(name, parameters, description, fn, handle)
            return fn

        return decorate

    def new_id(self) -> str:
        with self._state_lock:
            self._next_id += 1
            return f"py-{self._next_id}"

    def request(self, command: Record, timeout: Timeout = ..., *, check: bool = True) -> Record:
        """Send one command, wait for its response (correlated by ``id``, generated when absent).

        Raises RpcCommandError for ``success: false`` when ``check``, RpcTimeoutError, RpcProcessExited.
        """
        if timeout is ...:
            timeout = self.default_timeout
        cmd = dict(command)
        if "id" not in cmd:
            cmd["id"] = self.new_id()
        pending = _Pending(str(cmd.get("type")))
        key = _key(cmd["id"])
        with self._state_lock:
            if self._closed_stream:
                raise self._exit_error(f"sending {cmd.get('type')}")
            self._pending[key] = pending
        try:
            self.send_raw(encode_record(cmd))
        except RpcError:
            with self._state_lock:
                self._pending.pop(key, None)
            raise
        if not pending.done.wait(timeout):
            with self._state_lock:
                self._pending.pop(key, None)
            raise RpcTimeoutError(f"response to {cmd.get('type')} (id {cmd['id']!r})", timeout or 0.0)
        if pending.error is not None:
            raise pending.error
        assert pending.response is not None
        if check and not pending.response.get("success"):
            raise RpcCommandError(pending.response)
        return pending.response

    def _call(self, type_: str, timeout: Timeout = ..., **fields: Any) -> Any:
        return self.request(build_command(type_, fields), timeout).get("data")

    # ------------------------------------------------------------------ session handles (pi_rpc)
    def open_session(
        self,
        cwd: str | os.PathLike[str] | None = None,
        session_path: str | os.PathLike[str] | None = None,
        model: str | None = None,
        thinking_level: str | None = None,
        no_session: bool | None = None,
        *,
        timeout: Timeout = ...,
    ) -> SessionHandle:
        """Host another session in this process (``open_session``): a new one, or the one at
        ``session_path``; ``model`` is ``"provider/id"``. Returns its :class:`SessionHandle`, whose
        methods and events are that session's. Refused (RpcCommandError) past ``--max-sessions`` or
        when another writer holds ``session_path``."""
        command = open_session_command(
            None if cwd is None else os.fspath(cwd),
            None if session_path is None else os.fspath(session_path),
            model,
            thinking_level,
            no_session,
        )
        return SessionHandle(self, self.request(command, timeout).get("data") or {})

    def session_handle(self, handle: str = DEFAULT_HANDLE) -> SessionHandle:
        """A handle object for a session already open (``"default"``, or one from
        :meth:`list_open_sessions`), without a request."""
        return SessionHandle(self, {"handle": handle})

    # ------------------------------------------------------------------ runs
    def prompt_and_wait(
        self,
        message: str,
        images: list[Record] | None = None,
        *,
        streaming_behavior: str | None = None,
        timeout: Timeout = ...,
    ) -> PromptResult:
        """Send a prompt and collect events until ``agent_settled`` (not ``agent_end``: retries,
        compaction and queued follow-ups happen after it). A ``handled`` prompt returns at once.
        In a process hosting several sessions it is the ``"default"`` session's run (its records
        only); a :class:`SessionHandle` has the same method for its own session."""
        return self._run_prompt(
            lambda: self.events(handle=DEFAULT_HANDLE),
            self.request,
            message,
            images,
            streaming_behavior=streaming_behavior,
            timeout=timeout,
        )

    def _run_prompt(
        self,
        subscribe: Callable[[], EventStream],
        request: Callable[[Record, Timeout], Record],
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
        deadline = None if timeout is None else time.monotonic() + timeout
        with subscribe() as stream:
            cmd: Record = {"type": "prompt", "message": message}
            if images is not None:
                cmd["images"] = images
            if streaming_behavior is not None:
                cmd["streamingBehavior"] = streaming_behavior
            response = request(cmd, timeout)
            disposition = (response.get("data") or {}).get("disposition")
            result = PromptResult(response, disposition)
            if disposition == "handled":
                return result
            while True:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise RpcTimeoutError("agent_settled", timeout or 0.0)
                try:
                    ev = stream.next(remaining)
                except RpcTimeoutError:
                    raise RpcTimeoutError("agent_settled", timeout or 0.0) from None
                result.events.append(ev)
                if ev.get("type") == "agent_settled":
                    return result


__all__ = [
    "RpcClient",
    "EventStream",
    "PromptResult",
    "RpcCommandError",
    "RpcTimeoutError",
    "RpcProcessExited",
    "SessionHandle",
]

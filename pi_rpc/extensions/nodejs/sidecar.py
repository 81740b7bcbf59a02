"""The Node sidecar process and the JSON protocol spoken with it (protocol/README.md, "TypeScript
extension sidecar").

Three pipes, none of them pi's stdout: Python writes requests and answers to Node's stdin; Node
writes everything it says to ``OUT`` (an extra pipe); and Node reads the answers to its
synchronous calls from ``SYNC`` (another pipe), blocking until they come (upstream's
``pi.getActiveTools()``, ``ctx.sessionManager.getEntries()`` ... are synchronous). Node's own
stdout and stderr are pi's stderr.

``SidecarProcess`` owns the process: requests with ids and futures, one-way notes, the
synchronous calls (answered in the reader callback itself, so they never wait on the event loop's
other work), a watchdog that kills a sidecar that stops answering pings while work is pending,
and the report of its exit. What requests mean is the bridge's business (``Dispatcher``).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

PROTOCOL_VERSION = 1
_DEBUG = bool(os.environ.get("PI_SIDECAR_DEBUG"))
HELLO_TIMEOUT = 30.0


class SidecarError(Exception):
    """A request failed in Node (the extension's error message)."""


class SidecarGone(SidecarError):
    """The sidecar is not running (it exited or was killed as hung)."""


class Dispatcher(Protocol):
    """What the bridge provides to serve Node's calls."""

    def decode(self, text: str) -> dict[str, Any]: ...
    def encode(self, message: dict[str, Any]) -> str: ...
    def sync_call(self, message: dict[str, Any]) -> Any: ...
    async def async_call(self, message: dict[str, Any]) -> Any: ...
    def note(self, message: dict[str, Any]) -> None: ...
    def exited(self, process: SidecarProcess, reason: str) -> None: ...


def hang_timeout() -> float:
    try:
        return max(0.05, float(os.environ.get("PI_NODE_HANG_TIMEOUT", "20")))
    except ValueError:
        return 20.0


class _Pending:
    __slots__ = ("future", "on_update", "started")

    def __init__(self, future: asyncio.Future[dict[str, Any]], on_update: Callable[[Any], Any] | None) -> None:
        self.future = future
        self.on_update = on_update
        self.started = time.monotonic()


class _OutProtocol(asyncio.Protocol):
    def __init__(self, owner: SidecarProcess) -> None:
        self.owner = owner
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        self.buffer.extend(data)
        while True:
            newline = self.buffer.find(b"\n")
            if newline < 0:
                return
            line = bytes(self.buffer[:newline])
            del self.buffer[: newline + 1]
            if line:
                self.owner.received(line.decode("utf-8", "replace"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner.out_closed()


class SidecarProcess:
    """One running Node sidecar."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self.loop = asyncio.get_running_loop()
        self.process: asyncio.subprocess.Process | None = None
        self.node_version = ""
        self._pending: dict[int, _Pending] = {}
        self._next_id = 0
        self._sync_fd = -1
        self._hello: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self._closing = False
        self._gone: str | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._watchdog: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        return self._gone is None

    async def start(self, node: str, directory: Path, env: dict[str, str]) -> None:
        out_r, out_w = os.pipe()
        sync_r, sync_w = os.pipe()
        try:
            self.process = await asyncio.create_subprocess_exec(
                node,
                "--disable-warning=ExperimentalWarning",  # require(esm) of pi-ai (Node 22)
                str(directory / "sidecar.mjs"),
                stdin=asyncio.subprocess.PIPE,
                stdout=sys.stderr.fileno() if _has_fileno(sys.stderr) else asyncio.subprocess.DEVNULL,
                stderr=None,
                pass_fds=(out_w, sync_r),
                cwd=os.getcwd(),  # extensions see the process cwd, as in upstream
                env={**os.environ, **env, "PI_SIDECAR_FDS": f"{out_w},{sync_r}"},
            )
        finally:
            os.close(out_w)
            os.close(sync_r)
        self._sync_fd = sync_w
        await self.loop.connect_read_pipe(lambda: _OutProtocol(self), os.fdopen(out_r, "rb", 0))
        try:
            hello = await asyncio.wait_for(asyncio.shield(self._hello), HELLO_TIMEOUT)
        except (TimeoutError, asyncio.TimeoutError):
            self.kill("it did not start within 30 s")
            raise SidecarGone("The TypeScript extension host (Node) did not start") from None
        if hello.get("protocol") != PROTOCOL_VERSION:
            self.kill("protocol mismatch")
            raise SidecarGone(
                f"The TypeScript extension host speaks protocol {hello.get('protocol')}, expected {PROTOCOL_VERSION}"
            )
        self.node_version = str(hello.get("node", ""))
        self._watchdog = self.loop.create_task(self._watch())

    # ------------------------------------------------------------------ requests

    async def request(self, message: dict[str, Any], on_update: Callable[[Any], Any] | None = None) -> dict[str, Any]:
        """Send a request and wait for its answer (``{"value", "patch"?, "invalid"?}``); raises
        ``SidecarError`` with the extension's message, ``SidecarGone`` when Node is gone."""
        if self._gone is not None:
            raise SidecarGone(self._gone)
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self._pending[request_id] = _Pending(future, on_update)
        self.write({"t": "req", "id": request_id, **message})
        try:
            answer = await future
        except asyncio.CancelledError:
            if self._pending.pop(request_id, None) is not None and self._gone is None:
                self.write({"t": "cancel", "id": request_id})
            raise
        if "error" in answer:
            raise (SidecarGone if answer.get("gone") else SidecarError)(str(answer["error"]))
        return answer

    def write(self, message: dict[str, Any]) -> None:
        if self._gone is not None or self.process is None or self.process.stdin is None:
            return
        text = self.dispatcher.encode(message)
        if _DEBUG:
            print(f"pi sidecar -> {time.time() % 100:.3f} {text[:150]}", file=sys.stderr, flush=True)
        try:
            self.process.stdin.write((text + "\n").encode("utf-8", "surrogatepass"))
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            pass

    # ------------------------------------------------------------------ Node's messages

    def received(self, line: str) -> None:
        if _DEBUG:
            print(f"pi sidecar <- {time.time() % 100:.3f} {line[:150]}", file=sys.stderr, flush=True)
        try:
            message = self.dispatcher.decode(line)
        except ValueError:
            print(f"pi: bad message from the TypeScript extension host: {line[:200]}", file=sys.stderr)
            return
        kind = message.get("t")
        if kind == "res":
            pending = self._pending.pop(int(message.get("id", -1)), None)
            if pending is not None and not pending.future.done():
                pending.future.set_result(message)
        elif kind == "sync":
            self._answer_sync(message)
        elif kind == "req":
            task = self.loop.create_task(self._serve(message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif kind == "note":
            if message.get("op") == "update":
                pending = self._pending.get(int(message.get("id", -1)))
                if pending is not None and pending.on_update is not None:
                    self._call_update(pending.on_update, message.get("partial"))
            else:
                try:
                    self.dispatcher.note(message)
                except Exception as exc:  # noqa: BLE001 - a fire-and-forget call has nobody to tell
                    print(f"pi: TypeScript extension call {message.get('name')}: {exc}", file=sys.stderr)
        elif kind == "hello":
            if not self._hello.done():
                self._hello.set_result(message)

    def _call_update(self, on_update: Callable[[Any], Any], partial: Any) -> None:
        result = on_update(partial)
        if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
            task = asyncio.ensure_future(result)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _answer_sync(self, message: dict[str, Any]) -> None:
        try:
            reply: dict[str, Any] = {"value": self.dispatcher.sync_call(message)}
        except Exception as exc:  # noqa: BLE001 - becomes the JavaScript exception
            reply = {"error": str(exc) or type(exc).__name__}
        data = (self.dispatcher.encode(reply) + "\n").encode("utf-8", "surrogatepass")
        try:
            view = memoryview(data)
            while view:
                written = os.write(self._sync_fd, view)
                view = view[written:]
        except OSError:
            pass

    async def _serve(self, message: dict[str, Any]) -> None:
        try:
            reply: dict[str, Any] = {"value": await self.dispatcher.async_call(message)}
        except Exception as exc:  # noqa: BLE001 - becomes the rejected promise
            reply = {"error": str(exc) or type(exc).__name__}
        self.write({"t": "res", "id": message.get("id"), **reply})

    # ------------------------------------------------------------------ health and exit

    async def _watch(self) -> None:
        """While requests are pending, a ping must be answered within the hang timeout; a
        sidecar that does not answer (an extension blocking its event loop) is killed."""
        timeout = hang_timeout()
        interval = min(5.0, timeout)
        while self._gone is None:
            await asyncio.sleep(interval)
            if self._gone is not None:
                return
            now = time.monotonic()
            if not any(now - p.started >= interval for p in self._pending.values()):
                continue
            try:
                await asyncio.wait_for(self.request({"op": "ping"}), timeout)
            except (TimeoutError, asyncio.TimeoutError):
                self.kill(f"it did not answer for {timeout:g} s (an extension blocks its event loop)")
                return
            except SidecarError:
                return

    def out_closed(self) -> None:
        self._fail(self._gone or self._exit_reason())

    def _exit_reason(self) -> str:
        code = self.process.returncode if self.process is not None else None
        return "it exited" if code is None else f"it exited with code {code}"

    def kill(self, reason: str) -> None:
        if self.process is not None and self.process.returncode is None:
            try:
                self.process.kill()
            except ProcessLookupError:
                pass
        self._fail(reason)

    def _fail(self, reason: str) -> None:
        if self._gone is not None:
            return
        self._gone = reason
        if not self._hello.done():
            self._hello.set_result({"protocol": None})
        if self._sync_fd >= 0:
            try:
                os.close(self._sync_fd)
            except OSError:
                pass
            self._sync_fd = -1
        pending, self._pending = self._pending, {}
        message = f"The TypeScript extension host (Node) stopped: {reason}"
        for entry in pending.values():
            if not entry.future.done():
                entry.future.set_result({"error": message, "gone": True})
        if self._watchdog is not None and self._watchdog is not asyncio.current_task():
            self._watchdog.cancel()
        if not self._closing:
            self.dispatcher.exited(self, reason)

    def close(self) -> None:
        """Stop the sidecar on purpose (its stdin closes; Node exits)."""
        self._closing = True
        if self.process is not None and self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except Exception:  # noqa: BLE001
                pass
        self.kill("closed")


def _has_fileno(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True

"""The one-shot runner shared by print (text) mode and ``--mode json`` (upstream 1.6
``modes/print-mode.ts`` plus the tail of ``main.ts``).

Order of operations, as upstream:
1. stdout is taken over at fd level (``wire.output``); only this module writes to the real
   stdout, through one ``RecordWriter``;
2. the runtime is built (startup problems: message on stderr, their exit code);
3. piped stdin (stdin not a TTY) is read to EOF, decoded as UTF-8 and trimmed; empty means none;
4. ``@file`` arguments are inlined (``Error: File not found: <abs>`` -> exit 1);
5. the initial prompt is ``stdin + file text + first message`` joined with nothing (upstream
   ``buildInitialMessage``); each remaining positional message is its own prompt; every prompt
   is awaited until the session settles (retries and compaction included);
6. json: the session header first, then every session event in wire form; text: the final
   assistant reply's text blocks, one per line.

Exit codes: text 0, or 1 when the last reply is an error/aborted (its ``errorMessage`` on
stderr) or was cut at the output limit; json 0 even when the model failed; 1 when a prompt is
refused (no API key...) or stdout breaks; SIGTERM 143, SIGHUP 129 (tracked children are
killed first, the runtime is disposed; a second signal exits at once). Both modes: 3 when a run
limit (``--max-turns``, ``--max-cost``, ``--timeout``) ended the last run, 4 when its final
answer never matched ``--output-schema`` (text mode then prints exactly the answer's JSON).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from pi_rpc.ai.jsjson import to_utf8
from pi_rpc.errors import StartupError
from pi_rpc.log import logger
from pi_rpc.modes.exit import (
    EXIT_LIMIT_REACHED,
    EXIT_OUTPUT_INVALID,
    SHUTDOWN_GRACE_SECONDS,
    hard_exit,
    signal_exit_code,
)
from pi_rpc.modes.wire.event_transform import to_wire_event
from pi_rpc.modes.wire.output import RecordWriter, WriterClosed, take_over_stdout
from pi_rpc.modes.wire.protocol.names import BLOCKING_EVENT_TYPES
from pi_rpc.runtime.listeners import PairedListener

if TYPE_CHECKING:
    from pi_rpc.config.cli_args import CliArgs
    from pi_rpc.runtime.events import SessionEvent
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.session import AgentSession

TRUNCATED_MESSAGE = "Response was truncated: the model reached its output token limit."


# ---------------------------------------------------------------------- input assembly


def read_piped_stdin(fd: int = 0) -> str | None:
    """All of stdin when it is not a TTY, decoded and trimmed; ``None`` if a TTY or empty.
    Like upstream, a pipe that never closes blocks startup."""
    try:
        if os.isatty(fd):
            return None
    except OSError:
        return None
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except InterruptedError:
            continue
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    text = b"".join(chunks).decode("utf-8", "replace").strip()
    return text or None


@dataclass
class ProcessedFiles:
    text: str = ""
    images: list[dict[str, Any]] = field(default_factory=list)


def process_file_args(file_args: tuple[str, ...] | list[str], cwd: str) -> ProcessedFiles:
    """Upstream ``processFileArguments`` (images are not resized, as upstream 1.6 at startup):
    a text file becomes ``<file name="ABS">\\n<content>\\n</file>\\n``, an image an attachment
    plus ``<file name="ABS"></file>\\n``; zero-byte files are skipped."""
    from pi_rpc.tools.images import detect_supported_image_mime, process_image
    from pi_rpc.tools.paths import resolve_read_path

    out = ProcessedFiles()
    for arg in file_args:
        path = os.path.abspath(resolve_read_path(arg, cwd))
        if not os.path.exists(path):
            raise StartupError(f"Error: File not found: {path}")
        try:
            if os.path.getsize(path) == 0:
                continue
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise StartupError(f"Error: Could not read file {path}: {exc.strerror or exc}") from None
        mime = detect_supported_image_mime(data[:4100])
        if mime is not None:
            # Upstream processes file-argument images without resizing (the prompt path resizes
            # later); formats providers do not take inline are converted to PNG.
            processed = process_image(data, mime, auto_resize=False)
            if not processed.ok:
                out.text += f'<file name="{path}">{processed.message}</file>\n'
                continue
            out.images.append({"type": "image", "mimeType": processed.mime_type, "data": processed.data})
            out.text += f'<file name="{path}">{chr(10).join(processed.hints)}</file>\n'
            continue
        content = data.decode("utf-8", "replace")
        if content.startswith("\ufeff"):
            content = content[1:]
        out.text += f'<file name="{path}">\n{content}\n</file>\n'
    return out


@dataclass
class Prompts:
    """What to send: ``initial`` (may be None) with ``images``, then each of ``rest``."""

    initial: str | None
    images: list[dict[str, Any]] | None
    rest: list[str]

    def sequence(self) -> list[tuple[str, list[dict[str, Any]] | None]]:
        items: list[tuple[str, list[dict[str, Any]] | None]] = []
        if self.initial:  # an empty initial message is skipped, like upstream
            items.append((self.initial, self.images))
        items.extend((message, None) for message in self.rest)
        return items


def build_prompts(
    messages: tuple[str, ...] | list[str],
    *,
    stdin_content: str | None = None,
    files: ProcessedFiles | None = None,
) -> Prompts:
    """Upstream ``buildInitialMessage``: stdin, file text and the first message, joined."""
    parts: list[str] = []
    if stdin_content is not None:
        parts.append(stdin_content)
    if files is not None and files.text:
        parts.append(files.text)
    rest = list(messages)
    if rest:
        parts.append(rest.pop(0))
    images = files.images if files is not None and files.images else None
    return Prompts("".join(parts) if parts else None, images, rest)


# ---------------------------------------------------------------------- text-mode result


def final_text_result(messages: Sequence[Mapping[str, Any]]) -> tuple[list[str], str | None, int]:
    """(stdout lines, stderr message, exit code) for text mode from the session's messages:
    only the LAST message counts, and only when it is an assistant reply."""
    last = messages[-1] if messages else None
    if last is None or last.get("role") != "assistant":
        return [], None, 0
    stop = last.get("stopReason")
    if stop in ("error", "aborted"):
        return [], last.get("errorMessage") or f"Request {stop}", 1
    lines = [block.get("text", "") for block in last.get("content") or [] if block.get("type") == "text"]
    if stop == "length":
        return lines, TRUNCATED_MESSAGE, 1
    return lines, None, 0


# ---------------------------------------------------------------------- the runner


def _stderr(message: str) -> None:
    logger().error(message)


class OneshotRunner:
    """One process lifetime of ``-p``/``--mode json``; see the module docstring."""

    def __init__(
        self,
        options: RuntimeOptions,
        prompts: Prompts,
        *,
        mode: str,
        output_fd: int,
        session_name: str | None = None,
        handle_signals: bool = True,
        output_schema: dict[str, Any] | None = None,
    ) -> None:
        assert mode in ("text", "json")
        self.output_schema = output_schema
        self.options = options
        self.prompts = prompts
        self.mode = mode
        self.output_fd = output_fd
        self.session_name = session_name
        self.handle_signals = handle_signals
        self.exit_code = 0
        self._signal_count = 0
        self._stopping = False
        self._output_closed = False
        self._unsubscribe: Any = None
        self._flush_on_exit = True  # SIGTERM skips the final stdout flush (as rpc mode)
        self._main_scope: anyio.CancelScope | None = None
        self.session: AgentSession | None = None
        self.writer: RecordWriter | None = None
        self._disposed = False

    # ------------------------------------------------------------------ entry

    async def run(self) -> int:
        from pi_rpc.runtime.session import AgentSession

        self.writer = RecordWriter(self.output_fd, on_fatal=self._on_write_error)
        async with anyio.create_task_group() as root:
            root.start_soon(self.writer.run)
            if self.handle_signals:
                root.start_soon(self._watch_signals)
            with anyio.CancelScope() as scope:
                self._main_scope = scope
                async with anyio.create_task_group() as runs:
                    self.session = AgentSession(self.options)
                    self.session.bind_task_group(runs)
                    # An extension may replace the session (``ctx.new_session``): follow the holder.
                    self.session.holder.on_replaced(self._follow)
                    if await self._load_extensions(self.session):
                        await self._prompt_all(self.session)
                    # Extensions' background work (MCP connections) ends with the session.
                    await self._dispose()
                    runs.cancel_scope.cancel()
            await self._finish()
            root.cancel_scope.cancel()
        return self.exit_code

    def _follow(self, session: AgentSession) -> None:
        self.session = session

    async def _load_extensions(self, session: AgentSession) -> bool:
        """Load the discovered extensions; a failure is fatal (exit 1, message on stderr)."""
        if session.ext is None:
            return True
        try:
            await session.load_extensions()
        except StartupError as exc:
            _stderr(exc.message)
            self.exit_code = exc.exit_code
            return False
        return True

    async def _bind_extensions(self, session: AgentSession) -> None:
        if session.ext is None:
            return
        from pi_rpc.extensions.host import ModeBinding

        def on_error(error: Any) -> None:
            _stderr(f"Extension error ({error['extensionPath']}): {error['error']}")

        # No user on the other end: ctx.has_ui is false, dialogs return their defaults.
        await session.bind_extensions(ModeBinding(mode="json" if self.mode == "json" else "print", on_error=on_error))

    async def _prompt_all(self, session: AgentSession) -> None:
        from pi_rpc.runtime.errors import RuntimeCommandError

        if self.session_name:
            try:
                await session.set_session_name(self.session_name)
            except RuntimeCommandError:
                pass  # an empty --name is ignored
        if self.mode == "json":
            # Upstream prints the header before it subscribes; always present (even in memory).
            self.writer.send_nowait(session.session.get_header())  # type: ignore[union-attr]
            # Events an extension causes synchronously are written at once (emit_now).
            listener = PairedListener(self._forward_event, self._forward_event_nowait)
            self._unsubscribe = session.holder.subscribe(listener)
        await self._bind_extensions(session)
        try:
            sequence = self.prompts.sequence()
            for index, (text, images) in enumerate(sequence):
                if self._stopping:
                    return
                # The output schema binds the final answer: the last prompt's.
                schema = self.output_schema if index == len(sequence) - 1 else None
                current = session.holder.current
                await current.prompt(text, images, output_schema=schema)
                await current.wait_for_settled()
        except Exception as exc:  # noqa: BLE001 - upstream prints the message and exits 1
            if self.exit_code == 0:
                self.exit_code = 1
            _stderr(str(exc) or type(exc).__name__)
            return
        session = session.holder.current
        guard = session.last_run_guard
        if guard is not None and not self._stopping:
            if await self._bounded_result(guard):
                return
        if self.mode == "text" and not self._stopping:
            lines, error, code = final_text_result(session.get_messages())
            try:
                for line in lines:
                    await self.writer.send_bytes(to_utf8(line) + b"\n")  # type: ignore[union-attr]
            except WriterClosed:
                return  # stdout broke: _on_write_error set the exit code
            if error is not None:
                _stderr(error)
            self.exit_code = EXIT_LIMIT_REACHED if guard is not None and guard.hit is not None else code

    async def _bounded_result(self, guard: Any) -> bool:
        """The last run had limits or an output schema: its exit code (and, in text mode with
        a valid answer, exactly the answer's JSON). True when the result is settled here."""
        import json

        if guard.hit is not None:
            hit = guard.hit
            _stderr(f"Run limit reached: {hit['kind']} {hit['limit']:g} (used {hit['used']:g})")
            self.exit_code = EXIT_LIMIT_REACHED
            return self.mode == "json"
        if self.output_schema is None:
            return False
        if not guard.has_output:
            _stderr(f"The final answer does not match --output-schema: {guard.output_error or 'no answer'}")
            self.exit_code = EXIT_OUTPUT_INVALID
            return True
        if self.mode == "text":
            text = json.dumps(guard.output, ensure_ascii=False)
            try:
                await self.writer.send_bytes(to_utf8(text) + b"\n")  # type: ignore[union-attr]
            except WriterClosed:
                pass
        return True

    async def _forward_event(self, event: SessionEvent) -> None:
        if self._output_closed or self.writer is None:
            return
        try:
            wire = to_wire_event(event)
            # Agent-loop events wait for the queue (a slow reader slows the run, as upstream).
            if event.get("type") in BLOCKING_EVENT_TYPES:
                await self.writer.send(wire)
            else:
                await self.writer.send_bounded(wire)
        except WriterClosed:
            pass

    def _forward_event_nowait(self, event: SessionEvent) -> None:
        if self._output_closed or self.writer is None:
            return
        try:
            self.writer.send_nowait(to_wire_event(event))
        except WriterClosed:
            pass

    def _stop_output(self) -> None:
        self._output_closed = True
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    async def _dispose(self) -> None:
        if self.session is None or self._disposed:
            return
        self._disposed = True
        with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
            try:
                await self.session.shutdown()
            except Exception as exc:  # noqa: BLE001 - never a traceback on the way out
                _stderr(f"pi_rpc: error during shutdown: {exc}")

    async def _finish(self) -> None:
        self._stop_output()
        await self._dispose()
        assert self.writer is not None
        if self.writer.failed is None and self._flush_on_exit:
            with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
                await self.writer.drain()
        self.writer.close()

    # ------------------------------------------------------------------ failures and signals

    def _on_write_error(self, exc: BaseException) -> None:
        # Upstream exits 1 when a raw stdout write fails (EPIPE: the reader went away).
        if self.exit_code == 0:
            self.exit_code = 1
        self._stopping = True
        self._stop_output()
        if self._main_scope is not None:
            self._main_scope.cancel()

    async def _watch_signals(self) -> None:
        from pi_rpc.config import children

        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
            async with anyio.create_task_group() as tg:
                async for signum in signals:
                    self._signal_count += 1
                    code = signal_exit_code(signum)
                    children.kill_all()
                    if self._signal_count > 1:
                        hard_exit(code)  # a repeated signal does not wait for disposal
                    # The code holds even if the prompt loop finishes first and returns.
                    self.exit_code = code
                    self._flush_on_exit = signum != signal.SIGTERM
                    self._stopping = True
                    self._stop_output()
                    tg.start_soon(self._signal_shutdown, code)

    async def _signal_shutdown(self, code: int) -> None:
        await self._dispose()
        if self._flush_on_exit and self.writer is not None and self.writer.failed is None:
            with anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
                await self.writer.drain()
        hard_exit(code)


# ---------------------------------------------------------------------- process entry


def load_output_schema(path: str) -> dict[str, Any]:
    """``--output-schema``'s file: a JSON Schema (``StartupError`` when it is not one)."""
    import json

    from pi_rpc.runtime.run_limits import LimitsError, check_output_schema

    try:
        with open(os.path.expanduser(path), encoding="utf-8") as fh:
            schema = json.load(fh)
    except (OSError, ValueError) as exc:
        raise StartupError(f"Error: Cannot read --output-schema {path}: {exc}") from None
    try:
        return check_output_schema(schema)
    except LimitsError as exc:
        raise StartupError(f"Error: --output-schema {path}: {exc}") from None


def run_oneshot(args: CliArgs, mode: str) -> int:
    """The whole process for ``mode`` ``"text"`` (print) or ``"json"``."""
    takeover = take_over_stdout()

    from pi_rpc.runtime.factory import build_runtime_options

    async def main() -> int:
        from pi_rpc.runtime.project_trust import resolve_startup_trust

        # Extensions may decide project trust before the session is built (project_trust).
        trust = await resolve_startup_trust(args, mode="json" if mode == "json" else "print")
        try:
            options = build_runtime_options(args, trust=trust)
            stdin_content = read_piped_stdin()
            files = process_file_args(args.file_args, os.getcwd()) if args.file_args else None
        except StartupError as exc:  # a bad model or session, a file argument that cannot be read
            _stderr(exc.message)
            return exc.exit_code
        prompts = build_prompts(args.messages, stdin_content=stdin_content, files=files)
        try:
            schema = load_output_schema(args.output_schema) if args.output_schema else None
        except StartupError as exc:
            _stderr(exc.message)
            return exc.exit_code
        runner = OneshotRunner(
            options,
            prompts,
            mode=mode,
            output_fd=takeover.protocol_fd,
            session_name=args.name,
            output_schema=schema,
        )
        return await runner.run()

    from pi_rpc.modes.exit import run_to_exit_code

    return run_to_exit_code(main)

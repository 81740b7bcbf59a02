"""``RemoteSession``: the session interface of the interactive app over a connection.

``PiApp`` drives an ``AgentSession``: it subscribes to its events, reads its state synchronously
(``is_streaming``, ``model``, ``get_messages()`` …) and awaits its actions (``prompt``,
``abort``, ``bash`` …). ``RemoteSession`` offers the same members for a session held by a
``pi --listen`` server, attached by handle:

- events: the connection's records of that session go to the subscribers as the session's
  events (the wire's ``message_update`` carries the same ``assistantMessageEvent`` deltas);
- state: a mirror, read with ``get_state``/``get_messages``/``get_commands``/
  ``get_available_models``/``get_session_stats``/``get_entries`` when attaching, refreshed
  after every ``agent_settled``, ``compaction_end``, model or thinking change and after the
  commands that change it; ``is_streaming``/``is_compacting`` follow the events at once;
- actions: the RPC command of the same name (``prompt`` with ``streamingBehavior``, ``bash``
  with its ``bash_execution_update`` chunks, ``abort``, ``cycle_model`` …);
- extensions run in the server; their dialogs (``extension_ui_request``) are shown by the
  terminal UI the app binds (``bind_extensions``) and answered with ``extension_ui_response``;
  a dialog another client answered first (``extension_ui_resolved``) is dismissed;
- settings, keybindings and the theme are the local agent directory's (the terminal's).

A member the app would use that has no remote counterpart yet raises ``RemoteUnsupported``
naming it (the slash command shows that as its error).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from pi_rpc.modes.attach.connection import CommandFailed, Connection

Record = dict[str, Any]
Listener = Callable[[Record], Awaitable[None]]
DEFAULT_HANDLE = "default"
_DIALOGS = frozenset({"select", "confirm", "input", "editor"})
_REFRESH_AFTER = frozenset({"agent_settled", "compaction_end", "model_change", "thinking_level_change"})


class RemoteUnsupported(AttributeError):
    """What the interactive app asked for has no counterpart over ``pi attach`` yet."""


@dataclass(frozen=True)
class RemoteOptions:
    """What the app reads of the runtime options: the terminal's agent directory and cwd."""

    agent_dir: Path
    cwd: str
    project_trusted: bool = False


class RemoteStore:
    """The members of the session store the app reads (footer, compaction count, exit hint)."""

    def __init__(self, owner: RemoteSession) -> None:
        self._owner = owner

    @property
    def session_id(self) -> str:
        return str(self._owner.state.get("sessionId") or "")

    @property
    def session_file(self) -> str | None:
        return self._owner.state.get("sessionFile")

    def get_session_name(self) -> str | None:
        return self._owner.state.get("sessionName")

    def get_entries(self, since: str | None = None) -> list[Record]:
        return list(self._owner.entries)

    def get_fork_messages(self) -> list[Record]:
        return list(self._owner.fork_messages)

    def __getattr__(self, name: str) -> Any:
        raise RemoteUnsupported(f"session.{name} is not available over `pi attach` yet")


class _Signal:
    """An abort signal for a dialog another client answered (``TerminalUI._dialog``)."""

    def __init__(self) -> None:
        self.aborted = False
        self._callbacks: list[Callable[[], None]] = []

    def add_callback(self, fn: Callable[[], None]) -> Callable[[], None]:
        self._callbacks.append(fn)
        return lambda: None

    def abort(self) -> None:
        self.aborted = True
        for fn in self._callbacks:
            fn()


async def _feed(on_chunk: Callable[[str], Awaitable[None]], delta: str) -> None:
    await on_chunk(delta)


class RemoteSession:
    """A session of a listening server, attached by ``handle``, as ``PiApp`` uses a session."""

    mcp_command = None
    ext = None

    def __init__(self, connection: Connection, handle: str, options: RemoteOptions, settings: Any) -> None:
        self.connection = connection
        self.handle = handle
        self.options = options
        self.settings = settings
        self.session = RemoteStore(self)
        self.state: Record = {}
        self.messages: list[Record] = []
        self.commands: list[Record] = []
        self.models: list[Record] = []
        self.stats: Record = {}
        self.entries: list[Record] = []
        self.fork_messages: list[Record] = []
        self.thinking_levels: list[str] = []
        self.cwd = options.cwd
        self.is_streaming = False
        self.is_compacting = False
        self.closed = anyio.Event()
        self._listeners: list[Listener] = []
        self._replaced: list[Callable[[Any], Any]] = []
        self._tg: anyio.abc.TaskGroup | None = None
        self._ui: Any = None
        self._dialogs: dict[str, _Signal] = {}
        self._bash_chunks: dict[str, Callable[[str], Awaitable[None]]] = {}
        self._settled = anyio.Event()
        self._settled.set()

    # ------------------------------------------------------------------ attaching

    async def start(self, task_group: anyio.abc.TaskGroup) -> None:
        """Read records (in ``task_group``), attach to the session, load the mirror."""
        self._tg = task_group
        self.connection.on_record = self._on_record
        await self.connection.run(task_group)
        if self.handle != DEFAULT_HANDLE:
            await self.connection.request({"type": "attach_session", "handle": self.handle})
            await self.connection.request({"type": "detach_session", "handle": DEFAULT_HANDLE})
        for summary in await self._call("list_open_sessions", key="sessions", handle=False):
            if summary.get("handle") == self.handle and summary.get("cwd"):
                self.cwd = str(summary["cwd"])
        await self.refresh()

    async def refresh(self) -> None:
        """Read the mirrored state again."""
        self.state = await self._call("get_state") or {}
        self.is_streaming = bool(self.state.get("isStreaming"))
        self.is_compacting = bool(self.state.get("isCompacting"))
        self.messages = await self._call("get_messages", key="messages")
        self.commands = await self._call("get_commands", key="commands")
        self.models = await self._call("get_available_models", key="models")
        self.stats = await self._call("get_session_stats") or {}
        self.entries = await self._call("get_entries", key="entries")
        self.fork_messages = await self._call("get_fork_messages", key="messages")
        self.thinking_levels = await self._call("get_available_thinking_levels", key="levels")

    async def _call(self, type_: str, *, key: str | None = None, handle: bool = True, **fields: Any) -> Any:
        command: Record = {"type": type_, **{k: v for k, v in fields.items() if v is not None}}
        if handle and self.handle != DEFAULT_HANDLE:
            command["handle"] = self.handle
        try:
            data = await self.connection.request(command)
        except CommandFailed as exc:
            raise RuntimeError(str(exc)) from None
        return (data or {}).get(key) if key is not None else data

    # ------------------------------------------------------------------ events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    @property
    def holder(self) -> RemoteSession:
        """What the app follows, as it follows a local session's holder: the events of this
        handle and the replacements made through this connection."""
        return self

    def on_replaced(self, callback: Callable[[Any], Any]) -> Callable[[], None]:
        self._replaced.append(callback)

        def stop() -> None:
            if callback in self._replaced:
                self._replaced.remove(callback)

        return stop

    def _mine(self, record: Record) -> bool:
        handle = record.get("handle")
        return handle == self.handle or (handle is None and self.handle == DEFAULT_HANDLE)

    def _on_record(self, record: Record | None) -> None:
        if record is None:
            self.closed.set()
            for pending in self._dialogs.values():
                pending.abort()
            return
        if not self._mine(record) or self._tg is None:
            return
        kind = record.get("type")
        if kind == "bash_execution_update":
            chunk = self._bash_chunks.get(str(record.get("id")))
            if chunk is not None:
                self._tg.start_soon(_feed, chunk, str(record.get("delta") or ""))
            return
        if kind == "extension_ui_request":
            self._tg.start_soon(self._extension_ui, record)
            return
        if kind == "extension_ui_resolved":
            signal = self._dialogs.pop(str(record.get("id")), None)
            if signal is not None:
                signal.abort()
            return
        if kind in ("agent_start", "compaction_start"):
            if kind == "agent_start":
                self.is_streaming = True
                self._settled = anyio.Event()
            else:
                self.is_compacting = True
        elif kind == "agent_settled":
            self.is_streaming = False
            self._settled.set()
        elif kind == "compaction_end":
            self.is_compacting = False
        event = {key: value for key, value in record.items() if key not in ("handle", "seq", "runId")}
        self._tg.start_soon(self._deliver, event, kind in _REFRESH_AFTER)

    async def _deliver(self, event: Record, refresh: bool) -> None:
        if refresh:  # (the app re-reads state on these events: the mirror first)
            try:
                await self.refresh()
            except Exception:  # noqa: BLE001 - the connection ended: the app is told separately
                pass
        for listener in list(self._listeners):
            await listener(event)

    # ------------------------------------------------------------------ extensions

    async def bind_extensions(self, binding: Any) -> None:
        """The server's extensions are bound there; their dialogs come to this terminal's UI."""
        self._ui = binding.ui

    async def load_extensions(self) -> None:
        return None

    async def _extension_ui(self, record: Record) -> None:
        ui = self._ui
        method = record.get("method")
        if ui is None:
            return
        if method not in _DIALOGS:
            if method == "notify":
                ui.notify(str(record.get("message") or ""), record.get("notifyType"))
            elif method == "setStatus":
                ui.set_status(str(record.get("statusKey") or ""), record.get("statusText"))
            elif method == "setWidget":
                ui.set_widget(
                    str(record.get("widgetKey") or ""), record.get("widgetLines"), record.get("widgetPlacement")
                )
            elif method == "setTitle":
                ui.set_title(str(record.get("title") or ""))
            elif method == "set_editor_text":
                ui.set_editor_text(str(record.get("text") or ""))
            return
        key = str(record.get("id"))
        signal = _Signal()
        self._dialogs[key] = signal
        title = str(record.get("title") or "")
        timeout = record.get("timeout")
        try:
            if method == "select":
                value = await ui.select(title, list(record.get("options") or []), timeout, signal)
            elif method == "confirm":
                value = await ui.confirm(title, str(record.get("message") or ""), timeout, signal)
            elif method == "input":
                value = await ui.input(title, record.get("placeholder"), timeout, signal)
            else:
                value = await ui.editor(title, record.get("prefill"))
        finally:
            self._dialogs.pop(key, None)
        if signal.aborted:
            return  # answered elsewhere (or the connection ended)
        answer: Record = {"type": "extension_ui_response", "id": key}
        if method == "confirm":
            answer["confirmed"] = bool(value)
        elif value is None:
            answer["cancelled"] = True
        else:
            answer["value"] = value
        if self.handle != DEFAULT_HANDLE:
            answer["handle"] = self.handle
        try:
            await self.connection.notify(answer)
        except Exception:  # noqa: BLE001 - the connection ended: nothing to answer
            pass

    # ------------------------------------------------------------------ reads

    @property
    def model(self) -> Record | None:
        model = self.state.get("model")
        return model if isinstance(model, dict) else None

    @property
    def thinking_level(self) -> str | None:
        return self.state.get("thinkingLevel")

    def get_state(self) -> Record:
        return dict(self.state)

    def get_messages(self) -> list[Record]:
        return list(self.messages)

    def get_commands(self) -> list[Record]:
        return list(self.commands)

    def get_available_models(self) -> list[Record]:
        return list(self.models)

    def get_session_stats(self) -> Record:
        return dict(self.stats)

    def get_available_thinking_levels(self) -> list[str]:
        return list(self.thinking_levels)

    # ------------------------------------------------------------------ actions

    async def prompt(
        self, text: str, images: list[Record] | None = None, streaming_behavior: str | None = None, **_: Any
    ) -> str:
        data = await self._call("prompt", message=text, images=images, streamingBehavior=streaming_behavior)
        return str((data or {}).get("disposition") or "started")

    async def wait_for_settled(self) -> None:
        await self._settled.wait()

    async def abort(self) -> bool:
        data = await self._call("abort")
        return (data or {}).get("outcome") == "aborted"

    def abort_bash(self) -> None:
        if self._tg is not None:
            self._tg.start_soon(self._call, "abort_bash")

    async def bash(
        self,
        command: str,
        exclude_from_context: bool | None = None,
        on_chunk: Callable[[str], Awaitable[None]] | None = None,
    ) -> Record:
        key = self.connection.new_id()  # (its bash_execution_update records carry it)
        if on_chunk is not None:
            self._bash_chunks[key] = on_chunk
        try:
            result = await self._call("bash", id=key, command=command, excludeFromContext=exclude_from_context)
        finally:
            self._bash_chunks.pop(key, None)
        await self.refresh()
        return dict(result or {})

    async def cycle_model(self) -> Record | None:
        result = await self._call("cycle_model")
        await self.refresh()
        return result if isinstance(result, dict) else None

    async def cycle_thinking_level(self) -> Record | None:
        result = await self._call("cycle_thinking_level")
        await self.refresh()
        return result if isinstance(result, dict) else None

    async def set_model(self, provider: str, model_id: str) -> Record:
        result = await self._call("set_model", provider=provider, modelId=model_id)
        await self.refresh()
        return dict(result or {})

    async def set_thinking_level(self, level: str) -> None:
        await self._call("set_thinking_level", level=level)
        await self.refresh()

    async def clear_queue(self) -> Record:
        return dict(await self._call("clear_queue") or {})

    async def set_session_name(self, name: str) -> None:
        await self._call("set_session_name", name=name)
        await self.refresh()

    async def compact(self, custom_instructions: str | None = None) -> Record:
        result = await self._call("compact", customInstructions=custom_instructions)
        await self.refresh()
        return dict(result or {})

    def get_last_assistant_text(self) -> Record:
        for message in reversed(self.messages):
            if message.get("role") == "assistant":
                parts = [b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text"]
                return {"text": "".join(parts) or None}
        return {"text": None}

    # The app calls these setters synchronously (the settings screen): the command is sent at
    # once from the task group, the mirror refreshed after it.
    def set_auto_compaction(self, enabled: bool) -> None:
        self._spawn("set_auto_compaction", enabled=enabled)

    def set_steering_mode(self, mode: str) -> None:
        self._spawn("set_steering_mode", mode=mode)

    def set_follow_up_mode(self, mode: str) -> None:
        self._spawn("set_follow_up_mode", mode=mode)

    def _spawn(self, type_: str, **fields: Any) -> None:
        async def run() -> None:
            try:
                await self._call(type_, **fields)
                await self.refresh()
            except Exception as exc:  # noqa: BLE001 - shown, as a failed command is
                if self._ui is not None:
                    self._ui.notify(f"{type_}: {exc}", "error")

        if self._tg is not None:
            self._tg.start_soon(run)

    # Session replacement: the server's session becomes another one; the mirror follows.
    async def new_session(self, parent_session: str | None = None) -> Record:
        return await self._replacing("new_session", parentSession=parent_session)

    async def switch_session(self, session_path: str) -> Record:
        return await self._replacing("switch_session", sessionPath=session_path)

    async def fork(self, entry_id: str | None = None, position: str = "before") -> Record:
        return await self._replacing("fork", entryId=entry_id, position=None if position == "before" else position)

    async def clone(self) -> Record:
        return await self._replacing("clone")

    async def _replacing(self, type_: str, **fields: Any) -> Record:
        result = await self._call(type_, **fields)
        await self.refresh()
        if not (result or {}).get("cancelled"):
            for callback in list(self._replaced):
                outcome = callback(self)
                if inspect.isawaitable(outcome):
                    await outcome
        return dict(result or {})

    async def shutdown(self) -> None:
        """Leave the server and its session running: close this connection."""
        await self.connection.aclose()

    def __getattr__(self, name: str) -> Any:
        # (only for names not found: the members above and the instance's own)
        raise RemoteUnsupported(f"{name} is not available over `pi attach` yet")

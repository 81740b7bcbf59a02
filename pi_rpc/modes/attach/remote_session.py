"""``RemoteSession``: the session interface of the interactive app over a connection.

``PiApp`` drives an ``AgentSession``: it subscribes to its events, reads its state synchronously
(``is_streaming``, ``model``, ``get_messages()`` …) and awaits its actions (``prompt``,
``abort``, ``bash`` …). ``RemoteSession`` offers the same members for a session held by a
``pi --listen`` server, attached by handle:

- events: the connection's records of that session go to the subscribers as the session's
  events (the wire's ``message_update`` carries the same ``assistantMessageEvent`` deltas);
- state: a mirror, read in full with ``get_state``/``get_messages``/``get_commands``/
  ``get_available_models``/``get_session_stats``/``get_entries`` when attaching and after a
  replacement (``/new``, ``/resume``, ``/tree``, a compaction …); otherwise it follows the
  events: ``message_end`` appends to the messages, and after ``agent_settled`` only the state,
  the statistics and the entries added since the last one known (``get_entries {since}``) are
  read. When the server's ``messageCount`` then differs from the mirror's, the messages are
  read again (a gap nothing can fill). ``is_streaming``/``is_compacting`` follow the events;
- connection: ``seq`` is on; when the connection drops, ``reconnect.py`` makes it again with
  backoff and re-attaches with ``since`` = the last ``seq`` received (catch-up with no gap and
  no duplicate), or reads everything again when the ring no longer holds the records or the
  server is another process;
- actions: the RPC command of the same name (``prompt`` with ``streamingBehavior``, ``bash``
  with its ``bash_execution_update`` chunks, ``abort``, ``cycle_model`` …);
- extensions run in the server; their dialogs (``extension_ui_request``) are shown by the
  terminal UI the app binds (``bind_extensions``) and answered with ``extension_ui_response``;
  a dialog another client answered first (``extension_ui_resolved``) is dismissed;
- settings, keybindings and the theme are the local agent directory's (the terminal's).

The slash commands that need the server (``/tree``, ``/resume``, ``/export``, ``/login`` …) have
their variants in ``commands.py`` (``slash_overrides``). A member the app would use that has no
remote counterpart raises ``RemoteUnsupported`` naming it (the slash command shows that).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from pi_rpc.modes.attach.connection import CommandFailed, Connection
from pi_rpc.modes.attach.extension_ui import RemoteDialogs
from pi_rpc.modes.attach.remote_holder import RemoteHolder

Record = dict[str, Any]
Listener = Callable[[Record], Awaitable[None]]
DEFAULT_HANDLE = "default"
# Events after which the mirror is brought up to date before the app sees them: a full re-read
# (the session's messages were replaced) or the light one (state, statistics, new entries).
_RESYNC_AFTER = frozenset({"compaction_end"})
_SYNC_AFTER = frozenset({"agent_settled", "model_change", "thinking_level_change"})
_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def is_local(address: str) -> bool:
    """Whether the server at ``address`` runs on this machine (a Unix socket or a loopback
    host): then its files (an export, a session file) are this terminal's files too."""
    if address.startswith("unix:"):
        return True
    rest = address.split("://", 1)[1] if "://" in address else address.partition(":")[2]
    host = rest.split("/", 1)[0].rsplit(":", 1)[0]
    return host in _LOOPBACK


class RemoteUnsupported(AttributeError):
    """What the interactive app asked for has no counterpart over ``pi attach``."""


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

    # /tree reads these after ``RemoteSession.load_tree`` (commands.py).
    def get_tree(self) -> list[Record]:
        return list(self._owner.tree)

    def get_leaf_id(self) -> str | None:
        return self._owner.leaf_id

    def get_label(self, entry_id: str) -> str | None:
        stack = list(self._owner.tree)
        while stack:
            node = stack.pop()
            if (node.get("entry") or {}).get("id") == entry_id:
                return node.get("label")
            stack.extend(node.get("children") or [])
        return None

    @property
    def session_dir(self) -> str:
        """The server's directory of this session's file (``/import`` on a local server)."""
        path = self.session_file
        if not path:
            raise RemoteUnsupported("the server's session is not saved to a file")
        return os.path.dirname(path)

    def __getattr__(self, name: str) -> Any:
        raise RemoteUnsupported(f"session.{name} is not available over `pi attach`")


def _fork_messages(entries: list[Record]) -> list[Record]:
    """``get_fork_messages``' rows for ``entries`` (user messages with text, in order)."""
    from pi_rpc.ai.transcript import content_text

    out: list[Record] = []
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        text = content_text(message.get("content"))
        if text:
            out.append({"entryId": entry.get("id"), "text": text})
    return out


async def _feed(on_chunk: Callable[[str], Awaitable[None]], delta: str) -> None:
    await on_chunk(delta)


class RemoteSession:
    """A session of a listening server, attached by ``handle``, as ``PiApp`` uses a session."""

    mcp_command = None
    ext = None

    def __init__(
        self,
        connection: Connection,
        handle: str,
        options: RemoteOptions,
        settings: Any,
        *,
        reopen: Callable[[], Awaitable[Connection]] | None = None,
        reconnect_seconds: float = 30.0,
    ) -> None:
        self.connection = connection
        self.address = connection.address
        self.local = is_local(connection.address)
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
        self.tree: list[Record] = []
        self.leaf_id: str | None = None
        self.sessions: dict[str, list[Record]] = {}
        self.cwd = options.cwd
        self.is_streaming = False
        self.is_compacting = False
        self.closed = anyio.Event()
        self.lost_reason: str | None = None
        self.last_seq: int | None = None
        self.reads = {"full": 0, "light": 0, "messages": 0}  # (what the tests and bench count)
        self.reconnects: list[Record] = []
        self.reconnect_seconds = reconnect_seconds
        self.reconnecting = False
        self.reopen = reopen or (lambda: Connection.open(connection.address))
        self._shutting_down = False
        self._listeners: list[Listener] = []
        self._holder = RemoteHolder(self)
        self._tg: anyio.abc.TaskGroup | None = None
        self.dialogs = RemoteDialogs(self._send_answer)
        self._bash_chunks: dict[str, Callable[[str], Awaitable[None]]] = {}
        self._settled = anyio.Event()
        self._settled.set()
        self._events_in, self._events_out = anyio.create_memory_object_stream[tuple[Record, str | None]](1 << 20)

    @property
    def slash_overrides(self) -> dict[str, Any]:
        """This seam's variants of the built-in commands that need the server (commands.py)."""
        from pi_rpc.modes.attach.commands import remote_commands

        return remote_commands()

    # ------------------------------------------------------------------ attaching

    async def start(self, task_group: anyio.abc.TaskGroup) -> None:
        """Read records (in ``task_group``), attach to the session, load the mirror."""
        self._tg = task_group
        task_group.start_soon(self._pump)
        await self.attach(self.connection, since=None)
        for summary in await self._call("list_open_sessions", key="sessions", handle=False):
            if summary.get("handle") == self.handle and summary.get("cwd"):
                self.cwd = str(summary["cwd"])
                self.options = dataclasses.replace(self.options, cwd=self.cwd)
        await self.refresh()

    async def attach(self, connection: Connection, since: int | None) -> Record:
        """Make ``connection`` this session's: ``seq`` on, attached to the handle (replaying
        the records numbered above ``since`` first); ``attach_session``'s data.

        Catching up (``since``): a new connection starts attached to ``"default"``, so the
        session's live records can arrive before the replay of older ones. The connection is
        detached first, so that the replay covers every record above ``since``, and what
        arrives until the response is held, then given on in ``seq`` order, each ``seq``
        once (a record held without ``seq``, sent before it was turned on, is replayed)."""
        assert self._tg is not None
        self.connection = connection
        if since is not None:
            self._held = []
        connection.on_record = self._on_record
        try:
            await connection.run(self._tg)
            await connection.request({"type": "set_event_options", "seq": True})
            data: Record = {"replayed": 0, "complete": True}
            if since is not None:
                await connection.request({"type": "detach_session", "handle": DEFAULT_HANDLE})
                command = {"type": "attach_session", "handle": self.handle, "since": since}
                data = await connection.request(command) or data
            elif self.handle != DEFAULT_HANDLE:
                data = await connection.request({"type": "attach_session", "handle": self.handle}) or data
                await connection.request({"type": "detach_session", "handle": DEFAULT_HANDLE})
        except BaseException:
            self._held = None
            raise
        held, self._held = self._held, None
        seen: set[int] = set()
        for record in sorted((r for r in held or [] if isinstance(r.get("seq"), int)), key=lambda r: r["seq"]):
            if record["seq"] not in seen:
                seen.add(record["seq"])
                self._on_record(record)
        return data

    _held: list[Record] | None = None

    async def refresh(self) -> None:
        """Read the whole mirror again."""
        self.reads["full"] += 1
        await self.read_state()
        self.messages = await self._call("get_messages", key="messages")
        self.commands = await self._call("get_commands", key="commands")
        self.models = await self._call("get_available_models", key="models")
        self.entries = await self._call("get_entries", key="entries")
        self.fork_messages = await self._call("get_fork_messages", key="messages")
        self.thinking_levels = await self._call("get_available_thinking_levels", key="levels")

    async def read_state(self) -> None:
        """The state and the statistics (small: read after every run)."""
        self.state = await self._call("get_state") or {}
        self.is_streaming = bool(self.state.get("isStreaming"))
        self.is_compacting = bool(self.state.get("isCompacting"))
        self.stats = await self._call("get_session_stats") or {}

    async def sync(self) -> None:
        """The light update after a run: the state, the statistics, the entries added since the
        last one known; the messages only when the server counts another number of them."""
        self.reads["light"] += 1
        before, model = self.state.get("sessionId"), self.state.get("model")
        await self.read_state()
        if self.state.get("sessionId") != before:
            await self.refresh()  # (replaced by another client meanwhile: shown again)
            await self._holder.announce_replaced()
            return
        if self.state.get("model") != model:  # (the levels a model offers differ)
            self.thinking_levels = await self._call("get_available_thinking_levels", key="levels")
        last = next((e.get("id") for e in reversed(self.entries) if e.get("id")), None)
        try:
            added = await self._call("get_entries", key="entries", since=last) if last else None
        except RuntimeError:  # (the entry is gone: the tree was rewritten)
            added = None
        if added is None:
            self.entries = await self._call("get_entries", key="entries")
            self.fork_messages = await self._call("get_fork_messages", key="messages")
        else:
            self.entries.extend(added)
            self.fork_messages.extend(_fork_messages(added))
        if self.state.get("messageCount") != len(self.messages):
            self.reads["messages"] += 1
            self.messages = await self._call("get_messages", key="messages")

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
    def holder(self) -> RemoteHolder:
        """What the app follows, as it follows a local session's holder."""
        return self._holder

    def _mine(self, record: Record) -> bool:
        handle = record.get("handle")
        return handle == self.handle or (handle is None and self.handle == DEFAULT_HANDLE)

    def _on_record(self, record: Record | None) -> None:
        if record is not None and self._held is not None:
            self._held.append(record)  # (catching up: given on in seq order, attach())
            return
        if record is None:
            self.dialogs.abort_all()
            if self.reconnecting:
                return  # (an attempt's connection: the attempt sees its failure)
            if self._shutting_down or self._tg is None or self.reconnect_seconds <= 0:
                self.lost_reason = self.lost_reason or "the server closed the connection"
                self.closed.set()
            else:
                from pi_rpc.modes.attach.reconnect import reconnect

                self._tg.start_soon(reconnect, self)
            return
        if not self._mine(record) or self._tg is None:
            return
        if isinstance(record.get("seq"), int):
            self.last_seq = record["seq"]
        kind = record.get("type")
        if kind == "bash_execution_update":
            chunk = self._bash_chunks.get(str(record.get("id")))
            if chunk is not None:
                self._tg.start_soon(_feed, chunk, str(record.get("delta") or ""))
            return
        if kind == "extension_ui_request":
            self._tg.start_soon(self.dialogs.serve, record)
            return
        if kind == "extension_ui_resolved":
            self.dialogs.resolved(str(record.get("id")))
            return
        if kind in ("agent_start", "compaction_start"):
            if kind == "agent_start":
                self.is_streaming = True
                self._settled = anyio.Event()
            else:
                self.is_compacting = True
        elif kind == "agent_settled":
            self.is_streaming = False
        elif kind == "compaction_end":
            self.is_compacting = False
        elif kind == "message_end" and isinstance(record.get("message"), dict):
            # (in record order, before a later read; not twice when a read of the messages
            # answered after the server had appended it but before this record arrived)
            if not self.messages or self.messages[-1] != record["message"]:
                self.messages.append(record["message"])
        event = {key: value for key, value in record.items() if key not in ("handle", "seq", "runId")}
        how = "full" if kind in _RESYNC_AFTER else "light" if kind in _SYNC_AFTER else None
        self._events_in.send_nowait((event, how))

    async def _pump(self) -> None:
        """Deliver the events in their order; the mirror is brought up to date first where
        the app reads it on that event (the footer after a run, the transcript after a
        compaction)."""
        async for event, how in self._events_out:
            try:
                if how == "full":
                    await self.refresh()
                elif how == "light":
                    await self.sync()
            except Exception:  # noqa: BLE001 - the connection ended: the app is told separately
                pass
            if event.get("type") == "agent_settled":
                self._settled.set()
            for listener in list(self._listeners):
                await listener(event)

    # ------------------------------------------------------------------ extensions

    async def bind_extensions(self, binding: Any) -> None:
        """The server's extensions are bound there; their dialogs come to this terminal's UI."""
        self.dialogs.ui = binding.ui

    async def load_extensions(self) -> None:
        return None

    async def _send_answer(self, answer: Record) -> None:
        await self.connection.notify(self._with_handle(answer))

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
        await self.sync()
        return dict(result or {})

    async def cycle_model(self) -> Record | None:
        result = await self._call("cycle_model")
        await self.sync()
        return result if isinstance(result, dict) else None

    async def cycle_thinking_level(self) -> Record | None:
        result = await self._call("cycle_thinking_level")
        await self.sync()
        return result if isinstance(result, dict) else None

    async def set_model(self, provider: str, model_id: str) -> Record:
        result = await self._call("set_model", provider=provider, modelId=model_id)
        await self.sync()
        return dict(result or {})

    async def set_thinking_level(self, level: str) -> None:
        await self._call("set_thinking_level", level=level)
        await self.sync()

    async def clear_queue(self) -> Record:
        return dict(await self._call("clear_queue") or {})

    async def set_session_name(self, name: str) -> None:
        await self._call("set_session_name", name=name)
        await self.sync()

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
                await self.sync()
            except Exception as exc:  # noqa: BLE001 - shown, as a failed command is
                if self.ui is not None:
                    self.dialogs.in_app(self.dialogs.notify, f"{type_}: {exc}", "error")

        if self._tg is not None:
            self._tg.start_soon(run)

    # Session replacement: the server's session becomes another one; the mirror follows.
    async def new_session(self, parent_session: str | None = None) -> Record:
        return await self._replacing("new_session", parentSession=parent_session)

    async def switch_session(self, session_path: str, cwd_override: str | None = None) -> Record:
        if cwd_override is not None:
            raise RemoteUnsupported("opening a session in another cwd is not available over `pi attach`")
        return await self._replacing("switch_session", sessionPath=session_path)

    async def fork(self, entry_id: str | None = None, position: str = "before") -> Record:
        return await self._replacing("fork", entryId=entry_id, position=None if position == "before" else position)

    async def clone(self) -> Record:
        return await self._replacing("clone")

    async def _replacing(self, type_: str, **fields: Any) -> Record:
        result = await self._call(type_, **fields)
        await self.refresh()
        if not (result or {}).get("cancelled"):
            await self._holder.announce_replaced()
        return dict(result or {})

    # /tree: the tree is read when the command opens; moving re-reads the mirror.
    async def load_tree(self) -> None:
        data = await self._call("get_tree") or {}
        self.tree = list(data.get("tree") or [])
        self.leaf_id = data.get("leafId")

    async def navigate_tree(self, entry_id: str, summarize: bool = False, **_: Any) -> Record:
        result = dict(await self._call("navigate_tree", targetId=entry_id, summarize=summarize or None) or {})
        await self.refresh()
        return result

    def set_label(self, entry_id: str, label: str | None) -> None:
        async def run() -> None:
            try:
                await self.connection.request(
                    self._with_handle({"type": "set_label", "entryId": entry_id, "label": label})
                )
            except Exception as exc:  # noqa: BLE001 - shown, as a failed command is
                if self.ui is not None:
                    self.dialogs.in_app(self.dialogs.notify, f"set_label: {exc}", "error")

        if self._tg is not None:
            self._tg.start_soon(run)

    # /resume: both scopes are read when the picker opens and after a rename or a delete.
    async def load_sessions(self, query: str | None = None) -> None:
        self._query = query
        for scope in ("cwd", "all"):
            self.sessions[scope] = await self._call(
                "list_sessions", key="sessions", scope=scope, limit=500, query=query
            )

    def list_sessions(
        self, scope: str = "cwd", limit: int | None = None, query: str | None = None, *, texts: bool = False
    ) -> list[Record]:
        """The lists read by ``load_sessions``. ``texts`` (every message's text, which the local
        picker's filter searches) is not sent over the wire: there, the filter searches what
        ``list_sessions`` returns (names, first messages, ids, paths)."""
        return list(self.sessions.get(scope, []))[:limit]

    async def rename_session(self, session_path: str, name: str) -> None:
        await self._call("rename_session", sessionPath=session_path, name=name)
        await self.load_sessions(self._query)
        await self.sync()

    async def delete_session(self, session_path: str) -> None:
        await self._call("delete_session", sessionPath=session_path)
        await self.load_sessions(self._query)

    _query: str | None = None

    async def export_html(self, output_path: str | None = None) -> Record:
        """Written by the server, on its machine (a relative path is the server's cwd's)."""
        return dict(await self._call("export_html", outputPath=output_path) or {})

    async def reload_lists(self) -> None:
        """The server's commands and models again (after a login, a logout, a reload)."""
        self.commands = await self._call("get_commands", key="commands")
        self.models = await self._call("get_available_models", key="models")
        await self.read_state()

    def _with_handle(self, command: Record) -> Record:
        return command if self.handle == DEFAULT_HANDLE else {**command, "handle": self.handle}

    async def shutdown(self) -> None:
        """Leave the server and its session running: close this connection."""
        self._shutting_down = True
        await self.connection.aclose()

    def __getattr__(self, name: str) -> Any:
        # (only for names not found: the members above and the instance's own)
        raise RemoteUnsupported(f"{name} is not available over `pi attach`")

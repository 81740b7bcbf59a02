"""TypeScript/JavaScript extensions as ordinary ``Extension`` objects of the Python machinery.

Each one gets a real ``ExtensionAPI`` here (the same object a Python extension's ``setup``
receives) and the Node sidecar forwards every ``pi.*`` call of the extension to it, so
registration rules, load-time restrictions, staleness, errors and their texts are the Python
ones. What the extension registers becomes proxies: a handler is an async callable that runs the
JavaScript handler in Node (one round trip; in-place edits of ``tool_call``'s ``input``,
``before_agent_start``'s ``systemPromptOptions`` and ``before_provider_headers``' ``headers``
come back with the answer and are applied to the event), a tool's ``execute`` runs its
JavaScript ``execute`` (``onUpdate`` notes stream back, an abort aborts its signal), a command's
handler runs the JavaScript handler. ``ctx`` crosses as a reference (generation, kind, tool call
id) that Node turns into a ``ctx`` object whose members call back into a fresh Python context.

Generations: every load of the extensions (startup, new/resume/fork, reload) is one
``SharedRuntime`` and one generation in Node. When the runtime is invalidated Node marks the
generation stale (captured ``pi``/``ctx`` objects throw upstream's stale message) and forgets its
handlers.

The process: one per pi process, started on the first TypeScript extension. If it dies or hangs
it is reported on stderr, pending calls fail with a clear error (a tool call becomes an error
result, a handler an ``extension_error``), and it is restarted once per run with every live
TypeScript extension loaded again; after a second failure their tools and handlers fail with
that error for the rest of the run.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import weakref
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from pi_rpc.ai.abort import AbortController, AbortSignal
from pi_rpc.extensions.api import ExtensionAPI, SharedRuntime
from pi_rpc.extensions.context import ExtensionCommandContext, ExtensionContext, ExtensionToolContext
from pi_rpc.extensions.events import ALL_EVENTS
from pi_rpc.extensions.nodejs.component import ScriptComponent
from pi_rpc.extensions.nodejs.locate import NodeUnavailable, ensure_modules, find_node
from pi_rpc.extensions.nodejs.sidecar import SidecarError, SidecarGone, SidecarProcess
from pi_rpc.extensions.types import Extension, LoadFailure
from pi_rpc.session.manager import SessionManager

if TYPE_CHECKING:
    from pi_rpc.extensions.discovery import ExtensionSource

SCRIPT_SUFFIXES = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs")

# pi.* calls forwarded to the ExtensionAPI method of the same meaning.
API_METHODS = {
    "registerFlag": "register_flag",
    "getFlag": "get_flag",
    "sendMessage": "send_message",
    "sendUserMessage": "send_user_message",
    "appendEntry": "append_entry",
    "setSessionName": "set_session_name",
    "getSessionName": "get_session_name",
    "setLabel": "set_label",
    "getActiveTools": "get_active_tools",
    "getAllTools": "get_all_tools",
    "setActiveTools": "set_active_tools",
    "getCommands": "get_commands",
    "getThinkingLevel": "get_thinking_level",
    "setThinkingLevel": "set_thinking_level",
    "getSettings": "get_settings",
    "registerProvider": "register_provider",
    "unregisterProvider": "unregister_provider",
    "registerVirtualModel": "register_virtual_model",
    "unregisterVirtualModel": "unregister_virtual_model",
    "registerMcpServer": "register_mcp_server",
    "unregisterMcpServer": "unregister_mcp_server",
    "getMcpServers": "get_mcp_servers",
}
API_ASYNC = {"exec": "exec", "setModel": "set_model"}
CTX_PROPERTIES = {"model": "model", "thinkingLevel": "thinking_level", "signal": "signal"}
CTX_METHODS = {
    "isIdle": "is_idle",
    "isProjectTrusted": "is_project_trusted",
    "abort": "abort",
    "hasPendingMessages": "has_pending_messages",
    "shutdown": "shutdown",
    "getContextUsage": "get_context_usage",
    "compact": "compact",
    "getSystemPrompt": "get_system_prompt",
    "getSystemPromptOptions": "get_system_prompt_options",
    "getCallableTools": "get_callable_tools",
}
CTX_ASYNC = {
    "waitForIdle": "wait_for_idle",
    "newSession": "new_session",
    "fork": "fork",
    "navigateTree": "navigate_tree",
    "switchSession": "switch_session",
    "reload": "reload",
    "executeTool": "execute_tool",
    # withSession's ctx (ReplacedSessionContext) only
    "sendMessage": "send_message",
    "sendUserMessage": "send_user_message",
    "getSystemPromptOptions": "get_system_prompt_options",
}
# ctx.modelRegistry (upstream's names) on pi_rpc's ModelRegistry.
REGISTRY: dict[str, Callable[..., Any]] = {
    "find": lambda r, provider, model_id: r.find(provider, model_id),
    "getAll": lambda r: r.all_models(),
    "getAvailable": lambda r: r.get_available(),
    "getProviders": lambda r: r.providers(),
    "hasConfiguredAuth": lambda r, model: r.has_auth(str((model or {}).get("provider"))),
    "getApiKeyForProvider": lambda r, provider: r.get_api_key(provider),
    "getApiKey": lambda r, model: r.get_api_key(str((model or {}).get("provider"))),
}
# What newSession's setup(sm) may call on the new session's SessionManager (upstream's names).
SM_WRITABLE = frozenset(
    (
        "append_message",
        "append_custom_entry",
        "append_custom_message_entry",
        "append_session_info",
        "append_label_change",
        "append_thinking_level_change",
        "append_model_change",
        "get_cwd",
        "get_session_dir",
        "get_session_id",
        "get_session_file",
        "get_session_name",
        "get_header",
        "get_entries",
        "get_entry",
        "get_branch",
        "get_children",
        "get_leaf_id",
        "get_leaf_entry",
        "get_label",
        "get_tree",
    )
)
MUTABLE_FIELDS = {
    "tool_call": "input",
    "before_agent_start": "systemPromptOptions",
    "before_provider_headers": "headers",
}
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    if not name or name.startswith("_") or not name.replace("_", "").isalnum():
        raise AttributeError(f"Not a public method: {name!r}")
    return _CAMEL.sub("_", name).lower()


def is_script(path: str) -> bool:
    return path.endswith(SCRIPT_SUFFIXES)


def _replace_in_place(target: Any, value: Any) -> None:
    if isinstance(target, dict) and isinstance(value, dict):
        target.clear()
        target.update(value)
    elif isinstance(target, list) and isinstance(value, list):
        target[:] = value


@dataclass
class ScriptExtension:
    """One loaded TypeScript extension: its Python-side objects and its registrations' undo."""

    ext_id: str
    generation: int
    source: ExtensionSource
    extension: Extension
    api: ExtensionAPI
    fresh: bool = False
    unsubscribe: dict[str, Callable[[], None]] = field(default_factory=dict)
    bus: dict[str, Callable[[], None]] = field(default_factory=dict)


class ScriptHost:
    """The sidecar of this process and everything the bridge tracks about it."""

    def __init__(self) -> None:
        self.process: SidecarProcess | None = None
        self.restarts_left = 1
        self.disabled: str | None = None  # why TypeScript extensions no longer run
        self.generations: dict[int, SharedRuntime] = {}
        self.extensions: dict[str, ScriptExtension] = {}
        self._next = 0
        self._starting: asyncio.Future[SidecarProcess] | None = None
        self._node_signals: dict[str, AbortController] = {}
        # Python signals handed to Node, by id; weak, so a run's signal is released with it.
        self._signal_ids: dict[int, str] = {}
        self._signals: weakref.WeakValueDictionary[str, AbortSignal] = weakref.WeakValueDictionary()
        self._emitting_from_node: str | None = None  # the channel Node is emitting on
        self._loose: dict[str, Any] = {}  # limited contexts handed to Node, by id
        self._managers: dict[str, SessionManager] = {}  # newSession setup()'s managers, by id
        self._restarted: asyncio.Event | None = None  # set while a restart loads the extensions again
        # ctx.ui.custom components handed to Python, by id; weak: a closed dialog releases its own
        self._components: weakref.WeakValueDictionary[str, ScriptComponent] = weakref.WeakValueDictionary()

    def _id(self, prefix: str) -> str:
        self._next += 1
        return f"{prefix}{self._next}"

    # ------------------------------------------------------------------ the process

    async def sidecar(self) -> SidecarProcess:
        if self.disabled is not None:
            raise SidecarGone(self.disabled)
        process = self.process
        if process is not None and process.alive and process.loop is asyncio.get_running_loop():
            return process
        if self._starting is not None and self._starting.get_loop() is asyncio.get_running_loop():
            return await asyncio.shield(self._starting)
        if process is not None and process.alive:
            process.close()  # another event loop: this one cannot read it
        self._starting = asyncio.get_running_loop().create_future()
        try:
            process = await self._start()
        except BaseException as exc:
            starting, self._starting = self._starting, None
            starting.set_exception(exc if isinstance(exc, Exception) else SidecarGone(str(exc)))
            starting.exception()  # retrieved: nobody else may be waiting
            raise
        self.process = process
        starting, self._starting = self._starting, None
        starting.set_result(process)
        return process

    async def _start(self) -> SidecarProcess:
        from pi_rpc.config import paths

        runtime = find_node()
        agent_dir = str(paths.agent_dir())
        directory = await asyncio.to_thread(ensure_modules, runtime, agent_dir)
        process = SidecarProcess(self)
        await process.start(runtime.node, directory, {"PI_SIDECAR_AGENT_DIR": agent_dir})
        return process

    def exited(self, process: SidecarProcess, reason: str) -> None:
        if process is not self.process:
            return
        live = [rec for rec in self.extensions.values() if self.generations.get(rec.generation) is not None]
        names = ", ".join(rec.source.path for rec in live) or "none loaded"
        if self.restarts_left <= 0:
            self.disabled = (
                f"The TypeScript extension host (Node) stopped again ({reason}); TypeScript extensions are "
                "disabled for the rest of this run"
            )
            print(f"Warning: {self.disabled} ({names})", file=sys.stderr, flush=True)
            return
        self.restarts_left -= 1
        print(
            f"Warning: The TypeScript extension host (Node) stopped ({reason}); restarting it and loading its "
            f"extensions again ({names})",
            file=sys.stderr,
            flush=True,
        )
        self.process = None
        self._restarted = asyncio.Event()
        task = process.loop.create_task(self._restart(live))
        process._tasks.add(task)
        task.add_done_callback(process._tasks.discard)

    async def _restart(self, live: list[ScriptExtension]) -> None:
        try:
            await self._reload(live)
        finally:
            restarted, self._restarted = self._restarted, None
            if restarted is not None:
                restarted.set()

    async def _reload(self, live: list[ScriptExtension]) -> None:
        touched: set[int] = set()
        for rec in live:
            self._undo_registrations(rec)
            touched.add(rec.generation)
        for rec in live:
            runtime = self.generations.get(rec.generation)
            if runtime is None or runtime.stale_message is not None:
                continue
            try:
                await self._load_in_node(rec, restarting=True)
            except SidecarError as exc:
                print(f"Warning: {rec.source.path}: could not be loaded again: {exc}", file=sys.stderr, flush=True)
        for generation in touched:
            runtime = self.generations.get(generation)
            if runtime is not None and runtime.host is not None and runtime.stale_message is None:
                runtime.host.refresh_tools()

    def _undo_registrations(self, rec: ScriptExtension) -> None:
        for undo in list(rec.unsubscribe.values()) + list(rec.bus.values()):
            undo()
        rec.unsubscribe.clear()
        rec.bus.clear()
        rec.extension.tools.clear()
        rec.extension.commands.clear()

    async def _barrier(self) -> None:
        """Answered once Node's current synchronous JavaScript (and its microtasks) ran."""
        process = self.process
        if process is not None and process.alive:
            await process.request({"op": "ping"})

    async def request(
        self, message: dict[str, Any], on_update: Callable[[Any], Any] | None = None, *, restarting: bool = False
    ) -> dict[str, Any]:
        """A request to the sidecar; while a restart loads the extensions again, other requests
        wait for it (they address what it registers)."""
        if not restarting and self._restarted is not None:
            await self._restarted.wait()
        process = await self.sidecar()
        return await process.request(message, on_update)

    # ------------------------------------------------------------------ loading

    def generation_of(self, runtime: SharedRuntime) -> int:
        if runtime.script_generation is None:
            self._next += 1
            generation = self._next
            runtime.script_generation = generation
            self.generations[generation] = runtime
            runtime.on_invalidate.append(lambda message: self._invalidate(generation, message))
        return runtime.script_generation

    def _invalidate(self, generation: int, message: str) -> None:
        self.generations.pop(generation, None)
        gone = [ext_id for ext_id, rec in self.extensions.items() if rec.generation == generation]
        for ext_id in gone:
            del self.extensions[ext_id]
        process = self.process
        if process is not None and process.alive:
            process.write({"t": "invalidate", "gen": generation, "message": message})
            if gone:
                process.write({"t": "req", "id": 0, "op": "forget", "ext": gone})

    async def load(self, source: ExtensionSource, runtime: SharedRuntime, *, fresh: bool) -> Extension | LoadFailure:
        extension = Extension(path=source.path, source_info=dict(source.source_info))
        api = ExtensionAPI(extension, runtime)
        rec = ScriptExtension(self._id("e"), self.generation_of(runtime), source, extension, api, fresh)
        self.extensions[rec.ext_id] = rec
        try:
            invalid = await self._load_in_node(rec)
        except SidecarError as exc:
            self.extensions.pop(rec.ext_id, None)
            api._discard()
            return LoadFailure(source.path, f"Failed to load extension: {exc}", source.explicit)
        if invalid is not None:
            self.extensions.pop(rec.ext_id, None)
            api._discard()
            return LoadFailure(source.path, invalid, source.explicit)
        api._commit()
        return extension

    async def _load_in_node(self, rec: ScriptExtension, *, restarting: bool = False) -> str | None:
        answer = await self.request(
            {
                "op": "load",
                "gen": rec.generation,
                "ext": rec.ext_id,
                "path": rec.source.path,
                "fresh": rec.fresh,
            },
            restarting=restarting,
        )
        invalid = answer.get("invalid")
        return str(invalid) if invalid is not None else None

    # ------------------------------------------------------------------ encoding

    def encode(self, message: dict[str, Any]) -> str:
        refs = False

        def default(value: Any) -> Any:
            nonlocal refs
            if isinstance(value, AbortSignal):
                refs = True
                return self._signal_ref(value)
            if isinstance(value, ExtensionContext):
                refs = True
                return self.context_ref(value)
            if hasattr(value, "ui") and hasattr(value, "cwd"):  # a limited ctx (project_trust's)
                refs = True
                return self._loose_context_ref(value)
            if isinstance(value, SessionManager):  # newSession's setup(sm)
                refs = True
                return self._manager_ref(value)
            if isinstance(value, BaseException):  # onError's argument: an Error in Node
                refs = True
                return {"$pi": "error", "name": type(value).__name__, "message": str(value)}
            if isinstance(value, (set, frozenset, tuple)):
                return list(value)
            if isinstance(value, bytes):
                return value.decode("utf-8", "replace")
            return None  # functions and objects that do not cross

        text = json.dumps(message, default=default, ensure_ascii=False, separators=(",", ":"))
        if refs or message.get("x"):
            text = text[:-1] + ',"x":1}' if not message.get("x") else text
        return text

    def decode(self, text: str) -> dict[str, Any]:
        if '"x":1' not in text:
            value: dict[str, Any] = json.loads(text)
            return value
        decoded: dict[str, Any] = json.loads(text, object_hook=self._revive)
        return decoded

    def _revive(self, value: dict[str, Any]) -> Any:
        kind = value.get("$pi")
        if kind == "fn":
            return self._callback(str(value.get("id")))
        if kind == "signal":
            sid = str(value.get("id"))
            controller = self._node_signals.get(sid)
            if controller is None:
                controller = self._node_signals[sid] = AbortController()
            if value.get("aborted"):
                controller.abort()
            return controller.signal
        if kind == "component":  # ctx.ui.custom's component, kept in Node
            cid = str(value.get("id"))
            component = ScriptComponent(cid, self.request, overlay=bool(value.get("overlay")))
            self._components[cid] = component
            return component
        return value

    def _callback(self, fid: str) -> Callable[..., Any]:
        """A JavaScript function handed to Python (``withSession``, ``onComplete`` ...): calling
        it starts the call in Node and returns a task (await it for the result)."""

        def call(*args: Any) -> asyncio.Task[Any]:
            async def run() -> Any:
                return (await self.request({"op": "fn", "fn": fid, "args": list(args)})).get("value")

            return asyncio.get_running_loop().create_task(run())

        return call

    def _signal_ref(self, signal: AbortSignal) -> dict[str, Any]:
        sid = self._signal_ids.get(id(signal))
        if sid is None or self._signals.get(sid) is not signal:
            sid = self._id("p")
            self._signal_ids[id(signal)] = sid
            self._signals[sid] = signal

            def aborted() -> None:
                process = self.process
                if process is not None and process.alive:
                    process.write({"t": "abort", "sid": sid})

            signal.add_callback(aborted)
            weakref.finalize(signal, self._release_signal, id(signal), sid)
        return {"$pi": "signal", "id": sid, "aborted": signal.aborted}

    def _release_signal(self, key: int, sid: str) -> None:
        if self._signal_ids.get(key) == sid:
            del self._signal_ids[key]
        process = self.process
        if process is not None and process.alive:
            try:
                process.write({"t": "release", "sids": [sid]})
            except RuntimeError:  # the event loop is gone (interpreter exit)
                pass

    def context_ref(self, ctx: ExtensionContext) -> dict[str, Any]:
        runtime = ctx._runner.runtime
        kind = (
            "c" if isinstance(ctx, ExtensionCommandContext) else "t" if isinstance(ctx, ExtensionToolContext) else "e"
        )
        ref: dict[str, Any] = {"$pi": "ctx", "g": self.generation_of(runtime), "k": kind}
        if isinstance(ctx, ExtensionToolContext):
            ref["tc"] = ctx.tool_call_id
        try:
            ref["cwd"] = ctx.cwd
            ref["mode"] = ctx.mode
            ref["hasUI"] = ctx.has_ui
        except Exception:  # noqa: BLE001 - a stale context: Node throws the stale message itself
            pass
        return ref

    def _manager_ref(self, manager: SessionManager) -> dict[str, Any]:
        mid = self._id("m")
        self._managers[mid] = manager
        while len(self._managers) > 16:  # each serves one setup() call
            self._managers.pop(next(iter(self._managers)))
        return {"$pi": "sm", "id": mid}

    def _manager_call(self, message: dict[str, Any]) -> Any:
        """A method of the SessionManager handed to ``setup``: upstream's writers and getters
        (``appendMessage``, ``appendCustomEntry``, ``getEntries`` ... ; ``getSessionFile``,
        ``getCwd`` ... read the property of that name)."""
        manager = self._managers.get(str(message.get("sm")))
        if manager is None:
            raise RuntimeError("This SessionManager is no longer available (setup has returned)")
        name = str(message.get("name", ""))
        args = list(message.get("args") or [])
        method = snake(name)
        if method not in SM_WRITABLE:
            raise RuntimeError(f"sessionManager.{name} is not available in setup()")
        value = getattr(manager, method, None)
        if value is None and method.startswith("get_"):
            return getattr(manager, method[4:])
        if not callable(value):
            raise RuntimeError(f"sessionManager.{name} is not available in setup()")
        return value(*args)

    def _loose_context_ref(self, ctx: Any) -> dict[str, Any]:
        oid = self._id("o")
        self._loose[oid] = ctx
        while len(self._loose) > 64:  # they serve one early event each (project_trust)
            self._loose.pop(next(iter(self._loose)))
        return {
            "$pi": "ctx",
            "o": oid,
            "g": 0,  # no generation: it never turns stale
            "k": "e",
            "cwd": getattr(ctx, "cwd", None),
            "mode": getattr(ctx, "mode", None),
            "hasUI": bool(getattr(ctx, "has_ui", False)),
        }

    def _context(self, ref: Any) -> ExtensionContext:
        loose = self._loose.get(str((ref or {}).get("o")))
        if loose is not None:
            return cast(ExtensionContext, loose)
        runtime = self.generations.get(int((ref or {}).get("g", -1)))
        if runtime is None:
            raise RuntimeError("This extension ctx is stale after session replacement or reload.")
        kind = ref.get("k")
        if kind == "c" and runtime.create_command_context is not None:
            return runtime.create_command_context()
        if kind == "t" and runtime.create_tool_context is not None:
            return runtime.create_tool_context(str(ref.get("tc")))
        if runtime.create_context is None:
            raise RuntimeError("Extension runtime not initialized.")
        return runtime.create_context()

    # ------------------------------------------------------------------ proxies (Python -> Node)

    def _handler(self, rec: ScriptExtension, hid: str) -> Callable[..., Any]:
        async def handler(event: dict[str, Any], ctx: ExtensionContext) -> Any:
            answer = await self.request({"op": "call", "h": hid, "event": event, "ctx": ctx, "x": 1})
            patch = answer.get("patch")
            if patch:
                for key, value in patch.items():
                    if key in event:
                        _replace_in_place(event[key], value)
            return answer.get("value")

        handler.__qualname__ = f"script handler {hid} of {rec.source.path}"
        return handler

    def _tool(self, ext_id: str, name: str) -> Callable[..., Any]:
        async def execute(
            tool_call_id: str, params: Any, signal: AbortSignal | None, on_update: Any, ctx: ExtensionContext
        ) -> Any:
            message = {
                "op": "tool",
                "ext": ext_id,
                "tool": name,
                "toolCallId": tool_call_id,
                "params": params,
                "ctx": ctx,
                "x": 1,
            }
            if signal is not None:
                message["signal"] = signal
            answer = await self.request(message, on_update)
            return answer.get("value")

        # Node aborts the JavaScript execute's signal; its own result counts, as upstream's.
        execute.settles_after_abort = True  # type: ignore[attr-defined]
        return execute

    def _prepare(self, ext_id: str, name: str) -> Callable[..., Any]:
        """The tool's JavaScript ``prepareArguments`` (awaited by the agent before validation)."""

        async def prepare(args: Any) -> Any:
            answer = await self.request({"op": "prepare", "ext": ext_id, "tool": name, "args": args})
            return answer.get("value")

        return prepare

    def _stream(self, ext_id: str, api_name: str) -> Callable[..., Any]:
        """The provider function for ``api_name``: the extension's JavaScript ``streamSimple``
        runs in Node and its events come back as they are produced (``ai.stream`` ends the
        stream properly if Node fails or the events stop without a terminal one)."""

        async def provider(model: Any, context: Any, options: Any) -> AsyncGenerator[Any, None]:
            events: asyncio.Queue[Any] = asyncio.Queue()
            end = object()
            message: dict[str, Any] = {
                "op": "stream",
                "ext": ext_id,
                "api": api_name,
                "model": model,
                "context": {
                    "systemPrompt": context.system_prompt,
                    "messages": context.messages,
                    "tools": context.tools,
                },
                "options": {
                    key: value
                    for key, value in {
                        "apiKey": options.api_key,
                        "reasoning": options.reasoning,
                        "maxTokens": options.max_tokens,
                        "temperature": options.temperature,
                        "sessionId": options.session_id,
                        "headers": options.headers or None,
                    }.items()
                    if value is not None
                },
                "x": 1,
            }
            if options.signal is not None:
                message["signal"] = options.signal

            async def run() -> None:
                try:
                    await self.request(message, events.put_nowait)
                finally:
                    events.put_nowait(end)

            task = asyncio.ensure_future(run())
            try:
                while (event := await events.get()) is not end:
                    yield event
                await task  # Node's failure (a throwing streamSimple) raises here
            finally:
                if not task.done():
                    task.cancel()

        return provider

    def _command(self, ext_id: str, name: str) -> Callable[..., Any]:
        async def handler(args: str, ctx: ExtensionContext) -> None:
            await self.request({"op": "cmd", "ext": ext_id, "cmd": name, "args": args, "ctx": ctx, "x": 1})

        return handler

    def _bus(self, sid: str, channel: str) -> Callable[[Any], Any]:
        """A Node subscriber on Python's bus. What Node emits on a channel its own subscribers
        already got (synchronously, in Node), so that emit skips them; what Python handlers
        emit meanwhile on other channels reaches them."""

        async def deliver(data: Any) -> None:
            await self.request({"op": "bus", "sub": sid, "data": data})

        def subscriber(data: Any) -> Any:
            return None if self._emitting_from_node == channel else deliver(data)

        return subscriber

    # ------------------------------------------------------------------ Node's calls (Node -> Python)

    def _rec(self, message: dict[str, Any]) -> ScriptExtension:
        rec = self.extensions.get(str(message.get("ext")))
        if rec is None:
            raise RuntimeError("This extension is no longer loaded (its session was replaced or reloaded).")
        return rec

    def sync_call(self, message: dict[str, Any]) -> Any:
        op = message.get("op")
        args = list(message.get("args") or [])
        name = str(message.get("name", ""))
        if op == "api":
            rec = self._rec(message)
            runtime = rec.api._runtime
            runtime.spawn_barrier = self._barrier
            try:
                return self._api(rec, str(message.get("call", "")), list(message.get("args") or []))
            finally:
                runtime.spawn_barrier = None
        if op == "ctx":
            ctx = self._context(message.get("ctx"))
            if name in CTX_PROPERTIES:
                return getattr(ctx, CTX_PROPERTIES[name])
            if name == "scopedModels":
                return []
            method = CTX_METHODS.get(name)
            if method is None:
                raise RuntimeError(f"ctx.{name} is not available")
            if name == "compact" and args and isinstance(args[0], dict):
                args[0] = _callbacks_to_snake(args[0], {"onComplete": "on_complete", "onError": "on_error"})
            return getattr(ctx, method)(*args)
        if op == "ui":
            result = getattr(self._context(message.get("ctx")).ui, snake(name))(*args)
            _close_awaitable(result)
            return None if asyncio.iscoroutine(result) else result
        if op == "sm":
            return getattr(self._context(message.get("ctx")).session_manager, snake(name))(*args)
        if op == "registry":
            registry = self._context(message.get("ctx")).model_registry
            call = REGISTRY.get(name)
            if call is None:
                raise RuntimeError(f"ctx.modelRegistry.{name} is not available in pi_rpc")
            return call(registry, *args)
        if op == "lib":
            return _library(name, args)
        if op == "smw":
            return self._manager_call(message)
        raise RuntimeError(f"Unknown call: {op}")

    def _api(self, rec: ScriptExtension, op: str, args: list[Any]) -> Any:
        api = rec.api
        if op == "on":
            event, hid = str(args[0]), str(args[1])
            handler = self._handler(rec, hid)
            if event in ALL_EVENTS:
                rec.unsubscribe[hid] = api.on(event, handler)
            else:  # upstream accepts any name (it is never emitted)
                api._assert_active()
                rec.extension.handlers.setdefault(event, []).append(handler)
                rec.unsubscribe[hid] = lambda: _remove(rec.extension.handlers.get(event), handler)
            return None
        if op == "off":
            undo = rec.unsubscribe.pop(str(args[0]), None)
            if undo is not None:
                undo()
            return None
        if op == "registerTool":
            definition = dict(args[0])
            if definition.pop("hasPrepareArguments", None):
                definition["prepareArguments"] = self._prepare(rec.ext_id, str(definition.get("name")))
            definition["execute"] = self._tool(rec.ext_id, str(definition.get("name")))
            api.register_tool(definition)
            return None
        if op == "registerCommand":
            name, options = str(args[0]), dict(args[1] or {})
            options["handler"] = self._command(rec.ext_id, name)
            api.register_command(name, options)
            return None
        if op == "registerShortcut":
            api.register_shortcut(str(args[0]), dict(args[1] or {}))
            return None
        if op == "registerRenderer":
            kind, custom_type = str(args[0]), args[1]
            api._assert_active()
            rec.extension.renderers.append((kind, custom_type, None))
            return None
        if op == "busOn":
            channel, sid = str(args[0]), str(args[1])
            rec.bus[sid] = api.events.on(channel, self._bus(sid, channel))
            return None
        if op == "busOff":
            undo = rec.bus.pop(str(args[0]), None)
            if undo is not None:
                undo()
            return None
        if op == "busEmit":
            channel = str(args[0])
            outer, self._emitting_from_node = self._emitting_from_node, channel
            try:
                api.events.emit(channel, args[1] if len(args) > 1 else None)
            finally:
                self._emitting_from_node = outer
            return None
        if op == "registerProvider" and len(args) > 1 and isinstance(args[1], dict) and args[1].get("hasStreamSimple"):
            config = dict(args[1])
            del config["hasStreamSimple"]
            api.register_provider(str(args[0]), config)
            from pi_rpc.ai.stream import register_provider as register_stream

            register_stream(str(config["api"]), self._stream(rec.ext_id, str(config["api"])))
            return None
        method = API_METHODS.get(op)
        if method is None:
            raise RuntimeError(f"pi.{op} is not available")
        if op in ("sendMessage", "sendUserMessage") and len(args) < 2:
            args.append(None)
        return getattr(api, method)(*args)

    async def async_call(self, message: dict[str, Any]) -> Any:
        op = message.get("op")
        args = list(message.get("args") or [])
        name = str(message.get("name", ""))
        if op == "api":
            rec = self._rec(message)
            name = str(message.get("call", ""))
            method = API_ASYNC.get(name)
            if method is None:
                raise RuntimeError(f"pi.{name} is not available")
            if name == "exec":
                command, arguments, options = (
                    args[0],
                    args[1] if len(args) > 1 else [],
                    args[2] if len(args) > 2 else {},
                )
                return await rec.api.exec(str(command), list(arguments or []), dict(options or {}))
            return await getattr(rec.api, method)(*args)
        if op == "ctx":
            ctx = self._context(message.get("ctx"))
            method = CTX_ASYNC.get(name)
            if method is None:
                raise RuntimeError(f"ctx.{name} is not available")
            if args and isinstance(args[-1], dict):
                args[-1] = _callbacks_to_snake(args[-1], {"withSession": "with_session"})
            if name == "executeTool":
                tool_name, tool_args = args[0], args[1] if len(args) > 1 else {}
                return await getattr(ctx, method)(tool_name, tool_args)
            result = getattr(ctx, method)(*args)
            return await result if asyncio.iscoroutine(result) else result
        if op == "ui":
            result = getattr(self._context(message.get("ctx")).ui, snake(name))(*args)
            if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
                result = await result
            return result
        if op == "builtin":
            return await _run_builtin(message)
        if op == "oauthUi":
            # A TypeScript provider's OAuth login asking or telling the front-end something.
            from pi_rpc.ai.auth.oauth.extension import login_callbacks

            callbacks = login_callbacks(str(message.get("login")))
            if callbacks is None:
                raise RuntimeError("This login is no longer running")
            result = callbacks[str(message.get("kind"))](*list(message.get("payload") or []))
            return await result if asyncio.iscoroutine(result) else result
        raise RuntimeError(f"Unknown call: {op}")

    def note(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "error":
            rec = self._rec(message)
            runtime = self.generations.get(rec.generation)
            if runtime is not None:
                runtime.report_error(
                    {
                        "extensionPath": rec.source.path,
                        "event": str(message.get("event")),
                        "error": str(message.get("error")),
                    }
                )
            return
        if op == "component":
            component = self._components.get(str(message.get("cid")))
            if component is not None:
                component.noted(str(message.get("event")))
            return
        if op == "abort":
            controller = self._node_signals.pop(str(message.get("sid")), None)
            if controller is not None:
                controller.abort()
        elif op == "ui":
            result = getattr(self._context(message.get("ctx")).ui, snake(str(message.get("name", ""))))(
                *list(message.get("args") or [])
            )
            _close_awaitable(result)


def _remove(handlers: list[Any] | None, handler: Any) -> None:
    if handlers and handler in handlers:
        handlers.remove(handler)


def _close_awaitable(result: Any) -> None:
    close = getattr(result, "close", None) if asyncio.iscoroutine(result) else None
    if close is not None:
        close()


def _callbacks_to_snake(options: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    out = dict(options)
    for camel, snake_name in names.items():
        if callable(out.get(camel)):
            out[snake_name] = out.pop(camel)
    return out


def _library(name: str, args: list[Any]) -> Any:
    """The helpers our ``@earendil-works/pi-coding-agent`` module delegates to Python."""
    if name in ("truncateHead", "truncateTail"):
        from pi_rpc.tools import truncate

        options = args[1] if len(args) > 1 and isinstance(args[1], dict) else {}
        limits = {}
        if options.get("maxLines") is not None:
            limits["max_lines"] = int(options["maxLines"])
        if options.get("maxBytes") is not None:
            limits["max_bytes"] = int(options["maxBytes"])
        fn = truncate.truncate_head if name == "truncateHead" else truncate.truncate_tail
        return fn(str(args[0]), **limits)
    if name == "parseFrontmatter":
        from pi_rpc.resources._text import parse_frontmatter

        parsed = parse_frontmatter(str(args[0]))
        return {"frontmatter": parsed.data, "body": parsed.body}
    if name == "convertToLlm":
        from pi_rpc.agent.convert import convert_to_llm

        return convert_to_llm(list(args[0] or []))
    if name == "serializeConversation":
        from pi_rpc.compaction.serialize import serialize_conversation

        return serialize_conversation(list(args[0] or []))
    if name == "builtinTool":
        from pi_rpc.tools.registry import create_tool

        tool = create_tool(str(args[0]), str(args[1]))
        return {
            "name": tool.name,
            "label": getattr(tool, "label", tool.name),
            "description": tool.description,
            "parameters": tool.parameters,
        }
    raise RuntimeError(f"{name} is not available")


async def _run_builtin(message: dict[str, Any]) -> Any:
    from pi_rpc.tools.registry import create_tool

    tool = create_tool(str(message.get("name")), str(message.get("cwd")))
    signal = message.get("signal")
    result = await tool.execute(
        str(message.get("toolCallId", "")),
        dict(message.get("params") or {}),
        signal if isinstance(signal, AbortSignal) else None,
        None,
    )
    return dict(result)


_host: ScriptHost | None = None


def script_host() -> ScriptHost:
    global _host
    if _host is None:
        _host = ScriptHost()
    return _host


def check_node() -> str | None:
    """Why TypeScript extensions cannot run here (no new enough Node), or None."""
    try:
        find_node()
    except NodeUnavailable as exc:
        return str(exc)
    return None


async def load_script_extension(
    source: ExtensionSource, runtime: SharedRuntime, *, fresh: bool = False
) -> Extension | LoadFailure:
    host = script_host()
    try:
        return await host.load(source, runtime, fresh=fresh)
    except NodeUnavailable as exc:  # Node is there (checked before loading); its modules are not
        return LoadFailure(
            source.path,
            f"Failed to load extension: the Node modules for TypeScript extensions are missing: {exc}",
            source.explicit,
        )
    except SidecarGone as exc:
        return LoadFailure(source.path, f"Failed to load extension: {exc}", source.explicit)

"""The extensions of a live session: loading them with the session, binding them to the mode,
re-creating them when the session is replaced, and every place the session calls them.

``SessionExtensions`` exists only when extensions were discovered (``AgentSession.ext``); a
session without extensions never imports this module. It implements ``ExtensionHost`` (what
``pi`` and ``ctx`` act on) over the ``AgentSession`` it belongs to, and offers the session the
hooks upstream's ``AgentSession`` calls: extension commands and ``input`` in the prompt
pipeline, ``before_agent_start``, agent events (extensions first, then clients), ``tool_call``
/ ``tool_result`` / ``context`` / provider-request hooks, session switch/fork/compact/tree, and
``user_bash``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from pi_rpc.ai.transcript import get_current_system_message
from pi_rpc.errors import StartupError
from pi_rpc.extensions.api import error_message
from pi_rpc.extensions.bus import EventBus
from pi_rpc.extensions.host import ModeBinding
from pi_rpc.extensions.loader import apply_flag_values, clear_module_cache, complete_load, load_extensions
from pi_rpc.extensions.runner import ExtensionRunner, call_handler
from pi_rpc.extensions.types import LoadFailure
from pi_rpc.log import logger
from pi_rpc.runtime.boundaries import Boundaries
from pi_rpc.runtime.errors import RuntimeCommandError, command_not_queueable
from pi_rpc.runtime.tool_loadout import ToolLoadout

if TYPE_CHECKING:
    from pi_rpc.agent.loop import TurnSnapshot
    from pi_rpc.agent.types import AfterToolCallContext, BeforeToolCallContext
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.runtime.session import AgentSession
    from pi_rpc.session.manager import SessionManager

EXTENSION_LOAD_FAILURE_HINT = 'Hint: Start without extensions using "pi -ne".'
EXPLICIT_LOAD_FAILURE_HINT = (
    'Hint: Start without extensions using "pi -ne" and without the failing -e/--extension option '
    "(explicit -e extensions load even with --no-extensions)."
)
ERR_RELOAD_STREAMING = "Wait for the current response to finish before reloading."
ERR_RELOAD_COMPACTING = "Wait for compaction to finish before reloading."


def validate_mcp_registration(name: str, raw: Any) -> dict[str, Any] | str:
    """``pi.register_mcp_server``'s check: MCP's ``mcp.json`` rules, imported on first use."""
    from pi_rpc.mcp.config import validate_server_config

    return validate_server_config(name, raw)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _warn(message: str) -> None:
    logger().warning(message)


def _without_declarations(message: dict[str, Any], hidden: set[str]) -> dict[str, Any]:
    """A system message without the declarations ``prepareLoadout`` hooks hide from requests
    (codemode's ``only`` mode): the tools stay executable, the model reaches them by script."""
    if message.get("role") != "system" or not (message.get("toolsAdded") or message.get("toolsRemoved")):
        return message
    out = {k: v for k, v in message.items() if k not in ("toolsAdded", "toolsRemoved")}
    added = [t for t in message.get("toolsAdded") or [] if t.get("name") not in hidden]
    removed = [t for t in message.get("toolsRemoved") or [] if t.get("name") not in hidden]
    if added:
        out["toolsAdded"] = added
    if removed:
        out["toolsRemoved"] = removed
    return out


def custom_message(message: dict[str, Any]) -> dict[str, Any]:
    """An extension's message (``customType``, ``content``, ``display``, ``details``) as the
    ``custom`` role message the session records; absent fields stay absent."""
    out: dict[str, Any] = {"role": "custom", "customType": message.get("customType")}
    content = message.get("content")
    out["content"] = content if content is not None else []
    if message.get("display") is not None:
        out["display"] = message["display"]
    if message.get("details") is not None:
        out["details"] = message["details"]
    out["timestamp"] = _now_ms()
    return out


class SessionExtensions:
    """``ExtensionHost`` over one ``AgentSession`` plus the session's extension hooks."""

    def __init__(self, session: AgentSession) -> None:
        self.s = session
        options = session.options
        self.sources = list(options.extension_sources)
        self.flag_values = list(options.extension_flag_values)
        self.preloaded = options.preloaded_extensions
        self.bus = self.preloaded.runtime.bus if self.preloaded is not None else EventBus()
        self.runner: ExtensionRunner | None = None
        self.binding = ModeBinding()
        self.loadout = ToolLoadout(options)
        self.loadout.attach(session.resources)
        self.next_turn_messages: list[dict[str, Any]] = []
        self.pending_custom_messages: list[dict[str, Any]] = []
        self.forced_system_prompt: str | None = None
        self.turn_index = 0
        self.emitting_settled = False
        self.deferred: list[Callable[[], Awaitable[Any]]] = []
        self.nested: Any = None  # NestedToolCalls, once a tool calls ctx.execute_tool
        self.boundaries = Boundaries(self)
        # systemPromptOptions while before_agent_start handlers run (ctx.get_system_prompt).
        self._options_in_flight: dict[str, Any] | None = None
        self.loadout.on_error = self._loadout_error
        self._bound = False

    # ================================================================== lifecycle

    async def _load(self, *, fresh: bool) -> tuple[list[LoadFailure], list[str]]:
        if fresh:
            clear_module_cache()
        self.loadout.reset_extension_tools()
        preloaded, self.preloaded = self.preloaded, None
        if preloaded is not None and not fresh:
            # project_trust handlers ran in these at startup: reuse them.
            result = await complete_load(preloaded, self.sources)
        else:
            result = await load_extensions(self.sources, bus=self.bus, fresh=fresh, mcp_validator=validate_mcp_registration)
        flag_errors = apply_flag_values(result, self.flag_values)
        assert result.runtime is not None
        # The mode's servers (ACP's mcpServers) are registered before any extension's.
        result.runtime.mcp_servers.seed(self.s.options.mcp_servers)
        self.runner = ExtensionRunner(result.extensions, result.runtime)
        return result.failures, flag_errors

    async def start(self, binding: ModeBinding) -> None:
        """Load the extensions (startup): a failure raises ``StartupError``. Then bind
        them to the mode and emit ``session_start`` (reason ``startup``)."""
        await self.load_startup()
        await self.bind(binding)

    async def load_startup(self) -> None:
        """Import the extensions and run their ``setup(pi)``; raises ``StartupError``
        (the process must not start: a security gate that did not load must not be skipped)
        naming every file that failed, with the hint how to start without extensions."""
        if self.runner is not None:
            return
        failures, flag_errors = await self._load(fresh=False)
        if failures or flag_errors:
            lines = [failure.message() for failure in failures] + [f"Error: {e}" for e in flag_errors]
            if failures:
                explicit = any(failure.explicit for failure in failures)
                lines.append(EXPLICIT_LOAD_FAILURE_HINT if explicit else EXTENSION_LOAD_FAILURE_HINT)
            raise StartupError("\n".join(lines))
        self._warn_unknown_tools()

    async def bind(self, binding: ModeBinding) -> None:
        """Bind the loaded extensions to the running mode; ``session_start`` (``startup``)."""
        self.binding = binding
        await self._bind_and_announce({"type": "session_start", "reason": "startup", "previousSessionFile": None})

    def _warn_unknown_tools(self) -> None:
        allowlist = self.s.options.tool_allowlist
        if not allowlist:
            return
        from pi_rpc.tools import ALL_TOOL_NAMES

        registered = {str(t.definition["name"]) for t in self.runner.registered_tools()} if self.runner else set()
        for name in allowlist:
            if "*" in name or name.startswith("mcp__"):
                continue  # patterns, and MCP tools that register once their server connects
            if name not in ALL_TOOL_NAMES and name not in registered:
                _warn(f'Warning: Unknown tool "{name}". Valid tools: {", ".join(ALL_TOOL_NAMES)} and extension tools')

    async def _bind_and_announce(self, start_event: dict[str, Any]) -> None:
        runner = self.runner
        assert runner is not None
        runner.bind(self, self.binding)
        self._bound = True
        self.refresh_tools()
        self._restore_declared_tools()
        await runner.emit(start_event)
        if runner.has_handlers("resources_discover"):
            reason = "reload" if start_event.get("reason") == "reload" else "startup"
            found = await runner.emit_resources_discover(self.s.cwd, reason)
            if found["skillPaths"] or found["promptPaths"]:
                self.s.extend_resources(found["skillPaths"], found["promptPaths"])

    def set_binding(self, binding: ModeBinding) -> None:
        self.binding = binding
        if self.runner is not None:
            self.runner.set_binding(binding)

    async def shutdown(self, reason: str, target_session_file: str | None = None) -> None:
        """``session_shutdown`` for the current runtime, then invalidate it (captured ``pi`` and
        ``ctx`` objects raise from now on)."""
        runner = self.runner
        if runner is None or runner.stale:
            return
        if runner.has_handlers("session_shutdown"):
            await runner.emit({"type": "session_shutdown", "reason": reason, "targetSessionFile": target_session_file})
        runner.invalidate()

    async def recreate(self, reason: str, previous_session_file: str | None, *, fresh: bool = False) -> None:
        """Load the extensions again for the replaced session (``setup(pi)`` runs again); a load
        failure is reported on stderr and the others keep working."""
        failures, flag_errors = await self._load(fresh=fresh)
        for failure in failures:
            _warn(failure.message())
        for error in flag_errors:
            _warn(f"Error: {error}")
        await self._bind_and_announce(
            {"type": "session_start", "reason": reason, "previousSessionFile": previous_session_file}
        )

    # ================================================================== ExtensionHost: identity

    @property
    def cwd(self) -> str:
        return self.s.cwd

    @property
    def session_manager(self) -> SessionManager:
        return self.s.session

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        tg = self.s._tg
        if tg is None:
            coro.close()
            return
        tg.start_soon(self._guarded, coro)

    async def _guarded(self, coro: Coroutine[Any, Any, Any]) -> None:
        try:
            await coro
        except Exception as exc:  # noqa: BLE001 - background extension work never kills the session
            logger().error(f"pi: extension background task failed: {exc!r}")

    def _report(self, path: str, event: str, exc: BaseException) -> None:
        if self.runner is not None:
            self.runner.emit_error({"extensionPath": path, "event": event, "error": error_message(exc)})

    def _after_settled(self, action: Callable[[], Awaitable[Any]]) -> bool:
        """Work requested while ``agent_settled`` handlers run starts after all of them
        finished (upstream defers it); returns True when deferred."""
        if self.emitting_settled:
            self.deferred.append(action)
            return True
        return False

    # ================================================================== ExtensionHost: pi.*

    def send_message(self, message: dict[str, Any], options: dict[str, Any] | None) -> None:
        options = options or {}
        msg = custom_message(message)
        deliver = options.get("deliverAs")
        trigger = options.get("triggerTurn")
        s = self.s
        if deliver == "nextTurn":
            self.next_turn_messages.append(msg)
        elif s.is_streaming and trigger is not False:
            if deliver == "followUp":
                s.agent.follow_up(msg)
            else:
                s.agent.steer(msg)
        elif trigger:
            action = lambda: s.start_custom_run(msg)  # noqa: E731
            if not self._after_settled(action):
                self.spawn(self._run_reporting("send_message", action))
        elif s.is_streaming:
            # Appending now could split a tool call from its result: after the turn ends.
            self.pending_custom_messages.append(msg)
        else:
            s.append_custom_message_now(msg)

    def send_user_message(self, content: Any, options: dict[str, Any] | None) -> None:
        options = options or {}
        if isinstance(content, str):
            text, images = content, None
        else:
            texts = [part.get("text", "") for part in content if part.get("type") == "text"]
            found = [part for part in content if part.get("type") != "text"]
            text, images = "\n".join(texts), (found or None)

        async def send() -> None:
            await self.s.prompt(
                text,
                images,
                options.get("deliverAs"),
                source="extension",
                expand_templates=bool(options.get("expandPromptTemplates", False)),
            )

        if not self._after_settled(send):
            self.spawn(self._run_reporting("send_user_message", send))

    async def _run_reporting(self, event: str, action: Callable[[], Awaitable[Any]]) -> None:
        try:
            await action()
        except Exception as exc:  # noqa: BLE001 - reported as upstream does
            self._report("<runtime>", event, exc)

    def append_entry(self, custom_type: str, data: Any) -> None:
        entry_id = self.s.session.append_custom_entry(custom_type, data)
        entry = self.s.session.get_entry(entry_id)
        if entry is not None:
            self.s.emit_now({"type": "entry_appended", "entry": entry})

    def set_session_name(self, name: str) -> None:
        self.s.session.append_session_info(str(name))
        event: dict[str, Any] = {"type": "session_info_changed"}
        current = self.s.session.get_session_name()
        if current is not None:
            event["name"] = current
        self.s.emit_now(event)
        self.emit_later(dict(event))

    def get_session_name(self) -> str | None:
        return self.s.session.get_session_name()

    def set_label(self, entry_id: str, label: str | None) -> None:
        self.s.session.append_label_change(entry_id, label)

    def get_active_tools(self) -> list[str]:
        return [tool.name for tool in self.s.agent.tools]

    def get_all_tools(self) -> list[dict[str, Any]]:
        return self.loadout.all_tools()

    def set_active_tools(self, names: list[str]) -> None:
        self.loadout.set_active(names)
        self._apply_loadout()

    def refresh_tools(self) -> None:
        if self.runner is None or not self._bound:
            return
        runner = self.runner
        self.loadout.refresh(runner.registered_tools(), lambda: runner)
        self._apply_loadout()

    def _apply_loadout(self) -> None:
        tools = self.loadout.active_tools()
        self.s.resources.tools = list(tools)
        self.s.resources.hidden_tools = set(self.loadout.hidden_declarations)
        self.s.agent.tools = list(tools)

    def _restore_declared_tools(self) -> None:
        """Tools the transcript declares (loaded by ``tool_search`` on this branch) stay
        declared; those whose server has not connected yet once they register."""
        from pi_rpc.ai.transcript import get_current_tools

        declared = [str(tool.get("name")) for tool in get_current_tools(self.s.agent.messages) if tool.get("name")]
        if declared:
            self.loadout.restore(declared)
            self._apply_loadout()

    def _loadout_error(self, path: str, error: str) -> None:
        if self.runner is not None:
            self.runner.emit_error({"extensionPath": path, "event": "prepare_loadout", "error": error})

    def get_callable_tools(self) -> list[dict[str, Any]]:
        """The tools other tools may call, as ``ctx.get_callable_tools()`` describes them."""
        return [self.loadout.describe(tool) for tool in self.loadout.callable_tools()]

    async def execute_tool(
        self, caller_id: str, name: str, args: Any, signal: AbortSignal | None, on_update: Any = None
    ) -> dict[str, Any]:
        """``ctx.execute_tool``: a nested call through the agent's tool pipeline."""
        if self.nested is None:
            from pi_rpc.runtime.nested_tools import NestedToolCalls

            agent = self.s.agent

            async def emit(event: dict[str, Any]) -> None:
                await self.on_agent_event(event)
                await self.s.emit(event)

            self.nested = NestedToolCalls(
                get_tools=self.loadout.callable_tools,
                get_messages=lambda: agent.messages,
                get_validator=lambda: agent._validate_args,
                before_tool_call=self.before_tool_call,
                after_tool_call=self.after_tool_call,
                emit=emit,
            )
        return await self.nested.execute(caller_id, name, args, signal, on_update)

    def take_nested_record(self, message: dict[str, Any]) -> None:
        """Record a model-issued call's nested calls (and their usage) on its result message."""
        if self.nested is None:
            return
        calls, usage = self.nested.take_record(str(message.get("toolCallId")))
        if calls is not None:
            message["nestedCalls"] = calls
        if usage is not None:
            from pi_rpc.runtime.nested_tools import _add_usage

            message["usage"] = _add_usage(message.get("usage"), usage) if message.get("usage") else usage

    def on_resources_replaced(self) -> None:
        """The session's ResourcesState was rebuilt (cwd change, reload): keep the loadout."""
        self.loadout.attach(self.s.resources)
        self._apply_loadout()

    def get_commands(self) -> list[dict[str, Any]]:
        return self.s.get_commands()

    async def set_model(self, model: dict[str, Any]) -> bool:
        if not self.s.registry.has_auth(model.get("provider")):
            return False
        await self.s.select_model(model, "set")
        return True

    def get_thinking_level(self) -> str:
        return self.s.thinking_level

    def set_thinking_level(self, level: str) -> None:
        from pi_rpc.ai.types import THINKING_LEVELS

        if level not in THINKING_LEVELS:
            raise RuntimeCommandError(f'Invalid thinking level "{level}". Valid values: {", ".join(THINKING_LEVELS)}')
        previous = self.s.thinking_level
        effective = self.s._clamp(level)
        if effective == previous:
            return
        self.s.agent.thinking_level = effective
        self.s.session.append_thinking_level_change(effective)
        self.s.emit_now({"type": "thinking_level_changed", "level": effective})
        self.emit_later({"type": "thinking_level_select", "level": effective, "previousLevel": previous})

    def get_settings(self) -> dict[str, Any]:
        return self.s.settings.as_dict()

    def register_provider(self, name: str, config: dict[str, Any]) -> None:
        self.s.registry.register_provider(name, config)

    def unregister_provider(self, name: str) -> None:
        self.s.registry.unregister_provider(name)

    # ================================================================== ExtensionHost: ctx.*

    def get_model(self) -> dict[str, Any] | None:
        return self.s.model

    def get_model_registry(self) -> Any:
        return self.s.registry

    def is_idle(self) -> bool:
        return not self.s.is_streaming and not self.s.is_compacting

    def is_project_trusted(self) -> bool:
        return bool(self.s.options.project_trusted)

    def get_signal(self) -> AbortSignal | None:
        return self.s.agent.signal

    def abort(self) -> None:
        self.spawn(self.s.abort())

    def has_pending_messages(self) -> bool:
        return self.s.pending_message_count > 0

    def get_context_usage(self) -> dict[str, Any] | None:
        usage = self.s.get_session_stats().get("contextUsage")
        return dict(usage) if isinstance(usage, dict) else None

    def compact(self, options: dict[str, Any] | None) -> None:
        options = options or {}
        on_complete = options.get("on_complete") or options.get("onComplete")
        on_error = options.get("on_error") or options.get("onError")

        async def run() -> None:
            try:
                result = await self.s.compact(options.get("customInstructions"))
            except Exception as exc:  # noqa: BLE001 - handed to the extension's callback
                if on_error is not None:
                    await call_handler(on_error, exc)
                return
            if on_complete is not None:
                await call_handler(on_complete, result)

        self.spawn(run())

    def get_system_prompt(self) -> str:
        from pi_rpc.resources.system_prompt import join_sections, render_prompt_options

        if self._options_in_flight is not None:
            # Inside before_agent_start: the prompt as the handlers so far left it (upstream).
            return render_prompt_options(self._options_in_flight)
        if self.forced_system_prompt is not None:
            return self.forced_system_prompt
        return join_sections(self.s.resources.current_sections())

    def get_system_prompt_options(self) -> dict[str, Any]:
        """Upstream's ``BuildSystemPromptOptions`` of the current state; snippets and rules of
        every registered tool are included, so a handler that selects a tool gets its line."""
        options = self.s.resources.prompt_options()
        for name, tool in self.loadout.registry().items():
            snippet = getattr(tool, "prompt_snippet", "")
            if snippet and name not in options["toolSnippets"]:
                options["toolSnippets"][name] = snippet
            guidelines = list(getattr(tool, "prompt_guidelines", ()) or ())
            if guidelines:
                options["toolGuidelines"].setdefault(name, guidelines)
        return options

    # ================================================================== ExtensionHost: command ctx.*

    async def wait_for_idle(self) -> None:
        await self.s.wait_for_settled()
        await self.s.compaction.wait_idle()

    async def _with_session(self, options: dict[str, Any] | None) -> None:
        callback = (options or {}).get("with_session") or (options or {}).get("withSession")
        if callback is not None and self.runner is not None:
            await call_handler(callback, ReplacedSessionContext(self, self.runner))

    async def new_session(self, options: dict[str, Any] | None) -> dict[str, Any]:
        options = options or {}
        result = await self.s.new_session(options.get("parentSession"), setup=options.get("setup"))
        if not result.get("cancelled"):
            await self._with_session(options)
        return {"cancelled": bool(result.get("cancelled"))}

    async def fork(self, entry_id: str, options: dict[str, Any] | None) -> dict[str, Any]:
        options = options or {}
        result = await self.s.fork(entry_id, options.get("position") or "before")
        if not result.get("cancelled"):
            await self._with_session(options)
        return {"cancelled": bool(result.get("cancelled"))}

    async def navigate_tree(self, target_id: str, options: dict[str, Any] | None) -> dict[str, Any]:
        options = options or {}
        result = await self.s.navigate_tree(
            target_id,
            summarize=bool(options.get("summarize")),
            custom_instructions=options.get("customInstructions"),
            replace_instructions=bool(options.get("replaceInstructions")),
            label=options.get("label"),
        )
        return {"cancelled": bool(result.get("cancelled"))}

    async def switch_session(self, session_path: str, options: dict[str, Any] | None) -> dict[str, Any]:
        result = await self.s.switch_session(session_path)
        if not result.get("cancelled"):
            await self._with_session(options)
        return {"cancelled": bool(result.get("cancelled"))}

    async def reload(self) -> None:
        if self.s.is_streaming:
            raise RuntimeCommandError(ERR_RELOAD_STREAMING)
        if self.s.is_compacting:
            raise RuntimeCommandError(ERR_RELOAD_COMPACTING)
        await self.shutdown("reload")
        self.s.reload_resources()
        await self.recreate("reload", None, fresh=True)

    # ================================================================== prompt pipeline

    async def try_command(self, text: str) -> bool:
        """Run ``/name args`` if an extension registered ``name``; a raising handler is
        reported as ``command:<name>`` (upstream) and the prompt still counts as handled."""
        runner = self.runner
        if runner is None:
            return False
        space = text.find(" ")
        name = text[1:] if space == -1 else text[1:space]
        args = "" if space == -1 else text[space + 1 :]
        command = runner.get_command(name)
        if command is None:
            return False
        ctx = runner.create_command_context()
        try:
            await call_handler(command.handler, args, ctx)
        except Exception as exc:  # noqa: BLE001
            runner.emit_error({"extensionPath": f"command:{name}", "event": "command", "error": error_message(exc)})
        return True

    def check_not_command(self, text: str) -> None:
        """``steer``/``follow_up`` refuse extension commands with upstream's text."""
        if self.runner is None or not text.startswith("/"):
            return
        space = text.find(" ")
        name = text[1:] if space == -1 else text[1:space]
        if self.runner.get_command(name) is not None:
            raise RuntimeCommandError(command_not_queueable(name))

    async def run_input(
        self, text: str, images: list[dict[str, Any]] | None, source: str, streaming_behavior: str | None
    ) -> tuple[str, list[dict[str, Any]] | None] | None:
        """``input`` handlers: the (possibly transformed) text and images, or None if handled."""
        runner = self.runner
        if runner is None or not runner.has_handlers("input"):
            return text, images
        result = await runner.emit_input(text, images, source, streaming_behavior)
        if result.get("action") == "handled":
            return None
        if result.get("action") == "transform":
            return str(result.get("text", text)), result.get("images")
        return text, images

    async def before_agent_start(self, trigger: dict[str, Any]) -> list[dict[str, Any]]:
        """``before_agent_start``; returns the custom messages to add to the run. Handlers may
        edit ``systemPromptOptions`` in place (upstream): an edited ``selectedTools`` becomes the
        active tools, the edited options build this run's prompt (a changed section is recorded
        as a system message patch), and ``forceSystemPrompt`` (or a returned ``systemPrompt``)
        is sent instead of the prompt for this run."""
        self.forced_system_prompt = None
        self.s.resources.run_options = None
        # The run records the loadout in the transcript: restored tools that did not register by
        # now are dropped, so a tool that never registers does not stay pending (upstream).
        self.loadout.pending.clear()
        runner = self.runner
        if runner is None or not runner.has_handlers("before_agent_start"):
            return []
        from pi_rpc.resources.system_prompt import render_prompt_options

        options = self.get_system_prompt_options()
        selected_before = list(options["selectedTools"])
        self._options_in_flight = options
        try:
            injected = await runner.emit_before_agent_start(trigger, options, render_prompt_options)
        finally:
            self._options_in_flight = None
        selected = options.get("selectedTools")
        if isinstance(selected, list) and [str(n) for n in selected] != selected_before:
            self.set_active_tools([str(n) for n in selected])  # an explicit edit wins
        options["selectedTools"] = [tool.name for tool in self.s.agent.tools]
        forced = options.get("forceSystemPrompt")
        self.forced_system_prompt = None if forced is None else str(forced)
        self.s.resources.run_options = options
        return [custom_message(message) for message in injected]

    def take_next_turn_messages(self) -> list[dict[str, Any]]:
        messages, self.next_turn_messages = self.next_turn_messages, []
        return messages

    def end_run(self) -> None:
        self.forced_system_prompt = None
        self.s.resources.run_options = None

    async def emit_settled(self, aborted: bool) -> None:
        runner = self.runner
        if runner is None or not runner.has_handlers("agent_settled"):
            return
        self.emitting_settled = True
        try:
            await runner.emit({"type": "agent_settled", "aborted": aborted})
        finally:
            self.emitting_settled = False

    def run_deferred(self) -> None:
        actions, self.deferred = self.deferred, []
        for action in actions:
            self.spawn(self._run_reporting("agent_settled", action))

    # ================================================================== agent events

    async def on_agent_event(self, event: dict[str, Any]) -> None:
        """Extensions see every agent event before clients do (upstream order)."""
        runner = self.runner
        if runner is None:
            return
        etype = event.get("type")
        if etype == "message_start" and (event.get("message") or {}).get("role") == "toolResult" and "parentToolCallId" not in event:
            self.take_nested_record(event["message"])
        elif etype == "agent_end" and self.nested is not None:
            self.nested.clear()
        if etype == "agent_start":
            self.turn_index = 0
            if runner.has_handlers("agent_start"):
                await runner.emit({"type": "agent_start"})
        elif etype == "agent_end":
            if runner.has_handlers("agent_end"):
                await runner.emit({"type": "agent_end", "messages": event.get("messages") or []})
        elif etype == "turn_start":
            if runner.has_handlers("turn_start"):
                await runner.emit({"type": "turn_start", "turnIndex": self.turn_index, "timestamp": _now_ms()})
        elif etype == "turn_end":
            # turn_end is an actionable boundary: the loop's finish_turn ran its handlers before
            # this event; a turn the loop did not finish (a failed run) runs them here.
            message = event.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant" and not self.boundaries.take_dispatched(message):
                await self.boundaries.turn_end(message, event.get("toolResults") or [])
            self.turn_index += 1
        elif etype == "message_end":
            if runner.has_handlers("message_end"):
                replacement = await runner.emit_message_end({"type": "message_end", "message": event["message"]})
                if replacement is not None:
                    target = event["message"]
                    if replacement.get("content") is None and replacement.get("role") in (
                        "user",
                        "assistant",
                        "toolResult",
                        "custom",
                    ):
                        replacement = {**replacement, "content": []}
                    if replacement is not target:
                        target.clear()
                        target.update(replacement)
        elif etype in ("message_start", "message_update"):
            if runner.has_handlers(etype):
                out: dict[str, Any] = {"type": etype, "message": event.get("message")}
                if etype == "message_update":
                    out["assistantMessageEvent"] = event.get("assistantMessageEvent")
                await runner.emit(out)
        elif etype in ("tool_execution_start", "tool_execution_update", "tool_execution_end"):
            if runner.has_handlers(etype):
                await runner.emit(dict(event))

    async def finish_turn(self, turn: TurnSnapshot, signal: AbortSignal | None) -> str | None:
        """The agent loop's ``finish_turn``: ``turn_end`` handlers may ask for one more request."""
        return "continue" if await self.boundaries.finish_turn(turn.message, turn.tool_results) else None

    async def after_turn_end(self) -> None:
        """Custom messages sent while the turn ran (``triggerTurn: False``) land after it."""
        pending, self.pending_custom_messages = self.pending_custom_messages, []
        for message in pending:
            self.s.append_custom_message_now(message)

    # ================================================================== tool and request hooks

    async def before_tool_call(self, context: BeforeToolCallContext, signal: AbortSignal | None) -> Any:
        runner = self.runner
        verdict = None
        if runner is not None and runner.has_handlers("tool_call"):
            verdict = await runner.emit_tool_call(
                {
                    "type": "tool_call",
                    "toolName": context.tool_call.get("name"),
                    "toolCallId": context.tool_call.get("id"),
                    "input": context.args,
                }
            )
        gate = self.s.tool_gate
        if gate is not None and not (isinstance(verdict, dict) and verdict.get("block")):
            return await gate(context, signal) or verdict
        return verdict

    async def after_tool_call(self, context: AfterToolCallContext, signal: AbortSignal | None) -> Any:
        runner = self.runner
        if runner is None or not runner.has_handlers("tool_result"):
            return None
        result = context.result
        event: dict[str, Any] = {
            "type": "tool_result",
            "toolName": context.tool_call.get("name"),
            "toolCallId": context.tool_call.get("id"),
            "input": context.args,
            "content": result.get("content"),
            "details": result.get("details"),
        }
        if result.get("structuredContent") is not None:
            event["structuredContent"] = result.get("structuredContent")
        event["isError"] = context.is_error
        event["usage"] = result.get("usage")
        return await runner.emit_tool_result(event)

    async def transform_context(self, messages: list[dict[str, Any]], signal: AbortSignal | None) -> list[dict[str, Any]]:
        runner = self.runner
        if runner is not None and (runner.has_handlers("context") or runner.has_handlers("context_with_system")):
            messages = await runner.emit_context(messages)
        forced = self.forced_system_prompt
        if forced is not None:
            current = get_current_system_message(messages)
            head: dict[str, Any] = {"role": "system", "content": forced}
            if current is not None and current.get("toolsAdded"):
                head["toolsAdded"] = current["toolsAdded"]
            head["timestamp"] = current.get("timestamp") if current is not None else _now_ms()
            messages = [head, *[m for m in messages if m.get("role") != "system"]]
        hidden = self.loadout.hidden_declarations
        if hidden:
            messages = [_without_declarations(m, hidden) for m in messages]
        return messages

    def request_hooks(self) -> dict[str, Any]:
        """``StreamOptions`` hooks for ``before_provider_headers`` / ``before_provider_request``
        / ``after_provider_response`` / ``provider_stream_event``."""
        runner = self.runner
        if runner is None or not any(
            runner.has_handlers(name)
            for name in (
                "before_provider_headers",
                "before_provider_request",
                "after_provider_response",
                "provider_stream_event",
            )
        ):
            return {}

        async def on_request(headers: dict[str, Any], body: Any) -> tuple[dict[str, Any], Any]:
            live = self.runner
            if live is None:
                return headers, body
            if live.has_handlers("before_provider_headers"):
                headers = await live.emit_before_provider_headers(headers)
            if live.has_handlers("before_provider_request"):
                body = await live.emit_before_provider_request(body)
            return headers, body

        async def on_response(status: int, headers: dict[str, str]) -> None:
            live = self.runner
            if live is not None and live.has_handlers("after_provider_response"):
                await live.emit({"type": "after_provider_response", "status": status, "headers": headers})

        async def on_stream_event(data: Any, model: dict[str, Any]) -> None:
            live = self.runner
            if live is not None and live.has_handlers("provider_stream_event"):
                await live.emit(
                    {
                        "type": "provider_stream_event",
                        "provider": model.get("provider"),
                        "api": model.get("api"),
                        "model": model.get("id"),
                        "data": data,
                    }
                )

        hooks: dict[str, Any] = {"on_request": on_request, "on_response": on_response}
        if runner.has_handlers("provider_stream_event"):
            hooks["on_stream_event"] = on_stream_event
        return hooks

    # ================================================================== session operations

    async def emit(self, event: dict[str, Any]) -> Any:
        runner = self.runner
        if runner is None or not runner.has_handlers(str(event.get("type"))):
            return None
        return await runner.emit(event)

    def emit_later(self, event: dict[str, Any]) -> None:
        """A notification whose handlers are not awaited (upstream ``void emit``)."""
        runner = self.runner
        if runner is not None and runner.has_handlers(str(event.get("type"))):
            self.spawn(runner.emit(event))

    async def before_switch(self, reason: str, target_session_file: str | None = None) -> bool:
        result = await self.emit(
            {"type": "session_before_switch", "reason": reason, "targetSessionFile": target_session_file}
        )
        return isinstance(result, dict) and result.get("cancel") is True

    async def before_fork(self, entry_id: str, position: str) -> bool:
        result = await self.emit({"type": "session_before_fork", "entryId": entry_id, "position": position})
        return isinstance(result, dict) and result.get("cancel") is True

    async def user_bash(self, command: str, exclude_from_context: bool) -> dict[str, Any] | None:
        runner = self.runner
        if runner is None or not runner.has_handlers("user_bash"):
            return None
        try:
            return await runner.emit_user_bash(
                {
                    "type": "user_bash",
                    "command": command,
                    "excludeFromContext": exclude_from_context,
                    "cwd": self.s.session.cwd,
                }
            )
        except Exception as exc:  # noqa: BLE001 - already reported; the command fails
            raise RuntimeCommandError(error_message(exc)) from None


class ReplacedSessionContext:
    """The ``ctx`` given to ``with_session`` after a replacement: the new session's command
    context plus async ``send_message`` / ``send_user_message`` bound to it."""

    def __init__(self, host: SessionExtensions, runner: ExtensionRunner) -> None:
        self._host = host
        self._ctx = runner.create_command_context()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    async def send_message(self, message: dict[str, Any], options: dict[str, Any] | None = None) -> None:
        self._host.send_message(message, options)

    async def send_user_message(self, content: Any, options: dict[str, Any] | None = None) -> None:
        options = options or {}
        text = content if isinstance(content, str) else "\n".join(
            p.get("text", "") for p in content if p.get("type") == "text"
        )
        await self._host.s.prompt(
            text,
            None,
            options.get("deliverAs"),
            source="extension",
            expand_templates=bool(options.get("expandPromptTemplates", False)),
        )

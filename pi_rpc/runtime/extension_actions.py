"""``ExtensionActions``: what ``pi`` and ``ctx`` do to a live session (the ``ExtensionHost`` the
runtime binds to its extension runner; upstream's ``bindCore`` / ``bindCommandContext``).

Messages an extension sends are delivered as upstream does (steered or queued while a run
streams, a run of their own with ``triggerTurn``, held for the next prompt or the turn's end),
tools are the session's ``ToolLoadout``, and the command-context actions (new session, fork,
tree navigation, switch, reload) run the session's own commands, then ``with_session`` on the
replaced session's context.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, cast

from pi_rpc.ai.transcript import content_text
from pi_rpc.extensions.runner import ExtensionRunner, call_handler
from pi_rpc.runtime.errors import RuntimeCommandError
from pi_rpc.runtime.extension_hooks import AgentHooks
from pi_rpc.runtime.extension_state import ExtensionState, custom_message
from pi_rpc.runtime.thinking_levels import check_thinking_level

if TYPE_CHECKING:
    from pi_rpc.extensions.events import SessionInfoChangedEvent as ExtSessionInfoChangedEvent
    from pi_rpc.runtime.events import SessionInfoChangedEvent
    from pi_rpc.runtime.extension_port import SessionStateView, SessionWiring

ERR_RELOAD_STREAMING = "Wait for the current response to finish before reloading."
ERR_RELOAD_COMPACTING = "Wait for compaction to finish before reloading."


class Lifecycle(Protocol):
    """What ``ctx.reload()`` needs of the extensions' lifecycle (``SessionExtensions``)."""

    sources: list[object]

    async def shutdown(self, reason: str, target_session_file: str | None = None) -> None: ...
    async def recreate(self, reason: str, previous_session_file: str | None, *, fresh: bool = False) -> None: ...


def _text_and_images(content: Any) -> tuple[str, list[dict[str, Any]] | None]:
    """``pi.send_user_message`` content: a string, or parts whose text parts are joined."""
    if isinstance(content, str):
        return content, None
    found = [part for part in content if part.get("type") != "text"]
    return content_text(content), (found or None)


class ExtensionActions:
    """``ExtensionHost`` over one session's port, its extension state and agent hooks."""

    def __init__(self, state: ExtensionState, hooks: AgentHooks, lifecycle: Lifecycle, wiring: SessionWiring) -> None:
        self.state = state
        self.hooks = hooks
        self.lifecycle = lifecycle
        self.wiring = wiring
        # What ``pi`` and ``ctx`` read: the port's view, read by them directly.
        port = state.port
        self.view: SessionStateView = port.state
        # Actions the port or a part already performs as ``pi``/``ctx`` state them: bound
        # once, so a call goes from the API straight to the part that acts.
        registry = self.view.registry
        self.spawn: Callable[[Coroutine[object, object, object]], None] = state.spawn
        self.get_all_tools = state.loadout.all_tools
        self.execute_tool = hooks.execute_tool
        self.set_model = port.set_model
        self.register_provider: Callable[[str, dict[str, object]], None] = registry.register_provider
        self.unregister_provider: Callable[[str], None] = registry.unregister_provider
        self.register_virtual_model: Callable[[dict[str, Any]], None] = registry.register_virtual_model
        self.unregister_virtual_model: Callable[[str, str], None] = registry.unregister_virtual_model
        self.wait_for_idle = port.wait_for_idle

    # ================================================================== pi.*: messages and entries

    def send_message(self, message: dict[str, object], options: dict[str, object] | None) -> None:
        options = options or {}
        msg = custom_message(message)
        deliver = options.get("deliverAs")
        trigger = options.get("triggerTurn")
        state, s = self.state, self.state.port
        if deliver == "nextTurn":
            state.next_turn_messages.append(msg)
        elif self.view.is_streaming and trigger is not False:
            if deliver == "followUp":
                s.follow_up(msg)
            else:
                s.steer(msg)
        elif trigger:
            action = lambda: s.start_custom_run(msg)  # noqa: E731
            if not state.after_settled(action):
                state.spawn(state.run_reporting("send_message", action))
        elif self.view.is_streaming:
            # Appending now could split a tool call from its result: after the turn ends.
            state.pending_custom_messages.append(msg)
        else:
            s.append_custom_message_now(msg)

    def send_user_message(self, content: Any, options: dict[str, Any] | None) -> None:
        options = options or {}
        text, images = _text_and_images(content)
        session = self.state.port

        async def send() -> None:
            await session.prompt(
                text,
                images,
                options.get("deliverAs"),
                source="extension",
                expand_templates=bool(options.get("expandPromptTemplates", False)),
            )

        if not self.state.after_settled(send):
            self.state.spawn(self.state.run_reporting("send_user_message", send))

    def append_entry(self, custom_type: str, data: object) -> None:
        entry = self.state.port.append_custom_entry(custom_type, data)
        if entry is not None:
            self.wiring.emit_now({"type": "entry_appended", "entry": entry})

    def set_session_name(self, name: str) -> None:
        current = self.state.port.append_session_name(str(name))
        event: SessionInfoChangedEvent = {"type": "session_info_changed"}
        if current is not None:
            event["name"] = current
        self.wiring.emit_now(event)
        self.state.emit_later(cast("ExtSessionInfoChangedEvent", dict(event)))  # the same event, a copy

    def set_label(self, entry_id: str, label: str | None) -> None:
        self.state.port.set_entry_label(entry_id, label)

    # ================================================================== pi.*: tools

    def set_active_tools(self, names: list[str]) -> None:
        self.state.loadout.set_active(names)
        self.apply_loadout()

    def refresh_tools(self) -> None:
        runner = self.state.runner
        if runner is None or not self.state.bound:
            return
        self.state.loadout.refresh(runner.registered_tools(), lambda: runner)
        self.apply_loadout()

    def apply_loadout(self) -> None:
        """The loadout's active tools become the session's (resources and agent)."""
        tools = self.state.loadout.active_tools()
        self.wiring.install_tools(list(tools), set(self.state.loadout.hidden_declarations))

    def restore_declared_tools(self) -> None:
        """Tools the transcript declares (loaded by ``tool_search`` on this branch) stay
        declared; those whose server has not connected yet once they register."""
        from pi_rpc.ai.transcript import get_current_tools

        messages = self.view.messages
        declared = [str(tool.get("name")) for tool in get_current_tools(messages) if tool.get("name")]
        if declared:
            self.state.loadout.restore(declared)
            self.apply_loadout()

    def get_callable_tools(self) -> list[dict[str, object]]:
        """The tools other tools may call, as ``ctx.get_callable_tools()`` describes them."""
        loadout = self.state.loadout
        return [loadout.describe(tool) for tool in loadout.callable_tools()]

    # ================================================================== pi.*: model and settings

    def set_thinking_level(self, level: str) -> None:
        check_thinking_level(level)
        changed = self.state.port.record_thinking_level(level)
        if changed is None:
            return
        effective, previous = changed
        self.wiring.emit_now({"type": "thinking_level_changed", "level": effective})
        self.state.emit_later({"type": "thinking_level_select", "level": effective, "previousLevel": previous})

    # ================================================================== ctx.*

    def abort(self) -> None:
        self.state.spawn(self.state.port.abort())

    def compact(self, options: dict[str, Any] | None) -> None:
        options = options or {}
        # Both spellings of the callbacks are accepted (Python's and upstream's).
        on_complete = options.get("on_complete") or options.get("onComplete")
        on_error = options.get("on_error") or options.get("onError")
        session = self.state.port

        async def run() -> None:
            try:
                result = await session.compact(options.get("customInstructions"))
            except Exception as exc:  # noqa: BLE001 - handed to the extension's callback
                if on_error is not None:
                    await call_handler(on_error, exc)
                return
            if on_complete is not None:
                await call_handler(on_complete, result)

        self.state.spawn(run())

    def get_system_prompt(self) -> str:
        from pi_rpc.resources.system_prompt import join_sections, render_prompt_options

        state = self.state
        if state.options_in_flight is not None:
            # Inside before_agent_start: the prompt as the handlers so far left it (upstream).
            return render_prompt_options(state.options_in_flight)
        if state.forced_system_prompt is not None:
            return state.forced_system_prompt
        return join_sections(self.view.resources.current_sections())

    def get_system_prompt_options(self) -> dict[str, Any]:
        """Upstream's ``BuildSystemPromptOptions`` of the current state; snippets and rules of
        every registered tool are included, so a handler that selects a tool gets its line."""
        options = self.view.resources.prompt_options()
        for name, tool in self.state.loadout.registry().items():
            snippet = getattr(tool, "prompt_snippet", "")
            if snippet and name not in options["toolSnippets"]:
                options["toolSnippets"][name] = snippet
            guidelines = list(getattr(tool, "prompt_guidelines", ()) or ())
            if guidelines:
                options["toolGuidelines"].setdefault(name, guidelines)
        return options

    # ================================================================== command ctx.*

    async def run_with_session(self, callback: Callable[..., Any]) -> None:
        """``with_session(ctx)`` of the replacement that made this session (the holder calls it
        on the NEW session's extensions, upstream's ``createReplacedSessionContext``)."""
        runner = self.state.runner
        if runner is not None:
            await call_handler(callback, ReplacedSessionContext(self, runner))

    async def new_session(self, options: dict[str, Any] | None) -> dict[str, Any]:
        options = options or {}
        result = await self.state.port.new_session(
            options.get("parentSession"), setup=options.get("setup"), with_session=_with_session(options)
        )
        return {"cancelled": bool(result.get("cancelled"))}

    async def fork(self, entry_id: str, options: dict[str, Any] | None) -> dict[str, Any]:
        options = options or {}
        result = await self.state.port.fork(
            entry_id, options.get("position") or "before", with_session=_with_session(options)
        )
        return {"cancelled": bool(result.get("cancelled"))}

    async def navigate_tree(self, target_id: str, options: dict[str, Any] | None) -> dict[str, Any]:
        options = options or {}
        result = await self.state.port.navigate_tree(
            target_id,
            summarize=bool(options.get("summarize")),
            custom_instructions=options.get("customInstructions"),
            replace_instructions=bool(options.get("replaceInstructions")),
            label=options.get("label"),
        )
        return {"cancelled": bool(result.get("cancelled"))}

    async def switch_session(self, session_path: str, options: dict[str, object] | None) -> dict[str, object]:
        result = await self.state.port.switch_session(session_path, with_session=_with_session(options))
        return {"cancelled": bool(result.get("cancelled"))}

    async def reload(self) -> None:
        view = self.view
        if view.is_streaming:
            raise RuntimeCommandError(ERR_RELOAD_STREAMING)
        if view.is_compacting:
            raise RuntimeCommandError(ERR_RELOAD_COMPACTING)
        await self.lifecycle.shutdown("reload")
        sources = await self.state.port.reload_sources()
        if sources is not None:
            self.lifecycle.sources = sources
        await self.lifecycle.recreate("reload", None, fresh=True)


def _with_session(options: dict[str, Any] | None) -> Callable[..., Any] | None:
    """The replacement's ``with_session`` callback; both spellings are accepted (Python's and
    upstream's)."""
    return (options or {}).get("with_session") or (options or {}).get("withSession")


class ReplacedSessionContext:
    """The ``ctx`` given to ``with_session`` after a replacement: the new session's command
    context plus async ``send_message`` / ``send_user_message`` bound to it."""

    def __init__(self, host: ExtensionActions, runner: ExtensionRunner) -> None:
        self._host = host
        self._ctx = runner.create_command_context()

    def __getattr__(self, name: str) -> object:
        return getattr(self._ctx, name)

    async def send_message(self, message: dict[str, object], options: dict[str, object] | None = None) -> None:
        self._host.send_message(message, options)

    async def send_user_message(self, content: Any, options: dict[str, Any] | None = None) -> None:
        """Prompts the new session; a run it starts is awaited to its end (upstream's
        ``sendUserMessage`` awaits ``prompt``, which awaits the run)."""
        options = options or {}
        port = self._host.state.port
        disposition = await port.prompt(
            _text_and_images(content)[0],
            None,
            options.get("deliverAs"),
            source="extension",
            expand_templates=bool(options.get("expandPromptTemplates", False)),
        )
        if disposition == "started":
            await port.wait_for_idle()

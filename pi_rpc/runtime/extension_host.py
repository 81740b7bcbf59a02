"""The extensions of a live session: loading them with the session, binding them to the mode,
re-creating them when the session is replaced, and the prompt-pipeline and session-operation
hooks the session calls.

``SessionExtensions`` exists only when extensions were discovered (``AgentSession.ext``); a
session without extensions never imports this module or its parts. It reaches the session
only through the ``SessionPort`` it is given (``extension_port``), plus the ``SessionWiring``
its parts need, and is made of parts that
share one ``ExtensionState`` (``extension_state``):

* ``ExtensionActions`` (``extension_actions``): the ``ExtensionHost`` that ``pi`` and ``ctx``
  act on;
* ``AgentHooks`` (``extension_hooks``): agent events (extensions first, then clients),
  ``tool_call`` / ``tool_result`` / ``context`` / provider-request hooks and the actionable
  boundaries;
* this class: lifecycle, extension commands and ``input`` in the prompt pipeline,
  ``before_agent_start``, ``agent_settled``, session switch/fork notifications and
  ``user_bash``, as upstream's ``AgentSession`` calls them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pi_rpc.errors import StartupError
from pi_rpc.extensions.api import apply_provider_change, error_message
from pi_rpc.extensions.host import ModeBinding
from pi_rpc.extensions.loader import (
    apply_flag_values,
    clear_module_cache,
    complete_load,
    load_extensions,
)
from pi_rpc.extensions.runner import ExtensionRunner, call_handler
from pi_rpc.extensions.types import LoadFailure
from pi_rpc.log import logger
from pi_rpc.runtime.builtin_commands import command_name
from pi_rpc.runtime.errors import RuntimeCommandError, command_not_queueable
from pi_rpc.runtime.extension_actions import ExtensionActions
from pi_rpc.runtime.extension_hooks import AgentHooks
from pi_rpc.runtime.extension_state import ExtensionState, custom_message

if TYPE_CHECKING:
    from pi_rpc.ai.types import CustomMessage, Message
    from pi_rpc.extensions.events import SessionStartEvent
    from pi_rpc.runtime.extension_port import SessionPort, SessionWiring
    from pi_rpc.runtime.tool_loadout import ToolLoadout

EXTENSION_LOAD_FAILURE_HINT = 'Hint: Start without extensions using "pi -ne".'
EXPLICIT_LOAD_FAILURE_HINT = (
    'Hint: Start without extensions using "pi -ne" and without the failing -e/--extension option '
    "(explicit -e extensions load even with --no-extensions)."
)


def validate_mcp_registration(name: str, raw: object) -> dict[str, object] | str:
    """``pi.register_mcp_server``'s check: MCP's ``mcp.json`` rules, imported on first use."""
    from pi_rpc.mcp.config import validate_server_config

    return validate_server_config(name, raw)


def _warn(message: str) -> None:
    logger().warning(message)


class SessionExtensions:
    """The extensions of one session, seen from the session: lifecycle and hooks."""

    def __init__(self, port: SessionPort, wiring: SessionWiring) -> None:
        self.view = port.state
        self.wiring = wiring
        self.state = ExtensionState(port, wiring.spawn)
        self.hooks = AgentHooks(self.state, wiring)
        self.actions = ExtensionActions(self.state, self.hooks, self, wiring)
        self.sources = list(self.view.options.extension_sources)
        self.flag_values = list(self.view.options.extension_flag_values)
        # The agent loop's hooks (installed by the session) and its boundaries.
        self.before_tool_call = self.hooks.before_tool_call
        self.after_tool_call = self.hooks.after_tool_call
        self.transform_context = self.hooks.transform_context
        self.finish_turn = self.hooks.finish_turn
        self.on_agent_event = self.hooks.on_agent_event
        self.after_turn_end = self.hooks.after_turn_end
        self.request_hooks = self.hooks.request_hooks
        self.boundaries = self.hooks.boundaries
        # Dispatch to the handlers (their combined result, upstream's rules) and the tool list:
        # the parts' own methods.
        self.emit = self.state.emit
        self.get_all_tools = self.actions.get_all_tools
        # ``with_session(ctx)`` after the replacement that made this session (``runtime.holder``).
        self.with_session = self.actions.run_with_session

    @property
    def runner(self) -> ExtensionRunner | None:
        return self.state.runner

    @property
    def loadout(self) -> ToolLoadout:
        return self.state.loadout

    @property
    def binding(self) -> ModeBinding:
        """How the extensions are bound to the running mode (the session replacing this one
        binds its extensions the same way)."""
        return self.state.binding

    # ================================================================== lifecycle

    async def _load(self, *, fresh: bool) -> tuple[list[LoadFailure], list[str]]:
        state = self.state
        if fresh:
            clear_module_cache()
        state.loadout.reset_extension_tools()
        preloaded, state.preloaded = state.preloaded, None
        if preloaded is not None and not fresh:
            # project_trust handlers ran in these at startup: reuse them.
            result = await complete_load(preloaded, self.sources)
        else:
            result = await load_extensions(
                self.sources, bus=state.bus, fresh=fresh, mcp_validator=validate_mcp_registration
            )
        flag_errors = apply_flag_values(result, self.flag_values)
        assert result.runtime is not None
        # The mode's servers (ACP's mcpServers) are registered before any extension's.
        result.runtime.mcp_servers.seed(self.view.options.mcp_servers)
        state.runner = ExtensionRunner(result.extensions, result.runtime)
        return result.failures, flag_errors

    async def load_startup(self) -> None:
        """Import the extensions and run their ``setup(pi)``; raises ``StartupError``
        (the process must not start: a security gate that did not load must not be skipped)
        naming every file that failed, with the hint how to start without extensions."""
        if self.state.runner is not None:
            return
        failures, flag_errors = await self._load(fresh=False)
        if failures or flag_errors:
            lines = [failure.message() for failure in failures] + [f"Error: {e}" for e in flag_errors]
            if failures:
                explicit = any(failure.explicit for failure in failures)
                lines.append(EXPLICIT_LOAD_FAILURE_HINT if explicit else EXTENSION_LOAD_FAILURE_HINT)
            raise StartupError("\n".join(lines))
        self._apply_startup_providers()
        self._warn_unknown_tools()

    def _apply_startup_providers(self) -> None:
        """The providers the extensions registered while loading enter the model registry now,
        before ``--model`` is resolved (upstream's ``createAgentSessionServices``); one the
        registry refuses stops startup as there."""
        runtime = self.state.runner.runtime if self.state.runner is not None else None
        if runtime is None or not runtime.pending_provider_changes:
            return
        pending, runtime.pending_provider_changes = runtime.pending_provider_changes, []
        errors: list[str] = []
        for op, name, config, path in pending:
            try:
                apply_provider_change(self.view.registry, op, name, config)
            except Exception as exc:  # noqa: BLE001 - reported as upstream reports it
                errors.append(f'Error: Extension "{path}" error: {error_message(exc)}')
        if errors:
            raise StartupError("\n".join(errors))

    async def bind(self, binding: ModeBinding) -> None:
        """Bind the loaded extensions to the running mode; ``session_start`` (``startup``)."""
        self.state.binding = binding
        await self._bind_and_announce({"type": "session_start", "reason": "startup", "previousSessionFile": None})

    def _warn_unknown_tools(self) -> None:
        allowlist = self.view.options.tool_allowlist
        if not allowlist:
            return
        from pi_rpc.tools import ALL_TOOL_NAMES

        runner = self.state.runner
        registered = {str(t.definition["name"]) for t in runner.registered_tools()} if runner else set()
        for name in allowlist:
            if "*" in name or name.startswith("mcp__"):
                continue  # patterns, and MCP tools that register once their server connects
            if name not in ALL_TOOL_NAMES and name not in registered:
                _warn(f'Warning: Unknown tool "{name}". Valid tools: {", ".join(ALL_TOOL_NAMES)} and extension tools')

    async def _bind_and_announce(self, start_event: SessionStartEvent) -> None:
        state = self.state
        runner = state.runner
        assert runner is not None
        runner.bind(self.actions, state.binding)
        state.bound = True
        self.actions.refresh_tools()
        self.actions.restore_declared_tools()
        await runner.emit(start_event)
        reason: Literal["startup", "reload"] = "reload" if start_event["reason"] == "reload" else "startup"
        found = await runner.emit({"type": "resources_discover", "cwd": self.view.cwd, "reason": reason})
        if found["skillPaths"] or found["promptPaths"]:
            self.wiring.extend_resources(found["skillPaths"], found["promptPaths"])

    async def shutdown(self, reason: str, target_session_file: str | None = None) -> None:
        """``session_shutdown`` for the current runtime, then invalidate it (captured ``pi`` and
        ``ctx`` objects raise from now on)."""
        runner = self.state.runner
        if runner is None or runner.stale:
            return
        await runner.emit({"type": "session_shutdown", "reason": reason, "targetSessionFile": target_session_file})
        runner.invalidate()

    async def recreate(
        self,
        reason: str,
        previous_session_file: str | None,
        *,
        fresh: bool = False,
        binding: ModeBinding | None = None,
    ) -> None:
        """Load the extensions again (``setup(pi)`` runs again): for the session that replaced
        another (``runtime.holder``: bound to the mode as the replaced one's were, ``binding``)
        or on a reload. A load failure is reported on stderr and the others keep working."""
        if binding is not None:
            self.state.binding = binding
        failures, flag_errors = await self._load(fresh=fresh)
        for failure in failures:
            _warn(failure.message())
        for error in flag_errors:
            _warn(f"Error: {error}")
        await self._bind_and_announce(
            {"type": "session_start", "reason": reason, "previousSessionFile": previous_session_file}
        )

    def on_resources_replaced(self) -> None:
        """The session's ResourcesState was rebuilt (cwd change, reload): keep the loadout."""
        self.state.loadout.attach(self.view.resources)
        self.actions.apply_loadout()

    # ================================================================== prompt pipeline

    async def try_command(self, text: str) -> bool:
        """Run ``/name args`` if an extension registered ``name``; a raising handler is
        reported as ``command:<name>`` (upstream) and the prompt still counts as handled."""
        runner = self.state.runner
        parsed = command_name(text)
        if runner is None or parsed is None:
            return False
        name, args = parsed
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
        runner = self.state.runner
        parsed = command_name(text)
        if runner is not None and parsed is not None and runner.get_command(parsed[0]) is not None:
            raise RuntimeCommandError(command_not_queueable(parsed[0]))

    async def run_input(
        self, text: str, images: list[dict[str, object]] | None, source: str, streaming_behavior: str | None
    ) -> tuple[str, list[dict[str, object]] | None] | None:
        """``input`` handlers: the (possibly transformed) text and images, or None if handled."""
        runner = self.state.runner
        if runner is None:
            return text, images
        result = await runner.emit(
            {"type": "input", "text": text, "images": images, "source": source, "streamingBehavior": streaming_behavior}
        )
        if result.get("action") == "handled":
            return None
        if result.get("action") == "transform":
            return str(result.get("text", text)), result.get("images")
        return text, images

    async def before_agent_start(self, trigger: dict[str, object]) -> list[CustomMessage]:
        """``before_agent_start``; returns the custom messages to add to the run. Handlers may
        edit ``systemPromptOptions`` in place (upstream): an edited ``selectedTools`` becomes the
        active tools, the edited options build this run's prompt (a changed section is recorded
        as a system message patch), and ``forceSystemPrompt`` (or a returned ``systemPrompt``)
        is sent instead of the prompt for this run."""
        state, s = self.state, self.view
        state.forced_system_prompt = None
        s.resources.run_options = None
        runner = state.runner
        # The prompt options are built only for a handler (they render every section).
        if runner is None or not runner.has_handlers("before_agent_start"):
            state.loadout.pending.clear()
            return []
        from pi_rpc.resources.system_prompt import render_prompt_options

        options = self.actions.get_system_prompt_options()
        selected_before = list(options["selectedTools"])
        state.options_in_flight = options
        try:
            injected = await runner.emit_before_agent_start(trigger, options, render_prompt_options)
        finally:
            state.options_in_flight = None
            # The run records the loadout in the transcript: restored tools that did not register
            # by now are dropped, so a tool that never registers does not stay pending; tools that
            # registered while the handlers ran (MCP waits for servers there) are in (upstream
            # clears them after _prepareRun).
            state.loadout.pending.clear()
        selected = options.get("selectedTools")
        if isinstance(selected, list) and [str(n) for n in selected] != selected_before:
            self.actions.set_active_tools([str(n) for n in selected])  # an explicit edit wins
        options["selectedTools"] = s.active_tool_names()
        forced = options.get("forceSystemPrompt")
        state.forced_system_prompt = None if forced is None else str(forced)
        s.resources.run_options = options
        return [custom_message(message) for message in injected]

    def take_next_turn_messages(self) -> list[Message]:
        messages, self.state.next_turn_messages = self.state.next_turn_messages, []
        return messages

    def end_run(self) -> None:
        self.state.forced_system_prompt = None
        self.view.resources.run_options = None

    async def emit_settled(self, aborted: bool) -> None:
        """``agent_settled``; work its handlers ask for is deferred until all of them ran."""
        state = self.state
        state.emitting_settled = True
        try:
            await state.emit({"type": "agent_settled", "aborted": aborted})
        finally:
            state.emitting_settled = False

    def run_deferred(self) -> None:
        actions, self.state.deferred = self.state.deferred, []
        for action in actions:
            self.state.spawn(self.state.run_reporting("agent_settled", action))

    # ================================================================== session operations

    async def before_switch(self, reason: str, target_session_file: str | None = None) -> bool:
        result = await self.emit(
            {"type": "session_before_switch", "reason": reason, "targetSessionFile": target_session_file}
        )
        return isinstance(result, dict) and result.get("cancel") is True

    async def before_fork(self, entry_id: str, position: str) -> bool:
        result = await self.emit({"type": "session_before_fork", "entryId": entry_id, "position": position})
        return isinstance(result, dict) and result.get("cancel") is True

    async def user_bash(self, command: str, exclude_from_context: bool) -> dict[str, object] | None:
        """``user_bash`` handlers: a result or operations to use instead of running locally
        (None: run it locally); a raising or invalid handler fails the command."""
        runner = self.state.runner
        if runner is None:
            return None
        try:
            result: dict[str, object] | None = await runner.emit(
                {
                    "type": "user_bash",
                    "command": command,
                    "excludeFromContext": exclude_from_context,
                    "cwd": self.view.session_manager.get_cwd(),
                }
            )
        except Exception as exc:  # noqa: BLE001 - already reported; the command fails
            raise RuntimeCommandError(error_message(exc)) from None
        return result

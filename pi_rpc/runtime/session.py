"""``AgentSession``: the facade every mode drives (upstream ``AgentSession`` +
``AgentSessionRuntime``).

It owns the agent, the session store, settings, the model registry and the loaded resources,
and turns the agent loop into a session: the prompt pipeline (expansion, queueing, preflight),
persistence of messages after listeners, automatic retries, compaction triggers, the leading
``system`` message, and ``agent_settled`` as the true end of a session-level run. Every
observable effect reaches clients as an event dict through ``subscribe``.

The rest is done by parts that own their state and get only what they use (built in
``AgentSession.__init__``; those working on one store and cwd take them as plain values:
``_build_store_parts``; their commands become the session's):

- ``ModelControl`` (``model_control``): model, thinking level, the switchable settings;
- ``PromptQueue`` (``prompt_queue``): steering and follow-up texts as clients see them;
- ``BashCommands`` (``bash_commands``): the ``bash`` command and its deferred messages;
- ``CompactionRunner`` (``compaction_runner``): compactions and overflow recovery;
- ``SessionHolder`` (``holder``): the current session, and new/switch/fork/clone that replace
  it by a fresh session (``runtime.factory.successor_session``), disposing this one; the holder
  also owns the event subscribers, the mode's task group and the store-fault reporter, which
  outlive one session;
- ``TreeNavigation`` (``navigation``): ``navigate_tree`` and branch summaries;
- ``SessionCatalog`` (``session_catalog``): the other session files;
- ``SessionExtensions`` (``extension_host``), only when extensions were discovered.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

from pi_rpc.agent.agent import Agent
from pi_rpc.agent.listeners import Listeners
from pi_rpc.agent.loop import TurnSnapshot, TurnUpdate
from pi_rpc.agent.types import BeforeToolCallHook
from pi_rpc.ai.errors import retry_hint_ms
from pi_rpc.ai.models.catalog import placeholder_model
from pi_rpc.ai.types import (
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    Message,
    Model,
    is_assistant,
    is_custom,
)
from pi_rpc.log import logger
from pi_rpc.runtime.bash_commands import BashCommands
from pi_rpc.runtime.compaction_runner import CompactionRunner
from pi_rpc.runtime.errors import (
    ERR_ALREADY_PROCESSING,
    ERR_COMPACTING,
    RuntimeCommandError,
    no_api_key_error,
)
from pi_rpc.runtime.grace import SETTLE_GRACE_SECONDS, SHUTDOWN_GRACE_SECONDS
from pi_rpc.runtime.holder import SessionHolder
from pi_rpc.runtime.listeners import ImmediateListener
from pi_rpc.runtime.model_control import ModelControl
from pi_rpc.runtime.navigation import TreeNavigation
from pi_rpc.runtime.options import RuntimeOptions
from pi_rpc.runtime.prompt_images import convert_to_llm_blocking_images, normalize_prompt_images
from pi_rpc.runtime.prompt_queue import PromptQueue, user_message
from pi_rpc.runtime.queries import last_assistant_text, session_state, session_stats
from pi_rpc.runtime.resources_state import ResourcesState
from pi_rpc.runtime.retry import RetryController, RetryPolicy
from pi_rpc.runtime.run_context import bind_run_id, new_run_id
from pi_rpc.runtime.session_catalog import SessionCatalog, normalize_session_name
from pi_rpc.runtime.store_faults import StoreFaultReporter, Unwritten
from pi_rpc.session.manager import SessionManager

if TYPE_CHECKING:
    from pi_rpc.agent.events import AgentEndEvent, AgentEvent
    from pi_rpc.agent.validation import ValidateArgs
    from pi_rpc.ai.models.registry import ModelRegistry
    from pi_rpc.config.settings import Settings
    from pi_rpc.extensions.host import ModeBinding
    from pi_rpc.runtime.builtin_commands import McpCommand
    from pi_rpc.runtime.events import SessionEvent, SessionInfoChangedEvent, SessionListener
    from pi_rpc.runtime.extension_host import SessionExtensions
    from pi_rpc.runtime.run_limits import RunGuard
    from pi_rpc.runtime.tool_control import ToolControl


# Roles the store persists on message_end (bashExecution is recorded by the bash command).
# (custom messages from extensions are recorded as custom_message entries.)
_PERSISTED_ROLES = {"system", "user", "assistant", "toolResult"}


def _now_ms() -> int:
    return int(time.time() * 1000)


def _last_assistant(messages: Sequence[Message]) -> AssistantMessage | None:
    for message in reversed(messages):
        if is_assistant(message):
            return message
    return None


def _require_api_key(model: Model | None, registry: ModelRegistry) -> None:
    """A run needs the selected model's key (checked before it is accepted)."""
    if model is None:
        # Upstream's agent holds a placeholder model (provider "unknown") that has no key.
        raise RuntimeCommandError(no_api_key_error("unknown"))
    if not registry.has_auth(model["provider"]):
        raise RuntimeCommandError(no_api_key_error(model.get("provider", "unknown")))


def _limit_hit(guard: RunGuard | None) -> bool:
    """Whether the running run ended on one of its limits (``run_limits``)."""
    return guard is not None and guard.hit is not None


async def _deliver(listener: SessionListener, event: SessionEvent) -> None:
    await listener(event)


def _stream_options(settings: Settings, registry: ModelRegistry, model: Model | None) -> dict[str, Any]:
    """Per-request options from settings and models.json: provider-level HTTP retries
    (``retry.provider.*``, Retry-After honoured up to ``maxRetryDelayMs``), the request
    timeout, the ``transport`` setting (Codex), and the model's resolved headers (``$ENV``/``!command``
    values, authHeader)."""
    options: dict[str, Any] = {
        "max_retries": settings.retry_provider_max_retries,
        "max_retry_delay_ms": settings.retry_provider_max_retry_delay_ms,
    }
    timeout_ms = settings.retry_provider_timeout_ms
    if timeout_ms:
        options["timeout_s"] = timeout_ms / 1000
    if model is not None and model.get("api") == "openai-codex-responses":
        # The only API with a choice of transport (the setting changes nothing elsewhere).
        options["transport"] = settings.transport
        options["websocket_connect_timeout_ms"] = settings.websocket_connect_timeout_ms
    if model is not None and model.get("provider") != "faux":
        try:
            headers = registry.get_headers(model)
        except Exception as exc:  # noqa: BLE001 - a header command failing must not kill the prompt
            logger().warning(f"Warning: could not resolve headers for {model.get('provider')}: {exc}")
            headers = {}
        if headers:
            options["headers"] = headers
        # The stored credential's provider config (Cloudflare's account and gateway ids
        # fill the catalogue's base-URL placeholders: ``pi_rpc.ai.provider_quirks``).
        provider_env = registry.provider_env(str(model.get("provider")))
        if provider_env:
            options["extra"] = {"env": provider_env}
        if model.get("provider") == "github-copilot":
            # A Copilot OAuth login sends to the base URL its (refreshed) token names
            # (``pi_rpc.ai.provider_quirks``); the enterprise domain is the fallback.
            oauth = registry.stored_oauth("github-copilot")
            if oauth is not None:
                enterprise = oauth.get("enterpriseUrl")
                options.setdefault("extra", {})["copilot_oauth"] = {
                    "enterpriseUrl": enterprise if isinstance(enterprise, str) else None
                }
    return options


def _session_env(store: SessionManager, agent: Agent) -> dict[str, str]:
    """PI_* variables the LLM bash tool passes to commands."""
    model: Mapping[str, Any] = agent.model or {}
    env = {
        "PI_SESSION_ID": store.session_id,
        "PI_PROVIDER": str(model.get("provider", "")),
        "PI_MODEL": str(model.get("id", "")),
        "PI_REASONING_LEVEL": agent.thinking_level,
    }
    if store.session_file:
        env["PI_SESSION_FILE"] = store.session_file
    return env


class AgentSession:
    """One live session: ``AgentSession(build_runtime_options(args))`` (``runtime.factory``),
    or ``runtime.sdk.open_session``; a mode then binds its task group (``bind_task_group``).

    The session runs the prompt pipeline and the session-level run itself; everything else is
    a part it is made of (see ``__init__``), each owning its state. Their commands are this
    object's commands too, bound from the part, so the modes call ``session.set_model(...)``."""

    agent: Agent  # (declared here: the holder, built before it, is typed by what it reads)

    def __init__(self, options: RuntimeOptions, holder: SessionHolder[AgentSession] | None = None) -> None:
        """``holder``: the holder of the session this one replaces (``runtime.factory.
        successor_session``); a first session makes its own."""
        self.options = options
        self.settings = options.settings
        self.registry = options.registry
        self.cwd = options.cwd
        self.session: SessionManager = options.session
        self.resources = ResourcesState(options, get_model=lambda: self.agent.model)
        # The holder owns "the current session" and replaces it (new/switch/fork/clone); the
        # subscribers of this session's events and its task group are the holder's.
        self.holder: SessionHolder[AgentSession] = holder if holder is not None else SessionHolder(self)
        self._listeners: Listeners[SessionListener] = self.holder.listeners

        self.retry = RetryController(
            RetryPolicy(
                enabled=self.settings.retry_enabled,
                max_retries=self.settings.retry_max_retries,
                base_delay_ms=self.settings.retry_base_delay_ms,
                max_agent_delay_ms=self.settings.retry_max_agent_delay_ms,
            )
        )

        # Session-level run state.
        self._is_streaming = False
        self._run_aborted = False
        self._abort_requested = False
        self._run_done: anyio.Event | None = None
        self._entry_id_by_message: dict[int, str] = {}
        self._shutting_down = False
        # A replacement disposed this session (``dispose``): nothing should read it any more
        # (the screen reads the holder's current session; tests check this flag).
        self.disposed = False
        # What the store could not write when the session shut down (``shutdown``).
        self.unwritten: list[Unwritten] = []
        self._store_closed = False
        self._retry_cancel: tuple[anyio.Event, anyio.Event | None] | None = None
        # The running run's limits and output schema (``run_limits``), when it has any; the
        # last run's stays readable (print mode's exit code and output).
        self.run_guard: RunGuard | None = None
        self.last_run_guard: RunGuard | None = None

        self.agent = Agent(
            model=options.model,
            thinking_level=options.thinking_level,
            tools=self.resources.tools,
            stream_fn=options.stream_fn,
            # Lambdas: the agent calls back into parts built after it (they need the agent).
            get_api_key=lambda provider: self.models.api_key(provider),
            steering_mode=self.settings.steering_mode,
            follow_up_mode=self.settings.follow_up_mode,
            session_id=self.session.session_id,
            on_dequeue=lambda message, kind: self.queue.on_dequeue(message, kind),
            prepare_next_turn=self._prepare_next_turn,
            # The setting is read per request, so a change takes effect mid-session (as upstream).
            convert_to_llm=lambda messages: convert_to_llm_blocking_images(messages, self.settings.images_block_images),
        )
        self.agent.subscribe(self._on_agent_event)
        # Session-file write faults become events (session_write_error / _resumed).
        self.store_faults: StoreFaultReporter = self.holder.store_faults
        self.store_faults.attach(self.session)
        # Extensions exist only when some were discovered: otherwise nothing is imported and
        # no hook is installed (the session behaves byte for byte as without extensions).
        self.ext: SessionExtensions | None = None
        # Upstream's always-present `/mcp`, answered here while builtin:mcp is not loaded.
        self.mcp_command: McpCommand | None = None
        if options.mcp_command:
            from pi_rpc.runtime.builtin_commands import McpCommand

            self.mcp_command = McpCommand(str(options.agent_dir))
        # The running mode's check before every tool call (ACP permission requests), set with
        # set_tool_gate; with extensions it runs after their tool_call handlers.
        self.tool_gate: BeforeToolCallHook | None = None
        # A client's tool control (host tools, set_active_tools): made on first use.
        self.tool_control: ToolControl | None = None
        # The replacements are the holder's (bound before the extensions' port, which binds them).
        self.new_session = self.holder.new_session
        self.switch_session = self.holder.switch_session
        self.fork = self.holder.fork
        self.clone = self.holder.clone
        if options.extension_sources:
            from pi_rpc.runtime.extension_host import SessionExtensions
            from pi_rpc.runtime.session_port import LiveSessionPort

            self.ext = SessionExtensions(LiveSessionPort(self), self)
        ext = self.ext

        # ---------------------------------------------------- what a session is made of
        def is_streaming() -> bool:
            return self._is_streaming

        self.queue: PromptQueue = PromptQueue(agent=self.agent, settings=self.settings, emit=self.emit)
        self.bash_commands = BashCommands(
            record=self._record_bash,
            settings=self.settings,
            is_streaming=is_streaming,
            user_bash=ext.user_bash if ext is not None else None,
        )
        self._build_store_parts(options.scoped_models)
        self.clear_queue = self.queue.clear_queue
        self.abort_bash = self.bash_commands.abort_bash

        self.restore_from_store()
        if ext is not None:
            self.agent.before_tool_call = ext.before_tool_call
            self.agent.after_tool_call = ext.after_tool_call
            self.agent.transform_context = ext.transform_context
            self.agent.finish_turn = ext.finish_turn

    def _build_store_parts(self, scoped_models: list[tuple[Model, str | None]]) -> None:
        """Build the parts that work on this session's store and cwd (they take plain values,
        not getters: a replacement builds a fresh session, with fresh parts). Their commands
        are the session's (bound methods: no wrapper coroutine per call)."""
        ext_emit = self.ext.emit if self.ext is not None else None
        # Requests under a virtual model selection go to the model its router picks.
        from pi_rpc.runtime.virtual_routing import VirtualRouting

        self.virtual_routing = VirtualRouting(
            registry=self.registry,
            selection=lambda: (self.agent.model, self.agent.thinking_level),
            store=self.session,
            emit=self.emit,
            convert=lambda messages: convert_to_llm_blocking_images(messages, self.settings.images_block_images),
            # A lambda: the compaction runner is built just below.
            compact=lambda model: self.compaction.compact_before_routed_request(model),
        )
        self.agent.prepare_request = self.virtual_routing.prepare_request
        self.compaction = CompactionRunner(
            agent=self.agent,
            store=self.session,
            settings=self.settings,
            registry=self.registry,
            stream_fn=self.options.stream_fn,
            retry_policy=self.retry.policy,
            emit=self.emit,
            ext_emit=ext_emit,
            hide_failed_reply=self.hide_failed_reply,
        )
        self.models: ModelControl = ModelControl(
            agent=self.agent,
            store=self.session,
            settings=self.settings,
            registry=self.registry,
            scoped_models=scoped_models,
            retry_policy=self.retry.policy,
            emit=self.emit,
            ext_emit=ext_emit,
        )
        self.catalog = SessionCatalog(
            agent_dir=self.options.agent_dir,
            session_dir=self.options.session_dir,
            cwd=self.cwd,
            store=self.session,
            rename_live=self.set_session_name,
            backend=self.options.session_backend,
        )
        self.navigation = TreeNavigation(
            agent=self.agent,
            store=self.session,
            settings=self.settings,
            compaction=self.compaction,
            is_streaming=lambda: self._is_streaming,
            reload_context=self.reload_context_from_store,
            emit=self.emit,
            ext_emit=ext_emit,
        )
        self.get_available_models = self.models.get_available_models
        self.set_model = self.models.set_model
        self.cycle_model = self.models.cycle_model
        self.get_available_thinking_levels = self.models.get_available_thinking_levels
        self.set_thinking_level = self.models.set_thinking_level
        self.cycle_thinking_level = self.models.cycle_thinking_level
        self.clamp_thinking_level = self.models.clamp
        self.set_steering_mode = self.models.set_steering_mode
        self.set_follow_up_mode = self.models.set_follow_up_mode
        self.set_auto_compaction = self.models.set_auto_compaction
        self.set_auto_retry = self.models.set_auto_retry
        self.sessions_root = self.catalog.sessions_root
        self.list_sessions = self.catalog.list_sessions
        self.rename_session = self.catalog.rename_session
        self.delete_session = self.catalog.delete_session
        self.set_label = self.catalog.set_label
        self.navigate_tree = self.navigation.navigate_tree

    # ------------------------------------------------------------------ lifecycle

    def set_tool_gate(self, gate: BeforeToolCallHook | None) -> None:
        """Install the mode's check before every tool call, model-issued or nested (a tool
        calling tools, e.g. a codemode script): it may block the call like a ``tool_call``
        handler. With extensions it runs after their ``tool_call`` handlers, unless one blocked."""
        self.tool_gate = gate
        if self.ext is None:
            self.agent.before_tool_call = gate

    def bind_task_group(self, tg: TaskGroup) -> None:
        """Background runs start in ``tg`` (the mode's task group; the holder's, so the
        sessions that replace this one run there too)."""
        self.holder.task_group = tg

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        return self._listeners.subscribe(listener)

    async def emit(self, event: SessionEvent) -> None:
        if self._shutting_down:
            return
        if self.store_faults.needs_settle:
            # What the event reports is stored before it goes out; a write fault reported first.
            await self.store_faults.settle()
        for listener in self._listeners.all:
            await listener(event)

    def emit_now(self, event: SessionEvent) -> None:
        """Emit without awaiting, for effects an extension causes synchronously (upstream emits
        them at once, so they stay in order with the extension's UI requests): a listener with
        ``ImmediateListener`` gets the event now, any other one in the background."""
        if self._shutting_down:
            return
        self.store_faults.commit_now()
        for listener in self._listeners.all:
            if isinstance(listener, ImmediateListener):
                listener.emit_nowait(event)
            else:
                self._start_background(_deliver, listener, event)

    async def start_extensions(self, binding: ModeBinding) -> None:
        """Load the discovered extensions, bind them to the running mode and emit
        ``session_start``. Raises ``StartupError`` when one fails to load. Without
        extensions this does nothing."""
        await self.load_extensions()
        await self.bind_extensions(binding)

    async def load_extensions(self) -> None:
        """The loading half of ``start_extensions`` (raises ``StartupError``); then a
        ``--model`` that waited for the extensions' providers is applied (``cli_model``)."""
        if self.ext is not None:
            await self.ext.load_startup()
            from pi_rpc.runtime.virtual_routing import restore_virtual_selection

            restore_virtual_selection(
                self.registry,
                self.session,
                self.agent,
                model_explicit=self.options.model_explicit,
                thinking_explicit=self.options.thinking_explicit,
                clamp=self.models.clamp,
            )
            if self.options.pending_model is not None:
                from pi_rpc.runtime.cli_model import apply_pending_model

                apply_pending_model(self)

    async def bind_extensions(self, binding: ModeBinding) -> None:
        """The binding half of ``start_extensions`` (``session_start``)."""
        if self.ext is not None:
            await self.ext.bind(binding)

    async def shutdown(self) -> None:
        """Stop emitting, abort everything, wait for idle (upstream dispose)."""
        if self.ext is not None:
            with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
                await self.abort()
                await self.ext.shutdown("quit")
        self._shutting_down = True
        self._abort_requested = True
        self.retry.cancel_sleep()
        self.compaction.abort()
        self.agent.abort()
        self.bash_commands.abort_bash()
        if self._run_done is not None:
            with anyio.move_on_after(SETTLE_GRACE_SECONDS):
                await self._run_done.wait()
        # the last attempts for a session database's queue, off the event loop (bounded by
        # the caller's grace period); then the store is closed for good
        with anyio.CancelScope(shield=True), anyio.move_on_after(SHUTDOWN_GRACE_SECONDS):
            await self.store_faults.drain()
        self.close_store()

    def close_store(self) -> None:
        """End the store's write-fault retries for good and close it (its lock given up);
        what it still could not write is kept in ``unwritten``. Idempotent: a shutdown cut
        short by its grace period still ends here."""
        if self._store_closed:
            return
        self._store_closed = True
        self.unwritten = self.store_faults.close(self.session)

    # ------------------------------------------------------------------ model and keys

    @property
    def model(self) -> Model | None:
        return self.agent.model

    @property
    def thinking_level(self) -> str:
        return self.agent.thinking_level

    # ------------------------------------------------------------------ the store and the cwd

    def dispose(self) -> None:
        """This session was replaced (the holder already holds its successor; upstream's
        ``AgentSession.dispose``): nothing more is emitted, whatever still runs is aborted (a
        run, a retry wait, a compaction) and the store is retired, closed now or once a write
        fault lets go of it (the holder's fault reporter). A ``bash`` command still running
        goes on: its output is recorded in the session current when it ends
        (``_record_bash``), as before a replacement built a fresh session."""
        self.disposed = True
        self._shutting_down = True
        self._abort_requested = True
        self.retry.cancel_sleep()
        self.compaction.abort()
        self.agent.abort()
        self.bash_commands.drop_pending()
        self.store_faults.retire(self.session)

    def restore_from_store(self) -> None:
        """Load the agent's context from the store (every session, the first and each one a
        replacement builds). A model or level given on the command line wins over the stored
        one in the first session only (its successors' options say neither is explicit)."""
        store = self.session
        context = store.build_session_context()
        self.agent.messages = list(context.get("messages") or [])
        self.agent.session_id = store.session_id
        self._entry_id_by_message.clear()
        self.compaction.reset_overflow()
        from pi_rpc.runtime.virtual_routing import stored_selection

        stored_model = stored_selection(self.registry, store, context.get("model"))
        if stored_model and not self.options.model_explicit:
            found = self.registry.find(str(stored_model.get("provider")), str(stored_model.get("modelId")))
            if found is not None and self.registry.has_auth(found["provider"]):
                self.agent.model = found
        stored_level = context.get("thinkingLevel")
        if stored_level and not self.options.thinking_explicit and store.get_entry_count() > 0:
            self.agent.thinking_level = self.models.clamp(stored_level)
        if store.get_entry_count() == 0 and self.options.pending_model is None:
            # A new session starts with the current selection recorded (upstream order); a
            # --model pending on the extensions is recorded once they loaded (``cli_model``).
            model = self.agent.model or placeholder_model()
            store.append_model_change(model["provider"], model["id"])
            store.append_thinking_level_change(self.agent.thinking_level)

    def reload_context_from_store(self) -> None:
        """Rebuild the agent's context after the leaf moved inside the same file."""
        context = self.session.build_session_context()
        self.agent.messages = list(context.get("messages") or [])
        self._entry_id_by_message.clear()

    # ------------------------------------------------------------------ events from the agent

    def _on_agent_event(self, event: AgentEvent) -> Awaitable[None]:
        if event.get("type") == "message_update" and self.ext is None:
            # One per streamed delta, with nothing else to do for it: the clients' listeners
            # get it through ``emit`` without a coroutine of this method's own.
            return self.emit(event)
        return self._handle_agent_event(event)

    async def _handle_agent_event(self, event: AgentEvent) -> None:
        if event["type"] == "message_update":
            if self.ext is not None:
                await self.ext.on_agent_event(event)
            await self.emit(event)
            return
        if event["type"] == "agent_start" and self._abort_requested:
            # An abort that arrived after the prompt's response but before the low-level run
            # existed (nothing to abort yet): abort the run now that it does.
            self.agent.abort()
        if self.ext is not None:
            # Extensions see every agent event before clients do (upstream order); a
            # message_end handler may replace the message before it is recorded.
            await self.ext.on_agent_event(event)
        if event["type"] == "agent_end":
            last = _last_assistant(event.get("messages") or [])
            model = self.agent.model
            context_window = int(model.get("contextWindow") or 0) or None if model else None
            will_retry = self.retry.decide(last, context_window)
            end: AgentEndEvent = {
                "type": "agent_end",
                "messages": event.get("messages") or [],
                "willRetry": will_retry,
            }
            if self.run_guard is not None:
                self.run_guard.add_end_fields(end)  # limit / output / outputError (additive)
            await self.emit(end)
            return
        await self.emit(event)
        if event["type"] == "turn_end":
            self.session.sync()  # the per-turn durability point (sessionFsync: "turn")
            if self.ext is not None:
                await self.ext.after_turn_end()
        if event["type"] == "message_end":
            message = event["message"]
            if is_custom(message):
                self._entry_id_by_message[id(message)] = _append_custom_message(self.session, message)
            elif message.get("role") in _PERSISTED_ROLES:
                entry_id = self.session.append_message(message)
                self._entry_id_by_message[id(message)] = entry_id
            if message.get("role") == "assistant" and message.get("stopReason") in ("stop", "toolUse"):
                self.compaction.reset_overflow()
            if (
                message.get("role") == "assistant"
                and self.retry.in_progress
                and message.get("stopReason") not in ("error",)
            ):
                attempt = self.retry.attempt
                self.retry.reset()
                await self.emit({"type": "auto_retry_end", "success": True, "attempt": attempt})

    async def _prepare_next_turn(self, turn: TurnSnapshot) -> TurnUpdate | None:
        """Threshold compaction between the turns of a run (upstream ``prepareNextTurn``): the
        loop goes on from the compacted context. A virtual selection is checked before the
        request instead, against the model it is routed to (``VirtualRouting``)."""
        if self._abort_requested or turn.message.get("stopReason") in ("error", "aborted"):
            return None
        update: TurnUpdate | None = None
        model = self.agent.model
        virtual = model is not None and model.get("api") == "pi-virtual"
        if not virtual and self.compaction.decide(turn.message, skip_aborted=True).action == "threshold":
            if await self.compaction.run_threshold():
                update = TurnUpdate(context=replace(turn.context, messages=list(self.agent.messages)))
        if self.ext is not None:
            # Extensions may change the active tools during a run (tool_search loads tools for
            # the next call): the next request declares the tools active now. Entries a
            # turn_end handler appended rebuilt the live context: the next request uses it.
            context = update.context if update is not None and update.context is not None else turn.context
            if self.ext.boundaries.context_replaced:
                self.ext.boundaries.context_replaced = False
                context = replace(context, messages=list(self.agent.messages))
            update = update or TurnUpdate()
            update.context = replace(context, tools=list(self.agent.tools))
        return update

    # ------------------------------------------------------------------ state

    @property
    def argument_validator(self) -> ValidateArgs | None:
        """The agent's tool-argument check (nested tool calls run it too)."""
        return self.agent.argument_validator

    @property
    def entry_ids_by_message(self) -> dict[int, str]:
        """Session entry ids of the live messages (by ``id()``), for extension boundaries."""
        return self._entry_id_by_message

    @property
    def is_streaming(self) -> bool:
        return self._is_streaming

    @property
    def is_compacting(self) -> bool:
        return self.compaction.active

    async def wait_for_settled(self) -> None:
        if self._run_done is not None:
            await self._run_done.wait()

    @property
    def pending_message_count(self) -> int:
        return self.queue.pending_message_count

    # ------------------------------------------------------------------ prompt pipeline

    async def prompt(
        self,
        text: str,
        images: list[dict[str, Any]] | None = None,
        streaming_behavior: str | None = None,
        start_gate: anyio.Event | None = None,
        *,
        source: str = "interactive",
        expand_templates: bool = True,
        run_id: str | None = None,
        limits: dict[str, float] | None = None,
        output_schema: dict[str, Any] | None = None,
    ) -> str:
        """Submit a prompt. Returns the disposition (``started`` | ``queued`` | ``handled``) once
        the run has been accepted. With ``start_gate`` the run waits for it before
        ``agent_start`` (the RPC mode sets it once the prompt's response is written).

        With extensions (upstream order): an extension command (``/name args``) runs and the
        prompt is handled; ``input`` handlers may transform or handle the text (``source``:
        ``rpc``, ``interactive`` or ``extension``); then skills and templates expand (unless
        ``expand_templates`` is false, as for ``pi.send_user_message``). A started run works
        under ``run_id`` (``run_context``; a new id when None). ``limits`` and ``output_schema``
        (``run_limits``) bound a run this prompt starts (over the ``--max-*`` defaults); on a
        queued prompt, ``limits`` replace the running run's."""
        ext = self.ext
        if ext is not None and expand_templates and text.startswith("/") and await ext.try_command(text):
            return "handled"
        if self.mcp_command is not None and expand_templates and self.mcp_command.handles(text):
            self.mcp_command.run(text)
            return "handled"
        if self.compaction.manual_active:
            raise RuntimeCommandError(ERR_COMPACTING)
        if ext is not None:
            processed = await ext.run_input(text, images, source, streaming_behavior if self._is_streaming else None)
            if processed is None:
                return "handled"
            text, images = processed
        expanded = self.resources.expand(text) if expand_templates else text
        if self._is_streaming:
            if streaming_behavior is None:
                raise RuntimeCommandError(ERR_ALREADY_PROCESSING)
            if output_schema is not None:
                raise RuntimeCommandError('"outputSchema" applies to the run a prompt starts, and one is running')
            if limits:
                self.update_run_limits(limits)
            await self.queue.add("followUp" if streaming_behavior == "followUp" else "steer", expanded, images)
            return "queued"
        _require_api_key(self.agent.model, self.registry)
        trigger: dict[str, Any] = {"messageType": "user", "prompt": expanded, "images": images}
        if limits or output_schema is not None or self.options.run_limits:
            trigger["guard"] = ({**(self.options.run_limits or {}), **(limits or {})}, output_schema)
        return await self._start_run(trigger, start_gate, run_id)

    async def _start_run(
        self, trigger: dict[str, Any], start_gate: anyio.Event | None = None, run_id: str | None = None
    ) -> str:
        """Claim the session and start a run from a user prompt or (extensions) a custom
        message: compaction check, ``before_agent_start``, the starting messages. The run
        works under ``run_id`` (a new one when None)."""
        # Claim the session before any await so two prompts cannot both start a run.
        self._is_streaming = True
        self._run_aborted = False
        self._abort_requested = False
        self.compaction.reset_overflow()
        self._run_done = anyio.Event()
        try:
            await self.compaction.check_before_prompt()
            injected = await self.ext.before_agent_start(trigger) if self.ext is not None else []
            self.bash_commands.flush_pending()
            messages: list[Message] = []
            system = self.resources.system_message_for(self.agent.messages, _now_ms())
            if system is not None:
                messages.append(system)
            if trigger["messageType"] == "custom":
                messages.append(trigger["message"])
            else:
                expanded, images = await normalize_prompt_images(
                    trigger["prompt"],
                    trigger.get("images"),
                    auto_resize=self.settings.images_auto_resize,
                    model=self.agent.model,
                )
                messages.append(user_message(expanded, images))
            if self.ext is not None:
                messages.extend(self.ext.take_next_turn_messages())
                messages.extend(injected)
        except BaseException:
            self._is_streaming = False
            self._run_done.set()
            raise
        self.resources.session_env = _session_env(self.session, self.agent)
        stream_options = _stream_options(self.settings, self.registry, self.agent.model)
        if self.ext is not None:
            stream_options.update(self.ext.request_hooks())
        self.agent.stream_options = stream_options
        guard = None
        if "guard" in trigger:
            from pi_rpc.runtime.run_limits import RunGuard

            limits, schema = trigger["guard"]
            guard = RunGuard(limits, schema, abort=self._abort_for_limit, has_queued=self.agent.has_queued_messages)
        self._start_background(self._session_run, messages, start_gate, run_id or new_run_id(), guard)
        return "started"

    async def start_custom_run(self, message: CustomMessage) -> None:
        """An extension's ``send_message(..., {"triggerTurn": True})`` while idle: a run that
        starts from that custom message."""
        if self._is_streaming:
            self.agent.steer(message)
            return
        _require_api_key(self.agent.model, self.registry)
        await self._start_run({"messageType": "custom", "message": message})

    async def bash(
        self,
        command: str,
        exclude_from_context: bool | None = None,
        on_chunk: Callable[[str], Awaitable[None]] | None = None,
    ) -> dict[str, Any]:
        """The ``bash`` command, run in the session's cwd (``bash_commands``)."""
        return await self.bash_commands.bash(command, exclude_from_context, on_chunk, cwd=self.cwd)

    def _record_bash(self, message: BashExecutionMessage) -> None:
        # Into the session current when the command ends (it may have started on one that
        # was replaced since).
        current = self.holder.current
        current.session.append_message(message)
        current.agent.messages.append(message)

    def append_custom_message_now(self, message: CustomMessage) -> None:
        """Record an extension's custom message outside a run (no turn starts)."""
        entry_id = _append_custom_message(self.session, message)
        self._entry_id_by_message[id(message)] = entry_id
        self.agent.messages.append(message)
        self.emit_now({"type": "message_start", "message": message})
        self.emit_now({"type": "message_end", "message": message})

    def _start_background(self, fn: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        tg = self.holder.task_group
        if tg is None:
            raise RuntimeError("AgentSession has no task group bound")
        tg.start_soon(fn, *args)

    def spawn(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> bool:
        """Start ``fn(*args)`` in the mode's task group; False (nothing started) when none is
        bound yet. Part of ``SessionWiring``: the extensions' background work."""
        tg = self.holder.task_group
        if tg is None:
            return False
        tg.start_soon(fn, *args)
        return True

    async def steer(
        self,
        text: str,
        images: list[dict[str, Any]] | None = None,
        *,
        source: str = "interactive",
        limits: dict[str, float] | None = None,
    ) -> str:
        if limits:
            self.update_run_limits(limits)
        return await self._queue_user_input(text, images, "steer", source)

    async def follow_up(
        self,
        text: str,
        images: list[dict[str, Any]] | None = None,
        *,
        source: str = "interactive",
        limits: dict[str, float] | None = None,
    ) -> str:
        if limits:
            self.update_run_limits(limits)
        return await self._queue_user_input(text, images, "followUp", source)

    async def _queue_user_input(
        self, text: str, images: list[dict[str, Any]] | None, behavior: str, source: str
    ) -> str:
        if self.mcp_command is not None:
            self.mcp_command.check_not_queued(text)
        if self.ext is not None:
            self.ext.check_not_command(text)
            processed = await self.ext.run_input(text, images, source, behavior if self._is_streaming else None)
            if processed is None:
                return "handled"
            text, images = processed
        await self.queue.add("steer" if behavior == "steer" else "followUp", self.resources.expand(text), images)
        return "queued"

    # ------------------------------------------------------------------ the session-level run

    async def _session_run(
        self,
        messages: list[Message],
        start_gate: anyio.Event | None = None,
        run_id: str | None = None,
        guard: RunGuard | None = None,
    ) -> None:
        bind_run_id(run_id)  # this task is the run: everything it emits belongs to it
        try:
            if start_gate is not None:
                await start_gate.wait()
            if guard is None:
                await self._run_body(messages)
            else:
                await self._guarded_run(messages, guard)
        except Exception as exc:  # noqa: BLE001 - a run failure must never kill the process
            logger().error(f"pi: run failed: {exc!r}")
        finally:
            self._is_streaming = False
            try:
                self.bash_commands.flush_pending()
            except Exception as exc:  # noqa: BLE001 - agent_settled must still go out
                logger().error(f"pi: could not record pending bash output: {exc!r}")
            done = self._run_done
            if self.ext is not None:
                self.ext.end_run()
                await self.ext.emit_settled(self._run_aborted)
            await self.emit({"type": "agent_settled", "aborted": self._run_aborted})
            if done is not None:
                done.set()
            if self.ext is not None:
                self.ext.run_deferred()

    async def _run_body(self, messages: list[Message]) -> None:
        await self.agent.prompt(messages)
        await self._after_runs()
        # agent_before_settle: extensions may append entries and ask for one more run.
        # (A run a limit ended asks nothing more.)
        while (
            self.ext is not None
            and not self._abort_requested
            and not _limit_hit(self.run_guard)
            and await self.ext.boundaries.before_settle()
        ):
            if self._abort_requested or _limit_hit(self.run_guard):
                break
            await self.agent.continue_()
            await self._after_runs()

    async def _guarded_run(self, messages: list[Message], guard: RunGuard) -> None:
        """The run under its limits and output schema (``run_limits``)."""
        self.run_guard = self.last_run_guard = guard
        guard.install(self.agent)
        try:
            async with anyio.create_task_group() as timer:
                timer.start_soon(guard.run_timer)
                try:
                    await self._run_body(messages)
                finally:
                    timer.cancel_scope.cancel()
        finally:
            guard.uninstall(self.agent)
            self.run_guard = None

    def _abort_for_limit(self) -> None:
        """``timeoutMs`` ran out: abort the run as ``abort`` does, without waiting."""
        if self._is_streaming:
            self._run_aborted = True
            self._abort_requested = True
            if self.ext is not None:
                self.ext.boundaries.note_abort()
        self.retry.cancel_sleep()
        self.compaction.abort()
        self.agent.abort()

    def update_run_limits(self, limits: dict[str, float]) -> None:
        """New limits for the running run (``steer``/``follow_up``/a queued ``prompt``). A run
        started without limits has no guard to change (its loop is already configured)."""
        if not self._is_streaming:
            raise RuntimeCommandError('"limits" apply to a running run, and none is running')
        if self.run_guard is None:
            raise RuntimeCommandError(
                '"limits" can only change the limits of a run started with some (give them on its prompt)'
            )
        self.run_guard.update_limits(limits)

    async def _after_runs(self) -> None:
        """What follows a low-level run: retry, overflow recovery, threshold compaction, and
        delivery of messages still queued (upstream ``_processAgentEnd``)."""
        while not self._abort_requested and not _limit_hit(self.run_guard):
            last = _last_assistant(self.agent.messages)
            if self.retry.pending:
                if not await self._retry_wait(last):
                    return
                if self._abort_requested:
                    return
                await self.agent.continue_()
                continue
            if self.retry.exhausted_error is not None:
                final_error = self.retry.exhausted_error
                attempt = self.retry.policy.max_retries
                self.retry.reset()
                await self.emit(
                    {"type": "auto_retry_end", "success": False, "attempt": attempt, "finalError": final_error}
                )
                return
            decision = self.compaction.decide(last, skip_aborted=True)
            if decision.action == "give_up":
                await self.compaction.give_up(decision.error_message or "")
                return
            if decision.action == "overflow" and last is not None:
                if not await self.compaction.recover_from_overflow(last, decision.will_retry):
                    return
                if self._abort_requested:
                    return
                await self.agent.continue_()
                continue
            if decision.action == "threshold":
                if not await self.compaction.run_threshold():
                    return
            if self._abort_requested or last is None or last.get("stopReason") in ("error", "aborted"):
                return
            # Messages queued after the loop's last poll (or during the compaction) are
            # delivered now rather than stranded until the next prompt.
            if not self.agent.has_queued_messages():
                return
            await self.agent.continue_()

    async def _retry_wait(self, failed: Mapping[str, Any] | None) -> bool:
        self.retry.pending = False
        self.retry.attempt += 1
        attempt = self.retry.attempt
        error = (failed or {}).get("errorMessage") or "Unknown error"
        hint = retry_hint_ms(failed) if failed is not None else None
        delay = self.retry.policy.delay_ms(attempt, int(hint) if hint is not None else None)
        await self.emit(
            {
                "type": "auto_retry_start",
                "attempt": attempt,
                "maxAttempts": self.retry.policy.max_retries,
                "delayMs": delay,
                "errorMessage": error,
            }
        )
        if failed is not None:
            await self.hide_failed_reply(failed)
        if not await self.retry.sleep(delay) or self._abort_requested:
            self.retry.reset()
            await self.emit(
                {"type": "auto_retry_end", "success": False, "attempt": attempt, "finalError": "Retry cancelled"}
            )
            cancel = self._retry_cancel
            self._retry_cancel = None
            if cancel is not None:
                # abort_retry: its response goes out between auto_retry_end and agent_settled.
                ended, after_response = cancel
                ended.set()
                if after_response is not None:
                    with anyio.move_on_after(SETTLE_GRACE_SECONDS):
                        await after_response.wait()
            return False
        return True

    async def hide_failed_reply(self, failed: Mapping[str, Any]) -> None:
        """Drop a failed reply from the live context and hide it in the file (context_edit)."""
        self.virtual_routing.failed = failed  # the next request repeats it (routed as a retry)
        if self.agent.messages and self.agent.messages[-1] is failed:
            self.agent.messages.pop()
        else:
            self.agent.messages = [m for m in self.agent.messages if m is not failed]
        target = self._entry_id_by_message.get(id(failed))
        if target is not None:
            entry_id = self.session.append_context_edit(target, None)
            entry = self.session.get_entry(entry_id)
            await self.emit({"type": "entry_appended", "entry": entry})

    # ------------------------------------------------------------------ abort

    async def abort(self) -> bool:
        """Abort the run, retry wait, compaction and branch summary; returns once the session
        is idle, True when one of them was running."""
        running = self._is_streaming or self.compaction.active
        if self._is_streaming:
            self._run_aborted = True
            self._abort_requested = True
            if self.ext is not None:
                self.ext.boundaries.note_abort()
        self.retry.cancel_sleep()
        self.compaction.abort()
        self.agent.abort()
        if running:
            await self.wait_for_settled()
            await self.compaction.wait_idle()
        return running

    async def abort_retry(self, after_response: anyio.Event | None = None) -> None:
        """Cancel a retry backoff. Returns once ``auto_retry_end`` is out; with
        ``after_response`` the run then waits for it before ``agent_settled`` (upstream order:
        auto_retry_end, the response, agent_settled)."""
        if not self.retry.sleeping:
            return
        ended = anyio.Event()
        self._retry_cancel = (ended, after_response)
        self.retry.cancel_sleep()
        with anyio.move_on_after(SETTLE_GRACE_SECONDS):
            await ended.wait()

    # ------------------------------------------------------------------ compaction

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        if self._is_streaming:
            await self.abort()
        return await self.compaction.run_manual(custom_instructions)

    # ------------------------------------------------------------------ queries

    def get_state(self) -> dict[str, Any]:
        return session_state(
            self.agent.model or placeholder_model(),
            thinking_level=self.agent.thinking_level,
            is_streaming=self._is_streaming,
            is_compacting=self.compaction.active,
            steering_mode=self.agent.steering_mode,
            follow_up_mode=self.agent.follow_up_mode,
            store=self.session,
            auto_compaction=self.settings.compaction_enabled,
            message_count=len(self.agent.messages),
            pending_message_count=self.queue.pending_message_count,
        )

    def get_messages(self) -> list[Message]:
        return list(self.agent.messages)

    def get_last_assistant_text(self) -> dict[str, Any]:
        return last_assistant_text(self.agent.messages)

    def get_session_stats(self) -> dict[str, Any]:
        return session_stats(self.agent.model, self.session)

    def get_commands(self) -> list[dict[str, Any]]:
        runner = self.ext.runner if self.ext is not None else None
        listed = runner.command_listing() if runner is not None else None
        if self.mcp_command is not None:
            listed = [*(listed or []), self.mcp_command.listing()]
        return self.resources.commands(listed)

    # ------------------------------------------------------------------ extension support

    def extend_resources(self, skill_paths: list[str], prompt_paths: list[str]) -> None:
        """Skills and prompt templates an extension contributed (``resources_discover``)."""
        self.options = replace(
            self.options,
            skill_paths=[*self.options.skill_paths, *skill_paths],
            template_paths=[*self.options.template_paths, *prompt_paths],
        )
        self.reload_resources()

    async def reload_sources(self) -> list[Any] | None:
        """A reload's discovery (``/reload``, ``ctx.reload()``): the settings' packages and
        extensions discovered again (a package added to ``settings.json`` since startup is
        installed if missing and loads; its skills, prompts and themes too), then the resources
        loaded again. Returns the extension sources, None without a rediscovery."""
        rediscover = self.options.rediscover
        found: list[Any] | None = None
        if rediscover is not None:
            sources, packages = await anyio.to_thread.run_sync(rediscover)
            self.options = replace(self.options, extension_sources=list(sources), package_resources=packages)
            found = list(sources)
        self.reload_resources()
        return found

    def reload_resources(self) -> None:
        """Load skills, templates, context files and prompts again (``ctx.reload()``)."""
        self.resources = ResourcesState(self.options, get_model=lambda: self.agent.model)
        if self.ext is not None:
            self.ext.on_resources_replaced()
        elif self.tool_control is not None:
            self.tool_control.on_resources_replaced()
        else:
            self.agent.tools = self.resources.tools

    def install_tools(self, tools: list[Any], hidden: set[str] | None = None) -> None:
        """``tools`` (the loadout's active ones) become the session's, in its prompt and its
        agent, with the client's host tools after them (``tool_control``)."""
        if self.tool_control is not None:
            tools = self.tool_control.compose(tools)
        self.resources.tools = list(tools)
        if hidden is not None:
            self.resources.hidden_tools = set(hidden)
        self.agent.tools = list(tools)

    def tools(self) -> ToolControl:
        """The client's control over this session's tools (made on first use)."""
        if self.tool_control is None:
            from pi_rpc.runtime.tool_control import ToolControl

            self.tool_control = ToolControl(self)
        return self.tool_control

    async def set_session_name(self, name: str) -> None:
        normalized = normalize_session_name(name)
        self.session.append_session_info(normalized)
        event: SessionInfoChangedEvent = {"type": "session_info_changed", "name": normalized}
        await self.emit(event)
        if self.ext is not None:
            await self.ext.emit({"type": "session_info_changed", "name": normalized})

    def export_html(self, output_path: str | None = None) -> dict[str, Any]:
        from pi_rpc.runtime.export_html import export_session_html

        return {"path": export_session_html(self.session, output_path)}


def _append_custom_message(store: SessionManager, message: CustomMessage) -> str:
    """A custom message's entry (an extension's ``send_message``); its id."""
    return store.append_custom_message_entry(
        str(message.get("customType")), message.get("content"), message.get("display"), message.get("details")
    )

"""``AgentSession``: the facade every mode drives (upstream ``AgentSession`` +
``AgentSessionRuntime``).

It owns the agent, the session store, settings, the model registry and the loaded resources,
and turns the agent loop into a session: the prompt pipeline (expansion, queueing, preflight),
persistence of messages after listeners, automatic retries, compaction triggers, the leading
``system`` message, and ``agent_settled`` as the true end of a session-level run. Every
observable effect reaches clients as an event dict through ``subscribe``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

from pi_rpc.agent.agent import Agent
from pi_rpc.agent.loop import TurnSnapshot, TurnUpdate
from pi_rpc.agent.types import BeforeToolCallHook
from pi_rpc.ai.abort import AbortController
from pi_rpc.ai.errors import retry_hint_ms
from pi_rpc.ai.models.catalog import placeholder_model
from pi_rpc.ai.thinking import clamp_thinking_level
from pi_rpc.ai.transcript import content_text
from pi_rpc.runtime import queries
from pi_rpc.runtime.compaction_runner import CompactionRunner
from pi_rpc.runtime.errors import (
    ERR_ALREADY_PROCESSING,
    ERR_COMPACTING,
    RuntimeCommandError,
    no_api_key_error,
)
from pi_rpc.runtime.bash_commands import BashCommands
from pi_rpc.runtime.model_control import ModelControl
from pi_rpc.runtime.options import RuntimeOptions
from pi_rpc.runtime.replacement import SessionReplacement
from pi_rpc.runtime.prompt_images import (
    convert_to_llm_blocking_images,
    normalize_prompt_images,
    normalize_queued_message,
)
from pi_rpc.runtime.resources_state import ResourcesState
from pi_rpc.runtime.retry import RetryController, RetryPolicy
from pi_rpc.runtime.session_catalog import SessionCatalog, normalize_session_name
from pi_rpc.runtime.run_context import bind_run_id, new_run_id
from pi_rpc.runtime.store_faults import StoreFaultReporter
from pi_rpc.session.manager import SessionManager

if TYPE_CHECKING:
    from pi_rpc.extensions.host import ModeBinding
    from pi_rpc.runtime.builtin_commands import McpCommand
    from pi_rpc.runtime.extension_host import SessionExtensions

SessionListener = Callable[[dict[str, Any]], Awaitable[None]]

# Roles the store persists on message_end (bashExecution is recorded by the bash command).
# (custom messages from extensions are recorded as custom_message entries.)
_PERSISTED_ROLES = {"system", "user", "assistant", "toolResult"}


def _now_ms() -> int:
    return int(time.time() * 1000)


def _user_message(text: str, images: list[dict[str, Any]] | None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content.extend(images or [])
    return {"role": "user", "content": content, "timestamp": _now_ms()}


class AgentSession(ModelControl, BashCommands, SessionReplacement, SessionCatalog):
    """One live session. Create with :func:`pi_rpc.runtime.factory.create_session`."""

    def __init__(self, options: RuntimeOptions) -> None:
        self.options = options
        self.settings = options.settings
        self.registry = options.registry
        self.cwd = options.cwd
        self.session: SessionManager = options.session
        self.resources = ResourcesState(options, get_model=lambda: self.agent.model)
        self._listeners: tuple[SessionListener, ...] = ()
        self._tg: TaskGroup | None = None

        self.retry = RetryController(
            RetryPolicy(
                enabled=self.settings.retry_enabled,
                max_retries=self.settings.retry_max_retries,
                base_delay_ms=self.settings.retry_base_delay_ms,
                max_agent_delay_ms=self.settings.retry_max_agent_delay_ms,
            )
        )
        self.compaction = CompactionRunner(self)

        # Session-level run state.
        self._is_streaming = False
        self._run_aborted = False
        self._abort_requested = False
        self._run_done: anyio.Event | None = None
        self._overflow_attempted = False
        self._steering_texts: list[str] = []
        self._follow_up_texts: list[str] = []
        self._pending_bash_messages: list[dict[str, Any]] = []
        self._bash_controllers: set[AbortController] = set()
        self._entry_id_by_message: dict[int, str] = {}
        self._shutting_down = False
        self._retry_cancel: tuple[anyio.Event, anyio.Event | None] | None = None
        # Queued user messages whose images are normalized on delivery (by id; value = the message).
        self._queued_with_images: dict[int, dict[str, Any]] = {}

        self.agent = Agent(
            model=options.model,
            thinking_level=options.thinking_level,
            tools=self.resources.tools,
            stream_fn=options.stream_fn,
            get_api_key=self._get_api_key,
            steering_mode=self.settings.steering_mode,
            follow_up_mode=self.settings.follow_up_mode,
            session_id=self.session.session_id,
            on_dequeue=self._on_dequeue,
            prepare_next_turn=self._prepare_next_turn,
            convert_to_llm=self._convert_to_llm,
        )
        self.agent.subscribe(self._on_agent_event)
        # Session-file write faults become events (session_write_error / _resumed).
        self.store_faults = StoreFaultReporter(self.emit, lambda: self._tg)
        self.store_faults.attach(self.session)
        self._restore_from_session(initial=True)
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
        if options.extension_sources:
            from pi_rpc.runtime.extension_host import SessionExtensions

            self.ext = SessionExtensions(self)
            self.agent.before_tool_call = self.ext.before_tool_call
            self.agent.after_tool_call = self.ext.after_tool_call
            self.agent.transform_context = self.ext.transform_context
            self.agent.finish_turn = self.ext.finish_turn

    # ------------------------------------------------------------------ lifecycle

    def set_tool_gate(self, gate: BeforeToolCallHook | None) -> None:
        """Install the mode's check before every tool call, model-issued or nested (a tool
        calling tools, e.g. a codemode script): it may block the call like a ``tool_call``
        handler. With extensions it runs after their ``tool_call`` handlers, unless one blocked."""
        self.tool_gate = gate
        if self.ext is None:
            self.agent.before_tool_call = gate

    def bind_task_group(self, tg: TaskGroup) -> None:
        """Background runs start in ``tg`` (the mode's task group)."""
        self._tg = tg

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        # A new tuple on every change: events iterate it without copying it per event.
        self._listeners = (*self._listeners, listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                listeners = list(self._listeners)
                listeners.remove(listener)
                self._listeners = tuple(listeners)

        return unsubscribe

    async def emit(self, event: dict[str, Any]) -> None:
        if self._shutting_down:
            return
        if self.store_faults.has_notices:
            await self.store_faults.flush()  # a write fault is reported before what follows it
        for listener in self._listeners:
            await listener(event)

    def emit_now(self, event: dict[str, Any]) -> None:
        """Emit without awaiting, for effects an extension causes synchronously (upstream emits
        them at once, so they stay in order with the extension's UI requests): a listener with
        an ``emit_nowait`` attribute gets the event now, any other one in the background."""
        if self._shutting_down:
            return
        for listener in self._listeners:
            nowait = getattr(listener, "emit_nowait", None)
            if nowait is not None:
                nowait(event)
            else:
                self._start_background(self._deliver, listener, event)

    @staticmethod
    async def _deliver(listener: SessionListener, event: dict[str, Any]) -> None:
        await listener(event)

    async def start_extensions(self, binding: ModeBinding) -> None:
        """Load the discovered extensions, bind them to the running mode and emit
        ``session_start``. Raises ``ExtensionStartupError`` when one fails to load. Without
        extensions this does nothing."""
        if self.ext is not None:
            await self.ext.start(binding)

    async def load_extensions(self) -> None:
        """The loading half of ``start_extensions`` (raises ``ExtensionStartupError``)."""
        if self.ext is not None:
            await self.ext.load_startup()

    async def bind_extensions(self, binding: ModeBinding) -> None:
        """The binding half of ``start_extensions`` (``session_start``)."""
        if self.ext is not None:
            await self.ext.bind(binding)

    async def shutdown(self) -> None:
        """Stop emitting, abort everything, wait for idle (upstream dispose)."""
        if self.ext is not None:
            with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                await self.abort()
                await self.ext.shutdown("quit")
        self._shutting_down = True
        self._abort_requested = True
        self.retry.cancel_sleep()
        self.compaction.abort()
        self.agent.abort()
        for controller in list(self._bash_controllers):
            controller.abort()
        if self._run_done is not None:
            with anyio.move_on_after(5):
                await self._run_done.wait()
        self.store_faults.close()
        self.session.close()

    # ------------------------------------------------------------------ model and keys

    @property
    def model(self) -> dict[str, Any] | None:
        return self.agent.model

    @property
    def thinking_level(self) -> str:
        return self.agent.thinking_level

    async def _get_api_key(self, provider: str) -> str | None:
        model = self.agent.model
        if model is None:
            return None
        return self.registry.get_api_key(model["provider"])

    def _placeholder_model(self) -> dict[str, Any]:
        return placeholder_model()

    # ------------------------------------------------------------------ events from the agent

    async def _on_agent_event(self, event: dict[str, Any]) -> None:
        etype = event.get("type")
        if etype == "message_update":  # one per streamed delta: nothing else to do for it
            if self.ext is not None:
                await self.ext.on_agent_event(event)
            # ``await self.emit(event)`` inlined (one coroutine less per delta).
            if self._shutting_down:
                return
            if self.store_faults.has_notices:
                await self.store_faults.flush()
            for listener in self._listeners:
                await listener(event)
            return
        if etype == "agent_start" and self._abort_requested:
            # An abort that arrived after the prompt's response but before the low-level run
            # existed (nothing to abort yet): abort the run now that it does.
            self.agent.abort()
        if self.ext is not None:
            # Extensions see every agent event before clients do (upstream order); a
            # message_end handler may replace the message before it is recorded.
            await self.ext.on_agent_event(event)
        if etype == "agent_end":
            last = self._last_assistant(event.get("messages") or [])
            will_retry = self.retry.decide(last, self._context_window())
            await self.emit({"type": "agent_end", "messages": event.get("messages") or [], "willRetry": will_retry})
            return
        await self.emit(event)
        if etype == "turn_end":
            self.session.sync()  # the per-turn durability point (sessionFsync: "turn")
            if self.ext is not None:
                await self.ext.after_turn_end()
        if etype == "message_end":
            message = event["message"]
            if message.get("role") == "custom":
                self._entry_id_by_message[id(message)] = self._record_custom_message(message)
            elif message.get("role") in _PERSISTED_ROLES:
                entry_id = self.session.append_message(message)
                self._entry_id_by_message[id(message)] = entry_id
            if message.get("role") == "assistant" and message.get("stopReason") in ("stop", "toolUse"):
                self._overflow_attempted = False
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
        loop goes on from the compacted context."""
        if self._abort_requested or turn.message.get("stopReason") in ("error", "aborted"):
            return None
        update: TurnUpdate | None = None
        if self.compaction.decide(turn.message, skip_aborted=True).action == "threshold":
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

    async def _on_dequeue(self, message: dict[str, Any], kind: str) -> None:
        if message.get("role") != "user":
            return  # an extension's custom message: it never was in the listed queues
        text = content_text(message.get("content"))
        texts = self._steering_texts if kind == "steer" else self._follow_up_texts
        if text in texts:
            texts.remove(text)
        await self._emit_queue_update()
        if self._queued_with_images.pop(id(message), None) is message:
            await normalize_queued_message(
                message, auto_resize=self.settings.images_auto_resize, model=self.agent.model
            )

    def _convert_to_llm(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        # The setting is read per request, so a change takes effect mid-session (as upstream).
        return convert_to_llm_blocking_images(messages, self.settings.images_block_images)

    async def _emit_queue_update(self) -> None:
        await self.emit(
            {"type": "queue_update", "steering": list(self._steering_texts), "followUp": list(self._follow_up_texts)}
        )

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _last_assistant(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
        for message in reversed(messages):
            if message.get("role") == "assistant":
                return message
        return None

    def _context_window(self) -> int | None:
        model = self.agent.model
        return int(model.get("contextWindow") or 0) or None if model else None

    def _clamp(self, level: str) -> str:
        model = self.agent.model
        if model is None:
            return level
        return clamp_thinking_level(model, level)

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

    # ------------------------------------------------------------------ prompt pipeline

    def _expand(self, text: str) -> str:
        return self.resources.expand(text)

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
    ) -> str:
        """Submit a prompt. Returns the disposition (``started`` | ``queued`` | ``handled``) once
        the run has been accepted. With ``start_gate`` the run waits for it before
        ``agent_start`` (the RPC mode sets it once the prompt's response is written).

        With extensions (upstream order): an extension command (``/name args``) runs and the
        prompt is handled; ``input`` handlers may transform or handle the text (``source``:
        ``rpc``, ``interactive`` or ``extension``); then skills and templates expand (unless
        ``expand_templates`` is false, as for ``pi.send_user_message``). A started run works
        under ``run_id`` (``run_context``; a new id when None)."""
        ext = self.ext
        if ext is not None and expand_templates and text.startswith("/") and await ext.try_command(text):
            return "handled"
        if self.mcp_command is not None and expand_templates and self.mcp_command.handles(text):
            self.mcp_command.run(text)
            return "handled"
        if self.compaction.manual_active:
            raise RuntimeCommandError(ERR_COMPACTING)
        if ext is not None:
            processed = await ext.run_input(
                text, images, source, streaming_behavior if self._is_streaming else None
            )
            if processed is None:
                return "handled"
            text, images = processed
        expanded = self._expand(text) if expand_templates else text
        if self._is_streaming:
            if streaming_behavior is None:
                raise RuntimeCommandError(ERR_ALREADY_PROCESSING)
            if streaming_behavior == "followUp":
                await self._queue_follow_up(expanded, images)
            else:
                await self._queue_steer(expanded, images)
            return "queued"

        model = self.agent.model
        if model is None:
            # Upstream's agent holds a placeholder model (provider "unknown") that has no key.
            raise RuntimeCommandError(no_api_key_error("unknown"))
        if not self.registry.has_auth(model["provider"]):
            raise RuntimeCommandError(no_api_key_error(model.get("provider", "unknown")))
        return await self._start_run(
            {"messageType": "user", "prompt": expanded, "images": images}, start_gate, run_id
        )

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
        self._overflow_attempted = False
        self._run_done = anyio.Event()
        try:
            await self.compaction.check_before_prompt()
            injected = await self.ext.before_agent_start(trigger) if self.ext is not None else []
            self._flush_pending_bash()
            messages: list[dict[str, Any]] = []
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
                messages.append(_user_message(expanded, images))
            if self.ext is not None:
                messages.extend(self.ext.take_next_turn_messages())
                messages.extend(injected)
        except BaseException:
            self._is_streaming = False
            self._run_done.set()
            raise
        self._update_session_env()
        self._refresh_stream_options()
        self._start_background(self._session_run, messages, start_gate, run_id or new_run_id())
        return "started"

    async def start_custom_run(self, message: dict[str, Any]) -> None:
        """An extension's ``send_message(..., {"triggerTurn": True})`` while idle: a run that
        starts from that custom message."""
        if self._is_streaming:
            self.agent.steer(message)
            return
        model = self.agent.model
        if model is None:
            raise RuntimeCommandError(no_api_key_error("unknown"))
        if not self.registry.has_auth(model["provider"]):
            raise RuntimeCommandError(no_api_key_error(model.get("provider", "unknown")))
        await self._start_run({"messageType": "custom", "message": message})

    def _record_custom_message(self, message: dict[str, Any]) -> str:
        return self.session.append_custom_message_entry(
            str(message.get("customType")), message.get("content"), message.get("display"), message.get("details")
        )

    def append_custom_message_now(self, message: dict[str, Any]) -> None:
        """Record an extension's custom message outside a run (no turn starts)."""
        entry_id = self._record_custom_message(message)
        self._entry_id_by_message[id(message)] = entry_id
        self.agent.messages.append(message)
        self.emit_now({"type": "message_start", "message": message})
        self.emit_now({"type": "message_end", "message": message})

    def _refresh_stream_options(self) -> None:
        """Per-request options from settings and models.json: provider-level HTTP retries
        (``retry.provider.*``, Retry-After honoured up to ``maxRetryDelayMs``), the request
        timeout, and the model's resolved headers (``$ENV``/``!command`` values, authHeader)."""
        options: dict[str, Any] = {
            "max_retries": self.settings.retry_provider_max_retries,
            "max_retry_delay_ms": self.settings.retry_provider_max_retry_delay_ms,
        }
        timeout_ms = self.settings.retry_provider_timeout_ms
        if timeout_ms:
            options["timeout_s"] = timeout_ms / 1000
        model = self.agent.model
        if model is not None and model.get("provider") != "faux":
            try:
                headers = self.registry.get_headers(model)
            except Exception as exc:  # noqa: BLE001 - a header command failing must not kill the prompt
                print(f"Warning: could not resolve headers for {model.get('provider')}: {exc}", file=sys.stderr)
                headers = {}
            if headers:
                options["headers"] = headers
            # The stored credential's provider config (Cloudflare's account and gateway ids
            # fill the catalogue's base-URL placeholders: ``pi_rpc.ai.provider_quirks``).
            provider_env = self.registry.provider_env(str(model.get("provider")))
            if provider_env:
                options["extra"] = {"env": provider_env}
        if self.ext is not None:
            options.update(self.ext.request_hooks())
        self.agent.stream_options = options

    def _update_session_env(self) -> None:
        """PI_* variables the LLM bash tool passes to commands."""
        model = self.agent.model or {}
        env = {
            "PI_SESSION_ID": self.session.session_id,
            "PI_PROVIDER": str(model.get("provider", "")),
            "PI_MODEL": str(model.get("id", "")),
            "PI_REASONING_LEVEL": self.agent.thinking_level,
        }
        if self.session.session_file:
            env["PI_SESSION_FILE"] = self.session.session_file
        self.resources.session_env = env

    def _start_background(self, fn: Callable[..., Coroutine[Any, Any, None]], *args: Any) -> None:
        if self._tg is None:
            raise RuntimeError("AgentSession has no task group bound")
        self._tg.start_soon(fn, *args)

    def _queued_message(self, text: str, images: list[dict[str, Any]] | None) -> dict[str, Any]:
        message = _user_message(text, images)
        if images:
            self._queued_with_images[id(message)] = message
        return message

    async def _queue_steer(self, text: str, images: list[dict[str, Any]] | None) -> None:
        self.agent.steer(self._queued_message(text, images))
        self._steering_texts.append(text)
        await self._emit_queue_update()

    async def _queue_follow_up(self, text: str, images: list[dict[str, Any]] | None) -> None:
        self.agent.follow_up(self._queued_message(text, images))
        self._follow_up_texts.append(text)
        await self._emit_queue_update()

    async def steer(
        self, text: str, images: list[dict[str, Any]] | None = None, *, source: str = "interactive"
    ) -> str:
        return await self._queue_user_input(text, images, "steer", source)

    async def follow_up(
        self, text: str, images: list[dict[str, Any]] | None = None, *, source: str = "interactive"
    ) -> str:
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
        if behavior == "steer":
            await self._queue_steer(self._expand(text), images)
        else:
            await self._queue_follow_up(self._expand(text), images)
        return "queued"

    async def clear_queue(self) -> dict[str, list[str]]:
        steering, follow_up = list(self._steering_texts), list(self._follow_up_texts)
        self.agent.clear_all_queues()
        self._queued_with_images.clear()
        self._steering_texts.clear()
        self._follow_up_texts.clear()
        await self._emit_queue_update()
        return {"steering": steering, "followUp": follow_up}

    # ------------------------------------------------------------------ the session-level run

    async def _session_run(
        self, messages: list[dict[str, Any]], start_gate: anyio.Event | None = None, run_id: str | None = None
    ) -> None:
        bind_run_id(run_id)  # this task is the run: everything it emits belongs to it
        try:
            if start_gate is not None:
                await start_gate.wait()
            await self.agent.prompt(messages)
            await self._after_runs()
            # agent_before_settle: extensions may append entries and ask for one more run.
            while self.ext is not None and not self._abort_requested and await self.ext.boundaries.before_settle():
                if self._abort_requested:
                    break
                await self.agent.continue_()
                await self._after_runs()
        except Exception as exc:  # noqa: BLE001 - a run failure must never kill the process
            print(f"pi: run failed: {exc!r}", file=sys.stderr)
        finally:
            self._is_streaming = False
            try:
                self._flush_pending_bash()
            except Exception as exc:  # noqa: BLE001 - agent_settled must still go out
                print(f"pi: could not record pending bash output: {exc!r}", file=sys.stderr)
            done = self._run_done
            if self.ext is not None:
                self.ext.end_run()
                await self.ext.emit_settled(self._run_aborted)
            await self.emit({"type": "agent_settled", "aborted": self._run_aborted})
            if done is not None:
                done.set()
            if self.ext is not None:
                self.ext.run_deferred()

    async def _after_runs(self) -> None:
        """What follows a low-level run: retry, overflow recovery, threshold compaction, and
        delivery of messages still queued (upstream ``_processAgentEnd``)."""
        while not self._abort_requested:
            last = self._last_assistant(self.agent.messages)
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

    async def _retry_wait(self, failed: dict[str, Any] | None) -> bool:
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
            await self.emit({"type": "auto_retry_end", "success": False, "attempt": attempt, "finalError": "Retry cancelled"})
            cancel = self._retry_cancel
            self._retry_cancel = None
            if cancel is not None:
                # abort_retry: its response goes out between auto_retry_end and agent_settled.
                ended, after_response = cancel
                ended.set()
                if after_response is not None:
                    with anyio.move_on_after(5):
                        await after_response.wait()
            return False
        return True

    async def hide_failed_reply(self, failed: dict[str, Any]) -> None:
        """Drop a failed reply from the live context and hide it in the file (context_edit)."""
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
        with anyio.move_on_after(5):
            await ended.wait()

    # ------------------------------------------------------------------ compaction

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        if self._is_streaming:
            await self.abort()
        return await self.compaction.run_manual(custom_instructions)

    # ------------------------------------------------------------------ queries

    def get_state(self) -> dict[str, Any]:
        return queries.session_state(self)

    def get_messages(self) -> list[dict[str, Any]]:
        return list(self.agent.messages)

    def get_last_assistant_text(self) -> dict[str, Any]:
        return queries.last_assistant_text(self.agent.messages)

    def get_session_stats(self) -> dict[str, Any]:
        return queries.session_stats(self)

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

    def reload_resources(self) -> None:
        """Load skills, templates, context files and prompts again (``ctx.reload()``)."""
        self.resources = ResourcesState(self.options, get_model=lambda: self.agent.model)
        if self.ext is not None:
            self.ext.on_resources_replaced()
        else:
            self.agent.tools = self.resources.tools

    async def set_session_name(self, name: str) -> None:
        normalized = normalize_session_name(name)
        self.session.append_session_info(normalized)
        event = {"type": "session_info_changed", "name": normalized}
        await self.emit(event)
        if self.ext is not None:
            await self.ext.emit(dict(event))

    def export_html(self, output_path: str | None = None) -> dict[str, Any]:
        from pi_rpc.runtime.export_html import export_session_html

        return {"path": export_session_html(self, output_path)}

    @property
    def pending_message_count(self) -> int:
        return len(self._steering_texts) + len(self._follow_up_texts)

    @property
    def steering_texts(self) -> list[str]:
        return list(self._steering_texts)

    @property
    def follow_up_texts(self) -> list[str]:
        return list(self._follow_up_texts)

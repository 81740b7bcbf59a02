"""``AgentSession``: the facade every mode drives (upstream ``AgentSession`` +
``AgentSessionRuntime``).

It owns the agent, the session store, settings, the model registry and the loaded resources,
and turns the agent loop into a session: the prompt pipeline (expansion, queueing, preflight),
persistence of messages after listeners, automatic retries, compaction triggers, the leading
``system`` message, and ``agent_settled`` as the true end of a session-level run. Every
observable effect reaches clients as an event dict through ``subscribe``.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import replace
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup

from pi_rpc.agent.agent import Agent
from pi_rpc.agent.loop import TurnSnapshot, TurnUpdate
from pi_rpc.ai.abort import AbortController
from pi_rpc.ai.errors import retry_hint_ms
from pi_rpc.ai.models.catalog import placeholder_model
from pi_rpc.ai.thinking import clamp_thinking_level, supported_thinking_levels
from pi_rpc.ai.types import THINKING_LEVELS
from pi_rpc.runtime import queries
from pi_rpc.runtime.compaction_runner import CompactionRunner
from pi_rpc.runtime.errors import (
    ERR_ALREADY_PROCESSING,
    ERR_COMPACTING,
    ERR_INVALID_FORK_ENTRY,
    ERR_SESSION_NAME_EMPTY,
    RuntimeCommandError,
    no_api_key_error,
    no_model_error,
)
from pi_rpc.runtime.options import RuntimeOptions
from pi_rpc.runtime.prompt_images import (
    convert_to_llm_blocking_images,
    normalize_prompt_images,
    normalize_queued_message,
)
from pi_rpc.runtime.resources_state import ResourcesState
from pi_rpc.runtime.retry import RetryController, RetryPolicy
from pi_rpc.session.errors import SessionError
from pi_rpc.session.manager import SessionManager

QUEUE_MODES = ("all", "one-at-a-time")
SessionListener = Callable[[dict[str, Any]], Awaitable[None]]

# Roles the store persists on message_end (bashExecution is recorded by the bash command).
_PERSISTED_ROLES = {"system", "user", "assistant", "toolResult", "custom"}


def _now_ms() -> int:
    return int(time.time() * 1000)


def _user_message(text: str, images: list[dict[str, Any]] | None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content.extend(images or [])
    return {"role": "user", "content": content, "timestamp": _now_ms()}


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if b.get("type") == "text")


class AgentSession:
    """One live session. Create with :func:`pi_rpc.runtime.factory.create_session`."""

    def __init__(self, options: RuntimeOptions) -> None:
        self.options = options
        self.settings = options.settings
        self.registry = options.registry
        self.cwd = options.cwd
        self.session: SessionManager = options.session
        self.resources = ResourcesState(options, get_model=lambda: self.agent.model)
        self._listeners: list[SessionListener] = []
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
        self._restore_from_session(initial=True)

    # ------------------------------------------------------------------ lifecycle

    def bind_task_group(self, tg: TaskGroup) -> None:
        """Background runs start in ``tg`` (the mode's task group)."""
        self._tg = tg

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def emit(self, event: dict[str, Any]) -> None:
        if self._shutting_down:
            return
        for listener in list(self._listeners):
            await listener(event)

    async def shutdown(self) -> None:
        """Stop emitting, abort everything, wait for idle (upstream dispose)."""
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

    # ------------------------------------------------------------------ session binding

    def _restore_from_session(self, *, initial: bool = False) -> None:
        """Load the agent's context from the store (startup, switch, fork, clone, new)."""
        context = self.session.build_session_context()
        self.agent.messages = list(context.get("messages") or [])
        self.agent.session_id = self.session.session_id
        self._entry_id_by_message.clear()
        self._overflow_attempted = False
        stored_model = context.get("model")
        if stored_model and not (initial and self.options.model_explicit):
            found = self.registry.find(stored_model.get("provider"), stored_model.get("modelId"))
            if found is not None and self.registry.has_auth(found["provider"]):
                self.agent.model = found
        stored_level = context.get("thinkingLevel")
        if stored_level and not (initial and self.options.thinking_explicit) and self.session.get_entry_count() > 0:
            self.agent.thinking_level = self._clamp(stored_level)
        if self.session.get_entry_count() == 0:
            # A new session starts with the current selection recorded (upstream order).
            model = self.agent.model or self._placeholder_model()
            self.session.append_model_change(model["provider"], model["id"])
            self.session.append_thinking_level_change(self.agent.thinking_level)

    def reload_context_from_store(self) -> None:
        """Rebuild the agent's context after the leaf moved inside the same file."""
        context = self.session.build_session_context()
        self.agent.messages = list(context.get("messages") or [])
        self._entry_id_by_message.clear()

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> dict[str, Any]:
        """Move to another entry of this session's tree (SDK; upstream has no RPC command),
        optionally summarizing the abandoned branch into a ``branch_summary`` entry."""
        from pi_rpc.runtime.navigation import navigate_tree

        return await navigate_tree(
            self,
            target_id,
            summarize=summarize,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
            label=label,
        )

    async def _replace_session(self, new_manager: SessionManager, *, keep_queue_texts: bool = False) -> None:
        await self.abort()
        old = self.session
        self.session = new_manager
        if old is not new_manager:
            old.close()
        if not keep_queue_texts:
            # fork keeps both queues; switch keeps the agent's queues (upstream quirk) but
            # drops the texts behind pendingMessageCount; new_session clears everything.
            self._steering_texts.clear()
            self._follow_up_texts.clear()
        self._pending_bash_messages.clear()
        self._restore_from_session()

    # ------------------------------------------------------------------ events from the agent

    async def _on_agent_event(self, event: dict[str, Any]) -> None:
        etype = event.get("type")
        if etype == "agent_start" and self._abort_requested:
            # An abort that arrived after the prompt's response but before the low-level run
            # existed (nothing to abort yet): abort the run now that it does.
            self.agent.abort()
        if etype == "agent_end":
            last = self._last_assistant(event.get("messages") or [])
            will_retry = self.retry.decide(last, self._context_window())
            await self.emit({"type": "agent_end", "messages": event.get("messages") or [], "willRetry": will_retry})
            return
        await self.emit(event)
        if etype == "turn_end":
            self.session.sync()  # the per-turn durability point (sessionFsync: "turn")
        if etype == "message_end":
            message = event["message"]
            if message.get("role") in _PERSISTED_ROLES:
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
        if self.compaction.decide(turn.message, skip_aborted=True).action != "threshold":
            return None
        if not await self.compaction.run_threshold():
            return None
        return TurnUpdate(context=replace(turn.context, messages=list(self.agent.messages)))

    async def _on_dequeue(self, message: dict[str, Any], kind: str) -> None:
        text = _message_text(message)
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
    ) -> str:
        """Submit a prompt. Returns the disposition (``started`` | ``queued``) once the run has
        been accepted. With ``start_gate`` the run waits for it before ``agent_start`` (the RPC
        mode sets it once the prompt's response is written)."""
        if self.compaction.manual_active:
            raise RuntimeCommandError(ERR_COMPACTING)
        expanded = self._expand(text)
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
            raise RuntimeCommandError(no_model_error())
        if not self.registry.has_auth(model["provider"]):
            raise RuntimeCommandError(no_api_key_error(model.get("provider", "unknown")))
        # Claim the session before any await so two prompts cannot both start a run.
        self._is_streaming = True
        self._run_aborted = False
        self._abort_requested = False
        self._overflow_attempted = False
        self._run_done = anyio.Event()
        try:
            await self.compaction.check_before_prompt()
            expanded, images = await normalize_prompt_images(
                expanded, images, auto_resize=self.settings.images_auto_resize, model=self.agent.model
            )
            self._flush_pending_bash()
            messages: list[dict[str, Any]] = []
            system = self.resources.system_message_for(self.agent.messages, _now_ms())
            if system is not None:
                messages.append(system)
            messages.append(_user_message(expanded, images))
        except BaseException:
            self._is_streaming = False
            self._run_done.set()
            raise
        self._update_session_env()
        self._refresh_stream_options()
        self._start_background(self._session_run, messages, start_gate)
        return "started"

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

    async def steer(self, text: str, images: list[dict[str, Any]] | None = None) -> str:
        await self._queue_steer(self._expand(text), images)
        return "queued"

    async def follow_up(self, text: str, images: list[dict[str, Any]] | None = None) -> str:
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

    async def _session_run(self, messages: list[dict[str, Any]], start_gate: anyio.Event | None = None) -> None:
        try:
            if start_gate is not None:
                await start_gate.wait()
            await self.agent.prompt(messages)
            await self._after_runs()
        except Exception as exc:  # noqa: BLE001 - a run failure must never kill the process
            print(f"pi: run failed: {exc!r}", file=sys.stderr)
        finally:
            self._is_streaming = False
            self._flush_pending_bash()
            done = self._run_done
            await self.emit({"type": "agent_settled", "aborted": self._run_aborted})
            if done is not None:
                done.set()

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

    async def abort(self) -> None:
        """Abort the run, retry wait and compaction; returns once the session is idle."""
        running = self._is_streaming or self.compaction.active
        if self._is_streaming:
            self._run_aborted = True
            self._abort_requested = True
        self.retry.cancel_sleep()
        self.compaction.abort()
        self.agent.abort()
        if running:
            await self.wait_for_settled()
            await self.compaction.wait_idle()

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

    # ------------------------------------------------------------------ model and thinking

    def get_available_models(self) -> list[dict[str, Any]]:
        return self.registry.get_available()

    async def _apply_model(self, model: dict[str, Any]) -> None:
        self.agent.model = model
        self.session.append_model_change(model["provider"], model["id"])
        key = f"{model['provider']}/{model['id']}"
        per_model = self.settings.model_thinking_levels.get(key)
        if per_model:
            wanted = per_model
        elif self.settings.has_default_thinking_level:
            wanted = self.settings.default_thinking_level
        else:
            wanted = self.agent.thinking_level
        await self._set_effective_thinking(clamp_thinking_level(model, wanted))

    async def _set_effective_thinking(self, level: str) -> None:
        if level == self.agent.thinking_level:
            return
        self.agent.thinking_level = level
        self.session.append_thinking_level_change(level)
        await self.emit({"type": "thinking_level_changed", "level": level})

    async def set_model(self, provider: str, model_id: str) -> dict[str, Any]:
        model = next(
            (m for m in self.get_available_models() if m["provider"] == provider and m["id"] == model_id), None
        )
        if model is None:
            raise RuntimeCommandError(f"Model not found: {provider}/{model_id}")
        await self._apply_model(model)
        return model

    async def cycle_model(self) -> dict[str, Any] | None:
        scoped = [m for m in self.options.scoped_models if self.registry.has_auth(m["provider"])]
        candidates = scoped if self.options.scoped_models else self.get_available_models()
        current = self.agent.model
        if not candidates:
            return None
        index = next(
            (
                i
                for i, m in enumerate(candidates)
                if current and m["provider"] == current["provider"] and m["id"] == current["id"]
            ),
            None,
        )
        if index is None:
            chosen = candidates[0]
        else:
            if len(candidates) == 1:
                return None
            chosen = candidates[(index + 1) % len(candidates)]
        await self._apply_model(chosen)
        return {"model": chosen, "thinkingLevel": self.agent.thinking_level, "isScoped": bool(self.options.scoped_models)}

    def get_available_thinking_levels(self) -> list[str]:
        model = self.agent.model
        if model is None:
            return ["off", "minimal", "low", "medium", "high", "xhigh", "max"]
        return supported_thinking_levels(model)

    async def set_thinking_level(self, level: str) -> None:
        # Deliberate difference: upstream silently clamps unknown strings (usually to "off").
        if level not in THINKING_LEVELS:
            raise RuntimeCommandError(
                f'Invalid thinking level "{level}". Valid values: {", ".join(THINKING_LEVELS)}'
            )
        await self._set_effective_thinking(self._clamp(level))

    async def cycle_thinking_level(self) -> dict[str, str] | None:
        model = self.agent.model
        if model is None or not model.get("reasoning"):
            return None
        levels = self.get_available_thinking_levels()
        current = self.agent.thinking_level
        index = levels.index(current) if current in levels else -1
        level = levels[(index + 1) % len(levels)]
        await self._set_effective_thinking(level)
        return {"level": self.agent.thinking_level}

    # ------------------------------------------------------------------ settings setters

    @staticmethod
    def _check_queue_mode(kind: str, mode: str) -> None:
        # Deliberate difference: upstream stores any string in settings.json.
        if mode not in QUEUE_MODES:
            raise RuntimeCommandError(f'Invalid {kind} mode "{mode}". Valid values: {", ".join(QUEUE_MODES)}')

    def set_steering_mode(self, mode: str) -> None:
        self._check_queue_mode("steering", mode)
        self.agent.steering_mode = mode
        self.settings.set_steering_mode(mode)

    def set_follow_up_mode(self, mode: str) -> None:
        self._check_queue_mode("follow-up", mode)
        self.agent.follow_up_mode = mode
        self.settings.set_follow_up_mode(mode)

    def set_auto_compaction(self, enabled: bool) -> None:
        self.settings.set_compaction_enabled(enabled)

    def set_auto_retry(self, enabled: bool) -> None:
        self.retry.policy.enabled = enabled
        self.settings.set_retry_enabled(enabled)

    # ------------------------------------------------------------------ compaction

    async def compact(self, custom_instructions: str | None = None) -> dict[str, Any]:
        if self._is_streaming:
            await self.abort()
        return await self.compaction.run_manual(custom_instructions)

    # ------------------------------------------------------------------ bash command

    async def bash(
        self,
        command: str,
        exclude_from_context: bool | None = None,
        on_chunk: Callable[[str], Awaitable[None]] | None = None,
    ) -> dict[str, Any]:
        from pi_rpc.runtime.bash_runner import run_bash_command

        controller = AbortController()
        self._bash_controllers.add(controller)
        try:
            result, message = await run_bash_command(
                command,
                cwd=self.cwd,
                settings=self.settings,
                signal=controller.signal,
                on_chunk=on_chunk,
                exclude_from_context=exclude_from_context,
            )
        finally:
            self._bash_controllers.discard(controller)
        if self._is_streaming:
            self._pending_bash_messages.append(message)
        else:
            self._record_bash_message(message)
        return result

    def _record_bash_message(self, message: dict[str, Any]) -> None:
        self.session.append_message(message)
        self.agent.messages.append(message)

    def _flush_pending_bash(self) -> None:
        pending, self._pending_bash_messages = self._pending_bash_messages, []
        for message in pending:
            self._record_bash_message(message)

    def abort_bash(self) -> None:
        for controller in list(self._bash_controllers):
            controller.abort()

    # ------------------------------------------------------------------ session replacement

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        await self.abort()
        new_manager = self.session.new_session(parent_session=parent_session or None)
        self.agent.clear_all_queues()
        await self._replace_session(new_manager)
        return {"cancelled": False}

    async def switch_session(self, session_path: str) -> dict[str, Any]:
        path = Path(session_path).expanduser()
        if not path.is_absolute():
            path = Path.cwd() / path
        await self.abort()
        try:
            from pi_rpc.runtime.factory import session_fsync_mode

            new_manager = SessionManager.open(str(path), base_cwd=self.cwd, fsync=session_fsync_mode(self.settings))
            new_manager.check_cwd_exists(self.cwd)
        except SessionError as exc:
            raise RuntimeCommandError(str(exc)) from None
        new_manager.print_diagnostics()
        await self._replace_session(new_manager)
        if new_manager.cwd != self.cwd:
            self._rebind_cwd(new_manager.cwd)
        return {"cancelled": False}

    def _rebind_cwd(self, cwd: str) -> None:
        """The switched-to session works in its own cwd (upstream builds a new runtime there):
        tools, context files and the system prompt's cwd section follow it."""
        self.cwd = cwd
        self.options = replace(self.options, cwd=cwd, session=self.session)
        self.resources = ResourcesState(self.options, get_model=lambda: self.agent.model)
        self.agent.tools = self.resources.tools

    async def fork(self, entry_id: Any, position: str = "before") -> dict[str, Any]:
        entry = self.session.get_entry(entry_id) if isinstance(entry_id, str) else None
        if (
            entry is None
            or entry.get("type") != "message"
            or (entry.get("message") or {}).get("role") != "user"
        ):
            raise RuntimeCommandError(ERR_INVALID_FORK_ENTRY)
        text = _message_text(entry["message"])
        await self.abort()
        result = self.session.create_branched_session(entry_id, position)  # type: ignore[arg-type]
        await self._replace_session(result.manager, keep_queue_texts=True)
        return {"text": text, "cancelled": False}

    async def clone(self) -> dict[str, Any]:
        await self.abort()
        result = self.session.clone()
        await self._replace_session(result.manager)
        return {"cancelled": False}

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
        return self.resources.commands()

    async def set_session_name(self, name: str) -> None:
        trimmed = name.strip()
        if not trimmed:
            raise RuntimeCommandError(ERR_SESSION_NAME_EMPTY)
        normalized = re.sub(r"[\r\n]+", " ", trimmed).strip()
        self.session.append_session_info(normalized)
        await self.emit({"type": "session_info_changed", "name": normalized})

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

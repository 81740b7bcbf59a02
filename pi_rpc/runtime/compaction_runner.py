"""Compaction as the session runs it: manual ``compact``, the threshold check after a run and
before a prompt, and context-overflow recovery; with upstream's ``compaction_start`` /
``compaction_end`` and ``summarization_retry_*`` events, and abort that cancels a compaction
with nothing written."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

import anyio

from pi_rpc.ai.abort import AbortController

# The decision after each turn is all a session needs until it compacts: the planner and the
# summariser (``compaction.preparation``, ``compaction.compact``) load at the first compaction.
from pi_rpc.compaction.errors import (
    COMPACTION_CANCELLED,
    CompactionCancelled,
    CompactionError,
    compaction_failed_message,
)
from pi_rpc.compaction.overflow import CompactionDecision, decide_compaction
from pi_rpc.compaction.settings import CompactionSettings, RetrySettings
from pi_rpc.runtime.errors import RuntimeCommandError, no_api_key_error

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.ai.models.registry import ModelRegistry
    from pi_rpc.ai.types import Message, Model
    from pi_rpc.compaction.events import SummarizationRetryEvent
    from pi_rpc.config.settings import Settings
    from pi_rpc.extensions.events import ExtensionEvent, SessionCompactFailedEvent
    from pi_rpc.runtime.events import SessionEvent
    from pi_rpc.runtime.retry import RetryPolicy
    from pi_rpc.session.entries import Entry
    from pi_rpc.session.manager import SessionManager

Emit = Callable[["SessionEvent"], Awaitable[None]]
# An extension event with a result (``SessionExtensions.emit``); None without extensions.
ExtensionEmit = Callable[["ExtensionEvent"], Awaitable[object]]


def summary_retry_settings(policy: RetryPolicy) -> RetrySettings:
    """Summaries (compaction, branch summaries) retry as the session's runs do."""
    return RetrySettings(
        enabled=policy.enabled,
        max_retries=policy.max_retries,
        base_delay_ms=policy.base_delay_ms,
        max_delay_ms=policy.max_agent_delay_ms,
    )


def preparation_dict(preparation: Any) -> dict[str, Any]:
    """A compaction plan as extensions see it (upstream ``CompactionPreparation`` keys)."""
    read_files, modified_files = preparation.file_ops.lists()
    return {
        "firstKeptEntryId": preparation.first_kept_entry_id,
        "messagesToSummarize": preparation.messages_to_summarize,
        "turnPrefixMessages": preparation.turn_prefix_messages,
        "isSplitTurn": preparation.is_split_turn,
        "tokensBefore": preparation.tokens_before,
        "previousSummary": preparation.previous_summary,
        "fileOps": {
            "read": sorted(preparation.file_ops.read),
            "written": sorted(preparation.file_ops.written),
            "edited": sorted(preparation.file_ops.edited),
        },
        "readFiles": read_files,
        "modifiedFiles": modified_files,
        "settings": {
            "enabled": preparation.settings.enabled,
            "reserveTokens": preparation.settings.reserve_tokens,
            "keepRecentTokens": preparation.settings.keep_recent_tokens,
        },
    }


class CompactionRunner:
    """The session's compactions: one at a time, cancelled by ``abort``. It owns whether the
    current overflow was already recovered from once (a second overflow gives up)."""

    def __init__(
        self,
        *,
        agent: Agent,
        store: SessionManager,
        settings: Settings,
        registry: ModelRegistry,
        stream_fn: Any,  # RuntimeOptions.stream_fn
        retry_policy: RetryPolicy,
        emit: Emit,
        ext_emit: ExtensionEmit | None,
        hide_failed_reply: Callable[[Mapping[str, object]], Awaitable[None]],
    ) -> None:
        self._agent = agent
        # The store this runner compacts: a replaced session gets a new runner (``holder``).
        self._store = store
        self._settings = settings
        self._registry = registry
        self._stream_fn = stream_fn
        self._retry_policy = retry_policy
        self._emit = emit
        self._ext_emit = ext_emit
        self._hide_failed_reply = hide_failed_reply
        self.overflow_attempted = False
        self.active = False
        self.manual_active = False
        self._controller: AbortController | None = None
        self._idle = anyio.Event()
        self._idle.set()

    # ------------------------------------------------------------------ settings

    def settings(self) -> CompactionSettings:
        model = self._agent.model
        key = f"{model['provider']}/{model['id']}" if model else None
        section = self._settings.get("compaction") or {}
        return CompactionSettings.from_dict(section if isinstance(section, dict) else {}, key)

    # ------------------------------------------------------------------ abort

    def abort(self) -> None:
        if self._controller is not None:
            self._controller.abort()

    async def wait_idle(self) -> None:
        await self._idle.wait()

    def begin_external(self, controller: AbortController) -> None:
        """A branch summary runs: it counts as compacting (``isCompacting``, prompts refused)
        and ``abort`` cancels it."""
        self.active = True
        self.manual_active = True
        self._controller = controller
        self._idle = anyio.Event()

    def end_external(self) -> None:
        self.active = False
        self.manual_active = False
        self._controller = None
        self._idle.set()

    # ------------------------------------------------------------------ the core

    async def _ask_extensions(
        self,
        preparation: object,
        branch: list[Entry],
        reason: str,
        custom_instructions: str | None,
        will_retry: bool,
        controller: AbortController,
    ) -> dict[str, object] | None:
        """``session_before_compact``: ``{"cancel": True}`` cancels (as an abort would), a
        ``compaction`` result replaces the summary (recorded with ``fromHook``)."""
        if self._ext_emit is None:
            return None
        result = await self._ext_emit(
            {
                "type": "session_before_compact",
                "preparation": preparation_dict(preparation),
                "branchEntries": branch,
                "customInstructions": custom_instructions,
                "reason": reason,
                "willRetry": will_retry,
                "signal": controller.signal,
            }
        )
        if not isinstance(result, dict):
            return None
        if result.get("cancel"):
            raise CompactionCancelled()
        compaction = result.get("compaction")
        return dict(compaction) if isinstance(compaction, dict) else None

    async def _summarize(
        self, reason: str, custom_instructions: str | None, will_retry: bool = False
    ) -> dict[str, object]:
        """Prepare, summarize and append the entry; raise CompactionError/Cancelled."""
        model = self._agent.model
        branch = self._store.get_branch()
        from pi_rpc.compaction.compact import compact
        from pi_rpc.compaction.preparation import prepare_compaction_or_raise

        preparation = prepare_compaction_or_raise(branch, self.settings())
        if model is None:
            # Upstream runs on a placeholder model (provider "unknown") that has no key; the
            # session-size checks come first there too.
            raise CompactionError(no_api_key_error("unknown"))
        if model.get("api") == "pi-virtual":
            model = await self._route_direct(model)
        # A due OAuth refresh first, as before any request (upstream resolves auth per request).
        api_key = await self._registry.get_api_key_async(model["provider"])
        controller = AbortController()
        self._controller = controller  # abort() cancels from here on, extension handlers included
        self.from_extension = False
        try:
            from_hook = await self._ask_extensions(
                preparation, branch, reason, custom_instructions, will_retry, controller
            )
        except BaseException:
            self._controller = None
            raise
        if from_hook is not None:
            self.from_extension = True
            return await self._record(from_hook, reason, will_retry, controller, from_hook=True)

        async def on_retry(event: SummarizationRetryEvent) -> None:
            if event["type"] == "summarization_retry_attempt_start":
                event = {"type": event["type"], "source": "compaction", "reason": reason}
            await self._emit(event)

        try:
            result = await compact(
                preparation,
                model,
                api_key,
                custom_instructions,
                controller.signal,
                self._stream_fn,
                on_retry,
                summary_retry_settings(self._retry_policy),
                session_id=self._store.session_id,
            )
        finally:
            self._controller = None
        return await self._record(dict(result), reason, will_retry, controller, from_hook=False)

    async def _record(
        self, result: dict[str, Any], reason: str, will_retry: bool, controller: AbortController, *, from_hook: bool
    ) -> dict[str, object]:
        """Append the compaction entry and reload the context (then ``session_compact``)."""
        self._controller = None
        if controller.signal.aborted:
            raise CompactionCancelled()
        store = self._store
        entry_id = store.append_compaction(
            result["summary"],
            result["firstKeptEntryId"],
            result["tokensBefore"],
            details=result.get("details"),
            usage=result.get("usage"),
            from_hook=from_hook,
        )
        context = store.build_session_context()
        self._agent.messages = list(context.get("messages") or [])
        if from_hook:
            # What the model keeps after this summary (upstream estimates the new context).
            from pi_rpc.ai.estimate import estimate_message_tokens

            messages = store.build_session_projection()["messages"]
            result = {
                "summary": result["summary"],
                "firstKeptEntryId": result["firstKeptEntryId"],
                "tokensBefore": result["tokensBefore"],
                "estimatedTokensAfter": sum(estimate_message_tokens(m) for m in messages),
                **({"usage": result["usage"]} if result.get("usage") is not None else {}),
                **({"details": result["details"]} if result.get("details") is not None else {}),
            }
        if self._ext_emit is not None:
            await self._ext_emit(
                {
                    "type": "session_compact",
                    "compactionEntry": store.get_entry(entry_id),
                    "fromExtension": from_hook,
                    "reason": reason,
                    "willRetry": will_retry,
                }
            )
        return result

    async def _run(self, reason: str, custom_instructions: str | None, will_retry: bool) -> dict[str, object] | None:
        """One compaction with its start/end events. Returns the result, or None on failure
        (the failure text is in ``self.last_error``)."""
        self.active = True
        self._idle = anyio.Event()
        self.last_error: str | None = None
        self.last_cancelled = False
        self.from_extension = False
        await self._emit({"type": "compaction_start", "reason": reason})
        try:
            from pi_rpc.compaction.preparation import prepare_compaction

            if reason != "manual" and (
                self._agent.model is None or prepare_compaction(self._store.get_branch(), self.settings()) is None
            ):
                # Upstream's automatic compaction ends quietly when it has nothing to do.
                self.last_error = "Nothing to compact"
                await self._emit({"type": "compaction_end", "reason": reason, "aborted": False, "willRetry": False})
                return None
            result = await self._summarize(reason, custom_instructions, will_retry)
        except CompactionCancelled:
            self.last_cancelled = True
            self.last_error = COMPACTION_CANCELLED
            await self._emit({"type": "compaction_end", "reason": reason, "aborted": True, "willRetry": False})
            await self._failed(reason, None, aborted=True, will_retry=will_retry)
            return None
        except Exception as exc:  # noqa: BLE001 - any failure is reported, nothing written
            self.last_error = str(exc)
            message = compaction_failed_message(reason, str(exc))  # type: ignore[arg-type]
            await self._emit(
                {
                    "type": "compaction_end",
                    "reason": reason,
                    "aborted": False,
                    "willRetry": False,
                    "errorMessage": message,
                }
            )
            await self._failed(reason, message, aborted=False, will_retry=will_retry)
            return None
        finally:
            self.active = False
            self._idle.set()
        await self._emit(
            {"type": "compaction_end", "reason": reason, "result": result, "aborted": False, "willRetry": will_retry}
        )
        return result

    async def _failed(self, reason: str, error_message: str | None, *, aborted: bool, will_retry: bool) -> None:
        if self._ext_emit is None:
            return
        event: dict[str, object] = {"type": "session_compact_failed", "reason": reason}
        if error_message is not None:
            event["errorMessage"] = error_message
        event.update({"aborted": aborted, "willRetry": will_retry, "fromExtension": self.from_extension})
        await self._ext_emit(cast("SessionCompactFailedEvent", event))  # built in upstream's key order

    # ------------------------------------------------------------------ triggers

    async def run_manual(self, custom_instructions: str | None) -> dict[str, object]:
        self.manual_active = True
        try:
            result = await self._run("manual", custom_instructions, False)
        finally:
            self.manual_active = False
        if result is None:
            raise RuntimeCommandError(self.last_error or "Compaction failed")
        return result

    def _latest_compaction_ms(self) -> int | None:
        for entry in reversed(self._store.get_branch()):
            if entry.get("type") == "compaction":
                stamp = entry.get("timestamp")
                if isinstance(stamp, str):
                    try:
                        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
                    except ValueError:
                        return None
                return None
        return None

    async def _route_direct(self, model: Model) -> Model:
        """A summary under a virtual selection goes to the model its router picks for a
        ``direct`` request (no router state: upstream's)."""
        from pi_rpc.agent.convert import convert_to_llm

        virtual = self._registry.virtual
        if virtual is None:
            raise CompactionError(f"Virtual model {model['provider']}/{model['id']} is not registered.")
        request = {
            "reason": "direct",
            "thinkingLevel": self._agent.thinking_level,
            "messages": convert_to_llm(list(self._agent.messages)),
            "signal": None,
            "state": None,
        }
        try:
            route = await virtual.route(
                model, request, physical=self._registry.physical_model, has_auth=self._registry.has_auth
            )
        except Exception as exc:  # noqa: BLE001 - the compaction fails with the router's error
            raise CompactionError(str(exc)) from None
        return cast("Model", route.model)

    def decide(self, message: Mapping[str, object] | None, *, skip_aborted: bool) -> CompactionDecision:
        """What follows ``message`` (the last reply): nothing, threshold compaction, overflow
        recovery, or giving up on a second overflow (upstream ``_checkCompaction``)."""
        model = self._agent.model
        if message is None or model is None or not self._settings.compaction_enabled:
            return CompactionDecision("none")
        # The limits are those of the model that produced the reply: under a virtual selection
        # the physical model it was routed to (upstream ``_modelForMessage``).
        if model.get("api") == "pi-virtual":
            message_model = self._registry.physical_model(str(message.get("provider")), str(message.get("model")))
        elif message.get("provider") == model.get("provider") and message.get("model") == model.get("id"):
            message_model = model
        else:
            message_model = None
        limits = message_model if message_model is not None else model
        return decide_compaction(
            message,
            settings=self.settings(),
            context_window=int(limits.get("contextWindow") or 0),
            same_model=message_model is not None,
            model_max_tokens=int(limits.get("maxTokens") or 0) or None,
            recovery_attempted=self.overflow_attempted,
            skip_aborted=skip_aborted,
            latest_compaction_ms=self._latest_compaction_before(),
        )

    def _latest_compaction_before(self) -> int | None:
        # decide_compaction skips replies with timestamp <= this; a reply whose request started
        # in the same millisecond as the compaction entry came after it, so compare strictly.
        latest = self._latest_compaction_ms()
        return None if latest is None else latest - 1

    async def run_threshold(self) -> bool:
        return await self._run("threshold", None, False) is not None

    def exceeds_threshold(self, model: Mapping[str, object]) -> bool:
        """Whether the branch's projected context (the latest usage that no later compaction
        or context edit made stale, plus estimates) crosses ``model``'s threshold (upstream
        ``_exceedsCompactionThreshold``)."""
        from pi_rpc.compaction.tokens import should_compact
        from pi_rpc.session.stats import estimate_projected_context_tokens

        window = int(cast("int", model.get("contextWindow") or 0))
        if window <= 0:
            return False
        store = self._store
        tokens = estimate_projected_context_tokens(store.build_session_projection(), store.get_branch())["tokens"]
        return should_compact(int(tokens), window, self.settings())

    async def compact_before_routed_request(self, model: Mapping[str, object]) -> list[Message] | None:
        """Under a virtual selection, before each request and after its routing: a threshold
        compaction when the context crosses the threshold of the model the request is routed
        to (upstream's ``prepareRequest``). The rebuilt context when one ran (the request then
        takes it, still on the route already decided), else None."""
        if not self.exceeds_threshold(model):
            return None
        await self._run("threshold", None, False)
        return list(self._agent.messages)

    async def check_before_prompt(self) -> None:
        last = next((m for m in reversed(self._agent.messages) if m.get("role") == "assistant"), None)
        if last is None or last.get("stopReason") in ("error", "aborted"):
            return
        if self.decide(last, skip_aborted=False).action == "threshold":
            await self._run("threshold", None, False)

    async def give_up(self, error_message: str) -> None:
        """A second overflow after one recovery: ``compaction_end`` with no ``compaction_start``."""
        await self._emit(
            {
                "type": "compaction_end",
                "reason": "overflow",
                "aborted": False,
                "willRetry": False,
                "errorMessage": error_message,
            }
        )

    async def summary_request(self, model: Mapping[str, Any]) -> tuple[str | None, Any, RetrySettings]:
        """What a summary request to ``model`` is sent with, as a compaction's: the provider's
        key, the stream function, and the session's retry settings (branch summaries)."""
        return (
            await self._registry.get_api_key_async(model["provider"]),  # a due OAuth refresh first
            self._stream_fn,
            summary_retry_settings(self._retry_policy),
        )

    def reset_overflow(self) -> None:
        """A reply that fit, a new run or another context: the next overflow is a first one."""
        self.overflow_attempted = False

    async def recover_from_overflow(self, failed: Mapping[str, object], will_retry: bool) -> bool:
        """Hide the failed reply, compact, and report whether the turn should be retried."""
        self.overflow_attempted = True
        if will_retry:
            await self._hide_failed_reply(failed)
        result = await self._run("overflow", None, will_retry)
        return result is not None and will_retry

"""Read-only views of a session for the query commands: ``get_state``,
``get_session_stats`` and ``get_last_assistant_text`` (upstream key order, absent-not-null)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.session.manager import SessionManager


def initial_state(options: RuntimeOptions) -> dict[str, object]:
    """``get_state`` of the session ``AgentSession(options)`` will be, for a new session (no
    entries) with nothing else bound to it yet: what the RPC mode answers before the runtime
    is built (``modes.rpc.early``). A test holds it equal to the runtime's answer."""
    from pi_rpc.ai.models.catalog import placeholder_model

    if options.session.get_entry_count() != 0:
        raise ValueError("initial_state: the session is not new")
    return session_state(
        options.model or placeholder_model(),
        thinking_level=options.thinking_level,
        is_streaming=False,
        is_compacting=False,
        steering_mode=options.settings.steering_mode,
        follow_up_mode=options.settings.follow_up_mode,
        store=options.session,
        auto_compaction=options.settings.compaction_enabled,
        message_count=0,
        pending_message_count=0,
    )


def session_state(
    model: Mapping[str, object],
    *,
    thinking_level: str,
    is_streaming: bool,
    is_compacting: bool,
    steering_mode: str,
    follow_up_mode: str,
    store: SessionManager,
    auto_compaction: bool,
    message_count: int,
    pending_message_count: int,
) -> dict[str, object]:
    state: dict[str, object] = {
        "model": model,
        "thinkingLevel": thinking_level,
        "isStreaming": is_streaming,
        "isCompacting": is_compacting,
        "steeringMode": steering_mode,
        "followUpMode": follow_up_mode,
    }
    if store.session_file is not None:
        state["sessionFile"] = store.session_file
    state["sessionId"] = store.session_id
    name = store.get_session_name()
    if name:
        state["sessionName"] = name
    state["autoCompactionEnabled"] = auto_compaction
    state["messageCount"] = message_count
    state["pendingMessageCount"] = pending_message_count
    return state


def last_assistant_text(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        texts = [b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text"]
        has_text = any(t.strip() for t in texts)
        if message.get("stopReason") != "stop" and not has_text:
            continue
        text = "".join(texts).strip()
        return {"text": text} if text else {}
    return {}


def session_stats(model: Mapping[str, Any] | None, store: SessionManager) -> dict[str, Any]:
    window = (model or {}).get("contextWindow") or 0
    from pi_rpc.session.stats import compute_context_usage, compute_session_stats

    usage = None
    if model is not None and window > 0:
        usage = compute_context_usage(store.build_session_projection(), store.get_branch(), window)
    return compute_session_stats(
        store.get_entries(),
        session_file=store.session_file,
        session_id=store.session_id,
        context_usage=usage,
    )

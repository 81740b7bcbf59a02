"""Read-only views of a session for the query commands: ``get_state``,
``get_session_stats`` and ``get_last_assistant_text`` (upstream key order, absent-not-null)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_rpc.session.stats import compute_context_usage, compute_session_stats

if TYPE_CHECKING:
    from pi_rpc.runtime.session import AgentSession


def session_state(s: AgentSession) -> dict[str, Any]:
    state: dict[str, Any] = {
        "model": s.model or s._placeholder_model(),
        "thinkingLevel": s.thinking_level,
        "isStreaming": s.is_streaming,
        "isCompacting": s.is_compacting,
        "steeringMode": s.agent.steering_mode,
        "followUpMode": s.agent.follow_up_mode,
    }
    if s.session.session_file is not None:
        state["sessionFile"] = s.session.session_file
    state["sessionId"] = s.session.session_id
    name = s.session.get_session_name()
    if name:
        state["sessionName"] = name
    state["autoCompactionEnabled"] = s.settings.compaction_enabled
    state["messageCount"] = len(s.agent.messages)
    state["pendingMessageCount"] = s.pending_message_count
    return state


def last_assistant_text(messages: list[dict[str, Any]]) -> dict[str, Any]:
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


def session_stats(s: AgentSession) -> dict[str, Any]:
    model = s.model
    window = (model or {}).get("contextWindow") or 0
    usage = None
    if model is not None and window > 0:
        usage = compute_context_usage(s.session.build_session_projection(), s.session.get_branch(), window)
    return compute_session_stats(
        s.session.get_entries(),
        session_file=s.session.session_file,
        session_id=s.session.session_id,
        context_usage=usage,
    )

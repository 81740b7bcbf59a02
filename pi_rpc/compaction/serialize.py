"""Turn agent messages into the plain-text transcript a summary request carries.

The conversation is sent as labelled text inside one user message rather than as chat
turns, so the summarizer reads it as material instead of continuing it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pi_rpc.agent.convert import convert_to_llm as agent_convert_to_llm
from pi_rpc.ai.errors import js_json
from pi_rpc.ai.transcript import content_text

if TYPE_CHECKING:
    from pi_rpc.ai.types import Message


TOOL_RESULT_MAX_CHARS = 2000


def convert_to_llm(messages: list[Message]) -> list[Message]:
    """Coding-agent roles to LLM roles, as the agent converts them for every request
    (``pi_rpc.agent.convert``); system messages are not part of a summarized conversation."""
    return [m for m in agent_convert_to_llm(messages) if m.get("role") != "system"]


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def serialize_conversation(messages: Sequence[Mapping[str, Any]]) -> str:
    """LLM-form messages as ``[User]: …``, ``[Assistant thinking]: …``, ``[Assistant]: …``,
    ``[Assistant tool calls]: name(k=<json>, …); …`` and ``[Tool result]: …`` blocks
    separated by blank lines. Tool results are cut at 2000 characters; images are skipped."""
    parts: list[str] = []
    for msg in messages:
        role = msg.get("role")
        if role == "user":
            text = content_text(msg.get("content"))
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            blocks = [b for b in msg.get("content") or [] if isinstance(b, dict)]
            thinking = [b.get("thinking") or "" for b in blocks if b.get("type") == "thinking"]
            calls = []
            for b in blocks:
                if b.get("type") == "toolCall":
                    raw_args = b.get("arguments")
                    args = raw_args if isinstance(raw_args, dict) else {}
                    rendered = ", ".join(f"{k}={js_json(v)}" for k, v in args.items())
                    calls.append(f"{b.get('name', '')}({rendered})")
            if thinking:
                parts.append("[Assistant thinking]: " + "\n".join(thinking))
            if any(b.get("type") == "text" for b in blocks):
                parts.append("[Assistant]: " + content_text(blocks))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif role == "toolResult":
            text = content_text(msg.get("content"))
            if text:
                parts.append("[Tool result]: " + _truncate(text, TOOL_RESULT_MAX_CHARS))
    return "\n\n".join(parts)

"""LLM layer: message/event types, ``stream()`` over registered providers (httpx providers and the
offline ``faux``), the model registry, error classification, cost and thinking-level helpers."""

from pi_rpc.ai.abort import AbortController, AbortSignal
from pi_rpc.ai.classify import is_context_overflow, is_retryable_error, parse_retry_after
from pi_rpc.ai.cost import calculate_cost
from pi_rpc.ai.stream import complete, get_provider, register_provider, registered_apis, stream
from pi_rpc.ai.thinking import clamp_thinking_level, supported_thinking_levels
from pi_rpc.ai.types import Context, StreamOptions

__all__ = [
    "AbortController",
    "AbortSignal",
    "Context",
    "StreamOptions",
    "calculate_cost",
    "clamp_thinking_level",
    "complete",
    "get_provider",
    "is_context_overflow",
    "is_retryable_error",
    "parse_retry_after",
    "register_provider",
    "registered_apis",
    "stream",
    "supported_thinking_levels",
]

"""LLM layer: message/event types, ``stream()`` over registered providers (httpx providers and the
offline ``faux``), the model registry, error classification, cost and thinking-level helpers.

The names below are exported lazily (importing ``pi_rpc.ai`` for one small module, as the
startup path does, imports nothing else). ``stream`` and ``complete`` live in the module
``pi_rpc.ai.stream``: import them from there (``pi_rpc.ai.stream`` is that module).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc._lazy import lazy_exports

_EXPORTS = {
    "AbortController": "pi_rpc.ai.abort",
    "AbortSignal": "pi_rpc.ai.abort",
    "is_context_overflow": "pi_rpc.ai.classify",
    "is_retryable_error": "pi_rpc.ai.classify",
    "parse_retry_after": "pi_rpc.ai.classify",
    "calculate_cost": "pi_rpc.ai.cost",
    "complete": "pi_rpc.ai.stream",
    "get_provider": "pi_rpc.ai.stream",
    "register_provider": "pi_rpc.ai.stream",
    "registered_apis": "pi_rpc.ai.stream",
    "clamp_thinking_level": "pi_rpc.ai.thinking",
    "supported_thinking_levels": "pi_rpc.ai.thinking",
    "Context": "pi_rpc.ai.types",
    "StreamOptions": "pi_rpc.ai.types",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from pi_rpc.ai.abort import AbortController, AbortSignal
    from pi_rpc.ai.classify import is_context_overflow, is_retryable_error, parse_retry_after
    from pi_rpc.ai.cost import calculate_cost
    from pi_rpc.ai.stream import complete, get_provider, register_provider, registered_apis
    from pi_rpc.ai.thinking import clamp_thinking_level, supported_thinking_levels
    from pi_rpc.ai.types import Context, StreamOptions

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

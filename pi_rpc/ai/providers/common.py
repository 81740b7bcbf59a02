"""Helpers every provider shares: request limits, key checks, header merging, stop-event
plumbing, and the terminal error event built from whatever went wrong."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_rpc.ai.classify import parse_retry_after
from pi_rpc.ai.errors import AbortedError, ProviderHTTPError, redact, set_retry_hint
from pi_rpc.ai.estimate import clamp_max_tokens_to_context, estimate_context_tokens
from pi_rpc.ai.thinking import clamp_thinking_level
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions


def append_text(block: dict[str, Any], key: str, piece: str) -> None:
    """``block[key] += piece`` in amortised linear time.

    A plain ``+=`` on a dict value copies the whole growing string on every delta (CPython
    only resizes in place when the string has no other reference), which makes a long
    streamed reply quadratic: 2 MB in 10-byte deltas took 70 s. Dropping the dict's reference
    first (keeping the key's position) lets the concatenation resize in place.
    """
    value = block[key]
    block[key] = None
    value += piece
    block[key] = value


def request_max_tokens(
    model: Model, context: Context, system_prompt: str, messages: list[dict[str, Any]], options: StreamOptions
) -> int:
    """``options.max_tokens ?? model.maxTokens`` fitted into the context window (upstream 1.6)."""
    pseudo: list[dict[str, object]] = []
    if system_prompt or context.tools:
        sys_msg: dict[str, object] = {"role": "system", "content": system_prompt, "timestamp": 0}
        if context.tools:
            sys_msg["toolsAdded"] = list(context.tools)
        pseudo.append(sys_msg)
    tokens = estimate_context_tokens(pseudo + messages)
    wanted = options.max_tokens if options.max_tokens is not None else model.get("maxTokens", 16384)
    return clamp_max_tokens_to_context(model, tokens, wanted)


def reasoning_level(model: Model, options: StreamOptions) -> str | None:
    """The clamped thinking level, or None when off / unsupported."""
    if not options.reasoning or options.reasoning == "off":
        return None
    level = clamp_thinking_level(model, options.reasoning)
    return None if level == "off" else level


def require_api_key(model: Model, options: StreamOptions, headers: dict[str, str] | None = None) -> str:
    if options.api_key:
        return options.api_key
    for name in list((headers or {}).keys()) + list((options.headers or {}).keys()):
        if name.lower() in ("authorization", "x-api-key", "x-goog-api-key", "cf-aig-authorization"):
            return ""
    raise RuntimeError(f"No API key for provider: {model['provider']}")


def update_headers(headers: dict[str, str], extra: Mapping[str, str]) -> None:
    """``headers.update(extra)`` with names compared case-insensitively, as the SDKs merge
    them: a catalogue model's ``User-Agent`` (GitHub Copilot's) replaces our ``user-agent``
    instead of going out as a second header."""
    for key, value in extra.items():
        lower = key.lower()
        for existing in [k for k in headers if k != key and k.lower() == lower]:
            del headers[existing]
        headers[key] = value


def merged_headers(model: Model, base: dict[str, str], options: StreamOptions) -> dict[str, str]:
    headers = dict(base)
    update_headers(headers, model.get("headers") or {})
    update_headers(headers, options.headers or {})
    return headers


def failure_event(output: dict[str, object], exc: BaseException, options: StreamOptions) -> AssistantMessageEvent:
    """The terminal ``error`` event for ``exc`` (aborted when the signal fired)."""
    aborted = bool(options.signal and options.signal.aborted) or isinstance(exc, AbortedError)
    if aborted:
        message = str(exc) if isinstance(exc, AbortedError) else "Request was aborted"
    elif isinstance(exc, ProviderHTTPError):
        message = str(exc)
    else:
        message = str(exc) or type(exc).__name__
    message = redact(message, [options.api_key])
    if options.secrets is not None:
        message = options.secrets.redact(message)  # (the stream would do it; the retry hint keys on the text)
    output["stopReason"] = "aborted" if aborted else "error"
    output["errorMessage"] = message
    if not aborted and isinstance(exc, ProviderHTTPError):
        delay = parse_retry_after(exc.headers, exc.body)
        if delay is not None:
            set_retry_hint(output, delay)
    return {"type": "error", "reason": output["stopReason"], "error": output}


_U32 = 0xFFFFFFFF
_DIGITS36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_U32 = 0xFFFFFFFF


def _imul(a: int, b: int) -> int:
    return (a * b) & _U32


def _base36(value: int) -> str:
    if value == 0:
        return "0"
    out = []
    while value:
        value, digit = divmod(value, 36)
        out.append(_DIGITS36[digit])
    return "".join(reversed(out))


def short_hash(text: str) -> str:
    """pi-ai's ``shortHash`` (``utils/hash.js``): two 32-bit multiply-xor lanes over the UTF-16
    code units, printed in base 36. Unsigned 32-bit values throughout: ``Math.imul`` and ``^``
    give the same low 32 bits whichever sign JS shows them with, and ``>>>`` reads them
    unsigned."""
    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    units = text.encode("utf-16-le", "surrogatepass")
    for i in range(0, len(units), 2):
        ch = units[i] | (units[i + 1] << 8)
        h1 = _imul(h1 ^ ch, 2654435761)
        h2 = _imul(h2 ^ ch, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return _base36(h2 & _U32) + _base36(h1 & _U32)

"""The one streaming entry point: ``stream(model, context, options)`` dispatches on
``model["api"]`` to a registered provider and guarantees upstream's contract:

- events are upstream pi-ai dicts (see ``types.py``), ``partial`` is the live message;
- exactly one terminal event (``done`` or ``error``) ends the stream, and the stream never raises
  (a provider bug becomes an ``error`` event too);
- the terminal message gets ``durationMs`` (monotonic, from the call) like upstream's
  ``AssistantMessageEventStream``; the caller adds ``thinkingLevel``;
- a failed reply's ``errorMessage`` and ``diagnostics`` quote no credential the request carried
  (``pi_rpc.ai.redaction``: the key, the configured headers, every credential header a
  provider sent), whatever the provider echoed; upstream quotes them.

Providers are async generators ``fn(model, context, options) -> AsyncIterator[event]`` registered
with ``register_provider(api, fn)``. The built-in ones register lazily on first use.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import replace

from pi_rpc.ai.output import new_output, now_ms
from pi_rpc.ai.redaction import RequestSecrets, redact_error_message
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions

# An async generator, not any async iterator: ``stream`` closes it with ``aclosing``.
ProviderFn = Callable[[Model, Context, StreamOptions], AsyncGenerator[AssistantMessageEvent, None]]

_REGISTRY: dict[str, ProviderFn] = {}
_LAZY: dict[str, tuple[str, str]] = {}
_BUILTINS_LOADED = False
_TERMINAL = frozenset(("done", "error"))
# Built-in providers whose requests upstream adjusts beyond their API (``provider_quirks``).
_QUIRKY_PROVIDERS = frozenset(
    ("opencode", "opencode-go", "cloudflare-workers-ai", "cloudflare-ai-gateway", "github-copilot", "azure")
)


def register_provider(api: str, fn: ProviderFn) -> None:
    """Register (or replace) the stream function for an ``api`` value."""
    _REGISTRY[api] = fn
    _LAZY.pop(api, None)


def register_lazy_provider(api: str, module: str, attr: str) -> None:
    """Register ``module.attr`` for ``api``, imported on first use (unless ``api`` is taken)."""
    if api not in _REGISTRY:
        _LAZY.setdefault(api, (module, attr))


def unregister_provider(api: str) -> None:
    _REGISTRY.pop(api, None)
    _LAZY.pop(api, None)


def _load_builtins() -> None:
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    # The table lives with the providers; the registering happens here, so that the providers
    # package never imports this module (the providers import ``output``, not the dispatcher).
    from pi_rpc.ai.providers import BUILTIN_APIS

    for api, (module, attr) in BUILTIN_APIS.items():
        register_lazy_provider(api, module, attr)


def get_provider(api: str) -> ProviderFn | None:
    _load_builtins()
    fn = _REGISTRY.get(api)
    if fn is None and api in _LAZY:
        import importlib

        module, attr = _LAZY.pop(api)
        fn = _REGISTRY[api] = getattr(importlib.import_module(module), attr)
    return fn


def registered_apis() -> list[str]:
    _load_builtins()
    return sorted(set(_REGISTRY) | set(_LAZY))


def error_event(output: dict[str, object], message: str, aborted: bool) -> AssistantMessageEvent:
    output["stopReason"] = "aborted" if aborted else "error"
    output["errorMessage"] = message
    return {"type": "error", "reason": output["stopReason"], "error": output}


def _live_output(last: AssistantMessageEvent | None, model: Model) -> dict[str, object]:
    """The live message of the latest non-terminal event, or a fresh one before any."""
    if last is None or last["type"] == "done" or last["type"] == "error":
        return new_output(model)
    return last["partial"]


async def stream(
    model: Model, context: Context, options: StreamOptions | None = None
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one assistant response. Never raises; always ends with ``done`` or ``error``."""
    options = options or StreamOptions()
    started_ms = now_ms()
    started = time.monotonic()
    # Every credential the request carries, collected from here to the network (the
    # configured ones now, before a quirk adds headers of its own): no error text may quote one.
    secrets = RequestSecrets.for_request(options.api_key, options.headers)
    options = replace(options, secrets=secrets)

    def finished(msg: dict[str, object]) -> None:
        """The terminal message's last touches: its duration, and no credential in its error."""
        stamp = msg.get("timestamp", 0)
        if "durationMs" not in msg and isinstance(stamp, (int, float)) and stamp >= started_ms:
            msg["durationMs"] = max(0, round((time.monotonic() - started) * 1000))
        if msg.get("stopReason") in ("error", "aborted"):
            redact_error_message(msg, secrets)

    fn = get_provider(model.get("api", ""))
    if fn is not None and model.get("provider") in _QUIRKY_PROVIDERS:
        from pi_rpc.ai.provider_quirks import apply_provider_quirks

        try:
            model, options = apply_provider_quirks(model, context, options)
        except ValueError as exc:  # a provider setting that cannot work (Azure without a base URL)
            out = new_output(model)
            ev = error_event(out, str(exc), False)
            finished(out)
            yield ev
            return
    if fn is None:
        out = new_output(model)
        ev = error_event(out, f"No API provider registered for api: {model.get('api')}", False)
        finished(out)
        yield ev
        return

    # The latest non-terminal event: its ``partial`` is the live message an unexpected provider
    # failure reports (every non-terminal event of the vocabulary carries it). Kept as the
    # event rather than unpacked: this loop runs once per streamed delta.
    last: AssistantMessageEvent | None = None
    try:
        async with aclosing(fn(model, context, options)) as events:
            async for ev in events:
                if ev.get("type") in _TERMINAL:
                    if ev["type"] == "done":
                        finished(ev["message"])
                    elif ev["type"] == "error":
                        finished(ev["error"])
                    yield ev
                    return
                last = ev
                yield ev
    except Exception as exc:  # noqa: BLE001 - a provider bug must still end the stream properly
        out = _live_output(last, model)
        aborted = bool(options.signal and options.signal.aborted)
        ev = error_event(out, "Request was aborted" if aborted else (str(exc) or type(exc).__name__), aborted)
        finished(out)
        yield ev
        return
    out = _live_output(last, model)
    aborted = bool(options.signal and options.signal.aborted)
    ev = error_event(
        out, "Request was aborted" if aborted else "Provider stream ended without a terminal event", aborted
    )
    finished(out)
    yield ev


async def complete(model: Model, context: Context, options: StreamOptions | None = None) -> dict[str, object]:
    """Run ``stream`` to the end and return the final assistant message."""
    final: dict[str, object] | None = None
    async for ev in stream(model, context, options):
        if ev["type"] == "done":
            final = ev["message"]
        elif ev["type"] == "error":
            final = ev["error"]
    assert final is not None
    return final

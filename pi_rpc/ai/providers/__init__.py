"""Built-in providers, one module per ``api`` value; registered into ``pi_rpc.ai.stream`` on first use."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from typing import Any

BUILTIN_APIS: dict[str, tuple[str, str]] = {
    "faux": ("pi_rpc.ai.providers.faux", "stream_faux"),
    "openai-completions": ("pi_rpc.ai.providers.openai_completions", "stream_openai_completions"),
    "anthropic-messages": ("pi_rpc.ai.providers.anthropic_messages", "stream_anthropic_messages"),
    "openai-responses": ("pi_rpc.ai.providers.openai_responses", "stream_openai_responses"),
    "google-generative-ai": ("pi_rpc.ai.providers.google_generative_ai", "stream_google_generative_ai"),
}


def _lazy(module: str, attr: str) -> Any:
    async def run(model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        fn = getattr(importlib.import_module(module), attr)
        async for event in fn(model, context, options):
            yield event

    return run


def register_builtin_providers() -> None:
    from pi_rpc.ai.stream import _REGISTRY, register_provider

    for api, (module, attr) in BUILTIN_APIS.items():
        if api not in _REGISTRY:  # an explicit registration wins over the built-in
            register_provider(api, _lazy(module, attr))

"""``--model`` resolved after the extensions registered their providers.

Upstream builds the session services (extensions loaded, their ``registerProvider`` calls
applied) before it resolves ``--model``, so ``pi --model my-ext-provider/model -e ext.ts`` works.
``runtime.factory`` resolves ``--model`` at once when that settles it; when extensions are
configured and the text names no known model (or only a custom id of a known provider, which an
extension may still define), it leaves the choice pending here. ``AgentSession`` then applies it
right after the extensions loaded (``apply_pending_model``): the model, the thinking level, the
``--api-key`` and the new session's first ``model_change`` entry, as if it had been known from
the start; a text that is still unknown stops startup with upstream's error.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pi_rpc.errors import StartupError
from pi_rpc.log import logger

if TYPE_CHECKING:
    from pi_rpc.ai.models.registry import ModelRegistry
    from pi_rpc.ai.types import Model
    from pi_rpc.config.settings import Settings
    from pi_rpc.runtime.options import RuntimeOptions


@dataclass(frozen=True)
class PendingCliModel:
    """``--model`` (with ``--provider``, ``--thinking`` and ``--api-key``) still to resolve."""

    text: str
    provider: str | None = None
    thinking: str | None = None
    api_key: str | None = None


def resolve_cli_model(registry: ModelRegistry, text: str, provider: str | None) -> tuple[Model, str | None]:
    """``--model`` over every model the registry knows now: (model, thinking level named by a
    ``:level`` suffix). A warning (a custom id) goes to stderr; an unknown or ambiguous text
    raises ``StartupError`` with upstream's words."""
    result = registry.resolve(text, provider=provider)
    if result.get("warning"):
        logger().warning(f"Warning: {result['warning']}")
    if result.get("status") != "resolved":
        if result.get("status") == "ambiguous":
            names = ", ".join(f"{m['provider']}/{m['id']}" for m in result.get("candidates", []))
            raise StartupError(f'Model "{text}" is ambiguous: {names}')
        raise StartupError(f'Error: Model "{text}" not found. Use --list-models to see available models.')
    return result["model"], result.get("thinkingLevel")


def settles_now(registry: ModelRegistry, text: str, provider: str | None) -> bool:
    """Whether ``--model`` resolves to a model the registry defines without the extensions:
    a known model, not a custom id of a known provider nor an unknown text."""
    result = registry.resolve(text, provider=provider)
    return result.get("status") == "resolved" and not result.get("warning")


def initial_thinking(settings: Settings, model: Model | None, explicit: str | None) -> str:
    """The starting thinking level: ``--thinking`` or the model pattern's, else the level saved
    for this model, else the default; clamped to what the model supports."""
    from pi_rpc.ai.thinking import clamp_thinking_level

    level = explicit
    if level is None and model is not None:
        level = settings.model_thinking_levels.get(f"{model['provider']}/{model['id']}")
    if level is None:
        level = settings.default_thinking_level
    return clamp_thinking_level(model, level) if model is not None else "off"


def resolve_pending(options: RuntimeOptions) -> RuntimeOptions:
    """The options with the pending ``--model`` resolved against the registry as the loaded
    extensions left it (raises ``StartupError`` when it is still unknown)."""
    pending: PendingCliModel | None = options.pending_model
    if pending is None:
        return options
    registry = options.registry
    model, pattern_level = resolve_cli_model(registry, pending.text, pending.provider)
    if pending.api_key:
        registry.set_runtime_api_key(model["provider"], pending.api_key)
    elif not registry.has_auth(model["provider"]):
        logger().warning(f"Warning: No API key found for {model['provider']}")
    explicit = pending.thinking or pattern_level
    return replace(
        options,
        model=model,
        thinking_level=initial_thinking(options.settings, model, explicit),
        thinking_explicit=bool(explicit),
        pending_model=None,
    )


def apply_pending_model(session: Any) -> None:
    """Give ``session`` (an ``AgentSession`` whose extensions just loaded) the pending
    ``--model``; a new session records it as its first entries, as upstream's does."""
    options = session.options
    if options.pending_model is None:
        return
    resolved = resolve_pending(options)
    session.options = resolved
    session.agent.model = resolved.model
    store = session.session
    if resolved.thinking_explicit or store.get_entry_count() == 0:
        session.agent.thinking_level = resolved.thinking_level
    else:
        # A resumed session keeps its own level (restored already), within what the model supports.
        session.agent.thinking_level = initial_thinking(options.settings, resolved.model, session.agent.thinking_level)
    if store.get_entry_count() == 0 and resolved.model is not None:
        store.append_model_change(resolved.model["provider"], resolved.model["id"])
        store.append_thinking_level_change(resolved.thinking_level)

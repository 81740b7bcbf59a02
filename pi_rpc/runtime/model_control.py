"""Model and thinking-level selection and the settings setters of a session
(``set_model``, ``cycle_model``, thinking levels with upstream's clamping, queue modes, auto
compaction and retry switches): each change is recorded in the store and announced to clients
(and extensions)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pi_rpc.ai.thinking import clamp_thinking_level, supported_thinking_levels
from pi_rpc.ai.types import Model
from pi_rpc.runtime.errors import RuntimeCommandError
from pi_rpc.runtime.thinking_levels import check_thinking_level, effective_thinking_level, record_thinking_level

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.ai.models.registry import ModelRegistry
    from pi_rpc.config.settings import Settings
    from pi_rpc.extensions.events import ExtensionEvent
    from pi_rpc.runtime.events import EmitEvent
    from pi_rpc.runtime.retry import RetryPolicy
    from pi_rpc.session.manager import SessionManager

QUEUE_MODES = ("all", "one-at-a-time")


class ModelControl:
    """The agent's model and thinking level, and the settings a client may switch."""

    def __init__(
        self,
        *,
        agent: Agent,
        store: SessionManager,
        settings: Settings,
        registry: ModelRegistry,
        scoped_models: list[tuple[Model, str | None]],
        retry_policy: RetryPolicy,
        emit: EmitEvent,
        ext_emit: Callable[[ExtensionEvent], Awaitable[object]] | None,
    ) -> None:
        self._agent = agent
        # The store model changes are recorded in: a replaced session gets a new part (``holder``).
        self._store = store
        self._settings = settings
        self._registry = registry
        self._scoped_models = scoped_models
        self._retry_policy = retry_policy
        self._emit = emit
        self._ext_emit = ext_emit

    async def api_key(self, provider: str) -> str | None:
        """The agent's ``get_api_key``: the key of the selected model's provider."""
        model = self._agent.model
        if model is None:
            return None
        # Under a virtual selection the request goes to the routed model's provider.
        target = provider if model.get("api") == "pi-virtual" else model["provider"]
        # A due OAuth refresh happens here, right before the request (the run's abort
        # signal cancels only the wait for the auth.json lock).
        return await self._registry.get_api_key_async(target, self._agent.signal)

    def clamp(self, level: str) -> str:
        """``level`` as the selected model supports it (upstream's clamping)."""
        return effective_thinking_level(self._agent.model, level)

    @property
    def scoped_models(self) -> list[Model]:
        """The models ``cycle_model`` goes through (empty: every available one)."""
        return [model for model, _level in self._scoped_models]

    @property
    def scope(self) -> list[tuple[Model, str | None]]:
        """The scoped models with their patterns' thinking levels, for the part built when the
        session is replaced (the scope outlives the store)."""
        return list(self._scoped_models)

    def set_scoped_models(self, models: list[Model]) -> None:
        """The models Ctrl+P cycles through (interactive ``/scoped-models``); empty: all. Chosen
        by hand, they carry no thinking level of a pattern's."""
        self._scoped_models = [(model, None) for model in models]

    def get_available_models(self) -> list[Model]:
        return self._registry.get_available()

    async def apply_model(self, model: Model, source: str = "set", level: str | None = None) -> None:
        """Select ``model``; its thinking level is ``level`` when given (a scope pattern's),
        else the per-model setting, the default, or the current one (clamped)."""
        previous = self._agent.model
        self._agent.model = model
        self._store.append_model_change(model["provider"], model["id"])
        key = f"{model['provider']}/{model['id']}"
        per_model = self._settings.model_thinking_levels.get(key)
        if level is not None:
            wanted = level
        elif per_model:
            wanted = per_model
        elif self._settings.has_default_thinking_level:
            wanted = self._settings.default_thinking_level
        else:
            wanted = self._agent.thinking_level
        await self._set_effective_thinking(clamp_thinking_level(model, wanted))
        if self._ext_emit is not None and not (
            previous is not None
            and previous.get("provider") == model.get("provider")
            and previous.get("id") == model.get("id")
        ):
            await self._ext_emit({"type": "model_select", "model": model, "previousModel": previous, "source": source})

    async def _set_effective_thinking(self, level: str) -> None:
        previous = record_thinking_level(self._agent, self._store, level)
        if previous is None:
            return
        await self._emit({"type": "thinking_level_changed", "level": level})
        if self._ext_emit is not None:
            # Upstream does not await these handlers but they start at once, before the
            # command's response; awaiting them keeps that order.
            await self._ext_emit({"type": "thinking_level_select", "level": level, "previousLevel": previous})

    async def set_model(self, provider: str, model_id: str) -> Model:
        model = next(
            (m for m in self.get_available_models() if m["provider"] == provider and m["id"] == model_id), None
        )
        if model is None:
            raise RuntimeCommandError(f"Model not found: {provider}/{model_id}")
        await self.apply_model(model)
        return model

    async def cycle_model(self) -> dict[str, Any] | None:
        """The next model of the scope (those of its models still available; a level its pattern
        named applies) or of the available models; None when there is no other."""
        available = self.get_available_models()
        if self._scoped_models:
            keys = {(m["provider"], m["id"]) for m in available}
            candidates = [entry for entry in self._scoped_models if (entry[0]["provider"], entry[0]["id"]) in keys]
        else:
            candidates = [(m, None) for m in available]
        current = self._agent.model
        index = next(
            (
                i
                for i, (m, _level) in enumerate(candidates)
                if current and m["provider"] == current["provider"] and m["id"] == current["id"]
            ),
            None,
        )
        # upstream's getNextCycleIndex (forward)
        if not candidates or (index is not None and len(candidates) == 1):
            return None
        chosen, level = candidates[0] if index is None else candidates[(index + 1) % len(candidates)]
        await self.apply_model(chosen, "cycle", level)
        return {"model": chosen, "thinkingLevel": self._agent.thinking_level, "isScoped": bool(self._scoped_models)}

    def get_available_thinking_levels(self) -> list[str]:
        model = self._agent.model
        if model is None:
            return ["off"]  # upstream's placeholder model does not reason
        return supported_thinking_levels(model)

    async def set_thinking_level(self, level: str) -> None:
        check_thinking_level(level)
        await self._set_effective_thinking(self.clamp(level))

    async def cycle_thinking_level(self) -> dict[str, str] | None:
        model = self._agent.model
        if model is None or not model.get("reasoning"):
            return None
        levels = self.get_available_thinking_levels()
        current = self._agent.thinking_level
        index = levels.index(current) if current in levels else -1
        level = levels[(index + 1) % len(levels)]
        await self._set_effective_thinking(level)
        return {"level": self._agent.thinking_level}

    # ------------------------------------------------------------------ settings setters

    @staticmethod
    def _check_queue_mode(kind: str, mode: str) -> None:
        # Deliberate difference: upstream stores any string in settings.json.
        if mode not in QUEUE_MODES:
            raise RuntimeCommandError(f'Invalid {kind} mode "{mode}". Valid values: {", ".join(QUEUE_MODES)}')

    def set_steering_mode(self, mode: str) -> None:
        self._check_queue_mode("steering", mode)
        self._agent.steering_mode = mode
        self._settings.set_steering_mode(mode)

    def set_follow_up_mode(self, mode: str) -> None:
        self._check_queue_mode("follow-up", mode)
        self._agent.follow_up_mode = mode
        self._settings.set_follow_up_mode(mode)

    def set_auto_compaction(self, enabled: bool) -> None:
        self._settings.set_compaction_enabled(enabled)

    def set_auto_retry(self, enabled: bool) -> None:
        self._retry_policy.enabled = enabled
        self._settings.set_retry_enabled(enabled)

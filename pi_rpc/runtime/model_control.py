"""Model and thinking-level selection and the settings setters of a session
(``set_model``, ``cycle_model``, thinking levels with upstream's clamping, queue modes, auto
compaction and retry switches), as a mixin of :class:`~pi_rpc.runtime.session.AgentSession`."""

from __future__ import annotations

from typing import Any, cast

from pi_rpc.ai.thinking import clamp_thinking_level, supported_thinking_levels
from pi_rpc.ai.types import Model
from pi_rpc.runtime.errors import RuntimeCommandError
from pi_rpc.runtime.host import SessionHost
from pi_rpc.runtime.thinking_levels import check_thinking_level, record_thinking_level

QUEUE_MODES = ("all", "one-at-a-time")


class ModelControl(SessionHost):
    def get_available_models(self) -> list[Model]:
        return self.registry.get_available()

    async def _apply_model(self, model: Model, source: str = "set") -> None:
        previous = self.agent.model
        self.agent.model = model
        self.session.append_model_change(model["provider"], model["id"])
        key = f"{model['provider']}/{model['id']}"
        per_model = self.settings.model_thinking_levels.get(key)
        if per_model:
            wanted = per_model
        elif self.settings.has_default_thinking_level:
            wanted = self.settings.default_thinking_level
        else:
            wanted = self.agent.thinking_level
        await self._set_effective_thinking(clamp_thinking_level(model, wanted))
        ext = self.ext
        if ext is not None and not (
            previous is not None and previous.get("provider") == model.get("provider") and previous.get("id") == model.get("id")
        ):
            await ext.emit({"type": "model_select", "model": model, "previousModel": previous, "source": source})

    async def select_model(self, model: dict[str, Any], source: str = "set") -> None:
        """Select ``model`` (an extension's ``pi.set_model``), as ``set_model`` does."""
        await self._apply_model(cast("Model", model), source)  # as the extension gave it

    async def _set_effective_thinking(self, level: str) -> None:
        previous = record_thinking_level(self.agent, self.session, level)
        if previous is None:
            return
        await self.emit({"type": "thinking_level_changed", "level": level})
        if self.ext is not None:
            # Upstream does not await these handlers but they start at once, before the
            # command's response; awaiting them keeps that order.
            await self.ext.emit({"type": "thinking_level_select", "level": level, "previousLevel": previous})

    async def set_model(self, provider: str, model_id: str) -> Model:
        model = next(
            (m for m in self.get_available_models() if m["provider"] == provider and m["id"] == model_id), None
        )
        if model is None:
            raise RuntimeCommandError(f"Model not found: {provider}/{model_id}")
        await self._apply_model(model)
        return model

    async def cycle_model(self) -> dict[str, Any] | None:
        scoped = [m for m in self.options.scoped_models if self.registry.has_auth(m["provider"])]
        candidates = scoped if self.options.scoped_models else self.get_available_models()
        current = self.agent.model
        if not candidates:
            return None
        index = next(
            (
                i
                for i, m in enumerate(candidates)
                if current and m["provider"] == current["provider"] and m["id"] == current["id"]
            ),
            None,
        )
        if index is None:
            chosen = candidates[0]
        else:
            if len(candidates) == 1:
                return None
            chosen = candidates[(index + 1) % len(candidates)]
        await self._apply_model(chosen, "cycle")
        return {"model": chosen, "thinkingLevel": self.agent.thinking_level, "isScoped": bool(self.options.scoped_models)}

    def get_available_thinking_levels(self) -> list[str]:
        model = self.agent.model
        if model is None:
            return ["off"]  # upstream's placeholder model does not reason
        return supported_thinking_levels(model)

    async def set_thinking_level(self, level: str) -> None:
        check_thinking_level(level)
        await self._set_effective_thinking(self._clamp(level))

    async def cycle_thinking_level(self) -> dict[str, str] | None:
        model = self.agent.model
        if model is None or not model.get("reasoning"):
            return None
        levels = self.get_available_thinking_levels()
        current = self.agent.thinking_level
        index = levels.index(current) if current in levels else -1
        level = levels[(index + 1) % len(levels)]
        await self._set_effective_thinking(level)
        return {"level": self.agent.thinking_level}

    # ------------------------------------------------------------------ settings setters

    @staticmethod
    def _check_queue_mode(kind: str, mode: str) -> None:
        # Deliberate difference: upstream stores any string in settings.json.
        if mode not in QUEUE_MODES:
            raise RuntimeCommandError(f'Invalid {kind} mode "{mode}". Valid values: {", ".join(QUEUE_MODES)}')

    def set_steering_mode(self, mode: str) -> None:
        self._check_queue_mode("steering", mode)
        self.agent.steering_mode = mode
        self.settings.set_steering_mode(mode)

    def set_follow_up_mode(self, mode: str) -> None:
        self._check_queue_mode("follow-up", mode)
        self.agent.follow_up_mode = mode
        self.settings.set_follow_up_mode(mode)

    def set_auto_compaction(self, enabled: bool) -> None:
        self.settings.set_compaction_enabled(enabled)

    def set_auto_retry(self, enabled: bool) -> None:
        self.retry.policy.enabled = enabled
        self.settings.set_retry_enabled(enabled)


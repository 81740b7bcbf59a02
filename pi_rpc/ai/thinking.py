"""Thinking levels per model (protocol §2.13) and upstream's clamping rule (§4.6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The levels in order (``ai.types`` re-exports them; defined here so that the startup path,
# which resolves a model's thinking level, need not build the message types).
THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


def supported_thinking_levels(model: Mapping[str, Any] | None) -> list[str]:
    """``["off"]`` for non-reasoning models; otherwise off..high minus levels mapped to null,
    plus xhigh/max only when the model's ``thinkingLevelMap`` defines them. No model: all seven."""
    if model is None:
        return list(THINKING_LEVELS)
    if not model.get("reasoning"):
        return ["off"]
    level_map = model.get("thinkingLevelMap") or {}
    out = []
    for level in THINKING_LEVELS:
        if level in level_map and level_map[level] is None:
            continue
        if level in ("xhigh", "max") and level not in level_map:
            continue
        out.append(level)
    return out


def clamp_thinking_level(model: Mapping[str, object] | None, level: str) -> str:
    available = supported_thinking_levels(model)
    if level in available:
        return level
    if level not in THINKING_LEVELS:
        return available[0] if available else "off"
    idx = THINKING_LEVELS.index(level)
    for candidate in THINKING_LEVELS[idx:]:
        if candidate in available:
            return candidate
    for candidate in reversed(THINKING_LEVELS[:idx]):
        if candidate in available:
            return candidate
    return available[0] if available else "off"

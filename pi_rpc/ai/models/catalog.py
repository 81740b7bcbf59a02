"""Built-in model catalogue: ``catalog.json`` beside this file, generated from upstream pi-ai
1.6.0's own catalogue data (MIT) and restricted to the APIs pi_rpc implements. Model dicts keep
upstream's key order (id, name, api, provider, baseUrl, reasoning, input, cost, contextWindow,
maxTokens, then thinkingLevelMap, compat, promptCache, inputLimits, type)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from pi_rpc.ai.types import Model

CATALOG_PATH = Path(__file__).with_name("catalog.json")


@lru_cache(maxsize=1)
def _catalog() -> dict[str, list[dict[str, Any]]]:
    providers: dict[str, list[dict[str, Any]]] = orjson.loads(CATALOG_PATH.read_bytes())["providers"]
    return providers


def builtin_providers() -> list[str]:
    return list(_catalog())


def builtin_models(provider: str | None = None) -> list[dict[str, Any]]:
    """Fresh copies of the built-in models (all, or one provider's). Re-parsing the file is
    ~20x cheaper than ``copy.deepcopy`` of the cached catalogue (startup cost)."""
    data = orjson.loads(CATALOG_PATH.read_bytes())["providers"]
    if provider is not None:
        return list(data.get(provider, []))
    return [m for models in data.values() for m in models]


def placeholder_model() -> Model:
    """Upstream agent-core's stand-in when no model is configured (protocol reference §1.1)."""
    return {
        "id": "unknown",
        "name": "unknown",
        "api": "unknown",
        "provider": "unknown",
        "baseUrl": "",
        "reasoning": False,
        "input": [],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 0,
        "maxTokens": 0,
    }

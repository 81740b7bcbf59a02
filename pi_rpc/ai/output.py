"""The assistant message a provider stream builds: its initial ``pending`` shape and the clock
its timestamps read. A leaf of ``pi_rpc.ai`` (it imports only ``types``), so the providers and
``stream`` (which dispatches to them) share it without importing each other."""

from __future__ import annotations

import time
from typing import Any

from pi_rpc.ai.types import Model, empty_usage


def now_ms() -> int:
    return int(time.time() * 1000)


def new_output(model: Model) -> dict[str, Any]:
    """The initial (``pending``) assistant message, keys in upstream order."""
    return {
        "role": "assistant",
        "content": [],
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
        "usage": empty_usage(),
        "stopReason": "pending",
        "timestamp": now_ms(),
    }

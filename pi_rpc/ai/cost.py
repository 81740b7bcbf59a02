"""Cost from usage (upstream ``calculateCost``): USD per million tokens, tiered prices, Anthropic
1-hour cache writes at twice the input price. Integral results are stored as ``int`` so they
serialise like JavaScript numbers (``0``, not ``0.0``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def js_number(value: float) -> float | int:
    """An integral float as ``int`` (JSON like JS); anything else unchanged."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def calculate_cost(model: Mapping[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """Fill ``usage["cost"]`` in place (upstream key order) and return it."""
    prices = model.get("cost") or {}
    rates: dict[str, Any] = prices
    input_tokens = usage.get("input", 0) + usage.get("cacheRead", 0) + usage.get("cacheWrite", 0)
    matched = -1
    for tier in prices.get("tiers") or []:
        above = tier.get("inputTokensAbove", 0)
        if input_tokens > above and above > matched:
            rates, matched = tier, above
    long_write = usage.get("cacheWrite1h", 0) or 0
    short_write = usage.get("cacheWrite", 0) - long_write
    r_in = rates.get("input", 0) or 0
    c_in = (r_in / 1000000) * usage.get("input", 0)
    c_out = ((rates.get("output", 0) or 0) / 1000000) * usage.get("output", 0)
    c_cr = ((rates.get("cacheRead", 0) or 0) / 1000000) * usage.get("cacheRead", 0)
    c_cw = ((rates.get("cacheWrite", 0) or 0) * short_write + r_in * 2 * long_write) / 1000000
    total = c_in + c_out + c_cr + c_cw
    cost: dict[str, Any] = usage.setdefault("cost", {})
    cost.clear()
    cost.update(
        {
            "input": js_number(c_in),
            "output": js_number(c_out),
            "cacheRead": js_number(c_cr),
            "cacheWrite": js_number(c_cw),
            "total": js_number(total),
            "totalFromProvider": False,
        }
    )
    return cost

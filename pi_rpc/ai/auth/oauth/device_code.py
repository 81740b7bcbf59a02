"""The RFC 8628 polling loop of the device-code logins (``pi-ai/dist/auth/oauth/device-code.js``
``pollOAuthDeviceCodeFlow``): poll every ``interval`` seconds (5 when not given, at least 1),
``slow_down`` raises the interval (to the server's value or by 5 s), until ``expires_in``."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from pi_rpc.ai.auth.errors import LoginError

TIMEOUT = "Device flow timed out"
SLOW_DOWN_TIMEOUT = (
    "Device flow timed out after one or more slow_down responses. This is often caused by clock drift in WSL "
    "or VM environments. Please sync or restart the VM clock and try again."
)

# poll() returns ("complete", value) | ("pending", None) | ("slow_down", seconds|None) | ("failed", message)
Poll = Callable[[], Awaitable[tuple[str, object]]]


async def poll_device_code(
    poll: Poll, interval_s: float | None, expires_in_s: float | None, *, wait_first: bool = False
) -> Any:
    deadline = time.monotonic() + expires_in_s if expires_in_s is not None else float("inf")
    interval = max(1.0, float(interval_s if interval_s is not None else 5))
    slow_downs = 0
    if wait_first:
        await anyio.sleep(max(0.0, min(interval, deadline - time.monotonic())))
    while time.monotonic() < deadline:
        status, value = await poll()
        if status == "complete":
            return value
        if status == "failed":
            raise LoginError(str(value))
        if status == "slow_down":
            slow_downs += 1
            interval = max(1.0, float(value)) if isinstance(value, (int, float)) and value > 0 else interval + 5
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        await anyio.sleep(min(interval, remaining))
    raise LoginError(SLOW_DOWN_TIMEOUT if slow_downs else TIMEOUT)

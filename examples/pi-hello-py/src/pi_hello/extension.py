"""``/hello-py [name]``: greets, from a Python distribution installed with ``pi install pypi:``."""

from __future__ import annotations

from typing import Any

from .greeting import greeting


def setup(pi: Any) -> None:
    async def handler(args: str, ctx: Any) -> None:
        ctx.ui.notify(greeting(args.strip()), "info")

    pi.register_command("hello-py", {"description": "Say hello from a Python package", "handler": handler})

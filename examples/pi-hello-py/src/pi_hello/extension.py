"""``/hello-py [name]``: greets, from a Python distribution installed with ``pi install pypi:``."""

from __future__ import annotations

from typing import Any


def setup(pi: Any) -> None:
    async def handler(args: str, ctx: Any) -> None:
        ctx.ui.notify(f"Hello, {args.strip() or 'world'}! (from pi-hello)", "info")

    pi.register_command("hello-py", {"description": "Say hello from a Python package", "handler": handler})

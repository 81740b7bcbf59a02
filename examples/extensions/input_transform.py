"""Input transform: the ``input`` event rewrites or answers user input before the model sees it.

Python port of upstream pi's ``examples/extensions/input-transform.ts``::

    ?quick What is TypeScript?  -> "Respond briefly in 1-2 sentences: What is TypeScript?"
    ping                        -> "pong" (a notification; no model call)
    time                        -> the current time (a notification; no model call)
"""

from __future__ import annotations

from datetime import datetime
from typing import Any


def setup(pi: Any) -> None:
    @pi.on("input")
    async def on_input(event: dict[str, Any], ctx: Any) -> dict[str, Any]:
        # Source-based logic: skip processing for extension-injected messages.
        if event["source"] == "extension":
            return {"action": "continue"}

        # Transform: ?quick prefix for brief responses.
        if event["text"].startswith("?quick "):
            query = event["text"][7:].strip()
            if not query:
                ctx.ui.notify("Usage: ?quick <question>", "warning")
                return {"action": "handled"}
            return {"action": "transform", "text": f"Respond briefly in 1-2 sentences: {query}"}

        # Handle: instant responses without the model (the extension shows its own feedback).
        if event["text"].lower() == "ping":
            ctx.ui.notify("pong", "info")
            return {"action": "handled"}
        if event["text"].lower() == "time":
            ctx.ui.notify(datetime.now().strftime("%x, %X"), "info")
            return {"action": "handled"}

        return {"action": "continue"}

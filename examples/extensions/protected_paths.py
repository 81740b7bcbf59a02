"""Protected paths: ``write`` and ``edit`` calls on sensitive paths are blocked.

Python port of upstream pi's ``examples/extensions/protected-paths.ts``.
"""

from __future__ import annotations

from typing import Any

PROTECTED_PATHS = [".env", ".git/", "node_modules/"]


def setup(pi: Any) -> None:
    @pi.on("tool_call")
    async def protect(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        if event["toolName"] not in ("write", "edit"):
            return None

        path = event["input"]["path"]
        if any(protected in path for protected in PROTECTED_PATHS):
            if ctx.has_ui:
                ctx.ui.notify(f"Blocked write to protected path: {path}", "warning")
            return {"block": True, "reason": f'Path "{path}" is protected'}
        return None

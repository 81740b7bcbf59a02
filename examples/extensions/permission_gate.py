"""Permission gate: asks before a dangerous ``bash`` command runs.

Python port of upstream pi's ``examples/extensions/permission-gate.ts``. Load it with
``pi --mode rpc -e examples/extensions/permission_gate.py`` (or copy it into
``~/.pi/agent/extensions/``). In RPC mode the question reaches the client as an
``extension_ui_request`` (``method: "select"``); the call runs only if the answer is "Yes".
Without a user (print and JSON modes) dangerous commands are blocked: a gate that cannot ask
must fail closed.
"""

from __future__ import annotations

import re
from typing import Any

DANGEROUS_PATTERNS = [
    re.compile(r"\brm\s+(-rf?|--recursive)", re.IGNORECASE),
    re.compile(r"\bsudo\b", re.IGNORECASE),
    re.compile(r"\b(chmod|chown)\b.*777", re.IGNORECASE),
]


def setup(pi: Any) -> None:
    @pi.on("tool_call")
    async def gate(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        if event["toolName"] != "bash":
            return None

        command = event["input"]["command"]
        if not any(pattern.search(command) for pattern in DANGEROUS_PATTERNS):
            return None

        if not ctx.has_ui:
            # In non-interactive mode, block by default.
            return {"block": True, "reason": "Dangerous command blocked (no UI for confirmation)"}

        choice = await ctx.ui.select(f"⚠️ Dangerous command:\n\n  {command}\n\nAllow?", ["Yes", "No"])
        if choice != "Yes":
            return {"block": True, "reason": "Blocked by user"}
        return None

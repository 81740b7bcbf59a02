"""Confirm destructive session actions: starting a new session, switching away from one with
messages, and forking are confirmed first; a "no" cancels the operation.

Python port of upstream pi's ``examples/extensions/confirm-destructive.ts``; shows how the
``session_before_*`` events cancel with ``{"cancel": True}``.
"""

from __future__ import annotations

from typing import Any


def setup(pi: Any) -> None:
    @pi.on("session_before_switch")
    async def before_switch(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        if not ctx.has_ui:
            return None

        if event["reason"] == "new":
            confirmed = await ctx.ui.confirm(
                "Clear session?",
                "This will delete all messages in the current session.",
            )
            if not confirmed:
                ctx.ui.notify("Clear cancelled", "info")
                return {"cancel": True}
            return None

        # reason == "resume": check whether the current session has user messages.
        entries = ctx.session_manager.get_entries()
        has_unsaved_work = any(e["type"] == "message" and e["message"]["role"] == "user" for e in entries)
        if has_unsaved_work:
            confirmed = await ctx.ui.confirm(
                "Switch session?",
                "You have messages in the current session. Switch anyway?",
            )
            if not confirmed:
                ctx.ui.notify("Switch cancelled", "info")
                return {"cancel": True}
        return None

    @pi.on("session_before_fork")
    async def before_fork(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        if not ctx.has_ui:
            return None

        choice = await ctx.ui.select(
            f"Fork from entry {event['entryId'][:8]}?",
            ["Yes, create fork", "No, stay in current session"],
        )
        if choice != "Yes, create fork":
            ctx.ui.notify("Fork cancelled", "info")
            return {"cancel": True}
        return None

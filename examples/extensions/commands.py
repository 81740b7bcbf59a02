"""``/commands [extension|prompt|skill]``: lists the slash commands of the session in a
``select`` dialog and offers to show where the chosen one comes from.

Python port of upstream pi's ``examples/extensions/commands.ts`` (``pi.get_commands``).
"""

from __future__ import annotations

from typing import Any

SOURCES = [("extension", "Extensions"), ("prompt", "Prompts"), ("skill", "Skills")]


def setup(pi: Any) -> None:
    async def handler(args: str, ctx: Any) -> None:
        commands = pi.get_commands()
        source_filter = args.strip()

        filtered = [c for c in commands if c["source"] == source_filter] if source_filter else commands
        if not filtered:
            ctx.ui.notify(f"No {source_filter} commands found" if source_filter else "No commands found", "info")
            return

        def format_command(cmd: dict[str, Any]) -> str:
            desc = f" - {cmd['description']}" if cmd.get("description") else ""
            return f"/{cmd['name']}{desc}"

        items: list[str] = []
        for key, label in SOURCES:
            cmds = [c for c in filtered if c["source"] == key]
            if cmds:
                items.append(f"--- {label} ---")
                items.extend(format_command(c) for c in cmds)

        selected = await ctx.ui.select("Available Commands", items)

        # If a command (not a header) was selected, offer to show its path.
        if selected and not selected.startswith("---"):
            name = selected.split(" - ")[0][1:]
            cmd = next((c for c in commands if c["name"] == name), None)
            if cmd and cmd["sourceInfo"].get("path"):
                if await ctx.ui.confirm(cmd["name"], f"View source path?\n{cmd['sourceInfo']['path']}"):
                    ctx.ui.notify(cmd["sourceInfo"]["path"], "info")

    pi.register_command("commands", {"description": "List available slash commands", "handler": handler})

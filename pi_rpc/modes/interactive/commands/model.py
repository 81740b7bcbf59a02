"""``/model`` (pick or name a model) and ``/thinking`` (pick or name a thinking level)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc.modes.interactive.commands import command

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp


@command("model", "Select a model (or /model provider/id)")
async def model(app: PiApp, args: str) -> None:
    session = app.session
    models = session.get_available_models()
    if args:
        needle = args.lower()
        matches = [m for m in models if f"{m['provider']}/{m['id']}".lower() == needle or m["id"].lower() == needle]
        if not matches:
            matches = [m for m in models if needle in f"{m['provider']}/{m['id']}".lower()]
        if len(matches) != 1:
            await app.say(f"No unique model matches {args!r}", "error")
            return
        chosen = matches[0]
    else:
        current = session.model
        options = [(f"{m['provider']}/{m['id']}", (m["provider"], m["id"])) for m in models]
        mark = (current["provider"], current["id"]) if current else None
        key = await app.pick("Select model", options, current=mark)
        if key is None:
            return
        chosen = next(m for m in models if (m["provider"], m["id"]) == key)
    await session.set_model(chosen["provider"], chosen["id"])
    await app.say(f"Model: {chosen['provider']}/{chosen['id']}")
    app.refresh_footer()


# upstream's descriptions of the levels (thinking-selector)
LEVEL_DESCRIPTIONS = {
    "off": "No reasoning",
    "minimal": "Very brief reasoning (~1k tokens)",
    "low": "Light reasoning (~2k tokens)",
    "medium": "Moderate reasoning (~8k tokens)",
    "high": "Deep reasoning (~16k tokens)",
    "xhigh": "Extra-high reasoning (~32k tokens)",
    "max": "Maximum reasoning",
}


@command("thinking", "Set the thinking level (or /thinking <level>)")
async def thinking(app: PiApp, args: str) -> None:
    session = app.session
    levels = list(session.get_available_thinking_levels())
    default = session.settings.default_thinking_level
    level = args or await app.pick(
        "Thinking Level",
        [(lvl, lvl) for lvl in levels],
        current=session.thinking_level,
        descriptions=[
            f"{LEVEL_DESCRIPTIONS.get(lvl, '')} · default" if lvl == default else LEVEL_DESCRIPTIONS.get(lvl, "")
            for lvl in levels
        ],
        message=f"{app.keymap.key('app.thinking.cycle')} cycles thinking levels in-session",
    )
    if level is None:
        return
    if level not in levels:
        await app.say(f"Unknown thinking level {level!r} (available: {', '.join(levels)})", "error")
        return
    await session.set_thinking_level(level)
    await app.say(f"Thinking level: {session.thinking_level}")
    app.refresh_footer()

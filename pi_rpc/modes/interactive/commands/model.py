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
        options = [(f"{m['provider']}/{m['id']}", m) for m in models]
        initial = next(
            (
                i
                for i, m in enumerate(models)
                if current and m["provider"] == current["provider"] and m["id"] == current["id"]
            ),
            0,
        )
        chosen = await app.pick("Select model", options, initial=initial)
        if chosen is None:
            return
    await session.set_model(chosen["provider"], chosen["id"])
    await app.say(f"Model: {chosen['provider']}/{chosen['id']}")
    app.refresh_footer()


@command("thinking", "Set the thinking level (or /thinking <level>)")
async def thinking(app: PiApp, args: str) -> None:
    session = app.session
    levels = list(session.get_available_thinking_levels())
    level = args or await app.pick(
        "Thinking level",
        [(lvl, lvl) for lvl in levels],
        initial=levels.index(session.thinking_level) if session.thinking_level in levels else 0,
    )
    if level is None:
        return
    if level not in levels:
        await app.say(f"Unknown thinking level {level!r} (available: {', '.join(levels)})", "error")
        return
    await session.set_thinking_level(level)
    await app.say(f"Thinking level: {session.thinking_level}")
    app.refresh_footer()

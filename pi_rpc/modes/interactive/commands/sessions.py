"""Session commands: ``/new``, ``/name``, ``/session``, ``/resume``, ``/fork``, ``/clone``,
``/compact``, ``/copy``, ``/export``, ``/reload``."""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pi_rpc.modes.interactive.commands import command

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp


def _ago(iso: Any) -> str:
    try:
        seconds = max(0.0, time.time() - datetime.fromisoformat(str(iso).replace("Z", "+00:00")).timestamp())
    except ValueError:
        return ""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


async def _replaced(app: PiApp, result: dict[str, Any], what: str) -> None:
    if result.get("cancelled"):
        await app.say(f"{what} cancelled", "warning")
        return
    await app.reload_transcript()
    if result.get("text"):
        app.set_editor_text(str(result["text"]))
    await app.say(what)


@command("new", "Start a new session")
async def new(app: PiApp, args: str) -> None:
    await _replaced(app, await app.session.new_session(), "New session started")


@command("name", "Set the session's display name")
async def name(app: PiApp, args: str) -> None:
    value = args or await app.ask_text("Session name", value=app.session.session.get_session_name() or "")
    if value:
        await app.session.set_session_name(value)
        await app.say(f"Session name: {value}")
        app.refresh_footer()


@command("session", "Show session info and statistics")
async def session_info(app: PiApp, args: str) -> None:
    stats = app.session.get_session_stats()
    tokens = stats.get("tokens") or {}
    lines = [
        f"File: {stats.get('sessionFile') or '(in memory)'}",
        f"ID: {stats.get('sessionId')}",
        f"Name: {app.session.session.get_session_name() or '-'}",
        f"Messages: {stats.get('userMessages', 0)} user, {stats.get('assistantMessages', 0)} assistant, "
        f"{stats.get('toolCalls', 0)} tool calls",
        f"Tokens: {tokens.get('input', 0)} in, {tokens.get('output', 0)} out, "
        f"{tokens.get('cacheRead', 0)} cache read, {tokens.get('cacheWrite', 0)} cache write",
        f"Cost: ${float(stats.get('cost') or 0):.4f}",
    ]
    await app.say("\n".join(lines))


@command("resume", "Resume another session of this project")
async def resume(app: PiApp, args: str) -> None:
    sessions = app.session.list_sessions("cwd", 200, args or None)
    current = app.session.session.session_file
    sessions = [s for s in sessions if s.get("path") != current]
    if not sessions:
        await app.say("No other sessions to resume", "warning")
        return
    options = []
    for info in sessions:
        label = info.get("name") or info.get("firstMessage") or info.get("id") or info.get("path")
        label = " ".join(str(label).split())[:60]
        options.append((f"{label}  ({info.get('messageCount', '?')} msgs, {_ago(info.get('modified'))})", info["path"]))
    path = await app.pick("Resume session", options)
    if path is None:
        return
    await _replaced(app, await app.session.switch_session(path), "Resumed session")


@command("fork", "Continue in a new session from an earlier user message")
async def fork(app: PiApp, args: str) -> None:
    messages = app.session.session.get_fork_messages()
    if not messages:
        await app.say("No user messages to fork from", "warning")
        return
    options = [(" ".join(m["text"].split())[:70], m["entryId"]) for m in messages]
    entry_id = await app.pick("Fork from message", options, initial=len(options) - 1)
    if entry_id is None:
        return
    await _replaced(app, await app.session.fork(entry_id), "Forked into a new session")


@command("clone", "Copy the current branch into a new session")
async def clone(app: PiApp, args: str) -> None:
    await _replaced(app, await app.session.clone(), "Cloned into a new session")


@command("compact", "Summarise older context now (/compact [instructions])")
async def compact(app: PiApp, args: str) -> None:
    try:
        await app.session.compact(args or None)
    except Exception:  # noqa: BLE001 - as upstream: the compaction_end event already said why
        return
    await app.reload_transcript()


@command("copy", "Copy the last answer to the clipboard")
async def copy(app: PiApp, args: str) -> None:
    text = app.session.get_last_assistant_text().get("text")
    if not text:
        await app.say("No answer to copy", "warning")
        return
    app.copy_to_clipboard(text)  # OSC 52: works over SSH and in tmux with set-clipboard on
    await app.say("Copied the last answer to the clipboard")


@command("export", "Export the session to HTML (/export [path])")
async def export(app: PiApp, args: str) -> None:
    result = app.session.export_html(args or None)
    await app.say(f"Exported to {result.get('path')}")


@command("reload", "Reload keybindings, skills, prompt templates, themes and context files")
async def reload(app: PiApp, args: str) -> None:
    app.session.reload_resources()
    app.install_keys()  # keybindings.json and the theme, as upstream's /reload
    await app.say("Reloaded resources")

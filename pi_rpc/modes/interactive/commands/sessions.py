"""Session commands: ``/new``, ``/name``, ``/session``, ``/resume``, ``/fork``, ``/clone``,
``/compact``, ``/copy``, ``/export``, ``/reload``."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
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
    # (the transcript was reloaded when the holder told the app of the replacement)
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


SORTS = ("threaded", "recent", "relevance")
SORT_LABELS = {"threaded": "Threaded", "recent": "Recent", "relevance": "Fuzzy"}
# upstream's session selector keys (keybindings.md "Sessions"; Tab switches the scope)
RESUME_KEYS = {
    "tab": "scope",
    "ctrl+s": "sort",
    "ctrl+n": "named",
    "ctrl+r": "rename",
    "ctrl+d": "delete",
    "ctrl+p": "path",
}


def resume_hint(show_path: bool) -> str:
    """Upstream's two hint lines (the search syntax, then the keys with the path state)."""
    return (
        'Tab scope · re:<pattern> regex · "phrase" exact · Enter resume · Esc cancel\n'
        f"^S sort · ^N named · ^D delete · ^P path ({'on' if show_path else 'off'}) · ^R rename"
    )


def _short_home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home and home != "/" and path.startswith(home) else path


def _fit_row(left: str, right: str, width: int | None) -> str:
    """``left  (right)`` in ``width`` cells: the message is cut to leave room for the right
    part (the folder, the path), which is right-aligned, as upstream's selector lays rows out."""
    right = f"({right})"
    if width is None:
        return f"{left[:60]}  {right}"
    if len(right) > width - 12:
        right = "(…" + right[-(width - 14) :]
    room = max(10, width - len(right) - 2)
    if len(left) > room:
        left = left[: room - 1] + "…"
    return f"{left.ljust(room)}  {right}"


def _session_rows(
    sessions: list[dict[str, Any]], sort: str, show_cwd: bool, show_path: bool = False, width: int | None = None
) -> list[tuple[str, str]]:
    """(label, path) rows: "threaded" puts a forked session under the one it came from (newest
    first on each level), the others list them newest first; ``show_path`` (Ctrl+P) adds each
    session file's path, as upstream's selector does; with ``width`` a row fits in it."""
    by_path = {s["path"]: s for s in sessions}
    children: dict[str | None, list[dict[str, Any]]] = {}
    for info in sessions:
        parent = info.get("parentSessionPath") if sort == "threaded" else None
        children.setdefault(parent if parent in by_path else None, []).append(info)
    rows: list[tuple[str, str]] = []

    def walk(parent: str | None, depth: int) -> None:
        level = sorted(children.get(parent, []), key=lambda s: str(s.get("modified") or ""), reverse=True)
        for info in level:
            text = " ".join(str(info.get("name") or info.get("firstMessage") or info.get("id") or "").split())
            right = f"{info.get('messageCount', '?')} msgs, {_ago(info.get('modified'))}"
            if show_cwd and info.get("cwd"):
                right = f"{_short_home(str(info['cwd']))}  {right}"
            if show_path:
                right = f"{_short_home(str(info['path']))}  {right}"
            indent = "  " * (depth - 1) + "└ " if depth else ""
            rows.append((_fit_row(f"{indent}{text}", right, width), info["path"]))
            if sort == "threaded":
                walk(info["path"], depth + 1)

    walk(None, 0)
    return rows


@command("resume", "Resume another session of this project")
async def resume(app: PiApp, args: str) -> None:
    """Upstream's session selector: this folder's sessions or all (Tab), threaded / recent /
    fuzzy order (Ctrl+S), only named ones (Ctrl+N), rename (Ctrl+R), delete (Ctrl+D, after a
    confirmation; never the current session) and the session files' paths shown (Ctrl+P). The
    filter is upstream's search: ``re:<pattern>``, "phrases", words (session_search.py). The
    current session is marked ✓."""
    from pi_rpc.modes.interactive.dialogs import PickerKey

    session = app.session
    current = session.session.session_file
    from pi_rpc.modes.interactive.session_search import SearchFields

    scope, sort, named, typed, show_path = "cwd", "threaded", False, "", False
    cursor: str | None = None
    while True:
        # with every message's text: the filter searches all of it, as upstream's selector
        sessions = session.list_sessions(scope, 500, args or None, texts=True)
        if named:
            sessions = [s for s in sessions if s.get("name")]
        # the picker's row: the terminal less the dialog's and the list's borders and padding
        options = _session_rows(sessions, sort, scope == "all", show_path, max(30, app.size.width - 10))
        paths = [path for _, path in options]
        by_path = {info["path"]: info for info in sessions}
        search = [
            SearchFields(
                name=str(by_path[path].get("name") or ""),
                text=(str(by_path[path].get("id") or ""), _searched_text(by_path[path]), path),
                folder=str(by_path[path].get("cwd") or ""),
            )
            for path in paths
        ]
        folder = "◉ Current Folder | ○ All" if scope == "cwd" else "○ Current Folder | ◉ All"
        status = f"{folder}   Name: {'Named' if named else 'All'}   Sort: {SORT_LABELS[sort]}"
        if not options:
            status += "\n" + ("No named sessions: Ctrl+N shows all" if named else "No sessions: Tab shows all")
        picked = await app.pick(
            f"Resume Session ({'Current Folder' if scope == 'cwd' else 'All'})",
            options,
            message=status,
            initial=paths.index(cursor) if cursor in paths else 0,
            current=current,
            keys=RESUME_KEYS,
            hint=resume_hint(show_path),
            filter=typed,
            rank=sort == "relevance",
            search=search,
        )
        if not isinstance(picked, PickerKey):
            break
        cursor, typed = picked.value, picked.filter
        if picked.action == "scope":
            scope = "all" if scope == "cwd" else "cwd"
        elif picked.action == "sort":
            sort = SORTS[(SORTS.index(sort) + 1) % len(SORTS)]
        elif picked.action == "named":
            named = not named
        elif picked.action == "path":
            show_path = not show_path
        elif picked.action == "rename" and picked.value is not None:
            await _rename(app, picked.value, sessions)
        elif picked.action == "delete" and picked.value is not None:
            await _delete(app, picked.value, current, options)
    if picked is None:
        return
    if picked == current:
        await app.say("Already in this session")
        return
    await _replaced(app, await session.switch_session(picked), "Resumed session")


async def _rename(app: PiApp, path: str, sessions: list[dict[str, Any]]) -> None:
    old = next((str(s.get("name") or "") for s in sessions if s["path"] == path), "")
    name = await app.ask_text("Rename session", value=old)
    if not name or not name.strip():
        return
    try:
        await app.session.rename_session(path, name)
    except Exception as exc:  # noqa: BLE001 - said in the transcript; the picker comes back
        await app.say(f"Rename failed: {exc}", "error")
        return
    if path == app.session.session.session_file:
        app.refresh_footer()
    await app.say(f"Session renamed: {name.strip()}")


async def _delete(app: PiApp, path: str, current: str | None, options: list[tuple[str, str]]) -> None:
    if path == current:
        await app.say("Cannot delete the currently active session", "error")
        return
    label = next((label for label, p in options if p == path), path)
    confirmed = await app.pick("Delete session?", [("No", False), ("Yes, delete it", True)], message=label.strip())
    if confirmed is not True:
        return
    try:
        await app.session.delete_session(path)
    except Exception as exc:  # noqa: BLE001 - said in the transcript; the picker comes back
        await app.say(f"Delete failed: {exc}", "error")
        return
    await app.say("Session deleted")


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


@command("reload", "Reload keybindings, extensions, skills, prompts, themes and context files")
async def reload(app: PiApp, args: str) -> None:
    from pi_rpc.runtime.errors import RuntimeCommandError
    from pi_rpc.runtime.session_reload import reload_session

    try:
        warnings = await reload_session(app.session)
    except RuntimeCommandError as exc:
        await app.say(str(exc), "warning")
        return
    except Exception as exc:  # noqa: BLE001 - shown as upstream shows a failed reload
        await app.say(f"Reload failed: {exc}", "error")
        return
    app.install_keys()  # keybindings.json and the theme, as upstream's /reload
    for warning in warnings:
        await app.say(warning, "warning")
    await app.say("Reloaded keybindings, extensions, skills, prompts, themes, and context files")


def _searched_text(info: Mapping[str, object]) -> str:
    """Every message's text when the listing carries it (this process's catalog); the first
    message otherwise (a list read over the wire by ``pi attach``)."""
    return str(info.get("allMessagesText") or info.get("firstMessage") or "")

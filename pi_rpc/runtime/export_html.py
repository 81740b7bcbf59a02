"""``export_html``: a self-contained HTML page of a session (no external assets), readable in
any browser: header facts, then every message of the active branch with tool calls, tool
results, thinking and bash executions, and the raw entries embedded as JSON."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pi_rpc.ai.jsjson import fs_path, stringify, to_utf8
from pi_rpc.runtime.errors import ERR_EXPORT_IN_MEMORY, ERR_EXPORT_NOTHING, RuntimeCommandError
from pi_rpc.session.backends import backend_for, is_database_locator, resolve_session_ref

if TYPE_CHECKING:
    from pi_rpc.session.manager import SessionManager

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;background:#fafafa;color:#222}
h1{font-size:1.4em} .meta{color:#666;font-size:.9em}
.msg{border-radius:8px;padding:.6em 1em;margin:.8em 0;background:#fff;border:1px solid #ddd}
.role{font-weight:600;font-size:.8em;text-transform:uppercase;color:#555}
.user{border-left:4px solid #3b82f6} .assistant{border-left:4px solid #10b981}
.toolResult{border-left:4px solid #f59e0b} .system{border-left:4px solid #9ca3af}
.bashExecution{border-left:4px solid #8b5cf6} .error{color:#b91c1c}
pre{white-space:pre-wrap;word-wrap:break-word;background:#f3f4f6;padding:.5em;border-radius:4px}
.thinking{color:#6b7280;font-style:italic}
"""


def _text(value: str) -> str:
    return f"<pre>{html.escape(value)}</pre>"


def _render_block(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text":
        return _text(block.get("text", ""))
    if kind == "thinking":
        return f'<div class="thinking">{_text(block.get("thinking", ""))}</div>'
    if kind == "toolCall":
        try:
            args = orjson.dumps(block.get("arguments") or {}, option=orjson.OPT_INDENT_2).decode()
        except (TypeError, orjson.JSONEncodeError):  # lone surrogates, deep nesting
            args = stringify(block.get("arguments") or {}).decode()
        return f"<div>Tool call <code>{html.escape(str(block.get('name')))}</code>{_text(args)}</div>"
    if kind == "image":
        mime = html.escape(str(block.get("mimeType", "image/png")))
        return f'<img alt="image" src="data:{mime};base64,{html.escape(str(block.get("data", "")))}">'
    return _text(stringify(block).decode())


def _render_message(message: dict[str, Any]) -> str:
    role = str(message.get("role", "unknown"))
    parts: list[str] = []
    if role == "system":
        sections = message.get("sections") or {}
        parts.append(_text("\n\n".join(v for v in sections.values() if v) or str(message.get("content", ""))))
    elif role == "bashExecution":
        parts.append(f"<div><code>$ {html.escape(str(message.get('command', '')))}</code></div>")
        parts.append(_text(str(message.get("output", ""))))
    elif role in ("compactionSummary", "branchSummary"):
        parts.append(_text(str(message.get("summary", ""))))
    else:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(_text(content))
        else:
            parts.extend(_render_block(b) for b in content or [] if isinstance(b, dict))
    if message.get("errorMessage"):
        parts.append(f'<div class="error">{html.escape(str(message["errorMessage"]))}</div>')
    label = role if role != "toolResult" else f"tool result: {message.get('toolName', '')}"
    return f'<div class="msg {html.escape(role)}"><div class="role">{html.escape(label)}</div>{"".join(parts)}</div>'


def render_session_html(store: SessionManager) -> str:
    header = store.get_header()
    name = store.get_session_name() or f"Session {store.session_id}"
    # A hand-edited entry without a message object renders nothing (it is in the entries JSON).
    messages = [m for e in store.get_branch() if e.get("type") == "message" and isinstance(m := e.get("message"), dict)]
    entries_json = stringify(store.get_entries()).decode().replace("</", "<\\/")
    body = "\n".join(_render_message(m) for m in messages)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(name)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(name)}</h1>"
        f'<div class="meta">Session {html.escape(str(header.get("id")))} · '
        f"{html.escape(str(header.get('timestamp')))} · {html.escape(str(header.get('cwd')))}</div>"
        f"{body}"
        f'<script type="application/json" id="pi-session-entries">{entries_json}</script>'
        "</body></html>\n"
    )


def _stem(locator: str) -> str:
    """What the default page name is made of: the file's stem, or a database session's id."""
    if is_database_locator(locator):
        return locator.rpartition("#")[2]
    return Path(locator).stem


def export_session_file(input_path: str, output_path: str | None = None) -> str:
    """``pi --export <session.jsonl|sqlite:db#id> [out.html]``: the same page from a stored
    session (read-only)."""
    if is_database_locator(input_path):
        try:
            resolved = resolve_session_ref(input_path)
        except ValueError:
            raise RuntimeCommandError(f"File not found: {input_path}") from None
    else:
        resolved = os.path.abspath(os.path.expanduser(input_path))
    if not backend_for(resolved).exists(resolved):
        raise RuntimeCommandError(f"File not found: {resolved}")
    from pi_rpc.session.manager import SessionManager

    store = SessionManager.open(resolved, read_only=True)
    try:
        path = output_path or f"pi-session-{_stem(resolved)}.html"
        Path(path).expanduser().write_bytes(to_utf8(render_session_html(store)))
    finally:
        store.close()
    return path


def export_session_html(store: SessionManager, output_path: str | None) -> str:
    session_file = store.session_file
    if session_file is None:
        raise RuntimeCommandError(ERR_EXPORT_IN_MEMORY)
    if not backend_for(session_file).exists(session_file):
        raise RuntimeCommandError(ERR_EXPORT_NOTHING)
    path = fs_path(output_path or f"pi-session-{_stem(session_file)}.html")
    Path(path).expanduser().write_bytes(to_utf8(render_session_html(store)))
    return path

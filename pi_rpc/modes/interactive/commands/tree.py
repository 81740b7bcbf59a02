"""``/tree``: move to another point of this session's tree (same file), optionally summarising
the branch left behind, and label entries."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pi_rpc.modes.interactive.commands import command

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp


FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TAGS = {"no-tools": " [no-tools]", "user-only": " [user]", "labeled-only": " [labeled]", "all": " [all]"}
# upstream's app.tree.filter.* keys: each toggles its filter against the default one
FILTER_KEYS = {
    "ctrl+d": "default",
    "ctrl+t": "no-tools",
    "ctrl+u": "user-only",
    "ctrl+l": "labeled-only",
    "ctrl+a": "all",
    "ctrl+o": "cycle",
    "ctrl+shift+o": "cycle-back",
}
# bookkeeping entries only the "all" filter shows (upstream's "settings" entries)
BOOKKEEPING = {"label", "context_edit", "custom", "model_change", "thinking_level_change", "session_info"}


def next_filter(mode: str, key_action: str) -> str:
    """The filter after one of ``FILTER_KEYS``' actions, as upstream's tree selector."""
    if key_action in ("cycle", "cycle-back"):
        step = 1 if key_action == "cycle" else -1
        return FILTERS[(FILTERS.index(mode) + step) % len(FILTERS)]
    if key_action == "default":
        return "default"
    return "default" if mode == key_action else key_action


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _short_path(path: Any) -> str:
    home = os.path.expanduser("~")
    text = str(path or "")
    return "~" + text[len(home) :] if home and home != "/" and text.startswith(home) else text


def tool_call_line(name: str, args: dict[str, Any]) -> str:
    """A tool call as upstream's tree shows it: ``[bash: ls -la]``, ``[read: ~/f.py]``."""
    if name in ("read", "write", "edit"):
        return f"[{name}: {_short_path(args.get('path') or args.get('file_path'))}]"
    if name == "bash":
        command = _one_line(str(args.get("command") or ""))
        return f"[bash: {command[:50]}{'...' if len(command) > 50 else ''}]"
    if name == "grep":
        return f"[grep: /{args.get('pattern') or ''}/ in {_short_path(args.get('path') or '.')}]"
    if name == "find":
        return f"[find: {args.get('pattern') or ''} in {_short_path(args.get('path') or '.')}]"
    if name == "ls":
        return f"[ls: {_short_path(args.get('path') or '.')}]"
    raw = json.dumps(args, separators=(",", ":"))
    return f"[{name}: {raw[:40]}{'...' if len(raw) > 40 else ''}]"


def describe(entry: dict[str, Any], tool_calls: dict[str, tuple[str, dict[str, Any]]]) -> str:
    """An entry's line, as upstream's tree selector writes it."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message") or {}
        role = message.get("role")
        if role == "user":
            return f"user: {_one_line(_text(message.get('content')))}"
        if role == "assistant":
            text = _one_line(_text(message.get("content")))
            if text:
                return f"assistant: {text}"
            if message.get("stopReason") == "aborted":
                return "assistant: (aborted)"
            if message.get("errorMessage"):
                return f"assistant: {_one_line(message['errorMessage'])[:80]}"
            return "assistant: (no content)"
        if role == "toolResult":
            call = tool_calls.get(str(message.get("toolCallId")))
            return tool_call_line(*call) if call else f"[{message.get('toolName') or 'tool'}]"
        if role == "bashExecution":
            return f"[bash]: {_one_line(message.get('command') or '')}"
        return f"[{role}]"
    if kind == "custom_message":
        return f"[{entry.get('customType')}]: {_one_line(_text(entry.get('content')))}"
    if kind == "compaction":
        return f"[compaction: {round(int(entry.get('tokensBefore') or 0) / 1000)}k tokens]"
    if kind == "branch_summary":
        return f"[branch summary]: {_one_line(entry.get('summary') or '')}"
    if kind == "model_change":
        return f"[model: {entry.get('modelId')}]"
    if kind == "thinking_level_change":
        return f"[thinking: {entry.get('thinkingLevel')}]"
    if kind == "custom":
        return f"[custom: {entry.get('customType')}]"
    if kind == "context_edit":
        return f"[context {'omit' if entry.get('replacement') is None else 'replace'}: {entry.get('targetId')}]"
    if kind == "label":
        return f"[label: {entry.get('label') or '(cleared)'}]"
    if kind == "session_info":
        return f"[title: {entry.get('name') or 'empty'}]"
    return f"[{kind}]"


def shown(entry: dict[str, Any], labelled: bool, mode: str, leaf: str | None) -> bool:
    """Whether upstream's tree shows an entry under ``mode``: assistant turns with only tool
    calls are folded into their tool results (unless current, failed or aborted); bookkeeping
    entries only under "all"."""
    kind = entry.get("type")
    if kind == "usage":
        return False
    if kind == "message" and (entry.get("message") or {}).get("role") == "system":
        return False  # this port's stored system prompt: not a point of the conversation
    message = (entry.get("message") or {}) if kind == "message" else {}
    role = message.get("role")
    if role == "assistant" and entry.get("id") != leaf:
        failed = message.get("stopReason") not in (None, "stop", "toolUse")
        if not _text(message.get("content")).strip() and not failed:
            return False
    if mode == "user-only":
        return role == "user"
    if mode == "labeled-only":
        return labelled
    if mode == "all":
        return True
    if kind in BOOKKEEPING:
        return False
    return not (mode == "no-tools" and role == "toolResult")


def _tool_calls(nodes: list[dict[str, Any]]) -> dict[str, tuple[str, dict[str, Any]]]:
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    stack = list(nodes)
    while stack:
        node = stack.pop()
        stack.extend(node.get("children") or [])
        message = (node.get("entry") or {}).get("message") or {}
        if message.get("role") == "assistant" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    calls[str(block.get("id"))] = (str(block.get("name")), block.get("arguments") or {})
    return calls


def parents(nodes: list[dict[str, Any]]) -> dict[str, str | None]:
    """Entry id -> parent id, over the whole tree."""
    out: dict[str, str | None] = {}
    stack = list(nodes)
    while stack:
        node = stack.pop()
        entry = node.get("entry") or {}
        out[str(entry.get("id"))] = entry.get("parentId")
        stack.extend(node.get("children") or [])
    return out


def shown_leaf(nodes: list[dict[str, Any]], leaf: str | None, mode: str) -> str | None:
    """The current position as the list under ``mode`` can show it: the leaf, or its nearest
    shown ancestor (a label just set makes a hidden bookkeeping entry the leaf)."""
    ids = {entry_id for _, entry_id in flatten(nodes, leaf, mode)}
    up = parents(nodes)
    seen: set[str] = set()
    while leaf is not None and leaf not in ids and leaf not in seen:
        seen.add(leaf)
        leaf = up.get(leaf)
    return leaf


def flatten(
    nodes: list[dict[str, Any]],
    leaf: str | None,
    mode: str = "default",
    depth: int = 0,
    tool_calls: dict[str, tuple[str, dict[str, Any]]] | None = None,
) -> Iterator[tuple[str, str]]:
    """(label, entry id) in tree order under filter ``mode``; a branch point indents its
    children."""
    calls = _tool_calls(nodes) if tool_calls is None else tool_calls
    for node in nodes:
        entry = node.get("entry") or {}
        children = node.get("children") or []
        if shown(entry, bool(node.get("label")), mode, leaf):
            mark = "● " if entry.get("id") == leaf else "  "
            label = f" [{node['label']}]" if node.get("label") else ""
            yield f"{mark}{'  ' * depth}{describe(entry, calls)[:70]}{label}", str(entry.get("id"))
        yield from flatten(children, leaf, mode, depth + (1 if len(children) > 1 else 0), calls)


@command("tree", "Navigate the session tree (switch branches, label entries)")
async def tree(app: PiApp, args: str) -> None:
    from pi_rpc.modes.interactive.dialogs import PickerKey

    store = app.session.session
    leaf = store.get_leaf_id()
    nodes = store.get_tree()
    if not nodes:
        await app.say("The session has no entries yet", "warning")
        return
    setting = app.session.settings.get("treeFilterMode")
    mode = setting if setting in FILTERS else "default"
    cursor, typed = leaf, ""
    while True:
        here = shown_leaf(nodes, leaf, mode)
        options = list(flatten(nodes, here, mode))
        ids = [entry_id for _, entry_id in options]
        if cursor not in ids:
            cursor = here
        initial = ids.index(cursor) if cursor in ids else len(ids) - 1
        picked = await app.pick(
            f"Session tree (● current){FILTER_TAGS.get(mode, '')}",
            options,
            initial=max(0, initial),
            keys=FILTER_KEYS,
            filter=typed,
            hint="↑↓ move · Enter select · type to search · ^D/^T/^U/^L/^A filters · ^O cycle · Esc cancel",
        )
        if not isinstance(picked, PickerKey):
            break
        mode = next_filter(mode, picked.action)
        cursor, typed = picked.value or cursor, picked.filter
    entry_id = picked
    if entry_id is None:
        return
    action = await app.pick(
        "Entry",
        [
            ("Continue from here", "go"),
            ("Continue from here, summarise the branch left", "summarize"),
            ("Set label…", "label"),
        ],
    )
    if action is None:
        return
    if action == "label":
        text = await app.ask_text("Label (empty clears)", value=store.get_label(entry_id) or "")
        if text is not None:
            app.session.set_label(entry_id, text.strip() or None)
            await app.say(f"Label {'set' if text.strip() else 'cleared'}")
        return
    result = await app.session.navigate_tree(entry_id, summarize=action == "summarize")
    if result.get("cancelled"):
        await app.say("Navigation cancelled", "warning")
        return
    await app.reload_transcript()
    if result.get("editorText"):
        app.set_editor_text(str(result["editorText"]))
    await app.say("Moved in the session tree")

"""``/tree``: move to another point of this session's tree (same file), optionally summarising
the branch left behind, and label entries."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pi_rpc.modes.interactive.commands import command

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp


def _describe(entry: dict[str, Any]) -> str | None:
    """A line for an entry worth navigating to (messages, summaries); None to skip it."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message") or {}
        role = message.get("role")
        content = message.get("content")
        if isinstance(content, str):
            text = content
        else:
            text = " ".join(
                b.get("text", "") if b.get("type") == "text" else f"[{b.get('name', b.get('type'))}]"
                for b in content or []
                if isinstance(b, dict) and b.get("type") in ("text", "toolCall")
            )
        if role not in ("user", "assistant"):
            return None
        return f"{role}: {' '.join(text.split())}"
    if kind in ("compaction", "branch_summary"):
        return f"[{kind}]"
    return None


def flatten(nodes: list[dict[str, Any]], leaf: str | None, depth: int = 0) -> Iterator[tuple[str, str]]:
    """(label, entry id) in tree order; a branch point indents its children."""
    for node in nodes:
        entry = node.get("entry") or {}
        line = _describe(entry)
        children = node.get("children") or []
        if line is not None:
            mark = "● " if entry.get("id") == leaf else "  "
            label = f" [{node['label']}]" if node.get("label") else ""
            yield f"{mark}{'  ' * depth}{line[:70]}{label}", str(entry.get("id"))
        yield from flatten(children, leaf, depth + (1 if len(children) > 1 else 0))


@command("tree", "Navigate the session tree (switch branches, label entries)")
async def tree(app: PiApp, args: str) -> None:
    store = app.session.session
    leaf = store.get_leaf_id()
    options = list(flatten(store.get_tree(), leaf))
    if not options:
        await app.say("The session has no entries yet", "warning")
        return
    current = next((i for i, (_, entry_id) in enumerate(options) if entry_id == leaf), len(options) - 1)
    entry_id = await app.pick("Session tree (● current)", options, initial=current)
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

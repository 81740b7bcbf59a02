"""System messages as a transcript (upstream pi-ai ``utils/transcript``): a session's prompt and
tool set are ``system`` messages, the first one full and later ones patches (``sections`` by
name, ``null`` removes; ``toolsAdded``/``toolsRemoved``). Replaying them in order gives the
prompt and tools the model currently has.

Also the one home of "the text of a content list" (a message's ``content``: a string, or blocks
of which the ``text`` ones count), with one name per separator, because upstream joins with a
different one in different places and the bytes must stay as upstream's:

- ``content_text``: blocks joined by ``"\n"`` (tool results sent to providers, system prompts,
  summaries, fork texts);
- ``content_text_concat``: joined by ``""`` (a user message's or a final answer's text);
- ``content_text_spaced``: joined by ``" "`` (upstream ``extractTextContent``: session lists).

All three take anything: a non-list gives ``""``; a text block without ``text`` (or with
``null``) counts as empty; blocks that are not objects, and texts that are not strings, are left
out.

The readers take any message mapping: a transcript may come from a session file, an
extension or the agent, and they read it key by key.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from pi_rpc.ai.types import SystemMessage


def _joined_text(content: object, separator: str) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return separator.join(_texts(content))


def _texts(blocks: list[object]) -> Iterator[str]:
    for b in blocks:
        if isinstance(b, dict) and b.get("type") == "text":
            text = b.get("text")
            if isinstance(text, str):
                yield text
            elif text is None:  # missing or null: an empty block
                yield ""


def content_text(content: object) -> str:
    """Text of a string or a content-block list, text blocks joined by ``"\n"``."""
    return _joined_text(content, "\n")


def content_text_concat(content: object) -> str:
    """Text of a string or a content-block list, text blocks concatenated."""
    return _joined_text(content, "")


def content_text_spaced(content: object) -> str:
    """Text of a string or a content-block list, text blocks joined by ``" "``."""
    return _joined_text(content, " ")


def get_current_tools(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The tools declared after replaying every system message in order."""
    tools: dict[object, dict[str, object]] = {}  # keyed by the declared name (a file may give none)
    for message in messages:
        if message.get("role") != "system":
            continue
        for tool in message.get("toolsRemoved") or []:
            tools.pop(tool.get("name"), None)
        for tool in message.get("toolsAdded") or []:
            # Like JS Map.set: a re-declared tool keeps its original position.
            tools[tool.get("name")] = tool
    return list(tools.values())


def get_current_system_message(messages: Sequence[Mapping[str, Any]]) -> SystemMessage | None:
    """Every system message folded into one: contents joined by a blank line, sections patched
    by name (``None`` removes), tools replayed; ``None`` when there is none."""
    content: list[str] = []
    sections: dict[str, object] = {}
    timestamp: object = None
    for message in messages:
        if message.get("role") != "system":
            continue
        if timestamp is None:
            timestamp = message.get("timestamp")
        text = content_text(message.get("content"))
        if text:
            content.append(text)
        for name, value in (message.get("sections") or {}).items():
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
    tools = get_current_tools(messages)
    if timestamp is None and not tools:
        return None
    folded: dict[str, object] = {"role": "system", "content": "\n\n".join(content)}
    if sections:
        folded["sections"] = sections
    if tools:
        folded["toolsAdded"] = tools
    folded["timestamp"] = timestamp if timestamp is not None else 0
    return cast("SystemMessage", folded)  # built key by key in upstream's order

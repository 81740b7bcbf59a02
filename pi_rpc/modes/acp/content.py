"""ACP content in both directions: a ``session/prompt``'s blocks become pi's prompt text and
images; a stored conversation becomes the ``session/update`` notifications that replay it
(``session/load``).

Prompt blocks: ``text`` as is; ``image`` (or a block with no ``type`` but ``data`` and
``mimeType``) as an image attachment; ``resource_link`` as a
``[@name](uri)`` mention in the text (the agent reads the file with its tools); an embedded
text ``resource`` as a ``<context uri="…">`` block appended to the text; an embedded image blob
as an image; other blobs and ``audio`` as a short note (not advertised, so clients do not send
them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pi_rpc.modes.acp.jsonrpc import invalid_params
from pi_rpc.modes.acp.tool_calls import FILE_MUTATIONS, result_blocks, tool_call_fields


def prompt_from_blocks(blocks: object) -> tuple[str, list[dict[str, object]]]:
    if not isinstance(blocks, list):
        raise invalid_params("prompt must be an array of content blocks")
    texts: list[str] = []
    context: list[str] = []
    images: list[dict[str, object]] = []
    for index, block in enumerate(blocks):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif (
            (kind == "image" or (isinstance(block, dict) and "type" not in block))
            and isinstance(block.get("data"), str)
            and isinstance(block.get("mimeType"), str)
        ):
            # A block without ``type`` but with ``data`` and ``mimeType`` is an image, as the RPC
            # ``images`` entries are (upstream reads only those two fields of an attachment).
            images.append({"type": "image", "data": block["data"], "mimeType": block["mimeType"]})
        elif kind == "resource_link" and isinstance(block.get("uri"), str):
            name = block.get("name") if isinstance(block.get("name"), str) else block["uri"]
            texts.append(f"[@{name}]({block['uri']})")
        elif kind == "resource" and isinstance(block.get("resource"), dict):
            resource = block["resource"]
            uri = str(resource.get("uri", ""))
            if isinstance(resource.get("text"), str):
                context.append(f'<context uri="{uri}">\n{resource["text"]}\n</context>')
            elif isinstance(resource.get("blob"), str) and str(resource.get("mimeType", "")).startswith("image/"):
                images.append({"type": "image", "data": resource["blob"], "mimeType": resource["mimeType"]})
            else:
                texts.append(f"[binary resource {uri} not included]")
        elif kind == "audio":
            texts.append("[audio not supported]")
        else:
            raise invalid_params(f"prompt[{index}]: not a supported content block")
    text = "\n".join(texts)
    if context:
        text = "\n\n".join([text, *context]) if text else "\n\n".join(context)
    return text, images


def _text_chunks(update: str, content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"sessionUpdate": update, "content": {"type": "text", "text": content}}] if content else []
    out: list[dict[str, object]] = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and block.get("text"):
            out.append({"sessionUpdate": update, "content": {"type": "text", "text": block["text"]}})
        elif block.get("type") == "image" and block.get("data"):
            out.append(
                {
                    "sessionUpdate": update,
                    "content": {"type": "image", "data": block["data"], "mimeType": block.get("mimeType", "image/png")},
                }
            )
    return out


def replay_updates(messages: Sequence[Mapping[str, Any]], cwd: str) -> list[dict[str, Any]]:
    """The ``session/update`` payloads that show a stored conversation, oldest first."""
    updates: list[dict[str, object]] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            updates.extend(_text_chunks("user_message_chunk", message.get("content")))
        elif role == "assistant":
            for block in message.get("content") or []:
                kind = block.get("type")
                if kind == "thinking" and block.get("thinking"):
                    updates.append(
                        {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": block["thinking"]}}
                    )
                elif kind == "text" and block.get("text"):
                    updates.append(
                        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": block["text"]}}
                    )
                elif kind == "toolCall":
                    args = block.get("arguments") if isinstance(block.get("arguments"), dict) else {}
                    fields = tool_call_fields(str(block.get("name", "")), args, cwd)
                    updates.append(
                        {
                            "sessionUpdate": "tool_call",
                            "toolCallId": str(block.get("id", "")),
                            **fields,
                            "status": "in_progress",
                        }
                    )
        elif role == "toolResult":
            update: dict[str, object] = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": str(message.get("toolCallId", "")),
                "status": "failed" if message.get("isError") else "completed",
            }
            if message.get("toolName") not in FILE_MUTATIONS or message.get("isError"):
                update["content"] = result_blocks(message)
            updates.append(update)
        elif role == "bashExecution":
            call_id = f"bash-{message.get('timestamp', len(updates))}"
            command = str(message.get("command", ""))
            fields = tool_call_fields("bash", {"command": command}, cwd)
            updates.append(
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": call_id,
                    **fields,
                    "status": "completed",
                    "content": [
                        {"type": "content", "content": {"type": "text", "text": str(message.get("output", ""))}}
                    ],
                }
            )
        elif role in ("compactionSummary", "branchSummary") and message.get("summary"):
            label = "Earlier conversation (compacted)" if role == "compactionSummary" else "Summary of another branch"
            updates.append(
                {
                    "sessionUpdate": "agent_thought_chunk",
                    "content": {"type": "text", "text": f"{label}:\n{message['summary']}"},
                }
            )
        elif role == "custom" and message.get("display") and message.get("content"):
            updates.extend(_text_chunks("agent_message_chunk", message.get("content")))
    return updates

"""Turn agent messages into the plain-text transcript a summary request carries.

The conversation is sent as labelled text inside one user message rather than as chat
turns, so the summarizer reads it as material instead of continuing it.
"""

from __future__ import annotations

from typing import Any

from pi_rpc.compaction.tokens import js_json

Message = dict[str, Any]

# Fixed texts upstream puts in front of summaries when they reach a model.
COMPACTION_SUMMARY_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"

TOOL_RESULT_MAX_CHARS = 2000


def bash_execution_to_text(message: Message) -> str:
    text = f"Ran `{message.get('command', '')}`\n"
    output = message.get("output") or ""
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(exit_code, int) and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def _user_text(text: str, timestamp: Any) -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": timestamp or 0}


def convert_to_llm(messages: list[Message]) -> list[Message]:
    """Coding-agent roles to LLM roles (user/assistant/toolResult); system messages and
    excluded bash runs are dropped."""
    out: list[Message] = []
    for msg in messages:
        role = msg.get("role")
        if role in ("user", "assistant", "toolResult"):
            out.append(msg)
        elif role == "bashExecution":
            if not msg.get("excludeFromContext"):
                out.append(_user_text(bash_execution_to_text(msg), msg.get("timestamp")))
        elif role == "custom":
            content = msg.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            out.append({"role": "user", "content": content or [], "timestamp": msg.get("timestamp") or 0})
        elif role == "compactionSummary":
            text = COMPACTION_SUMMARY_PREFIX + (msg.get("summary") or "") + COMPACTION_SUMMARY_SUFFIX
            out.append(_user_text(text, msg.get("timestamp")))
        elif role == "branchSummary":
            text = BRANCH_SUMMARY_PREFIX + (msg.get("summary") or "") + BRANCH_SUMMARY_SUFFIX
            out.append(_user_text(text, msg.get("timestamp")))
    return out


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[... {len(text) - limit} more characters truncated]"


def serialize_conversation(messages: list[Message]) -> str:
    """LLM-form messages as ``[User]: …``, ``[Assistant thinking]: …``, ``[Assistant]: …``,
    ``[Assistant tool calls]: name(k=<json>, …); …`` and ``[Tool result]: …`` blocks
    separated by blank lines. Tool results are cut at 2000 characters; images are skipped."""
    parts: list[str] = []
    for msg in messages:
        role = msg.get("role")
        if role == "user":
            text = content_text(msg.get("content"))
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            blocks = [b for b in msg.get("content") or [] if isinstance(b, dict)]
            thinking = [b.get("thinking") or "" for b in blocks if b.get("type") == "thinking"]
            calls = []
            for b in blocks:
                if b.get("type") == "toolCall":
                    raw_args = b.get("arguments")
                    args = raw_args if isinstance(raw_args, dict) else {}
                    rendered = ", ".join(f"{k}={js_json(v)}" for k, v in args.items())
                    calls.append(f"{b.get('name', '')}({rendered})")
            if thinking:
                parts.append("[Assistant thinking]: " + "\n".join(thinking))
            if any(b.get("type") == "text" for b in blocks):
                parts.append("[Assistant]: " + content_text(blocks))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif role == "toolResult":
            text = content_text(msg.get("content"))
            if text:
                parts.append("[Tool result]: " + _truncate(text, TOOL_RESULT_MAX_CHARS))
    return "\n\n".join(parts)

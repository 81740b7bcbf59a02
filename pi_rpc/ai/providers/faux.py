"""``faux``: the offline provider (api ``faux``, provider ``faux``). A real provider, not a test
double: deterministic, streams realistic deltas through the same event machinery as the HTTP
providers, reports usage, honours aborts mid-stream, and serves a SCRIPT of turns.

Script: a JSON array of turns, a JSON object ``{"turns": [...]}``, or a JSONL file (one turn per
line). Where it comes from, first match wins:
  1. ``set_faux_script(path)`` (the CLI's ``--faux-script PATH``),
  2. the environment variable ``PI_FAUX_SCRIPT`` (setting it also opts in to the provider),
  3. models.json ``{"providers": {"faux": {"script": "<path>"}}}`` (the model registry calls
     ``set_faux_config_script``).
The file is re-read when the chosen path changes; ``reset_faux()`` rewinds it.

Turn format (every key optional):
  {"text": "answer",                    # a text block
   "thinking": "reasoning",             # a thinking block (streamed before the text)
   "toolCalls": [{"name": "bash", "arguments": {"command": "ls"}, "id": "call_1"}],
   "error": {"status": 503, "body": "overloaded"},  # HTTP-style failure: errorMessage
                                        #   "<status> <body>" (a body object is JSON-encoded);
                                        #   with text/thinking/toolCalls it fails mid-stream
   "stopReason": "length",              # end with stopReason "length" instead of stop/toolUse
   "delayMs": 50,                       # sleep before every delta (abortable)
   "chunkChars": 12,                    # characters per delta (default 12)
   "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0},  # override estimates
   "match": "substring"}                # only answer a request whose last user/tool-result
                                        #   text contains this (checked before the queue)
Turns without ``match`` are consumed one per request in order. When the script is exhausted or
absent, faux answers on its own: ``You said: <last user text>``, or a short summary of the last
tool result. The provider is opt-in (see ``ModelRegistry``): ``PI_FAUX_SCRIPT=/dev/null`` turns
it on with no scripted turns.

Usage is estimated like upstream's faux provider: ceil(characters / 4) of the prompt
(``role:text`` per message, joined by blank lines) and of the output.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import anyio

from pi_rpc.ai.cost import calculate_cost
from pi_rpc.ai.errors import AbortedError, js_json
from pi_rpc.ai.output import new_output
from pi_rpc.ai.partial_json import ToolCallArgumentsStream
from pi_rpc.ai.providers.common import append_text, failure_event, reasoning_level
from pi_rpc.ai.providers.faux_script import (  # re-exported (``X as X``): the provider's API
    API as API,
)
from pi_rpc.ai.providers.faux_script import (
    ENV_VAR as ENV_VAR,
)
from pi_rpc.ai.providers.faux_script import (
    FAUX_MODELS as FAUX_MODELS,
)
from pi_rpc.ai.providers.faux_script import (
    PROVIDER as PROVIDER,
)
from pi_rpc.ai.providers.faux_script import (
    current_faux_script as current_faux_script,
)
from pi_rpc.ai.providers.faux_script import (
    load_script as load_script,
)
from pi_rpc.ai.providers.faux_script import (
    next_turn as next_turn,
)
from pi_rpc.ai.providers.faux_script import (
    request_count as request_count,
)
from pi_rpc.ai.providers.faux_script import (
    reset_faux as reset_faux,
)
from pi_rpc.ai.providers.faux_script import (
    set_faux_config_script as set_faux_config_script,
)
from pi_rpc.ai.providers.faux_script import (
    set_faux_script as set_faux_script,
)
from pi_rpc.ai.transform import collapse_context
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions

DEFAULT_CHUNK_CHARS = 12


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for b in content or []:
        if b.get("type") == "text":
            parts.append(b.get("text", ""))
        elif b.get("type") == "image":
            parts.append(f"[image:{b.get('mimeType')}:{len(b.get('data', ''))}]")
    return "\n".join(parts)


def _message_text(msg: dict[str, Any]) -> str:
    role = msg.get("role")
    if role == "assistant":
        out = []
        for b in msg.get("content") or []:
            if b.get("type") == "text":
                out.append(b.get("text", ""))
            elif b.get("type") == "thinking":
                out.append(b.get("thinking", ""))
            elif b.get("type") == "toolCall":
                out.append(f"{b.get('name')}:{js_json(b.get('arguments', {}))}")
        return "\n".join(out)
    if role == "toolResult":
        return "\n".join([msg.get("toolName", ""), *[_content_text([b]) for b in msg.get("content") or []]])
    return _content_text(msg.get("content", ""))


def _auto_turn(messages: list[dict[str, Any]], thinking: bool) -> dict[str, Any]:
    last = messages[-1] if messages else None
    if last is None:
        text = "Hello! I am the faux offline model. Configure a provider API key to talk to a real model."
        return {"text": text}
    if last.get("role") == "toolResult":
        body = _content_text(last.get("content") or []).strip()
        status = "failed" if last.get("isError") else "returned"
        if len(body) > 200:
            body = body[:200] + "..."
        text = f"The {last.get('toolName', 'tool')} tool {status}" + (f": {body}" if body else " no output.")
    else:
        said = _content_text(last.get("content", "")).strip()
        text = f"You said: {said}" if said else "You said nothing."
    turn: dict[str, object] = {"text": text}
    if thinking:
        turn["thinking"] = "The user wants a reply; as the offline faux model I answer with an echo."
    return turn


def _chunks(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


async def _pause(delay_ms: float, options: StreamOptions) -> None:
    if delay_ms <= 0:
        if options.signal is not None and options.signal.aborted:
            raise AbortedError()
        return
    if options.signal is None:
        await anyio.sleep(delay_ms / 1000)
        return
    with options.signal.scope():
        await anyio.sleep(delay_ms / 1000)
    if options.signal.aborted:
        raise AbortedError()


def _error_message(error: dict[str, object]) -> str:
    status = error.get("status")
    body = error.get("body", "")
    if not isinstance(body, str):
        body = js_json(body)
    if status:
        return f"{status} {body}" if body else f"{status} status code (no body)"
    return body or "faux error"


async def stream_faux(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    output = new_output(model)
    blocks: list[dict[str, object]] = output["content"]
    try:
        system_prompt, messages, _tools = collapse_context(context)
        last_text = _message_text(messages[-1]) if messages else ""
        turn = next_turn(last_text)
        if turn is None:
            turn = _auto_turn(messages, bool(model.get("reasoning")) and reasoning_level(model, options) is not None)
        delay = float(turn.get("delayMs", 0) or 0)
        size = int(turn.get("chunkChars", DEFAULT_CHUNK_CHARS) or DEFAULT_CHUNK_CHARS)
        has_content = any(k in turn for k in ("text", "thinking", "toolCalls"))
        if "error" in turn and not has_content:
            await _pause(delay, options)
            raise RuntimeError(_error_message(turn["error"]))

        n = request_count()
        output["responseId"] = f"faux-{n}"
        await _pause(delay, options)
        yield {"type": "start", "partial": output}

        if turn.get("thinking"):
            block: dict[str, object] = {"type": "thinking", "thinking": ""}
            blocks.append(block)
            ci = len(blocks) - 1
            yield {"type": "thinking_start", "contentIndex": ci, "partial": output}
            for piece in _chunks(str(turn["thinking"]), size):
                await _pause(delay, options)
                append_text(block, "thinking", piece)
                yield {"type": "thinking_delta", "contentIndex": ci, "delta": piece, "partial": output}
            yield {"type": "thinking_end", "contentIndex": ci, "content": str(block["thinking"]), "partial": output}
        if "text" in turn:
            block = {"type": "text", "text": ""}
            blocks.append(block)
            ci = len(blocks) - 1
            yield {"type": "text_start", "contentIndex": ci, "partial": output}
            for piece in _chunks(str(turn["text"]), size):
                await _pause(delay, options)
                append_text(block, "text", piece)
                yield {"type": "text_delta", "contentIndex": ci, "delta": piece, "partial": output}
            yield {"type": "text_end", "contentIndex": ci, "content": str(block["text"]), "partial": output}
        for k, call in enumerate(turn.get("toolCalls") or []):
            args = call.get("arguments", {})
            args_text = args if isinstance(args, str) else js_json(args)
            call_id = call.get("id") or f"call_faux_{n}_{k}"
            block = {"type": "toolCall", "id": call_id, "name": call["name"], "arguments": {}}
            blocks.append(block)
            ci = len(blocks) - 1
            parser = ToolCallArgumentsStream()
            yield {"type": "toolcall_start", "contentIndex": ci, "partial": output}
            for piece in _chunks(args_text, size):
                await _pause(delay, options)
                block["arguments"] = parser.append(piece)
                yield {"type": "toolcall_delta", "contentIndex": ci, "delta": piece, "partial": output}
            final = parser.finish()
            block["arguments"] = final["arguments"]
            if "argumentsError" in final:
                block["argumentsError"] = final["argumentsError"]
            yield {"type": "toolcall_end", "contentIndex": ci, "toolCall": block, "partial": output}

        output["usage"] = _usage(model, system_prompt, messages, blocks, turn.get("usage"))
        if "error" in turn:
            raise RuntimeError(_error_message(turn["error"]))
        if turn.get("stopReason") in ("length", "stop", "toolUse"):
            output["stopReason"] = turn["stopReason"]
        else:
            output["stopReason"] = "toolUse" if any(b["type"] == "toolCall" for b in blocks) else "stop"
        yield {"type": "done", "reason": output["stopReason"], "message": output}
    except Exception as exc:  # noqa: BLE001 - any failure ends the stream as an error event (the provider contract)
        yield failure_event(output, exc, options)


def _usage(
    model: Model, system_prompt: str, messages: list[dict[str, Any]], blocks: list[dict[str, Any]], override: Any
) -> dict[str, object]:
    prompt = ([f"system:{system_prompt}"] if system_prompt else []) + [
        f"{m.get('role')}:{_message_text(m)}" for m in messages
    ]
    prompt_chars = sum(len(p) for p in prompt) + 2 * max(0, len(prompt) - 1)
    out_text = _message_text({"role": "assistant", "content": blocks})
    thinking_chars = sum(len(b.get("thinking", "")) for b in blocks if b["type"] == "thinking")
    usage: dict[str, Any] = {
        "input": math.ceil(prompt_chars / 4),
        "output": math.ceil(len(out_text) / 4),
        "cacheRead": 0,
        "cacheWrite": 0,
        "reasoning": math.ceil(thinking_chars / 4),
        "totalTokens": 0,
        "cost": {},
    }
    if isinstance(override, dict):
        for key in ("input", "output", "cacheRead", "cacheWrite", "reasoning"):
            if isinstance(override.get(key), int):
                usage[key] = override[key]
    usage["totalTokens"] = usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
    if isinstance(override, dict) and isinstance(override.get("totalTokens"), int):
        usage["totalTokens"] = override["totalTokens"]
    calculate_cost(model, usage)
    return usage

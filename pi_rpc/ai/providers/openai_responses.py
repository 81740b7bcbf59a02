"""``openai-responses``: OpenAI Responses API over httpx, following pi-ai 1.6's stream mapping:
output items become blocks by ``output_index`` (reasoning -> thinking, message -> text, function
call -> toolCall with id ``"<call_id>|<item id>"``); a reasoning item's JSON becomes the thinking
signature (replayed verbatim, encrypted content included); summary parts are separated by
``"\\n\\n"``; ``response.completed``/``incomplete`` set usage and stop reason (toolUse when a tool
call is present); ``response.failed`` fails with ``"<code>: <message>"``; an ``event: error``
fails with the NESTED ``error.message`` (what the OpenAI SDK raises), so overflow and quota
detection still work. HTTP errors read ``"OpenAI API error (<status>): <body>"``.
Not implemented: custom/grammar tools, tool search, service-tier pricing, Codex/Copilot specifics.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson

from pi_rpc.ai.cost import calculate_cost
from pi_rpc.ai.errors import ProviderStreamError, format_openai_stream_error, format_responses_error, js_json
from pi_rpc.ai.http import iter_sse, open_stream
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.output import new_output
from pi_rpc.ai.partial_json import ToolCallArgumentsStream
from pi_rpc.ai.providers.common import (
    append_text,
    failure_event,
    merged_headers,
    reasoning_level,
    request_max_tokens,
    require_api_key,
    short_hash,
)
from pi_rpc.ai.transcript import content_text
from pi_rpc.ai.transform import collapse_context, transform_messages
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions

if TYPE_CHECKING:
    import httpx

API = "openai-responses"
MIN_OUTPUT_TOKENS = 16


def _normalize_id(tool_id: str, model: Model, source: dict[str, object]) -> str:
    # A call made by another model keeps its call_id but loses the fc_ item id (reasoning pairing).
    call_id, sep, item_id = tool_id.partition("|")
    if not sep:
        return tool_id
    return f"{call_id}|{item_id}" if source.get("model") == model["id"] else call_id


def _msg_id(text_signature: str | None, fallback: str) -> tuple[str, str | None]:
    """(item id, phase) of a replayed text block: the id its signature recorded (a v1 JSON
    signature, or a legacy plain one), else ``fallback``; ids over 64 characters shortened."""
    msg_id, phase = fallback, None
    if text_signature:
        msg_id = text_signature
        if text_signature.startswith("{"):
            try:
                parsed = js_loads(text_signature)
            except orjson.JSONDecodeError:
                parsed = None
            if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
                msg_id = parsed["id"]
                if parsed.get("phase") in ("commentary", "final_answer"):
                    phase = parsed["phase"]
        if not msg_id:
            msg_id = fallback
    if len(msg_id) > 64:
        msg_id = "msg_" + short_hash(msg_id)
    return msg_id, phase


def convert_input(model: Model, system_prompt: str, messages: list[dict[str, object]]) -> list[dict[str, object]]:
    items: list[dict[str, object]] = []
    if system_prompt:
        items.append({"role": "developer" if model.get("reasoning") else "system", "content": system_prompt})
    for n, msg in enumerate(transform_messages(messages, model, _normalize_id)):
        role = msg.get("role")
        if role == "user":
            content = msg.get("content")
            if isinstance(content, str):
                parts = [{"type": "input_text", "text": content}]
            else:
                parts = []
                for b in content or []:
                    if b.get("type") == "text":
                        parts.append({"type": "input_text", "text": b.get("text", "")})
                    elif b.get("type") == "image":
                        parts.append(
                            {
                                "type": "input_image",
                                "detail": "auto",
                                "image_url": f"data:{b['mimeType']};base64,{b['data']}",
                            }
                        )
            if parts:
                items.append({"role": "user", "content": parts})
        elif role == "assistant":
            text_index = 0
            for b in msg.get("content") or []:
                t = b.get("type")
                if t == "thinking" and b.get("thinkingSignature", "").startswith("{"):
                    try:
                        items.append(js_loads(b["thinkingSignature"]))
                    except orjson.JSONDecodeError:
                        pass
                elif t == "text" and b.get("text"):
                    msg_id, phase = _msg_id(
                        b.get("textSignature"), f"msg_pi_{n}" if text_index == 0 else f"msg_pi_{n}_{text_index}"
                    )
                    text_index += 1
                    message_item: dict[str, object] = {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": b["text"], "annotations": []}],
                        "status": "completed",
                        "id": msg_id,
                    }
                    if phase:
                        message_item["phase"] = phase
                    items.append(message_item)
                elif t == "toolCall":
                    call_id, sep, item_id = b["id"].partition("|")
                    item: dict[str, object] = {"type": "function_call"}
                    if sep and item_id:
                        item["id"] = item_id
                    item.update({"call_id": call_id, "name": b["name"], "arguments": js_json(b.get("arguments", {}))})
                    items.append(item)
        elif role == "toolResult":
            content = msg.get("content") or []
            text = content_text(content)
            images = [b for b in content if b.get("type") == "image"]
            output: object = (
                text
                if not images
                else [
                    *([{"type": "input_text", "text": text}] if text else []),
                    *[
                        {
                            "type": "input_image",
                            "detail": "auto",
                            "image_url": f"data:{b['mimeType']};base64,{b['data']}",
                        }
                        for b in images
                    ],
                ]
            )
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": msg["toolCallId"].partition("|")[0],
                    "output": output or "(no tool output)",
                }
            )
    return items


def build_params(model: Model, context: Context, options: StreamOptions) -> dict[str, object]:
    system_prompt, messages, tools = collapse_context(context)
    params: dict[str, object] = {
        "model": model["id"],
        "input": convert_input(model, system_prompt, messages),
        "stream": True,
    }
    if options.cache_retention != "none" and options.session_id:
        params["prompt_cache_key"] = options.session_id[:64]
    if options.cache_retention == "long" and "api.openai.com" in model.get("baseUrl", ""):
        params["prompt_cache_retention"] = "24h"
    params["store"] = False
    max_tokens = request_max_tokens(model, context, system_prompt, messages, options)
    if max_tokens:
        params["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if tools:
        params["tools"] = [
            {
                "type": "function",
                "name": t["name"],
                "description": t.get("description", ""),
                "parameters": t.get("parameters", {}),
                "strict": False,
            }
            for t in tools
        ]
    if options.extra.get("toolChoice") is not None:
        params["tool_choice"] = options.extra["toolChoice"]
    level = reasoning_level(model, options)
    level_map = model.get("thinkingLevelMap") or {}
    if model.get("reasoning"):
        if level:
            params["reasoning"] = {"effort": level_map.get(level) or level, "summary": "auto"}
            params["include"] = ["reasoning.encrypted_content"]
        elif level_map.get("off", "") is not None:
            params["reasoning"] = {"effort": level_map.get("off") or "none"}
    return params


def _map_status(status: str | None, reason: str | None) -> tuple[str, str | None]:
    if status in (None, "", "completed", "in_progress", "queued"):
        return "stop", None
    if status == "incomplete":
        if reason == "max_output_tokens":
            return "length", None
        return "error", f"Response incomplete: {reason}" if reason else "Response incomplete without a provider reason"
    if status in ("failed", "cancelled"):
        return "error", None
    raise ProviderStreamError(f"Unhandled stop reason: {status}")


@dataclass(frozen=True)
class ResponsesRequest:
    """Where and how one Responses request goes: what differs between OpenAI's endpoint and the
    ones that speak the same API (Azure's), the stream handling being shared."""

    url: str
    headers: dict[str, str]
    params: dict[str, object]
    format_error: Callable[[int, str], str]
    # The text of a connection failure as this endpoint's client words it (None: ours).
    connection_error: Callable[[ConnectionError], str] | None = None


def _openai_request(model: Model, context: Context, options: StreamOptions) -> ResponsesRequest:
    api_key = require_api_key(model, options, model.get("headers"))
    headers = {"accept": "application/json", "content-type": "application/json", "user-agent": "pi-rpc"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    return ResponsesRequest(
        url=model.get("baseUrl", "").rstrip("/") + "/responses",
        headers=merged_headers(model, headers, options),
        params=build_params(model, context, options),
        format_error=partial(_format_http, provider=model["provider"]),
    )


async def stream_openai_responses(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    async for event in stream_responses_request(model, options, lambda: _openai_request(model, context, options)):
        yield event


async def stream_responses_request(
    model: Model, options: StreamOptions, prepare: Callable[[], ResponsesRequest]
) -> AsyncIterator[AssistantMessageEvent]:
    """Send the request ``prepare()`` builds (its failure, like any other, ends the stream as an
    ``error`` event) and map the Responses event stream to pi events."""
    output = new_output(model)
    request: ResponsesRequest | None = None
    try:
        request = prepare()
        async with open_stream(options, request.url, request.headers, request.params, request.format_error) as response:
            yield {"type": "start", "partial": output}
            async for event in map_responses_events(sse_events(response, model, options), output, model):
                yield event
        yield finish_output(output, options)
    except Exception as exc:  # noqa: BLE001 - any failure ends the stream as an error event (the provider contract)
        if isinstance(exc, ConnectionError) and request is not None and request.connection_error is not None:
            exc = ConnectionError(request.connection_error(exc))
        yield failure_event(output, exc, options)


def finish_output(output: dict[str, object], options: StreamOptions) -> AssistantMessageEvent:
    """The ``done`` event of a stream that ran to its end (raises when it was aborted or its
    terminal event said it failed: the caller turns that into the ``error`` event)."""
    if options.signal is not None and options.signal.aborted:
        raise RuntimeError("Request was aborted")
    if output["stopReason"] in ("error", "aborted"):
        raise ProviderStreamError(output.get("errorMessage") or "An unknown error occurred")
    return {"type": "done", "reason": output["stopReason"], "message": output}


async def sse_events(
    response: httpx.Response, model: Model, options: StreamOptions
) -> AsyncIterator[tuple[str | None, dict[str, object]]]:
    """``(SSE event name, parsed data)`` of a Responses stream up to ``[DONE]``; each parsed
    event is shown to ``options.on_stream_event`` first."""
    async for sse in iter_sse(response, options.signal):
        if sse.data.startswith("[DONE]"):
            break
        try:
            event = js_loads(sse.data)
        except orjson.JSONDecodeError as exc:
            raise ProviderStreamError(f"Could not parse stream event as JSON: {sse.data[:200]}") from exc
        if options.on_stream_event is not None:
            await options.on_stream_event(event, model)
        if isinstance(event, dict):
            yield sse.event, event


def openai_tier_multiplier(tier: str | None) -> float:
    """What a response's ``service_tier`` does to its cost (OpenAI's prices)."""
    return {"flex": 0.5, "priority": 2}.get(tier or "", 1)


async def map_responses_events(
    events: AsyncIterator[tuple[str | None, dict[str, object]]],
    output: dict[str, object],
    model: Model,
    tier_multiplier: Callable[[str | None], float] = openai_tier_multiplier,
) -> AsyncIterator[AssistantMessageEvent]:
    """pi events for a Responses event stream (upstream ``processResponsesStream``), whatever
    carries it (an SSE body, a WebSocket): blocks are added to ``output`` as they stream, and
    its usage and stop reason set by the terminal event. Raises on an error event, a failed
    response, or a stream that ends without a terminal event."""
    state = _ResponsesStream(output, model, tier_multiplier)
    handlers = state.handlers
    async for name, event in events:
        etype = event.get("type") or name
        if name == "error" or etype == "error":
            raise ProviderStreamError(format_openai_stream_error(event))
        handle = handlers.get(etype) if isinstance(etype, str) else None
        if handle is not None:
            for made in handle(event, event.get("output_index")):
                yield made
    if not state.terminal:
        raise ProviderStreamError("OpenAI Responses stream ended before a terminal response event")
    if output["stopReason"] == "toolUse" and state.unfinished:
        tc = state.unfinished[0]
        raise ProviderStreamError(
            f"OpenAI Responses stream completed with an unfinished tool call: {tc['name']} ({tc['id']})"
        )


_Events = list[AssistantMessageEvent]


class _ResponsesStream:
    """The state of one Responses stream (the open output items by ``output_index``, the tool
    calls not yet finished) and a handler per event type; each returns the events it makes.
    ``idx`` is the server's ``output_index`` (an int, or absent)."""

    def __init__(self, output: dict[str, Any], model: Model, tier_multiplier: Callable[[str | None], float]) -> None:
        self.output = output
        self.model = model
        self.tier_multiplier = tier_multiplier
        self.content: list[dict[str, object]] = output["content"]
        self.slots: dict[Any, dict[str, Any]] = {}
        self.unfinished: list[dict[str, object]] = []
        self.terminal = False
        self.handlers: dict[str, Callable[[dict[str, object], object], _Events]] = {
            "response.created": self.created,
            "response.output_item.added": self.item_added,
            "response.reasoning_summary_text.delta": self.reasoning_delta,
            "response.reasoning_text.delta": self.reasoning_delta,
            "response.reasoning_summary_part.done": self.reasoning_part_done,
            "response.output_text.delta": self.text_delta,
            "response.refusal.delta": self.text_delta,
            "response.function_call_arguments.delta": self.arguments_delta,
            "response.function_call_arguments.done": self.arguments_done,
            "response.output_item.done": self.item_done,
            "response.completed": self.completed,
            "response.incomplete": self.completed,
            "response.failed": self.failed,
        }

    def created(self, event: dict[str, Any], idx: Any) -> _Events:
        self.output["responseId"] = (event.get("response") or {}).get("id", self.output.get("responseId"))
        return []

    def item_added(self, event: dict[str, Any], idx: Any) -> _Events:
        slot = _create_slot(event.get("item") or {}, self.content, self.unfinished)
        if slot is None:
            return []
        self.slots[idx] = slot
        return [{"type": slot["start"], "contentIndex": slot["ci"], "partial": self.output}]

    def reasoning_delta(self, event: dict[str, Any], idx: Any) -> _Events:
        return self._thinking(idx, event.get("delta", ""))

    def reasoning_part_done(self, event: dict[str, object], idx: object) -> _Events:
        return self._thinking(idx, "\n\n")  # (summary parts are separated by a blank line)

    def _thinking(self, idx: object, delta: str) -> _Events:
        slot = self.slots.get(idx)
        if not slot or slot["block"]["type"] != "thinking":
            return []
        append_text(slot["block"], "thinking", delta)
        return [{"type": "thinking_delta", "contentIndex": slot["ci"], "delta": delta, "partial": self.output}]

    def text_delta(self, event: dict[str, Any], idx: Any) -> _Events:
        slot = self.slots.get(idx)
        if not slot or slot["block"]["type"] != "text":
            return []
        append_text(slot["block"], "text", event.get("delta", ""))
        return [
            {"type": "text_delta", "contentIndex": slot["ci"], "delta": event.get("delta", ""), "partial": self.output}
        ]

    def arguments_delta(self, event: dict[str, object], idx: object) -> _Events:
        slot = self.slots.get(idx)
        if not slot or slot["block"]["type"] != "toolCall":
            return []
        delta = event.get("delta")
        piece = delta if isinstance(delta, str) else ""
        slot["block"]["arguments"] = slot["args"].append(piece)
        return [{"type": "toolcall_delta", "contentIndex": slot["ci"], "delta": piece, "partial": self.output}]

    def arguments_done(self, event: dict[str, object], idx: object) -> _Events:
        slot = self.slots.get(idx)
        if not slot or slot["block"]["type"] != "toolCall":
            return []
        delta, args = slot["args"].replace(event.get("arguments", ""))
        slot["block"]["arguments"] = args
        if not delta:
            return []
        return [{"type": "toolcall_delta", "contentIndex": slot["ci"], "delta": delta, "partial": self.output}]

    def item_done(self, event: dict[str, Any], idx: Any) -> _Events:
        output = self.output
        item = event.get("item") or {}
        made: _Events = []
        slot = self.slots.get(idx)
        if slot is None:
            slot = _create_slot(item, self.content, self.unfinished)
            if slot is None:
                return made
            made.append({"type": slot["start"], "contentIndex": slot["ci"], "partial": output})
        block = slot["block"]
        if item.get("type") == "reasoning" and block["type"] == "thinking":
            summary = "\n\n".join(s.get("text", "") for s in item.get("summary") or [])
            text = "\n\n".join(c.get("text", "") for c in item.get("content") or [])
            block["thinking"] = summary or text or block["thinking"]
            block["thinkingSignature"] = js_json(item)
            made.append(
                {"type": "thinking_end", "contentIndex": slot["ci"], "content": block["thinking"], "partial": output}
            )
        elif item.get("type") == "message" and block["type"] == "text":
            block["text"] = "".join(
                c.get("text", "") if c.get("type") == "output_text" else c.get("refusal", "")
                for c in item.get("content") or []
            )
            sig: dict[str, object] = {"v": 1, "id": item.get("id")}
            if item.get("phase"):
                sig["phase"] = item["phase"]
            block["textSignature"] = js_json(sig)
            made.append({"type": "text_end", "contentIndex": slot["ci"], "content": block["text"], "partial": output})
        elif item.get("type") == "function_call" and block["type"] == "toolCall":
            made.append(self._finish_tool_call(slot, item))
        self.slots.pop(idx, None)
        return made

    def _finish_tool_call(self, slot: dict[str, Any], item: dict[str, Any]) -> AssistantMessageEvent:
        block = slot["block"]
        if item.get("arguments"):
            slot["args"].replace(item["arguments"])
        final = slot["args"].finish()
        block["arguments"] = final["arguments"]
        if "argumentsError" in final:
            block["argumentsError"] = final["argumentsError"]
        if block in self.unfinished:
            self.unfinished.remove(block)
        return {"type": "toolcall_end", "contentIndex": slot["ci"], "toolCall": block, "partial": self.output}

    def completed(self, event: dict[str, Any], idx: Any) -> _Events:
        output = self.output
        self.terminal = True
        resp = event.get("response") or {}
        if resp.get("id"):
            output["responseId"] = resp["id"]
        u = resp.get("usage")
        if u:
            output["usage"] = _responses_usage(u)
        calculate_cost(self.model, output["usage"])
        mult = self.tier_multiplier(resp.get("service_tier"))
        if mult != 1:
            for key in ("input", "output", "cacheRead", "cacheWrite", "total"):
                output["usage"]["cost"][key] *= mult
        status = resp.get("status")
        reason = (resp.get("incomplete_details") or {}).get("reason")
        output["rawStopReason"] = f"{status}.{reason}" if reason else status
        stop, err = _map_status(status, reason)
        output["stopReason"] = stop
        if err:
            output["errorMessage"] = err
        else:
            output.pop("errorMessage", None)
        if stop == "stop" and any(b["type"] == "toolCall" for b in self.content):
            output["stopReason"] = "toolUse"
        return []

    def failed(self, event: dict[str, Any], idx: Any) -> _Events:
        resp = event.get("response") or {}
        self.output["rawStopReason"] = resp.get("status")
        error = resp.get("error")
        if error:
            msg = f"{error.get('code') or 'unknown'}: {error.get('message') or 'no message'}"
        elif (resp.get("incomplete_details") or {}).get("reason"):
            msg = f"incomplete: {resp['incomplete_details']['reason']}"
        else:
            msg = "Unknown error (no error details in response)"
        raise ProviderStreamError(msg)


def _responses_usage(u: dict[str, Any]) -> dict[str, Any]:
    details = u.get("input_tokens_details") or {}
    cached = details.get("cached_tokens") or 0
    written = details.get("cache_write_tokens") or 0
    return {
        "input": max(0, (u.get("input_tokens") or 0) - cached - written),
        "output": u.get("output_tokens") or 0,
        "cacheRead": cached,
        "cacheWrite": written,
        "reasoning": (u.get("output_tokens_details") or {}).get("reasoning_tokens") or 0,
        "totalTokens": u.get("total_tokens") or 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def _format_http(status: int, body: str, provider: str) -> str:
    return format_responses_error(status, body, provider)


def _create_slot(
    item: dict[str, Any], content: list[dict[str, Any]], unfinished: list[dict[str, Any]]
) -> dict[str, Any] | None:
    itype = item.get("type")
    if itype == "reasoning":
        block: dict[str, Any] = {"type": "thinking", "thinking": ""}
        start = "thinking_start"
        args = None
    elif itype == "message":
        block = {"type": "text", "text": ""}
        start = "text_start"
        args = None
    elif itype == "function_call":
        args = ToolCallArgumentsStream()
        block = {
            "type": "toolCall",
            "id": f"{item.get('call_id')}|{item.get('id')}",
            "name": item.get("name", ""),
            "arguments": args.append(item["arguments"]) if item.get("arguments") else {},
        }
        unfinished.append(block)
        start = "toolcall_start"
    else:
        return None
    content.append(block)
    return {"block": block, "ci": len(content) - 1, "start": start, "args": args}

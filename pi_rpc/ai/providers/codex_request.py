"""The request body of ``openai-codex-responses`` (pi-ai 1.6's ``buildRequestBody`` and the
``convertResponsesMessages`` it calls with Codex's options): the transcript with the system prompt
as a leading developer item, tools declared where the model takes them, the thinking level as the
body's effort or in ``configuration_update`` items.

Tool changes go one of three ways, by the model's ``compat`` (upstream's
``getResponsesToolSupport``): ``changes`` (mid-conversation system messages and
``additional_tools``: every Codex catalogue model) keeps system messages in place, each declaring
its tools in an ``additional_tools`` item, later ones preceded by the incremental-update notice,
removals announced as text; ``additions`` (tool search only) folds the transcript up to its last
removal or redefinition into the top-level ``tools`` and loads later additions with
``tool_search_call``/``tool_search_output`` items; ``none`` folds every system message into the
leading one and sends the current tools at the top level. Checked against upstream's own
function in node (``tests/ai/test_codex_wire.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from pi_rpc.ai.errors import js_json
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.providers.common import request_max_tokens, short_hash
from pi_rpc.ai.strict_schema import make_strict_json_schema, resolve_strict_sampling
from pi_rpc.ai.thinking import clamp_thinking_level
from pi_rpc.ai.transcript import content_text, get_current_system_message, get_current_tools
from pi_rpc.ai.transform import transform_messages
from pi_rpc.ai.types import Context, Model, StreamOptions

MIN_OUTPUT_TOKENS = 16
# The body's reasoning.effort while configuration_update items carry the level.
CONFIGURATION_UPDATE_REQUEST_EFFORT = "medium"
CODEX_TOOL_CALL_PROVIDERS = frozenset({"openai", "openai-codex", "opencode"})
INCREMENTAL_TOOLS_NOTICE = (
    "This is an incremental tools update. Previously declared tools remain available unless explicitly "
    "marked unavailable. A tool declared again here is available again, and its latest definition replaces "
    "the earlier one."
)


def reasoning_effort(model: Model, options: StreamOptions) -> str | None:
    """``streamSimple``'s effort: the clamped level; off is ``"none"`` on a reasoning model."""
    level = clamp_thinking_level(model, options.reasoning) if options.reasoning else "off"
    if level != "off":
        return level
    return "none" if model.get("reasoning") else None


def _resolve_effort(model: Model, effort: str) -> str | None:
    """The provider's effort for a level; None when the model takes no reasoning field for it."""
    level_map: Mapping[str, Any] = model.get("thinkingLevelMap") or {}
    if effort == "none":
        # ``off`` mapped to null: the model takes no reasoning field when thinking is off.
        return level_map["off"] if "off" in level_map else "none"
    mapped = level_map.get(effort)
    return mapped if isinstance(mapped, str) else effort


def configuration_update_effort(model: Model, effort: str | None) -> str | None:
    """The effort that ``configuration_update`` items carry (None: the body's own effort does)."""
    if not (model.get("compat") or {}).get("supportsMidConvoEffort") or effort is None:
        return None
    return _resolve_effort(model, effort)


def _id_part(part: str) -> str:
    sanitized = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in part)
    return sanitized[:64].rstrip("_")


def _normalize_tool_call_id(model: Model) -> Any:
    def normalize(tool_id: str, _target: Model, source: dict[str, object]) -> str:
        if model["provider"] not in CODEX_TOOL_CALL_PROVIDERS or "|" not in tool_id:
            return _id_part(tool_id)
        call_id, item_id = tool_id.split("|")[:2]
        foreign = source.get("provider") != model["provider"] or source.get("api") != model["api"]
        item = f"fc_{short_hash(item_id)}"[:64] if foreign else _id_part(item_id)
        if not item.startswith("fc_"):
            item = _id_part(f"fc_{item}")
        return f"{_id_part(call_id)}|{item}"

    return normalize


def convert_tools(tools: list[dict[str, object]], supports_strict_mode: bool) -> list[dict[str, object]]:
    """``convertResponsesTools`` with ``strict: null`` as the default: a tool preferring strict
    sampling goes out ``strict: true`` (its schema made strict), any other ``strict: null``."""
    out: list[dict[str, object]] = []
    for tool in tools:
        strict = resolve_strict_sampling(tool, supports_strict_mode)
        declared: dict[str, object] = {"type": "function", "name": tool.get("name")}
        if tool.get("description") is not None:
            declared["description"] = tool["description"]
        declared["parameters"] = make_strict_json_schema(tool.get("parameters")) if strict else tool.get("parameters")
        if supports_strict_mode:
            declared["strict"] = strict
        out.append(declared)
    return out


def _tool_result_output(model: Model, content: list[dict[str, object]]) -> object:
    text = content_text([b for b in content if b.get("type") == "text"])
    images = [b for b in content if b.get("type") == "image"]
    has_text = bool(text.strip())
    if not images or "image" not in (model.get("input") or []):
        return text if has_text else "(see attached image)" if images else "(no tool output)"
    out: list[dict[str, object]] = [{"type": "input_text", "text": text}] if has_text else []
    out.extend(
        {"type": "input_image", "detail": "auto", "image_url": f"data:{b['mimeType']};base64,{b['data']}"}
        for b in images
    )
    return out


def _text_signature(signature: str | None) -> tuple[str | None, str | None]:
    if not signature:
        return None, None
    if signature.startswith("{"):
        try:
            parsed = js_loads(signature)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("v") == 1 and isinstance(parsed.get("id"), str):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in ("commentary", "final_answer") else None
    return signature, None


def _system_text(message: Mapping[str, Any], leading: bool) -> str:
    text = content_text(message.get("content"))
    sections: Mapping[str, Any] = message.get("sections") or {}
    if leading:
        parts = [text, *(v for v in sections.values() if v is not None)]
        return "\n\n".join(p for p in parts if p)
    # A later system message: section changes framed by name (``renderSystemMessageUpdate``).
    rendered = [text] if text else []
    for name, value in sections.items():
        rendered.append(
            f'Removed system prompt section "{name}".'
            if value is None
            else f'Updated system prompt section "{name}":\n\n{value}'
        )
    return "\n\n".join(rendered)


def _transcript(model: Model, context: Context) -> list[dict[str, object]]:
    """``normalizeContext`` + ``resolveTranscript``: the prompt and tools as a leading system
    message; later system messages kept in place when the model takes them, else folded in."""
    messages: list[dict[str, object]] = [dict(m) for m in context.messages]
    if context.system_prompt or context.tools:
        head: dict[str, object] = {"role": "system", "content": context.system_prompt or ""}
        if context.tools:
            head["toolsAdded"] = [dict(t) for t in context.tools]
        head["timestamp"] = 0
        messages.insert(0, head)
    if (model.get("compat") or {}).get("supportsMidConvoSystemMessages"):
        return messages
    folded = get_current_system_message(messages)
    rest = [m for m in messages if m.get("role") != "system"]
    return [dict(folded), *rest] if folded is not None else rest


def _tool_support(model: Model) -> str:
    compat: Mapping[str, object] = model.get("compat") or {}
    if compat.get("supportsMidConvoSystemMessages") and compat.get("supportsAdditionalTools"):
        return "changes"
    return "additions" if compat.get("supportsToolSearch") else "none"


def _last_non_additive(system_messages: list[dict[str, Any]]) -> int:
    declared: set[object] = set()
    last = -1
    for index, message in enumerate(system_messages):
        if message.get("toolsRemoved"):
            last = index
        for tool in message.get("toolsAdded") or []:
            if tool.get("name") in declared:
                last = index
            declared.add(tool.get("name"))
    return last


class _ToolAnnouncer:
    """Tools a system message adds, told to the model the way its tool support allows:
    ``changes``: an ``additional_tools`` item (after the first, a notice naming the tools still
    unavailable); ``additions``: a client-side tool search call and its output."""

    def __init__(
        self, items: list[dict[str, object]], support: str, instruction_role: str, supports_strict: bool
    ) -> None:
        self.items = items
        self.support = support
        self.instruction_role = instruction_role
        self.supports_strict = supports_strict
        self.declared_additional = False
        self.unavailable: dict[str, None] = {}  # an ordered set

    def add(self, message: Mapping[str, Any], seed: str) -> None:
        items = self.items
        tools = message.get("toolsAdded") or []
        for tool in tools:
            self.unavailable.pop(tool.get("name"), None)
        if not tools:
            return
        if self.support == "changes":
            if self.declared_additional:
                notice = INCREMENTAL_TOOLS_NOTICE
                if self.unavailable:
                    notice += f"\nStill unavailable: {', '.join(self.unavailable)}."
                items.append({"role": self.instruction_role, "content": notice})
            self.declared_additional = True
            items.append(
                {"type": "additional_tools", "role": "developer", "tools": convert_tools(tools, self.supports_strict)}
            )
            return
        if self.support != "additions":
            return
        names = [str(t.get("name")) for t in tools]
        joined = ",".join(names)
        call_id = f"pi_tool_load_{short_hash(f'{seed}:{joined}')}"
        common = {"call_id": call_id, "execution": "client", "status": "completed"}
        items.append(
            {"type": "tool_search_call", **common, "arguments": {"query": " ".join(names), "limit": len(names)}}
        )
        deferred = [{**t, "defer_loading": True} for t in convert_tools(tools, self.supports_strict)]
        items.append({"type": "tool_search_output", **common, "tools": deferred})


def _user_item(msg: dict[str, Any]) -> dict[str, Any] | None:
    content = msg.get("content")
    if isinstance(content, str):
        return {"role": "user", "content": [{"type": "input_text", "text": content}]}
    parts_in = [
        {"type": "input_text", "text": b.get("text", "")}
        if b.get("type") == "text"
        else {
            "type": "input_image",
            "detail": "auto",
            "image_url": f"data:{b['mimeType']};base64,{b['data']}",
        }
        for b in content or []
    ]
    return {"role": "user", "content": parts_in} if parts_in else None


def _assistant_items(msg: dict[str, Any], model: Model, msg_index: int) -> tuple[list[dict[str, Any]], bool]:
    """An assistant message's items (reasoning, messages, function calls), and whether the
    model that made it is this one."""
    same_api = msg.get("provider") == model["provider"] and msg.get("api") == model["api"]
    same_model = same_api and msg.get("model") == model["id"]
    output: list[dict[str, object]] = []
    text_index = 0
    for block in msg.get("content") or []:
        btype = block.get("type")
        if btype == "thinking":
            if block.get("thinkingSignature"):
                output.append(js_loads(block["thinkingSignature"]))
        elif btype == "text":
            msg_id, phase = _text_signature(block.get("textSignature"))
            fallback = f"msg_pi_{msg_index}" if text_index == 0 else f"msg_pi_{msg_index}_{text_index}"
            text_index += 1
            if not msg_id:
                msg_id = fallback
            elif len(msg_id) > 64:
                msg_id = f"msg_{short_hash(msg_id)}"
            item: dict[str, object] = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": block.get("text", ""), "annotations": []}],
                "status": "completed",
                "id": msg_id,
            }
            if phase:
                item["phase"] = phase
            output.append(item)
        elif btype == "toolCall":
            call_id, _, item_id = str(block.get("id", "")).partition("|")
            call: dict[str, object] = {"type": "function_call"}
            # Another model's item id, or one that is not a function call's, is left out
            # (OpenAI pairs item ids with reasoning items).
            if (same_model or not same_api) and item_id.startswith("fc_"):
                call["id"] = item_id
            call.update(
                {
                    "call_id": call_id,
                    "name": block.get("name"),
                    "arguments": js_json(block.get("arguments", {})),
                }
            )
            if same_model and block.get("namespace") is not None:
                call["namespace"] = block["namespace"]
            output.append(call)
    return output, same_model


def convert_input(
    model: Model, messages: list[dict[str, object]], config_effort: str | None
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """(input items, top-level tools): upstream's ``convertResponsesMessages`` for Codex."""
    support = _tool_support(model)
    system_messages = [m for m in messages if m.get("role") == "system"]
    if support == "none":
        request_tools, folded_count = get_current_tools(system_messages), len(system_messages)
    elif support == "changes":
        request_tools, folded_count = [], 0
    else:
        leading = 1 if messages and messages[0].get("role") == "system" else 0
        folded_count = max(leading, _last_non_additive(system_messages) + 1)
        request_tools = get_current_tools(system_messages[:folded_count])
    compat: Mapping[str, object] = model.get("compat") or {}
    supports_strict = compat.get("supportsStrictMode") is not False
    instruction_role = (
        "developer" if model.get("reasoning") and compat.get("supportsDeveloperRole") is not False else "system"
    )
    items: list[dict[str, object]] = []
    announcer = _ToolAnnouncer(items, support, instruction_role, supports_strict)

    def configuration_update(effort: object) -> None:
        items.append({"type": "configuration_update", "reasoning": {"effort": effort}})

    msg_index = 0
    system_index = 0
    for source_index, msg in enumerate(transform_messages(messages, model, _normalize_tool_call_id(model))):
        role = msg.get("role")
        leading = source_index == 0 and role == "system"
        if role == "system":
            anchors = system_index >= folded_count
            system_index += 1
            if anchors:
                announcer.add(msg, f"system:{msg_index}")
            parts = [_system_text(msg, leading)]
            if anchors:
                added = {t.get("name") for t in msg.get("toolsAdded") or []}
                removed = [str(t.get("name")) for t in msg.get("toolsRemoved") or [] if t.get("name") not in added]
                if removed:
                    listed = "\n".join(f"- {name}" for name in removed)
                    parts.append(f"The following tools are no longer available. Do not call them:\n{listed}")
                for name in removed:
                    announcer.unavailable[name] = None
            text = "\n\n".join(p for p in parts if p)
            if text:
                items.append({"role": instruction_role, "content": text})
        elif role == "user":
            user = _user_item(msg)
            if user is None:
                continue
            items.append(user)
        elif role == "assistant":
            output, same_model = _assistant_items(msg, model, msg_index)
            if not output:
                continue  # (skips the index, as upstream's ``continue`` does)
            if config_effort is not None and same_model and msg.get("providerThinkingLevel") is not None:
                configuration_update(msg["providerThinkingLevel"])
            items.extend(output)
        elif role == "toolResult":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": str(msg.get("toolCallId", "")).split("|")[0],
                    "output": _tool_result_output(model, msg.get("content") or []),
                }
            )
        if not leading:
            msg_index += 1
    if config_effort is not None:
        configuration_update(config_effort)
    return items, request_tools


def build_body(model: Model, context: Context, options: StreamOptions, session: str | None) -> dict[str, object]:
    effort = reasoning_effort(model, options)
    config_effort = configuration_update_effort(model, effort)
    messages = _transcript(model, context)
    items, request_tools = convert_input(model, messages, config_effort)
    body: dict[str, object] = {
        "model": model["id"],
        "store": False,
        "stream": True,
        "input": items,
        "text": {"verbosity": "low"},
        "include": ["reasoning.encrypted_content"],
    }
    if session:
        body["prompt_cache_key"] = session
    body["tool_choice"] = options.extra.get("toolChoice") or "auto"
    body["parallel_tool_calls"] = True
    compat: Mapping[str, object] = model.get("compat") or {}
    system_prompt = context.system_prompt
    max_tokens = request_max_tokens(model, context, system_prompt, [dict(m) for m in context.messages], options)
    if max_tokens and compat.get("supportsMaxOutputTokens") is not False:
        body["max_output_tokens"] = max(max_tokens, MIN_OUTPUT_TOKENS)
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if request_tools:
        body["tools"] = convert_tools(request_tools, compat.get("supportsStrictMode") is not False)
    if effort is not None:
        sent = _resolve_effort(model, effort) if config_effort is None else CONFIGURATION_UPDATE_REQUEST_EFFORT
        if sent is not None:
            body["reasoning"] = {"effort": sent, "summary": "auto"}
    return body

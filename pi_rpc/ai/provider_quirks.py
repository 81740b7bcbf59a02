"""What upstream 1.6 adds to a request for particular built-in providers, on top of their API's
own code; applied by ``stream.stream`` right before dispatching on ``model["api"]``.

- ``opencode``, ``opencode-go``: ``x-opencode-session: <session id>`` when there is a session id
  and no such header is configured (``pi-ai/dist/providers/opencode-headers.js``; OpenCode routes
  a conversation by it).
- ``cloudflare-workers-ai``, ``cloudflare-ai-gateway``: the catalogue's base URLs carry
  ``{CLOUDFLARE_ACCOUNT_ID}`` (and ``{CLOUDFLARE_GATEWAY_ID}``) placeholders, filled from the
  provider's environment: the stored credential's ``env`` (``options.extra["env"]``, set by the
  session from ``ModelRegistry.provider_env``) first, then the process environment; a value
  missing from both leaves the placeholder (``cloudflare-stream.js``, ``cloudflare-auth.js``).
- ``cloudflare-ai-gateway``: the key travels as ``cf-aig-authorization: Bearer <key>``, with no
  ``Authorization`` / ``x-api-key`` (``cloudflare-auth.js``: the gateway authenticates the
  caller; the upstream provider's own key is configured in the gateway).
- ``github-copilot``: ``X-Initiator`` (``user`` when the last message is the user's, else
  ``agent``), ``Openai-Intent: conversation-edits`` and, when a user message or tool result
  carries an image, ``Copilot-Vision-Request: true`` (``api/github-copilot-headers.js``); the
  static editor headers come with each catalogue model's ``headers``. With an OAuth login
  (``options.extra["copilot_oauth"]``, set by the session) the base URL is the one the Copilot
  token names (``proxy-ep``; upstream's ``toAuth`` ``baseUrl`` replacing the model's).
- ``azure`` models on ``openai-completions`` (``providers/azure.js``): the base URL and the
  deployment name resolved as for ``azure-openai-responses`` (``AZURE_OPENAI_BASE_URL`` /
  ``AZURE_OPENAI_RESOURCE_NAME`` / models.json, ``AZURE_OPENAI_DEPLOYMENT_NAME_MAP``); the
  deployment goes out as the body's ``model`` before any request hook sees the body, as
  upstream's ``onPayload`` wrapper. No base URL anywhere raises ``ValueError`` (the stream's
  error message).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

from pi_rpc.ai.types import Context, Model, StreamOptions

_CLOUDFLARE_VARS = ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID")
_OPENCODE_SESSION_HEADER = "x-opencode-session"


def _has_header(headers: Mapping[str, object], name: str) -> bool:
    return any(key.lower() == name for key in headers)


def fill_cloudflare_base_url(base_url: str, env: Mapping[str, str]) -> str:
    """``resolveCloudflareModel``: each placeholder replaced by its value, if there is one."""
    for var in _CLOUDFLARE_VARS:
        value = env.get(var) or os.environ.get(var)
        if value:
            base_url = base_url.replace("{" + var + "}", value)
    return base_url


def _has_image(messages: list[Any]) -> bool:
    for message in messages:
        if message.get("role") in ("user", "toolResult") and isinstance(message.get("content"), list):
            if any(isinstance(block, dict) and block.get("type") == "image" for block in message["content"]):
                return True
    return False


def apply_provider_quirks(model: Model, context: Context, options: StreamOptions) -> tuple[Model, StreamOptions]:
    """The model and options to hand to the API for ``model["provider"]`` (unchanged for most)."""
    provider = model.get("provider")
    if provider in ("opencode", "opencode-go"):
        if options.session_id and not _has_header(options.headers or {}, _OPENCODE_SESSION_HEADER):
            options = replace(
                options, headers={**(options.headers or {}), _OPENCODE_SESSION_HEADER: options.session_id}
            )
    elif provider in ("cloudflare-workers-ai", "cloudflare-ai-gateway"):
        base_url = str(model.get("baseUrl") or "")
        if "{" in base_url:
            env = options.extra.get("env") if isinstance(options.extra.get("env"), dict) else {}
            filled = fill_cloudflare_base_url(base_url, env or {})
            if filled != base_url:
                model = cast(Model, {**model, "baseUrl": filled})  # the same keys, one value changed
        if provider == "cloudflare-ai-gateway" and options.api_key:
            headers = {
                k: v for k, v in (options.headers or {}).items() if k.lower() not in ("authorization", "x-api-key")
            }
            headers["cf-aig-authorization"] = f"Bearer {options.api_key}"
            options = replace(options, api_key=None, headers=headers)
    elif provider == "github-copilot":
        messages = context.messages
        dynamic = {
            "X-Initiator": "agent" if messages and messages[-1].get("role") != "user" else "user",
            "Openai-Intent": "conversation-edits",
        }
        if _has_image(messages):
            dynamic["Copilot-Vision-Request"] = "true"
        options = replace(options, headers={**dynamic, **(options.headers or {})})
        copilot_oauth = options.extra.get("copilot_oauth")
        if isinstance(copilot_oauth, dict) and options.api_key:
            from pi_rpc.ai.auth.oauth.github_copilot import base_url as copilot_base_url
            from pi_rpc.ai.auth.oauth.github_copilot import normalize_domain

            enterprise = copilot_oauth.get("enterpriseUrl")
            domain = normalize_domain(enterprise) if isinstance(enterprise, str) and enterprise else None
            model = cast(Model, {**model, "baseUrl": copilot_base_url(options.api_key, domain)})
    elif provider == "azure" and model.get("api") == "openai-completions":
        model, options = _azure_completions(model, options)
    return model, options


def _azure_completions(model: Model, options: StreamOptions) -> tuple[Model, StreamOptions]:
    from pi_rpc.ai.providers.azure_openai_responses import azure_completions_target

    base_url, deployment = azure_completions_target(model, options)
    model = cast(Model, {**model, "baseUrl": base_url})
    if deployment == model["id"]:
        return model, options
    inner = options.on_request

    async def on_request(headers: dict[str, object], body: object) -> tuple[dict[str, object], object]:
        if isinstance(body, dict):
            body = {**body, "model": deployment}
        return await inner(headers, body) if inner is not None else (headers, body)

    return model, replace(options, on_request=on_request)

"""``azure-openai-responses``: Azure OpenAI's Responses endpoint, the request and stream code of
``openai_responses`` with Azure's endpoint, key header and deployment names (pi-ai 1.6's
``api/azure-openai-responses.js`` and ``api/azure-openai-config.js``; the ``AzureOpenAI`` SDK
client upstream, plain httpx here).

- Base URL: ``AZURE_OPENAI_BASE_URL``, else ``https://<AZURE_OPENAI_RESOURCE_NAME>.openai.azure.com/openai/v1``,
  else the model's ``baseUrl`` (models.json); an Azure host (``*.openai.azure.com``,
  ``*.cognitiveservices.azure.com``, ``*.ai.azure.com``) without a path, or with ``/openai`` or
  ``/openai/v1/responses``, is normalised to ``/openai/v1``. None of them: the stream fails with
  upstream's "Azure OpenAI base URL is required..." message.
- ``POST <base>/responses?api-version=<AZURE_OPENAI_API_VERSION or "v1">`` with ``api-key: <key>``
  (no ``Authorization``).
- The body's ``model`` is the deployment name: ``AZURE_OPENAI_DEPLOYMENT_NAME_MAP``
  (``id=deployment,...``) for the model's id, else the id; the message keeps the catalogue id.
- Tools: the model supports strict mode unless its ``compat`` says otherwise, so a tool that
  prefers strict sampling (the built-in ones) goes out strict (``pi_rpc.ai.strict_schema``).
- Unlike OpenAI's: ``prompt_cache_key`` is the session id whenever there is one (no
  ``prompt_cache_retention``), and HTTP errors read ``"Azure OpenAI API error (<status>): ..."``.

Variables are read from the stored credential's ``env`` (``options.extra["env"]``) first, then
the process environment, as upstream's ``getProviderEnvValue``. ``azure_completions_target`` gives
the same base URL and deployment to Azure's ``openai-completions`` models
(``pi_rpc.ai.provider_quirks``).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from functools import partial
from urllib.parse import quote, urlsplit, urlunsplit

from pi_rpc.ai.errors import format_responses_error
from pi_rpc.ai.providers.common import merged_headers
from pi_rpc.ai.providers.openai_responses import ResponsesRequest, build_params, stream_responses_request
from pi_rpc.ai.strict_schema import make_strict_json_schema, resolve_strict_sampling
from pi_rpc.ai.transform import collapse_context
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions

API = "azure-openai-responses"
DEFAULT_API_VERSION = "v1"
_AZURE_HOST_SUFFIXES = (".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com")
MISSING_BASE_URL = (
    "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, "
    "or pass azureBaseUrl, azureResourceName, or model.baseUrl."
)


def provider_env(options: StreamOptions) -> Mapping[str, str]:
    env = options.extra.get("env")
    return env if isinstance(env, dict) else {}


def env_value(name: str, env: Mapping[str, str]) -> str | None:
    return env.get(name) or os.environ.get(name) or None


def parse_deployment_map(value: str | None) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for entry in (value or "").split(","):
        entry = entry.strip()
        if not entry:
            continue
        # JS ``split("=", 2)``: the text after a second "=" is dropped.
        parts = entry.split("=")
        if len(parts) < 2 or not parts[0] or not parts[1]:
            continue
        mapping[parts[0].strip()] = parts[1].strip()
    return mapping


def resolve_deployment_name(model: Model, env: Mapping[str, str]) -> str:
    mapped = parse_deployment_map(env_value("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", env)).get(model["id"])
    return mapped or model["id"]


def normalize_base_url(base_url: str) -> str:
    trimmed = base_url.strip().rstrip("/")
    parts = urlsplit(trimmed)
    if not parts.scheme or not parts.netloc:
        raise ValueError(f"Invalid Azure OpenAI base URL: {base_url}")
    host = (parts.hostname or "").lower()
    path = parts.path.rstrip("/")
    if host.endswith(_AZURE_HOST_SUFFIXES) and path in ("", "/", "/openai", "/openai/v1/responses"):
        parts = parts._replace(path="/openai/v1", query="")
    elif not parts.path:
        parts = parts._replace(path="/")  # WHATWG URL: an http(s) URL always has a path
    return urlunsplit(parts).rstrip("/")


def resolve_base_url(model: Model, env: Mapping[str, str]) -> str:
    base = (env_value("AZURE_OPENAI_BASE_URL", env) or "").strip()
    if not base:
        resource = env_value("AZURE_OPENAI_RESOURCE_NAME", env)
        if resource:
            base = f"https://{resource}.openai.azure.com/openai/v1"
    if not base:
        base = str(model.get("baseUrl") or "")
    if not base:
        raise ValueError(MISSING_BASE_URL)
    return normalize_base_url(base)


def azure_completions_target(model: Model, options: StreamOptions) -> tuple[str, str]:
    """(base URL, deployment name) for an Azure model on another API (``providers/azure.js``)."""
    env = provider_env(options)
    return resolve_base_url(model, env), resolve_deployment_name(model, env)


def _azure_request(model: Model, context: Context, options: StreamOptions) -> ResponsesRequest:
    if not options.api_key:
        raise RuntimeError(f"No API key for provider: {model['provider']}")
    env = provider_env(options)
    base = resolve_base_url(model, env)
    version = env_value("AZURE_OPENAI_API_VERSION", env) or DEFAULT_API_VERSION
    params = build_params(model, context, options)
    params["model"] = resolve_deployment_name(model, env)
    _, _, tools = collapse_context(context)
    if tools:
        supports_strict = (model.get("compat") or {}).get("supportsStrictMode")
        params["tools"] = convert_tools(tools, supports_strict is not False)
    params.pop("prompt_cache_retention", None)
    params.pop("prompt_cache_key", None)
    if options.session_id:
        # Sent whatever the cache retention (upstream's Azure code does not look at it); kept
        # in the body's key order: after ``stream``.
        ordered: dict[str, object] = {}
        for key, value in params.items():
            ordered[key] = value
            if key == "stream":
                ordered["prompt_cache_key"] = options.session_id[:64]
        params = ordered
    headers = {
        "accept": "application/json",
        "content-type": "application/json",
        "user-agent": "pi-rpc",
        "api-key": options.api_key,
    }
    return ResponsesRequest(
        url=f"{base}/responses?api-version={quote(version, safe='')}",
        headers=merged_headers(model, headers, options),
        params=params,
        format_error=_format_http,
        connection_error=partial(_connection_error, base),
    )


def convert_tools(tools: list[dict[str, object]], supports_strict_mode: bool) -> list[dict[str, object]]:
    """``convertResponsesTools`` with Azure's default strict support: a tool that prefers strict
    sampling goes out ``strict: true`` with its schema made strict; ``strict`` is sent whenever
    the model supports strict mode."""
    out: list[dict[str, object]] = []
    for tool in tools:
        strict = resolve_strict_sampling(tool, supports_strict_mode) or False
        declared: dict[str, object] = {
            "type": "function",
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": make_strict_json_schema(tool.get("parameters")) if strict else tool.get("parameters", {}),
        }
        if supports_strict_mode:
            declared["strict"] = strict
        out.append(declared)
    return out


def _connection_error(url: str, exc: ConnectionError) -> str:
    """The OpenAI SDK's words over undici for the two failures a client meets most: a body cut
    short (``terminated: other side closed``) and a refused connection (``Connection error.:
    connect ECONNREFUSED <host>:<port>``; undici names the address it dialled, the URL's host
    here, which is the same for an IP literal)."""
    text = str(exc)
    if text.startswith("terminated: peer closed connection"):
        return "terminated: other side closed (UND_ERR_SOCKET)"
    cause: BaseException | None = exc
    for _ in range(6):
        if cause is None:
            break
        if isinstance(cause, ConnectionRefusedError) or (
            isinstance(cause, OSError) and any(isinstance(e, ConnectionRefusedError) for e in _nested(cause))
        ):
            parts = urlsplit(url)
            port = parts.port or (443 if parts.scheme == "https" else 80)
            return f"Connection error.: connect ECONNREFUSED {parts.hostname}:{port}"
        cause = cause.__cause__ or cause.__context__
    return text


def _nested(error: BaseException) -> list[BaseException]:
    # anyio's "All connection attempts failed" keeps each address's error in its own chain.
    found: list[BaseException] = []
    link = error.__cause__ or error.__context__
    while link is not None and len(found) < 6:
        found.append(link)
        link = link.__cause__ or link.__context__
    return found


def _format_http(status: int, body: str) -> str:
    return format_responses_error(status, body, "Azure OpenAI")


async def stream_azure_openai_responses(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    async for event in stream_responses_request(model, options, lambda: _azure_request(model, context, options)):
        yield event

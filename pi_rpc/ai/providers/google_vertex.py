"""``google-vertex``: Gemini on Vertex AI, following pi-ai 1.6 (``api/google-vertex.js``, which
drives ``@google/genai`` with ``vertexai: true``). The request body and the SSE stream are
``google-generative-ai``'s (``google_generative_ai.stream_gemini``); this module owns where the
request goes and how it is authenticated:

- API-key mode: a key (``GOOGLE_CLOUD_API_KEY`` or the stored one; not the
  ``gcp-vertex-credentials`` marker, not a ``<placeholder>``) goes out as ``x-goog-api-key`` to
  ``https://aiplatform.googleapis.com/v1/publishers/google/models/<m>:streamGenerateContent``.
- ADC mode (no key): Application Default Credentials through **google-auth**
  (``GOOGLE_APPLICATION_CREDENTIALS`` — from the stored credential's ``env`` too — a gcloud user
  credentials file, the metadata server), a fresh token per request as upstream's client
  (``Authorization: Bearer``), to
  ``https://<l>-aiplatform.googleapis.com/v1/projects/<p>/locations/<l>/publishers/google/models/<m>…``
  with the project from ``GOOGLE_CLOUD_PROJECT``/``GCLOUD_PROJECT`` and the location from
  ``GOOGLE_CLOUD_LOCATION`` (the credential's ``env`` first, then the process environment; the
  ``env`` only when the credential has no key, as upstream's resolution).
- A custom base URL (models.json; the catalogue's ``https://{location}-…`` is not one) replaces
  the host in both modes: ``<base>/v1/publishers/google/models/<m>…`` (no ``v1`` added when the
  base already names a version).

google-auth is imported only here, and only in ADC mode: startup and API-key users never load it.
Its token exchange is blocking I/O, so it runs in a worker thread (``anyio.to_thread``); its HTTP
goes through httpx (``_HttpxRequest``), which keeps the proxy settings of the rest of pi_rpc and
needs no ``requests``.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any
from urllib.parse import urlsplit

import anyio.to_thread

from pi_rpc.ai.providers.google_generative_ai import stream_gemini
from pi_rpc.ai.types import AssistantMessageEvent, Context, Model, StreamOptions

API = "google-vertex"
CREDENTIALS_MARKER = "gcp-vertex-credentials"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
API_VERSION = "v1"
_PLACEHOLDER = re.compile(r"^<[^>]+>$")
# The SDK's multi-regional locations, served from ``aiplatform.<location>.rep.googleapis.com``.
_MULTI_REGIONAL = frozenset(("us", "eu"))
_VERSION_SEGMENT = re.compile(r"^v\d+(?:beta\d*)?$")
# google-auth-library's words (Node) for "no credentials anywhere", as upstream reports them.
NO_CREDENTIALS = (
    "Could not load the default credentials. Browse to "
    "https://cloud.google.com/docs/authentication/getting-started for more information."
)
MISSING_EXTRA = (
    "Vertex AI with Application Default Credentials needs the google-auth package: "
    "pip install 'pi-rpc[vertex]' (or set GOOGLE_CLOUD_API_KEY to use an API key)"
)


def _env_value(name: str, env: Mapping[str, str]) -> str | None:
    return env.get(name) or os.environ.get(name) or None


def _provider_env(options: StreamOptions) -> Mapping[str, str]:
    env = options.extra.get("env")
    return env if isinstance(env, dict) else {}


def resolve_api_key(options: StreamOptions) -> str | None:
    key = (options.api_key or "").strip()
    if not key or key == CREDENTIALS_MARKER or _PLACEHOLDER.match(key):
        return None
    return key


def resolve_project(env: Mapping[str, str]) -> str:
    project = _env_value("GOOGLE_CLOUD_PROJECT", env) or _env_value("GCLOUD_PROJECT", env)
    if not project:
        raise RuntimeError(
            "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options."
        )
    return project


def resolve_location(env: Mapping[str, str]) -> str:
    location = _env_value("GOOGLE_CLOUD_LOCATION", env)
    if not location:
        raise RuntimeError("Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options.")
    return location


def custom_base_url(base_url: str) -> str | None:
    """The model's base URL when it is a real one (the catalogue's carries ``{location}``)."""
    trimmed = base_url.strip()
    return None if not trimmed or "{location}" in trimmed else trimmed


def _includes_version(base_url: str) -> bool:
    return any(_VERSION_SEGMENT.match(part) for part in urlsplit(base_url).path.split("/"))


def request_url(model: Model, project: str | None, location: str | None) -> str:
    """Where ``@google/genai`` sends ``generateContentStream`` for this model (project and
    location given in ADC mode only)."""
    method = f"publishers/google/models/{model['id']}:streamGenerateContent?alt=sse"
    base = custom_base_url(model.get("baseUrl", ""))
    if base is not None:
        # A custom base is a collection root: no project/location path, as the SDK's
        # ``ResourceScope.COLLECTION``.
        version = "" if _includes_version(base) else f"{API_VERSION}/"
        return f"{base.removesuffix('/')}/{version}{method}"
    if project is None or location is None:
        return f"https://aiplatform.googleapis.com/{API_VERSION}/{method}"
    if location == "global":
        host = "aiplatform.googleapis.com"
    elif location in _MULTI_REGIONAL:
        host = f"aiplatform.{location}.rep.googleapis.com"
    else:
        host = f"{location}-aiplatform.googleapis.com"
    return f"https://{host}/{API_VERSION}/projects/{project}/locations/{location}/{method}"


async def _vertex_endpoint(model: Model, options: StreamOptions) -> tuple[str, dict[str, str]]:
    headers = {"accept": "*/*", "content-type": "application/json", "user-agent": "pi-rpc"}
    key = resolve_api_key(options)
    if key is not None:
        headers["x-goog-api-key"] = key
        return request_url(model, None, None), headers
    # Upstream hands the stored credential's ``env`` to the stream only when it resolved as ADC
    # (no key at all); a stored key, even the ``gcp-vertex-credentials`` marker, comes without it.
    env = {} if options.api_key else _provider_env(options)
    project = resolve_project(env)
    location = resolve_location(env)
    key_file = _env_value("GOOGLE_APPLICATION_CREDENTIALS", env)
    # Abandoned on abort: the token request has its own timeout and its result is not needed.
    token = await anyio.to_thread.run_sync(_adc_token, key_file, options.timeout_s, abandon_on_cancel=True)
    headers["authorization"] = f"Bearer {token}"
    return request_url(model, project, location), headers


async def stream_google_vertex(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    events = stream_gemini(model, context, options, _vertex_endpoint, label="Google Vertex")
    async with aclosing(events):  # a consumer that stops early closes the request too
        async for event in events:
            if event.get("type") == "error":
                error: Any = event.get("error")
                text = error.get("errorMessage") if isinstance(error, dict) else None
                # A body cut short, in undici's words (the SDK reads the stream with fetch).
                if isinstance(text, str) and text.startswith("terminated: peer closed connection"):
                    error["errorMessage"] = "terminated: other side closed (UND_ERR_SOCKET)"
            yield event


# ----------------------------------------------------------------------- ADC (worker thread)


def _adc_token(key_file: str | None, timeout_s: float | None) -> str:
    """A fresh access token from Application Default Credentials (blocking: runs in a thread).
    ``key_file`` (GOOGLE_APPLICATION_CREDENTIALS from the credential's ``env`` or the process)
    wins over google-auth's own search, as upstream's ``keyFilename``."""
    try:
        # Typed as Any: google-auth's functions are not annotated (mypy's strict mode here).
        auth: Any = importlib.import_module("google.auth")
        errors: Any = importlib.import_module("google.auth.exceptions")
    except ImportError as exc:
        raise RuntimeError(MISSING_EXTRA) from exc
    request = _HttpxRequest(timeout_s)
    try:
        try:
            if key_file:
                credentials, _ = auth.load_credentials_from_file(key_file, scopes=SCOPES)
            else:
                credentials, _ = auth.default(scopes=SCOPES, request=request)
        except errors.DefaultCredentialsError as exc:
            if key_file:
                raise RuntimeError(str(exc)) from exc
            raise RuntimeError(NO_CREDENTIALS) from exc
        try:
            credentials.refresh(request)
        except errors.RefreshError as exc:
            # google-auth's first argument is "<error>: <error_description>", the text
            # google-auth-library (Node) gives the same token-endpoint answer.
            raise RuntimeError(str(exc.args[0]) if exc.args else str(exc)) from exc
        except errors.TransportError as exc:
            raise RuntimeError(str(exc)) from exc
    finally:
        request.close()
    token = credentials.token
    if not isinstance(token, str) or not token:
        raise RuntimeError(NO_CREDENTIALS)
    return token


class _HttpxRequest:
    """google-auth's transport callable (``google.auth.transport.Request``) over a synchronous
    httpx client: the token endpoint and the metadata server."""

    def __init__(self, timeout_s: float | None) -> None:
        import httpx

        self._client = httpx.Client(timeout=timeout_s or 120.0)

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: object,
    ) -> _HttpxResponse:
        import httpx

        exceptions: Any = importlib.import_module("google.auth.exceptions")
        try:
            response = self._client.request(
                method,
                url,
                content=body,
                headers=dict(headers or {}),
                timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
            )
        except httpx.HTTPError as exc:
            raise exceptions.TransportError(str(exc) or type(exc).__name__) from exc
        return _HttpxResponse(response)

    def close(self) -> None:
        self._client.close()


class _HttpxResponse:
    """google-auth's ``transport.Response`` view of an httpx response."""

    def __init__(self, response: Any) -> None:
        self._response = response

    @property
    def status(self) -> int:
        return int(self._response.status_code)

    @property
    def headers(self) -> Mapping[str, str]:
        return dict(self._response.headers)

    @property
    def data(self) -> bytes:
        return bytes(self._response.content)

"""``bedrock-converse-stream``: Amazon Bedrock's ConverseStream, following pi-ai 1.6
(``api/bedrock-converse-stream.js``, which drives ``@aws-sdk/client-bedrock-runtime``). The body
is built in ``bedrock_request``; this module owns where it goes, how it is authenticated, how it
is retried and how the binary answer is read.

Where: ``POST <endpoint>/model/<url-encoded model id>/converse-stream``. The endpoint is the
model's base URL when it is not a standard ``bedrock-runtime.<region>.amazonaws.com`` one (a
proxy or VPC endpoint: models.json), or when it is and neither a region nor ``AWS_PROFILE`` is
configured; otherwise the region's standard endpoint. The region (it is also the signature's):
an inference-profile ARN's, else ``AWS_REGION`` / ``AWS_DEFAULT_REGION``, else the standard base
URL's, else ``us-east-1`` unless ``AWS_PROFILE`` is set, else the profile's (botocore).

Auth, in upstream's order:
- ``AWS_BEDROCK_SKIP_AUTH=1``: signed with dummy keys (keyless proxies);
- a bearer token (the stored key, else ``AWS_BEARER_TOKEN_BEDROCK``): ``Authorization: Bearer``;
- ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` (``AWS_SESSION_TOKEN``), unless the stored
  credential names a profile;
- otherwise **botocore**'s credential chain (profile files, SSO, assume-role, web identity,
  container and instance credentials) for the profile — never a hand-rolled chain.
SigV4 (service ``bedrock``) is botocore's ``SigV4Auth``; the request goes through httpx.
Variables are read from the stored credential's ``env`` first, then the process environment.

Retries are the AWS SDK's standard mode (the SDK retries on its own, under the session's
retries): up to 3 attempts (``AWS_MAX_ATTEMPTS``) for throttling (429, ``ThrottlingException``
…: 1 s base) and transient failures (500/502/503/504, timeouts, refused or reset connections:
50 ms base), with full-jitter exponential backoff and ``Retry-After``.

The answer is ``application/vnd.amazon.eventstream``, parsed with botocore's
``EventStreamBuffer``: ``messageStart``, ``contentBlockStart/Delta/Stop``, ``messageStop``,
``metadata``; modeled exception frames fail the turn as upstream words them (``Throttling error:
…``), keeping what streamed so far. Errors read as the SDK reports them, including its
"Deserialization error" note for answers it could not read and the JS texts of event-stream
checksum failures; a failed turn carries upstream's ``bedrock_response_failure`` diagnostic.

botocore is imported only here, in a worker thread, when a Bedrock model streams: startup and
other providers never load it. Credential resolution (files, SSO caches, the metadata server)
and signing run in that thread too.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import random
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import anyio
import anyio.to_thread

from pi_rpc.ai.cost import calculate_cost
from pi_rpc.ai.errors import AbortedError, redact
from pi_rpc.ai.output import new_output, now_ms
from pi_rpc.ai.partial_json import ToolCallArgumentsStream
from pi_rpc.ai.providers.bedrock_request import (
    build_body,
    env_value,
    is_strict_tool_limit_message,
    mark_strict_tool_limits_exceeded,
    strict_tool_limits_exceeded,
)
from pi_rpc.ai.providers.common import append_text
from pi_rpc.ai.types import AssistantMessageEvent, BlockStartType, Context, Model, StreamOptions

API = "bedrock-converse-stream"
MISSING_EXTRA = "Amazon Bedrock needs the botocore package: pip install 'pi-rpc[bedrock]'"
NO_CREDENTIALS = "Could not load credentials from any providers"
DESERIALIZATION_NOTE = (
    "\n  Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object."
)
REDACTED_THINKING = "[Reasoning redacted]"
# An abort as upstream reports it: the SDK's AbortError (with the signal's DOMException as its
# cause) before the answer, Node's "aborted" once the body streams.
ABORTED_BEFORE_ANSWER = "Request aborted: This operation was aborted (20)"
ABORTED_WHILE_STREAMING = "aborted"
DATA_RETENTION_DOCS = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"
_ARN_REGION = re.compile(r"^arn:aws(?:-[a-z0-9-]+)?:bedrock:([a-z0-9-]+):")
_STANDARD_ENDPOINT = re.compile(r"^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$")
_CHECKSUM = re.compile(r"expected 0x([0-9a-f]+), calculated 0x([0-9a-f]+)")
# Upstream's prefixes for the SDK's exception names (the session's retry patterns match them).
ERROR_PREFIXES = {
    "InternalServerException": "Internal server error",
    "ModelStreamErrorException": "Model stream error",
    "ValidationException": "Validation error",
    "ThrottlingException": "Throttling error",
    "ServiceUnavailableException": "Service unavailable",
}
# The ConverseStream output union's exception members (modeled: prefixed like HTTP errors).
_STREAM_EXCEPTIONS = frozenset(
    (
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    )
)
# @smithy's standard retry strategy (``@smithy/core/retry``).
_THROTTLING_CODES = frozenset(
    (
        "BandwidthLimitExceeded",
        "EC2ThrottledException",
        "LimitExceededException",
        "PriorRequestNotComplete",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "RequestThrottled",
        "RequestThrottledException",
        "SlowDown",
        "ThrottledException",
        "Throttling",
        "ThrottlingException",
        "TooManyRequestsException",
        "TransactionInProgressException",
    )
)
_TRANSIENT_CODES = frozenset(("TimeoutError", "RequestTimeout", "RequestTimeoutException"))
_TRANSIENT_STATUS = frozenset((500, 502, 503, 504))
_THROTTLING_DELAY_MS = 1000
_TRANSIENT_DELAY_MS = 50
_MAX_DELAY_MS = 20_000
DEFAULT_MAX_ATTEMPTS = 3


class BedrockError(Exception):
    """A failure as the AWS SDK reports it: ``name`` is the error code (``ThrottlingException``),
    ``service`` marks a service exception (its message gets upstream's prefix), ``status`` and
    ``request_id`` feed the failure diagnostic, ``retry`` is the SDK's classification
    (``throttling``, ``transient`` or None)."""

    def __init__(
        self,
        message: str,
        *,
        name: str = "Error",
        service: bool = False,
        status: int | None = None,
        request_id: str | None = None,
        retry: str | None = None,
        retry_after_ms: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.name = name
        self.service = service
        self.status = status
        self.request_id = request_id
        self.retry = retry
        self.retry_after_ms = retry_after_ms

    def display(self) -> str:
        """``formatBedrockError``."""
        hint = f" See {DATA_RETENTION_DOCS} for supported data retention modes." if _retention(self.message) else ""
        if self.service:
            return f"{ERROR_PREFIXES.get(self.name, self.name)}: {self.message}{hint}"
        return f"{self.message}{hint}"


def _retention(text: str) -> bool:
    return re.search(r"data retention mode", text, re.IGNORECASE) is not None


# ------------------------------------------------------------------------ where and how


def standard_endpoint_region(base_url: str) -> str | None:
    try:
        host = (urlsplit(base_url.strip()).hostname or "").lower()
    except ValueError:
        return None
    match = _STANDARD_ENDPOINT.match(host)
    return match.group(1) if match else None


@dataclass
class Target:
    """Where the request goes and how it is authenticated (``resolve_target``)."""

    endpoint: str | None  # None: the region's standard endpoint, once the region is known
    region: str | None  # None: the profile's (botocore)
    profile: str | None
    explicit_profile: bool  # named by the stored credential: wins over environment keys
    bearer: str | None = None
    skip_auth: bool = False
    keys: tuple[str, str, str | None] | None = None
    secrets: list[str] = field(default_factory=list)


def resolve_target(model: Model, options: StreamOptions) -> Target:
    """Upstream's region, endpoint and auth rules (module docstring); no I/O."""
    import os

    stored_profile = str(_stored_env(options).get("AWS_PROFILE") or "") or None
    ambient_profile = os.environ.get("AWS_PROFILE") or None
    configured_region = env_value("AWS_REGION", options) or env_value("AWS_DEFAULT_REGION", options)
    base_url = str(model.get("baseUrl") or "")
    endpoint_region = standard_endpoint_region(base_url)
    explicit_endpoint = endpoint_region is None or (not configured_region and not ambient_profile)
    arn = _ARN_REGION.match(str(model.get("id") or ""))
    region: str | None
    if arn:
        region = arn.group(1)
    elif configured_region:
        region = configured_region
    elif endpoint_region and explicit_endpoint:
        region = endpoint_region
    elif not ambient_profile:
        region = "us-east-1"
    else:
        region = None
    skip_auth = env_value("AWS_BEDROCK_SKIP_AUTH", options) == "1"
    bearer = options.api_key or env_value("AWS_BEARER_TOKEN_BEDROCK", options)
    target = Target(
        endpoint=base_url if explicit_endpoint and base_url else None,
        region=region,
        profile=stored_profile or ambient_profile,
        explicit_profile=stored_profile is not None,
        skip_auth=skip_auth,
    )
    if bearer and not skip_auth:
        target.bearer = bearer
        target.secrets.append(bearer)
        return target
    access, secret = env_value("AWS_ACCESS_KEY_ID", options), env_value("AWS_SECRET_ACCESS_KEY", options)
    if access and secret and not skip_auth and not target.explicit_profile:
        token = env_value("AWS_SESSION_TOKEN", options)
        target.keys = (access, secret, token)
        target.secrets += [secret, *([token] if token else [])]
    return target


def _stored_env(options: StreamOptions) -> dict[str, object]:
    env = options.extra.get("env")
    return env if isinstance(env, dict) else {}


def standard_endpoint(region: str) -> str:
    suffix = "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"
    return f"https://bedrock-runtime.{region}.{suffix}"


def request_url(endpoint: str, model_id: str) -> str:
    # The SDK's path label encoding (``encodeURIComponent`` plus ``!'()*``).
    return f"{endpoint.strip().rstrip('/')}/model/{quote(model_id, safe='-_.~')}/converse-stream"


# ------------------------------------------------------------------ botocore (worker thread)


def _botocore(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise RuntimeError(MISSING_EXTRA) from exc


class Signer:
    """Credentials from botocore and SigV4 signing of one request at a time (blocking: runs in
    a worker thread). Refreshable credentials (SSO, assume-role, instance) refresh themselves."""

    def __init__(self, target: Target) -> None:
        credentials_mod: Any = _botocore("botocore.credentials")
        self._auth: Any = _botocore("botocore.auth")
        self._awsrequest: Any = _botocore("botocore.awsrequest")
        _botocore("botocore.eventstream")  # loaded here, off the event loop, for the stream
        self.region = target.region
        if target.skip_auth:
            self._credentials: Any = credentials_mod.Credentials("dummy-access-key", "dummy-secret-key")
        elif target.keys is not None:
            self._credentials = credentials_mod.Credentials(*target.keys)
        else:
            session_mod: Any = _botocore("botocore.session")
            exceptions: Any = _botocore("botocore.exceptions")
            session = session_mod.Session(profile=target.profile)
            # The SDK resolves the region before the credentials (a missing profile with no
            # region configured reads "Region is missing").
            if self.region is None:
                try:
                    self.region = session.get_config_variable("region")
                except exceptions.ProfileNotFound:
                    self.region = None
                if not self.region:
                    raise BedrockError("Region is missing")
            unavailable = (
                exceptions.ProfileNotFound,
                exceptions.NoCredentialsError,
                exceptions.CredentialRetrievalError,
                exceptions.MetadataRetrievalError,
            )
            try:
                self._credentials = session.get_credentials()
            except unavailable as exc:
                # The JS chain moves past a source that fails and reports only its end.
                raise BedrockError(NO_CREDENTIALS, name="CredentialsProviderError") from exc
            except exceptions.BotoCoreError as exc:
                # SSO and assume-role failures: botocore's words (they say what to fix).
                raise BedrockError(str(exc), name=type(exc).__name__) from exc
            if self._credentials is None:
                raise BedrockError(NO_CREDENTIALS, name="CredentialsProviderError")
        if not self.region:
            raise BedrockError("Region is missing")

    def sign(self, url: str, headers: dict[str, str], payload: bytes) -> dict[str, str]:
        """``headers`` with ``X-Amz-Date``, ``X-Amz-Security-Token`` and ``Authorization`` added."""
        frozen = self._credentials.get_frozen_credentials()
        request = self._awsrequest.AWSRequest(method="POST", url=url, data=payload, headers=dict(headers))
        self._auth.SigV4Auth(frozen, "bedrock", self.region).add_auth(request)
        return {k: str(v) for k, v in request.headers.items()}


def _load_event_stream_buffer() -> object:
    return _botocore("botocore.eventstream").EventStreamBuffer()


# ------------------------------------------------------------------------------ errors


def _at(text: str, i: int) -> str:
    line = text.count("\n", 0, i) + 1
    column = i - (text.rfind("\n", 0, i) + 1) + 1
    return f"at position {i} (line {line} column {column})"


def v8_json_error(text: str) -> str:
    """What ``JSON.parse`` says of a body that is not JSON (V8's texts, for the bodies a gateway
    sends instead of JSON: the first bad token; ``pi_rpc.modes.wire.jsonparse`` has the full
    scanner, out of this layer's reach)."""
    stripped = len(text) - len(text.lstrip(" \t\n\r"))
    if stripped >= len(text):
        return "Unexpected end of JSON input"
    i = stripped
    ch = text[i]
    for literal in ("null", "true", "false"):
        if ch == literal[0]:
            j = 0
            while i + j < len(text) and j < len(literal) and text[i + j] == literal[j]:
                j += 1
            if j == len(literal):
                i += j
                i += len(text[i:]) - len(text[i:].lstrip(" \t\n\r"))
                if i >= len(text):
                    return "Unexpected end of JSON input"
                return f"Unexpected non-whitespace character after JSON {_at(text, i)}"
            i += j
            if i >= len(text):
                return "Unexpected end of JSON input"
            ch = text[i]
            break
    if ch == '"':
        return f"Unexpected string in JSON {_at(text, i)}"
    context = 10  # V8's kMaxContextCharacters
    if len(text) <= 2 * context + 1:
        return f"Unexpected token '{ch}', \"{text}\" is not valid JSON"
    if i < context:
        return f"Unexpected token '{ch}', \"{text[: i + context]}\"... is not valid JSON"
    if i < len(text) - context:
        return f"Unexpected token '{ch}', ...\"{text[i - context : i + context]}\"... is not valid JSON"
    return f"Unexpected token '{ch}', ...\"{text[i - context :]}\" is not valid JSON"


def _sanitize_code(raw: object) -> str:
    value = str(raw)
    value = value.split(",")[0]
    value = value.split(":")[0]
    if "#" in value:
        value = value.split("#")[1]
    return value


def _retry_after_ms(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return float(value) * 1000
    except ValueError:
        import email.utils

        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return parsed.timestamp() * 1000 - time.time() * 1000


def _classify(name: str, status: int | None) -> str | None:
    if status == 429 or name in _THROTTLING_CODES:
        return "throttling"
    if name in _TRANSIENT_CODES or (status is not None and status in _TRANSIENT_STATUS):
        return "transient"
    return None


def http_error(status: int, headers: dict[str, str], body: bytes) -> BedrockError:
    """The SDK's error for a non-2xx answer (awsRestJson1: the code from ``x-amzn-errortype``,
    else the body's ``code`` / ``__type``; the message from its ``message``)."""
    request_id = headers.get("x-amzn-requestid")
    text = body.decode("utf-8", "replace")
    data: object = {}
    if text:
        try:
            data = json.loads(text)
        except ValueError:
            return BedrockError(
                v8_json_error(text) + DESERIALIZATION_NOTE,
                name="SyntaxError",
                status=status,
                request_id=request_id,
                retry=_classify("SyntaxError", status),
            )
    if not isinstance(data, dict):
        data = {}
    code: str | None = None
    if headers.get("x-amzn-errortype"):
        code = _sanitize_code(headers["x-amzn-errortype"])
    else:
        key = next((k for k in data if k.lower() == "code"), None)
        if key is not None and data[key] is not None:
            code = _sanitize_code(data[key])
        elif data.get("__type") is not None:
            code = _sanitize_code(data["__type"])
    name = code or "Unknown"
    message = data.get("message") or data.get("Message") or "UnknownError"
    return BedrockError(
        str(message),
        name=name,
        service=True,
        status=status,
        request_id=request_id,
        retry=_classify(name, status),
        retry_after_ms=_retry_after_ms(headers.get("retry-after")),
    )


def _transport_error(exc: Exception, url: str) -> BedrockError:
    """Node's words for a connection that failed before an answer (retried as transient)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    text = str(exc)
    if "refused" in text.lower() or "all connection attempts failed" in text.lower():
        return BedrockError(f"connect ECONNREFUSED {parts.hostname}:{port}", retry="transient")
    if "without sending a response" in text or "disconnected" in text.lower():
        return BedrockError("socket hang up", retry="transient")
    return BedrockError(text or type(exc).__name__, retry="transient")


def _stream_error(exc: Exception, prelude: bool) -> BedrockError:
    """A frame botocore could not read, in ``@smithy/eventstream-codec``'s words."""
    text = str(exc)
    match = _CHECKSUM.search(text)
    if match and prelude:
        expected, calculated = (int(g, 16) for g in match.groups())
        return BedrockError(
            f"The prelude checksum specified in the message ({expected}) does not match "
            f"the calculated CRC32 checksum ({calculated})"
        )
    if match:
        expected, calculated = (int(g, 16) for g in match.groups())
        return BedrockError(f"The message checksum ({calculated}) did not match the expected value of {expected}")
    return BedrockError(text)


def _failure_diagnostic(exc: BaseException, request_id: str | None) -> dict[str, object] | None:
    details: dict[str, object] = {}
    if isinstance(exc, BedrockError):
        if exc.status is not None:
            details["status"] = exc.status
        if exc.name.endswith("Exception") and 0 < len(exc.name) <= 200:
            details["errorCode"] = exc.name
        request_id = (exc.request_id or "").strip() or request_id
    if request_id and len(request_id) <= 200:
        details["requestId"] = request_id
    if not details:
        return None
    return {"type": "bedrock_response_failure", "timestamp": now_ms(), "details": details}


def _append_diagnostic(output: dict[str, Any], diagnostic: dict[str, Any]) -> None:
    output["diagnostics"] = [*(output.get("diagnostics") or []), diagnostic]


# --------------------------------------------------------------------------- transport


def _max_attempts() -> int:
    import os

    try:
        value = int(os.environ.get("AWS_MAX_ATTEMPTS") or DEFAULT_MAX_ATTEMPTS)
    except ValueError:
        return DEFAULT_MAX_ATTEMPTS
    return max(1, value)


def _backoff_ms(error: BedrockError, retries: int) -> float:
    base = _THROTTLING_DELAY_MS if error.retry == "throttling" else _TRANSIENT_DELAY_MS
    delay = float(int(random.random() * min(base * 2**retries, _MAX_DELAY_MS)))
    if error.retry_after_ms is not None:
        delay = max(delay, min(error.retry_after_ms, delay + 5000))
    return min(delay, _MAX_DELAY_MS)


async def _scoped(options: StreamOptions, fn: Callable[[], Any]) -> Any:
    """Await ``fn()`` so that an abort cancels it (``AbortedError``)."""
    signal = options.signal
    if signal is None:
        return await fn()
    if signal.aborted:
        raise AbortedError()
    with signal.scope():
        result = await fn()
    if signal.aborted:
        raise AbortedError()
    return result


@dataclass
class _Frames:
    """The event-stream reader: decoded messages as they complete, the first one noted (the
    SDK reads it while deserialising the response, so its failures read as deserialisation
    errors)."""

    buffer: Any
    status: int
    request_id: str | None
    client: Any = None  # the request's own httpx client, closed with the stream
    first_read: bool = False

    def fail(self, error: BedrockError) -> BedrockError:
        if not self.first_read and not error.service:
            error.message += DESERIALIZATION_NOTE
            error.status = self.status
            error.request_id = error.request_id or self.request_id
        return error

    def messages(self) -> Iterator[Any]:
        """The messages complete in the buffer, one at a time (each handled before the next is
        parsed, so a bad frame fails after the events before it, as upstream)."""
        parser_error: Any = _botocore("botocore.eventstream").ParserError
        while True:
            try:
                message = next(self.buffer)
            except StopIteration:
                return
            except parser_error as exc:
                # botocore's ChecksumMismatch does not say which checksum failed; its buffer keeps
                # no prelude when the prelude's own checksum did (it is assigned after the check).
                prelude = getattr(self.buffer, "_prelude", None) is None
                raise self.fail(_stream_error(exc, prelude)) from exc
            yield message

    def decode(self, message: Any) -> tuple[str, dict[str, Any]]:
        """(event type, payload) of an event; raises the error an exception frame carries."""
        headers = message.headers
        kind = headers.get(":message-type")
        if kind == "exception":
            code = str(headers.get(":exception-type"))
            body = bytes(message.payload)
            if code in _STREAM_EXCEPTIONS:
                try:
                    data = json.loads(body or b"{}")
                except ValueError:
                    data = {}
                text = data.get("message") or data.get("Message") if isinstance(data, dict) else None
                name = code[0].upper() + code[1:]
                raise BedrockError(str(text or "UnknownError"), name=name, service=True)
            raise self.fail(BedrockError(body.decode("utf-8", "replace"), name=code))
        if kind == "error":
            raise self.fail(
                BedrockError(str(headers.get(":error-message") or ""), name=str(headers.get(":error-code") or "Error"))
            )
        try:
            payload = json.loads(bytes(message.payload) or b"{}")
        except ValueError as exc:
            raise self.fail(BedrockError(v8_json_error(bytes(message.payload).decode("utf-8", "replace")))) from exc
        self.first_read = True
        return str(headers.get(":event-type") or ""), payload if isinstance(payload, dict) else {}


# ------------------------------------------------------------------------------ stream


@dataclass
class _Open:
    index: int
    arguments: ToolCallArgumentsStream | None = None
    redacted: list[bytes] | None = None


class _Blocks:
    """Upstream's handlers of the content-block events, keyed by Bedrock's block index."""

    def __init__(self, output: dict[str, Any]) -> None:
        self.output = output
        self.content: list[dict[str, Any]] = output["content"]
        self.open: dict[object, _Open] = {}

    def start(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        tool = (event.get("start") or {}).get("toolUse")
        if not tool:
            return []
        self.content.append(
            {"type": "toolCall", "id": tool.get("toolUseId") or "", "name": tool.get("name") or "", "arguments": {}}
        )
        index = len(self.content) - 1
        self.open[event.get("contentBlockIndex")] = _Open(index, ToolCallArgumentsStream())
        return [{"type": "toolcall_start", "contentIndex": index, "partial": self.output}]

    def _opened(self, key: object, block: dict[str, object], kind: str, out: list[AssistantMessageEvent]) -> _Open:
        self.content.append(block)
        opened = _Open(len(self.content) - 1)
        self.open[key] = opened
        start: BlockStartType = (
            "text_start" if kind == "text" else "thinking_start" if kind == "thinking" else "toolcall_start"
        )
        out.append({"type": start, "contentIndex": opened.index, "partial": self.output})
        return opened

    def delta(self, event: dict[str, Any]) -> list[AssistantMessageEvent]:
        key = event.get("contentBlockIndex")
        delta = event.get("delta") or {}
        opened = self.open.get(key)
        block = self.content[opened.index] if opened is not None else None
        out: list[AssistantMessageEvent] = []
        if "text" in delta and delta["text"] is not None:
            if opened is None:
                opened = self._opened(key, {"type": "text", "text": ""}, "text", out)
                block = self.content[opened.index]
            if block is not None and block.get("type") == "text":
                append_text(block, "text", delta["text"])
                out.append(
                    {"type": "text_delta", "contentIndex": opened.index, "delta": delta["text"], "partial": self.output}
                )
        elif delta.get("toolUse") and block is not None and block.get("type") == "toolCall":
            assert opened is not None
            piece = str(delta["toolUse"].get("input") or "")
            if opened.arguments is not None:
                block["arguments"] = opened.arguments.append(piece)
            out.append({"type": "toolcall_delta", "contentIndex": opened.index, "delta": piece, "partial": self.output})
        elif delta.get("reasoningContent"):
            reasoning = delta["reasoningContent"]
            if opened is None:
                opened = self._opened(
                    key, {"type": "thinking", "thinking": "", "thinkingSignature": ""}, "thinking", out
                )
                block = self.content[opened.index]
            if block is not None and block.get("type") == "thinking":
                if reasoning.get("text"):
                    append_text(block, "thinking", reasoning["text"])
                    out.append(
                        {
                            "type": "thinking_delta",
                            "contentIndex": opened.index,
                            "delta": reasoning["text"],
                            "partial": self.output,
                        }
                    )
                if reasoning.get("signature") and not block.get("redacted"):
                    block["thinkingSignature"] = (block.get("thinkingSignature") or "") + reasoning["signature"]
                redacted = reasoning.get("redactedContent")
                if redacted:
                    if not block.get("redacted"):
                        block["redacted"] = True
                        block["thinkingSignature"] = ""
                        append_text(block, "thinking", REDACTED_THINKING)
                        out.append(
                            {
                                "type": "thinking_delta",
                                "contentIndex": opened.index,
                                "delta": REDACTED_THINKING,
                                "partial": self.output,
                            }
                        )
                    # The wire carries base64; upstream keeps the bytes and re-encodes them whole.
                    opened.redacted = [*(opened.redacted or []), base64.b64decode(str(redacted))]
        return out

    def _flush_redacted(self, opened: _Open) -> None:
        block = self.content[opened.index]
        if block.get("type") == "thinking" and opened.redacted:
            block["thinkingSignature"] = base64.b64encode(b"".join(opened.redacted)).decode()
            opened.redacted = None

    def stop(self, event: dict[str, object]) -> list[AssistantMessageEvent]:
        opened = self.open.pop(event.get("contentBlockIndex"), None)
        if opened is None:
            return []
        block = self.content[opened.index]
        kind = block.get("type")
        if kind == "text":
            return [
                {"type": "text_end", "contentIndex": opened.index, "content": block["text"], "partial": self.output}
            ]
        if kind == "thinking":
            self._flush_redacted(opened)
            return [
                {
                    "type": "thinking_end",
                    "contentIndex": opened.index,
                    "content": block["thinking"],
                    "partial": self.output,
                }
            ]
        if kind == "toolCall" and opened.arguments is not None:
            block.update(opened.arguments.finish())
        return [{"type": "toolcall_end", "contentIndex": opened.index, "toolCall": block, "partial": self.output}]

    def flush(self) -> None:
        for opened in self.open.values():
            self._flush_redacted(opened)
        self.open.clear()


def map_stop_reason(reason: object) -> tuple[str, str | None]:
    if reason in ("end_turn", "stop_sequence"):
        return "stop", None
    if reason in ("max_tokens", "model_context_window_exceeded"):
        return "length", None
    if reason == "tool_use":
        return "toolUse", None
    return "error", (f"Provider stopped with: {reason}" if reason else None)


def _usage(raw: dict[str, Any], model: Model, output: dict[str, Any]) -> None:
    usage = output["usage"]
    usage["input"] = raw.get("inputTokens") or 0
    usage["output"] = raw.get("outputTokens") or 0
    usage["cacheRead"] = raw.get("cacheReadInputTokens") or 0
    usage["cacheWrite"] = raw.get("cacheWriteInputTokens") or 0
    details = raw.get("cacheDetails")
    if isinstance(details, list):
        usage["cacheWrite1h"] = sum(
            (d.get("inputTokens") or 0) for d in details if isinstance(d, dict) and d.get("ttl") == "1h"
        )
    usage["totalTokens"] = raw.get("totalTokens") or usage["input"] + usage["output"]
    calculate_cost(model, usage)


def _base_headers(options: StreamOptions) -> dict[str, str]:
    from pi_rpc.ai.http import USER_AGENT

    headers = {"content-type": "application/json", "user-agent": USER_AGENT}
    # Caller headers, except those SigV4 or the bearer token own (upstream's middleware).
    for name, value in (options.headers or {}).items():
        lower = name.lower()
        if value is None or lower.startswith("x-amz-") or lower in ("authorization", "host"):
            continue
        headers[lower] = str(value)
    return headers


async def stream_bedrock_converse_stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    output = new_output(model)
    blocks = _Blocks(output)
    secrets: list[str | None] = [options.api_key]
    request_id: str | None = None
    streaming = False
    try:
        target = resolve_target(model, options)
        secrets += target.secrets
        if options.secrets is not None:
            for secret in target.secrets:  # (the AWS secret key is never sent, but may be quoted)
                options.secrets.add(secret)
        signer: Signer | None = None
        if target.bearer is None:
            # Credential resolution may read files, run SSO/assume-role exchanges or ask the
            # instance metadata service: off the event loop, abandoned on abort.
            signer = await _scoped(options, lambda: anyio.to_thread.run_sync(Signer, target, abandon_on_cancel=True))
        else:
            await anyio.to_thread.run_sync(_botocore, "botocore.eventstream")
        region = signer.region if signer is not None else target.region
        endpoint = target.endpoint or standard_endpoint(region or "us-east-1")
        url = request_url(endpoint, str(model["id"]))
        disable_preferred = strict_tool_limits_exceeded(options.session_id)
        while True:
            body, has_preferred = build_body(model, context, options, disable_preferred_strict=disable_preferred)
            try:
                response, frames = await _send(options, url, body, target, signer)
                break
            except BedrockError as exc:
                if (
                    disable_preferred
                    or not has_preferred
                    or exc.name != "ValidationException"
                    or not is_strict_tool_limit_message(exc.message)
                ):
                    raise
                # Bedrock checks the tool schemas before it streams: the retry repeats nothing.
                disable_preferred = True
                mark_strict_tool_limits_exceeded(options.session_id)
                _append_diagnostic(
                    output,
                    {
                        "type": "bedrock_strict_tools_fallback",
                        "timestamp": now_ms(),
                        "error": {"message": exc.message},
                        "details": {"reason": "strict_tool_limits_exceeded"},
                    },
                )
        request_id = frames.request_id
        streaming = True
        async for event in _events(response, frames, blocks, model, options):
            yield event
        if options.signal is not None and options.signal.aborted:
            raise AbortedError("Request was aborted")
        if output["stopReason"] == "pending":
            raise BedrockError("Bedrock stream ended without a stop reason")
        if output["stopReason"] in ("error", "aborted"):
            raise BedrockError(output.get("errorMessage") or "An unknown error occurred")
        blocks.flush()
        yield {"type": "done", "reason": output["stopReason"], "message": output}
    except Exception as exc:  # noqa: BLE001 - any failure ends the stream as an error event (the provider contract)
        blocks.flush()
        aborted = bool(options.signal and options.signal.aborted)
        output["stopReason"] = "aborted" if aborted else "error"
        if aborted:
            message = ABORTED_WHILE_STREAMING if streaming else ABORTED_BEFORE_ANSWER
        elif isinstance(exc, BedrockError):
            message = exc.display()
        else:
            message = str(exc) or type(exc).__name__
        output["errorMessage"] = redact(message, secrets)
        if not aborted:
            diagnostic = _failure_diagnostic(exc, request_id)
            if diagnostic is not None:
                _append_diagnostic(output, diagnostic)
        yield {"type": "error", "reason": output["stopReason"], "error": output}


async def _send(
    options: StreamOptions, url: str, body: dict[str, object], target: Target, signer: Signer | None
) -> tuple[object, _Frames]:
    """POST with the SDK's retries; the 2xx streaming response and its frame reader."""
    from pi_rpc.ai.http import make_client
    from pi_rpc.ai.jsjson import stringify

    headers = _base_headers(options)
    if options.on_request is not None:
        hooked, body = await options.on_request(dict(headers), body)
        headers = {k.lower(): str(v) for k, v in hooked.items() if v is not None}
    payload = stringify(body)
    attempts = _max_attempts()
    invocation = str(uuid.uuid4())
    client = options.http_client or make_client(options.timeout_s, url)
    own_client = options.http_client is None
    attempt = 0
    try:
        while True:
            attempt += 1
            sent = {
                **headers,
                "amz-sdk-invocation-id": invocation,
                "amz-sdk-request": f"attempt={attempt}; max={attempts}",
            }
            if signer is not None:
                sent["x-amz-content-sha256"] = hashlib.sha256(payload).hexdigest()
                sent = await anyio.to_thread.run_sync(signer.sign, url, sent, payload)
            else:
                sent["authorization"] = f"Bearer {target.bearer}"
            if options.secrets is not None:
                options.secrets.add_headers(sent)
            request = client.build_request("POST", url, headers=sent, content=payload)
            error: BedrockError
            try:
                response = await _scoped(options, lambda: client.send(request, stream=True))
            except AbortedError:
                raise
            except Exception as exc:  # noqa: BLE001 - httpx transport failures, classified as the SDK does
                import httpx

                if not isinstance(exc, httpx.HTTPError):
                    raise
                error = _transport_error(exc, url)
            else:
                response_headers = {k.lower(): v for k, v in response.headers.items()}
                if options.on_response is not None:
                    await options.on_response(response.status_code, dict(response.headers))
                if response.status_code < 300:
                    buffer = _load_event_stream_buffer()  # (imported with the credentials, off the loop)
                    own = own_client
                    own_client = False  # the stream closes the client
                    frames = _Frames(buffer, response.status_code, response_headers.get("x-amzn-requestid"))
                    frames.client = client if own else None
                    return response, frames
                try:
                    raw = await _scoped(options, response.aread)
                finally:
                    await response.aclose()
                error = http_error(response.status_code, response_headers, raw)
            if error.retry is None or attempt >= attempts:
                raise error
            delay_ms = _backoff_ms(error, attempt - 1)
            await _scoped(options, lambda: anyio.sleep(delay_ms / 1000))
    finally:
        if own_client:
            with anyio.CancelScope(shield=True):
                await client.aclose()


async def _events(
    response: Any, frames: _Frames, blocks: _Blocks, model: Model, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """The assistant events of the event stream (closes the response, and its client)."""
    import httpx

    chunks = response.aiter_bytes()
    try:
        while True:
            try:
                chunk = await _scoped(options, chunks.__anext__)
            except StopAsyncIteration:
                break
            except httpx.HTTPError as exc:
                # Node's text for a response body cut short.
                raise frames.fail(BedrockError("aborted")) from exc
            frames.buffer.add_data(chunk)
            for message in frames.messages():
                kind, data = frames.decode(message)
                if options.on_stream_event is not None:
                    await options.on_stream_event({kind: data}, model)
                for event in _handle(kind, data, blocks, model):
                    yield event
        # Bytes left that never made a whole frame (botocore's buffer keeps them in ``_data``).
        if getattr(frames.buffer, "_data", b""):
            raise frames.fail(BedrockError("Truncated event message received."))
    finally:
        with anyio.CancelScope(shield=True):
            await response.aclose()
            if frames.client is not None:
                await frames.client.aclose()


def _handle(kind: str, data: dict[str, Any], blocks: _Blocks, model: Model) -> list[AssistantMessageEvent]:
    output = blocks.output
    if kind == "messageStart":
        if data.get("role") != "assistant":
            raise BedrockError("Unexpected assistant message start but got user message start instead")
        return [{"type": "start", "partial": output}]
    if kind == "contentBlockStart":
        return blocks.start(data)
    if kind == "contentBlockDelta":
        return blocks.delta(data)
    if kind == "contentBlockStop":
        return blocks.stop(data)
    if kind == "messageStop":
        output["rawStopReason"] = data.get("stopReason")
        stop, message = map_stop_reason(data.get("stopReason"))
        output["stopReason"] = stop
        if message:
            output["errorMessage"] = message
    elif kind == "metadata" and isinstance(data.get("usage"), dict):
        _usage(data["usage"], model, output)
    return []

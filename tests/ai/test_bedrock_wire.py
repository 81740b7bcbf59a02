"""``bedrock-converse-stream`` through the whole program: ``pi --mode rpc`` against a stub on
127.0.0.1 that answers in AWS's binary event stream (frames made by ``tests.ai.eventstream``),
compared with upstream pi 1.6 on the same stub (recorded in
``tests/fixtures/provider_wire/bedrock_*.json``, and live when upstream is installed; upstream's
AWS SDK speaks HTTP/2 unless ``AWS_BEDROCK_FORCE_HTTP1=1``).

Compared: the requests (method, path, the headers that matter — the SigV4 credential scope,
the session token, the payload hash, the SDK's attempt counter — and the body with the system
prompt masked), the events and the messages. Scenarios: thinking, text and a tool call on a
Claude model with prompt caching, the tool result replayed, then an auth failure (403); the
SDK's own retries of a throttled request (429 ×3) under the session's retry; an exception frame
mid-stream; a malformed frame (bad checksums, first and later frame); a dropped connection; a
gateway's HTML error page; Bedrock refusing strict tools (the turn again without them); a
refused connection; credentials from a profile file (with a session token and the profile's
region), an assume-role profile (STS on the stub via ``AWS_ENDPOINT_URL_STS``), environment
keys, a bearer token, ``AWS_BEDROCK_SKIP_AUTH``, and auth.json (a key; a profile that wins over
environment keys); adaptive and budget thinking, GPT reasoning, encrypted reasoning replayed;
aborts before the answer and while streaming.

Every SigV4 signature the stub receives, ours and upstream's, is recomputed with the known
secret through botocore's signer (``verify_sigv4``). Startup must not import botocore.

Re-record with ``python -m tests.ai.test_bedrock_wire --record``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from tests.ai import eventstream as es
from tests.ai.provider_wire import (
    FIXTURES,
    UPSTREAM,
    Reply,
    assert_loaded_only_when_used,
    assert_same_outcome,
    closed_port,
    needs_upstream,
    recorded,
    run_program,
)
from tests.ai.stub_server import Seen
from tests.support.pi_process import OURS

CT = "application/vnd.amazon.eventstream"
CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0"
NOVA = "amazon.nova-micro-v1:0"
KEY_ID, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
PROFILE_KEY_ID, PROFILE_SECRET, PROFILE_TOKEN = "AKIDPROFILE", "profile/secret+key", "profile-session-token"
_SCOPE = re.compile(r"^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, ")


def _events(*frames: bytes) -> Reply:
    return Reply(b"".join(frames), content_type=CT)


def _error(status: int, code: str | None, message: str, **headers: str) -> Reply:
    extra = dict(headers)
    if code is not None:
        extra["x-amzn-ErrorType"] = f"{code}:http://internal.amazon.com/coral/com.amazon.bedrock/"
    return Reply(json.dumps({"message": message}).encode(), status, "application/json", extra)


# A 1×1 PNG.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
START = es.event("messageStart", {"role": "assistant"})
USAGE = {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120}


def _text(text: str, index: int = 0) -> bytes:
    return es.event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": text}})


def _stop(index: int) -> bytes:
    return es.event("contentBlockStop", {"contentBlockIndex": index})


def _end(reason: str = "end_turn", usage: dict[str, Any] | None = None) -> bytes:
    return es.event("messageStop", {"stopReason": reason}) + es.event(
        "metadata", {"usage": usage or USAGE, "metrics": {"latencyMs": 120}}
    )


OK = b"".join((START, _text("Fine."), _stop(0), _end()))


def _bad_last_checksum() -> bytes:
    data = bytearray(OK)
    data[-1] ^= 0xFF
    return bytes(data)


def _bad_first_checksum() -> bytes:
    first = bytearray(START)
    first[-1] ^= 0xFF
    return bytes(first) + OK[len(START) :]


def _tools() -> list[Reply]:
    reasoning = [
        es.event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": t}}})
        for t in ("Let me ", "look.")
    ]
    signature = es.event(
        "contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "c2ln"}}}
    )
    tool = [
        es.event(
            "contentBlockStart",
            {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "read"}}},
        ),
        *(
            es.event("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": piece}}})
            for piece in ('{"path":', '"note.txt"}')
        ),
        _stop(2),
    ]
    cached = {**USAGE, "cacheReadInputTokens": 20, "cacheWriteInputTokens": 10}
    long_cache = {**USAGE, "cacheWriteInputTokens": 8, "cacheDetails": [{"ttl": "1h", "inputTokens": 5}]}
    return [
        _events(
            START, *reasoning, signature, _stop(0), _text("Reading.", 1), _stop(1), *tool, _end("tool_use", cached)
        ),
        _events(START, _text("It says "), _text("hi."), _stop(0), _end("end_turn", long_cache)),
        _error(403, "AccessDeniedException", "You don't have access to the model with the specified model ID."),
    ]


ROLE_KEY_ID, ROLE_SECRET, ROLE_TOKEN = "ASIAROLEEXAMPLE", "role/secret+key", "role-session-token"
_ASSUME_ROLE = f"""<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <Credentials>
      <AccessKeyId>{ROLE_KEY_ID}</AccessKeyId>
      <SecretAccessKey>{ROLE_SECRET}</SecretAccessKey>
      <SessionToken>{ROLE_TOKEN}</SessionToken>
      <Expiration>2099-01-01T00:00:00Z</Expiration>
    </Credentials>
    <AssumedRoleUser>
      <AssumedRoleId>AROAEXAMPLE:pi</AssumedRoleId>
      <Arn>arn:aws:sts::123456789012:assumed-role/bedrock-user/pi</Arn>
    </AssumedRoleUser>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>sts-request-1</RequestId></ResponseMetadata>
</AssumeRoleResponse>
""".encode()


def _reasoning() -> list[Reply]:
    """Encrypted reasoning in two pieces (kept as one base64 payload and replayed), then a
    stop reason pi does not know."""
    redacted = [
        es.event(
            "contentBlockDelta",
            {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"redactedContent": base64.b64encode(part).decode()}},
            },
        )
        for part in (b"\x00\x01secret-", b"reasoning\xff")
    ]
    return [
        _events(START, *redacted, _stop(0), _text("Done.", 1), _stop(1), _end()),
        _events(START, _text("Blocked"), _stop(0), _end("guardrail_intervened")),
    ]


def _errors() -> list[Reply]:
    throttled = _error(429, "ThrottlingException", "Too many requests, please wait before trying again.")
    return [
        throttled,
        throttled,
        throttled,
        _events(OK),
        _events(START, _text("partial"), es.exception("throttlingException", "Too many tokens, please wait.")),
        Reply(_bad_last_checksum(), content_type=CT),
        Reply(START + _text("cut"), content_type=CT, drop=True),
        _events(OK),
        Reply(_bad_first_checksum(), content_type=CT),
        _events(START, _text("x"), es.error("InternalFailure", "boom")),
        Reply(b"<html><body>Forbidden by the gateway</body></html>", 403, content_type="text/html"),
        # Transient failures the SDK retries itself, the third attempt answering.
        _error(500, "InternalServerException", "Internal failure."),
        _error(503, "ServiceUnavailableException", "Try again."),
        _events(OK),
    ]


# Removed from the environment for a run (an empty value is not "unset" to the AWS SDK:
# ``AWS_REGION=""`` is an invalid region to it).
_CLEARED = frozenset(
    (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_BEDROCK_SKIP_AUTH",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_MAX_ATTEMPTS",
        "PI_CACHE_RETENTION",
    )
)
# Upstream's SDK speaks HTTP/2 to a custom endpoint unless told otherwise; nothing probes
# the instance metadata service.
_BASE_ENV = {"AWS_BEDROCK_FORCE_HTTP1": "1", "AWS_EC2_METADATA_DISABLED": "true"}


@contextmanager
def _without_aws_env() -> Iterator[None]:
    saved = {name: os.environ.pop(name) for name in _CLEARED if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


_KEYS = {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET}
_HELLO = [{"prompt": "hello"}]

# name: (replies, model, steps, environment; ``{root}`` is the run's directory)
SCENARIOS: dict[str, tuple[Callable[[], list[Reply]], str, list[dict[str, Any]], dict[str, str]]] = {
    # Signed thinking, text and a tool call; the replay with cache points; then a 403.
    "bedrock_tools": (
        _tools,
        CLAUDE,
        [{"thinking": "low"}, {"prompt": "read note.txt"}, {"prompt": "again"}],
        _KEYS,
    ),
    # 429 ×3 (the SDK's attempts) then the session's retry; an exception frame mid-stream; a bad
    # checksum on the last frame; a dropped connection; a bad first frame; an error frame; HTML.
    "bedrock_errors": (
        _errors,
        NOVA,
        [{"prompt": p} for p in ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")],
        _KEYS,
    ),
    # A named profile: keys and a session token from the credentials file, the region from config.
    "bedrock_profile": (
        lambda: [_events(OK)],
        NOVA,
        _HELLO,
        {
            "AWS_PROFILE": "dev",
            "AWS_SHARED_CREDENTIALS_FILE": "{root}/aws/credentials",
            "AWS_CONFIG_FILE": "{root}/aws/config",
        },
    ),
    # Adaptive thinking at xhigh with long cache retention (Claude), then GPT reasoning effort;
    # encrypted reasoning replayed to the model it came from.
    "bedrock_reasoning": (
        _reasoning,
        "anthropic.claude-opus-4-7",
        [{"thinking": "xhigh"}, {"prompt": "think"}, {"prompt": "again"}],
        {**_KEYS, "PI_CACHE_RETENTION": "long"},
    ),
    "bedrock_gpt": (
        _reasoning,
        "global.openai.gpt-5.6-luna",
        [{"thinking": "minimal"}, {"prompt": "think"}, {"prompt": "again"}],
        _KEYS,
    ),
    # Bedrock refuses the strict tools (Claude's limits): the same turn again with the tools
    # that only prefer strict sent plain, and the session's later requests too.
    "bedrock_strict_fallback": (
        lambda: [
            _error(400, "ValidationException", "Too many strict tools (24 > 20). Reduce the number of strict tools."),
            _events(OK),
        ],
        CLAUDE,
        [{"prompt": "one"}, {"prompt": "two"}],
        _KEYS,
    ),
    # Nothing listens at the endpoint: the SDK's attempts, then the session's retries.
    "bedrock_refused": (lambda: [_events(OK)], NOVA, _HELLO, _KEYS),
    # The stream ends inside a frame: first the first frame, then a later one.
    "bedrock_truncated": (
        lambda: [Reply(START[:-5], content_type=CT), Reply(OK[:-7], content_type=CT)],
        NOVA,
        [{"prompt": "one"}, {"prompt": "two"}],
        _KEYS,
    ),
    # auth.json: a stored key is a bearer token; a stored profile wins over environment keys.
    "bedrock_stored_key": (lambda: [_events(OK)], NOVA, _HELLO, {}),
    "bedrock_stored_profile": (
        lambda: [_events(OK)],
        NOVA,
        _HELLO,
        {**_KEYS, "AWS_SHARED_CREDENTIALS_FILE": "{root}/aws/credentials", "AWS_CONFIG_FILE": "{root}/aws/config"},
    ),
    # An assume-role profile: STS (redirected by ``AWS_ENDPOINT_URL_STS``) is asked with the
    # source profile's keys, the role's temporary credentials sign the Bedrock request.
    "bedrock_assume_role": (
        lambda: [Reply(_ASSUME_ROLE, content_type="text/xml"), _events(OK)],
        NOVA,
        _HELLO,
        {
            "AWS_PROFILE": "role",
            "AWS_SHARED_CREDENTIALS_FILE": "{root}/aws/credentials",
            "AWS_CONFIG_FILE": "{root}/aws/config",
            "AWS_ENDPOINT_URL_STS": "{stub}",
        },
    ),
    # No credentials to be had: a profile nobody configured (without a region: the region is
    # missing first), a container endpoint that refuses.
    "bedrock_missing_profile": (lambda: [_events(OK)], NOVA, _HELLO, {"AWS_PROFILE": "nope"}),
    "bedrock_no_credentials": (
        lambda: [_events(OK)],
        NOVA,
        _HELLO,
        {"AWS_PROFILE": "nope", "AWS_REGION": "eu-west-1", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.1:9/"},
    ),
    "bedrock_bearer": (lambda: [_events(OK)], NOVA, _HELLO, {"AWS_BEARER_TOKEN_BEDROCK": "bedrock-api-key-123"}),
    "bedrock_skip_auth": (
        lambda: [_events(OK)],
        NOVA,
        _HELLO,
        {"AWS_BEDROCK_SKIP_AUTH": "1", "AWS_REGION": "eu-central-1", **_KEYS},
    ),
}

_AUTH: dict[str, dict[str, Any]] = {
    "bedrock_stored_key": {"amazon-bedrock": {"type": "api_key", "key": "stored-bedrock-key"}},
    "bedrock_stored_profile": {"amazon-bedrock": {"type": "api_key", "env": {"AWS_PROFILE": "dev"}}},
}

_SECRETS = {
    KEY_ID: (SECRET, None),
    PROFILE_KEY_ID: (PROFILE_SECRET, PROFILE_TOKEN),
    "dummy-access-key": ("dummy-secret-key", None),
    "AKIDBASE": ("base/secret", None),
    ROLE_KEY_ID: (ROLE_SECRET, ROLE_TOKEN),
}


def _write_profile(root: Path) -> None:
    aws = root / "aws"
    aws.mkdir(parents=True, exist_ok=True)
    (aws / "credentials").write_text(
        f"[dev]\naws_access_key_id = {PROFILE_KEY_ID}\naws_secret_access_key = {PROFILE_SECRET}\n"
        f"aws_session_token = {PROFILE_TOKEN}\n"
    )
    (aws / "config").write_text(
        "[profile dev]\nregion = eu-west-1\n\n"
        "[profile base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = base/secret\nregion = eu-west-1\n\n"
        "[profile role]\nrole_arn = arn:aws:iam::123456789012:role/bedrock-user\nsource_profile = base\n"
        "region = eu-north-1\n"
    )


def verify_sigv4(request: Seen, secret: str, token: str | None) -> None:
    """Recompute the request's SigV4 signature with the known secret (botocore's signer over
    exactly the headers the request says it signed) and compare."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    authorization = request.headers["authorization"]
    fields = dict(part.split("=", 1) for part in authorization.split(" ", 1)[1].split(", "))
    key_id, _date, region, service, _ = fields["Credential"].split("/")
    signed = fields["SignedHeaders"].split(";")
    headers = {name: request.headers[name] for name in signed}
    aws = AWSRequest(method=request.method, url=f"http://{request.headers['host']}{request.path}", data=request.raw)
    for name, value in headers.items():
        aws.headers[name] = value
    aws.context["timestamp"] = request.headers["x-amz-date"]

    def signature(with_secret: str) -> str:
        signer = SigV4Auth(Credentials(key_id, with_secret, token), service, region)
        result: str = signer.signature(signer.string_to_sign(aws, signer.canonical_request(aws)), aws)
        return result

    assert signature(secret) == fields["Signature"], f"bad signature for {key_id}"
    assert signature(secret + "x") != fields["Signature"]  # the check can fail
    assert request.headers.get("x-amz-security-token") == token
    assert "x-amz-security-token" in signed if token else True


def _request_view(request: Seen) -> dict[str, Any]:
    headers = request.headers
    view: dict[str, Any] = {
        "content-type": headers.get("content-type"),
        "amz-sdk-request": headers.get("amz-sdk-request"),
    }
    authorization = headers.get("authorization", "")
    scope = _SCOPE.match(authorization)
    if scope:
        key_id, _date, region, service = scope.groups()
        view["authorization"] = f"AWS4-HMAC-SHA256 Credential={key_id}/<date>/{region}/{service}/aws4_request"
        view["x-amz-security-token"] = headers.get("x-amz-security-token")
        sha = headers.get("x-amz-content-sha256")
        view["x-amz-content-sha256"] = "<sha256 of the body>" if sha == hashlib.sha256(request.raw).hexdigest() else sha
    else:
        view["authorization"] = authorization
    body: Any = request.body
    if str(headers.get("content-type", "")).startswith("application/x-www-form-urlencoded"):
        # An STS call is botocore's (or the JS SDK's) own client: compared on what it asks
        # for and who signs it, not on each SDK's defaults (session name, duration, charset).
        form = parse_qs(str(body))
        return {
            "method": request.method,
            "path": request.path,
            "headers": {"authorization": view["authorization"], "x-amz-security-token": view["x-amz-security-token"]},
            "body": {key: form.get(key) for key in ("Action", "RoleArn")},
        }
    if isinstance(body, dict):
        body = json.loads(json.dumps(body))
        for block in body.get("system") or []:
            if "text" in block:
                block["text"] = "<system prompt>"
        for tool in (body.get("toolConfig") or {}).get("tools") or []:
            tool.get("toolSpec", {}).pop("description", None)  # our tools are described in our own words
    return {"method": request.method, "path": request.path, "headers": view, "body": body}


def run_scenario(argv: list[str], root: Path, name: str) -> dict[str, Any]:
    replies, model, steps, env = SCENARIOS[name]
    root.mkdir(parents=True, exist_ok=True)
    _write_profile(root)
    port = closed_port() if name == "bedrock_refused" else None
    with _without_aws_env():
        outcome = run_program(
            argv,
            root,
            replies(),
            provider="amazon-bedrock",
            steps=[{"model": model}, *steps],
            env={**_BASE_ENV, **{k: v.replace("{root}", str(root)) for k, v in env.items()}},
            base_path=None if port else "",
            base_url=f"http://127.0.0.1:{port}" if port else None,
            files={"note.txt": "hi\n"},
            auth=_AUTH.get(name),
            timeout=90,
        )
    for request in outcome.seen:
        if request.headers.get("authorization", "").startswith("AWS4-HMAC-SHA256"):
            key_id = _SCOPE.match(request.headers["authorization"])
            assert key_id is not None
            secret, token = _SECRETS[key_id.group(1)]
            verify_sigv4(request, secret, token)
    result = {
        "requests": [_request_view(r) for r in outcome.seen],
        "events": outcome.events,
        "messages": outcome.messages,
    }
    if port is None:
        return result
    masked: dict[str, Any] = json.loads(json.dumps(result).replace(f"127.0.0.1:{port}", "127.0.0.1:<port>"))
    return masked


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_equals_upstreams_recorded_outcome(tmp_path: Path, name: str) -> None:
    assert_same_outcome(run_scenario(OURS, tmp_path, name), recorded(name))


@needs_upstream
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_equals_upstream_live(tmp_path: Path, name: str) -> None:
    assert UPSTREAM is not None
    upstream = run_scenario(UPSTREAM, tmp_path / "upstream", name)
    ours = run_scenario(OURS, tmp_path / "ours", name)
    assert_same_outcome(ours, upstream)


def test_recorded_outcomes_say_what_matters() -> None:
    """The checked-in expectations hold the facts this file is about (guards a bad re-record)."""
    tools = recorded("bedrock_tools")
    first = tools["requests"][0]
    assert (first["method"], first["path"]) == ("POST", f"/model/{CLAUDE.replace(':', '%3A')}/converse-stream")
    assert (
        first["headers"]["authorization"]
        == f"AWS4-HMAC-SHA256 Credential={KEY_ID}/<date>/us-east-1/bedrock/aws4_request"
    )
    assert first["body"]["system"][-1] == {"cachePoint": {"type": "default"}}
    assert first["body"]["additionalModelRequestFields"]["thinking"]["type"] == "enabled"
    replay = tools["requests"][1]["body"]["messages"]
    assert replay[1]["content"][0] == {
        "reasoningContent": {"reasoningText": {"text": "Let me look.", "signature": "c2ln"}}
    }
    assert replay[2]["content"][0]["toolResult"]["toolUseId"] == "tooluse_1"
    assert tools["messages"][-1]["errorMessage"].startswith("AccessDeniedException: You don't have access")
    errors = recorded("bedrock_errors")
    attempts = [r["headers"]["amz-sdk-request"] for r in errors["requests"][:4]]
    assert attempts == ["attempt=1; max=3", "attempt=2; max=3", "attempt=3; max=3", "attempt=1; max=3"]
    texts = [m.get("errorMessage") for m in errors["messages"] if m["role"] == "assistant"]
    assert "Throttling error: Too many tokens, please wait." in texts
    assert any(t and t.startswith("The message checksum (") for t in texts)
    assert "aborted" in texts
    adaptive = recorded("bedrock_reasoning")["requests"]
    assert adaptive[0]["body"]["additionalModelRequestFields"]["output_config"] == {"effort": "xhigh"}
    assert adaptive[0]["body"]["system"][-1] == {"cachePoint": {"type": "default", "ttl": "1h"}}
    replayed = adaptive[1]["body"]["messages"][1]["content"][0]
    assert replayed == {"reasoningContent": {"redactedContent": "AAFzZWNyZXQtcmVhc29uaW5n/w=="}}
    assert recorded("bedrock_gpt")["requests"][0]["body"]["additionalModelRequestFields"] == {
        "reasoning": {"effort": "low"}
    }
    profile = recorded("bedrock_profile")["requests"][0]["headers"]
    assert (
        profile["authorization"]
        == f"AWS4-HMAC-SHA256 Credential={PROFILE_KEY_ID}/<date>/eu-west-1/bedrock/aws4_request"
    )
    assert profile["x-amz-security-token"] == PROFILE_TOKEN
    assert recorded("bedrock_bearer")["requests"][0]["headers"]["authorization"] == "Bearer bedrock-api-key-123"
    sts, api = recorded("bedrock_assume_role")["requests"]
    assert sts["headers"]["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDBASE/<date>/eu-north-1/sts/")
    assert api["headers"]["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={ROLE_KEY_ID}/<date>/eu-north-1/")
    assert api["headers"]["x-amz-security-token"] == ROLE_TOKEN
    stored = recorded("bedrock_stored_profile")["requests"][0]["headers"]["authorization"]
    assert stored.startswith(f"AWS4-HMAC-SHA256 Credential={PROFILE_KEY_ID}/")  # not the environment's keys
    skip = recorded("bedrock_skip_auth")["requests"][0]["headers"]["authorization"]
    assert skip == "AWS4-HMAC-SHA256 Credential=dummy-access-key/<date>/eu-central-1/bedrock/aws4_request"


def test_secrets_stay_out_of_the_output(tmp_path: Path) -> None:
    """The secret key, the session token and the bearer token never reach the events, the
    messages or stderr, even when the request fails."""
    for name, secret in (("bedrock_profile", PROFILE_SECRET), ("bedrock_tools", SECRET)):
        _, model, steps, env = SCENARIOS[name]
        root = tmp_path / name
        root.mkdir()
        _write_profile(root)
        with _without_aws_env():
            outcome = run_program(
                OURS,
                root,
                [_error(403, "AccessDeniedException", "denied")],
                provider="amazon-bedrock",
                steps=[{"model": model}, {"prompt": "hello"}],
                env={**_BASE_ENV, **{k: v.replace("{root}", str(root)) for k, v in env.items()}},
                base_path="",
            )
        text = json.dumps(outcome.events) + json.dumps(outcome.messages) + outcome.stderr
        assert outcome.messages[-1]["errorMessage"] == "AccessDeniedException: denied"
        assert secret not in text and PROFILE_TOKEN not in text


def run_abort(argv: list[str], root: Path, *, answer: bool) -> tuple[Any, ...]:
    """Abort a turn while the stub streams slowly (``answer``), or while nothing answers at all
    (a socket that listens but never replies): the last message's stop reason, error text and
    content, and whether the stub saw the connection go."""
    import socket
    import time

    from tests.ai.stub_server import ReplayServer
    from tests.support.pi_process import PiProcess, isolated_env

    deltas = b"".join(_text(f"w{i} ") for i in range(50))
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(5)
    root.mkdir(parents=True, exist_ok=True)
    with silent, ReplayServer([Reply(START + deltas, content_type=CT, chunk_size=60, delay_s=0.1)]) as stub:
        url = stub.url if answer else f"http://127.0.0.1:{silent.getsockname()[1]}"
        with _without_aws_env():
            env = isolated_env(root, {**_BASE_ENV, **_KEYS}, faux=False)
        (Path(env["PI_CODING_AGENT_DIR"]) / "models.json").write_text(
            json.dumps({"providers": {"amazon-bedrock": {"baseUrl": url}}})
        )
        proc = PiProcess([*argv, "--mode", "rpc", "--no-session"], env, root, root=root)
        try:
            proc.ok("get_state")
            proc.ok("set_model", provider="amazon-bedrock", modelId=NOVA)
            before = proc.mark()
            proc.ok("prompt", message="hi")
            if answer:
                proc.wait_for(
                    lambda r: (
                        isinstance(r, dict) and (r.get("assistantMessageEvent") or {}).get("type") == "text_delta"
                    ),
                    start=before,
                )
            else:
                time.sleep(1.0)  # the request is out, no answer comes
            proc.ok("abort")
            proc.wait_for(lambda r: isinstance(r, dict) and r.get("type") == "agent_end", start=before)
            last = proc.ok("get_messages")["messages"][-1]
        finally:
            proc.close()
        if answer:
            assert stub.disconnected.wait(5)  # the response was closed, not read to the end
    return last["stopReason"], last.get("errorMessage"), last["content"], last.get("diagnostics")


# Upstream 1.6's outcomes (AWS SDK: its AbortError caused by the signal's DOMException; Node's
# "aborted" for a body cut short).
ABORT_OUTCOMES = {
    True: ("aborted", "aborted", [{"type": "text", "text": "w0 "}], None),
    False: ("aborted", "Request aborted: This operation was aborted (20)", [], None),
}


@pytest.mark.parametrize("answer", [True, False])
def test_abort_reads_as_upstreams(tmp_path: Path, answer: bool) -> None:
    assert run_abort(OURS, tmp_path, answer=answer) == ABORT_OUTCOMES[answer]


@needs_upstream
@pytest.mark.parametrize("answer", [True, False])
def test_abort_outcomes_are_upstreams_live(tmp_path: Path, answer: bool) -> None:
    assert UPSTREAM is not None
    assert run_abort(UPSTREAM, tmp_path, answer=answer) == ABORT_OUTCOMES[answer]


# ----------------------------------------------------------------------------- pure pieces


def test_encoder_frames_decode_with_botocore() -> None:
    """The test encoder writes what botocore's decoder reads (so the stubs speak the format)."""
    from botocore.eventstream import EventStreamBuffer

    buffer = EventStreamBuffer()
    buffer.add_data(OK + es.exception("throttlingException", "slow"))
    messages = list(buffer)
    assert [m.headers.get(":event-type") or m.headers.get(":exception-type") for m in messages] == [
        "messageStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
        "throttlingException",
    ]
    assert json.loads(messages[1].payload) == {"contentBlockIndex": 0, "delta": {"text": "Fine."}}


def test_region_endpoint_and_auth_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_rpc.ai.providers.bedrock_converse_stream import request_url, resolve_target, standard_endpoint
    from pi_rpc.ai.types import StreamOptions

    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    catalogue: Any = {"id": NOVA, "baseUrl": "https://bedrock-runtime.us-east-1.amazonaws.com"}
    target = resolve_target(catalogue, StreamOptions())
    assert (target.endpoint, target.region) == ("https://bedrock-runtime.us-east-1.amazonaws.com", "us-east-1")
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    target = resolve_target(catalogue, StreamOptions())
    assert (target.endpoint, target.region) == (None, "eu-west-3")  # the region's own endpoint
    assert standard_endpoint("cn-north-1") == "https://bedrock-runtime.cn-north-1.amazonaws.com.cn"
    arn: Any = {"id": "arn:aws:bedrock:ap-south-1:123:application-inference-profile/abc", "baseUrl": "http://proxy"}
    target = resolve_target(arn, StreamOptions())
    assert (target.endpoint, target.region) == ("http://proxy", "ap-south-1")
    assert request_url("http://proxy/", arn["id"]) == (
        "http://proxy/model/arn%3Aaws%3Abedrock%3Aap-south-1%3A123%3Aapplication-inference-profile%2Fabc/converse-stream"
    )
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.setenv("AWS_PROFILE", "work")
    target = resolve_target(catalogue, StreamOptions())
    assert (target.endpoint, target.region, target.profile) == (None, None, "work")  # the profile's region
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "a")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    assert resolve_target(catalogue, StreamOptions()).keys == ("a", "s", None)  # ambient profile: keys win
    stored = StreamOptions(extra={"env": {"AWS_PROFILE": "stored"}})
    target = resolve_target(catalogue, stored)
    assert (target.keys, target.profile, target.explicit_profile) == (None, "stored", True)
    assert resolve_target(catalogue, StreamOptions(api_key="tok")).bearer == "tok"
    monkeypatch.setenv("AWS_BEDROCK_SKIP_AUTH", "1")
    skipped = resolve_target(catalogue, StreamOptions(api_key="tok"))
    assert (skipped.bearer, skipped.skip_auth, skipped.keys) == (None, True, None)


def test_images_in_messages_and_error_tool_results() -> None:
    """Images go out as base64 bytes with their format; for Claude an error tool result's images
    follow all results of the turn with a caption (upstream #10794), other models keep them."""
    from pi_rpc.ai.providers.bedrock_request import ERROR_TOOL_IMAGE_PLACEHOLDER, convert_messages

    image = {"type": "image", "data": PNG, "mimeType": "image/png"}
    call = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "a.png", "": 1}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "look"}, image, {"type": "text", "text": "  "}]},
        {"role": "assistant", "content": [call], "provider": "amazon-bedrock", "api": "bedrock-converse-stream"},
        {"role": "toolResult", "toolCallId": "t1", "toolName": "read", "isError": True, "content": [image]},
    ]
    png = {"image": {"source": {"bytes": PNG}, "format": "png"}}
    for model_id, claude in ((CLAUDE, True), (NOVA, False)):
        model: Any = {
            "id": model_id,
            "provider": "amazon-bedrock",
            "api": "bedrock-converse-stream",
            "input": ["text", "image"],
        }
        messages[1]["model"] = model_id
        out = convert_messages(messages, model, "short", caching=False)
        assert out[0] == {"role": "user", "content": [{"text": "look"}, png]}
        assert out[1]["content"][0]["toolUse"]["input"] == {"path": "a.png"}  # empty keys dropped
        result = out[2]["content"][0]["toolResult"]
        assert result["status"] == "error"
        if claude:
            assert result["content"] == [{"text": ERROR_TOOL_IMAGE_PLACEHOLDER}]
            assert out[2]["content"][1:] == [{"text": "Images from the error result of tool call t1 (read):"}, png]
        else:
            assert result["content"] == [png] and len(out[2]["content"]) == 1


def test_http_error_texts() -> None:
    from pi_rpc.ai.providers.bedrock_converse_stream import http_error

    err = http_error(400, {}, b'{"__type":"com.amazon.coral.validate#ValidationException","message":"bad"}')
    assert (err.display(), err.retry) == ("Validation error: bad", None)
    err = http_error(403, {}, b"")
    assert err.display() == "Unknown: UnknownError"
    err = http_error(429, {"x-amzn-errortype": "ThrottlingException:http://x"}, b'{"message":"slow"}')
    assert (err.display(), err.retry) == ("Throttling error: slow", "throttling")
    err = http_error(503, {}, b'{"Message":"down"}')
    assert (err.display(), err.retry) == ("Unknown: down", "transient")
    err = http_error(418, {}, b"not json")
    assert err.display().startswith("Unexpected token 'o', \"not json\" is not valid JSON\n  Deserialization error")


def test_json_error_texts_are_v8s_for_gateway_bodies() -> None:
    """The provider's short V8 ``JSON.parse`` texts agree with the RPC layer's full scanner on
    what a gateway sends instead of JSON."""
    from pi_rpc.ai.providers.bedrock_converse_stream import v8_json_error
    from pi_rpc.modes.wire.jsonparse import v8_json_error as full_scanner

    bodies = ["<html><body>Forbidden</body></html>", "not json", "Service Unavailable", "nul", "", "  ", "true x"]
    bodies += ["x" * 21, "x" * 22, "Bad Gateway\n\n<hr>nginx</hr>", "false\n\nmore"]
    for body in bodies:
        assert v8_json_error(body) == full_scanner(body), body


def test_botocore_is_loaded_only_when_a_bedrock_model_streams() -> None:
    """Startup and the provider's registration leave botocore unloaded."""
    assert_loaded_only_when_used("bedrock-converse-stream", "pi_rpc.ai.providers.bedrock_converse_stream")
    code = (
        "import sys\n"
        "import pi_rpc.cli\n"
        "from pi_rpc.ai.stream import get_provider\n"
        "assert get_provider('bedrock-converse-stream') is not None\n"
        "assert not [m for m in sys.modules if m.startswith('botocore')], 'botocore imported'\n"
    )
    env = {"PYTHONPATH": str(FIXTURES.parents[2]), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


def test_without_botocore_the_extra_is_named() -> None:
    code = (
        "import sys\n"
        "sys.modules['botocore'] = None\n"
        "from pi_rpc.ai.providers.bedrock_converse_stream import Signer, Target\n"
        "try:\n"
        "    Signer(Target(None, 'us-east-1', None, False, keys=('a', 'b', None)))\n"
        "except RuntimeError as exc:\n"
        "    print(exc)\n"
    )
    env = {"PYTHONPATH": str(FIXTURES.parents[2]), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code], check=True, env=env, timeout=60, capture_output=True, text=True
    )
    assert "pip install 'pi-rpc[bedrock]'" in result.stdout


def _record() -> None:
    assert UPSTREAM is not None, "upstream pi 1.6 is needed to record"
    FIXTURES.mkdir(parents=True, exist_ok=True)
    names = sys.argv[sys.argv.index("--record") + 1 :] or sorted(SCENARIOS)
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            outcome = run_scenario(UPSTREAM, Path(tmp), name)
        (FIXTURES / f"{name}.json").write_text(json.dumps(outcome, indent=1, ensure_ascii=False) + "\n")
        print(f"recorded {name}")


if __name__ == "__main__" and "--record" in sys.argv:
    _record()

"""The redaction rules in-process (``pi_rpc/ai/redaction.py``, ``redact_answer`` of the OAuth
refresh errors); the whole-program proof is ``tests/auth/test_secret_echo.py``."""

from __future__ import annotations

import json
from urllib.parse import quote

from pi_rpc.ai.auth.oauth.refresh import redact_answer
from pi_rpc.ai.errors import retry_hint_ms, set_retry_hint
from pi_rpc.ai.redaction import RequestSecrets, redact_error_message

TOKEN = 'tok/en+"SENTINEL"\\1'


def test_a_value_is_found_as_sent_json_escaped_url_encoded_and_without_its_scheme() -> None:
    secrets = RequestSecrets.for_request("sk-abcdef123", {"Authorization": f"Bearer {TOKEN}", "X-Short": "abc"})
    text = " | ".join(["sk-abcdef123", f"Bearer {TOKEN}", TOKEN, json.dumps(TOKEN), quote(TOKEN, safe=""), "abc"])
    assert secrets.redact(text) == " | ".join(["[redacted]"] * 3 + ['"[redacted]"', "[redacted]", "abc"])


def test_provider_headers_count_when_named_like_credentials() -> None:
    secrets = RequestSecrets()
    secrets.add_headers(
        {
            "x-amz-security-token": "session-token-1",
            "X-Custom-Api-Key": "custom-key-1",
            "Editor-Version": "vscode/1.107.0",
        }
    )
    assert "session-token-1" in secrets and "custom-key-1" in secrets
    assert "vscode/1.107.0" not in secrets


def test_an_error_message_keeps_its_retry_hint_when_redacted() -> None:
    message = {"stopReason": "error", "errorMessage": "429 key sk-abcdef123 over quota", "timestamp": 1,
               "diagnostics": [{"details": {"body": "sk-abcdef123"}}]}  # fmt: skip
    set_retry_hint(message, 1500)
    redact_error_message(message, RequestSecrets(["sk-abcdef123"]))
    assert message["errorMessage"] == "429 key [redacted] over quota"
    assert message["diagnostics"] == [{"details": {"body": "[redacted]"}}]
    assert retry_hint_ms(message) == 1500


def test_token_answers_camel_case_cut_off_and_unknown_shapes() -> None:
    assert redact_answer('{"accessToken":"A1b2C3d4","refreshToken":"R1","expires_in":3600}') == (
        '{"accessToken":"[redacted]","refreshToken":"[redacted]","expires_in":3600}'
    )
    assert redact_answer('{"error":"x","access_token":"SENTINEL-cut-of') == '{"error":"x","access_token":"[redacted]"'
    unknown = '{"error":"invalid_grant","data":{"issued":["eyJhbGciOi.eyJzdWIiOjE.c2lnbmF0dXJl9"]}}'
    assert redact_answer(unknown) == '{"error":"invalid_grant","data":{"issued":["[redacted]"]}}'
    # Not a token: words, URLs, the error's own fields.
    plain = '{"error":"invalid_grant","error_description":"Refresh token expired","error_uri":"https://x.example/v1/e"}'
    assert redact_answer(plain) == plain
    assert redact_answer("<html>Bad gateway 2xSENTINEL9token0value at https://example.com/v1/x</html>") == (
        "<html>Bad gateway [redacted] at https://example.com/v1/x</html>"
    )

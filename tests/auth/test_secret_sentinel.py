"""The sentinel-secret test (issue #21 item 8): log in over RPC (a token that is due at once),
prompt (a refresh), prompt again, export the session, read the state; every
token is a sentinel value, and every byte the process wrote -- stdout, stderr, the session
file, the export, any other file under its home and agent dir except auth.json -- is scanned
for them. The refresh token endpoint echoes the old refresh token in a failing answer too, so
an error that quotes it is checked for redaction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ai.oauth_wire import anthropic_sse
from tests.ai.stub_server import ReplayServer, Reply
from tests.ai.tls_intercept import Interceptor
from tests.support.pi_process import OURS, PiProcess, isolated_env

LOGIN_ACCESS = "sk-ant-oat01-SENTINEL-LOGIN-ACCESS-aa11"
LOGIN_REFRESH = "sk-ant-ort01-SENTINEL-LOGIN-REFRESH-bb22"
NEW_ACCESS = "sk-ant-oat01-SENTINEL-NEW-ACCESS-cc33"
NEW_REFRESH = "sk-ant-ort01-SENTINEL-NEW-REFRESH-dd44"
SECRETS = (LOGIN_ACCESS, LOGIN_REFRESH, NEW_ACCESS, NEW_REFRESH)


def _json(body: Any, status: int = 200) -> Reply:
    return Reply(body=json.dumps(body).encode(), status=status, content_type="application/json")


def _scan(proc: PiProcess, root: Path) -> list[str]:
    written = b"".join(proc.raw_lines) + proc.stderr.encode()
    files = [p for p in root.rglob("*") if p.is_file() and p.name != "auth.json" and "tls" not in p.parts]
    for path in files:
        written += path.read_bytes()
    return [secret for secret in SECRETS if secret.encode() in written]


def test_no_secret_anywhere_after_login_prompt_refresh_and_export(tmp_path: Path) -> None:
    answers = {
        # expires_in 200 s: stored as already expired (now + 200 s − 5 min), so the first
        # request refreshes it.
        "authorization_code": _json({"access_token": LOGIN_ACCESS, "refresh_token": LOGIN_REFRESH, "expires_in": 200}),
        "refresh_token": _json({"access_token": NEW_ACCESS, "refresh_token": NEW_REFRESH, "expires_in": 3600}),
    }

    def route(request: dict[str, Any]) -> Reply | None:
        grant = json.loads(request["body"] or "{}").get("grant_type")
        return answers.get(grant)

    with (
        Interceptor(tmp_path / "tls", ["platform.claude.com"], [_json({}, 404)], route=route) as box,
        ReplayServer([Reply(anthropic_sse("Hello."))], repeat_last=True) as api,
    ):
        env = isolated_env(tmp_path, box.proxy_env(), faux=False)
        agent = Path(env["PI_CODING_AGENT_DIR"])
        (agent / "models.json").write_text(json.dumps({"providers": {"anthropic": {"baseUrl": api.url}}}))
        (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
        cwd = tmp_path / "cwd"
        cwd.mkdir()
        proc = PiProcess([*OURS, "--mode", "rpc", "--session-dir", str(tmp_path / "sessions")], env, cwd, root=tmp_path)
        try:
            cmd_id = proc.request("auth_login", provider="anthropic", method="copy_code")
            note = proc.wait_for(lambda r: r.get("method") == "notify", timeout=20)
            state = note["message"].split("state=")[1].split("&")[0].split()[0]
            dialog = proc.wait_for(lambda r: r.get("method") == "input", timeout=20)
            proc.send({"type": "extension_ui_response", "id": dialog["id"], "value": f"the-code#{state}"})
            assert proc.response(cmd_id, timeout=20)["success"] is True

            proc.ok("set_model", provider="anthropic", modelId="claude-sonnet-4-5")
            proc.ok("prompt", message="first")
            proc.wait_for(lambda r: r.get("type") == "agent_end", timeout=30)

            mark = proc.mark()
            proc.ok("prompt", message="second")
            proc.wait_for(lambda r: r.get("type") == "agent_end", timeout=30, start=mark)

            proc.ok("get_state")
            proc.ok("get_auth_status")
            proc.ok("get_messages")
            exported = proc.ok("export_html", outputPath=str(tmp_path / "export.html"))
            assert Path(exported["path"]).exists()
        finally:
            proc.close()
        auths = [r.headers.get("authorization") for r in api.requests]
    assert auths == [f"Bearer {NEW_ACCESS}", f"Bearer {NEW_ACCESS}"]  # refreshed once, then used
    grants = [json.loads(r["body"])["grant_type"] for r in box.requests]
    assert grants == ["authorization_code", "refresh_token"]
    assert json.loads((agent / "auth.json").read_text())["anthropic"]["refresh"] == NEW_REFRESH
    assert list((tmp_path / "sessions").rglob("*.jsonl"))  # a session file was written and scanned
    assert _scan(proc, tmp_path) == []


def test_a_failing_refresh_does_not_quote_the_token(tmp_path: Path) -> None:
    """The token endpoint echoes the refresh token in its error body (upstream quotes it
    verbatim); the turn's errorMessage, the session file and stderr must not."""
    echo = _json({"error": "invalid_grant", "refresh_token": LOGIN_REFRESH, "access_token": LOGIN_ACCESS}, 400)
    with (
        Interceptor(tmp_path / "tls", ["platform.claude.com"], [echo]) as box,
        ReplayServer([Reply(anthropic_sse())], repeat_last=True) as api,
    ):
        env = isolated_env(tmp_path, box.proxy_env(), faux=False)
        agent = Path(env["PI_CODING_AGENT_DIR"])
        (agent / "models.json").write_text(json.dumps({"providers": {"anthropic": {"baseUrl": api.url}}}))
        stored = {"anthropic": {"type": "oauth", "access": LOGIN_ACCESS, "refresh": LOGIN_REFRESH, "expires": 1000}}
        (agent / "auth.json").write_text(json.dumps(stored, indent=2))
        cwd = tmp_path / "cwd"
        cwd.mkdir()
        proc = PiProcess([*OURS, "--mode", "rpc", "--session-dir", str(tmp_path / "sessions")], env, cwd, root=tmp_path)
        try:
            proc.ok("set_model", provider="anthropic", modelId="claude-sonnet-4-5")
            proc.ok("prompt", message="hi")
            end = proc.wait_for(lambda r: r.get("type") == "agent_end", timeout=30)
        finally:
            proc.close()
    error = [m for m in end["messages"] if m.get("role") == "assistant"][-1]["errorMessage"]
    assert error.startswith("OAuth refresh failed for anthropic")
    assert api.requests == []  # no fallback request with the dead token
    assert _scan(proc, tmp_path) == []


# A token answer the refresh quotes in its error, each naming the new tokens in a way a list of
# snake_case field names misses (issue #31 item 4): camelCase keys, the body cut off inside a
# token, an unknown shape.
_NEW_TOKENS_ECHOED = {
    "camel_case": (400, json.dumps({"error": "invalid_grant", "accessToken": NEW_ACCESS, "refreshToken": NEW_REFRESH})),
    "cut_off_error": (400, '{"error":"invalid_grant","refresh_token":"' + NEW_REFRESH + '","access_token":"' + NEW_ACCESS[:-3]),
    "cut_off_answer": (200, '{"access_token":"' + NEW_ACCESS + '","refresh_token":"' + NEW_REFRESH[:-3]),
    "unknown_shape": (400, json.dumps({"error": "invalid_grant", "data": {"issued": [NEW_ACCESS, NEW_REFRESH]}})),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(_NEW_TOKENS_ECHOED))
def test_a_refresh_error_quoting_new_tokens_redacts_them(tmp_path: Path, case: str) -> None:
    status, body = _NEW_TOKENS_ECHOED[case]
    answer = Reply(body=body.encode(), status=status, content_type="application/json")
    with (
        Interceptor(tmp_path / "tls", ["platform.claude.com"], [answer]) as box,
        ReplayServer([Reply(anthropic_sse())], repeat_last=True) as api,
    ):
        env = isolated_env(tmp_path, box.proxy_env(), faux=False)
        agent = Path(env["PI_CODING_AGENT_DIR"])
        (agent / "models.json").write_text(json.dumps({"providers": {"anthropic": {"baseUrl": api.url}}}))
        stored = {"anthropic": {"type": "oauth", "access": LOGIN_ACCESS, "refresh": LOGIN_REFRESH, "expires": 1000}}
        (agent / "auth.json").write_text(json.dumps(stored, indent=2))
        cwd = tmp_path / "cwd"
        cwd.mkdir()
        proc = PiProcess([*OURS, "--mode", "rpc", "--session-dir", str(tmp_path / "sessions")], env, cwd, root=tmp_path)
        try:
            proc.ok("set_model", provider="anthropic", modelId="claude-sonnet-4-5")
            proc.ok("prompt", message="hi")
            end = proc.wait_for(lambda r: r.get("type") == "agent_end", timeout=30)
            proc.ok("export_html", outputPath=str(tmp_path / "export.html"))
        finally:
            proc.close()
    error = [m for m in end["messages"] if m.get("role") == "assistant"][-1]["errorMessage"]
    assert error.startswith("OAuth refresh failed for anthropic") and "[redacted]" in error, error
    assert box.requests and api.requests == []
    written = b"".join(proc.raw_lines) + proc.stderr.encode() + (tmp_path / "export.html").read_bytes()
    for path in (tmp_path / "sessions").rglob("*.jsonl"):
        written += path.read_bytes()
    # The new tokens, and their cut-off prefixes, appear nowhere.
    for secret in (NEW_ACCESS[:-3], NEW_REFRESH[:-3]):
        assert secret.encode() not in written, (case, secret)

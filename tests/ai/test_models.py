"""Model registry (models.json, auth), thinking levels, cost."""

from __future__ import annotations

import json

import orjson
import pytest

from pi_rpc.ai.cost import calculate_cost
from pi_rpc.ai.models import ModelRegistry, builtin_models
from pi_rpc.ai.models.config_value import resolve_config_value
from pi_rpc.ai.thinking import clamp_thinking_level, supported_thinking_levels

ORACLE_MODELS_JSON = {
    "providers": {
        "fake": {
            "baseUrl": "http://127.0.0.1:45163/v1",
            "api": "openai-completions",
            "apiKey": "fake-key",
            "models": [
                {
                    "id": "fake-model",
                    "name": "Fake Model",
                    "contextWindow": 128000,
                    "maxTokens": 4096,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                },
                {
                    "id": "fake-reasoner",
                    "name": "Fake Reasoner",
                    "reasoning": True,
                    "contextWindow": 128000,
                    "maxTokens": 4096,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                },
            ],
        }
    }
}


def registry(tmp_path, config=None, env=None, auth=None):
    if config is not None:
        (tmp_path / "models.json").write_text(json.dumps(config))
    if auth is not None:
        (tmp_path / "auth.json").write_text(json.dumps(auth))
    return ModelRegistry(tmp_path, env=env or {})


def test_custom_model_serialises_like_upstream(tmp_path):
    reg = registry(tmp_path, ORACLE_MODELS_JSON)
    model = reg.find("fake", "fake-model")
    # byte-identical to upstream 1.6's get_state.model in the oracle transcript a_queries.jsonl
    assert orjson.dumps(model) == (
        b'{"id":"fake-model","name":"Fake Model","api":"openai-completions","provider":"fake",'
        b'"baseUrl":"http://127.0.0.1:45163/v1","reasoning":false,"input":["text"],'
        b'"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":128000,"maxTokens":4096}'
    )
    available = [(m["provider"], m["id"]) for m in reg.get_available()]
    assert available == [("fake", "fake-model"), ("fake", "fake-reasoner")]  # faux is opt-in


def test_defaults_and_validation(tmp_path):
    reg = registry(
        tmp_path,
        {
            "providers": {
                "local": {
                    "baseUrl": "http://localhost:11434/v1",
                    "api": "openai-completions",
                    "apiKey": "ollama",
                    "models": [{"id": "qwen"}],
                }
            }
        },
    )
    m = reg.find("local", "qwen")
    assert (m["name"], m["reasoning"], m["input"], m["contextWindow"], m["maxTokens"]) == (
        "qwen",
        False,
        ["text"],
        128000,
        16384,
    )
    assert m["cost"] == {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    bad = registry(tmp_path, {"providers": {"x": {"models": [{"id": "m"}]}}})
    assert bad.find("x", "m") is None and any('no "api"' in e or "baseUrl" in e for e in bad.errors)
    broken = tmp_path / "b"
    broken.mkdir()
    (broken / "models.json").write_text("{not json")
    reg = ModelRegistry(broken, env={})
    assert reg.error and reg.error.startswith("Failed to parse models.json")
    assert reg.find("anthropic", "claude-haiku-4-5") is not None  # built-ins still load


def test_builtin_override_baseurl_and_model_overrides(tmp_path):
    reg = registry(
        tmp_path,
        {
            "providers": {
                "anthropic": {
                    "baseUrl": "http://proxy.local",
                    "modelOverrides": {"claude-haiku-4-5": {"name": "Haiku (proxied)", "cost": {"input": 9}}},
                    "models": [{"id": "my-claude", "api": "anthropic-messages"}],
                }
            }
        },
        env={"ANTHROPIC_API_KEY": "k"},
    )
    haiku = reg.find("anthropic", "claude-haiku-4-5")
    assert haiku["baseUrl"] == "http://proxy.local" and haiku["name"] == "Haiku (proxied)"
    assert haiku["cost"]["input"] == 9 and haiku["cost"]["output"] == builtin_models("anthropic")[3]["cost"]["output"]
    assert list(haiku)[:10] == [
        "id",
        "name",
        "api",
        "provider",
        "baseUrl",
        "reasoning",
        "input",
        "cost",
        "contextWindow",
        "maxTokens",
    ]
    assert reg.find("anthropic", "my-claude")["baseUrl"] == "http://proxy.local"
    assert {m["provider"] for m in reg.get_available()} == {"anthropic"}


def test_api_key_resolution_order(tmp_path):
    cfg = {
        "providers": {
            "p": {"baseUrl": "http://x", "api": "openai-completions", "apiKey": "$P_KEY", "models": [{"id": "m"}]}
        }
    }
    reg = registry(tmp_path, cfg, env={})
    assert not reg.has_auth("p") and reg.get_api_key("p") is None
    assert reg.get_available() == []
    reg = registry(tmp_path, cfg, env={"P_KEY": "from-env-template"})
    assert reg.get_api_key("p") == "from-env-template"
    reg = registry(tmp_path, cfg, env={"P_KEY": "x"}, auth={"p": {"type": "api_key", "key": "from-auth"}})
    assert reg.get_api_key("p") == "from-auth"
    reg.set_runtime_api_key("p", "from-cli")
    assert reg.get_api_key("p") == "from-cli"
    env_reg = ModelRegistry(
        tmp_path / "nothing-here",
        env={"OPENAI_API_KEY": "sk-env", "ANTHROPIC_OAUTH_TOKEN": "oat", "ANTHROPIC_API_KEY": "ak"},
    )
    assert env_reg.get_api_key("openai") == "sk-env"
    assert env_reg.get_api_key("anthropic") == "oat"
    assert {m["provider"] for m in env_reg.get_available()} == {"openai", "anthropic"}


def test_config_values_and_headers(tmp_path):
    env = {"A": "1", "B": "2"}
    assert resolve_config_value("pre-$A-${B}", env) == "pre-1-2"
    assert resolve_config_value("$$A and $!x", env) == "$A and !x"
    assert resolve_config_value("$MISSING", env) is None
    assert resolve_config_value("literal", env) == "literal"
    assert resolve_config_value("!printf ' cmd-key\\n'", env) == "cmd-key"
    assert resolve_config_value("!exit 3", env) is None
    reg = registry(
        tmp_path,
        {
            "providers": {
                "p": {
                    "baseUrl": "http://x",
                    "api": "openai-completions",
                    "apiKey": "!echo secret-from-cmd",
                    "authHeader": True,
                    "headers": {"X-Team": "$A"},
                    "models": [{"id": "m", "headers": {"X-Model": "m1"}}],
                }
            }
        },
        env=env,
    )
    key, headers = reg.request_auth(reg.find("p", "m"))
    assert key == "secret-from-cmd"
    assert headers == {"X-Team": "1", "X-Model": "m1", "Authorization": "Bearer secret-from-cmd"}
    assert "headers" not in reg.find("p", "m")


def test_model_patterns(tmp_path):
    reg = registry(tmp_path, ORACLE_MODELS_JSON)
    r = reg.resolve("fake/fake-reasoner:high")
    assert r["status"] == "resolved" and r["model"]["id"] == "fake-reasoner" and r["thinkingLevel"] == "high"
    r = reg.resolve("fake-model")
    assert r["model"]["provider"] == "fake" and "thinkingLevel" not in r
    r = reg.resolve("fake-model:bogus")
    assert r["status"] == "resolved" and "Invalid thinking level" in r["warning"]
    assert reg.resolve("nothing-like-this")["status"] == "not-found"
    assert reg.resolve("faux-1")["status"] == "not-found"  # faux is opt-in
    reg.enable_faux()
    r = reg.resolve("faux-1")
    assert r["model"]["provider"] == "faux"


def test_thinking_levels():
    assert supported_thinking_levels({"reasoning": False}) == ["off"]
    assert supported_thinking_levels({"reasoning": True}) == ["off", "minimal", "low", "medium", "high"]
    m = {"reasoning": True, "thinkingLevelMap": {"off": None, "xhigh": "xhigh", "max": "max"}}
    assert supported_thinking_levels(m) == ["minimal", "low", "medium", "high", "xhigh", "max"]
    plain = {"reasoning": True}
    assert clamp_thinking_level(plain, "xhigh") == "high" and clamp_thinking_level(plain, "max") == "high"
    assert clamp_thinking_level(plain, "banana") == "off"
    assert clamp_thinking_level({"reasoning": False}, "high") == "off"
    assert clamp_thinking_level(m, "off") == "minimal"
    assert len(supported_thinking_levels(None)) == 7


def test_cost_js_numbers():
    model = {"cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}
    usage = {"input": 17, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 27, "cost": {}}
    cost = calculate_cost(model, usage)
    assert cost["input"] == pytest.approx(0.000051) and cost["output"] == pytest.approx(0.00015)
    assert cost["total"] == pytest.approx(0.000201)
    assert cost["cacheRead"] == 0 and isinstance(cost["cacheRead"], int)
    assert list(cost) == ["input", "output", "cacheRead", "cacheWrite", "total", "totalFromProvider"]
    tiered = {
        "cost": {
            "input": 1,
            "output": 1,
            "cacheRead": 0,
            "cacheWrite": 0,
            "tiers": [{"inputTokensAbove": 100, "input": 2, "output": 4, "cacheRead": 0, "cacheWrite": 0}],
        }
    }
    usage = {"input": 200, "output": 10, "cacheRead": 0, "cacheWrite": 0, "cost": {}}
    assert calculate_cost(tiered, usage)["output"] == pytest.approx(40 / 1e6)
    usage = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 100, "cacheWrite1h": 40, "cost": {}}
    assert calculate_cost(model, usage)["cacheWrite"] == pytest.approx((3.75 * 60 + 3 * 2 * 40) / 1e6)


def test_faux_is_opt_in(tmp_path):
    """Offered only when asked for: the constructor flag / enable_faux() (the command line),
    PI_FAUX_SCRIPT, or a ``faux`` entry in models.json; otherwise unknown like any other name."""
    plain = registry(tmp_path / "a")
    assert not plain.faux_enabled and plain.find("faux", "faux-1") is None and plain.all_models()
    assert "faux" not in plain.providers()
    forced = ModelRegistry(tmp_path / "a", env={}, faux=True)
    assert [m["id"] for m in forced.get_available()] == ["faux-1", "faux-reasoner"]
    by_env = ModelRegistry(tmp_path / "a", env={"PI_FAUX_SCRIPT": str(tmp_path / "script.json")})
    assert by_env.faux_enabled and by_env.find("faux", "faux-reasoner") is not None
    configured = tmp_path / "b"
    configured.mkdir()
    cfg = {
        "providers": {
            "faux": {},
            "p": {"baseUrl": "http://x", "api": "openai-completions", "apiKey": "k", "models": [{"id": "m"}]},
        }
    }
    by_config = registry(configured, cfg)
    assert [(m["provider"], m["id"]) for m in by_config.get_available()] == [
        ("faux", "faux-1"),
        ("faux", "faux-reasoner"),
        ("p", "m"),
    ]
    late = registry(tmp_path / "a")
    late.enable_faux()
    assert late.find("faux", "faux-1") is not None

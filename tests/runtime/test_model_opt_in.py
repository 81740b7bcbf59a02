"""faux is opt-in: with nothing configured pi behaves as upstream 1.6 (no models, the placeholder
model, prompts refused with upstream's first sentence); with a real provider configured only its
models are listed and cycled; faux appears only when something opts in to it.

The placeholder model and the refusal texts were recorded from upstream 1.6.0 run with an empty
agent dir (``--mode rpc --no-session``, PI_OFFLINE=1)."""

from __future__ import annotations

from typing import Any

from pi_rpc.ai.models.registry import ENV_API_KEYS

UPSTREAM_PLACEHOLDER_MODEL = {
    "id": "unknown",
    "name": "unknown",
    "api": "unknown",
    "provider": "unknown",
    "baseUrl": "",
    "reasoning": False,
    "input": [],
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
    "contextWindow": 0,
    "maxTokens": 0,
}
# No provider key may leak in from the machine running the tests.
NO_KEYS = {name: "" for names in ENV_API_KEYS.values() for name in names}
LOCAL = {
    "providers": {
        "local": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "local-key",
            "models": [
                {"id": "coder-a", "contextWindow": 32000, "maxTokens": 4000},
                {"id": "coder-b", "contextWindow": 32000, "maxTokens": 4000},
            ],
        }
    }
}


def _ids(models: list[dict[str, Any]]) -> list[str]:
    return [f"{m['provider']}/{m['id']}" for m in models]


def test_nothing_configured_behaves_as_upstream(pi):
    p = pi(faux=False, args=("--no-session",), env=NO_KEYS)
    state = p.ok("get_state")
    assert state["model"] == UPSTREAM_PLACEHOLDER_MODEL and state["thinkingLevel"] == "off"
    assert p.ok("get_available_models") == {"models": []}
    r = p.cmd("prompt", message="hi")
    assert r["success"] is False and r["error"].startswith("No API key found for the selected model.\n\n")
    assert p.ok("cycle_model") is None
    r = p.cmd("set_model", provider="faux", modelId="faux-1")
    assert r == {
        "id": r["id"],
        "type": "response",
        "command": "set_model",
        "success": False,
        "error": "Model not found: faux/faux-1",
    }
    assert p.ok("get_available_thinking_levels") == {"levels": ["off"]}
    assert p.ok("cycle_thinking_level") is None
    r = p.cmd("compact")
    assert r["success"] is False and r["error"] == "Nothing to compact (session too small)"
    assert not [x for x in p.records if x.get("type") == "agent_start"]
    assert p.close() == 0
    assert p.stderr.startswith("Warning: No models available. ")


def test_real_provider_lists_and_cycles_only_its_models(pi):
    p = pi(faux=False, models=LOCAL, env=NO_KEYS)
    assert p.ok("get_state")["model"]["id"] == "coder-a"
    assert _ids(p.ok("get_available_models")["models"]) == ["local/coder-a", "local/coder-b"]
    seen = [p.ok("cycle_model")["model"]["id"] for _ in range(3)]
    assert seen == ["coder-b", "coder-a", "coder-b"]
    assert p.cmd("set_model", provider="faux", modelId="faux-1")["error"] == "Model not found: faux/faux-1"
    p.close()
    assert "No models available" not in p.stderr


def test_faux_opted_in_next_to_a_real_provider(pi):
    # PI_FAUX_SCRIPT opts in: faux is listed, but the configured provider stays the default.
    p = pi(models=LOCAL, env=NO_KEYS)
    assert p.ok("get_state")["model"]["id"] == "coder-a"
    assert _ids(p.ok("get_available_models")["models"]) == [
        "faux/faux-1",
        "faux/faux-reasoner",
        "local/coder-a",
        "local/coder-b",
    ]


def test_models_json_entry_opts_in(pi):
    p = pi(faux=False, models={"providers": {"faux": {}}}, env=NO_KEYS)
    assert p.ok("get_state")["model"]["provider"] == "faux"
    assert _ids(p.ok("get_available_models")["models"]) == ["faux/faux-1", "faux/faux-reasoner"]
    p.close()
    assert "No models available" not in p.stderr


def test_model_flag_opts_in_without_warning(pi):
    p = pi(faux=False, args=("--model", "faux/faux-reasoner"), env=NO_KEYS)
    assert p.ok("get_state")["model"]["id"] == "faux-reasoner"
    p.cmd("prompt", message="hello")
    p.settle()
    assert p.ok("get_last_assistant_text") == {"text": "You said: hello"}
    p.close()
    assert "Warning" not in p.stderr

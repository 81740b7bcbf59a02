"""``google-generative-ai`` tool declarations through the whole program: ``pi --mode rpc`` against a
stub on 127.0.0.1 speaking Gemini's SSE, compared with upstream pi 1.6 on the same stub (recorded
in ``tests/fixtures/provider_wire/google_*.json``, and live when upstream is installed).

What this file is about is the request upstream's shared Google code (``google-shared.js``)
builds from the built-in tools: on Gemini 3 and later each tool that prefers strict sampling goes
out with its schema made strict (every property required, optional ones nullable,
``additionalProperties: false``) and the calling mode ``VALIDATED``; before Gemini 3 the schemas
go out as they are, with no calling mode. Then the tool call, its result replayed, and the answer.

Re-record with ``python -m tests.ai.test_google_wire --record``.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.ai.provider_wire import (
    FIXTURES,
    UPSTREAM,
    Reply,
    assert_same_outcome,
    needs_upstream,
    recorded,
    run_program,
    sse,
)
from tests.support.pi_process import OURS

_GENERATED_ID = re.compile(r"\b(\w+)_\d{13}_\d+\b")
_USAGE = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}


def _chunk(parts: list[dict[str, Any]], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "responseId": "resp-1", **extra}


def _replies() -> list[Reply]:
    return [
        Reply(
            sse(
                _chunk([{"text": "Reading."}]),
                _chunk(
                    [{"functionCall": {"name": "read", "args": {"path": "note.txt"}}}], "STOP", usageMetadata=_USAGE
                ),
                done=False,  # Gemini's SSE has no [DONE]
            )
        ),
        Reply(sse(_chunk([{"text": "It says hi."}], "STOP", usageMetadata=_USAGE), done=False)),
    ]


# name: the model (Gemini 3 sends strict schemas, 2.5 does not)
SCENARIOS = {"google_gemini3_tools": "gemini-3-flash-preview", "google_gemini25_tools": "gemini-2.5-flash"}


def run_scenario(argv: list[str], root: Path, name: str) -> dict[str, Any]:
    outcome = run_program(
        argv,
        root,
        _replies(),
        provider="google",
        steps=[{"model": SCENARIOS[name]}, {"prompt": "read note.txt"}],
        env={"GEMINI_API_KEY": "gk-test"},
        base_path="/v1beta",
        files={"note.txt": "hi\n"},
    )
    text = json.dumps({"requests": outcome.requests, "events": outcome.events, "messages": outcome.messages})
    # Tool-call ids Gemini leaves out are made from the name, the clock and a counter.
    data: dict[str, Any] = json.loads(_GENERATED_ID.sub(r"\1_<generated>", text))
    for request in data["requests"]:
        body = request["body"]
        if isinstance(body.get("systemInstruction"), dict):
            body["systemInstruction"]["parts"] = "<system prompt>"
        for group in body.get("tools") or []:
            for declaration in group.get("functionDeclarations") or []:
                declaration.pop("description", None)  # our tools are described in our own words
    return data


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
    strict = recorded("google_gemini3_tools")["requests"][0]
    assert strict["path"] == "/v1beta/models/gemini-3-flash-preview:streamGenerateContent?alt=sse"
    assert strict["body"]["toolConfig"] == {"functionCallingConfig": {"mode": "VALIDATED"}}
    read = next(d for d in strict["body"]["tools"][0]["functionDeclarations"] if d["name"] == "read")
    schema = read["parametersJsonSchema"]
    assert schema["additionalProperties"] is False and schema["required"] == list(schema["properties"])
    assert {"type": "null"} in schema["properties"]["offset"]["anyOf"]
    plain = recorded("google_gemini25_tools")["requests"][0]
    assert "toolConfig" not in plain["body"]
    read = next(d for d in plain["body"]["tools"][0]["functionDeclarations"] if d["name"] == "read")
    assert "additionalProperties" not in read["parametersJsonSchema"]
    assert read["parametersJsonSchema"]["required"] == ["path"]
    for name in SCENARIOS:
        messages = recorded(name)["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "toolResult", "assistant"]
        assert messages[-1]["content"] == [{"type": "text", "text": "It says hi."}]


def _record() -> None:
    assert UPSTREAM is not None, "upstream pi 1.6 is needed to record"
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in sorted(SCENARIOS):
        with tempfile.TemporaryDirectory() as tmp:
            outcome = run_scenario(UPSTREAM, Path(tmp), name)
        (FIXTURES / f"{name}.json").write_text(json.dumps(outcome, indent=1, ensure_ascii=False) + "\n")
        print(f"recorded {name}")


if __name__ == "__main__" and "--record" in sys.argv:
    _record()

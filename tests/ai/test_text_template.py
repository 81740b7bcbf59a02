"""Reading streamed text chunks by difference (``ai.providers.text_template``).

The property that makes it safe: whenever a template says a chunk's text is ``s``, parsing
that chunk gives exactly the template's chunk with ``s`` as its delta text. It is checked on
generated chunks (any text, including quotes, backslashes, control characters and non-BMP
characters; other fields that change or not; several JSON encoders) and, end to end, by
streaming the same bodies through the provider with and without templates.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_rpc.ai.providers.text_template import MAX_LEARNS, TextTemplate

from .conftest import Reply, fixture_bytes
from .helpers import compat_model, run

TEXT = st.text(max_size=12)
# What a template reads as it is: printable (so no control character) and nothing JSON escapes.
PLAIN_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters='"\\'), min_size=1, max_size=12
).filter(str.isprintable)


def _chunk(
    content: str, *, id_: str = "chatcmpl-1", model: str = "m", extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": id_,
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}],
    }
    chunk.update(extra or {})
    return chunk


ENCODERS = [
    lambda v: orjson.dumps(v).decode(),
    lambda v: json.dumps(v),  # ", " and ": " separators, non-ASCII escaped
    lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":")),
]


def _with_content(chunk: dict[str, Any], content: str) -> dict[str, Any]:
    out = copy.deepcopy(chunk)
    out["choices"][0]["delta"]["content"] = content
    return out


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    first=TEXT,
    second=TEXT,
    encoder=st.sampled_from(ENCODERS),
    other=st.sampled_from(["same", "id", "model", "extra", "usage"]),
    decoy=st.booleans(),
)
def test_a_text_read_by_difference_is_what_a_parse_gives(
    first: str, second: str, encoder: Any, other: str, decoy: bool
) -> None:
    extra = {"note": first} if decoy else {}  # the same text elsewhere in the chunk
    a = _chunk(first, extra=extra)
    b = _chunk(
        second,
        id_="chatcmpl-2" if other == "id" else "chatcmpl-1",
        model="m2" if other == "model" else "m",
        extra={
            **extra,
            **({"x": 1} if other == "extra" else {}),
            **({"usage": {"prompt_tokens": 1}} if other == "usage" else {}),
        },
    )
    text_a, text_b = encoder(a), encoder(b)
    template = TextTemplate()
    template.learn(text_a, first)
    got = template.content_of(text_b)
    if got is not None:
        assert orjson.loads(text_b) == _with_content(a, got)
        assert got == second


@settings(max_examples=200)
@given(texts=st.lists(PLAIN_TEXT, min_size=1, max_size=6), encoder=st.sampled_from(ENCODERS[:1] + ENCODERS[2:]))
def test_plain_texts_in_compact_chunks_are_all_read_by_difference(texts: list[str], encoder: Any) -> None:
    # (learnt from a text whose literal is found once: a text like "," is also the "," between
    # two other strings of the chunk, and teaches nothing)
    template = TextTemplate()
    first = encoder(_chunk("Hello"))
    template.learn(first, "Hello")
    for text in texts:
        assert template.content_of(encoder(_chunk(text))) == text


def test_what_is_not_plain_goes_the_normal_way() -> None:
    template = TextTemplate()
    first = orjson.dumps(_chunk("hello")).decode()
    template.learn(first, "hello")
    for text in ['say "hi"', "back\\slash", "line\nbreak", "tab\t", "\x7f", "\u2028"]:
        assert template.content_of(orjson.dumps(_chunk(text)).decode()) is None
    assert template.content_of(orjson.dumps(_chunk("x", extra={"usage": None})).decode()) is None
    assert template.content_of("[DONE]") is None
    assert template.content_of("") is None
    assert template.content_of(orjson.dumps(_chunk("")).decode()) == ""


def test_a_repeated_literal_or_a_decoy_field_teaches_nothing() -> None:
    template = TextTemplate()
    twice = orjson.dumps(_chunk("same", extra={"note": "same"})).decode()
    template.learn(twice, "same")
    assert template.prefix is None
    # The delta's text escaped (so not found as written) while a decoy field holds it plainly:
    # the probe parse shows the decoy is not the delta's literal.
    decoy = '{"note":"hi","choices":[{"index":0,"delta":{"content":"h\\u0069"},"finish_reason":null}]}'
    template.learn(decoy, "hi")
    assert template.prefix is None


def test_a_template_outlives_text_that_is_not_plain() -> None:
    """Code and prose have newlines and quotes: those deltas take the normal way, and the plain
    ones around them are still read by difference, however many there are."""
    template = TextTemplate()
    first = orjson.dumps(_chunk("def f():")).decode()
    template.learn(first, "def f():")
    for n in range(MAX_LEARNS * 3):
        quoted = orjson.dumps(_chunk(f'\n    return "{n}"')).decode()
        assert template.content_of(quoted) is None
        template.learn(quoted, f'\n    return "{n}"')  # what the provider does
        assert template.content_of(orjson.dumps(_chunk(f" plain {n}")).decode()) == f" plain {n}"


def test_learning_stops_when_chunks_never_repeat() -> None:
    template = TextTemplate()
    for n in range(MAX_LEARNS + 3):
        text = orjson.dumps(_chunk(f"t{n}", extra={"obfuscation": "x" * n})).decode()
        assert template.content_of(text) is None  # the field differs every chunk
        template.learn(text, f"t{n}")
    assert template.learns == MAX_LEARNS
    # What it learnt last is the eighth chunk's envelope, which no later chunk repeats.
    assert template.prefix is not None and f'"obfuscation":"{"x" * (MAX_LEARNS - 1)}"' in template.suffix


def _sse(chunks: list[str]) -> bytes:
    return b"".join(b"data: " + c.encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


# What servers put in a text delta besides the text: nothing (vLLM, llama.cpp), the role on
# every chunk (Ollama, z.ai), null reasoning and empty details (OpenRouter); and reasoning text,
# which the provider does act on.
ENVELOPES = {
    "bare": {},
    "role": {"role": "assistant"},
    "openrouter": {"role": "assistant", "reasoning": None, "reasoning_details": []},
    "reasoning": {"reasoning_content": "thinking"},
}


def _mixed_stream(envelope: str = "bare") -> bytes:
    role = _chunk("")
    role["choices"][0]["delta"] = {"role": "assistant", "content": ""}
    texts = ["Hello", " world", "", ' "quoted"', " back\\slash", "\nnew line", " é", " 😀", " plain", " end"]
    text_chunks = [_chunk(t) for t in texts]
    for chunk in text_chunks:
        chunk["choices"][0]["delta"] = {**ENVELOPES[envelope], **chunk["choices"][0]["delta"]}
    chunks = [orjson.dumps(role).decode()] + [orjson.dumps(c).decode() for c in text_chunks]
    finish = _chunk("")
    finish["choices"][0] = {"index": 0, "delta": {}, "finish_reason": "stop"}
    chunks.append(orjson.dumps(finish).decode())
    chunks.append(orjson.dumps(_chunk(" after finish")).decode())
    usage = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [],
        "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
    }
    chunks.append(orjson.dumps(usage).decode())
    return _sse(chunks)


@pytest.mark.anyio
@pytest.mark.parametrize(
    "body",
    [
        pytest.param(_mixed_stream, id="mixed"),
        pytest.param(lambda: _mixed_stream("role"), id="mixed-role"),
        pytest.param(lambda: _mixed_stream("openrouter"), id="mixed-openrouter"),
        pytest.param(lambda: _mixed_stream("reasoning"), id="mixed-reasoning"),
        pytest.param(lambda: fixture_bytes("openai/chat_text_include_usage.sse"), id="openai-recorded"),
        pytest.param(lambda: fixture_bytes("openai/chat_tool_call_include_usage.sse"), id="openai-tool-call"),
        pytest.param(lambda: fixture_bytes("openai-compatible/openrouter_reasoning_details.sse"), id="openrouter"),
        pytest.param(lambda: fixture_bytes("openai-compatible/zai_reasoning_content.sse"), id="zai"),
    ],
)
@pytest.mark.parametrize("chunk_size", [None, 5])
async def test_the_provider_streams_the_same_with_and_without_templates(server, monkeypatch, body, chunk_size) -> None:
    raw = body()
    server.add(Reply(raw, chunk_size=chunk_size))
    with_templates = await run(compat_model(server.url + "/v1"))
    monkeypatch.setattr(TextTemplate, "content_of", lambda self, data: None)
    server.add(Reply(raw, chunk_size=chunk_size))
    without = await run(compat_model(server.url + "/v1"))
    for trace in (with_templates, without):
        assert trace.final is not None
        trace.final.pop("durationMs", None)
        trace.final.pop("timestamp", None)
        for event in trace.events:
            for key in ("message", "error"):
                if isinstance(event.get(key), dict):
                    event[key].pop("durationMs", None)
                    event[key].pop("timestamp", None)
    assert with_templates.events == without.events
    assert with_templates.final == without.final


@pytest.mark.anyio
@pytest.mark.parametrize("envelope", ["bare", "role", "openrouter", "reasoning"])
async def test_the_mixed_stream_is_read_by_difference(server, monkeypatch, envelope) -> None:
    """The end-to-end comparison above is only worth something if templates are used (and
    they must not be when the delta carries reasoning text)."""
    used: list[str] = []
    real = TextTemplate.content_of

    def spy(self: TextTemplate, data: str) -> str | None:
        got = real(self, data)
        if got is not None:
            used.append(got)
        return got

    monkeypatch.setattr(TextTemplate, "content_of", spy)
    server.add(Reply(_mixed_stream(envelope)))
    trace = await run(compat_model(server.url + "/v1"))
    assert trace.final is not None
    text = next(block["text"] for block in trace.final["content"] if block["type"] == "text")
    assert text == 'Hello world "quoted" back\\slash\nnew line é 😀 plain end after finish'
    if envelope == "reasoning":
        assert used == []
    else:
        assert " world" in used and " plain" in used and " 😀" in used and '"quoted"' not in "".join(used)

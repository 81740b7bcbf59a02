"""Property-based tests (hypothesis): arbitrary bytes in, invariants out.

- framer: records come out exactly as a reference LF split says, whatever the chunking; one
  trailing CR dropped; oversized records reported once; the buffer never exceeds the cap;
- parser: never raises; agrees with a strict reference parser on valid JSON (invalid UTF-8
  replaced as node does, lone surrogate escapes kept); whatever it returns re-encodes to one
  valid JSON line that decodes to the same value;
- dispatcher: for any mix of mutated records and handlers that fail in every way, exactly one
  response per command, carrying its id when the id was readable; every line valid JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

import anyio
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.jsjson import stringify
from pi_rpc.modes.rpc.backend import ServerHandle
from pi_rpc.modes.rpc.memory import MemoryTransport
from pi_rpc.modes.rpc.registry import JSON_NULL, CommandContext, CommandError, HandlerRegistry
from pi_rpc.modes.wire.framing import FrameTooLarge, LineFramer
from pi_rpc.modes.wire.jsonout import dumps_record
from pi_rpc.modes.wire.jsonparse import ParseFailure, parse_record
from pi_rpc.modes.wire.protocol.names import COMMAND_TYPES

PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ----------------------------------------------------------------------------- framer

records_st = st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=12)


@PROPS
@given(records=records_st, cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=20), trailing=st.booleans())
def test_framer_matches_a_reference_split(records: list[bytes], cuts: list[int], trailing: bool) -> None:
    stream = b"\n".join(records) + (b"\n" if trailing and records else b"")
    points = sorted({c for c in cuts if c < len(stream)} | {0, len(stream)})
    framer = LineFramer(max_frame_bytes=25)
    out: list[Any] = []
    for a, b in zip(points, points[1:]):
        out += framer.feed(stream[a:b])
        assert framer.buffered <= 25
    out += framer.feed_eof()
    expected: list[Any] = []
    pieces = stream.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()  # a terminated last record leaves nothing behind
    for piece in pieces:
        if len(piece) > 25:
            expected.append(FrameTooLarge(25))
        else:
            expected.append(piece[:-1] if piece.endswith(b"\r") else piece)
    assert out == expected


# ----------------------------------------------------------------------------- parser


def _reject_constant(name: str) -> Any:
    raise ValueError(name)  # V8 does not accept NaN / Infinity


def _strict(data: bytes) -> Any:
    """Reference: node's decoding, then a strict JSON parser (raises when V8 would)."""
    return json.loads(data.decode("utf-8", "replace"), parse_constant=_reject_constant)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF)),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)


def _same(a: Any, b: Any) -> bool:
    """JSON equality with JS numbers (1.0 == 1) and NaN-free floats."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b:
            return True
        if not (isinstance(a, float) or isinstance(b, float)):
            return False
        # A number read as a double (JS reads every number so; orjson reads an integer below
        # int64 so) is the integer's nearest double: -9223372036854775809 reads as -2**63.
        try:
            return math.isclose(float(a), float(b))
        except OverflowError:
            return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@PROPS
@given(value=json_values)
@example(value=-9_223_372_036_854_775_809)  # below int64: read as a double (found by hypothesis)
def test_parser_reads_every_json_text_including_lone_surrogates(value: Any) -> None:
    data = json.dumps(value).encode()  # ASCII with \\uXXXX escapes, lone surrogates included
    parsed = parse_record(data)
    assert not isinstance(parsed, ParseFailure), (data, parsed)
    assert _same(parsed, value)
    line = dumps_record(parsed)
    assert b"\n" not in line
    assert _same(js_loads(line), value)


@PROPS
@given(
    data=st.binary(max_size=80)
    | json_values.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass"))
)
def test_parser_never_raises_and_agrees_with_the_reference(data: bytes) -> None:
    parsed = parse_record(data)
    try:
        expected = _strict(data)
    except (ValueError, RecursionError):
        assert isinstance(parsed, ParseFailure)
        assert parsed.error.startswith("Failed to parse command: ")
        return
    assert not isinstance(parsed, ParseFailure), (data, parsed)
    assert _same(parsed, expected)
    js_loads(dumps_record(parsed))  # any parsed value is writable as one JSON line


# ----------------------------------------------------------------------------- dispatcher


class ChaosBackend:
    """Every command type has a handler whose behaviour the record picks (field ``mode``):
    succeed, fail cleanly, raise anything, return unserialisable data, emit odd events."""

    def register(self, registry: HandlerRegistry) -> None:
        for name in COMMAND_TYPES:
            registry.register(name, self.handle)

    async def start(self, server: ServerHandle) -> None:
        pass

    async def aclose(self) -> None:
        pass

    async def handle(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        mode = cmd.get("mode")
        if mode == "error":
            raise CommandError("nope \ud800")
        if mode == "raise":
            raise KeyError(cmd.get("id"))
        if mode == "null":
            return JSON_NULL
        if mode == "circular":
            loop: list[Any] = []
            loop.append(loop)
            return {"loop": loop}
        if mode == "event":
            bad: dict[str, Any] = {"type": "queue_update"}
            bad["self"] = bad
            await ctx.emit(bad)
            await ctx.emit({"type": "queue_update", "steering": [str(cmd.get("id"))[:50]], "followUp": []})
        if mode == "sleep":
            await anyio.sleep(0)
        return {"echo": cmd.get("id"), "deep": [[[[cmd.get("type")]]]]}


ids = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
    | st.lists(st.integers(), max_size=3)
    | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
)
types = (
    st.sampled_from(COMMAND_TYPES) | st.sampled_from(["extension_ui_response", "nope", ""]) | st.integers() | st.none()
)
modes = st.sampled_from(["ok", "error", "raise", "null", "circular", "event", "sleep"])


@st.composite
def records(draw: Any) -> bytes:
    kind = draw(st.sampled_from(["command", "command", "command", "garbage", "json", "mutated"]))
    if kind == "garbage":
        return draw(st.binary(max_size=30)).replace(b"\n", b"")
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    cmd: dict[str, Any] = {}
    if draw(st.booleans()) or kind == "mutated":
        cmd["id"] = draw(ids)
    if draw(st.integers(0, 9)):
        cmd["type"] = draw(types)
    cmd["mode"] = draw(modes)
    cmd["message"] = draw(st.text(max_size=10) | st.integers())
    data = stringify(cmd)
    if kind == "mutated":  # invalid UTF-8, a BOM, a trailing CR, a lone-surrogate escape
        where = draw(st.integers(0, len(data)))
        junk = draw(st.sampled_from([b"\xff", b"\xf0\x9f", b"\xef\xbb\xbf", b"\r", b"\\ud800", b"\x00"]))
        data = data[:where] + junk + data[where:]
    return data


def _key(value: Any) -> str:
    return json.dumps(js_loads(dumps_record(value)), sort_keys=True)


@PROPS
@given(batch=st.lists(records(), min_size=1, max_size=25), chunk=st.integers(1, 64))
def test_dispatcher_answers_each_command_exactly_once(batch: list[bytes], chunk: int) -> None:
    stream = b"\n".join(batch) + b"\n"
    framer = LineFramer()
    frames = framer.feed(stream)
    expect_by_id: dict[str, int] = {}
    expect_idless = 0
    for frame in frames:
        item = parse_record(frame) if isinstance(frame, bytes) else frame
        if isinstance(item, dict):
            if item.get("type") == "extension_ui_response":
                continue  # never answered
            if "id" in item:
                key = _key(item["id"])
                expect_by_id[key] = expect_by_id.get(key, 0) + 1
                continue
        expect_idless += 1

    async def run() -> list[bytes]:
        async with MemoryTransport(ChaosBackend()) as t:
            for i in range(0, len(stream), chunk):
                await t.send_bytes(stream[i : i + chunk])
        return t.sink.lines

    lines = anyio.run(run)
    got_by_id: dict[str, int] = {}
    got_idless = 0
    for line in lines:
        assert b"\n" not in line
        record = js_loads(line)  # every line is valid JSON
        if record.get("type") != "response":
            continue
        if "id" in record:
            key = _key(record["id"])
            got_by_id[key] = got_by_id.get(key, 0) + 1
        else:
            got_idless += 1
    assert got_by_id == expect_by_id
    assert got_idless == expect_idless

"""The incremental SSE parser against a plain reference reading of the rules (providers.md §1),
on generated streams cut into arbitrary network chunks: the same events, whatever the cuts.

The parser takes a common event (one ``data: <json>`` line and a blank line) whole and any other
line by line, and carries what follows the last blank line to the next read; the reference
below reads the whole stream line by line, so any difference between the two paths shows up."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_rpc.ai.sse import SSEEvent, SSEParser


def reference_events(raw: bytes) -> list[tuple[str | None, str]]:
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    out: list[tuple[str | None, str]] = []
    event: str | None = None
    data: list[str] = []
    for line in text.split("\n"):
        if not line:
            if data:
                out.append((event, "\n".join(data)))
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        field, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
    if data:  # EOF dispatches a pending event
        out.append((event, "\n".join(data)))
    return out


LINES = st.sampled_from(
    [
        'data: {"x":1}',
        "data:nospace",
        "data: ",
        "data",
        "data: two words",
        "data:  padded value ",
        "event: error",
        "event:",
        ": keep-alive",
        "id: 7",
        "retry: 10",
        "unknown: field",
        "",
        "data: ☃ snow",
        "data: [DONE]",
    ]
)
ENDINGS = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r"])


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    parts = draw(st.lists(st.tuples(LINES, ENDINGS), max_size=30))
    raw = "".join(line + end for line, end in parts)
    if draw(st.booleans()):
        raw += draw(LINES)  # a last line without its line ending
    data = raw.encode()
    cuts = sorted(set(draw(st.lists(st.integers(min_value=0, max_value=len(data)), max_size=12))))
    return data, cuts


def _parse(data: bytes, cuts: list[int]) -> list[SSEEvent]:
    parser = SSEParser()
    events: list[SSEEvent] = []
    start = 0
    for cut in [*cuts, len(data)]:
        events += parser.feed(data[start:cut])
        start = cut
    return events + parser.flush()


@settings(max_examples=400, deadline=None)
@given(streams())
def test_any_stream_cut_anywhere_gives_the_reference_events(stream: tuple[bytes, list[int]]) -> None:
    data, cuts = stream
    assert [(e.event, e.data) for e in _parse(data, cuts)] == reference_events(data)


def test_a_common_event_split_before_its_blank_line() -> None:
    # The data line arrives first, its blank line in the next read; then an event of another
    # shape follows in the same read as that blank line.
    parser = SSEParser()
    assert parser.feed(b'data: {"a":1}\n') == []
    assert [(e.event, e.data) for e in parser.feed(b"\nevent: error\ndata: x\ndata: y\n\n")] == [
        (None, '{"a":1}'),
        ("error", "x\ny"),
    ]
    assert parser.flush() == []

"""The replay ring behind get_events and the byte splice of seq/runId (units; the RPC behaviour
is tested against the real process in tests/runtime/test_event_stream.py)."""

from __future__ import annotations

import json

import pytest

from pi_rpc.modes.rpc.event_options import splice_field
from pi_rpc.modes.wire.event_ring import EventRing


def line(seq: int, size: int = 10) -> bytes:
    return json.dumps({"type": "x", "pad": "p" * size, "seq": seq}, separators=(",", ":")).encode() + b"\n"


def test_ring_keeps_the_newest_by_count_and_reports_truncation() -> None:
    ring = EventRing(max_records=3, max_bytes=1 << 20)
    for seq in (2, 3, 5, 8, 9):  # responses took the other numbers
        ring.append(seq, line(seq))
    found, truncated = ring.since(0)
    assert [s for s, _ in found] == [5, 8, 9] and truncated is True
    assert ring.since(3) == ([(5, line(5)), (8, line(8)), (9, line(9))], False)  # 3 itself was replayable
    assert ring.since(2)[1] is True  # 3 was dropped
    assert ring.since(9) == ([], False)
    assert ring.since(100) == ([], False)


def test_ring_is_bounded_in_bytes_and_skips_a_line_over_the_cap() -> None:
    one = len(line(1, 100))
    ring = EventRing(max_records=1000, max_bytes=one * 2)
    for seq in range(1, 6):
        ring.append(seq, line(seq, 100))
    assert [s for s, _ in ring.since(0)[0]] == [4, 5] and ring.size_bytes <= one * 2
    ring.append(6, line(6, one * 3))  # larger than the whole cap: never kept
    found, truncated = ring.since(5)
    assert found == [] and truncated is True
    ring.append(7, line(7, 100))
    assert [s for s, _ in ring.since(6)[0]] == [7] and ring.since(6)[1] is False


def test_ring_of_zero_keeps_nothing() -> None:
    ring = EventRing(max_records=0)
    ring.append(1, line(1))
    assert ring.since(0) == ([], True) and len(ring) == 0
    with pytest.raises(ValueError):
        EventRing(max_records=-1)


@pytest.mark.parametrize("size", [0, 10, 70_000])
def test_splice_adds_fields_after_every_key(size: int) -> None:
    original = json.dumps({"type": "t", "s": "x" * size, "n": [1, {"a": None}]}, separators=(",", ":")).encode() + b"\n"
    out = splice_field(original, b',"runId":"r","seq":7')
    assert out.endswith(b',"runId":"r","seq":7}\n') and out.count(b"\n") == 1
    assert json.loads(out) == {**json.loads(original), "runId": "r", "seq": 7}
    assert splice_field(b"{}\n", b',"seq":1') == b'{"seq":1}\n'

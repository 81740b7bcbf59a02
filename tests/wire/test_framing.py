"""LineFramer: LF-only splitting, CR stripping, EOF flush, frame cap with bounded memory."""

from __future__ import annotations

import pytest

from pi_rpc.modes.wire.framing import FrameTooLarge, LineFramer


def feed_all(framer: LineFramer, chunks: list[bytes], eof: bool = True) -> list[object]:
    out: list[object] = []
    for chunk in chunks:
        out += framer.feed(chunk)
    if eof:
        out += framer.feed_eof()
    return out


def test_splits_on_lf_only_and_keeps_unicode_separators() -> None:
    data = '{"a":"x\u2028y\u2029z\x85\x0b\x0c"}\n{"b":1}\n'.encode()
    frames = feed_all(LineFramer(), [data])
    assert frames == ['{"a":"x\u2028y\u2029z\x85\x0b\x0c"}'.encode(), b'{"b":1}']


def test_one_trailing_cr_stripped_inner_cr_kept() -> None:
    frames = feed_all(LineFramer(), [b"a\r\n", b"b\r\r\n", b"c\rd\n"])
    assert frames == [b"a", b"b\r", b"c\rd"]


def test_byte_at_a_time_reassembles_utf8() -> None:
    data = '{"name":"h\u00e9llo \u2603 \U0001f600"}\n'.encode()
    frames = feed_all(LineFramer(), [data[i : i + 1] for i in range(len(data))])
    assert frames == [data[:-1]]
    assert frames[0].decode() == '{"name":"h\u00e9llo \u2603 \U0001f600"}'


def test_empty_lines_are_records() -> None:
    assert feed_all(LineFramer(), [b"\n\n"]) == [b"", b""]


def test_unterminated_last_record_delivered_at_eof() -> None:
    framer = LineFramer()
    assert framer.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert framer.feed(b":2}\r") == []
    assert framer.feed_eof() == [b'{"b":2}']
    assert framer.feed_eof() == []


@pytest.mark.parametrize("chunk", [1, 7, 64, 4096])
def test_oversized_record_reported_once_and_discarded(chunk: int) -> None:
    framer = LineFramer(max_frame_bytes=100)
    data = b'{"ok":1}\n' + b"x" * 1000 + b"\n" + b'{"ok":2}\n'
    frames = feed_all(framer, [data[i : i + chunk] for i in range(0, len(data), chunk)])
    assert frames == [b'{"ok":1}', FrameTooLarge(100), b'{"ok":2}']


def test_oversized_memory_stays_bounded() -> None:
    framer = LineFramer(max_frame_bytes=1000)
    frames = framer.feed(b"y" * 999)
    assert frames == [] and framer.buffered == 999
    frames = framer.feed(b"y" * 10)
    assert frames == [FrameTooLarge(1000)]
    for _ in range(100):
        assert framer.feed(b"z" * 10_000) == []
        assert framer.buffered == 0
    assert framer.feed(b"tail\nnext\n") == [b"next"]


def test_record_exactly_at_limit_is_accepted() -> None:
    framer = LineFramer(max_frame_bytes=5)
    assert feed_all(framer, [b"12345\n", b"123456\n", b"ab\n"]) == [b"12345", FrameTooLarge(5), b"ab"]


def test_cr_counts_toward_limit_but_is_stripped() -> None:
    # The cap applies to the bytes before LF; a CRLF record of 5 content bytes is 6 bytes.
    framer = LineFramer(max_frame_bytes=5)
    assert feed_all(framer, [b"1234\r\n"]) == [b"1234"]


def test_oversized_unterminated_at_eof_yields_nothing_more() -> None:
    framer = LineFramer(max_frame_bytes=4)
    assert framer.feed(b"123456") == [FrameTooLarge(4)]
    assert framer.feed_eof() == []


def test_large_record_assembled_linearly() -> None:
    framer = LineFramer()
    chunk = b"a" * 65536
    for _ in range(160):  # 10 MiB
        assert framer.feed(chunk) == []
    frames = framer.feed(b"\n")
    assert len(frames) == 1 and len(frames[0]) == 160 * 65536


def test_invalid_limit_rejected() -> None:
    with pytest.raises(ValueError):
        LineFramer(0)

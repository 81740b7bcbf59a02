"""The test client's stdout line reader (``tests/support/pi_process.stream_lines``) frames exactly as
``bytes.split(b"\\n")`` does, whatever sizes the reads come in."""

from __future__ import annotations

import random

from tests.support.pi_process import stream_lines


class _ChoppyStream:
    def __init__(self, data: bytes, rng: random.Random) -> None:
        self.data, self.rng, self.at = data, rng, 0

    def read1(self, n: int) -> bytes:
        size = min(n, self.rng.randrange(1, 64))
        chunk = self.data[self.at : self.at + size]
        self.at += size
        return chunk


def test_lines_as_split_at_any_read_size() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        data = bytes(rng.choice(b"ab\n\xe2") for _ in range(rng.randrange(0, 200)))
        *complete, rest = data.split(b"\n")
        expected = [(line, True) for line in complete] + ([(rest, False)] if rest else [])
        assert list(stream_lines(_ChoppyStream(data, rng))) == expected

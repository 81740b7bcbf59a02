"""Framing throughput: our input path vs raw ``orjson.loads`` on the same bytes, same run.

    python bench/framing_bench.py [--small-mb 32] [--big-records 5]

Two workloads:
- small: many ~100-byte command records (``{"id":N,"type":"get_state"}`` and prompts);
- big: 10 MB records (a prompt with a 10 MB message), fed in 64 KiB chunks like a pipe.

For each, three figures (MB/s of input):
- ``orjson.loads`` alone on the pre-split records (the floor of any JSON path);
- ``LineFramer`` alone (split on LF, CR strip, cap checks);
- framing + ``parse_record`` (what the server does per record before dispatch).
"""

from __future__ import annotations

import argparse
import time

import orjson

from pi_rpc.modes.wire.framing import LineFramer
from pi_rpc.modes.wire.jsonparse import parse_record

CHUNK = 64 * 1024


def chunks(data: bytes, size: int = CHUNK) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def best_of(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run(name: str, data: bytes, records: list[bytes]) -> None:
    parts = chunks(data)
    mb = len(data) / 1e6

    def raw_orjson() -> None:
        for rec in records:
            orjson.loads(rec)

    def framing_only() -> None:
        framer = LineFramer()
        for part in parts:
            framer.feed(part)
        framer.feed_eof()

    def framing_and_parse() -> None:
        framer = LineFramer()
        for part in parts:
            for frame in framer.feed(part):
                parse_record(frame)
        for frame in framer.feed_eof():
            parse_record(frame)

    t_raw = best_of(raw_orjson)
    t_frame = best_of(framing_only)
    t_both = best_of(framing_and_parse)
    print(f"{name}: {len(records)} records, {mb:.1f} MB")
    print(f"  orjson.loads only (pre-split):  {mb / t_raw:9.1f} MB/s")
    print(f"  LineFramer only:                {mb / t_frame:9.1f} MB/s")
    print(f"  LineFramer + parse_record:      {mb / t_both:9.1f} MB/s  ({t_both / t_raw:.2f}x orjson time)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small-mb", type=float, default=32)
    parser.add_argument("--big-records", type=int, default=5)
    opts = parser.parse_args()

    small: list[bytes] = []
    size = 0
    i = 0
    while size < opts.small_mb * 1e6:
        if i % 2:
            rec = orjson.dumps({"id": i, "type": "get_state"})
        else:
            rec = orjson.dumps({"id": f"p{i}", "type": "prompt", "message": "hello \u00e9 world " * 4})
        small.append(rec)
        size += len(rec) + 1
        i += 1
    run("small records", b"\n".join(small) + b"\n", small)

    big_rec = orjson.dumps({"id": "big", "type": "prompt", "message": "x" * (10 * 1000 * 1000)})
    big = [big_rec] * opts.big_records
    run("10 MB records", b"\n".join(big) + b"\n", big)


if __name__ == "__main__":
    main()

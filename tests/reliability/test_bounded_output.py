"""The output queue is bounded even for events that do not wait: ``send_bounded`` queues at
once while the reader keeps up and waits once the queue is over its hard limit, so a client
that stops reading cannot grow memory; everything comes out in order once it reads again."""

from __future__ import annotations

import json
import os

import anyio
import pytest

from pi_rpc.modes.wire.output import HARD_LIMIT_FACTOR, RecordWriter

pytestmark = pytest.mark.anyio


async def test_send_bounded_waits_at_the_hard_limit_and_resumes_in_order() -> None:
    r, w = os.pipe()
    try:
        writer = RecordWriter(w, max_queue=8, max_queue_bytes=64 * 1024)
        pad = "x" * 4000
        total = 2000  # ~8 MB of events: far more than the pipe plus the queue's bounds
        produced = 0
        peak_bytes = 0
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer.run)

            async def producer() -> None:
                nonlocal produced, peak_bytes
                for i in range(total):
                    await writer.send_bounded({"type": "bash_execution_update", "i": i, "delta": pad})
                    produced += 1
                    peak_bytes = max(peak_bytes, writer.queued_bytes)

            tg.start_soon(producer)
            # The client does not read: the producer must come to a stop, not run to the end.
            for _ in range(200):
                await anyio.sleep(0.01)
            stalled_at = produced
            assert stalled_at < total
            assert peak_bytes <= 64 * 1024 * HARD_LIMIT_FACTOR + 5000
            got: list[int] = []
            buf = b""
            while len(got) < total:
                chunk = await anyio.to_thread.run_sync(os.read, r, 1 << 20)
                buf += chunk
                *lines, buf = buf.split(b"\n")
                got.extend(json.loads(line)["i"] for line in lines)
            await writer.drain()
            writer.close()
        assert got == list(range(total))
        assert produced == total
    finally:
        os.close(r)
        os.close(w)


async def test_send_bounded_does_not_wait_below_the_limit() -> None:
    r, w = os.pipe()
    try:
        writer = RecordWriter(w, max_queue=4)
        # No writer task running: nothing drains, yet 4 x 4 records queue without waiting.
        with anyio.fail_after(5):
            for i in range(4 * HARD_LIMIT_FACTOR):
                await writer.send_bounded({"i": i})
        assert writer.queued_bytes > 0
        writer.close()
    finally:
        os.close(r)
        os.close(w)

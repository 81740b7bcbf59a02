"""RecordWriter over a real pipe: ordering, backpressure, EPIPE, nowait; stdout takeover."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import anyio
import pytest

from pi_rpc.modes.wire.output import RecordWriter, WriterClosed


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


@pytest.mark.anyio
async def test_records_written_in_order_mixing_send_and_nowait() -> None:
    r, w = os.pipe()
    try:
        writer = RecordWriter(w, max_queue=4)
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer.run)
            for i in range(50):
                if i % 3:
                    await writer.send({"i": i})
                else:
                    writer.send_nowait({"i": i})
            await writer.drain()
            writer.close()
        os.close(w)
        w = -1
        lines = _read_all(r).split(b"\n")
        assert lines[-1] == b""
        assert [json.loads(x)["i"] for x in lines[:-1]] == list(range(50))
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


@pytest.mark.anyio
async def test_send_blocks_when_reader_stalls() -> None:
    r, w = os.pipe()
    try:
        writer = RecordWriter(w, max_queue=2)
        big = {"pad": "x" * 200_000}  # larger than the pipe buffer: the write itself stalls
        sent = 0
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer.run)

            async def producer() -> None:
                nonlocal sent
                for _ in range(10):
                    await writer.send(big)
                    sent += 1

            tg.start_soon(producer)
            await anyio.sleep(0.2)
            stalled_at = sent
            assert stalled_at < 10  # backpressure: producer is waiting for queue space
            received = 0
            while received < 10:
                chunk = await anyio.to_thread.run_sync(os.read, r, 1 << 20)
                received += chunk.count(b"\n")
            await writer.drain()
            writer.close()
        assert sent == 10
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.anyio
async def test_epipe_reports_fatal_once_and_closes() -> None:
    r, w = os.pipe()
    os.close(r)
    fatal: list[BaseException] = []
    writer = RecordWriter(w, on_fatal=fatal.append)
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer.run)
            await writer.send({"a": 1})
            with anyio.fail_after(5):
                while writer.failed is None:
                    await anyio.sleep(0.01)
        assert len(fatal) == 1 and isinstance(fatal[0], BrokenPipeError)
        with pytest.raises(WriterClosed):
            await writer.send({"b": 2})
    finally:
        os.close(w)


def test_take_over_stdout_routes_stray_writes_to_stderr(tmp_path) -> None:
    script = textwrap.dedent(
        """
        import os, subprocess, sys
        from pi_rpc.modes.wire.output import take_over_stdout
        t = take_over_stdout()
        print("stray print")
        sys.stdout.flush()
        os.write(1, b"stray fd1\\n")
        subprocess.run(["echo", "stray child"], check=True)
        os.write(t.protocol_fd, b'{"ok":true}\\n')
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b'{"ok":true}\n'
    for text in (b"stray print", b"stray fd1", b"stray child"):
        assert text in proc.stderr

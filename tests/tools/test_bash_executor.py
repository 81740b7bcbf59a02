import os
import subprocess

import anyio
import pytest

from pi_rpc.ai.abort import AbortController
from pi_rpc.tools import process_registry
from pi_rpc.tools.bash_executor import (
    BashExecutionError,
    BashExecutionResult,
    bash_execution_message,
    bash_execution_to_text,
    bash_execution_to_user_message,
    execute_bash,
)

from .tools_helpers import group_alive, group_gone

# Groups other tests in this process may have registered (the registry is process-wide).
_BEFORE: frozenset[int] = frozenset()

pytestmark = pytest.mark.anyio


async def test_nonzero_exit_and_sanitised_chunks(tmp_path):
    deltas: list[str] = []
    cmd = "printf '\\033[1mbold\\033[0m\\r\\n'; echo err >&2; printf 'bin\\001\\002ary\\n'; exit 2"
    result = await execute_bash(cmd, str(tmp_path), on_chunk=deltas.append)
    assert result.output == "bold\nerr\nbinary\n"
    assert "".join(deltas) == result.output
    assert result.to_dict() == {"output": "bold\nerr\nbinary\n", "exitCode": 2, "cancelled": False, "truncated": False}


async def test_async_chunk_callback_and_invalid_utf8(tmp_path):
    got: list[str] = []

    async def on_chunk(text: str) -> None:
        got.append(text)

    result = await execute_bash("printf 'a\\377b\\n'", str(tmp_path), on_chunk=on_chunk)
    assert result.output == "a\ufffdb\n" == "".join(got)


async def test_already_aborted_signal_does_not_run(tmp_path):
    ctl = AbortController()
    ctl.abort()
    marker = tmp_path / "ran"
    result = await execute_bash(f"touch {marker}", str(tmp_path), signal=ctl.signal)
    assert result.to_dict() == {"output": "", "cancelled": True, "truncated": False}
    assert not marker.exists()


async def test_abort_cancels_without_exit_code_and_kills_group(tmp_path):
    ctl = AbortController()
    pgids: list[int] = []

    def on_chunk(text: str) -> None:
        if "up" in text:
            pgids.extend(process_registry.registered() - _BEFORE)
            ctl.abort()

    with anyio.fail_after(20):
        result = await execute_bash(
            "echo up; sleep 100 & sleep 100; wait", str(tmp_path), on_chunk=on_chunk, signal=ctl.signal
        )
    assert result.cancelled and result.exit_code is None and result.output == "up\n"
    assert "exitCode" not in result.to_dict()
    assert pgids and all(group_gone(p) == [] for p in pgids)


async def test_sigterm_ignoring_group_is_killed_after_grace(tmp_path):
    ctl = AbortController()
    pgids: list[int] = []

    def on_chunk(text: str) -> None:
        if "ready" in text:
            pgids.extend(process_registry.registered() - _BEFORE)
            ctl.abort()

    with anyio.fail_after(20):
        result = await execute_bash(
            "trap '' TERM; echo ready; sleep 100", str(tmp_path), on_chunk=on_chunk, signal=ctl.signal
        )
    assert result.cancelled
    assert pgids and all(group_gone(p) == [] for p in pgids)


async def test_timeout_result(tmp_path):
    with anyio.fail_after(20):
        result = await execute_bash("echo t; sleep 100", str(tmp_path), timeout_s=0.3)
    assert result.timed_out and not result.cancelled and result.exit_code is None and result.output == "t\n"


async def test_background_child_holding_pipe_does_not_block(tmp_path):
    pgids: list[int] = []

    def on_chunk(text: str) -> None:
        pgids.extend(process_registry.registered() - _BEFORE)

    with anyio.fail_after(20):
        result = await execute_bash("sleep 30 & echo done", str(tmp_path), on_chunk=on_chunk)
    assert result.output == "done\n" and result.exit_code == 0
    # Like upstream, a background child outlives a finished command; clean up ours by group id.
    for pgid in set(pgids):
        process_registry.kill_group(pgid)


async def test_truncation_keeps_tail_and_streams_everything(tmp_path):
    deltas: list[str] = []
    result = await execute_bash("seq 1 5000", str(tmp_path), on_chunk=deltas.append)
    assert result.truncated and result.full_output_path
    assert result.output.startswith("3001\n") and result.output.endswith("5000")
    assert "".join(deltas) == "".join(f"{i}\n" for i in range(1, 5001))
    with open(result.full_output_path) as fh:
        assert fh.read() == "".join(f"{i}\n" for i in range(1, 5001))
    assert oct(os.stat(result.full_output_path).st_mode & 0o777) == "0o600"
    data = result.to_dict()
    assert data["fullOutputPath"] == result.full_output_path and data["truncated"] is True
    os.unlink(result.full_output_path)


async def test_shell_prefix_and_custom_shell(tmp_path):
    result = await execute_bash("echo $X", str(tmp_path), command_prefix="X=prefixed", shell_path="/bin/sh")
    assert result.output == "prefixed\n"
    with pytest.raises(BashExecutionError, match="^Custom shell path not found: /nope$"):
        await execute_bash("true", str(tmp_path), shell_path="/nope")


async def test_kill_all_kills_registered_groups(tmp_path):
    proc = subprocess.Popen(["sleep", "100"], start_new_session=True)
    process_registry.register(proc.pid)
    process_registry.kill_all()
    assert proc.wait(timeout=10) == -9
    assert proc.pid not in process_registry.registered()


def test_bash_execution_message_and_text():
    result = BashExecutionResult(output="out\nrederr\n", exit_code=2, cancelled=False, truncated=False)
    msg = bash_execution_message("make", result, timestamp=123)
    assert msg == {
        "role": "bashExecution",
        "command": "make",
        "output": "out\nrederr\n",
        "exitCode": 2,
        "cancelled": False,
        "truncated": False,
        "timestamp": 123,
    }
    assert "excludeFromContext" not in msg and "fullOutputPath" not in msg
    assert bash_execution_to_text(msg) == "Ran `make`\n```\nout\nrederr\n\n```\n\nCommand exited with code 2"
    assert bash_execution_to_user_message(msg) == {
        "role": "user",
        "content": [{"type": "text", "text": bash_execution_to_text(msg)}],
        "timestamp": 123,
    }
    cancelled = bash_execution_message(
        "sleep 9",
        BashExecutionResult(output="", exit_code=None, cancelled=True, truncated=True, full_output_path="/tmp/f.log"),
        exclude_from_context=True,
        timestamp=5,
    )
    assert list(cancelled) == [
        "role",
        "command",
        "output",
        "cancelled",
        "truncated",
        "fullOutputPath",
        "excludeFromContext",
        "timestamp",
    ]
    assert bash_execution_to_text(cancelled) == (
        "Ran `sleep 9`\n(no output)\n\n(command cancelled)\n\n[Output truncated. Full output: /tmp/f.log]"
    )


async def test_outer_cancellation_kills_group(tmp_path):
    pgids: list[int] = []
    outer = anyio.CancelScope()

    def on_chunk(text: str) -> None:
        pgids.extend(process_registry.registered() - _BEFORE)
        outer.cancel()  # the command runs (it printed): cancel from outside, as a caller would

    with anyio.fail_after(20):
        with outer:
            await execute_bash("echo go; sleep 100 & sleep 100; wait", str(tmp_path), on_chunk=on_chunk)
    assert outer.cancelled_caught and pgids
    for pgid in set(pgids):
        assert pgid not in process_registry.registered()
        # SIGKILL went to the leader's group; give the kernel a moment to finish the kill.
        with anyio.fail_after(5):
            while group_alive(pgid):
                await anyio.sleep(0.05)


@pytest.fixture(autouse=True)
def _snapshot_registry():
    global _BEFORE
    _BEFORE = process_registry.registered()
    yield

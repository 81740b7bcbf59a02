import json
import os

import anyio
import pytest

from pi_rpc.agent.types import ToolError
from pi_rpc.ai.abort import AbortController
from pi_rpc.tools import process_registry
from pi_rpc.tools.bash import BashTool

from .tools_helpers import group_gone, text_of

pytestmark = pytest.mark.anyio


def upstream_end(fixtures_dir, call_id):
    for line in (fixtures_dir / "c_tool_bash_tool_events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "tool_execution_end" and event["toolCallId"] == call_id:
            return event["result"]
    raise AssertionError(call_id)


def upstream_updates(fixtures_dir, call_id):
    out = []
    for line in (fixtures_dir / "c_tool_bash_tool_events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["type"] == "tool_execution_update" and event["toolCallId"] == call_id:
            out.append(event["partialResult"])
    return out


def without_wall_time(result):
    result = json.loads(json.dumps(result))
    wall = result["structuredContent"].pop("wall_time_seconds")
    assert isinstance(wall, (int, float)) and wall >= 0
    return result


async def run_tool(tool, args, signal=None):
    updates = []
    try:
        result = await tool.execute("call", args, signal, updates.append)
    except ToolError as exc:
        return exc, updates
    return result, updates


async def test_success_matches_upstream_shape(tmp_path, fixtures_dir):
    result, updates = await run_tool(BashTool(str(tmp_path)), {"command": "echo hi"})
    assert updates == upstream_updates(fixtures_dir, "call_1")
    assert without_wall_time(result) == without_wall_time(upstream_end(fixtures_dir, "call_1"))


async def test_nonzero_exit_is_error_result_like_upstream(tmp_path, fixtures_dir):
    result, updates = await run_tool(BashTool(str(tmp_path)), {"command": "echo oops >&2; exit 3"})
    assert updates == upstream_updates(fixtures_dir, "call_2")
    assert without_wall_time(result) == without_wall_time(upstream_end(fixtures_dir, "call_2"))


async def test_no_output_text(tmp_path):
    result, _ = await run_tool(BashTool(str(tmp_path)), {"command": "true"})
    assert text_of(result) == "(no output)"
    assert result["structuredContent"]["output"] == ""


async def test_streaming_updates_accumulate(tmp_path):
    tool = BashTool(str(tmp_path), update_throttle_s=0)
    cmd = "printf a; sleep 0.2; printf b; sleep 0.2; printf 'c\\n'"
    result, updates = await run_tool(tool, {"command": cmd})
    texts = [text_of(u) for u in updates[1:]]
    assert updates[0] == {"content": []}
    assert texts[-1] == "abc\n" and len(texts) >= 2
    for earlier, later in zip(texts, texts[1:]):
        assert later.startswith(earlier)
    assert all(u["details"] == {} for u in updates[1:])
    assert text_of(result) == "abc\n"


async def test_ansi_split_across_chunks_is_removed(tmp_path):
    tool = BashTool(str(tmp_path), update_throttle_s=0)
    cmd = "printf 'x\\033['; sleep 0.2; printf '31mred\\033[0m\\r\\n'"
    result, updates = await run_tool(tool, {"command": cmd})
    assert text_of(result) == "xred\n"
    assert all("\x1b" not in text_of(u) and "[31m" not in text_of(u) for u in updates)


async def test_abort_kills_whole_process_group_including_grandchildren(tmp_path):
    ctl = AbortController()
    seen_pgids: list[int] = []

    def on_update(partial):
        if "started" in text_of(partial) and not ctl.signal.aborted:
            seen_pgids.extend(process_registry.registered())
            ctl.abort()

    tool = BashTool(str(tmp_path), update_throttle_s=0)
    cmd = "echo started; sleep 100 & sleep 100; wait"
    with anyio.fail_after(20):
        with pytest.raises(ToolError) as exc:
            await tool.execute("call", {"command": cmd}, ctl.signal, on_update)
    assert str(exc.value) == "started\n\n\nCommand aborted"
    assert seen_pgids, "process group was not registered while running"
    for pgid in seen_pgids:
        assert group_gone(pgid) == []
        assert pgid not in process_registry.registered()


async def test_timeout_kills_group_and_reports(tmp_path):
    tool = BashTool(str(tmp_path))
    with anyio.fail_after(20):
        with pytest.raises(ToolError) as exc:
            await tool.execute("call", {"command": "echo before; sleep 100 & sleep 100", "timeout": 0.5}, None, None)
    assert str(exc.value) == "before\n\n\nCommand timed out after 0.5 seconds"


async def test_invalid_timeout_and_start_errors(tmp_path):
    with pytest.raises(ToolError, match="^Invalid timeout: must be a finite number of seconds$"):
        await BashTool(str(tmp_path)).execute("c", {"command": "true", "timeout": -1}, None, None)
    with pytest.raises(ToolError, match="^Custom shell path not found: /no/such/shell$"):
        await BashTool(str(tmp_path), shell_path="/no/such/shell").execute("c", {"command": "true"}, None, None)
    missing = str(tmp_path / "gone")
    with pytest.raises(ToolError) as exc:
        await BashTool(missing).execute("c", {"command": "true"}, None, None)
    assert str(exc.value) == f"Working directory does not exist: {missing}\nCannot execute bash commands."


async def test_tail_truncation_with_full_output_file(tmp_path):
    result, updates = await run_tool(BashTool(str(tmp_path)), {"command": "seq 1 3000"})
    text = text_of(result)
    path = result["details"]["fullOutputPath"]
    assert os.path.basename(path).startswith("pi-bash-") and path.endswith(".log")
    assert text.startswith("1001\n")
    assert text.endswith(f"3000\n\n[Showing lines 1001-3000 of 3000. Full output: {path}]")
    assert result["details"]["truncation"]["truncatedBy"] == "lines"
    assert result["structuredContent"]["truncated"] is True
    with open(path) as fh:
        assert fh.read() == "".join(f"{i}\n" for i in range(1, 3001))
    os.unlink(path)


async def test_byte_truncation_notice(tmp_path):
    cmd = "for i in $(seq 1 100); do printf '%01000d\\n' $i; done"
    result, _ = await run_tool(BashTool(str(tmp_path)), {"command": cmd})
    path = result["details"]["fullOutputPath"]
    assert text_of(result).endswith(f"\n\n[Showing lines 50-100 of 100 (50.0KB limit). Full output: {path}]")
    os.unlink(path)


async def test_env_extras_prefix_and_session_vars_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("PI_MODEL", "outer-value")
    monkeypatch.setenv("PI_SESSION_FILE", "outer-file")
    tool = BashTool(
        str(tmp_path),
        command_prefix="export GREETING=hello",
        session_env=lambda: {
            "PI_SESSION_ID": "sid",
            "PI_PROVIDER": "fake",
            "PI_MODEL": "m1",
            "PI_REASONING_LEVEL": "high",
        },
        bin_dir="/opt/pi-bin",
    )
    cmd = 'echo "$GREETING|$PI_SESSION_ID|$PI_PROVIDER|$PI_MODEL|$PI_REASONING_LEVEL|${PI_SESSION_FILE-unset}|${PATH%%:*}|$PWD"'
    result, _ = await run_tool(tool, {"command": cmd})
    assert text_of(result) == f"hello|sid|fake|m1|high|unset|/opt/pi-bin|{tmp_path}\n"

"""Upstream's own ``permission-gate.ts`` in an ACP session: its ``ctx.ui.select`` becomes a
``session/request_permission`` and its block a failed tool call, exactly as the Python port
(``test_acp_dialogs.py``) — the TypeScript extension runs in the Node sidecar and reaches ACP's
dialogs through the same ``ctx.ui`` (issue 33 §3)."""

from __future__ import annotations

import pytest

from tests.extensions.ts_support import EXAMPLES, node_available, node_modules_env

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])"),
    pytest.mark.skipif(not EXAMPLES.is_dir(), reason="upstream's examples are not installed"),
]


async def test_upstream_permission_gate_ts_asks_through_acp(acp_agent):
    script = [
        {"toolCalls": [{"id": "rm1", "name": "bash", "arguments": {"command": "rm -rf build && echo removed"}}]},
        {"toolCalls": [{"id": "rm2", "name": "bash", "arguments": {"command": "rm -rf dist"}}]},
        {"text": "done"},
    ]
    gate = EXAMPLES / "permission-gate.ts"
    async with acp_agent("-e", str(gate), script=script, env=node_modules_env()) as run:
        (run.cwd / "build").mkdir()
        (run.cwd / "dist").mkdir()
        run.client.permission_answers = ["choice-0", "choice-1"]  # "Yes", then "No"
        await run.initialize()
        session = await run.new_session()
        assert (await run.prompt(session.session_id, "clean up")).stop_reason == "end_turn"
        (first, first_options), (second, _) = run.client.permission_requests
        assert [(o.option_id, o.name) for o in first_options] == [("choice-0", "Yes"), ("choice-1", "No")]
        assert first.title.startswith("⚠️ Dangerous command:") and "rm -rf build" in first.title
        assert not (run.cwd / "build").exists()
        finals = {u.tool_call_id: u for u in run.client.of("tool_call_update")}
        assert finals["rm2"].status == "failed" and finals["rm2"].content[0].content.text == "Blocked by user"
        assert (run.cwd / "dist").exists()

"""A TypeScript extension in the interactive mode (issue 33 §3): its command (with a select
dialog and a notice) and its tool (called by the model, its result in the transcript) work in
the Textual app as they do over RPC. Headless under Textual's pilot with a real Node sidecar."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.extensions.ts_support import node_available, node_modules_env

from .interactive_support import idle, roles_texts, running_app, type_and_enter, until

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])"),
]

TS_EXT = """
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("colour", {
    description: "Pick a colour (TypeScript)",
    handler: async (args, ctx) => {
      const colour = await ctx.ui.select("Colour?", ["red", "green"]);
      ctx.ui.notify(`ts picked ${colour} for ${args}`, "info");
    },
  });
  pi.registerTool({
    name: "shout",
    label: "Shout",
    description: "Upper-cases a text",
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id, params) {
      return { content: [{ type: "text", text: params.text.toUpperCase() }], details: { from: "node" } };
    },
  });
}
"""


async def test_a_typescript_command_and_tool_work_in_the_app(
    isolated_env: Path, tmp_path: Path, faux_script: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_rpc.modes.interactive.transcript import Notice, ToolCall

    for key, value in node_modules_env().items():
        monkeypatch.setenv(key, value)
    ext = tmp_path / "colour.ts"
    ext.write_text(TS_EXT)
    script = faux_script(  # type: ignore[operator]
        [{"toolCalls": [{"name": "shout", "arguments": {"text": "quiet words"}}]}, {"text": "shouted"}]
    )
    async with running_app(tmp_path, faux_script=script, extensions=[str(ext)], approve=True) as (app, pilot):
        await pilot.pause(0.2)  # extensions bound by the app's startup worker
        await type_and_enter(pilot, "/colour walls")
        await until(pilot, lambda: type(app.screen).__name__ == "SelectScreen", timeout=30)
        await pilot.press("down", "enter")
        await until(pilot, lambda: any(n.text == "ts picked green for walls" for n in app.query(Notice)))

        await type_and_enter(pilot, "shout this")
        await until(pilot, lambda: idle(app) and roles_texts(app)[-1] == ("assistant", "shouted"), timeout=30)
        await pilot.pause(0.1)
        (call,) = app.query(ToolCall)
        assert not call.is_error and "QUIET WORDS" in call.output

"""A TypeScript extension's widget factory, header and footer components in the interactive
mode (``ctx.ui.setWidget(key, factory, {placement})``, ``setHeader``, ``setFooter``): the
components stay in the Node sidecar and the app draws their lines where upstream does (widgets
above or below the editor, the header in place of the startup header, the footer in place of
the built-in one), draws again on ``tui.requestRender()`` and disposes of them when they are
replaced or cleared. In a real terminal (tmux), fullscreen and regular (where the header is already in
the scrollback when ``session_start`` replaces it: the scrollback is written again)."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.extensions.ts_support import node_available, node_modules_env

from .interactive_support import Tmux

needs_node = pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])")
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")

CHROME = """
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { writeFileSync } from "node:fs";

export default function (pi: ExtensionAPI) {
  let count = 0;
  let bump = () => {};
  pi.on("session_start", (_event, ctx) => {
    ctx.ui.setWidget("counter", (tui, theme) => {
      bump = () => { count++; tui.requestRender(); };
      return {
        render: (width: number) => [theme.fg("accent", `WIDGET-ABOVE count=${count} width=${width}`)],
        invalidate() {},
        dispose() { writeFileSync(process.env.DISPOSED_FILE!, "disposed counter"); },
      };
    });
    ctx.ui.setWidget("below", (_tui, theme) => new Text(theme.fg("muted", "WIDGET-BELOW"), 0, 0), { placement: "belowEditor" });
    ctx.ui.setHeader((_tui, theme) => new Text(theme.bold("MY-HEADER") + "\\nsecond header line", 0, 0));
    ctx.ui.setFooter((_tui, _theme, footerData) => ({
      render: (width: number) => [`MY-FOOTER branch=${footerData.getGitBranch()} statuses=${[...footerData.getExtensionStatuses().values()].join(",")} w=${width}`],
      invalidate() {},
    }));
    ctx.ui.setStatus("st", "stat-1");
  });
  pi.registerCommand("bump", { description: "bump", handler: async () => bump() });
  pi.registerCommand("clear", {
    description: "clear",
    handler: async (_args, ctx) => {
      ctx.ui.setWidget("counter", undefined);
      ctx.ui.setWidget("below", undefined);
      ctx.ui.setHeader(undefined);
      ctx.ui.setFooter(undefined);
    },
  });
}
"""


def _until(read: Callable[[], str], text: str, timeout: float = 10) -> str:
    deadline = time.monotonic() + timeout
    shown = read()
    while text not in shown and time.monotonic() < deadline:
        time.sleep(0.2)
        shown = read()
    return shown


@needs_node
@needs_tmux
@pytest.mark.parametrize("mode", ["fullscreen", "regular"])
def test_widget_header_and_footer_components_are_drawn_updated_and_cleared(tmp_path: Path, mode: str) -> None:
    ext = tmp_path / "chrome.ts"
    ext.write_text(CHROME)
    disposed = tmp_path / "disposed.txt"
    command = f"{sys.executable} -m pi_rpc --tui-mode {mode} --model faux/faux-1 -e {ext}; sleep 60"
    term = Tmux(tmp_path, command, {**node_modules_env(), "DISPOSED_FILE": str(disposed)}, size=(100, 30))
    try:
        shown = term.wait_for("MY-FOOTER")
        shown = term.wait_for("WIDGET-BELOW")
        rows = shown.rstrip("\n").split("\n")
        above = next(i for i, row in enumerate(rows) if "WIDGET-ABOVE count=0 width=100" in row)
        below = next(i for i, row in enumerate(rows) if "WIDGET-BELOW" in row)
        footer = next(i for i, row in enumerate(rows) if "MY-FOOTER" in row)
        assert above < below < footer  # the editor sits between the two widgets
        assert rows[footer].startswith("MY-FOOTER branch=null statuses=stat-1 w=100")
        assert rows[below].startswith("WIDGET-BELOW")  # a component's lines at full width, no padding
        assert "faux-1" not in shown  # the built-in footer is replaced
        # regular mode: the header was in the scrollback before session_start, written again
        history = _until(lambda: term.history() if mode == "regular" else term.screen(), "MY-HEADER")
        assert "MY-HEADER" in history and "second header line" in history and "v1.6.0" not in history
        term.type("/bump")
        shown = term.wait_for("WIDGET-ABOVE count=1 width=100")
        term.type("/clear")
        shown = term.wait_for("faux-1")
        time.sleep(0.5)
        shown = term.screen()
        for gone in ("WIDGET-ABOVE", "WIDGET-BELOW", "MY-FOOTER"):
            assert gone not in shown
        history = _until(lambda: term.history() if mode == "regular" else term.screen(), "v1.6.0")
        assert "MY-HEADER" not in history and "v1.6.0" in history
        deadline = time.monotonic() + 5
        while not disposed.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert disposed.read_text() == "disposed counter"  # setWidget(key, undefined) disposed of it
    finally:
        term.kill()

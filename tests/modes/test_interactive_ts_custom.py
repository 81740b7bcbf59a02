"""A TypeScript extension's ``ctx.ui.custom`` component in the interactive mode: the component
stays in the Node sidecar, the app draws its ``render(width)`` lines, hands it keys as raw
terminal data, draws again on ``tui.requestRender()`` and closes on ``done(result)``, whose
result the command then uses. Headless under Textual's pilot, in a real terminal (tmux), and
with upstream's own ``todo.ts`` example."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.extensions.ts_support import EXAMPLES, node_available, node_modules_env

from .interactive_support import Tmux, running_app, type_and_enter, until

needs_node = pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])")
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")

PICKER = """
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Key, matchesKey, truncateToWidth } from "@earendil-works/pi-tui";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("fruit", {
    description: "Pick a fruit (a custom component)",
    handler: async (_args, ctx) => {
      const fruits = ["apple", "banana", "cherry"];
      const picked = await ctx.ui.custom<string | undefined>((tui, theme, keybindings, done) => {
        let index = 0;
        let typed = "";
        return {
          render(width: number) {
            return [
              theme.fg("accent", theme.bold("Pick a fruit")) + ` at width ${width}`,
              ...fruits.map((fruit, i) => (i === index ? theme.fg("accent", `> ${fruit}`) : `  ${fruit}`)),
              theme.fg("dim", `typed: ${typed}`),
            ].map((line) => truncateToWidth(line, width));
          },
          invalidate() {},
          handleInput(data: string) {
            if (keybindings.matches(data, "tui.select.up")) index = Math.max(0, index - 1);
            else if (matchesKey(data, Key.down)) index = Math.min(fruits.length - 1, index + 1);
            else if (keybindings.matches(data, "tui.select.confirm")) return done(fruits[index]);
            else if (matchesKey(data, Key.escape)) return done(undefined);
            else if (matchesKey(data, Key.ctrl("c"))) typed += "^C";
            else if (matchesKey(data, Key.shift("tab"))) typed += "^T";
            else if (data.length === 1 && data >= " ") typed += data;
            tui.requestRender();
          },
        };
      });
      ctx.ui.notify(`picked ${picked ?? "nothing"} in ${ctx.mode}`, "info");
    },
  });
  pi.registerCommand("broken", {
    description: "A factory that throws",
    handler: async (_args, ctx) => {
      try {
        await ctx.ui.custom(() => {
          throw new Error("no component today");
        });
        ctx.ui.notify("custom resolved", "info");
      } catch (error) {
        ctx.ui.notify(`custom rejected: ${(error as Error).message}`, "info");
      }
    },
  });
}
"""


def _lines(app: object) -> str:
    from textual.widgets import Static

    screen = app.screen  # type: ignore[attr-defined]
    if type(screen).__name__ != "LineComponentScreen":
        return ""
    return str(screen.query_one("#lines", Static).render())


def _notices(app: object) -> list[str]:
    from pi_rpc.modes.interactive.transcript import Notice

    return [n.text for n in app.query(Notice)]  # type: ignore[attr-defined]


@needs_node
@pytest.mark.anyio
async def test_a_custom_component_is_drawn_takes_keys_and_returns_its_result(
    isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in node_modules_env().items():
        monkeypatch.setenv(key, value)
    ext = tmp_path / "fruit.ts"
    ext.write_text(PICKER)
    async with running_app(tmp_path, extensions=[str(ext)]) as (app, pilot):
        await pilot.pause(0.2)
        await type_and_enter(pilot, "/fruit")
        await until(pilot, lambda: "Pick a fruit at width 80" in _lines(app), timeout=30)
        assert "> apple" in _lines(app) and "  banana" in _lines(app)
        await pilot.press("down")
        await until(pilot, lambda: "> banana" in _lines(app))
        assert "  apple" in _lines(app)
        await pilot.press("k", "i", "w", "i", "ctrl+c", "shift+tab")  # the app's own keys too
        await until(pilot, lambda: "typed: kiwi^C^T" in _lines(app))
        await pilot.resize_terminal(100, 30)  # render(width) again at the new width
        await until(pilot, lambda: "Pick a fruit at width 100" in _lines(app))
        assert "> banana" in _lines(app)
        await pilot.press("enter")
        await until(pilot, lambda: "picked banana in tui" in _notices(app))
        assert type(app.screen).__name__ != "LineComponentScreen"

        # Escape goes to the component too (it closes itself with undefined, as upstream's do)
        await type_and_enter(pilot, "/fruit")
        await until(pilot, lambda: "> apple" in _lines(app), timeout=30)
        await pilot.press("escape")
        await until(pilot, lambda: "picked nothing in tui" in _notices(app))

        # a factory that throws rejects custom()'s promise, as upstream's, and nothing stays open
        await type_and_enter(pilot, "/broken")
        await until(pilot, lambda: "custom rejected: no component today" in _notices(app))
        assert type(app.screen).__name__ != "LineComponentScreen"


@needs_node
@needs_tmux
def test_a_custom_component_in_a_real_terminal(tmp_path: Path) -> None:
    ext = tmp_path / "fruit.ts"
    ext.write_text(PICKER)
    command = f"{sys.executable} -m pi_rpc --model faux/faux-1 -e {ext}; sleep 60"
    term = Tmux(tmp_path, command, node_modules_env(), size=(100, 30))
    try:
        term.wait_for("faux-1")
        term.type("/fruit")
        shown = term.wait_for("Pick a fruit at width 100")
        assert "> apple" in shown and "  banana" in shown and "  cherry" in shown
        colored = term.screen(escapes=True)
        assert "\x1b[1m" in colored  # theme.bold reached the terminal
        term.keys("Down")
        shown = term.wait_for("> banana")
        assert "  apple" in shown
        term.keys("Down")
        term.wait_for("> cherry")
        term.keys("Up")
        term.wait_for("> banana")
        for ch in "fig":
            term.keys(ch)
        term.wait_for("typed: fig")
        term.keys("Enter")
        shown = term.wait_for("picked banana in tui")
        assert "Pick a fruit" not in shown
    finally:
        term.kill()


@needs_node
@needs_tmux
def test_upstreams_todo_example_draws_its_list_and_closes_on_escape(tmp_path: Path) -> None:
    ext = EXAMPLES / "todo.ts"
    if not ext.exists():
        pytest.skip("upstream's examples are not installed")
    command = f"{sys.executable} -m pi_rpc --model faux/faux-1 -e {ext}; sleep 60"
    term = Tmux(tmp_path, command, node_modules_env(), size=(100, 30))
    try:
        term.wait_for("faux-1")
        term.type("/todos")
        shown = term.wait_for("No todos yet")
        assert "Todos" in shown and "Press Escape to close" in shown
        term.keys("Escape")
        deadline = time.monotonic() + 10
        while "No todos yet" in term.screen() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "No todos yet" not in term.screen()
    finally:
        term.kill()

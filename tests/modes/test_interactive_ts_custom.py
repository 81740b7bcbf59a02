"""A TypeScript extension's ``ctx.ui.custom`` component in the interactive mode: the component
stays in the Node sidecar, the app draws its ``render(width)`` lines in place of the editor (an
overlay over the conversation, where pi-tui lays it out), hands it keys as raw terminal data,
draws again on ``tui.requestRender()`` and closes on ``done(result)``, whose result the command
then uses. Headless under Textual's pilot, in a real terminal (tmux), with upstream's own
``todo.ts`` example, and side by side with upstream's ``overlay-test.ts``."""

from __future__ import annotations

import shlex
import shutil
import sys
import time
from pathlib import Path

import pytest

from tests.extensions.ts_support import EXAMPLES, node_available, node_modules_env
from tests.support import upstream

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
    slot = app.component_slots.top  # type: ignore[attr-defined]
    return "" if slot is None else str(slot.render())


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
        assert app.component_slots.top is None and app.editor.display

        # Escape goes to the component too (it closes itself with undefined, as upstream's do)
        await type_and_enter(pilot, "/fruit")
        await until(pilot, lambda: "> apple" in _lines(app), timeout=30)
        await pilot.press("escape")
        await until(pilot, lambda: "picked nothing in tui" in _notices(app))

        # a factory that throws rejects custom()'s promise, as upstream's, and nothing stays open
        await type_and_enter(pilot, "/broken")
        await until(pilot, lambda: "custom rejected: no component today" in _notices(app))
        assert app.component_slots.top is None and app.editor.display


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


OVERLAYS = """
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { matchesKey } from "@earendil-works/pi-tui";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("ov", {
    description: "An anchored overlay",
    handler: async (args, ctx) => {
      const anchor = (args.trim() || "top-right") as any;
      let handle: any;
      const result = await ctx.ui.custom<string>(
        (_tui, _theme, keybindings, done) => ({
          render(width: number) {
            const text = `OV ${anchor} w=${width} keys=${keybindings.getKeys("app.model.select").join(",")}`;
            return [`+${"-".repeat(width - 2)}+`, `|${text.padEnd(width - 2)}|`, `+${"-".repeat(width - 2)}+`];
          },
          invalidate() {},
          handleInput(data: string) {
            if (matchesKey(data, "escape")) done(`closed focused=${handle?.isFocused()}`);
          },
        }),
        { overlay: true, overlayOptions: { anchor, width: "50%" }, onHandle: (h) => { handle = h; } },
      );
      ctx.ui.notify(`overlay ${result}`, "info");
    },
  });
  pi.registerCommand("tall", {
    description: "A component taller than the terminal",
    handler: async (_args, ctx) => {
      await ctx.ui.custom<void>((_tui, _theme, _keybindings, done) => ({
        render: () => Array.from({ length: 60 }, (_, i) => `tall line ${i + 1}`),
        invalidate() {},
        handleInput(data: string) {
          if (matchesKey(data, "escape")) done();
        },
      }));
      ctx.ui.notify("tall closed", "info");
    },
  });
}
"""


def _rect(screen: str, marker: str) -> tuple[int, int, int]:
    """(row, column, width) of the first ``+---+`` box whose middle line has ``marker``."""
    rows = screen.split("\n")
    for index, row in enumerate(rows):
        if marker in row and index > 0:
            top = rows[index - 1]
            col = top.index("+-")
            return index - 1, col, top.rindex("+") - col + 1
    raise AssertionError(f"{marker!r} not on screen:\n{screen}")


@needs_node
@needs_tmux
def test_an_overlay_is_drawn_over_the_conversation_where_pi_tui_puts_it(tmp_path: Path) -> None:
    """Anchored at top-right and at center, 50% wide, over the conversation (the editor and the
    footer stay under it), with the handle from onHandle and upstream's app.* keybindings (the
    user's keybindings.json applied)."""
    ext = tmp_path / "ov.ts"
    ext.write_text(OVERLAYS)
    (tmp_path / "agent").mkdir(exist_ok=True)
    (tmp_path / "agent" / "keybindings.json").write_text('{"app.model.select": "ctrl+k"}')
    command = f"{sys.executable} -m pi_rpc --model faux/faux-1 -e {ext}; sleep 60"
    term = Tmux(tmp_path, command, node_modules_env(), size=(100, 30))
    try:
        term.wait_for("faux-1")
        term.type("/ov")
        shown = term.wait_for("OV top-right w=50 keys=ctrl+k")
        assert _rect(shown, "OV top-right") == (0, 50, 50)  # pi-tui: row 0, col 100 - 50
        rows = shown.split("\n")
        assert rows[-2].strip().endswith("faux-1")  # the footer is still drawn under it
        term.keys("Escape")
        shown = term.wait_for("overlay closed focused=true")
        assert "OV top-right" not in shown
        term.type("/ov center")
        shown = term.wait_for("OV center w=50")
        assert _rect(shown, "OV center") == ((30 - 3) // 2, 25, 50)
        term.keys("Escape")
        term.wait_for("overlay closed")
    finally:
        term.kill()


@needs_node
@needs_tmux
@pytest.mark.parametrize("mode", ["fullscreen", "regular"])
def test_a_component_takes_the_editors_place_and_a_tall_one_is_cut_as_upstreams(tmp_path: Path, mode: str) -> None:
    """Upstream shows a component in the editor's slot (the footer stays under it) in both TUI
    modes; taller than the window, fullscreen keeps its top lines (pi-tui's VStack slices the
    editor slot), regular its bottom ones (the terminal scrolls the rest away)."""
    ext = tmp_path / "fruit.ts"
    ext.write_text(PICKER)
    tall = tmp_path / "ov.ts"
    tall.write_text(OVERLAYS)
    command = f"{sys.executable} -m pi_rpc --model faux/faux-1 --tui-mode {mode} -e {ext} -e {tall}; sleep 60"
    term = Tmux(tmp_path, command, node_modules_env(), size=(100, 30))
    try:
        term.wait_for("faux-1")
        term.type("/fruit")
        term.wait_for("Pick a fruit at width 100")
        time.sleep(0.5)
        rows = term.screen().rstrip("\n").split("\n")
        rows = rows[: max(i for i, row in enumerate(rows) if "faux-1" in row) + 1]
        assert "╭" not in "".join(rows) and "╰" not in "".join(rows)  # no editor box
        assert rows[-3].strip() == "typed:" and rows[-1].strip().endswith("faux-1")  # footer right under it
        term.keys("Escape")
        term.wait_for("picked nothing in tui")
        term.wait_for("╭")  # the editor is back

        term.type("/tall")
        term.wait_for("tall line")
        time.sleep(0.5)
        shown = term.screen()
        rows = shown.rstrip("\n").split("\n")
        assert rows[-1].strip().endswith("faux-1")
        if mode == "fullscreen":
            assert "tall line 1\n" in shown and "tall line 60" not in shown
        else:
            assert "tall line 60" in rows[-3] and "tall line 1\n" not in shown
        term.keys("Escape")
        term.wait_for("tall closed")
    finally:
        term.kill()


@needs_node
@needs_tmux
@pytest.mark.skipif(not upstream.available(), reason="upstream pi 1.6 not installed")
def test_upstreams_overlay_example_lands_on_upstreams_rectangle(tmp_path: Path) -> None:
    """upstream's examples/extensions/overlay-test.ts (an overlay without options, 70 columns
    wide by its ``width``) in upstream pi 1.6 and in pi_rpc, same terminal: the box's corners
    sit in the same cells."""
    ext = EXAMPLES / "overlay-test.ts"
    argv = upstream.argv()
    if not ext.exists() or argv is None:
        pytest.skip("upstream's examples are not installed")

    def corners(command: str, env: dict[str, str], root: Path) -> tuple[tuple[int, int], tuple[int, int]]:
        root.mkdir()
        term = Tmux(root, command, env, size=(100, 30))
        try:
            term.wait_for("v1.6.0")
            time.sleep(1)
            term.type("/overlay-test")
            shown = term.wait_for("Esc cancel")
            time.sleep(0.5)
            shown = term.screen()
        finally:
            term.kill()
        rows = shown.split("\n")
        top = next(i for i, row in enumerate(rows) if "╭" in row and "Overlay Test" in rows[i + 1])
        bottom = next(i for i in range(top, len(rows)) if "╰" in rows[i])
        return (top, rows[top].index("╭")), (bottom, rows[bottom].index("╯"))

    theirs = corners(f"{shlex.join(argv)} -e {ext}; sleep 60", {"PI_SKIP_VERSION_CHECK": "1"}, tmp_path / "upstream")
    ours = corners(
        f"{sys.executable} -m pi_rpc --model faux/faux-1 -e {ext}; sleep 60", node_modules_env(), tmp_path / "ours"
    )
    assert ours == theirs

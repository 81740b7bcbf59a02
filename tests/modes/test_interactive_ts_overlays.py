"""A TypeScript extension's custom components side by side with upstream pi 1.6 in tmux, same
terminal, same extension: overlays in the regular (inline) mode land on the terminal rows
upstream's padded frame puts them at, overlays a component in the editor's place opens with
``tui.showOverlay`` are drawn, and a paste reaches the component's ``handleInput`` as the
bracketed paste upstream hands it."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.extensions.ts_support import node_available, node_modules_env
from tests.support import upstream

from .interactive_support import Tmux
from .test_interactive_ts_custom import OVERLAYS, _rect

pytestmark = [
    pytest.mark.skipif(not node_available(), reason="no Node >= 22.19 (install pi-rpc[node])"),
    pytest.mark.skipif(not upstream.available(), reason="upstream pi 1.6 not installed"),
]

PROBE = """
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { matchesKey } from "@earendil-works/pi-tui";

const box = (label: string, width: number) => [
  `+${"-".repeat(width - 2)}+`,
  `|${label.padEnd(width - 2).slice(0, width - 2)}|`,
  `+${"-".repeat(width - 2)}+`,
];

export default function (pi: ExtensionAPI) {
  pi.registerCommand("probe", {
    description: "Shows what handleInput got",
    handler: async (_args, ctx) => {
      await ctx.ui.custom<void>((tui, _theme, _kb, done) => {
        let got = "nothing";
        return {
          render: () => [`PROBE got=${got}`],
          invalidate() {},
          handleInput(data: string) {
            if (matchesKey(data, "escape")) return done();
            got = JSON.stringify(data);
            tui.requestRender();
          },
        };
      });
      ctx.ui.notify("probe closed", "info");
    },
  });
  pi.registerCommand("taller", {
    description: "A component taller than the terminal whose top line changes on a key",
    handler: async (_args, ctx) => {
      await ctx.ui.custom<void>((tui, _theme, _kb, done) => {
        let presses = 0;
        return {
          render: () => Array.from({ length: 45 }, (_, i) => `tall line ${i + 1}` + (i === 0 ? ` n=${presses}` : "")),
          invalidate() {},
          handleInput(data: string) {
            if (matchesKey(data, "escape")) return done();
            presses++;
            tui.requestRender();
          },
        };
      });
      ctx.ui.notify("tall closed", "info");
    },
  });
  pi.registerCommand("slotov", {
    description: "A component in the editor's place that opens an overlay",
    handler: async (_args, ctx) => {
      await ctx.ui.custom<void>((tui, _theme, _kb, done) => {
        let handle: any;
        let keys = "";
        const overlay = {
          render: (width: number) => box(`SLOTOV w=${width} keys=${keys}`, width),
          invalidate() {},
          handleInput(data: string) {
            if (matchesKey(data, "escape")) handle.hide();
            else if (data === "q") done();
            else keys += data;
            tui.requestRender();
          },
        };
        return {
          render: () => [`BASE overlay=${tui.hasOverlay()}`],
          invalidate() {},
          handleInput(data: string) {
            if (matchesKey(data, "escape")) return done();
            if (data === "o") handle = tui.showOverlay(overlay, { anchor: "top-right", width: 40, margin: { top: 2, right: 3 } });
            tui.requestRender();
          },
        };
      });
      ctx.ui.notify("slotov closed", "info");
    },
  });
}
"""

Steps = Callable[[Tmux], str]


def _run(tmp_path: Path, program: str, mode: str, steps: Steps) -> str:
    """What ``steps`` returns in ``program`` (``upstream``: pi 1.6, ``ours``: pi_rpc) in a
    100x30 tmux terminal with the test extensions and ``--tui-mode mode``."""
    argv = upstream.argv()
    assert argv is not None
    root = tmp_path / program
    root.mkdir()
    ext = root / "probe.ts"
    ext.write_text(PROBE)
    ov = root / "ov.ts"
    ov.write_text(OVERLAYS)
    flags = f"--tui-mode {mode} -e {ext} -e {ov}"
    if program == "upstream":
        command, env = f"{shlex.join(argv)} {flags}; sleep 60", {"PI_SKIP_VERSION_CHECK": "1"}
    else:
        command, env = f"{sys.executable} -m pi_rpc --model faux/faux-1 {flags}; sleep 60", node_modules_env()
    term = Tmux(root, command, env, size=(100, 30))
    try:
        term.wait_for("v1.6.0")
        time.sleep(1)
        return steps(term)
    finally:
        term.kill()


def _both(tmp_path: Path, mode: str, steps: Steps) -> tuple[str, str]:
    """(upstream's, pi_rpc's) answers of ``steps``."""
    return _run(tmp_path, "upstream", mode, steps), _run(tmp_path, "ours", mode, steps)


def _settled(term: Tmux, text: str) -> str:
    term.wait_for(text)
    time.sleep(0.5)
    return term.screen()


@pytest.mark.parametrize("anchor", ["top-right", "center", "bottom-left"])
def test_regular_mode_overlays_land_on_upstreams_rectangle(tmp_path: Path, anchor: str) -> None:
    """Regular mode: pi-tui pads its frame to the terminal's height, so an overlay's row is a row
    of the terminal (pi_rpc placed it inside its inline region: top-right landed on the editor)."""

    def steps(term: Tmux) -> str:
        term.type(f"/ov {anchor}")
        return _settled(term, f"OV {anchor}")

    theirs, ours = _both(tmp_path, "regular", steps)
    assert _rect(ours, f"OV {anchor}") == _rect(theirs, f"OV {anchor}")


@pytest.mark.parametrize("mode", ["fullscreen", "regular"])
def test_an_overlay_opened_by_a_component_in_the_editors_place_is_drawn(tmp_path: Path, mode: str) -> None:
    """``tui.showOverlay`` from a component shown in the editor's place: the overlay is drawn
    on upstream's rectangle and takes the keys (upstream focuses it); hidden, the keys go back to
    the component (pi_rpc drew no such overlay).

    Regular mode is not compared: once upstream's frame has overflowed the terminal (the slash
    command's completion list does), a shorter frame puts its overlays higher by the rows it
    shrank (pi-tui counts from the padded frame, the terminal stays scrolled); pi_rpc puts them
    on the row pi-tui computes (protocol/README.md §8 item 32)."""

    def steps(term: Tmux) -> str:
        term.type("/slotov")
        term.wait_for("BASE overlay=false")
        term.keys("o")
        shown = _settled(term, "SLOTOV w=40")
        term.keys("x", "y")
        typed = _settled(term, "keys=xy")
        rect = _rect(typed, "SLOTOV")
        term.keys("Escape")
        after = _settled(term, "BASE overlay=false")
        assert "SLOTOV" not in after
        term.keys("Escape")
        term.wait_for("slotov closed")
        return f"{rect} {'BASE overlay=true' in shown}"

    if mode == "fullscreen":
        theirs, ours = _both(tmp_path, mode, steps)
        assert ours == theirs
    else:  # upstream's row here depends on how tall its frame was before (the docstring)
        assert _run(tmp_path, "ours", mode, steps) == "(2, 57, 40) True"


def test_a_paste_reaches_a_component_as_upstreams_bracketed_paste(tmp_path: Path) -> None:
    """A paste into a component in the editor's place reaches its ``handleInput`` as one
    ``\\x1b[200~…\\x1b[201~`` string (pi_rpc's paste went to the hidden editor's focus)."""

    def steps(term: Tmux) -> str:
        term.type("/probe")
        term.wait_for("PROBE got=nothing")
        subprocess.run([*term.tmux, "set-buffer", "-b", "p", "hello paste"], check=True)
        subprocess.run([*term.tmux, "paste-buffer", "-p", "-b", "p", "-t", term.name], check=True)
        shown = _settled(term, "hello paste")
        line = next(row for row in shown.split("\n") if "PROBE got=" in row).strip()
        term.keys("Escape")
        term.wait_for("probe closed")
        return line

    theirs, ours = _both(tmp_path, "fullscreen", steps)
    assert theirs == 'PROBE got="\\u001b[200~hello paste\\u001b[201~"'
    assert ours == theirs


def test_a_tall_component_in_regular_mode_scrolls_its_top_lines_away_as_upstreams(tmp_path: Path) -> None:
    """Regular mode, a component taller than the terminal: upstream prints every line, so the
    screen shows its last lines over the footer and the top ones are in the scrollback; a change
    to a line up there writes the scrollback again (pi-tui's full redraw), and closing it takes
    them away. pi_rpc cut the top lines off."""

    def tall_rows(text: str) -> list[str]:
        return [row.strip() for row in text.split("\n") if "tall line" in row]

    def steps(term: Tmux) -> str:
        term.type("/taller")
        shown = _settled(term, "tall line 45")
        opened = term.history()
        term.keys("x")
        _settled(term, "tall line 45")
        time.sleep(0.5)
        pressed = term.history()
        term.keys("Escape")
        closed = _settled(term, "tall closed")
        return repr(
            (
                tall_rows(shown),
                shown.rstrip("\n").split("\n")[-1].strip() != "",
                tall_rows(opened),
                tall_rows(pressed),
                tall_rows(term.history()),
                "tall line" in closed,
            )
        )

    theirs, ours = _both(tmp_path, "regular", steps)
    assert "'tall line 1 n=1'" in theirs and "'tall line 1 n=0'" in theirs
    assert ours == theirs


@pytest.mark.parametrize("mode", ["fullscreen", "regular"])
def test_done_with_an_opened_overlay_still_shown_closes_both(tmp_path: Path, mode: str) -> None:
    """A component in the editor's place calls ``done()`` from its overlay: the overlay goes with
    it and the editor takes keys again. (Upstream 1.6 leaves that overlay drawn over the screen,
    with the keys going to the editor: §8 item 32.)"""

    def steps(term: Tmux) -> str:
        term.type("/slotov")
        term.wait_for("BASE overlay=false")
        term.keys("o")
        term.wait_for("SLOTOV w=40")
        term.keys("q")
        shown = _settled(term, "slotov closed")
        term.keys("z", "z", "z")
        typed = _settled(term, "zzz")
        return repr(("SLOTOV" in shown, "BASE" in shown, "│zzz" in typed.replace(" ", "")))

    assert _run(tmp_path, "ours", mode, steps) == repr((False, False, True))

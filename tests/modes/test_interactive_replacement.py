"""The screen never reads a disposed session (issue 32 item 1): during a replacement the holder
holds the fresh session before the fresh session's extensions start (``session_start``) and
before it tells its subscribers (``on_replaced``); an extension whose ``session_start`` handler
makes the screen render (``ctx.ui.set_status`` redraws the footer at once) must find the screen
reading the session now current, not the one ``/new`` just disposed. Headless under Textual's
pilot over the real session runtime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .interactive_support import running_app, type_and_enter, until

pytestmark = pytest.mark.anyio

STATUS_ON_START = """
def setup(pi):
    def on_start(event, ctx):
        ctx.ui.set_status("probe", "started: " + event["reason"])
    pi.on("session_start", on_start)
"""


async def test_a_session_start_render_during_new_reads_the_current_session(
    isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_rpc.modes.interactive import footer

    reads: list[tuple[str, bool, bool]] = []  # (status, read the held session, read a disposed one)
    original = footer.footer_text

    def spy(session: Any, width: int, statuses: list[str]) -> Any:
        reads.append((" ".join(statuses), session is session.holder.current, bool(session.disposed)))
        return original(session, width, statuses)

    monkeypatch.setattr(footer, "footer_text", spy)
    ext = tmp_path / "status_on_start.py"
    ext.write_text(STATUS_ON_START)
    project = tmp_path / "project"
    project.mkdir()
    async with running_app(project, extensions=[str(ext)]) as (app, pilot):
        await until(pilot, lambda: any("started: startup" in status for status, _, _ in reads))
        first = app.session
        await type_and_enter(pilot, "/new")
        await until(pilot, lambda: app.session is not first and first.disposed)
        await until(pilot, lambda: any("started: new" in status for status, _, _ in reads))
        await pilot.pause(0.1)
    during_start = [read for read in reads if "started: new" in read[0]]
    assert during_start and during_start[0][1:] == (True, False)
    assert [read for read in reads if not read[1] or read[2]] == []

"""A head start for the first answer, taken while the person types it.

The first answer of a process imports its provider's module and the HTTP stack and builds the
TLS context (``ai.warmup``, which the RPC mode runs the same way), then the Markdown renderer
(markdown-it, Rich's Markdown and Syntax with the code theme). Done on the request and
rendering path, that work landed in the first stream's CPU and delayed its first lines. Here
it runs once, in a daemon thread, a moment after the editor is ready and only if no prompt is
running: the imports are the ones the answer would make (Python's import locks make a prompt
that comes sooner wait for them instead of doing them twice), and no state a request or the
screen could observe changes. Nothing here runs at startup, which stays lazy.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from pi_rpc.runtime.session import AgentSession

WARM_UP_AFTER_S = 0.3  # after the first frames, which have work of their own


def _warm_up_rendering() -> None:
    try:
        from rich.syntax import Syntax

        from pi_rpc.modes.interactive.markdown import rich_parser

        rich_parser()
        Syntax.get_theme("monokai")  # the code theme of the answers' fenced blocks
    except Exception:  # noqa: BLE001 - only a head start: rendering does it again and reports
        pass


def _warm_up(api: str, base_url: str) -> None:
    from pi_rpc.ai.warmup import warm_up

    warm_up(api, base_url)
    _warm_up_rendering()


async def warm_up_while_idle(session: AgentSession) -> None:
    """Wait a moment, then warm up in a thread unless a prompt is already running (it does
    the same work itself, and a thread alongside would only share the GIL with it)."""
    await anyio.sleep(WARM_UP_AFTER_S)
    if session.is_streaming:
        return
    model = session.model
    api = str(model.get("api", "")) if model is not None else ""
    base_url = str(model.get("baseUrl", "")) if model is not None else ""
    threading.Thread(target=_warm_up, args=(api, base_url), name="pi-warm-up", daemon=True).start()

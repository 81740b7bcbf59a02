"""A TypeScript extension's ``ctx.ui.custom`` component, seen from Python.

The component object stays in Node (its ``render``, ``handleInput`` and closures are
JavaScript); Python holds a ``ScriptComponent`` naming it (``{"$pi":"component","id"}`` in the
``custom`` call) and a front-end that draws it talks to Node through ``component`` requests:
``open`` runs the extension's factory with a ``tui``, a theme over the front-end's palette and
pi-tui's keybindings, ``input`` hands it raw terminal data, ``render`` asks for its lines again,
``close`` disposes of it. Each answer carries the lines to draw (``{"lines"}``) or says the
component is gone (``{"closed": true}``); an overlay's lines come with the rectangle pi-tui
would put them at (``{"overlays": [{row, col, width, lines}]}``). Node notes ``render`` for ``tui.requestRender()`` and
``done`` for ``done(result)``; the result itself resolves the extension's promise in Node.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from pi_rpc.extensions.nodejs.sidecar import SidecarError
from pi_rpc.extensions.ui import Frame, LineComponent, OverlayLayer

Request = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class ScriptComponent(LineComponent):
    """One ``ctx.ui.custom`` component living in the Node sidecar."""

    def __init__(self, cid: str, request: Request, overlay: bool = False) -> None:
        super().__init__(overlay)
        self.cid = cid
        self._request = request
        self.closed = False
        self._closing: asyncio.Task[Any] | None = None

    async def _ask(self, action: str, **fields: Any) -> Frame | None:
        if self.closed:
            return None
        try:
            answer = await self._request({"op": "component", "cid": self.cid, "action": action, **fields})
        except SidecarError:
            self.closed = True
            raise
        value = answer.get("value") or {}
        lines = value.get("lines")
        if value.get("closed") or not isinstance(lines, list):
            self.closed = True
            return None
        overlays = [
            OverlayLayer(int(o["row"]), int(o["col"]), int(o["width"]), [str(line) for line in o.get("lines") or []])
            for o in value.get("overlays") or []
        ]
        return Frame([str(line) for line in lines], overlays)

    async def open(self, columns: int, rows: int, palette: dict[str, Any], keybindings: dict[str, Any]) -> Frame | None:
        return await self._ask("open", columns=columns, rows=rows, palette=palette, keybindings=keybindings)

    async def render(self, columns: int, rows: int, *, invalidate: bool = False) -> Frame | None:
        return await self._ask("render", columns=columns, rows=rows, invalidate=invalidate)

    async def input(self, data: str, columns: int, rows: int) -> Frame | None:
        return await self._ask("input", data=data, columns=columns, rows=rows)

    def close(self) -> None:
        if self.closed or self._closing is not None:
            return
        self.closed = True

        async def dispose() -> None:
            try:
                await self._request({"op": "component", "cid": self.cid, "action": "close"})
            except SidecarError:
                pass  # Node is gone: so is the component

        self._closing = asyncio.get_running_loop().create_task(dispose())

    def noted(self, event: str) -> None:
        """Node's ``render``/``done`` notes."""
        if event == "done":
            self.closed = True
            if self.on_close is not None:
                self.on_close()
        elif event == "render" and not self.closed and self.on_render is not None:
            self.on_render()

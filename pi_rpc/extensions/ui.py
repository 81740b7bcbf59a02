"""``ctx.ui``: what extensions may ask of the user, and the bridge a mode provides.

``ExtensionUI`` is the whole surface with upstream's method names in snake_case. Its own
implementation is "no UI" (print and JSON modes, the SDK by default): dialogs return their
defaults at once (``select``/``input``/``editor`` -> ``None``, ``confirm`` -> ``False``) and
every other method does nothing. A mode with a user on the other end subclasses it: the RPC mode
turns dialogs into ``extension_ui_request`` records (``pi_rpc.modes.rpc.extension_ui``).

Dialogs are coroutines; ``timeout`` is in milliseconds as on the wire, and ``signal`` (an
``AbortSignal``) dismisses the dialog with its default when it aborts. Rendering-only methods
(footers, headers, editor components, themes, autocomplete) are accepted and do nothing outside
a terminal UI, as upstream's RPC mode does.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_rpc.extensions.events import UIPromptEvent


class PlainTheme:
    """A theme that styles nothing: ``fg``/``bg``/``bold``... return the text unchanged, so
    extensions written for the terminal UI still produce readable strings."""

    appearance = "dark"
    colors: dict[str, str] = {}

    def fg(self, _color: str, text: str) -> str:
        return text

    def bg(self, _color: str, text: str) -> str:
        return text

    def style(self, text: str, _style: Any = None) -> str:
        return text

    def bold(self, text: str) -> str:
        return text

    def italic(self, text: str) -> str:
        return text

    def underline(self, text: str) -> str:
        return text

    def strikethrough(self, text: str) -> str:
        return text


@dataclass(frozen=True)
class OverlayLayer:
    """One overlay of a ``LineComponent``: its lines and the rectangle pi-tui puts it at (``row``
    and ``col`` from the top-left of the terminal, ``width`` columns), back to front."""

    row: int
    col: int
    width: int
    lines: list[str]


@dataclass(frozen=True)
class Frame:
    """What a ``LineComponent`` shows: ``lines`` in place of the editor (none for an overlay)
    and its visible ``overlays``."""

    lines: list[str]
    overlays: list[OverlayLayer] = field(default_factory=list)


class LineComponent(ABC):
    """A component its owner draws as lines of text with ANSI styles, handed to ``ctx.ui.custom``
    in place of a factory: a TypeScript extension's pi-tui component, which stays in Node
    (``pi_rpc.extensions.nodejs.component``). A front-end that can show it calls ``open`` once,
    then ``render`` and ``input`` (raw terminal data, as upstream's ``handleInput`` gets it:
    ``"\\x1b[A"`` for Up, ``"\\r"`` for Enter); each returns the ``Frame`` to show, or ``None`` once
    the component is closed. ``overlay`` says it floats over the conversation
    (``custom(factory, {overlay: true})``) instead of replacing the editor. The owner calls
    ``on_render`` when it wants to be drawn again (``tui.requestRender()``) and ``on_close`` when
    it is done (``done(result)``: the result goes to the extension directly, not through the
    front-end). A front-end that closes it for its own reasons calls ``close``. A mode without a
    terminal never opens it (``custom`` returns ``None``).
    """

    def __init__(self, overlay: bool = False) -> None:
        self.overlay = overlay
        self.on_render: Callable[[], None] | None = None
        self.on_close: Callable[[], None] | None = None

    @abstractmethod
    async def open(
        self, columns: int, rows: int, palette: dict[str, Any], keybindings: dict[str, Any]
    ) -> Frame | None: ...

    @abstractmethod
    async def render(self, columns: int, rows: int, *, invalidate: bool = False) -> Frame | None: ...

    @abstractmethod
    async def input(self, data: str, columns: int, rows: int) -> Frame | None: ...

    @abstractmethod
    def close(self) -> None: ...


class ExtensionUI:
    """The no-UI implementation of ``ctx.ui``; modes with a user override what they support."""

    has_ui = False
    theme = PlainTheme()

    # ---------------------------------------------------------------- dialogs (awaitable)

    async def select(
        self, title: str, options: list[str], timeout: int | None = None, signal: Any = None
    ) -> str | None:
        return None

    async def confirm(self, title: str, message: str, timeout: int | None = None, signal: Any = None) -> bool:
        return False

    async def input(
        self, title: str, placeholder: str | None = None, timeout: int | None = None, signal: Any = None
    ) -> str | None:
        return None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        return None

    async def custom(self, factory: Any = None, options: Any = None) -> Any:
        return None

    # ---------------------------------------------------------------- fire-and-forget

    def notify(self, message: str, type: str | None = None) -> None:
        return None

    def set_status(self, key: str, text: str | None = None) -> None:
        return None

    def set_widget(self, key: str, lines: list[str] | None = None, placement: str | None = None) -> None:
        return None

    def set_title(self, title: str) -> None:
        return None

    def set_editor_text(self, text: str) -> None:
        return None

    def paste_to_editor(self, text: str) -> None:
        self.set_editor_text(text)

    def get_editor_text(self) -> str:
        return ""

    # ---------------------------------------------------------------- terminal-only (no-ops)

    def set_working_message(self, message: str | None = None) -> None:
        return None

    def set_working_visible(self, visible: bool = True) -> None:
        return None

    def set_working_indicator(self, options: Any = None) -> None:
        return None

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        return None

    def set_footer(self, factory: Any = None) -> None:
        return None

    def get_footer_data(self) -> dict[str, Any]:
        """What upstream's ``footerData`` tells a footer component: the git branch, the
        extensions' statuses (key -> text) and the number of providers with models."""
        return {"branch": None, "statuses": {}, "providers": 0}

    def set_header(self, factory: Any = None) -> None:
        return None

    def add_autocomplete_provider(self, factory: Any = None) -> None:
        return None

    def set_editor_component(self, factory: Any = None) -> None:
        return None

    def get_editor_component(self) -> Any:
        return None

    def on_terminal_input(self, handler: Any = None) -> Callable[[], None]:
        return lambda: None

    def get_all_themes(self) -> list[dict[str, Any]]:
        return []

    def get_theme(self, name: str) -> Any:
        return None

    def set_theme(self, theme: Any) -> dict[str, Any]:
        return {"success": False, "error": "UI not available"}

    def get_tools_expanded(self) -> bool:
        return False

    def set_tools_expanded(self, expanded: bool) -> None:
        return None


NO_UI = ExtensionUI()

DIALOG_KINDS = ("select", "confirm", "input", "editor", "custom")


class PromptTrackingUI:
    """Wraps a mode's UI so blocking dialogs are announced to extensions as ``ui_prompt_start``
    / ``ui_prompt_end`` (nested dialogs coalesce into one outer span, as upstream). ``notify``
    receives those notification events; it must not block."""

    def __init__(self, inner: ExtensionUI, notify: Callable[[UIPromptEvent], None]) -> None:
        self._inner = inner
        self._notify = notify
        self._depth = 0
        self._active: tuple[str, str | None] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def _track(self, kind: str, title: str | None, call: Any) -> Any:
        outer = self._depth == 0
        self._depth += 1
        if outer:
            self._active = (kind, title)
            start: UIPromptEvent = {"type": "ui_prompt_start", "reason": "ui_prompt", "kind": kind}
            if title:
                start["title"] = title
            self._notify(start)
        try:
            return await call
        finally:
            self._depth -= 1
            if self._depth == 0:
                active_kind, active_title = self._active or (kind, title)
                self._active = None
                end: UIPromptEvent = {"type": "ui_prompt_end", "reason": "ui_prompt", "kind": active_kind}
                if active_title:
                    end["title"] = active_title
                self._notify(end)

    async def select(self, title: str, options: list[str], timeout: int | None = None, signal: Any = None) -> Any:
        return await self._track("select", title, self._inner.select(title, options, timeout, signal))

    async def confirm(self, title: str, message: str, timeout: int | None = None, signal: Any = None) -> Any:
        return await self._track("confirm", title, self._inner.confirm(title, message, timeout, signal))

    async def input(
        self, title: str, placeholder: str | None = None, timeout: int | None = None, signal: Any = None
    ) -> Any:
        return await self._track("input", title, self._inner.input(title, placeholder, timeout, signal))

    async def editor(self, title: str, prefill: str | None = None) -> Any:
        return await self._track("editor", title, self._inner.editor(title, prefill))

    async def custom(self, factory: Any = None, options: Any = None) -> Any:
        return await self._track("custom", None, self._inner.custom(factory, options))

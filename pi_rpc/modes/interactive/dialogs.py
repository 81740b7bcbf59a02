"""Modal dialogs (select, confirm, text input, multi-line editor) and ``ctx.ui`` for extensions
in the interactive mode: the same calls that go over RPC as ``extension_ui_request`` become
these widgets. A dialog dismissed with Escape, a ``timeout`` (ms) or an aborted ``signal``
resolves with its default (``None``; ``False`` for confirm), as in the RPC mode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, TextArea
from textual.widgets.option_list import Option

from pi_rpc.extensions.ui import ExtensionUI, LineComponent
from pi_rpc.modes.interactive.line_component import OverlayScreen

if TYPE_CHECKING:
    from pi_rpc.modes.interactive.app import PiApp

_NO_CURRENT: Any = object()  # "no current item": None can be a real value

DIALOG_CSS = """
{name} {{ align: center bottom; }}
{name} > Vertical {{ height: auto; max-height: 90%; border: round $accent; padding: 0 1; background: $surface; }}
{name}:inline > Vertical {{ max-height: 100vh; }}
{name} Label.title {{ text-style: bold; }}
{name} Label.hint {{ color: $text-muted; }}
"""


@dataclass(frozen=True)
class PickerKey:
    """What a picker returns when one of its extra ``keys`` is pressed: the key's action name,
    the value of the highlighted row (``None`` when the list is empty) and the filter typed, so
    the command can act (rename, delete, change a filter) and open the picker again as it was."""

    action: str
    value: Any
    filter: str


class SelectScreen(ModalScreen[Any]):
    """Pick one of ``options`` (``(label, value)`` pairs); Enter picks, Escape cancels (None).

    As upstream's selectors: typing filters the list (the filter is shown above it, on a line of
    its own, as upstream's search input), ``current`` (a value) is marked with ``✓`` and
    highlighted first unless ``initial`` (an index) says where to start, and ``descriptions`` (one per option) are shown dimmed after each label.
    ``keys`` maps extra keys (``"ctrl+d"``) to action names: pressing one returns a
    ``PickerKey`` instead of a value. ``rank`` orders the rows a filter keeps by where it matches
    (earliest first) instead of keeping the list's order."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="SelectScreen")
        + "SelectScreen OptionList { height: auto; max-height: 14; }"
        + "SelectScreen Label#filter { color: $text; }"
    )
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        options: list[tuple[str, Any]],
        message: str | None = None,
        initial: int | None = None,
        *,
        current: Any = _NO_CURRENT,
        descriptions: list[str] | None = None,
        keys: dict[str, str] | None = None,
        hint: str | None = None,
        filter: str = "",
        rank: bool = False,
        search: list[Any] | None = None,
    ) -> None:
        super().__init__()
        # one ``session_search.SearchFields`` per option: the filter is upstream's session
        # search (``re:`` regex, "phrases", words matched in each session's fields)
        self.search = search
        self.title_text = title
        self.message = message
        self.options = options
        self.descriptions = descriptions or []
        self.keys = keys or {}
        self.hint = hint or "↑↓ move · Enter select · type to filter · Esc cancel"
        self.filter = filter
        self.rank = rank
        self.marks = current is not _NO_CURRENT
        self.current = current
        if initial is None:  # unless told otherwise, start on the current item
            found = (i for i, (_, value) in enumerate(options) if self.marks and value == current)
            initial = next(found, 0)
        self.initial = initial

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="title", markup=False)
            if self.message:
                yield Label(self.message, markup=False)
            yield Label(self._filter_line(), id="filter", markup=False)
            yield OptionList(*self._shown(), id="choices")
            yield Label(self.hint, classes="hint", id="hint", markup=False)

    def _filter_line(self) -> str:
        line = f"> {self.filter}▏"
        if self.search is not None:
            from pi_rpc.modes.interactive.session_search import parse_query

            error = parse_query(self.filter).error
            if error:
                line += f"  ({error})"
        return line

    def _label(self, index: int) -> Text:
        label, value = self.options[index]
        text = Text()
        if self.marks:
            text.append("✓ " if value == self.current else "  ")
        text.append(label)
        description = self.descriptions[index] if index < len(self.descriptions) else ""
        if description:
            width = max(len(lbl) for lbl, _ in self.options) + 2
            text.append(" " * max(2, width - len(label)))
            text.append(description, style="dim")
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text

    def _shown(self) -> list[Option]:
        if self.search is not None:
            return [Option(self._label(i), id=str(i)) for i in self._searched()]
        words = self.filter.lower().split()
        indices = [i for i, (label, _) in enumerate(self.options) if all(word in label.lower() for word in words)]
        if self.rank and words:
            # relevance: where the typed words start in the row, earliest first (stable otherwise)
            indices.sort(key=lambda i: sum(self.options[i][0].lower().index(word) for word in words))
        return [Option(self._label(i), id=str(i)) for i in indices]

    def _searched(self) -> list[int]:
        from pi_rpc.modes.interactive.session_search import match, parse_query

        query = parse_query(self.filter)
        if query.error:
            return []
        assert self.search is not None
        scored = [(i, match(query, fields)) for i, fields in enumerate(self.search[: len(self.options)])]
        kept = [(i, score) for i, score in scored if score is not None]
        if self.rank and not query.empty:
            kept.sort(key=lambda pair: pair[1])  # stable: newest first among equals, as upstream
        return [i for i, _ in kept]

    def on_mount(self) -> None:
        choices = self.query_one(OptionList)
        if self.filter:
            self._refilter()
        elif self.options:
            choices.highlighted = min(self.initial, len(self.options) - 1)
        choices.focus()

    def highlighted_value(self) -> Any:
        choices = self.query_one(OptionList)
        if choices.highlighted is None or not choices.option_count:
            return None
        option = choices.get_option_at_index(choices.highlighted)
        return self.options[int(option.id or 0)][1]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.options[int(event.option.id or 0)][1])

    def press_key(self, key: str) -> bool:
        """One of the picker's own ``keys`` (the app hands them over before its priority
        bindings, so Ctrl+O means "cycle the filter" here, not "expand tools")."""
        if key not in self.keys or not self.is_active:
            return False
        self.dismiss(PickerKey(self.keys[key], self.highlighted_value(), self.filter))
        return True

    def on_key(self, event: events.Key) -> None:
        if self.press_key(event.key):
            event.stop()
            event.prevent_default()
            return
        if event.character and event.character.isprintable() and len(event.character) == 1:
            self.filter += event.character
        elif event.key == "backspace" and self.filter:
            self.filter = self.filter[:-1]
        else:
            return
        event.stop()
        self._refilter()

    def _refilter(self) -> None:
        choices = self.query_one(OptionList)
        choices.clear_options()
        choices.add_options(self._shown())
        if choices.option_count:
            shown = [int(choices.get_option_at_index(i).id or 0) for i in range(choices.option_count)]
            choices.highlighted = shown.index(self.initial) if not self.filter and self.initial in shown else 0
        self.query_one("#filter", Label).update(self._filter_line())

    def action_cancel(self) -> None:
        self.dismiss(None)


class InputScreen(ModalScreen[str | None]):
    """One line of text; Enter submits, Escape cancels (None)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="InputScreen")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, placeholder: str | None = None, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder or ""
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="title", markup=False)
            yield Input(value=self.value, placeholder=self.placeholder)
            yield Label("Enter submit · Esc cancel", classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class EditorScreen(ModalScreen[str | None]):
    """Multi-line text; Ctrl+S submits, Escape cancels (None)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="EditorScreen") + "EditorScreen TextArea { height: 10; }"
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "submit", "Submit", priority=True)]

    def __init__(self, title: str, prefill: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.prefill = prefill or ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.title_text, classes="title", markup=False)
            yield TextArea(self.prefill, soft_wrap=True)
            yield Label("Ctrl+S submit · Esc cancel", classes="hint")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_submit(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class CustomScreen(ModalScreen[Any]):
    """``ctx.ui.custom(factory)``: upstream's factory gets ``(tui, theme, keybindings, done)`` and
    returns a pi-tui component; here it gets ``(app, theme, keybindings, done)`` and returns a
    Textual widget (or an awaitable of one), shown in place of the editor until ``done(value)``
    is called. ``theme`` is the app's Textual theme, ``keybindings`` the app's active bindings. Escape
    closes it with ``None`` unless the widget handles Escape itself."""

    DEFAULT_CSS = "CustomScreen { align: center bottom; } CustomScreen > * { height: auto; }"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, factory: Any) -> None:
        super().__init__()
        self.factory = factory

    async def on_mount(self) -> None:
        app = self.app
        try:
            widget = self.factory(app, app.current_theme, app.active_bindings, self._done)
            if hasattr(widget, "__await__"):
                widget = await widget
        except Exception as exc:  # noqa: BLE001 - an extension's fault closes its dialog, not the app
            getattr(app, "say_soon", lambda *_: None)(f"Extension custom UI failed: {exc}", "error")
            widget = None
        if widget is None:
            self.dismiss(None)
            return
        await self.mount(widget)
        if widget.focusable:
            widget.focus()

    def _done(self, value: Any = None) -> None:
        if self.is_active:  # a second done(), or one after Escape, is ignored
            self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _seconds(timeout: Any) -> float | None:
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
        return timeout / 1000
    return None


class TerminalUI(ExtensionUI):
    """``ctx.ui`` in the interactive mode."""

    has_ui = True

    def __init__(self, app: PiApp) -> None:
        self.app = app

    async def _dialog(self, screen: ModalScreen[Any], default: Any, timeout: Any = None, signal: Any = None) -> Any:
        if signal is not None and getattr(signal, "aborted", False):
            return default
        result: Any = default
        with anyio.move_on_after(_seconds(timeout)) as scope:
            if signal is not None and hasattr(signal, "add_callback"):
                signal.add_callback(scope.cancel)
            result = await self.app.show_modal(screen)
        if scope.cancelled_caught:
            self.app.dismiss_modal(screen)
            return default
        return default if result is None else result

    async def select(self, title: str, options: list[str], timeout: int | None = None, signal: Any = None) -> Any:
        return await self._dialog(SelectScreen(title, [(o, o) for o in options]), None, timeout, signal)

    async def confirm(self, title: str, message: str, timeout: int | None = None, signal: Any = None) -> bool:
        screen = SelectScreen(title, [("Yes", True), ("No", False)], message=message)
        return bool(await self._dialog(screen, False, timeout, signal))

    async def input(
        self, title: str, placeholder: str | None = None, timeout: int | None = None, signal: Any = None
    ) -> str | None:
        value = await self._dialog(InputScreen(title, placeholder), None, timeout, signal)
        return value if isinstance(value, str) else None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        value = await self._dialog(EditorScreen(title, prefill), None)
        return value if isinstance(value, str) else None

    async def custom(self, factory: Any = None, options: Any = None) -> Any:
        if isinstance(factory, LineComponent):  # a TypeScript extension's component, drawn from Node
            # upstream: an overlay floats over the conversation; a component takes the editor's place
            if factory.overlay:
                return await self._dialog(OverlayScreen(factory, self.app.keymap.user), None)
            await self.app.component_slots.show(factory, self.app.keymap.user)
            return None
        if not callable(factory):
            return None
        return await self._dialog(CustomScreen(factory), None)

    def notify(self, message: str, type: str | None = None) -> None:
        self.app.say_soon(message, type or "info")

    def set_status(self, key: str, text: str | None = None) -> None:
        self.app.set_status(key, text)

    def set_widget(self, key: str, lines: object = None, placement: object = None) -> None:
        self.app.chrome.set_widget(key, lines, placement)

    def set_header(self, factory: object = None) -> None:
        self.app.chrome.set_header(factory)

    def set_footer(self, factory: object = None) -> None:
        self.app.chrome.set_footer(factory)

    def get_footer_data(self) -> dict[str, object]:
        return self.app.chrome.footer_data()

    def set_title(self, title: str) -> None:
        self.app.set_terminal_title(title)

    def set_editor_text(self, text: str) -> None:
        self.app.set_editor_text(text)

    def paste_to_editor(self, text: str) -> None:
        self.app.paste_to_editor(text)

    def get_editor_text(self) -> str:
        return self.app.get_editor_text()

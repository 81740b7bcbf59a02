"""The Textual app of the interactive mode: the conversation (``Transcript``), the extensions'
widgets, the completion line, the prompt editor and the footer, over one ``AgentSession``.

Session events arrive on the session's tasks and are posted to the app as messages, so every
widget change happens in the app's own context. Dialogs (commands' pickers, extensions'
``ctx.ui``) go through ``show_modal``, usable from any task of the event loop.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from pi_rpc.log import logger
from pi_rpc.modes.interactive import commands as slash
from pi_rpc.modes.interactive import display
from pi_rpc.modes.interactive.chrome import Chrome
from pi_rpc.modes.interactive.dialogs import InputScreen, SelectScreen, TerminalUI
from pi_rpc.modes.interactive.display import TerminalProgress
from pi_rpc.modes.interactive.editor import Completion, PromptEditor, complete_file
from pi_rpc.modes.interactive.line_component import ComponentSlots, LayersScreen
from pi_rpc.modes.interactive.transcript import ToolCall, Transcript

if TYPE_CHECKING:
    from pi_rpc.runtime.events import SessionEvent as RuntimeEvent
    from pi_rpc.runtime.session import AgentSession

DOUBLE_PRESS_SECONDS = 1.0  # a second Ctrl+C within this quits (upstream)
RESIZE_REDRAW_SECONDS = 0.15


class SessionEvent(Message):
    def __init__(self, event: dict[str, Any]) -> None:
        super().__init__()
        self.event = event


class _ShowModal(Message):
    def __init__(self, screen: ModalScreen[Any], future: asyncio.Future[Any]) -> None:
        super().__init__()
        self.screen = screen
        self.future = future


class _Say(Message):
    def __init__(self, text: str, kind: str) -> None:
        super().__init__()
        self.text = text
        self.kind = kind


class PiApp(App[int]):
    """``pi`` in a terminal. ``App.return_code`` is the exit code given to ``exit``."""

    CSS = """
    Screen { height: auto; layers: base; }
    Screen:inline { height: auto; min-height: 6; border: none; }
    #ext-widgets, #ext-widgets-below, #ext-footer { height: auto; padding: 0; }
    #completions { height: auto; max-height: 6; color: $text-muted; padding: 0 1; }
    #footer { height: auto; color: $text-muted; padding: 0 1; }
    #working { height: auto; color: $accent; padding: 0 1; }
    """
    ENABLE_COMMAND_PALETTE = False
    # the keys come from keybindings.json over upstream's defaults (keybindings.py, install_keys)

    def __init__(
        self,
        session: AgentSession,
        *,
        first_prompt: str | None = None,
        first_images: list[dict[str, Any]] | None = None,
        more_prompts: list[str] | None = None,
        resume_picker: bool = False,
        session_name: str | None = None,
        fullscreen: bool = False,
        notices: list[str] | None = None,
    ) -> None:
        super().__init__()
        # The screen reads the session through the holder, never a session object of its own:
        # during a replacement the holder holds the fresh session before that session's
        # extensions start (their session_start may make the screen render) and before the
        # holder tells its subscribers, while the replaced one is already disposed.
        self._holder = session.holder
        # fullscreen (upstream's default tuiMode): the alternate screen, the transcript scrolls
        # inside the window and keeps every message; regular: inline, finished output goes to
        # the terminal's scrollback (print_above)
        self.fullscreen = fullscreen
        self.exit_renderables: list[Any] = []
        self.tools_expanded = False  # Ctrl+O: every tool call's whole output
        self._printed: list[Any] = []  # regular mode: what print_above put in the scrollback
        self._redraw_timer: Any = None
        self.thinking_hidden = session.settings.get("hideThinkingBlock") is True  # Ctrl+T
        self.first_prompt = first_prompt
        self.first_images = first_images
        self.more_prompts = list(more_prompts or [])
        self.resume_picker = resume_picker
        self.session_name = session_name
        self.notices = list(notices or [])  # shown once at startup (e.g. where --listen serves)
        self.statuses: dict[str, str] = {}
        self._area_texts: dict[str, str] = {}  # what each one-line area shows (they start empty)
        self.chrome = Chrome(self)  # extensions' widgets, header and footer
        self.terminal_title = ""
        self._last_interrupt = 0.0
        self._last_escape = 0.0
        self._unsubscribe: Any = None
        self._stop_following: Any = None
        self._log_handlers: list[Any] | None = None
        self.ui = TerminalUI(self)
        self.component_slots = ComponentSlots(self)  # extensions' custom components in the editor's place
        self.progress = TerminalProgress(self)
        self.install_keys()

    def install_keys(self) -> None:
        """(Re)read keybindings.json and the theme setting (startup and /reload)."""
        from textual.binding import BindingsMap

        from pi_rpc.modes.interactive.keybindings import Keymap

        self.keymap = Keymap.load(self.session.options.agent_dir)
        self._bindings = BindingsMap(self.keymap.app_bindings(fullscreen=self.fullscreen))
        for warning in self.keymap.warnings:
            self.say_soon(warning, "warning")
        self.apply_theme_setting()

    def apply_theme_setting(self) -> None:
        from pi_rpc.modes.interactive.theme import resolve_theme

        options = self.session.options
        settings = self.session.settings
        theme, warnings = resolve_theme(
            settings.get("theme"), options.agent_dir, options.cwd, options.project_trusted, settings
        )
        if not isinstance(theme, str):
            self.register_theme(theme)
            theme = theme.name
        self.theme = theme
        for warning in warnings:
            self.say_soon(warning, "warning")

    def get_driver_class(self) -> Any:
        """Fullscreen: Textual's Linux driver whose input thread sleeps while idle
        (terminal_driver.py); ``TEXTUAL_DRIVER`` and other platforms keep Textual's choice."""
        import os
        import sys

        if sys.platform.startswith("win") or os.environ.get("TEXTUAL_DRIVER"):
            return super().get_driver_class()
        from pi_rpc.modes.interactive.terminal_driver import QuietDriver

        return QuietDriver

    def _build_driver(self, headless: bool, inline: bool, mouse: bool, size: tuple[int, int] | None) -> Any:
        # Textual picks its inline driver by name here (no hook): ours is the same with the
        # sleeping input thread. Headless (tests) and fullscreen go through Textual.
        import sys

        if headless or sys.platform.startswith("win"):
            return super()._build_driver(headless, inline, mouse, size)
        if not inline:
            from pi_rpc.modes.interactive.terminal_driver import SwitchableDriver

            built = super()._build_driver(headless, inline, mouse, size)
            wrapped: Any = SwitchableDriver(built)  # /settings can switch to regular while running
            self._driver = wrapped
            return wrapped
        from textual import constants

        from pi_rpc.modes.interactive.terminal_driver import QuietInlineDriver, SwitchableDriver

        inner = QuietInlineDriver(self, debug=constants.DEBUG, mouse=mouse, size=size)
        driver: Any = SwitchableDriver(inner)  # /settings can switch to fullscreen while running
        self._driver = driver
        return driver

    async def switch_tui_mode(self, mode: str) -> bool:
        """``tuiMode`` changed in /settings: switch the running app (tui_mode.py); False when
        a dialog is open, which refuses the switch as upstream's overlays do."""
        from pi_rpc.modes.interactive.tui_mode import switch

        return await switch(self, mode)

    def action_slash(self, name: str) -> None:
        """A key bound to a slash command (keybindings.json's ``app.session.*``)."""
        self.run_worker(self._run_command(slash.get(self.session, name), ""), group="command")

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        # Kept as attributes: ``query_one`` looks at the active screen, a dialog while one is open.
        self.transcript = Transcript()
        self.editor = PromptEditor(self.complete)
        self.areas = {
            name: Static("", id=name, markup=False)
            for name in ("working", "ext-widgets", "completions", "ext-widgets-below", "footer", "ext-footer")
        }
        yield self.transcript
        yield self.areas["working"]
        yield self.areas["ext-widgets"]
        yield self.areas["completions"]
        yield self.editor
        yield self.areas["ext-widgets-below"]
        yield self.areas["footer"]
        yield self.areas["ext-footer"]

    async def on_mount(self) -> None:
        session = self.session

        async def listener(event: RuntimeEvent) -> None:
            # The transcript still reads events as plain dicts (which they are at run time).
            self.post_message(SessionEvent(cast("dict[str, Any]", event)))

        # The holder's streams: events (across replacements) and each replacement, after which
        # the transcript shows the session now current, whoever replaced it (a command of the
        # app's or an extension's ``ctx.new_session``/``fork``/``switch_session``).
        self._unsubscribe = session.holder.subscribe(listener)
        self._stop_following = session.holder.on_replaced(lambda _current: self.reload_transcript())
        if session.mcp_command is not None:  # `/mcp` answered while no MCP server is configured
            session.mcp_command.notify = lambda message, kind: self.say_soon(message, kind or "info")
        self._capture_log()
        for empty in ("working", "ext-widgets", "completions", "ext-widgets-below", "ext-footer"):
            self.areas[empty].display = False
        if self.fullscreen:
            from pi_rpc.modes.interactive.tui_mode import layout_for_mode

            layout_for_mode(self)
        self.editor.focus()
        display.apply(self)
        self.call_after_refresh(self.fit_transcript)
        if session.settings.get("quietStartup") is not True:  # upstream: only `true` hides the header
            from pi_rpc import COMPATIBLE_PI_VERSION
            from pi_rpc.modes.interactive.transcript import Header

            await self.transcript.add(Header(COMPATIBLE_PI_VERSION, *self.keymap.startup_hints()))
        await self.transcript.show_messages(list[Any](session.get_messages()), _compaction_count(self.session))
        for notice in self.notices:
            await self.transcript.notice(notice, "info")
        self.refresh_footer()
        self.run_worker(self._start(), group="startup")

    async def _start(self) -> None:
        from pi_rpc.extensions.host import ModeBinding

        session = self.session
        if self.session_name:
            try:
                await session.set_session_name(self.session_name)
            except Exception:  # noqa: BLE001 - an empty --name is ignored, as in the other modes
                pass

        def on_error(error: Any) -> None:
            self.say_soon(f"Extension error ({error['extensionPath']}): {error['error']}", "error")

        await session.bind_extensions(
            ModeBinding(mode="tui", ui=self.ui, on_error=on_error, shutdown=lambda: self.exit())
        )
        if not self.first_prompt:  # a prompt given on the command line does this work itself
            from pi_rpc.modes.interactive.warmup import warm_up_while_idle

            self.run_worker(warm_up_while_idle(session), group="warm-up")
        if self.resume_picker:
            await slash.get(self.session, "resume").run(self, "")
        if self.first_prompt:
            await self.send(self.first_prompt, images=self.first_images)
        for text in self.more_prompts:
            await self.session.wait_for_settled()  # (the holder's current: a prompt may replace it)
            await self.send(text)

    def on_unmount(self) -> None:
        self.progress.set(False)
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._stop_following is not None:
            self._stop_following()  # a replacement during the shutdown has no screen to reload
            self._stop_following = None
        if self._log_handlers is not None:
            log = logger()
            log.handlers[:] = self._log_handlers
            self._log_handlers = None

    def _capture_log(self) -> None:
        """While the app owns the terminal, pi's stderr lines (warnings, store faults) become
        notices in the conversation instead of bytes written over the screen."""
        import logging

        app = self

        class NoticeHandler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                text = record.getMessage()
                app.say_soon(text, "error" if record.levelno >= logging.ERROR else "warning")

        log = logger()
        self._log_handlers = list(log.handlers)
        log.handlers[:] = [NoticeHandler()]

    # ------------------------------------------------------------------ events

    async def on_session_event(self, message: SessionEvent) -> None:
        if self._unsubscribe is None:
            return  # posted before the app closed
        event = message.event
        await self.transcript.handle(event)
        kind = event.get("type")
        self.progress.on_event(kind)
        if kind in ("agent_start", "compaction_start"):
            self.set_working("Working… (Esc to abort)")
        elif kind in ("agent_settled", "compaction_end") and not self.session.is_streaming:
            self.set_working(None)
        if kind == "queue_update":
            steering = event.get("steering") or []
            follow = event.get("followUp") or []
            if steering or follow:
                self.set_working(f"Working… ({len(steering)} steer, {len(follow)} follow-up queued)")
        if kind in ("message_end", "agent_settled", "compaction_end", "model_change", "thinking_level_change"):
            self.refresh_footer()

    async def on__show_modal(self, message: _ShowModal) -> None:
        future = message.future

        def done(result: Any) -> None:
            if not future.done():
                future.set_result(result)

        await self.push_screen(message.screen, callback=done)

    async def on__say(self, message: _Say) -> None:
        await self.transcript.notice(message.text, message.kind)

    # ------------------------------------------------------------------ services for commands and extensions

    async def show_modal(self, screen: ModalScreen[Any]) -> Any:
        """Show ``screen`` and wait for its result (callable from any task of this loop)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.post_message(_ShowModal(screen, future))
        return await future

    def dismiss_modal(self, screen: ModalScreen[Any]) -> None:
        """Close a dialog nobody waits for any more (timeout, abort)."""
        if screen.is_attached:
            self.call_later(screen.dismiss, None)

    async def pick(
        self,
        title: str,
        options: list[tuple[str, Any]],
        message: str | None = None,
        initial: int | None = None,
        **extra: Any,
    ) -> Any:
        """A ``SelectScreen``; ``extra`` are its keyword options (``current``, ``descriptions``,
        ``keys``, ``hint``, ``filter``)."""
        return await self.show_modal(SelectScreen(title, options, message=message, initial=initial, **extra))

    async def ask_text(self, title: str, placeholder: str | None = None, value: str = "") -> str | None:
        result = await self.show_modal(InputScreen(title, placeholder, value))
        return result if isinstance(result, str) else None

    async def say(self, text: str, kind: str = "info") -> None:
        await self.transcript.notice(text, kind)

    def say_soon(self, text: str, kind: str = "info") -> None:
        self.post_message(_Say(text, kind))

    def _show(self, selector: str, content: Any) -> None:
        """Update one of the one-line areas; an empty one takes no row (80x24 matters)."""
        name = selector.lstrip("#")
        text = str(content)
        if self._area_texts.get(name, "") == text:
            return  # unchanged (every key typed clears the completions): no layout pass for nothing
        self._area_texts[name] = text
        widget = self.areas[name]
        widget.update(content)
        widget.display = bool(str(content))
        self.call_after_refresh(self.fit_transcript)

    def fit_transcript(self) -> None:
        """The conversation takes what the editor, footer and one-line areas leave of the
        terminal's rows, so the editor never scrolls off (inline mode grows with content;
        fullscreen's transcript simply takes the rest of the window)."""
        if self.fullscreen:
            return
        rows = self.size.height
        used = sum(widget.outer_size.height for widget in self.areas.values() if widget.display)
        slot = self.component_slots.top
        if slot is not None:  # an extension's component in the editor's place: it comes first
            slot.refit()
            used += slot.outer_size.height
        else:
            used += max(self.editor.outer_size.height, 3)
        # one row spare: a region as tall as the terminal scrolls it, and scrolled rows cannot be cleared
        self.transcript.styles.max_height = max(0 if slot is not None else 3, rows - used - 1)

    def print_above(self, renderables: list[Any], *, redraw: bool = False, record: bool = True) -> None:
        """Print finished conversation into the terminal's scrollback, above the inline region.
        ``redraw`` (after a resize) clears the screen and the scrollback and prints everything
        printed so far again at the new width, as upstream's terminal re-renders on a resize:
        the terminal's own reflow of the old region would otherwise leave broken copies of it.

        Textual has no API for this; its inline driver redraws the whole region from the
        region's top-left corner on every frame (``App._display`` moves back by
        ``_previous_cursor_position``). So: go to that corner, clear down, write the text (rows
        scroll off the top of the screen into the scrollback like any program's output), and
        make the next frame start below it as a fresh, full region.

        ``record=False``: not conversation (a tall component's top lines, which a redraw takes
        from ``component_slots`` while the component is shown)."""
        driver = self._driver
        if driver is None or not self.is_inline or not (renderables or redraw):
            return
        if not redraw and record:
            self._printed.extend(renderables)
        import io

        from rich.console import Console
        from textual.geometry import Offset

        buffer = io.StringIO()
        color_system: Any = self.console.color_system  # the app's own detection (NO_COLOR, depth)
        console = Console(
            file=buffer,
            width=self.size.width,
            force_terminal=True,
            color_system=color_system,
            no_color=self.console.no_color,
            legacy_windows=False,
        )
        for renderable in [*self._printed, *self.component_slots.scrolled_text()] if redraw else renderables:
            console.print(renderable)
        # Raw mode: a bare LF does not return the carriage.
        text = buffer.getvalue().replace("\r\n", "\n").replace("\n", "\r\n")
        x, y = self._previous_cursor_position
        if redraw:
            driver.write("\x1b[2J\x1b[H\x1b[3J")  # clear the screen, home, clear the scrollback
        else:
            driver.write(f"\x1b[{y}A" if y else "")
        # Then room for the next frame: the region is drawn with cursor moves that do not
        # scroll, so a region started on the bottom row would be drawn over the last printed
        # lines (and the frame after would erase them). Newlines scroll the printed text up
        # by the region's height; the cursor goes back to the first of those fresh rows.
        rows = max(1, min(self.size.height - 1, self._get_inline_height()))
        driver.write("\r\x1b[J" + text + "\r\n" * rows + f"\x1b[{rows}A")
        driver.flush()
        self._previous_cursor_position = Offset(0, 0)
        self._previous_inline_height = None
        self.screen.refresh(layout=True)

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit_transcript)
        self.chrome.resized()
        self.refresh_footer()
        if self.is_inline and not self.is_headless:
            # one redraw when the resizing stops (a dragged window sends many sizes)
            if self._redraw_timer is not None:
                self._redraw_timer.stop()
            self._redraw_timer = self.set_timer(RESIZE_REDRAW_SECONDS, self._redraw_after_resize)

    def _redraw_after_resize(self) -> None:
        self._redraw_timer = None
        self.print_above([], redraw=True)

    def set_working(self, text: str | None) -> None:
        self._show("#working", text or "")

    def set_status(self, key: str, text: str | None) -> None:
        if text:
            self.statuses[key] = text
        else:
            self.statuses.pop(key, None)
        self.refresh_footer()

    def set_terminal_title(self, title: str) -> None:
        self.terminal_title = title
        self.write_terminal(f"\x1b]0;{title}\x07")  # OSC 0: the terminal's window title

    def write_terminal(self, sequence: str) -> None:
        """An escape sequence for the terminal itself (title, progress); nothing while headless."""
        driver = self._driver
        if driver is not None and not self.is_headless:
            driver.write(sequence)

    def set_editor_text(self, text: str) -> None:
        self.editor.load_text(text)
        self.editor.move_cursor(self.editor.document.end)

    def paste_to_editor(self, text: str) -> None:
        self.editor.insert(text)

    def get_editor_text(self) -> str:
        return self.editor.text

    def refresh_footer(self) -> None:
        from pi_rpc.modes.interactive.footer import footer_text

        width = max(20, self.size.width - 2)  # the footer's padding
        statuses = [self.statuses[key] for key in sorted(self.statuses)]
        self.areas["footer"].update(footer_text(self.session, width, statuses))

    @property
    def session(self) -> AgentSession:
        """The session now current (the holder's)."""
        return self._holder.current

    async def reload_transcript(self) -> None:
        await self.transcript.show_messages(list[Any](self.session.get_messages()), _compaction_count(self.session))
        self.refresh_footer()

    # ------------------------------------------------------------------ input

    def complete(self, text: str) -> Completion:
        """Tab: a slash command's name, or the path after the last ``@``."""
        if text.startswith("/") and " " not in text:
            names = [name for name, _ in slash.all_commands(self.session.get_commands()) if name.startswith(text[1:])]
            return Completion("/" + names[0] + " " if len(names) == 1 else None, names)
        at = text.rfind("@")
        if at >= 0 and (at == 0 or text[at - 1].isspace()) and " " not in text[at:]:
            paths = complete_file(text[at + 1 :], self.session.cwd)
            if len(paths) == 1:
                return Completion(text[: at + 1] + paths[0], paths)
            return Completion(None, paths)
        return Completion(None, [])

    def on_text_area_changed(self, message: TextArea.Changed) -> None:
        if message.text_area is not self.editor:
            return
        self.call_after_refresh(self.fit_transcript)
        text = message.text_area.text
        lines: list[str] = []
        if text.startswith("/") and " " not in text and "\n" not in text:
            for name, description in slash.all_commands(self.session.get_commands()):
                if name.startswith(text[1:]):
                    lines.append(f"/{name}  {description}")
        elif "@" in text:
            lines = self.complete(text).candidates
        shown = display.autocomplete_max_visible(self.session.settings)
        self._show("#completions", Text("\n".join(lines[:shown])))

    async def on_prompt_editor_submitted(self, message: PromptEditor.Submitted) -> None:
        self._show("#completions", "")
        text = message.text
        if text.startswith("/"):
            name, args = slash.split(text)
            found = slash.find(self.session, name)
            if found is not None:
                self.run_worker(self._run_command(found, args), group="command")
                return
        if text.startswith("!") and not self.session.is_streaming:
            self.run_worker(self.run_bash(text), group="bash")
            return
        # A worker, not an await: the session may open dialogs (an extension command) that
        # need this app's message loop while the prompt is being accepted.
        self.run_worker(self.send(text, follow_up=message.follow_up), group="prompt")

    async def _run_command(self, found: slash.SlashCommand, args: str) -> None:
        try:
            await found.run(self, args)
        except Exception as exc:  # noqa: BLE001 - a failed command is a notice, not a crash
            await self.say(f"/{found.name}: {exc}", "error")

    async def send(self, text: str, *, images: list[dict[str, Any]] | None = None, follow_up: bool = False) -> None:
        """A prompt; while the agent works, a steer (Enter) or a follow-up (Alt+Enter)."""
        session = self.session
        try:
            if session.is_streaming:
                behavior = "followUp" if follow_up else "steer"
                await session.prompt(text, images, behavior)
                await self.say(f"Queued as {'follow-up' if follow_up else 'steer'}: {text}")
            else:
                await session.prompt(text, images)
        except Exception as exc:  # noqa: BLE001 - refused prompts (no model, no key) are shown
            await self.say(str(exc) or type(exc).__name__, "error")

    async def run_bash(self, text: str) -> None:
        """``!cmd`` runs and adds the output to the context; ``!!cmd`` keeps it out."""
        exclude = text.startswith("!!")
        command = text[2:] if exclude else text[1:]
        call = ToolCall("", "!!" if exclude else "!", {"command": command})
        call.tool_name = "bash"
        await self.transcript.add(call)
        output: list[str] = []

        async def on_chunk(chunk: str) -> None:
            output.append(chunk)
            call.output = "".join(output)
            call.refresh_body()

        try:
            result = await self.session.bash(command, exclude, on_chunk)
        except Exception as exc:  # noqa: BLE001
            call.finish({"content": [{"type": "text", "text": str(exc)}]}, True)
            return
        code = result.get("exitCode")
        call.finish({"content": [{"type": "text", "text": str(result.get("output", ""))}]}, bool(code))
        if code:
            await self.say(f"exit code {code}", "warning")
        await self.transcript.commit()
        self.refresh_footer()

    async def on_prompt_editor_abort_requested(self, message: PromptEditor.AbortRequested) -> None:
        session = self.session
        if session.is_streaming or session.is_compacting:
            # (a worker: aborting waits for tools, which may wait for an open dialog)
            self.run_worker(session.abort(), group="abort")
        elif any(worker.group == "bash" and worker.is_running for worker in self.workers):
            session.abort_bash()
        elif not self.editor.text.strip():
            # upstream: Esc twice (500 ms) on an empty editor runs the doubleEscapeAction setting
            action = session.settings.get("doubleEscapeAction", "tree")
            now = time.monotonic()
            if action in ("tree", "fork") and now - self._last_escape < 0.5:
                self._last_escape = 0.0
                self.action_slash(str(action))
            else:
                self._last_escape = now

    # ------------------------------------------------------------------ key actions

    def action_interrupt(self) -> None:
        now = time.monotonic()
        if self.editor.text:
            self.editor.load_text("")
            self._last_interrupt = 0.0  # clearing is not the first of the two quitting presses
        elif now - self._last_interrupt < DOUBLE_PRESS_SECONDS:
            self.exit(0)
        else:
            self.say_soon("Press Ctrl+C again to quit")
            self._last_interrupt = now

    def action_paste_clipboard(self) -> None:
        """Ctrl+V: a clipboard image is saved to a temp file whose path is inserted, else the
        clipboard's text (clipboard.py); the tools run in a thread, never on the UI loop."""
        self.run_worker(self._paste_clipboard(), group="paste")

    async def _paste_clipboard(self) -> None:
        from pi_rpc.modes.interactive.clipboard import clipboard_paste_text

        try:
            text = await asyncio.to_thread(clipboard_paste_text)
        except (OSError, ValueError) as exc:  # e.g. the temp file cannot be written: an error line, as upstream
            await self.say(f"Failed to paste from clipboard: {exc}", "error")
            return
        if text:
            self.editor.insert(text)

    def action_quit_if_empty(self) -> None:
        if not self.editor.text:
            self.exit(0)

    def action_pick_model(self) -> None:
        self.action_slash("model")

    async def action_cycle_model(self) -> None:
        result = await self.session.cycle_model()
        if result:
            await self.say(f"Model: {result['model']['provider']}/{result['model']['id']}")
        self.refresh_footer()

    async def action_cycle_thinking(self) -> None:
        result = await self.session.cycle_thinking_level()
        if result is None:
            await self.say("Current model does not support thinking")
        else:
            await self.say(f"Thinking level: {result['level']}")
        self.refresh_footer()
        self.editor.focus()  # the key never moves the focus away from the prompt

    async def action_toggle_tools(self) -> None:
        """Ctrl+O: every tool call's whole output, or only its last lines."""
        from pi_rpc.modes.interactive.transcript import Header, ToolCall

        self.tools_expanded = not self.tools_expanded
        for call in self.transcript.query(ToolCall):
            call.set_expanded(self.tools_expanded)
        for header in self.transcript.query(Header):
            header.set_expanded(self.tools_expanded)

    async def action_toggle_thinking(self) -> None:
        """Ctrl+T: show or hide the thinking blocks (saved as ``hideThinkingBlock``, as upstream)."""
        from pi_rpc.modes.interactive.transcript import Thinking

        self.thinking_hidden = not self.thinking_hidden
        self.session.settings.set_global("hideThinkingBlock", self.thinking_hidden)
        for block in self.transcript.query(Thinking):
            block.collapsed = self.thinking_hidden
        await self.say(f"Thinking blocks: {'hidden' if self.thinking_hidden else 'visible'}")

    async def action_dequeue(self) -> None:
        """Alt+Up: the queued steers and follow-ups go back into the editor (before its text)."""
        cleared = await self.session.clear_queue()
        queued = [*(cleared.get("steering") or []), *(cleared.get("followUp") or [])]
        if not queued:
            await self.say("No queued messages to restore")
            return
        text = "\n\n".join(part for part in ("\n\n".join(queued), self.editor.text) if part.strip())
        self.set_editor_text(text)
        await self.say(f"Restored {len(queued)} queued message{'s' if len(queued) > 1 else ''} to editor")

    async def action_external_editor(self) -> None:
        """Ctrl+G: edit the prompt in ``externalEditor``/``$VISUAL``/``$EDITOR``."""
        from textual.app import SuspendNotSupported

        from pi_rpc.modes.interactive.external_editor import edit_in_external_editor, editor_command

        command = editor_command(self.session.settings)
        try:
            with self.suspend():
                result = edit_in_external_editor(command, self.editor.text)
        except SuspendNotSupported:
            # Textual suspends only its fullscreen driver: inline, hand the terminal over by
            # hand; headless (tests) nothing owns the terminal
            driver = self._driver
            if driver is not None and not self.is_headless:
                from pi_rpc.modes.interactive.external_editor import edit_inline

                result = edit_inline(self, driver, command)
            else:
                result = edit_in_external_editor(command, self.editor.text)
        if result.content is not None:
            self.set_editor_text(result.content)
        elif result.message:
            await self.say(result.message, "warning")
        self.editor.focus()

    def action_scroll_transcript(self, how: str) -> None:
        """Fullscreen: PageUp/PageDown, Ctrl+Home/Ctrl+End (and the unbound half-page and
        line actions) move the transcript; Ctrl+End also follows new output again."""
        transcript = self.transcript
        if how in ("page_up", "half_up", "line_up", "top"):
            transcript.release_anchor()
            transcript.follow = False
        if how == "page_up":
            transcript.scroll_page_up(animate=False)
        elif how == "page_down":
            transcript.scroll_page_down(animate=False)
        elif how in ("half_up", "half_down"):
            step = max(1, transcript.scrollable_content_region.height // 2)
            transcript.scroll_relative(y=-step if how == "half_up" else step, animate=False)
        elif how in ("line_up", "line_down"):
            transcript.scroll_relative(y=-1 if how == "line_up" else 1, animate=False)
        elif how == "top":
            transcript.scroll_home(animate=False)
        elif how == "bottom":
            transcript.follow = True
            transcript.anchor()

    async def on_event(self, event: events.Event) -> None:
        # A picker's own keys (/tree's Ctrl+O, /resume's Ctrl+D...) come before the app's
        # priority bindings, which Textual checks first even while a dialog is open.
        if (
            isinstance(event, events.Key)
            and not event.is_forwarded
            and isinstance(self.screen, SelectScreen)
            and self.screen.press_key(event.key)
        ):
            return
        # An extension's custom component gets every key (Ctrl+C, Shift+Tab ... too), as
        # upstream's focused component does.
        if isinstance(event, events.Key) and not event.is_forwarded:
            if isinstance(self.screen, LayersScreen):
                self.screen.press_key(event)
                return
            slot = self.component_slots.top
            if slot is not None and len(self.screen_stack) == 1:
                slot.press_key(event)
                return
        # A paste too (bracketed, as upstream's terminal hands it to the focused component):
        # Textual would give it to the focused widget, which is not the component.
        if isinstance(event, events.Paste) and not event.is_forwarded:
            if isinstance(self.screen, LayersScreen):
                self.screen.paste(event.text)
                return
            slot = self.component_slots.top
            if slot is not None and len(self.screen_stack) == 1:
                slot.paste(event.text)
                return
        await super().on_event(event)

    def action_copy(self) -> None:
        """Ctrl+X: in fullscreen, a mouse selection (how it is copied when
        ``fullscreenCopyOnSelect`` is off); otherwise the last answer (``/copy``)."""
        selected = self.screen.get_selected_text() if self.fullscreen else None
        if selected:
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
            return
        self.action_slash("copy")

    def on_text_selected(self, event: Any) -> None:
        """fullscreenCopyOnSelect (default on): a mouse selection is copied at once."""
        if self.fullscreen and display.fullscreen_copy_on_select(self.session.settings):
            selected = self.screen.get_selected_text()
            if selected:
                self.copy_to_clipboard(selected)

    def exit(self, result: int | None = None, return_code: int = 0, message: Any = None) -> None:
        # what fullscreen prints on the main screen after quitting (fullscreenExitOutput)
        if self.fullscreen and not self.exit_renderables:
            self.exit_renderables = self.transcript.renderables()
        super().exit(result, return_code, message)


def _compaction_count(session: Any) -> int:
    """How often the session was compacted (upstream's "Session compacted N times")."""
    try:
        entries = session.session.get_entries()
    except Exception:  # noqa: BLE001 - a notice is never worth a failed screen
        return 0
    return sum(1 for entry in entries if entry.get("type") == "compaction")

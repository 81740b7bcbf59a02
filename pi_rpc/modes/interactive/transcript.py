"""The conversation's widgets: user messages, streamed assistant answers (Markdown), thinking
(collapsed), tool calls (arguments, streamed output, the diff of an edit) and notices (errors,
retries, compaction). ``Transcript`` turns session events into these widgets."""

from __future__ import annotations

import json
import re
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Collapsible, Static

BASH_PREVIEW_LINES = 5  # collapsed bash output: its last lines (upstream's BASH_PREVIEW_LINES)
PREVIEW_LINES = 10  # collapsed output of the other tools (upstream's fallback preview)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(parts)


def format_args(name: str, args: Any) -> str:
    """One line for a tool call's arguments, as upstream shows them (bash: ``$ command``)."""
    if not isinstance(args, dict):
        return ""
    if name == "bash" and "command" in args:
        return "$ " + str(args["command"])
    if "path" in args and name in ("read", "write", "edit", "ls"):
        return str(args["path"])
    return json.dumps(args, ensure_ascii=False)[:200]


class UserMessage(Static):
    DEFAULT_CSS = "UserMessage { margin: 1 0 0 0; padding: 0 1; background: $boost; }"

    def __init__(self, text: str) -> None:
        super().__init__(Text(text), markup=False)
        self.text = text


class Notice(Static):
    """A one-line notice: errors, retries, compaction, queued messages, command output."""

    DEFAULT_CSS = """
    Notice { color: $text-muted; padding: 0 1; }
    Notice.error { color: $error; }
    Notice.warning { color: $warning; }
    """

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(Text(text), markup=False, classes=kind)
        self.text = text


LOGO = ("▀▀█", "█▀ █")


class Header(Static):
    """The startup header: the logo, the version and the main keys (upstream's compact
    hints); Ctrl+O expands it into every key (``hints`` gives both forms, with the user's
    keybindings)."""

    DEFAULT_CSS = "Header { margin: 1 0 1 0; padding: 0 1; }"

    def __init__(self, version: str, compact: str, expanded_hints: str) -> None:
        super().__init__("", markup=False)
        self.version = version
        self.compact = compact
        self.expanded_hints = expanded_hints
        self.expanded = False
        self.custom: list[str] | None = None  # an extension's header (ctx.ui.setHeader)
        self.refresh_body()

    def set_custom(self, lines: list[str] | None) -> None:
        self.custom = lines
        self.refresh_body()

    def refresh_body(self) -> None:
        if self.custom is not None:
            from pi_rpc.modes.interactive.line_component import lines_text

            self.body_text = lines_text(self.custom)
            self._show_body()
            return
        text = Text()
        text.append(LOGO[0], style="bold")
        text.append(f"  v{self.version}\n", style="dim")
        text.append(LOGO[1], style="bold")
        if self.expanded:
            text.append("\n" + self.expanded_hints, style="dim")
        else:
            text.append(" " + self.compact + "\n", style="dim")
            text.append("Press ctrl+o to show full startup help.", style="dim")
        self.body_text = text
        self._show_body()

    def _show_body(self) -> None:
        from textual._context import NoActiveAppError

        try:
            self.update(self.body_text)
        except NoActiveAppError:  # printed already, changed from outside the app: PrintedHeader reads body_text
            pass

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        self.refresh_body()


class Thinking(Collapsible):
    """Thinking: shown as it streams, unless the ``hideThinkingBlock`` setting hides it behind
    its title (Ctrl+T toggles every block, ``PiApp.action_toggle_thinking``)."""

    def __init__(self, hidden: bool = False) -> None:
        self.body = Static("", markup=False)
        super().__init__(self.body, title="Thinking…", collapsed=hidden)
        self.text = ""

    def append(self, delta: str) -> None:
        self.text += delta
        self.body.update(Text(self.text))


STREAM_FRAME_SECONDS = 1 / 20  # a streamed answer is redrawn at most this often (smooth enough for text)
_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE)
# a line that opens or continues a list: a blank line before it may be inside a loose list
_LIST_ITEM = re.compile(r" {0,3}([-*+]|[0-9]{1,9}[.)])([ \t]|$)")


def stable_end(text: str, start: int) -> int:
    """Where the part of a streaming answer that can no longer change its rendering ends: the
    last blank line after ``start`` that is outside a code fence and followed by a whole line
    that neither is indented (it could continue a list item) nor starts a list item (it could
    be the next item of a loose list, which renders as one list); ``start`` when there is none."""
    pos = text.rfind("\n\n", start)
    while pos > start:
        line_end = text.find("\n", pos + 2)
        following = text[pos + 2 : line_end]
        if (
            line_end > pos + 2  # the line after it is complete (a list marker may be arriving)
            and not following[0].isspace()
            and not _LIST_ITEM.match(following)
            and len(_FENCE.findall(text, 0, pos)) % 2 == 0
        ):
            return pos + 2
        pos = text.rfind("\n\n", start, pos)
    return start


def split_blocks(text: str) -> list[str]:
    """``text`` as the pieces ``AssistantText`` renders separately: the stable part and the
    rest (the same cut the stream makes, so a resumed answer looks as a streamed one did)."""
    end = stable_end(text, 0)
    pieces = [text[:end].strip("\n"), text[end:].strip("\n")]
    return [piece for piece in pieces if piece.strip()]


# Rich's Markdown starts these with a blank line of their own (their inner blocks set its
# "new line" flag before the container itself is drawn): it is the separator from the block before
_LEADS_WITH_BLANK = frozenset({"bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"})


def _render_block(console: Any, options: Any, block: str) -> tuple[list[Any], bool, bool]:
    """A block's lines, whether they start with Rich's separator, and whether Rich puts one
    after it (after every element but a rule)."""
    from pi_rpc.modes.interactive.markdown import ScrollbackMarkdown

    markdown = ScrollbackMarkdown(block)
    tokens = markdown.parsed
    lines = console.render_lines(markdown, options, pad=False)
    leads = bool(tokens) and tokens[0].type in _LEADS_WITH_BLANK
    separated = not tokens or tokens[-1].type != "hr"
    return lines, leads, separated


class AnswerBlocks:
    """A Markdown answer rendered block by block, as Rich renders it whole: the blocks' lines
    are kept per width, so a finished block is rendered once (the live widget, its printed copy
    and the exit transcript share them), and a streaming answer renders only its open tail."""

    def __init__(self) -> None:
        self.blocks: list[str] = []  # finished: no later text changes how they render
        self.tail = ""  # the open end of a streaming answer
        self.width = 0
        # each finished block as ``_render_block`` gives it, at ``width``
        self.rendered: list[tuple[list[Any], bool, bool]] = []
        self.tail_lines: tuple[list[Any], bool, bool] | None = None
        self.converted: list[list[Any]] = []  # the blocks' lines as ``lines``'s ``convert`` made them
        self.converted_key: Any = None
        self.blank: Any = None

    def set_tail(self, tail: str) -> None:
        self.tail = tail
        self.tail_lines = None

    def add_block(self, block: str) -> None:
        if block.strip():
            self.blocks.append(block)

    def lines(self, console: Any, options: Any, convert: Any = None, key: Any = None) -> list[Any]:
        """Every line of the answer at ``options.max_width``: lists of Rich segments, or what
        ``convert`` makes of each (the widget's strips; kept per block while ``key`` holds)."""
        from rich.segment import Segment

        width = options.max_width
        if width != self.width:
            self.width, self.rendered, self.tail_lines = width, [], None
        if key != self.converted_key:
            self.converted, self.converted_key, self.blank = [], key, None
        options = options.update(width=width, height=None, highlight=False)
        while len(self.rendered) < len(self.blocks):
            self.rendered.append(_render_block(console, options, self.blocks[len(self.rendered)]))
        if self.tail_lines is None:
            tail = self.tail.strip("\n")
            self.tail_lines = _render_block(console, options, tail) if tail.strip() else ([], False, False)
        if convert is None:
            convert = list
        else:
            if len(self.converted) > len(self.rendered):
                self.converted = []
            while len(self.converted) < len(self.rendered):
                self.converted.append([convert(line) for line in self.rendered[len(self.converted)][0]])
        converted_blocks = self.converted if convert is not list else [piece[0] for piece in self.rendered]
        out: list[Any] = []
        if self.blank is None or convert is list:
            # the blank line Rich puts between blocks (one object while ``key`` holds, so a
            # frame's lines are the previous frame's objects up to where the text changed)
            blank = convert([Segment("")])
            if convert is not list:
                self.blank = blank
        else:
            blank = self.blank
        separated = False  # Rich's "new line" flag after the last block drawn
        tail_lines, tail_leads, tail_separated = self.tail_lines
        pieces = [(converted_blocks[i], leads, after) for i, (_, leads, after) in enumerate(self.rendered)]
        pieces.append(([convert(line) for line in tail_lines], tail_leads, tail_separated))
        for lines, leads, separated_after in pieces:
            if not lines:
                continue
            if out and separated and not leads:
                out.append(blank)
            out.extend(lines)
            separated = separated_after
        return out

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.segment import Segment

        new_line = Segment.line()
        for line in self.lines(console, options):
            yield from line
            yield new_line


class AssistantText(Widget, can_focus=False):
    """An answer as Markdown, drawn by Rich's renderer (the one the scrollback copy and the
    exit transcript use, so the live answer and its printed copy look alike) in one widget.

    Textual's Markdown widget makes a widget of every block and the screen re-arranged them all
    on every delta; a ``Static`` over a Rich renderable is rendered whole twice per frame (once
    to measure its height, once to draw). Both made a stream's CPU grow with the answer's
    length (issue 37). This widget draws lines (Textual's line API) from ``AnswerBlocks``: a
    delta only extends ``text``; at most every ``STREAM_FRAME_SECONDS`` the newly finished
    blocks and the open tail are rendered, and the height is the count of lines kept. ``finish``
    renders only the last block, so the end of an answer shows at once."""

    DEFAULT_CSS = "AssistantText { margin: 0; padding: 0 1; height: auto; }"

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.text = text
        self.stable = 0  # text[:stable] is in ``answer.blocks``: no later text changes it
        self.answer = AnswerBlocks()
        self._strips: list[Any] = []
        self._strips_for: tuple[int, int] | None = None  # (width, version) the strips are of
        self._version = 0
        self._frame: Any = None
        self.done = False
        if text:
            for block in split_blocks(text):
                self.answer.add_block(block)
            self.stable = len(text)
            self.done = True

    def append(self, delta: str) -> None:
        self.text += delta
        if self._frame is None and self.is_mounted:
            self._frame = self.set_timer(STREAM_FRAME_SECONDS, self._draw)

    def finish(self) -> None:
        """The answer is complete: its open tail becomes its last block."""
        self._stop_frame()
        if self.done:
            return
        self.done = True
        self.answer.add_block(self.text[self.stable :].strip("\n"))
        self.answer.set_tail("")
        self.stable = len(self.text)
        self._changed()

    def _draw(self) -> None:
        self._stop_frame()
        end = stable_end(self.text, self.stable)
        if end > self.stable:
            self.answer.add_block(self.text[self.stable : end].strip("\n"))
            self.stable = end
        self.answer.set_tail(self.text[self.stable :])
        self._changed()

    def _changed(self) -> None:
        before = self._strips if self._strips_for == (self.size.width, self._version) else None
        self._version += 1
        if not self.is_mounted:
            return
        width = self.size.width
        # Inline (regular) mode always lays out: a paint-only frame racing a terminal resize
        # there could leave the inline region scrolled past the finished answer (seen under
        # load in test_a_resize_while_streaming_leaves_no_ghosts).
        if before is None or not width or self.app.is_inline:
            self.refresh(layout=True)
            self._follow()
            return
        # Most frames add a few words to the last line: the height is the same, so no layout
        # pass (the whole screen's, in a terminal) is needed, and only the lines that changed
        # are painted again (a finished block's lines are the same objects frame to frame).
        after = self.lines_at(width)
        first = next((i for i, (a, b) in enumerate(zip(before, after)) if a is not b), min(len(before), len(after)))
        if len(after) != len(before):
            self.refresh(layout=True)
            self._follow()
        elif first < len(after):
            from textual.geometry import Region

            self.refresh(Region(0, first, width, len(after) - first))

    def _stop_frame(self) -> None:
        if self._frame is not None:
            self._frame.stop()
            self._frame = None

    def _follow(self) -> None:
        follow = getattr(self.parent, "follow_end", None)
        if follow is not None:
            follow()

    def lines_at(self, width: int) -> list[Any]:
        """The answer's lines as strips ``width`` cells wide (kept until the text changes)."""
        from textual.strip import Strip

        if self._strips_for != (width, self._version):
            app = self.app
            options = app.console_options.update_width(max(1, width))
            style = self.rich_style

            def strip(line: list[Any]) -> Strip:
                return Strip(line).apply_style(style).extend_cell_length(width, style)

            self._strips = self.answer.lines(app.console, options, strip, (width, style))
            self._strips_for = (width, self._version)
        return self._strips

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return len(self.lines_at(width)) if width else 0

    def render_line(self, y: int) -> Any:
        from textual.strip import Strip

        width = self.size.width
        lines = self.lines_at(width)
        return lines[y] if 0 <= y < len(lines) else Strip.blank(width, self.rich_style)

    def get_selection(self, selection: Any) -> tuple[str, str] | None:
        """The selected part of the answer as shown (fullscreen's copy on select)."""
        text = "\n".join(strip.text.rstrip() for strip in self.lines_at(self.size.width))
        return selection.extract(text), "\n"


class ToolCall(Static):
    """A tool call: name and arguments, then its streamed output, then the result (an edit's
    diff; errors in red) and how long it took. Collapsed (upstream's default) it shows the last
    lines of the output under ``... (N earlier lines, ctrl+o to expand)``; ``expanded`` shows
    all of it (Ctrl+O toggles every call, ``PiApp.action_toggle_tools``)."""

    DEFAULT_CSS = """
    ToolCall { margin: 1 0 0 0; padding: 0 1; background: $panel; }
    ToolCall.error { background: $error 20%; }
    """

    def __init__(self, call_id: str, name: str, args: Any, *, expanded: bool = False) -> None:
        super().__init__("", markup=False)
        self.call_id = call_id
        self.tool_name = name
        self.args = args
        self.output = ""
        self.done = False
        self.is_error = False
        self.expanded = expanded
        self.duration_ms: float | None = None
        self.refresh_body()

    def preview_lines(self) -> int:
        return BASH_PREVIEW_LINES if self.tool_name in ("bash", "!", "!!") else PREVIEW_LINES

    def refresh_body(self) -> None:
        text = Text()
        line = format_args(self.tool_name, self.args)
        if self.tool_name == "bash" and line:
            text.append(line, style="bold")  # upstream: "$ command", the tool's name implied
        else:
            text.append(self.tool_name, style="bold")
            if line:
                text.append(" " + line)
        output = self.output.rstrip("\n")
        if output:
            lines = output.split("\n")
            shown = self.preview_lines()
            if not self.expanded and len(lines) > shown:
                text.append(f"\n... ({len(lines) - shown} earlier lines, ctrl+o to expand)", style="dim")
                lines = lines[-shown:]
            for line in lines:
                style = ""
                if self.tool_name == "edit" and self.done and not self.is_error:
                    style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
                text.append("\n" + line, style=style)
        if self.done and self.duration_ms is not None:
            text.append(f"\nTook {format_duration(self.duration_ms)}", style="dim")
        self.body_text = text
        self.update(text)

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        self.refresh_body()

    def set_partial(self, result: Any) -> None:
        self.output = _text_of((result or {}).get("content"))
        self.refresh_body()

    def finish(self, result: Any, is_error: bool, duration_ms: Any = None) -> None:
        self.done = True
        self.is_error = is_error
        result = result or {}
        details = result.get("details") if isinstance(result, dict) else None
        diff = details.get("diff") if isinstance(details, dict) else None
        self.output = (
            diff
            if (self.tool_name == "edit" and isinstance(diff, str) and not is_error)
            else _text_of(result.get("content"))
        )
        if isinstance(duration_ms, (int, float)) and not isinstance(duration_ms, bool):
            self.duration_ms = float(duration_ms)
        if is_error:
            self.add_class("error")
        self.refresh_body()


def format_duration(ms: float) -> str:
    """Upstream's ``Took`` figure: ``4.2s`` below a minute, then ``1m 30s`` and ``2h 3m 4s``."""
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, remainder = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {remainder}s"
    return f"{minutes // 60}h {minutes % 60}m {remainder}s"


class PrintedHeader:
    """The header in the scrollback (regular mode), drawn from the header's current body: an
    extension's ``setHeader`` after it was printed shows on the scrollback's next redraw."""

    def __init__(self, header: Header, pad: int) -> None:
        self.header = header
        self.pad = pad

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.padding import Padding

        yield Padding(self.header.body_text, (1, self.pad, 1, self.pad))


def as_renderable(widget: Any, pad: int = 1) -> Any:
    """What a finished widget prints into the terminal's scrollback (Rich, not Textual);
    ``pad`` is the ``outputPad`` setting (display.py)."""
    from rich.padding import Padding

    if isinstance(widget, AssistantText):
        return Padding(widget.answer, (0, pad))
    if isinstance(widget, Thinking):
        if widget.collapsed:
            return Padding(Text("Thinking… (" + str(len(widget.text)) + " chars)", style="dim"), (0, pad))
        return Padding(Text(widget.text, style="dim italic"), (0, pad))
    if isinstance(widget, UserMessage):
        return Padding(Text(widget.text, style="reverse"), (1, pad, 0, pad))
    if isinstance(widget, ToolCall):
        return Padding(widget.body_text, (1, pad, 0, pad))
    if isinstance(widget, Header):
        return PrintedHeader(widget, pad)
    if isinstance(widget, Notice):
        style = {"error": "red", "warning": "yellow"}.get(next(iter(widget.classes), ""), "dim")
        return Padding(Text(widget.text, style=style), (0, pad))
    return None


def _thousands(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value or "?")


def bash_execution_call(message: Any, expanded: bool = False) -> ToolCall:
    """A ``!``/``!!`` command of the session (a ``bashExecution`` message) as a finished call."""
    exclude = bool(message.get("excludeFromContext"))
    call = ToolCall("", "!!" if exclude else "!", {"command": message.get("command", "")}, expanded=expanded)
    call.tool_name = "bash"
    output = str(message.get("output") or "")
    code = message.get("exitCode")
    failed = bool(message.get("cancelled")) or (isinstance(code, int) and code != 0)
    call.finish({"content": [{"type": "text", "text": output}]}, failed)
    return call


class Transcript(VerticalScroll):
    """The conversation; ``handle(event)`` applies one session event.

    In a real terminal (inline driver) finished widgets leave the live area: ``commit`` prints
    them above the inline region, into the terminal's scrollback, and removes them, so only the
    streaming tail stays live (as upstream's renderer keeps the conversation in the scrollback).
    Headless (the pilot) they stay, so tests can read them."""

    DEFAULT_CSS = "Transcript { height: auto; max-height: 100%; scrollbar-size: 0 0; }"

    def __init__(self) -> None:
        super().__init__(id="transcript")
        self._text: AssistantText | None = None
        self._thinking: Thinking | None = None
        self._tools: dict[str, ToolCall] = {}
        self.output_pad = 1  # upstream's outputPad, set by display.apply
        self.printed_header: Header | None = None  # regular mode: the header in the scrollback
        # New output is followed (the view stays at the end) unless the reader scrolled up.
        self.follow = True

    def on_mount(self) -> None:
        # Inline: stay at the bottom while answers stream in. Fullscreen anchors only once the
        # conversation overflows the window (``follow_end``): an anchor also pushes a short
        # conversation to the bottom of the window, where upstream starts it at the top.
        if not getattr(self.app, "fullscreen", False):
            self.anchor()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.follow = new >= self.max_scroll_y - 1

    def follow_end(self) -> None:
        """Keep the end in view while following (Textual's anchor keeps it there as content
        grows; scrolling up releases it, scrolling back to the end restores it)."""
        if not self.follow:
            return
        if self.max_scroll_y > 0 and not self.is_anchored:
            self.anchor()
        else:
            self.scroll_end(animate=False)

    # ------------------------------------------------------------------ building blocks

    async def add(self, widget: Any) -> None:
        if self.output_pad != 1:
            widget.styles.padding = (0, self.output_pad)
        await self.mount(widget)
        self.follow_end()

    async def notice(self, text: str, kind: str = "info") -> None:
        await self.add(Notice(text, kind))
        await self.commit()

    async def show_messages(self, messages: list[Any], compactions: int = 0) -> None:
        """Rebuild the conversation from a branch's messages (startup, resume, tree moves,
        fork): prompts, answers with their thinking, tool calls with their results, ``!``
        commands, compaction and branch summaries and extensions' displayed messages, then
        upstream's "Session compacted N times" when the session was compacted."""
        header = next(iter(self.query(Header)), None)
        await self.remove_children([child for child in self.children if child is not header])
        self._reset_stream()
        expanded = bool(getattr(self.app, "tools_expanded", False))
        for message in messages:
            role = message.get("role")
            if role == "user":
                text = _text_of(message.get("content"))
                if text:
                    await self.add(UserMessage(text))
            elif role == "assistant":
                for block in message.get("content") or []:
                    kind = block.get("type")
                    if kind == "thinking" and block.get("thinking"):
                        thinking = Thinking(self._thinking_hidden())
                        await self.add(thinking)
                        thinking.append(str(block["thinking"]))
                    elif kind == "text" and block.get("text"):
                        await self.add(AssistantText(str(block["text"])))
                    elif kind == "toolCall":
                        call = ToolCall(
                            block.get("id", ""), block.get("name", ""), block.get("arguments"), expanded=expanded
                        )
                        self._tools[call.call_id] = call
                        await self.add(call)
                if message.get("stopReason") in ("error", "aborted"):
                    reason = message.get("errorMessage") or (
                        "Operation aborted" if message.get("stopReason") == "aborted" else "Error"
                    )
                    for call in self._tools.values():  # the calls of a failed turn never ran
                        call.finish({"content": [{"type": "text", "text": reason}]}, True)
                    self._tools.clear()
                    await self.add(Notice(reason, "error"))
            elif role == "toolResult":
                done = self._tools.pop(message.get("toolCallId", ""), None)
                if done is not None:
                    done.finish(message, bool(message.get("isError")), message.get("durationMs"))
            elif role == "bashExecution":
                await self.add(bash_execution_call(message, expanded))
            elif role == "compactionSummary":
                await self.add(Notice(f"[compaction] Compacted from {_thousands(message.get('tokensBefore'))} tokens"))
            elif role == "branchSummary":
                await self.add(Notice("[branch summary] " + str(message.get("summary") or "").strip().split("\n")[0]))
            elif role == "custom" and message.get("display"):
                text = _text_of(message.get("content"))
                if text:
                    await self.add(Notice(f"[{message.get('customType', 'custom')}] {text}"))
        for call in self._tools.values():
            call.done = True  # a call whose result is not on this branch (an interrupted run)
        self._tools.clear()
        if compactions:
            times = "1 time" if compactions == 1 else f"{compactions} times"
            await self.add(Notice(f"Session compacted {times}"))
        await self.commit()

    def _thinking_hidden(self) -> bool:
        return bool(getattr(self.app, "thinking_hidden", False))

    def renderables(self) -> list[Any]:
        """Every widget as it would be printed into the scrollback (fullscreen's exit output)."""
        return [r for r in (as_renderable(w, self.output_pad) for w in self.children) if r is not None]

    def _finished(self, widget: Any) -> bool:
        if isinstance(widget, ToolCall):
            return widget.done
        return widget is not self._text and widget is not self._thinking

    async def commit(self) -> None:
        """Print the leading finished widgets into the scrollback and drop them (inline only)."""
        if not self.app.is_inline:
            return
        done = []
        for child in self.children:
            if not self._finished(child):
                break
            done.append(child)
        if not done:
            return
        print_above = getattr(self.app, "print_above", None)
        if print_above is None:
            return
        renderables = [r for r in (as_renderable(w, self.output_pad) for w in done) if r is not None]
        self.printed_header = next((w for w in done if isinstance(w, Header)), self.printed_header)
        # removed first, so that the region's new height is known when the printed text
        # makes room for it (print_above)
        await self.remove_children(done)
        print_above(renderables)

    def _reset_stream(self) -> None:
        self._text = None
        self._thinking = None

    async def _end_stream(self) -> None:
        if self._text is not None:
            self._text.finish()
        self._reset_stream()

    # ------------------------------------------------------------------ events

    async def handle(self, event: dict[str, Any]) -> None:
        await self._handle(event)
        if event.get("type") in ("message_start", "message_end", "tool_execution_end", "agent_end"):
            await self.commit()

    async def _handle(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            if message.get("role") == "user":
                await self.add(UserMessage(_text_of(message.get("content"))))
            elif message.get("role") == "assistant":
                await self._end_stream()
        elif kind == "message_update":
            await self._on_delta(event.get("assistantMessageEvent") or {})
        elif kind == "message_end":
            message = event.get("message") or {}
            await self._end_stream()
            if message.get("role") == "assistant" and message.get("stopReason") in ("error", "aborted"):
                reason = message.get("errorMessage") or (
                    "Aborted" if message.get("stopReason") == "aborted" else "Error"
                )
                await self.notice(reason, "error")
        elif kind == "tool_execution_start":
            expanded = bool(getattr(self.app, "tools_expanded", False))
            call = ToolCall(
                event.get("toolCallId", ""), event.get("toolName", ""), event.get("args"), expanded=expanded
            )
            self._tools[call.call_id] = call
            await self.add(call)
        elif kind == "tool_execution_update":
            running = self._tools.get(event.get("toolCallId", ""))
            if running is not None:
                running.set_partial(event.get("partialResult"))
                self.follow_end()
        elif kind == "tool_execution_end":
            ended = self._tools.pop(event.get("toolCallId", ""), None)
            if ended is not None:
                ended.finish(event.get("result"), bool(event.get("isError")), event.get("durationMs"))
                self.follow_end()
        elif kind == "auto_retry_start":
            await self.notice(
                f"Retrying ({event.get('attempt')}/{event.get('maxAttempts')}) in "
                f"{int(event.get('delayMs') or 0) // 1000}s: {event.get('errorMessage', '')}",
                "warning",
            )
        elif kind == "auto_retry_end" and not event.get("success"):
            await self.notice(f"Retry failed: {event.get('finalError', '')}", "error")
        elif kind == "compaction_start":
            await self.notice(f"Compacting context ({event.get('reason', 'manual')})…")
        elif kind == "compaction_end":
            await self._on_compaction_end(event)

    async def _on_compaction_end(self, event: dict[str, Any]) -> None:
        if event.get("aborted"):
            await self.notice("Compaction aborted", "warning")
        elif event.get("errorMessage"):
            # the message already says what failed ("Compaction failed: ..."), as upstream shows it
            await self.notice(str(event["errorMessage"]), "error")
        else:
            result = event.get("result") or {}
            await self.notice(f"Compacted context ({result.get('tokensBefore', '?')} tokens before)")

    async def _on_delta(self, delta: dict[str, Any]) -> None:
        kind = delta.get("type")
        if kind == "thinking_delta":
            if self._thinking is None:
                self._thinking = Thinking(self._thinking_hidden())
                await self.add(self._thinking)
            self._thinking.append(delta.get("delta", ""))
        elif kind == "text_delta":
            if not delta.get("delta"):
                # an empty text block (some models send one before a tool call): no widget (the
                # Markdown stream this used to start was cancelled by text_end before it ran,
                # and the CancelledError stopped this handler: the app hung)
                return
            if self._text is None:
                self._text = AssistantText()
                await self.add(self._text)
            self._text.append(delta.get("delta", ""))
        elif kind in ("text_end", "thinking_end"):
            if kind == "text_end":
                await self._end_stream()
            else:
                self._thinking = None

"""A streamed answer's rendering (transcript.py ``AnswerBlocks``/``AssistantText``, issue 37):
finished blocks are rendered once and kept, each frame renders only the open tail, the end of
an answer renders only its last block, and the result is line for line what Rich renders for
the whole answer (the scrollback copy and fullscreen's exit transcript)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from bench.bench_llm import MARKDOWN_SECTION
from pi_rpc.modes.interactive import transcript
from pi_rpc.modes.interactive.markdown import ScrollbackMarkdown
from pi_rpc.modes.interactive.transcript import AnswerBlocks, AssistantText, split_blocks, stable_end

from .interactive_support import idle, running_app, type_and_enter, until

# a Markdown-heavy answer, the one bench/bench_llm.py's ``bench:markdown`` streams
DOCUMENTS = [
    "".join(MARKDOWN_SECTION.format(n=n) for n in range(1, 4)) + "END-OF-ANSWER\n",
    "1. one\n\n2. two\n\n3. three\n",
    "- a\n\n- b\n\n  more of b\n\ntext after\n",
    "# Title\n\npara\n\n> quote\n\n> another\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```py\nx = 1\n\ny = 2\n```\n\nend",
    "para\n\n---\n\nafter a rule\n\n***\n\n* item\n\ntext\nwith a hard break",
    "Line 1 of it\nLine 2 of it\n\n    indented code\n\n~~~\nfenced\n\n~~~\n\nlast",
]


def _console(width: int = 78) -> Any:
    from rich.console import Console

    return Console(file=io.StringIO(), width=width, force_terminal=True, color_system="truecolor")


def _text(lines: list[list[Any]]) -> list[str]:
    return ["".join(segment.text for segment in line).rstrip() for line in lines]


def _whole(console: Any, text: str) -> list[str]:
    return _text(console.render_lines(ScrollbackMarkdown(text), console.options, pad=False))


def _stream(console: Any, text: str, step: int, every: int) -> AnswerBlocks:
    """``text`` in ``step``-character deltas, a frame every ``every`` deltas, then the end (as
    ``AssistantText`` does it)."""
    answer, stable, shown = AnswerBlocks(), 0, ""
    for index in range(0, len(text), step):
        shown += text[index : index + step]
        if (index // step) % every == 0:
            end = stable_end(shown, stable)
            if end > stable:
                answer.add_block(shown[stable:end].strip("\n"))
                stable = end
            answer.set_tail(shown[stable:])
            answer.lines(console, console.options)
    answer.add_block(shown[stable:].strip("\n"))
    answer.set_tail("")
    return answer


@pytest.mark.parametrize("document", DOCUMENTS)
@pytest.mark.parametrize(("step", "every"), [(1, 7), (4, 1), (13, 3)])
def test_a_streamed_answer_renders_as_rich_renders_it_whole(document: str, step: int, every: int) -> None:
    console = _console()
    answer = _stream(console, document, step, every)
    assert _text(answer.lines(console, console.options)) == _whole(console, document)


@pytest.mark.parametrize("document", DOCUMENTS)
def test_a_resumed_answer_renders_as_rich_renders_it_whole(document: str) -> None:
    console = _console(60)
    answer = AnswerBlocks()
    for block in split_blocks(document):
        answer.add_block(block)
    assert _text(answer.lines(console, console.options)) == _whole(console, document)


def test_finished_blocks_are_rendered_once_and_each_frame_renders_only_the_tail(monkeypatch) -> None:
    rendered: list[str] = []
    real = transcript._render_block

    def counting(console: Any, options: Any, block: str) -> Any:
        rendered.append(block)
        return real(console, options, block)

    monkeypatch.setattr(transcript, "_render_block", counting)
    document = DOCUMENTS[0]
    console = _console()
    answer = _stream(console, document, 4, 5)
    frames = len(range(0, len(document), 4 * 5))
    blocks = len(answer.blocks)
    assert blocks >= 8  # the answer was cut into many blocks while it streamed
    # one render per frame for the tail and one per finished block: never the whole answer again
    answer.lines(console, console.options)
    assert len(rendered) <= frames + blocks
    assert max(len(block) for block in rendered) < len(document) / 4
    # a second look at the same width renders nothing; another width renders each block once
    before = len(rendered)
    answer.lines(console, console.options)
    assert len(rendered) == before
    answer.lines(console, console.options.update_width(50))
    assert len(rendered) == before + blocks


@pytest.mark.anyio
async def test_the_live_answer_is_drawn_as_its_printed_copy(isolated_env, tmp_path, faux_script) -> None:
    document = DOCUMENTS[3]
    script = faux_script([{"text": document, "delayMs": 2, "chunkChars": 5}])
    async with running_app(tmp_path, faux_script=script, size=(80, 60)) as (app, pilot):
        await type_and_enter(pilot, "markdown please")
        await until(pilot, lambda: idle(app) and len(app.query(AssistantText)) == 1, timeout=20)
        await pilot.pause(0.2)
        (answer,) = app.query(AssistantText)
        assert answer.text == document
        live = [strip.text.rstrip() for strip in answer.render_lines(answer.region.reset_offset)]
        from rich.console import Console

        console = Console(file=io.StringIO(), width=80, record=True)
        console.print(*app.transcript.renderables()[-1:])
        printed = [line.rstrip() for line in console.export_text().splitlines()]
        assert [line.strip() for line in live] == [line.strip() for line in printed]
        assert "quote" in "\n".join(live) and "x = 1" in "\n".join(live)


@pytest.mark.anyio
async def test_a_frame_that_keeps_the_answers_height_repaints_its_changed_lines_without_a_layout(
    isolated_env, tmp_path, monkeypatch
) -> None:
    """Most frames of a stream add words to the answer's last line: those repaint the lines
    from the first one that changed, with no layout pass (issue 37's CPU while streaming); a
    frame that adds a line lays the screen out again."""
    from textual.geometry import Region

    async with running_app(tmp_path, size=(80, 24)) as (app, pilot):
        answer = AssistantText()
        await app.transcript.add(answer)
        calls: list[tuple[tuple[Any, ...], bool]] = []
        refresh = answer.refresh

        def spy(*regions: Any, **options: Any) -> Any:
            calls.append((regions, bool(options.get("layout"))))
            return refresh(*regions, **options)

        monkeypatch.setattr(answer, "refresh", spy)
        # a finished paragraph (nothing later changes it), then the open tail of two lines
        answer.append("The first paragraph.\n\nThe second one,\nits second line")
        await until(pilot, lambda: any(layout for _, layout in calls))
        await pilot.pause(0.15)
        assert [strip.text.strip() for strip in answer.lines_at(answer.size.width)] == [
            "The first paragraph.",
            "",
            "The second one,",
            "its second line",
        ]
        calls.clear()
        answer.append(" grows")  # the same four lines: only the open tail's are painted again
        await until(pilot, lambda: bool(calls))
        await pilot.pause(0.15)
        assert calls == [((Region(0, 2, answer.size.width, 2),), False)]
        assert answer.render_line(3).text.strip() == "its second line grows"
        calls.clear()
        answer.append("\n\nA third")  # lines more: laid out again
        await until(pilot, lambda: bool(calls))
        await pilot.pause(0.15)
        assert any(layout for _, layout in calls)
        assert answer.render_line(5).text.strip() == "A third"

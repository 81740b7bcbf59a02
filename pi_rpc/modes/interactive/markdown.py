"""Markdown as upstream's terminal renders a model's answer: a line break inside a paragraph
stays a line break (``Line 1\\nLine 2`` is two lines, as in upstream's renderer, where
CommonMark would join them into one). One markdown-it rule serves both renderers: Textual's
live ``Markdown`` widget (``parser``) and Rich's, which prints finished answers into the
scrollback and fullscreen's exit transcript (``ScrollbackMarkdown``)."""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from rich.markdown import Markdown as RichMarkdown


def _hard_breaks(state: Any) -> None:
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"


def hard_breaks(md: MarkdownIt) -> None:
    """markdown-it plugin: every soft line break becomes a hard one."""
    md.core.ruler.push("pi_hard_breaks", _hard_breaks)


def parser() -> MarkdownIt:
    """The live widget's parser (Textual's own ``gfm-like`` preset plus the rule)."""
    return MarkdownIt("gfm-like").use(hard_breaks)


_RICH_PARSER: MarkdownIt | None = None


def rich_parser() -> MarkdownIt:
    """Rich's parser configuration plus the rule, built once: building a MarkdownIt costs
    more than parsing a streamed answer's open block, which is done 20 times a second."""
    global _RICH_PARSER
    if _RICH_PARSER is None:
        _RICH_PARSER = MarkdownIt().enable("strikethrough").enable("table").use(hard_breaks)
    return _RICH_PARSER


class ScrollbackMarkdown(RichMarkdown):
    """Rich's Markdown with the same line breaks as the live widget."""

    def __init__(
        self,
        markup: str,
        code_theme: str = "monokai",
        justify: Any = None,
        style: Any = "none",
        hyperlinks: bool = True,
        inline_code_lexer: str | None = None,
        inline_code_theme: str | None = None,
    ) -> None:
        # Rich's own __init__ builds a parser of its own for every instance: what it sets is
        # set here, with the shared parser
        self.markup = markup
        self.parsed = rich_parser().parse(markup)
        self.code_theme = code_theme
        self.justify = justify
        self.style = style
        self.hyperlinks = hyperlinks
        self.inline_code_lexer = inline_code_lexer
        self.inline_code_theme = inline_code_theme or code_theme

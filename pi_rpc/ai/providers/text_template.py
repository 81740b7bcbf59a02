"""Reading a streamed text chunk by difference from the one before it.

An OpenAI-compatible stream sends one JSON chunk per text delta, and consecutive chunks are
usually the same text but for the delta itself: same id, model, index, ``finish_reason: null``.
``TextTemplate`` keeps such a chunk as a prefix and a suffix around its content string. A later
chunk that is the same prefix, then a run of characters, then the same suffix is the same JSON
document with only that string changed, as long as the run can sit in a JSON string literal
as it is (no ``"``, no ``\\``, no control character): the literal starts and ends at the same
places, so every other value parses as before. Such a chunk's content is the run itself, without
a JSON parse or the rest of the per-chunk work; anything else (``None``) goes the normal way.

A template is only learnt from a chunk the provider handled fully and found to do nothing but
add text (no usage, no finish reason, no error, no delta field it acts on besides the text: a
``role`` or a null reasoning field is fine), and only after checking it
by a parse: the prefix and suffix around a probe string must give the probe back as
``choices[0].delta.content``, so they cannot be around some other string that happens to hold
the same text. A stream whose chunks never repeat around their text
(a field that changes every chunk) stops trying after ``MAX_LEARNS`` templates: OpenAI's own
API is one (an ``obfuscation`` padding field of random length on every chunk), local and most
OpenAI-compatible servers are not.
"""

from __future__ import annotations

import orjson

# Printable, and no character JSON must escape in a string literal: kept as it is in the chunk.
_PROBE = "pi-text-template-probe"
MAX_LEARNS = 8


def _plain(text: str) -> bool:
    """True when ``text`` sits in a JSON string literal exactly as it is written (no escapes
    needed, none possible). ``str.isprintable`` is False for every control character (and for
    some other characters too, which only means the normal path takes them)."""
    return '"' not in text and "\\" not in text and text.isprintable()


class TextTemplate:
    """The prefix and suffix of the last text-only chunk, and how many were learnt."""

    __slots__ = ("learns", "prefix", "suffix")

    def __init__(self) -> None:
        self.prefix: str | None = None
        self.suffix = ""
        self.learns = 0

    def content_of(self, data: str) -> str | None:
        """The delta text of ``data`` when it is the template with another plain text; else
        None (parse it)."""
        prefix = self.prefix
        if prefix is None:
            return None
        start, end = len(prefix), len(data) - len(self.suffix)
        if end < start or data[:start] != prefix or data[end:] != self.suffix:
            return None
        text = data[start:end]
        return text if _plain(text) else None

    def learn(self, data: str, content: str) -> None:
        """Take ``data`` (a text-only chunk whose delta text is ``content``) as the template if
        it checks out; otherwise keep the one there is (a
        template stays right for the rest of the stream; a delta that is not plain text, say a
        newline or a quote, just took the normal way and says nothing about the envelope)."""
        if self.learns >= MAX_LEARNS or not _plain(content):
            return
        self.learns += 1
        literal = '"' + content + '"'
        at = data.find(literal)
        if at < 0 or data.find(literal, at + 1) >= 0:
            return  # not there as written, or not only once
        prefix, suffix = data[: at + 1], data[at + 1 + len(content) :]
        try:
            probe = orjson.loads(prefix + _PROBE + suffix)
            delta = probe["choices"][0]["delta"]
        except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
            return
        # The one literal replaced is the one the delta's text is read from; being the only
        # token that changed, nothing else in the chunk parses differently (and a chunk only
        # ``js_loads`` could read keeps orjson's objection, elsewhere, in the probe: no template).
        if isinstance(delta, dict) and delta.get("content") == _PROBE:
            self.prefix, self.suffix = prefix, suffix

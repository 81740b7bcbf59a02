"""Sanitising command output: terminal escape sequences, control characters, CR.

``AnsiStreamStripper`` is a small state machine, so a sequence split across two chunks is
still removed; it keeps only its state, never the payload of an unterminated sequence.
``OutputSanitizer`` chains UTF-8 decoding, ANSI stripping and control-character removal.
"""

from __future__ import annotations

import codecs
import re

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufff9-\ufffb]")

_TEXT, _ESC, _INTER, _CSI, _OSC, _OSC_ESC = range(6)


class AnsiStreamStripper:
    def __init__(self) -> None:
        self._state = _TEXT

    def write(self, value: str) -> str:
        out: list[str] = []
        text_start = 0
        state = self._state
        for i, ch in enumerate(value):
            if state == _TEXT:
                if ch != "\x1b" and ch != "\x9b":
                    continue
                out.append(value[text_start:i])
                state = _ESC if ch == "\x1b" else _CSI
            elif state in (_OSC, _OSC_ESC):
                if ch in ("\x07", "\x9c") or (state == _OSC_ESC and ch == "\\"):
                    state = _TEXT
                else:
                    state = _OSC_ESC if ch == "\x1b" else _OSC
            elif ch in ("\x1b", "\x9b"):
                # A new introducer abandons the unfinished sequence.
                state = _ESC if ch == "\x1b" else _CSI
            elif state == _ESC and ch == "[":
                state = _CSI
            elif state == _ESC and ch == "]":
                state = _OSC
            elif state == _CSI and " " <= ch <= "?":
                pass  # parameter / intermediate bytes: wait for the final byte
            elif state != _CSI and " " <= ch <= "/":
                state = _INTER
            else:
                final_start = "@" if state == _CSI else "0"
                state = _TEXT
                if ch < final_start or ch > "~":
                    # Malformed sequence: keep the character that ended it.
                    text_start = i
                    continue
            text_start = i + 1
        if state == _TEXT:
            out.append(value[text_start:])
        self._state = state
        return "".join(out)


def sanitize_binary_output(text: str) -> str:
    """Drop control characters other than TAB/LF/CR, and U+FFF9..U+FFFB."""
    return _CONTROL.sub("", text)


def strip_ansi(text: str) -> str:
    return AnsiStreamStripper().write(text)


def sanitize_text(text: str) -> str:
    return sanitize_binary_output(strip_ansi(text)).replace("\r", "")


class OutputSanitizer:
    """Turns raw output bytes into clean text, chunk by chunk."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._ansi = AnsiStreamStripper()

    def feed(self, data: bytes) -> str:
        return self._clean(self._decoder.decode(data))

    def finish(self) -> str:
        return self._clean(self._decoder.decode(b"", final=True))

    def _clean(self, text: str) -> str:
        if not text:
            return ""
        return sanitize_binary_output(self._ansi.write(text)).replace("\r", "")

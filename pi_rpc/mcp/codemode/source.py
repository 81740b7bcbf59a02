"""Codemode script source: Python, optionally preceded by one options line

    # @options: {"max_output_tokens": 2000, "timeout_ms": 30000}

(upstream's ``// @options:`` line, as a Python comment). The options line anywhere but the
first line fails the call before the script runs, rather than being silently ignored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

OPTIONS_PREFIX = "# @options:"
SUPPORTED_FIELDS = ("max_output_tokens", "timeout_ms")
SUPPORTED_FIELDS_TEXT = "`max_output_tokens` and `timeout_ms`"
MAX_TIMEOUT_MS = 2_147_483_647
MAX_SAFE_INTEGER = 2**53 - 1

# For providers with grammar-constrained tool input (OpenAI's lark): only the options line's
# shape is fixed; the options JSON and the code are checked by parse_source.
SOURCE_GRAMMAR = r"""
start: options_source | plain_source
options_source: OPTIONS_LINE NEWLINE SOURCE
plain_source: SOURCE

OPTIONS_LINE: /[ \t]*# @options:[^\r\n]*/
NEWLINE: /\r?\n/
SOURCE: /[\s\S]+/
"""


class SourceError(ValueError):
    pass


@dataclass
class ScriptOptions:
    max_output_tokens: int | None = None
    timeout_ms: int | None = None


def _safe_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_SAFE_INTEGER


def _parse_options(directive: str) -> ScriptOptions:
    shape = f"@options must be a JSON object with supported fields {SUPPORTED_FIELDS_TEXT}"
    if directive == "":
        raise SourceError(shape)
    try:
        value = json.loads(directive)
    except ValueError as exc:
        raise SourceError(f"@options must be valid JSON with supported fields {SUPPORTED_FIELDS_TEXT}: {exc}") from None
    if not isinstance(value, dict):
        raise SourceError(shape)
    for key in value:
        if key not in SUPPORTED_FIELDS:
            raise SourceError(f"@options only supports {SUPPORTED_FIELDS_TEXT}; got `{key}`")
    options = ScriptOptions()
    if "max_output_tokens" in value:
        if not _safe_int(value["max_output_tokens"]):
            raise SourceError("@options field `max_output_tokens` must be a non-negative safe integer")
        options.max_output_tokens = value["max_output_tokens"]
    if "timeout_ms" in value:
        timeout = value["timeout_ms"]
        if not _safe_int(timeout) or timeout == 0 or timeout > MAX_TIMEOUT_MS:
            raise SourceError(f"@options field `timeout_ms` must be a positive integer up to {MAX_TIMEOUT_MS}")
        options.timeout_ms = timeout
    return options


def parse_source(source: str) -> tuple[str, ScriptOptions]:
    """``(code, options)``; the options line becomes an empty line so line numbers stay."""
    if source.strip() == "":
        raise SourceError(
            "Expected Python source text (non-empty). Provide Python only, optionally with a first line "
            '`# @options: {"max_output_tokens": 1000}`.'
        )
    lines = source.split("\n")
    for index, line in enumerate(lines):
        if index > 0 and line.lstrip().startswith(OPTIONS_PREFIX):
            raise SourceError(
                f"The {OPTIONS_PREFIX} line must be the first line of the input; found one on line {index + 1}"
            )
    first = lines[0].rstrip("\r").lstrip()
    if not first.startswith(OPTIONS_PREFIX):
        return source, ScriptOptions()
    newline = source.find("\n")
    code = "" if newline == -1 else source[newline:]
    if code.strip() == "":
        raise SourceError("The @options line must be followed by Python source on subsequent lines")
    return code, _parse_options(first[len(OPTIONS_PREFIX) :].strip())

"""Matching and diffing for the ``edit`` tool.

All edits are matched against the same original (LF-normalised) content; exact matching is
tried first, then a fuzzy match in a normalised space (NFKC, trailing whitespace, smart
quotes, Unicode dashes and spaces). Only the lines touched by a fuzzy match are rewritten in
normalised form; other lines keep their original bytes.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from pi_rpc.agent.types import ToolError

_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")
_LINES_WITH_ENDINGS = re.compile(r"[^\n]*\n|[^\n]+")


def detect_line_ending(content: str) -> str:
    crlf = content.find("\r\n")
    lf = content.find("\n")
    if lf == -1 or crlf == -1:
        return "\n"
    return "\r\n" if crlf < lf else "\n"


def normalize_to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: str) -> str:
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


def strip_bom(content: str) -> tuple[str, str]:
    return ("\ufeff", content[1:]) if content.startswith("\ufeff") else ("", content)


def normalize_for_fuzzy_match(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


@dataclass
class _Match:
    edit_index: int
    index: int
    length: int
    new_text: str


def _find(content: str, old_text: str) -> tuple[int, int, bool]:
    idx = content.find(old_text)
    if idx != -1:
        return idx, len(old_text), False
    fuzzy_content = normalize_for_fuzzy_match(content)
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    idx = fuzzy_content.find(fuzzy_old)
    if idx == -1:
        return -1, 0, False
    return idx, len(fuzzy_old), True


def _count(content: str, old_text: str) -> int:
    fuzzy_content = normalize_for_fuzzy_match(content)
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    return len(fuzzy_content.split(fuzzy_old)) - 1


def _closest_context(content: str, old_text: str) -> str | None:
    lines = content.split("\n")
    old_lines = old_text.split("\n")
    first = old_lines[0].strip() if old_lines else ""
    if not first:
        return None
    length = min(len(first), 60)
    while length >= 10:
        needle = first[:length].strip()
        if needle:
            for idx, line in enumerate(lines):
                if needle in line:
                    start = max(0, idx - 2)
                    end = min(len(lines), idx + len(old_lines) + 3)
                    snippet = "\n".join(f"  {start + i + 1}: {ln}" for i, ln in enumerate(lines[start:end]))
                    return f"Closest match is around line {idx + 1}:\n{snippet}"
        length -= 10
    preview = lines[: min(5, len(lines))]
    return "File starts with:\n" + "\n".join(f"  {i + 1}: {ln}" for i, ln in enumerate(preview))


def _not_found(path: str, index: int, total: int, content: str, old_text: str) -> ToolError:
    header = f"Could not find the exact text in {path}." if total == 1 else f"Could not find edits[{index}] in {path}."
    context = ""
    if content and old_text:
        context = "\n" + (_closest_context(content, old_text) or "File is empty.")
    return ToolError(f"{header} The old text must match exactly including all whitespace and newlines.{context}")


def _apply(content: str, matches: list[_Match], offset: int = 0) -> str:
    result = content
    for m in sorted(matches, key=lambda m: m.index, reverse=True):
        i = m.index - offset
        result = result[:i] + m.new_text + result[i + m.length :]
    return result


def _spans(content: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in _LINES_WITH_ENDINGS.findall(content):
        spans.append((pos, pos + len(line)))
        pos += len(line)
    return spans


def _apply_preserving_lines(original: str, base: str, matches: list[_Match]) -> str:
    original_lines = _LINES_WITH_ENDINGS.findall(original)
    base_spans = _spans(base)
    if len(original_lines) != len(base_spans):
        raise ToolError("Cannot preserve unchanged lines because the base content has a different line count.")
    groups: list[list] = []  # [start_line, end_line, matches]
    for m in sorted(matches, key=lambda m: m.index):
        start_line = next((i for i, (s, e) in enumerate(base_spans) if s <= m.index < e), -1)
        if start_line == -1:
            raise ToolError("Replacement range is outside the base content.")
        end_line = start_line
        stop = m.index + m.length
        while end_line < len(base_spans) and base_spans[end_line][1] < stop:
            end_line += 1
        if end_line >= len(base_spans):
            raise ToolError("Replacement range is outside the base content.")
        end_line += 1
        if groups and start_line < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], end_line)
            groups[-1][2].append(m)
        else:
            groups.append([start_line, end_line, [m]])
    out: list[str] = []
    cursor = 0
    for start_line, end_line, group in groups:
        out.append("".join(original_lines[cursor:start_line]))
        g_start = base_spans[start_line][0]
        g_end = base_spans[end_line - 1][1]
        out.append(_apply(base[g_start:g_end], group, g_start))
        cursor = end_line
    out.append("".join(original_lines[cursor:]))
    return "".join(out)


def apply_edits(normalized_content: str, edits: list[dict[str, str]], path: str) -> tuple[str, str]:
    """Apply all ``edits`` to LF content. Returns ``(base_content, new_content)``."""
    norm = [(normalize_to_lf(e["oldText"]), normalize_to_lf(e["newText"])) for e in edits]
    total = len(norm)
    for i, (old, _new) in enumerate(norm):
        if not old:
            raise ToolError(
                f"oldText must not be empty in {path}."
                if total == 1
                else f"edits[{i}].oldText must not be empty in {path}."
            )
    used_fuzzy = any(_find(normalized_content, old)[2] for old, _ in norm)
    base = normalize_for_fuzzy_match(normalized_content) if used_fuzzy else normalized_content

    matches: list[_Match] = []
    for i, (old, new) in enumerate(norm):
        idx, length, _fuzzy = _find(base, old)
        if idx == -1:
            raise _not_found(path, i, total, normalized_content, old)
        occurrences = _count(base, old)
        if occurrences > 1:
            if total == 1:
                raise ToolError(
                    f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
                    "Please provide more context to make it unique."
                )
            raise ToolError(
                f"Found {occurrences} occurrences of edits[{i}] in {path}. Each oldText must be unique. "
                "Please provide more context to make it unique."
            )
        matches.append(_Match(i, idx, length, new))

    ordered = sorted(matches, key=lambda m: m.index)
    for prev, cur in zip(ordered, ordered[1:]):
        if prev.index + prev.length > cur.index:
            raise ToolError(
                f"edits[{prev.edit_index}] and edits[{cur.edit_index}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )

    new_content = _apply_preserving_lines(normalized_content, base, matches) if used_fuzzy else _apply(base, matches)
    if new_content == normalized_content:
        if total == 1:
            raise ToolError(
                f"No changes made to {path}. The replacement produced identical content. This might indicate an "
                "issue with special characters or the text not existing as expected."
            )
        raise ToolError(f"No changes made to {path}. The replacements produced identical content.")
    return normalized_content, new_content


def _split_keep(text: str) -> list[str]:
    return _LINES_WITH_ENDINGS.findall(text)


def _diff_parts(old: str, new: str) -> list[tuple[str, list[str]]]:
    """The lines (with their endings) as runs of ``equal``, ``removed`` and ``added``."""
    import difflib  # (not at startup)

    a = _split_keep(old)
    b = _split_keep(new)
    parts: list[tuple[str, list[str]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            parts.append(("equal", a[i1:i2]))
        else:
            if i2 > i1:
                parts.append(("removed", a[i1:i2]))
            if j2 > j1:
                parts.append(("added", b[j1:j2]))
    return parts


def generate_diff_string(old: str, new: str, context_lines: int = 4) -> tuple[str, int | None]:
    """Display diff: ``+``/``-``/space, padded line numbers, ``...`` for skipped context."""
    old_lines = old.split("\n")
    new_lines = new.split("\n")
    width = len(str(max(len(old_lines), len(new_lines))))
    parts = _diff_parts(old, new)

    out: list[str] = []
    old_no = new_no = 1
    last_was_change = False
    first_changed: int | None = None

    def num(n: int) -> str:
        return str(n).rjust(width)

    blank = "".rjust(width)
    for idx, (kind, chunk) in enumerate(parts):
        raw = [line[:-1] if line.endswith("\n") else line for line in chunk]
        if kind != "equal":
            if first_changed is None:
                first_changed = new_no
            for line in raw:
                if kind == "added":
                    out.append(f"+{num(new_no)} {line}")
                    new_no += 1
                else:
                    out.append(f"-{num(old_no)} {line}")
                    old_no += 1
            last_was_change = True
            continue
        next_is_change = idx < len(parts) - 1 and parts[idx + 1][0] != "equal"
        if last_was_change and next_is_change:
            if len(raw) <= context_lines * 2:
                shown_lead, skipped, shown_trail = raw, 0, []
            else:
                shown_lead = raw[:context_lines]
                shown_trail = raw[len(raw) - context_lines :]
                skipped = len(raw) - len(shown_lead) - len(shown_trail)
            for line in shown_lead:
                out.append(f" {num(old_no)} {line}")
                old_no += 1
                new_no += 1
            if skipped or shown_trail:
                out.append(f" {blank} ...")
                old_no += skipped
                new_no += skipped
                for line in shown_trail:
                    out.append(f" {num(old_no)} {line}")
                    old_no += 1
                    new_no += 1
        elif last_was_change:
            shown = raw[:context_lines]
            skipped = len(raw) - len(shown)
            for line in shown:
                out.append(f" {num(old_no)} {line}")
                old_no += 1
                new_no += 1
            if skipped > 0:
                out.append(f" {blank} ...")
                old_no += skipped
                new_no += skipped
        elif next_is_change:
            skipped = max(0, len(raw) - context_lines)
            if skipped > 0:
                out.append(f" {blank} ...")
                old_no += skipped
                new_no += skipped
            for line in raw[skipped:]:
                out.append(f" {num(old_no)} {line}")
                old_no += 1
                new_no += 1
        else:
            old_no += len(raw)
            new_no += len(raw)
        last_was_change = False
    return "\n".join(out), first_changed


def generate_unified_patch(path: str, old: str, new: str, context_lines: int = 4) -> str:
    """A standard unified patch with ``---``/``+++`` file headers only."""
    a = _split_keep(old)
    b = _split_keep(new)
    lines = [f"--- {path}", f"+++ {path}"]
    import difflib  # (not at startup)

    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context_lines):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        old_start = i1 + 1 if i2 > i1 else i1
        new_start = j1 + 1 if j2 > j1 else j1
        lines.append(f"@@ -{old_start},{i2 - i1} +{new_start},{j2 - j1} @@")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                lines.extend(_patch_lines(" ", a[x1:x2]))
                continue
            lines.extend(_patch_lines("-", a[x1:x2]))
            lines.extend(_patch_lines("+", b[y1:y2]))
    return "\n".join(lines) + "\n"


def _patch_lines(prefix: str, chunk: list[str]) -> list[str]:
    out: list[str] = []
    for line in chunk:
        if line.endswith("\n"):
            out.append(prefix + line[:-1])
        else:
            out.append(prefix + line)
            out.append("\\ No newline at end of file")
    return out

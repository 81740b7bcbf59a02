"""The summary of one session file that a listing shows (upstream ``buildSessionInfo``), read
without parsing most of the file.

Upstream parses every line. Listing thousands of files that way is dominated by lines a
listing never needs: the persisted system message, tool results, model changes. Lines pi
writes (ours and upstream's) start with ``{"type":"<type>"``, and a message entry's first
nested object is its message, which starts with ``"role"`` and then ``"content"``. A raw,
unescaped quote cannot occur inside a JSON string, so these byte patterns can only match
keys. Per line:

- entries other than ``message`` and ``session_info``: skipped;
- messages whose role is not user or assistant: counted, not parsed;
- user and assistant messages: their ``message.timestamp`` is read from the bytes when it is
  provably the message's own key (see ``_own_timestamp``); they are parsed when their text is
  needed (the first user text; every text when searching) or the bytes are not conclusive;
- ``session_info`` entries and anything unusual (other key order, escapes, blank or foreign
  lines): parsed exactly as upstream does.

The results equal upstream's except for one file shape pi never writes: a line glued to the
remains of a line torn by a crash (pi moves a torn tail aside when it opens the file), which
upstream skips as invalid JSON and this scanner may count as a message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.transcript import content_text_spaced
from pi_rpc.session.ids import iso_to_ms

_MESSAGE = b'{"type":"message",'
_SESSION_INFO = b'{"type":"session_info"'
_TYPED = b'{"type":"'
_TYPE_AT = len(_TYPED)
_ROLE = b'"message":{"role":"'
_ROLE_OBJECT_OFFSET = len(b'"message":')
_USER_CONTENT = b'user","content":'
_ASSISTANT_CONTENT = b'assistant","content":'
# Roles a listing only counts (every role pi writes besides user and assistant); another role
# is parsed, so it is judged exactly as upstream judges it.
_COUNT_ONLY_ROLES = frozenset(
    {b"system", b"toolResult", b"bashExecution", b"custom", b"compactionSummary", b"branchSummary"}
)
_TIMESTAMP_KEY = b',"timestamp":'
_NUMBER = re.compile(rb"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_INCONCLUSIVE = object()


@dataclass(slots=True)
class ScannedSession:
    header: Mapping[str, object]
    message_count: int = 0
    first_message: str = ""
    name: str | None = None
    last_activity: float | None = None
    texts: list[str] = field(default_factory=list)


def parse_line(line: bytes) -> object:
    """``JSON.parse`` of one line; raises ``orjson.JSONDecodeError`` for a bad line. orjson is the
    fast path; what it refuses is read as node reads it (``jsjson.loads``: invalid UTF-8 as
    U+FFFD, and lone surrogate escapes, which a JS client's strings put into session files)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return js_loads(line)


def message_text(message: dict[str, object]) -> str:
    """Upstream ``extractTextContent``: a string content, or its text blocks joined by spaces."""
    return content_text_spaced(message.get("content"))


def _own_timestamp(line: bytes) -> Any:
    """``message.timestamp`` of a user/assistant line whose message starts with role and
    content (a number), or ``_INCONCLUSIVE`` when the bytes do not prove it (then the line is
    parsed).

    The last ``,"timestamp":<number>`` of the line is the message's own key when nothing after
    it opens an object and exactly the two closing braces of the message and of the entry
    follow (a nested key would need one more; a brace inside a string only adds one)."""
    key = line.rfind(_TIMESTAMP_KEY)
    if key < 0 or line.count(b"}", key) != 2 or not line.endswith(b"}}") or line.find(b"{", key) >= 0:
        return _INCONCLUSIVE
    start = key + len(_TIMESTAMP_KEY)
    raw = line[start:-2]
    if raw.isdigit():
        return int(raw)  # the last key (user messages)
    comma = raw.find(b",")
    if comma > 0:
        raw = raw[:comma]
    if _NUMBER.fullmatch(raw) is None:
        return _INCONCLUSIVE
    return int(raw) if raw.isdigit() else float(raw)


def _is_falsy_json(value: object) -> bool:
    return value is None or value is False or (type(value) in (int, float) and value == 0) or value == ""


def _header(lines: list[bytes]) -> tuple[ScannedSession | None, int]:
    """The session its first entry (blank and bad lines skipped) opens, and the number of
    lines read; None when the first entry is not a session header."""
    for start, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = parse_line(line)
        except orjson.JSONDecodeError:
            continue
        if _is_falsy_json(entry):
            continue  # JSON.parse gave a falsy value: skipped like a bad line
        if not isinstance(entry, dict) or entry.get("type") != "session":
            return None, start
        return ScannedSession(entry), start
    return None, len(lines)


def scan_session(data: bytes, *, with_texts: bool = False) -> ScannedSession | None:
    """Summarise a session file's bytes; None when it is not a session. ``texts`` is filled
    only ``with_texts`` (every non-empty user/assistant text, for searching)."""
    lines = data.split(b"\n")
    found, start = _header(lines)
    if found is None:
        return None
    s = found
    # The loop below runs for every line of thousands of files: locals instead of attribute
    # and global lookups, the timestamp check inlined.
    count = 0
    latest: float = 0
    any_activity = False
    message, role_mark, typed, session_info = _MESSAGE, _ROLE, _TYPED, _SESSION_INFO
    user_content, assistant_content, count_only = _USER_CONTENT, _ASSISTANT_CONTENT, _COUNT_ONLY_ROLES
    ts_key = _TIMESTAMP_KEY
    message_len, role_len, ts_len = len(_MESSAGE), len(_ROLE), len(_TIMESTAMP_KEY)
    for line in lines[start:]:
        if line.startswith(message):
            at = line.find(role_mark, message_len)
            if at > 0 and line.find(b"{", 1) == at + _ROLE_OBJECT_OFFSET:
                role_at = at + role_len
                user = line.startswith(user_content, role_at)
                if user or line.startswith(assistant_content, role_at):
                    if not with_texts and not (user and not s.first_message):
                        # message.timestamp read off the bytes (see ``_own_timestamp``)
                        key = line.rfind(ts_key)
                        if key > 0 and line.count(b"}", key) == 2 and line.endswith(b"}}") and line.find(b"{", key) < 0:
                            raw = line[key + ts_len : -2]
                            if raw.isdigit():
                                count += 1
                                stamp: float = int(raw)
                                if stamp > latest:
                                    latest = stamp
                                any_activity = True
                                continue
                            stamp_any = _own_timestamp(line)
                            if stamp_any is not _INCONCLUSIVE:
                                count += 1
                                if stamp_any > latest:
                                    latest = stamp_any
                                any_activity = True
                                continue
                elif line[role_at : line.find(b'"', role_at)] in count_only and line.endswith(b"}"):
                    count += 1
                    continue
        elif line.startswith(typed) and not line.startswith(session_info):
            end = line.find(b'"', _TYPE_AT)
            etype = line[_TYPE_AT:end]
            if end > 0 and b"\\" not in etype and etype != b"message":
                continue  # an entry a listing does not read
        elif not line.strip():
            continue
        try:
            entry = parse_line(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(entry, dict):
            absorb_entry(s, entry, with_texts)
    s.message_count += count
    if any_activity:
        s.last_activity = max(s.last_activity or 0, latest)
    return s


def absorb_entry(s: ScannedSession, entry: Mapping[str, object], with_texts: bool) -> None:
    """One parsed entry, exactly as upstream's loop reads it."""
    etype = entry.get("type")
    if etype == "session_info":
        raw = entry.get("name")
        s.name = (raw.strip() or None) if isinstance(raw, str) else None
    if etype != "message":
        return
    s.message_count += 1
    message = entry.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("role"), str) or "content" not in message:
        return
    if message["role"] not in ("user", "assistant"):
        return
    ts = message.get("timestamp")
    activity = ts if isinstance(ts, (int, float)) and not isinstance(ts, bool) else iso_to_ms(entry.get("timestamp"))
    if activity is not None:
        s.last_activity = max(s.last_activity or 0, activity)
    if not with_texts and (message["role"] != "user" or s.first_message):
        return
    text = message_text(message)
    if not text:
        return
    if with_texts:
        s.texts.append(text)
    if not s.first_message and message["role"] == "user":
        s.first_message = text

"""``<agentDir>/mcp.log``: the log messages servers send (``notifications/message``).

One line per message, ``<ISO time> [<server>] <level> <logger>: <message>``, continuation lines
indented by four spaces, appended with one write so several pi processes can share the file.
Past 5 MB the file moves to ``mcp.log.1`` (checked again before renaming, since another process
may have rotated it). Write errors are ignored: logging must never break a tool.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone

MAX_LOG_BYTES = 5 * 1024 * 1024


def _iso_now() -> str:
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def _format_data(data: object) -> str:
    if isinstance(data, str):
        return data
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(data)


def format_log_message(server: str, params: object, now: str | None = None) -> str:
    message = params if isinstance(params, dict) else {"data": params}
    level = message.get("level") if isinstance(message.get("level"), str) else "info"
    logger = message.get("logger")
    logger_part = f" {logger}:" if isinstance(logger, str) and logger else ""
    data = _format_data(message["data"]) if "data" in message else "undefined"
    text = re.sub(r"\r?\n", "\n    ", data)
    return f"{now or _iso_now()} [{server}] {level}{logger_part} {text}\n"


class ServerLog:
    def __init__(self, path: str) -> None:
        self.path = path
        self._size: int | None = None

    def _current_size(self) -> int:
        try:
            return os.stat(self.path).st_size
        except OSError:
            return 0

    def write(self, server: str, params: object) -> None:
        line = format_log_message(server, params).encode("utf-8")
        try:
            if self._size is None:
                os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
                self._size = self._current_size()
            if self._size > MAX_LOG_BYTES:
                if self._current_size() > MAX_LOG_BYTES:
                    os.replace(self.path, self.path + ".1")
                self._size = self._current_size()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
            self._size += len(line)
        except OSError:
            pass  # best effort

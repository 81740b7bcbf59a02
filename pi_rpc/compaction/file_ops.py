"""Which files a summarized stretch of conversation read or changed.

Collected from ``read``/``write``/``edit`` tool calls with a string ``path`` (and calls a
codemode script made, recorded on its tool result as ``nestedCalls``), plus the lists a
previous pi-generated summary carried. A file that was both read and modified is listed
only as modified: its content has changed since it was read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class FileOperations:
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def add_tool_call(self, name: object, arguments: object) -> None:
        path = arguments.get("path") if isinstance(arguments, dict) else None
        if not isinstance(path, str) or not path:
            return
        if name == "read":
            self.read.add(path)
        elif name == "write":
            self.written.add(path)
        elif name == "edit":
            self.edited.add(path)

    def add_message(self, message: Mapping[str, Any]) -> None:
        role = message.get("role")
        if role == "toolResult":
            nested = message.get("nestedCalls")
            calls = nested.get("calls") if isinstance(nested, dict) else None
            for call in calls or []:
                if isinstance(call, dict):
                    self.add_tool_call(call.get("name"), call.get("arguments"))
            return
        if role != "assistant" or not isinstance(message.get("content"), list):
            return
        for block in message["content"]:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                self.add_tool_call(block.get("name"), block.get("arguments"))

    def add_details(self, details: object) -> None:
        """Carry over a previous summary's ``{readFiles, modifiedFiles}``."""
        if not isinstance(details, dict):
            return
        for path in details.get("readFiles") or []:
            if isinstance(path, str):
                self.read.add(path)
        for path in details.get("modifiedFiles") or []:
            if isinstance(path, str):
                self.edited.add(path)

    def lists(self) -> tuple[list[str], list[str]]:
        """(readFiles, modifiedFiles), both sorted; read-only files exclude modified ones."""
        modified = self.edited | self.written
        return sorted(self.read - modified), sorted(modified)

    def details(self) -> dict[str, list[str]]:
        read_files, modified_files = self.lists()
        return {"readFiles": read_files, "modifiedFiles": modified_files}


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """``<read-files>``/``<modified-files>`` blocks to append to a summary ("" when both
    lists are empty; otherwise starts with a blank line)."""
    sections = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    if not sections:
        return ""
    return "\n\n" + "\n\n".join(sections)

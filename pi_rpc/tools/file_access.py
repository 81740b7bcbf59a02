"""The seam through which ``read``, ``edit`` and ``write`` may reach text files somewhere other
than the local disk: an editor's buffers (ACP ``fs/read_text_file`` / ``fs/write_text_file``).

Without one (every mode but ACP with a client that offers the capability) the tools use the
local file system directly, unchanged. With one, text goes through it: the tool gets the text
the editor has (saved or not) and the editor receives the new text. Images are still read from
disk (the protocol moves text only). A failure is raised as ``FileAccessError`` and becomes
the tool's error text.
"""

from __future__ import annotations

from typing import Protocol


class FileAccessError(Exception):
    """Reading or writing through the delegate failed; the message is the tool's error text."""


class TextFileAccess(Protocol):
    async def read_text(self, path: str) -> str:
        """The whole text of the file at absolute ``path``."""

    async def write_text(self, path: str, content: str) -> None:
        """Replace (or create) the file at absolute ``path`` with ``content``."""

"""Text file access through the ACP client (``fs/read_text_file`` / ``fs/write_text_file``),
used by the read/edit/write tools when the client offers those capabilities: the agent sees the
editor's buffers, unsaved changes included, and the editor receives what the agent writes.
A side the client does not offer stays on the local disk."""

from __future__ import annotations

import os

from pi_rpc.modes.acp.jsonrpc import JsonRpcPeer, PeerClosed, RpcError
from pi_rpc.tools.file_access import FileAccessError


class ClientFileAccess:
    def __init__(self, peer: JsonRpcPeer, session_id: str, *, read: bool, write: bool) -> None:
        self.peer = peer
        self.session_id = session_id
        self.delegates_read = read
        self.delegates_write = write

    async def read_text(self, path: str) -> str:
        if not self.delegates_read:
            try:
                with open(path, "rb") as fh:
                    return fh.read().decode("utf-8", "replace")
            except OSError as exc:
                raise FileAccessError(f"{exc.strerror or exc}: {path}") from exc
        try:
            result = await self.peer.request("fs/read_text_file", {"sessionId": self.session_id, "path": path})
        except (RpcError, PeerClosed) as exc:
            raise FileAccessError(f"The editor could not read {path}: {exc}") from exc
        content = result.get("content") if isinstance(result, dict) else None
        if not isinstance(content, str):
            raise FileAccessError(f"The editor sent no text for {path}")
        return content

    async def write_text(self, path: str, content: str) -> None:
        if not self.delegates_write:
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8", newline="", errors="surrogatepass") as fh:
                    fh.write(content)
            except OSError as exc:
                raise FileAccessError(f"{exc.strerror or exc}: {path}") from exc
            return
        try:
            await self.peer.request(
                "fs/write_text_file", {"sessionId": self.session_id, "path": path, "content": content}
            )
        except (RpcError, PeerClosed) as exc:
            raise FileAccessError(f"The editor could not write {path}: {exc}") from exc

    async def read_text_or_none(self, path: str) -> str | None:
        """For diffs: the current text, or None when the file does not exist (yet)."""
        if not self.delegates_read and not os.path.exists(path):
            return None
        try:
            return await self.read_text(path)
        except FileAccessError:
            return None

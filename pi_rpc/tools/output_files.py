"""Output files: files pi writes so the model can reach output it was not shown in full (the
full text of truncated tool output, binary MCP resources, images shown by codemode scripts).

Upstream's layout: ``<tmpdir>/<prefix>-<16 hex><extension>``, created exclusively (never
following a planted link) and readable only by the user, since output can carry private data.
"""

from __future__ import annotations

import os

OUTPUT_FILE_MODE = 0o600


def output_file_path(prefix: str, extension: str) -> str:
    """A new, unused path; ``extension`` includes the dot."""
    import secrets  # (with tempfile: imported by the first output file, not at startup)
    import tempfile

    return os.path.join(tempfile.gettempdir(), f"{prefix}-{secrets.token_hex(8)}{extension}")


def open_output_file(prefix: str, extension: str) -> tuple[str, int]:
    """Create a new output file; returns its path and a writable descriptor."""
    path = output_file_path(prefix, extension)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OUTPUT_FILE_MODE)
    return path, fd


def write_output_file(prefix: str, extension: str, data: str | bytes) -> str:
    """Write ``data`` (text as UTF-8) to a new output file and return its path."""
    path, fd = open_output_file(prefix, extension)
    with os.fdopen(fd, "wb") as f:
        f.write(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return path

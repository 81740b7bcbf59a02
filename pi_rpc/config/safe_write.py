"""Replacing a file through a temporary file that nobody can plant.

Every "write a temp file beside the target, then rename it over the target" in the package goes
through here. The temp file gets an unpredictable name in the target's directory and is created
with ``O_CREAT | O_EXCL | O_NOFOLLOW``: a file or symbolic link planted under a guessable name
(``<target>.tmp-<pid>``) is never opened, so it can never make a write land in an unrelated file.
``os.replace`` then renames the new file over the target's directory entry (a link there is
replaced, not followed).
"""

from __future__ import annotations

import os
import secrets


def create_temp_beside(path: str, mode: int = 0o600) -> tuple[int, str]:
    """A new, empty file next to ``path`` (``<name>.tmp-<random>``), opened for writing;
    returns its descriptor and path. Never opens anything that already exists."""
    directory, name = os.path.split(os.fspath(path))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        tmp = os.path.join(directory, f"{name}.tmp-{secrets.token_hex(8)}")
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:
            continue  # (a collision of 64 random bits, or a planted name): another name


def replace_file(
    path: str,
    data: bytes,
    *,
    mode: int = 0o600,
    fsync: bool = False,
    mtime_ns: int | None = None,
) -> None:
    """Write ``data`` to a new temporary file beside ``path`` (``mode``, flushed to stable
    storage when ``fsync``, its mtime set when ``mtime_ns``) and rename it over ``path``;
    on any failure the temporary file is removed and ``path`` is left as it was."""
    fd, tmp = create_temp_beside(path, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        if mtime_ns is not None:
            os.utime(tmp, ns=(mtime_ns, mtime_ns))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


__all__ = ["create_temp_beside", "replace_file"]

"""Helpers shared by the tools tests."""

import os


def text_of(result) -> str:
    return "".join(block["text"] for block in result["content"] if block["type"] == "text")


def group_alive(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is ``pgid``, read from /proc."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        # Fields after the parenthesised command name: state ppid pgrp ...
        rest = stat.rsplit(")", 1)[1].split()
        state, pgrp = rest[0], int(rest[2])
        if pgrp == pgid and state not in ("Z", "X"):
            alive.append(int(entry))
    return alive


def group_gone(pgid: int, within_s: float = 10.0) -> list[int]:
    """``group_alive(pgid)`` once the group is gone, or what is still alive after ``within_s``.

    SIGKILL is delivered asynchronously: on a loaded machine a killed process can stay runnable
    for a moment before it dies, so the check polls instead of reading /proc once."""
    import time

    deadline = time.monotonic() + within_s
    while True:
        alive = group_alive(pgid)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)

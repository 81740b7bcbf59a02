"""What the benchmarks read about a child process from ``/proc`` (Linux): peak RSS and CPU time."""

from __future__ import annotations

import os
from pathlib import Path


def vmhwm_kb(pid: int) -> int | None:
    """Peak resident set size (``VmHWM``) in KiB; None when the process or /proc is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (less disturbed by other load than wall time)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

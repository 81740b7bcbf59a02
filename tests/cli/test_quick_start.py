"""The README's first quick-start command works on a machine with nothing configured: it names
the offline model explicitly (faux is opt-in), and the driver shows a full run on the wire."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTALL = "python3 -m venv .venv && .venv/bin/pip install . && "


def test_readme_first_command_drives_the_offline_model(tmp_path: Path) -> None:
    line = next(x for x in (ROOT / "README.md").read_text().splitlines() if x.startswith(INSTALL))
    argv = shlex.split(line[len(INSTALL) :])
    assert argv[0] == ".venv/bin/python" and "--faux-script" in argv
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PI_CODING_AGENT_DIR": str(tmp_path / "agent"),
        "PYTHONPATH": str(ROOT),
        "PI_OFFLINE": "1",
    }  # no PI_FAUX_SCRIPT: nothing configured
    proc = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # The driver prints every record, cut to 240 characters.
    received = [x[4:] for x in proc.stdout.splitlines() if x.startswith("<<< ")]
    assert any(
        x.startswith('{"id":"s1","type":"response","command":"get_state","success":true,"data":{"model":{"id":"faux-1"')
        for x in received
    ), received[:3]
    assert any(x.startswith('{"type":"tool_execution_end"') and '"toolName":"bash"' in x for x in received)
    assert "No models available" not in proc.stderr

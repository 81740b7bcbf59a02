"""Runs the Node client's own test suite (`node --test clients/typescript/test/`) against our server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from .pi_client_testkit import OURS_MISSING, REPO

NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_client_suite_against_ours() -> None:
    env = dict(os.environ)
    env.update(
        {
            "PI_TS_TEST_PYTHON": sys.executable,
            "PI_TS_TEST_CMD": json.dumps([sys.executable, "-m", "pi_rpc", "--mode", "rpc"]),
            "PI_TS_TEST_MISSING": ",".join(OURS_MISSING),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        }
    )
    proc = subprocess.run(
        [NODE, "--test", str(REPO / "clients/typescript/test/")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stdout[-15000:] + proc.stderr[-5000:]
    assert "# fail 0" in proc.stdout and "# pass " in proc.stdout


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_generated_types_match_protocol_schema() -> None:
    """types/protocol.d.ts must be regenerated whenever protocol/schema/*.json changes."""
    gen = REPO / "clients/typescript/scripts/gen-types.mjs"
    proc = subprocess.run([NODE, str(gen), "--check"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr + "\nfix: node clients/typescript/scripts/gen-types.mjs"
    text = (REPO / "clients/typescript/types/protocol.d.ts").read_text()
    for name in (
        "export type Command =",
        "export type Event =",
        "export interface Response {",
        "export interface SessionState {",
        "export interface PromptCommand {",
    ):
        assert name in text, name

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


def _node_with_websocket() -> str | None:
    """A Node >= 22.19 (the project's discovery: ``PI_NODE``, ``node`` on PATH, the ``node``
    extra's binary): it has the global WebSocket the client's ``ws://`` transport uses."""
    from pi_rpc.extensions.nodejs import locate

    try:
        return locate.find_node().node
    except locate.NodeUnavailable:
        return None


NODE_WS = _node_with_websocket()


@pytest.mark.skipif(NODE_WS is None, reason="no Node >= 22 (PI_NODE, PATH or pi-rpc[node])")
def test_node_client_connects_over_websocket() -> None:
    """connect.test.mjs on a Node with WebSocket: its ws:// test runs (is not skipped) and passes."""
    assert NODE_WS is not None
    env = dict(os.environ)
    env.update(
        {
            "PI_TS_TEST_PYTHON": sys.executable,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        }
    )
    proc = subprocess.run(
        [NODE_WS, "--test", "--test-reporter=tap", str(REPO / "clients/typescript/test/connect.test.mjs")],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        cwd=REPO,
    )
    out = proc.stdout
    assert proc.returncode == 0, out[-15000:] + proc.stderr[-5000:]
    assert "# fail 0" in out and "# skipped 0" in out and "# todo 0" in out, out[-5000:]
    assert "ok 2 - connect over WebSocket" in out, out[-5000:]

"""The conformance runner (protocol/conformance/run.py) against our server, per tier, plus its matcher."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.conformance.matcher import match, substitute
from protocol.conformance.run import load_scenarios

REPO = Path(__file__).resolve().parents[2]
RUNNER = REPO / "protocol" / "conformance" / "run.py"

OURS = f"{sys.executable} -m pi_rpc --mode rpc --session-dir {{session_dir}}"


def _run_tier(tier: str, tmp_path: Path) -> dict:
    report = tmp_path / "report.json"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--cmd", OURS, "--target", "ours", "--tier", tier, "--report", str(report)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert report.exists(), proc.stdout + proc.stderr
    data = json.loads(report.read_text())
    failed = [r for r in data["results"] if r["status"] not in ("pass", "skip")]
    assert not failed, proc.stdout[-20000:]
    assert proc.returncode == 0
    return data


def test_core_tier_against_ours(tmp_path: Path) -> None:
    data = _run_tier("core", tmp_path)
    statuses = {r["name"]: r["status"] for r in data["results"]}
    assert statuses["core.null_line"] == "pass"  # ours-only step set ran
    assert statuses["core.null_line_upstream"] == "skip"
    assert sum(s == "pass" for s in statuses.values()) >= 9


@pytest.mark.slow
@pytest.mark.parametrize("tier", ["session", "run", "compaction"])
def test_other_tiers_against_ours(tier: str, tmp_path: Path) -> None:
    data = _run_tier(tier, tmp_path)
    assert data["totals"][tier]["pass"] >= 2


def test_extensions_tier_against_ours(tmp_path: Path) -> None:
    """Python ports of upstream's example extensions and paired fixtures (tests/fixtures/
    extensions) in the real subprocess: the same expectations upstream passes with the
    TypeScript originals."""
    data = _run_tier("extension_api", tmp_path)
    assert data["totals"]["extension_api"]["pass"] >= 10


def test_failure_report_carries_transcript(tmp_path: Path) -> None:
    """A scenario that cannot pass must fail with the full wire transcript and stderr in the report."""
    sc_dir = tmp_path / "scenarios" / "core"
    sc_dir.mkdir(parents=True)
    (sc_dir / "bad.json").write_text(
        json.dumps(
            {
                "model": [],
                "steps": [
                    {"send": {"id": "s1", "type": "get_state"}},
                    {"expect": {"type": "response", "id": "s1", "data": {"isStreaming": True}}, "timeout": 1},
                ],
            }
        )
    )
    report = tmp_path / "r.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(RUNNER),
            "--cmd",
            OURS,
            "--scenarios",
            str(tmp_path / "scenarios"),
            "--report",
            str(report),
        ],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert proc.returncode == 1
    res = json.loads(report.read_text())["results"][0]
    assert res["status"] == "fail" and res["failed_step"] == 1
    dirs = [ln["dir"] for ln in res["transcript"]]
    assert dirs[:2] == ["in", "out"] and '"id":"s1"' in res["transcript"][1]["raw"]
    assert "FAIL  core.bad" in proc.stdout


def test_beyond_upstream_tier_against_ours(tmp_path: Path) -> None:
    """The ``extensions`` tier: the protocol beyond upstream (protocol/README.md §11)."""
    data = _run_tier("extensions", tmp_path)
    assert data["totals"]["extensions"]["pass"] >= 4
    assert data["totals"]["extensions"]["xfail"] == 0


def test_expected_failures_and_unexpected_passes(tmp_path: Path) -> None:
    """A scenario marked {"xfail": "upstream"} that fails against that target is an expected
    failure (exit 0); one that passes there is an unexpected pass (exit 1)."""
    sc_dir = tmp_path / "scenarios" / "extensions"
    sc_dir.mkdir(parents=True)
    failing = {
        "xfail": "upstream",
        "model": [],
        "steps": [
            {"send": {"id": "i1", "type": "get_protocol_info"}},
            {"expect": {"type": "response", "id": "i1", "data": {"name": "not-this-one"}}, "timeout": 1},
        ],
    }
    (sc_dir / "fails.json").write_text(json.dumps(failing))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}

    def run(*extra: str) -> tuple[int, dict]:
        report = tmp_path / "r.json"
        proc = subprocess.run(
            [
                sys.executable,
                str(RUNNER),
                "--cmd",
                OURS,
                "--scenarios",
                str(tmp_path / "scenarios"),
                "--tier",
                "extensions",
                "--report",
                str(report),
                *extra,
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        return proc.returncode, json.loads(report.read_text())

    code, data = run("--target", "upstream")
    assert code == 0 and data["results"][0]["status"] == "xfail"
    code, data = run("--target", "ours")
    assert code == 1 and data["results"][0]["status"] == "fail"
    passing = {
        "xfail": "upstream",
        "model": [],
        "steps": [
            {"send": {"id": "i1", "type": "get_protocol_info"}},
            {"expect": {"type": "response", "id": "i1", "success": True}},
        ],
    }
    (sc_dir / "fails.json").write_text(json.dumps(passing))
    code, data = run("--target", "upstream")
    assert code == 1 and data["results"][0]["status"] == "xpass"


def test_seq_gapless_step(tmp_path: Path) -> None:
    sc_dir = tmp_path / "scenarios" / "extensions"
    sc_dir.mkdir(parents=True)
    steps = [
        {"mark": "m"},
        {"send": {"id": "o", "type": "set_event_options", "seq": True}},
        {"send": {"id": "s", "type": "get_state"}},
        {"expect": {"id": "s", "seq": 2}},
        {"seq_gapless": {"first": 1}, "since": "mark:m"},
    ]
    (sc_dir / "ok.json").write_text(json.dumps({"model": [], "steps": steps}))
    numbering_before = [{"send": {"id": "s0", "type": "get_state"}}, {"expect": {"id": "s0"}}, *steps]
    numbering_before[-1] = {"seq_gapless": {}, "since": "start"}  # s0 has no seq: must fail
    (sc_dir / "bad.json").write_text(json.dumps({"model": [], "steps": numbering_before}))
    report = tmp_path / "r.json"
    subprocess.run(
        [
            sys.executable,
            str(RUNNER),
            "--cmd",
            OURS,
            "--scenarios",
            str(tmp_path / "scenarios"),
            "--tier",
            "extensions",
            "--report",
            str(report),
        ],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    status = {r["name"]: r for r in json.loads(report.read_text())["results"]}
    assert status["extensions.ok"]["status"] == "pass"
    assert status["extensions.bad"]["status"] == "fail" and "seq_gapless" in status["extensions.bad"]["error"]


def test_scenarios_are_valid_and_tiered() -> None:
    scenarios = load_scenarios(RUNNER.parent / "scenarios")
    names = [s["name"] for s in scenarios]
    assert len(names) == len(set(names))
    assert {s["tier"] for s in scenarios} == {"core", "session", "run", "compaction", "extension_api", "extensions"}
    for s in scenarios:
        assert s.get("only") in (None, "ours", "upstream"), s["name"]
        # The protocol beyond upstream 1.6, and only that, is expected to fail against upstream.
        assert (s.get("xfail") == "upstream") == (s["tier"] == "extensions"), s["name"]
        assert s["steps"] and all(isinstance(st, dict) for st in s["steps"]), s["name"]


def test_matcher_semantics() -> None:
    caps: dict = {}
    rec = {"type": "response", "id": 7, "success": True, "data": {"a": [1, 2], "t": "x\u2028y"}}
    assert match({"id": 7, "data": {"a": [1, 2.0]}}, rec, caps)
    assert not match({"id": "7"}, rec, caps)
    assert not match({"success": 1}, rec, caps)  # booleans are not numbers
    assert match({"error": "$absent", "data": {"t": {"$contains": "\u2028"}}}, rec, caps)
    assert not match({"data": "$absent"}, rec, caps)
    assert match({"data": {"a": {"$contains": 2}, "t": {"$save": "t"}}}, rec, caps) and caps["t"] == "x\u2028y"
    assert match({"data": {"t": "${t}"}}, rec, caps)
    assert match({"id": {"$any": ["no", {"$type": "integer"}]}}, rec, caps)
    assert not match({"data": {"$exact": {"a": "*"}}}, rec, caps)
    assert match({"$raw": {"$prefix": '{"id"'}}, rec, caps, raw='{"id":7}')
    assert match({"data": {"a": {"$len": 2, "$each": {"$gte": 1}}}}, rec, caps)
    assert substitute({"x": "${t}", "y": "p-${n}"}, {"t": [1], "n": 3}) == {"x": [1], "y": "p-3"}


BRIDGE = REPO / "protocol" / "conformance" / "socket_bridge.py"
# Over a socket the process numbers records for all its connections (protocol/README §11.12), so
# the response that turns seq on is not 1; every other scenario passes unchanged.
SOCKET_DIFFERENCES = {"extensions.event_options"}


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["unix", "tcp", "ws"])
def test_core_and_run_tiers_over_each_listen_transport(transport: str, tmp_path: Path) -> None:
    """The runner's scenarios through ``pi --mode rpc --listen`` (``socket_bridge.py``)."""
    report = tmp_path / "report.json"
    cmd = f"{sys.executable} {BRIDGE} --transport {transport} -- {OURS}"
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--cmd", cmd, "--target", "ours", "--tier", "core,run,extensions",
         "--report", str(report)],
        capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}, timeout=600,
    )  # fmt: skip
    assert report.exists(), proc.stdout + proc.stderr
    results = json.loads(report.read_text())["results"]
    failed = {r["name"] for r in results if r["status"] not in ("pass", "skip")}
    assert failed <= SOCKET_DIFFERENCES, proc.stdout[-20000:]
    assert sum(r["status"] == "pass" for r in results) >= 16

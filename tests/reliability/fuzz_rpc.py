"""Grammar-based fuzz run of the real ``pi --mode rpc`` against a local OpenAI-compatible model.

Every command type (upstream's 33 and ours beyond them) is generated, valid and mutated (missing and wrongly typed
fields, ids of every JSON type, duplicate ids, lone-surrogate escapes, invalid UTF-8, BOM,
CR, U+2028, huge strings, deep nesting, garbage lines, empty lines), written packed several
to a write or split across writes, while prompts with tool calls, bash commands,
compaction, retries and session switches run concurrently. At the end:

- the process must still be alive and exit 0 at EOF (no crash, no exception on stderr);
- every record with a readable id has exactly one response with that id; every other record
  (except ``extension_ui_response``) exactly one id-less response;
- every stdout line is one valid JSON record;
- peak RSS (VmHWM) is reported (the acceptance bound is 150 MB);
- every session file is valid and loads in ours and, when installed, in upstream pi 1.6 with
  the same messages.

    python -m tests.reliability.fuzz_rpc --records 20000   (from the repository root) [--seed 1] [--no-upstream]

Prints one JSON object of figures; exit status 1 when an invariant failed.
``tests/reliability/test_fuzz.py`` runs a short version in the suite.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.jsjson import stringify
from pi_rpc.modes.wire.protocol.names import COMMAND_TYPES
from protocol.conformance.scripted_llm import ScriptedLLM, write_agent_config
from tests.reliability.harness import check_session_file
from tests.support.pi_process import OURS, PiProcess, isolated_env, upstream_argv

HALF = "\ud83d"
SAFE_BASH = [
    "echo hi",
    "printf 'a\\nb'",
    "true",
    "false",
    "sleep 0.02; echo slept",
    "printf '\\xff\\xfe'",
    f"echo '{HALF}'",
    "ls",
    "seq 1 2000",
    "echo é\u2028x",
]
TEXTS = [
    "hello",
    "",
    " ",
    "line\nbreak",
    "tab\there",
    f"half {HALF} emoji",
    "\udc00 low",
    "\u2028sep\u2029",
    "é\U0001f600",
    "\x00nul",
    "x" * 3000,
    '{"json": 1}',
    "/skill:none",
    "\\ud800 literal",
]


# How often each command is sent, relative to 2 for the rest: a client mostly prompts and
# queries; session switches and aborts are rarer (each still appears hundreds of times).
WEIGHTS = {
    "prompt": 30,
    "steer": 6,
    "follow_up": 6,
    "bash": 6,
    "get_state": 6,
    "get_messages": 4,
    "abort": 0.3,
    "new_session": 0.2,
    "switch_session": 0.2,
    "fork": 0.3,
    "clone": 0.2,
    "compact": 0.3,
    "cycle_model": 0.2,
    "set_model": 0.4,
    "export_html": 0.5,
    "delete_session": 0.2,
    "navigate_tree": 0.4,
}


def model_script(rng: random.Random, turns: int) -> dict[str, Any]:
    out = []
    for i in range(turns):
        kind = rng.random()
        if kind < 0.35:
            out.append(
                {
                    "chunks": [
                        rng.choice(["Sure. ", "Ok ", HALF, "\ude00", "é", "\u2028"]) for _ in range(rng.randint(1, 30))
                    ]
                }
            )
        elif kind < 0.55:
            out.append(
                {
                    "text": "Running a tool.",
                    "tool_calls": [{"name": "bash", "id": f"b{i}", "arguments": {"command": rng.choice(SAFE_BASH)}}],
                }
            )
        elif kind < 0.65:
            out.append(
                {
                    "tool_calls": [
                        {
                            "name": "write",
                            "id": f"w{i}",
                            "arguments": {"path": f"f{i % 7}.txt", "content": f"content {HALF} {i}\n"},
                        }
                    ]
                }
            )
        elif kind < 0.72:
            out.append({"tool_calls": [{"name": "read", "id": f"r{i}", "arguments": {"path": f"f{i % 7}.txt"}}]})
        elif kind < 0.76:
            out.append({"error": {"status": 503, "body": {"error": {"message": "overloaded"}}}})
        elif kind < 0.80:
            out.append({"chunks": ["slow "] * 20, "delay_ms": 5})
        elif kind < 0.82:
            out.append({"tool_calls": [{"name": "bash", "id": f"x{i}", "arguments": "{not json"}]})
        else:
            out.append({"text": rng.choice(TEXTS) or "ok"})
    return {
        "turns": out,
        "rules": [{"no_tools": True, "turn": {"text": f"## Goal\nSummary {HALF} of the conversation."}}],
        "default": {"text": "script exhausted"},
    }


class Generator:
    """Commands: valid, mutated, or garbage. Knows what each record should be answered with."""

    def __init__(self, rng: random.Random, work: Path) -> None:
        self.rng = rng
        self.work = work
        self.n = 0
        self.entry_ids: list[str] = []  # learnt from responses, for fork/get_entries
        self.session_files: list[str] = []

    # -- field values ------------------------------------------------------------

    def text(self) -> str:
        # Huge strings: 100 KB now and then, 1 MB rarely. (Prompts are kept by the session,
        # echoed by the offline model ``cycle_model`` can switch to, and re-sent whole by
        # get_messages/get_tree: a session full of megabyte prompts holds that much memory,
        # as upstream's would.)
        r = self.rng.random()
        if r < 0.0002:
            return "y" * 1_000_000
        if r < 0.003:
            return "y" * 100_000
        return self.rng.choice(TEXTS)

    def any_id(self) -> Any:
        r = self.rng.random()
        if r < 0.55:
            return f"f{self.n}"
        choices: list[Any] = [
            self.n,
            -self.n - 0.5,
            float(self.n),
            {"n": self.n},
            [self.n, "x"],
            None,
            True,
            f"\u00e9{self.n}{HALF}",
            f"id\u2028{self.n}",
            10**30 + self.n,
            "",
        ]
        if r < 0.57:
            deep: Any = self.n
            for _ in range(self.rng.choice([300, 1500])):
                deep = [deep]
            return deep
        if r < 0.62:
            return "dup"  # duplicate ids: each record still answered once
        return self.rng.choice(choices)

    def fields(self, ctype: str) -> dict[str, Any]:
        upstream = self._upstream_fields(ctype)
        return upstream if upstream is not None else self._extra_fields(ctype)

    def _upstream_fields(self, ctype: str) -> dict[str, Any] | None:
        """The fields of an upstream command (None: not one)."""
        r = self.rng
        if ctype in ("prompt", "steer", "follow_up"):
            f: dict[str, Any] = {"message": self.text()}
            if ctype == "prompt" and r.random() < 0.5:
                f["streamingBehavior"] = r.choice(["steer", "followUp", "other"])
            if r.random() < 0.03:
                f["images"] = [{"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}]
            return f
        if ctype == "new_session":
            return {"parentSession": "parent.jsonl"} if r.random() < 0.2 else {}
        if ctype == "set_model":
            return r.choice(
                [
                    {"provider": "conf", "modelId": "conf-model"},
                    {"provider": "conf", "modelId": "conf-reasoner"},
                    {"provider": "x", "modelId": "y"},
                ]
            )
        if ctype == "set_thinking_level":
            return {"level": r.choice(["off", "low", "high", "max", "bogus"])}
        if ctype in ("set_steering_mode", "set_follow_up_mode"):
            return {"mode": r.choice(["all", "one-at-a-time", "bad"])}
        if ctype == "compact":
            return {"customInstructions": self.text()} if r.random() < 0.3 else {}
        if ctype in ("set_auto_compaction", "set_auto_retry"):
            return {"enabled": r.random() < 0.7}
        if ctype == "bash":
            f = {"command": r.choice(SAFE_BASH)}
            if r.random() < 0.2:
                f["excludeFromContext"] = True
            return f
        if ctype == "export_html":
            return {"outputPath": str(self.work / "cwd" / f"export{self.n % 5}.html")} if r.random() < 0.7 else {}
        if ctype == "switch_session":
            if self.session_files and r.random() < 0.7:
                return {"sessionPath": r.choice(self.session_files)}
            return {"sessionPath": str(self.work / "cwd" / f"switched{self.n % 9}.jsonl")}
        if ctype == "fork":
            f = {"entryId": r.choice(self.entry_ids) if self.entry_ids and r.random() < 0.8 else "nope"}
            if r.random() < 0.3:
                f["position"] = r.choice(["before", "at", "sideways"])
            return f
        if ctype == "get_entries":
            return {"since": r.choice(self.entry_ids)} if self.entry_ids and r.random() < 0.5 else {}
        if ctype == "set_session_name":
            return {"name": self.text()}
        return None

    def _extra_fields(self, ctype: str) -> dict[str, Any]:
        """The commands beyond upstream (protocol/README.md §11)."""
        r = self.rng
        if ctype == "set_event_options":
            return {k: r.random() < 0.5 for k in ("seq", "runId") if r.random() < 0.7}
        if ctype == "get_events":
            return {"sinceSeq": r.choice([0, 1, self.n, -5, 10**6])}
        if ctype == "list_sessions":
            f = {}
            if r.random() < 0.5:
                f["scope"] = r.choice(["cwd", "all", "bogus"])
            if r.random() < 0.3:
                f["limit"] = r.choice([1, 5, 0, -1])
            if r.random() < 0.3:
                f["query"] = self.text()
            return f
        if ctype in ("rename_session", "delete_session"):
            if self.session_files and r.random() < 0.6:
                path = r.choice(self.session_files)
            else:
                path = r.choice(["/etc/passwd", str(self.work / "cwd" / "missing.jsonl"), "relative.jsonl"])
            return {"sessionPath": path, "name": self.text()} if ctype == "rename_session" else {"sessionPath": path}
        if ctype == "navigate_tree":
            f = {"targetId": r.choice(self.entry_ids) if self.entry_ids and r.random() < 0.8 else "nope"}
            if r.random() < 0.2:
                f["summarize"] = True
                if r.random() < 0.5:
                    f["customInstructions"] = self.text()
            return f
        if ctype == "set_label":
            return {
                "entryId": r.choice(self.entry_ids) if self.entry_ids and r.random() < 0.8 else "nope",
                "label": r.choice([self.text(), None, ""]),
            }
        return {}

    # -- records -----------------------------------------------------------------

    def record(self) -> bytes:
        """One record (no LF). Mutations may make it unreadable; the reference parser says."""
        self.n += 1
        r = self.rng.random()
        if r < 0.03:
            return self.rng.choice(
                [
                    b"",
                    b"not json",
                    b"\xff\xfe\xfd",
                    b"null",
                    b"42",
                    b"[]",
                    b"{}",
                    b'{"id":',
                    b"\xef\xbb\xbf{}",
                    b'"str"',
                    b'{"id":"f",}',
                ]
            )
        if r < 0.97:
            ctype = self.rng.choices(COMMAND_TYPES, weights=[WEIGHTS.get(t, 2) for t in COMMAND_TYPES])[0]
        else:
            ctype = self.rng.choice(["extension_ui_response", "bogus"])
        cmd: dict[str, Any] = {}
        if self.rng.random() < 0.93:
            cmd["id"] = self.any_id()
        cmd["type"] = ctype
        cmd.update(self.fields(ctype))
        mutate = self.rng.random()
        if mutate < 0.08 and len(cmd) > 2:  # a required field missing
            cmd.pop(self.rng.choice([k for k in cmd if k not in ("id", "type")]))
        elif mutate < 0.16:  # a field of the wrong type
            key = self.rng.choice([k for k in cmd if k != "id"])
            cmd[key] = self.rng.choice([5, None, [], {}, True, 1.5, "str"])
        elif mutate < 0.18:
            deep: Any = 1
            for _ in range(self.rng.choice([50, 2000])):
                deep = {"a": deep}
            cmd["extra"] = deep
        data = stringify(cmd)
        byte_mutate = self.rng.random()
        if byte_mutate < 0.04:  # invalid UTF-8 inside a string value: still readable (U+FFFD)
            pos = data.rfind(b'"', 0, len(data) - 1)
            if pos > 0:
                data = data[:pos] + self.rng.choice([b"\xff", b"\xfe\xfe", b"\xf0\x9f", b"\xed\xa0\x80"]) + data[pos:]
        elif byte_mutate < 0.06:  # a lone-surrogate escape inside the last string
            pos = data.rfind(b'"', 0, len(data) - 1)
            if pos > 0:
                data = data[:pos] + b"\\udc01" + data[pos:]
        elif byte_mutate < 0.07:
            data = b"\xef\xbb\xbf" + data  # BOM: not JSON for V8
        elif byte_mutate < 0.09:
            data = data + b"\r"
        elif byte_mutate < 0.10:  # a byte flipped anywhere
            pos = self.rng.randrange(len(data))
            data = data[:pos] + bytes([self.rng.randrange(256)]) + data[pos + 1 :]
            data = data.replace(b"\n", b" ")
        elif byte_mutate < 0.11:
            data = b"  " + data + b" \t"
        return data


def reference(frame: bytes) -> Any:
    """What V8 would make of the record: node's decoding, then a strict JSON parse."""
    text = frame[:-1] if frame.endswith(b"\r") else frame
    decoded = text.decode("utf-8", "replace")

    def reject(name: str) -> Any:
        raise ValueError(name)

    try:
        return json.loads(decoded, parse_constant=reject)
    except ValueError:
        return _UNREADABLE
    except RecursionError:
        from pi_rpc.modes.wire.jsonparse import parse_iterative

        try:
            return parse_iterative(decoded)
        except ValueError:
            return _UNREADABLE


_UNREADABLE = object()


def key_of(value: Any) -> str:
    return json.dumps(js_loads(stringify(value)), sort_keys=True)


def wait_for_run(pi: PiProcess, prompt_key: str, absorb: Any, start: int, timeout: float = 60.0) -> None:
    """Wait for the prompt's response and, when it started a run, for that run to settle
    (records before ``start`` were there before the prompt was written)."""
    deadline = time.monotonic() + timeout
    started = False
    i = start
    while time.monotonic() < deadline and pi.popen.poll() is None:
        absorb()
        records = pi.records
        while i < len(records):
            r = records[i]
            i += 1
            if not isinstance(r, dict):
                continue
            if (
                not started
                and r.get("type") == "response"
                and r.get("command") == "prompt"
                and "id" in r
                and key_of(r["id"]) == prompt_key
            ):
                if (r.get("data") or {}).get("disposition") != "started":
                    return
                started = True
            elif started and r.get("type") == "agent_settled":
                return
        time.sleep(0.005)


def _count_responses(records: list[Any]) -> tuple[dict[str, int], int]:
    """How many responses each id got, and how many came without an id."""
    got_by_id: dict[str, int] = {}
    got_idless = 0
    for record in records:
        if isinstance(record, dict) and record.get("type") == "response":
            if "id" in record:
                k = key_of(record["id"])
                got_by_id[k] = got_by_id.get(k, 0) + 1
            else:
                got_idless += 1
    return got_by_id, got_idless


def _check_files(files: list[str], work: Path, upstream: bool) -> tuple[list[str], int]:
    """The session files that fail the checks (with why), and how many upstream read."""
    bad_files: list[str] = []
    upstream_checked = 0
    for path in files:
        try:
            result = check_session_file(path, work, upstream=upstream)
            upstream_checked += int(result["upstream_checked"])
        except Exception as exc:  # noqa: BLE001 - reported in the figures
            bad_files.append(f"{path}: {exc}"[:500])
    return bad_files, upstream_checked


def run(
    records: int,
    seed: int,
    *,
    upstream: bool,
    work: Path,
    window: int = 48,
    quiet: bool = False,
    settle_share: float = 0.5,
) -> dict[str, Any]:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    rng = random.Random(seed)
    (work / "cwd").mkdir(parents=True)
    sessions = work / "sessions"
    gen = Generator(rng, work)
    expected_by_id: dict[str, int] = {}
    expected_idless = 0
    started = time.monotonic()
    with ScriptedLLM(model_script(rng, max(200, records // 4))) as llm:
        write_agent_config(
            str(work / "agent"),
            llm.base_url,
            {
                "retry": {"baseDelayMs": 10, "maxRetries": 2, "provider": {"maxRetries": 0}},
                "compaction": {"keepRecentTokens": 200},
            },
        )
        pi = PiProcess(
            [*OURS, "--mode", "rpc", "--session-dir", str(sessions)],
            isolated_env(work, faux=False),
            work / "cwd",
            lenient=True,
        )
        outstanding: set[str] = set()
        seen_responses = 0
        exits_midrun = 0

        def absorb() -> None:
            nonlocal seen_responses
            pi.drain(0.0)  # read what has arrived (records are parsed as they are read)
            while seen_responses < len(pi.records):
                record = pi.records[seen_responses]
                seen_responses += 1
                if not isinstance(record, dict):
                    continue
                if record.get("type") == "response" and "id" in record:
                    outstanding.discard(key_of(record["id"]))
                data = record.get("data") if isinstance(record.get("data"), dict) else {}
                for m in data.get("messages", []) if record.get("command") == "get_fork_messages" else []:
                    gen.entry_ids.append(m["entryId"])
                if record.get("command") == "get_state" and data.get("sessionFile"):
                    if data["sessionFile"] not in gen.session_files:
                        gen.session_files.append(data["sessionFile"])
                del gen.entry_ids[:-50]

        sent = 0
        while sent < records:
            batch = []
            for _ in range(rng.choice([1, 1, 1, 2, 5])):
                if sent >= records:
                    break
                frame = gen.record()
                sent += 1
                batch.append(frame)
                value = reference(frame)
                if isinstance(value, dict) and value.get("type") == "extension_ui_response":
                    continue
                if isinstance(value, dict) and "id" in value:
                    k = key_of(value["id"])
                    expected_by_id[k] = expected_by_id.get(k, 0) + 1
                    outstanding.add(k)
                else:
                    expected_idless += 1
            data = b"".join(f + b"\n" for f in batch)
            mark = len(pi.records)
            if rng.random() < 0.2 and len(data) > 2:  # split across writes
                cut = rng.randrange(1, len(data))
                ok = pi.try_write(data[:cut]) and pi.try_write(data[cut:])
            else:
                ok = pi.try_write(data)
            if not ok or pi.popen.poll() is not None:
                exits_midrun += 1
                break
            # Half the time a client lets its prompt's run finish before it goes on.
            prompt_ids = [
                key_of(v["id"])
                for v in map(reference, batch)
                if isinstance(v, dict) and v.get("type") == "prompt" and "id" in v
            ]
            if prompt_ids and rng.random() < settle_share:
                wait_for_run(pi, prompt_ids[-1], absorb, mark)
            # A client waits for answers now and then (a bounded window of open requests).
            deadline = time.monotonic() + 120
            while len(outstanding) > window and time.monotonic() < deadline and pi.popen.poll() is None:
                time.sleep(0.005)
                absorb()
            absorb()
            if not quiet and sent % 2000 == 0:
                print(
                    f"  {sent} records, {len(pi.records)} out, rss {pi.vm_rss_kb(default=0) // 1024} MB",
                    file=sys.stderr,
                )
        # Let the last commands finish, then EOF.
        deadline = time.monotonic() + 120
        while outstanding and time.monotonic() < deadline and pi.popen.poll() is None:
            time.sleep(0.05)
            absorb()
        alive_at_end = pi.popen.poll() is None
        peak_kb = pi.vm_hwm_kb(default=0) if alive_at_end else 0
        rc = pi.close(timeout=120)
        time.sleep(0.1)
        absorb()
    got_by_id, got_idless = _count_responses(pi.records)
    unanswered = sum(max(0, n - got_by_id.get(k, 0)) for k, n in expected_by_id.items())
    doubled = sum(max(0, n - expected_by_id.get(k, 0)) for k, n in got_by_id.items())
    files = sorted({*map(str, sessions.rglob("*.jsonl")), *map(str, (work / "cwd").glob("*.jsonl"))})
    bad_files, upstream_checked = _check_files(files, work, upstream)
    stderr = pi.stderr
    (work / "stderr.txt").write_text(stderr)
    (work / "stdout.jsonl").write_bytes(b"\n".join(pi.raw_lines))
    return {
        "records": records,
        "seconds": round(time.monotonic() - started, 1),
        "stdout_lines": len(pi.raw_lines),
        "invalid_stdout_lines": len(pi.invalid_lines),
        "process_exits_midrun": exits_midrun + (0 if alive_at_end else 1),
        "exit_code_at_eof": rc,
        "tracebacks_on_stderr": stderr.count("Traceback"),
        "ids_expected": sum(expected_by_id.values()),
        "ids_unanswered": unanswered,
        "ids_answered_twice": doubled,
        "idless_expected": expected_idless,
        "idless_got": got_idless,
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "session_files": len(files),
        "session_files_bad": bad_files,
        "session_files_upstream_checked": upstream_checked,
        "upstream_installed": upstream_argv() is not None,
        "model_requests": len(llm.requests),
        "agent_runs": sum(1 for r in pi.records if isinstance(r, dict) and r.get("type") == "agent_settled"),
        "tool_executions": sum(1 for r in pi.records if isinstance(r, dict) and r.get("type") == "tool_execution_end"),
        "compactions": sum(1 for r in pi.records if isinstance(r, dict) and r.get("type") == "compaction_end"),
    }


def ok(figures: dict[str, Any]) -> bool:
    return (
        figures["invalid_stdout_lines"] == 0
        and figures["process_exits_midrun"] == 0
        and figures["exit_code_at_eof"] == 0
        and figures["ids_unanswered"] == 0
        and figures["ids_answered_twice"] == 0
        and figures["idless_expected"] == figures["idless_got"]
        and not figures["session_files_bad"]
        and figures["tracebacks_on_stderr"] == 0
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-upstream", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pi-fuzz-"))
    try:
        figures = run(a.records, a.seed, upstream=not a.no_upstream, work=work)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(figures, indent=1))
    return 0 if ok(figures) and figures["peak_rss_mb"] < 150 else 1


if __name__ == "__main__":
    raise SystemExit(main())

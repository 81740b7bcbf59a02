"""The in-process ``pi`` (``tests.support.in_process``) answers as the real process does: the
same records in the same order, the same bytes where nothing varies between two runs, and the
environment and working directory of the test process are given back after it."""

from __future__ import annotations

import os

from tests.support.pi_process import kinds

SCRIPT = [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo hi"}}]}, {"text": "done"}]


def _session(p):
    raw = {}
    for ctype, fields in (("get_available_models", {}), ("get_commands", {}), ("nonsense", {}), ("set_model", {})):
        cmd_id = p.request(ctype, **fields)
        record = p.response(cmd_id)
        raw[ctype] = p.raw[p.index_of(record)].replace(cmd_id.encode(), b"ID")
    mark = p.mark()
    p.cmd("prompt", message="run it")
    p.settle(mark, timeout=20)
    return raw, kinds(p.since(mark))


def test_in_process_records_match_the_process(pi, pi_process):
    before_env, before_cwd = dict(os.environ), os.getcwd()
    inside = pi(script=SCRIPT)
    in_raw, in_kinds = _session(inside)
    assert inside.close() == 0
    assert dict(os.environ) == before_env and os.getcwd() == before_cwd
    outside = pi_process(script=SCRIPT)
    out_raw, out_kinds = _session(outside)
    assert outside.close() == 0
    assert in_raw == out_raw
    assert in_kinds == out_kinds and "tool_execution_end" in in_kinds

"""Extra scenarios for the upstream oracle (``../shared/oracle/run_all.py --scenarios``): runs the
recorded fixtures do not cover (queueing during and between runs, abort during a tool, model and
thinking commands with the bash command and new_session, auto-retry success and exhaustion,
manual compaction, overflow recovery, threshold compaction, new/switch session). Ours and upstream 1.6.0 compare ``same`` on all of them in signature mode,
except for the data of the ``abort`` response in ``x_abort_tool`` (ours answers ``{outcome}``, protocol/README.md §8.18):

    export PI_ORACLE_DIR=/tmp/oracle        # a writable copy of ../shared/oracle
    python3 $PI_ORACLE_DIR/run_all.py --scenarios protocol/conformance/oracle_extra_scenarios.py \
        --only x_queue,x_abort_tool,x_state,x_retry,x_compact,x_overflow,x_threshold,x_switch --out /tmp/x-up --node-dir /tmp/pi-node
    python3 $PI_ORACLE_DIR/run_all.py --scenarios protocol/conformance/oracle_extra_scenarios.py \
        --only x_queue,x_abort_tool,x_state,x_retry,x_compact,x_overflow,x_threshold,x_switch --out /tmp/x-ours \
        --cmd 'python -m pi_rpc --mode rpc --session-dir {session_dir}'
    python3 $PI_ORACLE_DIR/compare.py /tmp/x-up /tmp/x-ours
"""

import os
import sys

sys.path.insert(0, os.environ.get("PI_ORACLE_DIR", "../shared/oracle"))
from scenarios import QUERY, SETTLED, SUMMARY_RULE, P

SCENARIOS = {}
SCENARIOS["x_queue"] = {
    "doc": "steer and follow_up during a run, steer while idle, clear_queue",
    "script": [
        {"repeat": {"chunk": "slow ", "count": 20}, "delay_ms": 40},
        {"chunks": ["steered answer"]},
        {"chunks": ["follow answer"]},
        {"chunks": ["third"]},
        {"chunks": ["fourth"]},
        {"chunks": ["fifth"]},
    ],
    "steps": [
        P("p1", "start"),
        {"wait": {"type": "message_update"}, "timeout": 10},
        *QUERY("s1", "steer", message="steer me"),
        *QUERY("f1", "follow_up", message="follow me"),
        SETTLED(),
        *QUERY("st1", "get_state"),
        *QUERY("s2", "steer", message="idle steer"),
        P("p2", "after idle steer"),
        SETTLED(),
        *QUERY("f3", "follow_up", message="queued follow"),
        *QUERY("cq", "clear_queue"),
        *QUERY("st2", "get_state"),
        {"wait_quiet": 0.3},
    ],
}
SCENARIOS["x_abort_tool"] = {
    "doc": "abort while a bash tool runs",
    "script": [
        {"tool_call": {"name": "bash", "arguments": {"command": "sleep 5"}, "id": "call_s"}},
        {"chunks": ["never"]},
        {"chunks": ["after abort"]},
    ],
    "steps": [
        P("p1", "run sleep"),
        {"wait": {"type": "tool_execution_start"}, "timeout": 10},
        {"sleep": 0.3},
        *QUERY("a1", "abort"),
        *QUERY("st1", "get_state"),
        *QUERY("gm1", "get_messages"),
        {"wait_quiet": 0.3},
    ],
}
SCENARIOS["x_state"] = {
    "doc": "model and thinking commands, bash command, new_session, export",
    "script": [{"chunks": ["hi"]}],
    "steps": [
        *QUERY("sm", "set_model", provider="fake", modelId="fake-reasoner"),
        *QUERY("tl", "set_thinking_level", level="high"),
        *QUERY("ct", "cycle_thinking_level"),
        *QUERY("al", "get_available_thinking_levels"),
        *QUERY("cm", "cycle_model"),
        *QUERY("b1", "bash", command="echo out; echo err >&2; exit 2"),
        P("p1", "hello"),
        SETTLED(),
        *QUERY("ex", "export_html"),
        *QUERY("ns", "new_session"),
        *QUERY("st", "get_state"),
        *QUERY("gm", "get_messages"),
        {"wait_quiet": 0.3},
    ],
}
SCENARIOS["x_retry"] = {
    "doc": "503 then success, and retries exhausted",
    "settings": {"retry": {"baseDelayMs": 50, "maxRetries": 2}},
    "script": [
        {"error": {"status": 503, "body": {"error": {"message": "overloaded"}}}},
        {"chunks": ["recovered"]},
        {"error": {"status": 503, "body": {"error": {"message": "overloaded"}}}},
        {"error": {"status": 503, "body": {"error": {"message": "overloaded"}}}},
        {"error": {"status": 503, "body": {"error": {"message": "overloaded"}}}},
    ],
    "steps": [
        P("p1", "one"),
        SETTLED(),
        P("p2", "two"),
        SETTLED(),
        *QUERY("gm", "get_messages"),
        *QUERY("ge", "get_entries"),
        {"wait_quiet": 0.3},
    ],
}
SCENARIOS["x_compact"] = {
    "doc": "manual compaction and messages after",
    "settings": {"compaction": {"keepRecentTokens": 10}},
    "script": {
        "turns": [{"chunks": ["answer one " * 10]}, {"chunks": ["answer two " * 10]}, {"chunks": ["after"]}],
        "rules": [SUMMARY_RULE],
    },
    "steps": [
        P("p1", "one"),
        SETTLED(),
        P("p2", "two"),
        SETTLED(),
        *QUERY("c1", "compact"),
        *QUERY("gm", "get_messages"),
        *QUERY("ss", "get_session_stats"),
        P("p3", "three"),
        SETTLED(),
        *QUERY("c2", "compact"),
        {"wait_quiet": 0.3},
    ],
}
SCENARIOS["x_overflow"] = {
    "doc": "context overflow error -> compaction -> retry",
    "settings": {"compaction": {"keepRecentTokens": 10}},
    "script": {
        "turns": [
            {"chunks": ["answer one " * 10]},
            {
                "error": {
                    "status": 400,
                    "body": {
                        "error": {
                            "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
                            "type": "invalid_request_error",
                            "code": "context_length_exceeded",
                        }
                    },
                }
            },
            {"chunks": ["after recovery"]},
        ],
        "rules": [SUMMARY_RULE],
    },
    "steps": [
        P("p1", "one"),
        SETTLED(),
        P("p2", "two"),
        SETTLED(),
        *QUERY("gm", "get_messages"),
        *QUERY("ge", "get_entries"),
        {"wait_quiet": 0.3},
    ],
}
SCENARIOS["x_threshold"] = {
    "doc": "usage above contextWindow - reserveTokens -> threshold compaction after the run",
    "settings": {"compaction": {"keepRecentTokens": 10, "reserveTokens": 16384}},
    "script": {
        "turns": [
            {"chunks": ["answer one " * 10]},
            {"chunks": ["big"], "usage": {"prompt_tokens": 120000, "completion_tokens": 10, "total_tokens": 120010}},
            {"chunks": ["after"]},
        ],
        "rules": [SUMMARY_RULE],
    },
    "steps": [
        P("p1", "one"),
        SETTLED(),
        P("p2", "two"),
        SETTLED(),
        *QUERY("ss", "get_session_stats"),
        P("p3", "three"),
        SETTLED(),
        {"wait_quiet": 0.3},
    ],
}
SCENARIOS["x_switch"] = {
    "doc": "new_session, switch back, fork at, get_tree",
    "script": [{"chunks": ["A1"]}, {"chunks": ["B1"]}, {"chunks": ["A2"]}],
    "steps": [
        P("p1", "in A"),
        SETTLED(),
        *QUERY("s1", "get_state"),
        *QUERY("n1", "new_session"),
        P("p2", "in B"),
        SETTLED(),
        *QUERY("sw", "switch_session", sessionPath="${resp:s1:data.sessionFile}"),
        *QUERY("gm", "get_messages"),
        P("p3", "back in A"),
        SETTLED(),
        *QUERY("gt", "get_tree"),
        *QUERY("ss", "get_session_stats"),
        {"wait_quiet": 0.3},
    ],
}

"""State, model, thinking, settings and query commands (reference §2.7–§2.23, §2.30–§2.33;
upstream transcripts a_queries, b_text, g_bad_input)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.pi_process import kinds

STATE_KEYS = [
    "model",
    "thinkingLevel",
    "isStreaming",
    "isCompacting",
    "steeringMode",
    "followUpMode",
    "sessionFile",
    "sessionId",
    "autoCompactionEnabled",
    "messageCount",
    "pendingMessageCount",
]
MODEL_KEYS = ["id", "name", "api", "provider", "baseUrl", "reasoning", "input", "cost", "contextWindow", "maxTokens"]


def test_fresh_session_queries_like_a_queries(pi):
    p = pi()
    state = p.ok("get_state")
    assert list(state) == STATE_KEYS  # no sessionName while unset
    assert list(state["model"])[:10] == MODEL_KEYS
    assert (state["model"]["provider"], state["model"]["id"]) == ("faux", "faux-1")
    assert state["thinkingLevel"] == "off" and state["isStreaming"] is False
    assert state["steeringMode"] == state["followUpMode"] == "one-at-a-time"
    assert state["messageCount"] == 0 and state["pendingMessageCount"] == 0
    assert state["autoCompactionEnabled"] is True
    assert re.fullmatch(r"[0-9a-f-]{36}", state["sessionId"])
    assert not Path(state["sessionFile"]).exists()
    assert p.ok("get_messages") == {"messages": []}
    assert p.ok("get_last_assistant_text") == {}
    assert p.ok("get_fork_messages") == {"messages": []}
    assert p.ok("get_available_thinking_levels") == {"levels": ["off"]}
    stats = p.ok("get_session_stats")
    assert stats == {
        "sessionFile": state["sessionFile"],
        "sessionId": state["sessionId"],
        "userMessages": 0,
        "assistantMessages": 0,
        "toolCalls": 0,
        "toolResults": 0,
        "totalMessages": 0,
        "tokens": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        "cost": 0,
        "contextUsage": {"tokens": 0, "contextWindow": 128000, "percent": 0},
    }
    assert list(stats) == list(stats)  # key order checked by the literal above only as a set; check order:
    assert list(stats) == [
        "sessionFile",
        "sessionId",
        "userMessages",
        "assistantMessages",
        "toolCalls",
        "toolResults",
        "totalMessages",
        "tokens",
        "cost",
        "contextUsage",
    ]
    entries = p.ok("get_entries")
    assert [e["type"] for e in entries["entries"]] == ["model_change", "thinking_level_change"]
    assert entries["entries"][0]["provider"] == "faux" and entries["entries"][0]["modelId"] == "faux-1"
    assert entries["leafId"] == entries["entries"][1]["id"]
    tree = p.ok("get_tree")
    assert tree["tree"][0]["entry"] == entries["entries"][0]
    assert tree["tree"][0]["children"][0] == {"entry": entries["entries"][1], "children": []}
    models = p.ok("get_available_models")["models"]
    assert ("faux", "faux-1") in [(m["provider"], m["id"]) for m in models]
    r = p.cmd("export_html")
    assert r["success"] is False and r["error"] == "Nothing to export yet - start a conversation first"


def test_stats_and_state_after_a_prompt(pi):
    p = pi(script=[{"text": "Hello, world!", "usage": {"input": 100, "output": 4}}])
    p.cmd("prompt", message="Say hello")
    p.settle()
    state = p.ok("get_state")
    assert state["messageCount"] == 3
    stats = p.ok("get_session_stats")
    assert stats["userMessages"] == 1 and stats["assistantMessages"] == 1 and stats["totalMessages"] == 3
    assert stats["tokens"] == {"input": 100, "output": 4, "cacheRead": 0, "cacheWrite": 0, "total": 104}
    assert stats["contextUsage"] == {"tokens": 104, "contextWindow": 128000, "percent": 104 / 128000 * 100}


def test_set_model_and_cycle_model(pi):
    p = pi(settings={"defaultThinkingLevel": "high"})
    r = p.cmd("set_model", provider="nope", modelId="nope")
    assert r["success"] is False and r["error"] == "Model not found: nope/nope"
    assert p.ok("get_state")["thinkingLevel"] == "off"  # faux-1 is not a reasoning model
    mark = p.mark()
    sm = p.cmd("set_model", provider="faux", modelId="faux-reasoner")
    assert sm["data"]["id"] == "faux-reasoner" and list(sm["data"])[:10] == MODEL_KEYS
    assert kinds(p.since(mark)) == ["thinking_level_changed", f"response:{sm['id']}"]
    assert p.records[mark] == {"type": "thinking_level_changed", "level": "high"}
    assert p.ok("get_state")["thinkingLevel"] == "high"
    entries = [e for e in p.ok("get_entries")["entries"]]
    assert [e["type"] for e in entries][-2:] == ["model_change", "thinking_level_change"]
    assert entries[-2]["modelId"] == "faux-reasoner" and entries[-1]["thinkingLevel"] == "high"
    # cycle_model over the available models wraps to faux-1 (and clamps thinking to off)
    models = [m["id"] for m in p.ok("get_available_models")["models"]]
    cm = p.ok("cycle_model")
    expected = models[(models.index("faux-reasoner") + 1) % len(models)]
    assert cm["model"]["id"] == expected and cm["isScoped"] is False
    assert set(cm) == {"model", "thinkingLevel", "isScoped"}
    # model changes are not persisted to settings
    settings = json.loads((p.agent_dir / "settings.json").read_text())
    assert settings == {"defaultThinkingLevel": "high"}


def test_cycle_model_null_with_single_scoped_model(pi):
    p = pi(args=("--models", "faux-1"))
    r = p.cmd("cycle_model")
    assert r["success"] is True and "data" in r and r["data"] is None


def test_thinking_levels(pi):
    p = pi()
    r = p.cmd("cycle_thinking_level")
    assert r["success"] is True and r["data"] is None  # faux-1 has reasoning:false
    p.ok("set_model", provider="faux", modelId="faux-reasoner")
    levels = p.ok("get_available_thinking_levels")["levels"]
    assert levels == ["off", "minimal", "low", "medium", "high"]
    mark = p.mark()
    st = p.cmd("set_thinking_level", level="xhigh")
    assert "data" not in st
    assert p.since(mark) == [{"type": "thinking_level_changed", "level": "high"}, st]
    mark = p.mark()
    again = p.cmd("set_thinking_level", level="high")
    assert p.since(mark) == [again]  # same effective level: no event
    mark = p.mark()
    # Deliberate difference (protocol/README.md): an unknown level is refused, not clamped.
    bad = p.cmd("set_thinking_level", level="bogus")
    assert bad["success"] is False
    assert bad["error"] == 'Invalid thinking level "bogus". Valid values: off, minimal, low, medium, high, xhigh, max'
    assert p.since(mark) == [bad]
    p.ok("set_thinking_level", level="off")
    cyc = p.cmd("cycle_thinking_level")
    assert cyc["data"] == {"level": "minimal"}
    assert p.records[-2] == {"type": "thinking_level_changed", "level": "minimal"}
    assert p.ok("get_state")["thinkingLevel"] == "minimal"
    changes = [e["thinkingLevel"] for e in p.ok("get_entries")["entries"] if e["type"] == "thinking_level_change"]
    assert changes[-3:] == ["high", "off", "minimal"]
    assert not (p.agent_dir / "settings.json").exists() or "defaultThinkingLevel" not in json.loads(
        (p.agent_dir / "settings.json").read_text()
    )


def test_setters_persist_to_global_settings(pi):
    p = pi(settings={"theme": "dark"})
    p.ok("set_steering_mode", mode="all")
    p.ok("set_follow_up_mode", mode="all")
    p.ok("set_auto_compaction", enabled=False)
    p.ok("set_auto_retry", enabled=False)
    settings = json.loads((p.agent_dir / "settings.json").read_text())
    assert settings == {
        "theme": "dark",
        "steeringMode": "all",
        "followUpMode": "all",
        "compaction": {"enabled": False},
        "retry": {"enabled": False},
    }
    state = p.ok("get_state")
    assert state["steeringMode"] == "all" and state["followUpMode"] == "all"
    assert state["autoCompactionEnabled"] is False
    # Deliberate difference: an invalid mode is refused and nothing is stored.
    bad = p.cmd("set_steering_mode", mode="bogus")
    assert bad["success"] is False and bad["error"] == 'Invalid steering mode "bogus". Valid values: all, one-at-a-time'
    bad = p.cmd("set_follow_up_mode", mode="sometimes")
    assert bad["success"] is False and bad["error"].startswith('Invalid follow-up mode "sometimes"')
    assert json.loads((p.agent_dir / "settings.json").read_text())["steeringMode"] == "all"
    assert json.loads((p.agent_dir / "settings.json").read_text())["followUpMode"] == "all"


def test_steering_mode_all_delivers_together(pi):
    p = pi(script=[{"text": "slow reply " * 2, "delayMs": 60, "chunkChars": 2}, {"text": "both"}])
    p.ok("set_steering_mode", mode="all")
    p.cmd("prompt", message="start")
    p.wait_for(lambda r: r["type"] == "message_update")
    p.ok("steer", message="s1")
    p.ok("steer", message="s2")
    p.settle()
    seq = kinds(p.records)
    assert seq.count("turn_start") == 2
    i = [k for k, v in enumerate(seq) if v == "turn_start"][1]
    # one queue_update right before each delivered user message
    assert seq[i : i + 7] == [
        "turn_start",
        "queue_update",
        "message_start:user",
        "message_end:user",
        "queue_update",
        "message_start:user",
        "message_end:user",
    ]
    users = [
        r["message"]["content"][0]["text"]
        for r in p.records
        if r["type"] == "message_end" and r["message"]["role"] == "user"
    ]
    assert users == ["start", "s1", "s2"]
    assert [r for r in p.records if r["type"] == "queue_update"][-1] == {
        "type": "queue_update",
        "steering": [],
        "followUp": [],
    }


def test_session_name(pi):
    p = pi()
    mark = p.mark()
    r = p.cmd("set_session_name", name="  My\nSession  ")
    assert p.since(mark) == [{"type": "session_info_changed", "name": "My Session"}, r]
    assert "data" not in r
    assert p.ok("get_state")["sessionName"] == "My Session"
    r = p.cmd("set_session_name", name="   ")
    assert r["success"] is False and r["error"] == "Session name cannot be empty"
    info = [e for e in p.ok("get_entries")["entries"] if e["type"] == "session_info"]
    assert [e["name"] for e in info] == ["My Session"]


def test_export_html(pi):
    p = pi(script=[{"text": "Exported <answer> & more"}])
    p.cmd("prompt", message="hello <b>world</b>")
    p.settle()
    state = p.ok("get_state")
    data = p.ok("export_html")
    expected = f"pi-session-{Path(state['sessionFile']).stem}.html"
    assert data == {"path": expected}
    html = (p.cwd / expected).read_text()
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "Exported &lt;answer&gt; &amp; more" in html
    assert "hello &lt;b&gt;world&lt;/b&gt;" in html
    # self-contained: no external scripts or stylesheets
    assert not re.search(r'<(script|link)[^>]+(src|href)="(https?:)?//', html)
    out = p.cwd / "sub" / "x.html"
    out.parent.mkdir()
    assert p.ok("export_html", outputPath=str(out)) == {"path": str(out)}
    assert out.read_text() == html or out.stat().st_size > 0


def test_prompt_with_images_stores_content_array(pi):
    p = pi(script=[{"text": "I see it"}])
    png_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    image = {"type": "image", "data": png_1x1, "mimeType": "image/png"}
    p.cmd("prompt", message="look", images=[image])
    p.settle()
    user = [m for m in p.ok("get_messages")["messages"] if m["role"] == "user"][0]
    assert user["content"][0] == {"type": "text", "text": "look"}
    assert user["content"][1] == image  # a small decodable image goes through normalization unchanged


def test_model_without_key_is_not_available_and_prompt_fails_preflight(pi):
    models = {
        "providers": {
            "keyless": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "models": [{"id": "m1", "name": "M1", "contextWindow": 1000, "maxTokens": 100}],
            }
        }
    }
    p = pi(models=models, args=("--model", "keyless/m1"))
    assert p.ok("get_state")["model"]["id"] == "m1"
    assert "keyless" not in [m["provider"] for m in p.ok("get_available_models")["models"]]
    r = p.cmd("set_model", provider="keyless", modelId="m1")
    assert r["success"] is False and r["error"] == "Model not found: keyless/m1"
    r = p.cmd("prompt", message="hi")
    assert r["success"] is False and r["error"].startswith("No API key found for keyless.")
    assert not [x for x in p.records if x.get("type") == "agent_start"]
    assert p.ok("get_state")["isStreaming"] is False


def test_name_flag_sets_session_name(pi):
    p = pi(args=("--name", "Started named"))
    assert p.ok("get_state")["sessionName"] == "Started named"


def test_opted_in_faux_is_the_default_without_a_warning(pi):
    # (Nothing configured at all: tests/runtime/test_model_opt_in.py.)
    p = pi()
    state = p.ok("get_state")
    assert (state["model"]["provider"], state["model"]["id"]) == ("faux", "faux-1")
    p.close()
    assert "No models available" not in p.stderr

"""``before_agent_start`` handlers edit ``systemPromptOptions`` in place, as upstream: later
handlers see the edits, ``event["systemPrompt"]`` and ``ctx.get_system_prompt()`` render them,
an edited ``selectedTools`` becomes the active tools, edited guidelines and sections reach the
request's prompt (and last for that run only), ``forceSystemPrompt`` or a returned
``systemPrompt`` is sent instead of the prompt. Checked against upstream pi 1.6 running the
TypeScript original when it is installed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .ext_upstream import OURS, UPSTREAM, UPSTREAM_AVAILABLE, drive

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "extensions"
STEPS = [
    {"cmd": {"id": "o", "type": "prompt", "message": "/opts"}},
    *(
        {"cmd": {"id": f"p{i}", "type": "prompt", "message": m}, "wait": "agent_settled"}
        for i, m in enumerate(["edit", "plain", "force", "ret"])
    ),
]
SCRIPT = [{"text": "a"}, {"text": "b"}, {"text": "c"}, {"text": "d"}]


def _prompt_facts(body: dict[str, Any]) -> dict[str, Any]:
    system = [m for m in body["messages"] if m["role"] in ("system", "developer")]
    text = "\n".join(m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]) for m in system)
    return {
        "forced": text == "FORCED PROMPT",
        "mode_section": "<mode>\nplan\n</mode>" in text,
        "french_rule": "- Always answer in French." in text,
        "extra_listed": "- extra: Does extra things" in text,
        "extra_line": text.endswith("EXTRA LINE"),
        "tools": [t["function"]["name"] for t in body.get("tools") or []],
    }


def test_system_prompt_options_are_edited_in_place(tmp_path: Path) -> None:
    ext = FIXTURES / "prompt_options.py"
    run = drive(OURS, tmp_path / "ours", SCRIPT, STEPS, args=("-e", str(ext)))
    ui = run.ui()
    keys = "appendSystemPrompt,contextFiles,customPrompt,cwd,forceSystemPrompt,hiddenTools,promptGuidelines,sections,selectedTools,skills,toolGuidelines,toolSnippets"
    assert ui[0] == f"opts keys={keys} sel=read/bash/edit/write sec= pg=0"
    assert ui[1] == (
        f"h1 edit keys={keys} sel=read/bash/edit/write hid= snip=bash,codemode,edit,extra,find,grep,ls,read,tool_search,write "
        'tg=bash,codemode,edit,extra,read,write pg=0 sec= force=undefined app="" skills=0 cf=0 cp=undef'
    )
    assert ui[2] == "h1 after: sp-has-mode=true ctx-has-french=true extra-listed=true extra-rule=true"
    assert (
        ui[3]
        == "h2 edit sel=read/bash/extra pg=Always answer in French. sec=mode force=undefined sp-forced=false sp-extra=false"
    )
    assert ui[4] == "start edit active=read/bash/extra sp-mode=true sp-forced=false"
    assert "start force active=read/bash/extra sp-mode=false sp-forced=true" in ui
    facts = [_prompt_facts(body) for body in run.bodies]
    tools = ["read", "bash", "extra"]
    assert facts == [
        {
            "forced": False,
            "mode_section": True,
            "french_rule": True,
            "extra_listed": True,
            "extra_line": False,
            "tools": tools,
        },
        # Sections and guidelines last one run; the selected tools stay active.
        {
            "forced": False,
            "mode_section": False,
            "french_rule": False,
            "extra_listed": True,
            "extra_line": False,
            "tools": tools,
        },
        {
            "forced": True,
            "mode_section": False,
            "french_rule": False,
            "extra_listed": False,
            "extra_line": False,
            "tools": tools,
        },
        {
            "forced": False,
            "mode_section": False,
            "french_rule": False,
            "extra_listed": True,
            "extra_line": True,
            "tools": tools,
        },
    ]
    if not UPSTREAM_AVAILABLE:
        return
    up = drive(UPSTREAM, tmp_path / "up", SCRIPT, STEPS, args=("-e", str(FIXTURES / "prompt_options.ts")))
    upstream_ui = up.ui()
    # The first run is the same line for line (upstream also has a powershell tool).
    assert [line.replace("powershell,", "") for line in upstream_ui[:5]] == ui[:5]
    # After an edit of selectedTools upstream's handlers keep seeing the old base tool list
    # (protocol/README §8.13); the prompts sent are the same apart from that rendering.
    up_facts = [_prompt_facts(body) for body in up.bodies]
    assert up_facts[:3] == facts[:3]
    assert {**up_facts[3], "extra_listed": True} == facts[3]

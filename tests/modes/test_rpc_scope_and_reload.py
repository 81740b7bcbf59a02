"""``get_scoped_models``, ``set_scoped_models`` and ``reload`` (protocol/README §11.15) against
the real ``pi --mode rpc`` process, talking bytes: the scope set over the wire is the one
``cycle_model`` goes through and "save" writes settings.json's ``enabledModels``; ``reload``
finds a prompt template and an extension written after startup; bad input and a reload during
a run get a clear ``success: false`` and the process keeps serving."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.support.pi_process import PiProcess

Start = Callable[..., PiProcess]


def _settings(p: PiProcess) -> dict[str, object]:
    path = p.agent_dir / "settings.json"
    return json.loads(path.read_text()) if path.exists() else {}


def test_set_scoped_models_is_the_scope_cycle_model_goes_through(pi: Start) -> None:
    p = pi()
    assert p.ok("get_scoped_models") == {"models": []}
    assert p.ok("get_state")["model"]["id"] == "faux-1"
    # Any order in, the available models' order out (as the interactive picker keeps it).
    both = p.ok("set_scoped_models", models=["faux/faux-reasoner", "faux/faux-1"])
    assert both == {"models": ["faux/faux-1", "faux/faux-reasoner"]}
    only = p.ok("set_scoped_models", models=["faux/faux-reasoner"])
    assert only == {"models": ["faux/faux-reasoner"]}
    assert p.ok("get_scoped_models") == only
    assert "enabledModels" not in _settings(p)  # not saved unless asked
    cycled = p.ok("cycle_model")
    assert cycled["model"]["id"] == "faux-reasoner" and cycled["isScoped"] is True
    # save: settings.json's enabledModels, as /scoped-models' "Save"; an empty scope clears it.
    assert p.ok("set_scoped_models", models=["faux/faux-1"], save=True) == {"models": ["faux/faux-1"]}
    assert _settings(p)["enabledModels"] == ["faux/faux-1"]
    assert p.ok("set_scoped_models", models=[], save=True) == {"models": []}
    assert "enabledModels" not in _settings(p)
    assert p.ok("cycle_model")["isScoped"] is False
    assert p.close() == 0


def test_set_scoped_models_refuses_bad_input_and_keeps_the_scope(pi: Start) -> None:
    p = pi()
    p.ok("set_scoped_models", models=["faux/faux-1"])
    unknown = p.cmd("set_scoped_models", models=["faux/faux-1", "nope/x", "faux"])
    assert unknown["success"] is False
    assert unknown["error"] == (
        'Unknown or unavailable models "nope/x", "faux": expected "provider/id" keys of get_available_models'
    )
    not_a_list = p.cmd("set_scoped_models", models="faux/faux-1")
    assert not_a_list["error"] == 'Invalid command "set_scoped_models": field "models": expected array, got string'
    missing = p.cmd("set_scoped_models")
    assert missing["success"] is False and 'field "models"' in missing["error"]
    bad_save = p.cmd("set_scoped_models", models=[], save="yes")
    assert bad_save["error"] == 'Invalid command "set_scoped_models": field "save": expected boolean, got string'
    not_strings = p.cmd("set_scoped_models", models=[1])
    assert not_strings["success"] is False and 'field "models' in not_strings["error"]
    assert p.ok("get_scoped_models") == {"models": ["faux/faux-1"]}  # nothing changed
    assert p.close() == 0
    assert "Traceback" not in p.stderr


def test_reload_finds_what_was_written_after_startup(pi: Start) -> None:
    p = pi()
    names = [c["name"] for c in p.ok("get_commands")["commands"]]
    assert "hello" not in names
    prompts = p.agent_dir / "prompts"
    prompts.mkdir(parents=True, exist_ok=True)
    (prompts / "hello.md").write_text("---\ndescription: say hi\n---\nSay hi to $1\n")
    extensions = p.agent_dir / "extensions"
    extensions.mkdir(parents=True, exist_ok=True)
    later = extensions / "later.py"
    later.write_text("def setup(pi):\n    pass\n")
    data = p.ok("reload")
    # The session started without extensions: the new one is named, it loads at the next start.
    assert data == {"warnings": [f"Extensions found since startup load when pi starts again: {later}"]}
    commands = {c["name"]: c for c in p.ok("get_commands")["commands"]}
    assert commands["hello"]["description"] == "say hi"
    assert p.ok("reload") == data  # again: the same answer, nothing doubled
    assert [c["name"] for c in p.ok("get_commands")["commands"]].count("hello") == 1
    assert p.close() == 0


def test_reload_is_refused_during_a_run(pi: Start, tmp_path: Path) -> None:
    p = pi(script=[{"text": "slow " * 200, "delayMs": 30}])
    mark = p.mark()
    p.cmd("prompt", message="long one")
    p.wait_for(lambda r: r.get("type") == "message_update", start=mark, timeout=20)
    busy = p.cmd("reload")
    assert busy["success"] is False
    assert busy["error"] == "Wait for the current response to finish before reloading."
    p.cmd("abort", timeout=20)
    p.settle(mark, timeout=20)
    assert p.ok("reload") == {"warnings": []}
    assert p.close() == 0


EXT = """
def setup(pi):
    async def run(args, ctx):
        ctx.ui.notify("ran")
    pi.register_command("NAME", {"description": "a command", "handler": run})

    async def on_shutdown(event, ctx):
        with open(LOG, "a") as log:
            log.write("shutdown " + event["reason"] + "\\n")

    async def on_start(event, ctx):
        with open(LOG, "a") as log:
            log.write("start " + event["reason"] + "\\n")

    pi.on("session_shutdown", on_shutdown)
    pi.on("session_start", on_start)
"""


def test_reload_runs_an_edited_extension_again(pi: Start, tmp_path: Path) -> None:
    log = tmp_path / "ext.log"

    def source(name: str) -> str:
        return f"LOG = {str(log)!r}\n" + EXT.replace("NAME", name)

    p = pi(files={"agent/extensions/ext.py": source("before_reload")})
    names = [c["name"] for c in p.ok("get_commands")["commands"]]
    assert "before_reload" in names
    (p.agent_dir / "extensions" / "ext.py").write_text(source("after_reload"))
    assert p.ok("reload") == {"warnings": []}
    names = [c["name"] for c in p.ok("get_commands")["commands"]]
    assert "after_reload" in names and "before_reload" not in names
    lines = log.read_text().splitlines()
    assert lines[0] == "start startup" and lines[-2:] == ["shutdown reload", "start reload"]
    assert p.close() == 0

"""What command handlers can do with their ctx and pi: new_session / fork with with_session,
navigate_tree with the tree hooks, reload (setup runs again on freshly imported modules),
pi.exec, flags from the command line, wait_for_idle and providers registered at run time."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.pi_process import kinds

CTX = textwrap.dedent(
    """
    import json, os
    LOG = os.path.join(os.path.dirname(__file__), "ctx.log")
    IMPORTS = os.path.join(os.path.dirname(__file__), "imports.log")
    with open(IMPORTS, "a") as fh:  # module code runs once per import
        fh.write("imported\\n")

    def log(**fields):
        with open(LOG, "a") as fh:
            fh.write(json.dumps(fields) + "\\n")

    def setup(pi):
        pi.register_flag("plan", {"type": "boolean", "default": False, "description": "plan mode"})
        pi.register_flag("label", {"type": "string", "default": "none"})
        with open(IMPORTS) as fh:
            imports = len(fh.readlines())
        log(event="setup", imports=imports, plan=pi.get_flag("plan"), label=pi.get_flag("label"))

        @pi.on("session_start")
        def started(event, ctx):
            log(event="session_start", reason=event["reason"], plan=pi.get_flag("plan"))

        @pi.on("session_before_tree")
        def before_tree(event, ctx):
            prep = event["preparation"]
            log(event="session_before_tree", target=prep["targetId"], summary=prep["userWantsSummary"])
            if prep["label"] == "refuse":
                return {"cancel": True}
            return {"summary": {"summary": "EXTENSION BRANCH SUMMARY", "details": {"by": "ext"}}}

        @pi.on("session_tree")
        def tree(event, ctx):
            log(event="session_tree", fromExtension=event["fromExtension"], summary=(event["summaryEntry"] or {}).get("summary"))

        async def run(args, ctx):
            if args == "exec":
                result = await pi.exec("sh", ["-c", "echo out; echo err >&2; exit 3"])
                killed = await pi.exec("sleep", ["5"], {"timeout": 100})
                missing = await pi.exec("no-such-program-xyz", [])
                log(event="exec", result=result, killed=[killed["killed"], killed["code"]], missing=missing["code"])
            elif args == "new":
                async def after(new_ctx):
                    log(event="with_session", file=new_ctx.session_manager.get_session_file(), leaf=new_ctx.session_manager.get_leaf_id())
                    await new_ctx.send_user_message("hello from the new session")
                result = await ctx.new_session({"with_session": after})
                log(event="new_session", result=result)
                try:
                    ctx.session_manager
                except RuntimeError as exc:
                    log(event="stale", message=str(exc)[:40])
            elif args.startswith("tree "):
                _, target, label = args.split(" ")
                result = await ctx.navigate_tree(target, {"summarize": True, "label": label})
                log(event="navigate", result=result)
            elif args == "reload":
                await ctx.reload()
            elif args == "provider":
                pi.register_provider("ext-local", {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
                                                   "apiKey": "k", "models": [{"id": "ext-model"}]})
                await ctx.wait_for_idle()
                log(event="provider", found=ctx.model_registry.find("ext-local", "ext-model") is not None)
        pi.register_command("run", {"handler": run})
    """
)


def _log(proc) -> list[dict]:
    return [json.loads(line) for line in (proc.root / "ext" / "ctx.log").read_text().splitlines()]


def test_flags_exec_and_providers(pi) -> None:
    proc = pi(files={"ext/ctx.py": CTX}, args=("-e", "../ext/ctx.py", "--plan", "--label", "blue"))
    proc.ok("prompt", message="/run exec")
    proc.ok("prompt", message="/run provider")
    log = _log(proc)
    assert log[0] == {"event": "setup", "imports": 1, "plan": False, "label": "none"}  # defaults while loading
    assert log[1] == {"event": "session_start", "reason": "startup", "plan": True}
    exec_entry = next(e for e in log if e["event"] == "exec")
    assert exec_entry["result"] == {
        "stdout": "out\n",
        "stderr": "err\n",
        "code": 3,
        "killed": False,
        "truncated": False,
    }
    assert exec_entry["killed"] == [True, 143] and exec_entry["missing"] == 1
    assert next(e for e in log if e["event"] == "provider")["found"] is True
    assert any(m["provider"] == "ext-local" for m in proc.ok("get_available_models")["models"])


def test_new_session_with_session_and_staleness(pi) -> None:
    proc = pi(files={"ext/ctx.py": CTX}, args=("-e", "../ext/ctx.py"), script=[{"text": "hi"}])
    proc.ok("prompt", message="/run new")
    proc.wait_for("agent_settled")
    log = _log(proc)
    events = [e["event"] for e in log]
    assert events == ["setup", "session_start", "setup", "session_start", "with_session", "new_session", "stale"]
    assert log[3]["reason"] == "new" and log[2]["imports"] == 1  # same module, setup again
    assert log[5]["result"] == {"cancelled": False}
    assert log[6]["message"].startswith("This extension ctx is stale")
    user = [r for r in proc.records if r.get("type") == "message_end" and r["message"]["role"] == "user"][0]
    assert user["message"]["content"] == [{"type": "text", "text": "hello from the new session"}]


def test_navigate_tree_with_extension_summary_and_cancel(pi) -> None:
    proc = pi(files={"ext/ctx.py": CTX}, args=("-e", "../ext/ctx.py"), script=[{"text": "one"}, {"text": "two"}])
    for text in ("first", "second"):
        start = proc.mark()
        proc.ok("prompt", message=text)
        proc.settle(start)
    first_user = proc.ok("get_fork_messages")["messages"][0]["entryId"]
    proc.ok("prompt", message=f"/run tree {first_user} refuse")
    proc.ok("prompt", message=f"/run tree {first_user} keep")
    log = _log(proc)
    navigations = [e for e in log if e["event"] == "navigate"]
    assert navigations[0]["result"] == {"cancelled": True}
    assert navigations[1]["result"] == {"cancelled": False}
    assert next(e for e in log if e["event"] == "session_tree") == {
        "event": "session_tree",
        "fromExtension": True,
        "summary": "EXTENSION BRANCH SUMMARY",
    }
    entries = proc.ok("get_entries")["entries"]
    summary = next(e for e in entries if e["type"] == "branch_summary")
    assert summary["summary"] == "EXTENSION BRANCH SUMMARY" and summary["fromHook"] is True


def test_reload_imports_again_and_runs_setup(pi) -> None:
    proc = pi(files={"ext/ctx.py": CTX}, args=("-e", "../ext/ctx.py"))
    start = proc.mark()
    assert proc.ok("prompt", message="/run reload")["disposition"] == "handled"
    assert kinds(proc.since(start)) == ["response:prompt-1"]
    log = _log(proc)
    assert [(e["event"], e.get("reason"), e.get("imports")) for e in log] == [
        ("setup", None, 1),
        ("session_start", "startup", None),
        ("setup", None, 2),
        ("session_start", "reload", None),
    ]


FLAGS = textwrap.dedent(
    """
    def setup(pi):
        pi.register_flag("plan", {"description": "Start in plan mode", "type": "boolean", "default": False})
        pi.register_flag("level", {"description": "Level name", "type": "string", "default": "x"})
        pi.register_flag("quiet", {"type": "boolean"})
    """
)


def _pi(args: list[str], tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_rpc", *args],
        input='{"id":"s","type":"get_state"}\n',
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )


def test_help_lists_extension_flags_as_upstream(tmp_path: Path, pi_environ) -> None:
    ext = tmp_path / "flags.py"
    ext.write_text(FLAGS)
    env = pi_environ()
    plain = _pi(["--help"], tmp_path, env)
    assert plain.returncode == 0 and "Extension CLI Flags" not in plain.stdout
    listed = _pi(["--help", "-e", str(ext)], tmp_path, env)
    assert listed.returncode == 0
    # Upstream 1.6.0's layout: name (with <value> for string flags) padded to 30 columns, then
    # the description or "Registered by <path>".
    assert (
        "Extension CLI Flags:\n"
        "  --plan                      Start in plan mode\n"
        "  --level <value>             Level name\n"
        f"  --quiet                     Registered by {ext}\n\n"
    ) in listed.stdout
    # Discovered extensions count too; one that fails to load is reported and help still works.
    agent_ext = Path(env["PI_CODING_AGENT_DIR"]) / "extensions"
    agent_ext.mkdir(parents=True)
    (agent_ext / "broken.py").write_text("def setup(pi):\n    raise RuntimeError('boom')\n")
    (agent_ext / "flags.py").write_text(FLAGS)
    discovered = _pi(["--help"], tmp_path, env)
    assert discovered.returncode == 0 and "  --plan                      Start in plan mode" in discovered.stdout
    assert "Failed to load extension: boom" in discovered.stderr


def test_unknown_flags_are_refused_as_upstream(tmp_path: Path, pi_environ) -> None:
    ext = tmp_path / "flags.py"
    ext.write_text(FLAGS)
    env = pi_environ()
    for args, error in (
        (["--frob"], "Error: Unknown option: --frob"),
        (["--frob=1", "--blah", "x", "--frob"], "Error: Unknown options: --frob, --blah"),
        (["-e", str(ext), "--plan", "--frob"], "Error: Unknown option: --frob"),
        (["-e", str(ext), "--level"], 'Error: Extension flag "--level" requires a value'),
    ):
        for mode in (["--mode", "rpc"], ["-p", "hi"]):
            run = _pi([*mode, "--no-session", *args], tmp_path, env)
            assert run.returncode == 1, (args, run.stderr)
            assert run.stdout == "" and error in run.stderr.splitlines(), (args, run.stderr)
    ok = _pi(["--mode", "rpc", "--no-session", "-e", str(ext), "--plan", "--level", "L"], tmp_path, env)
    assert ok.returncode == 0 and '"id":"s"' in ok.stdout

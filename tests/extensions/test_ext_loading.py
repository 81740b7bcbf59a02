"""Loading extensions: discovery order and places, failures at startup (exit 1, the file and
the cause named, how to start without extensions) and on re-creation (stderr, the others keep
working), setup running again for a replaced session, and zero cost without extensions."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from .ext_support import FIXTURES, stderr_contains
from .ts_support import node_available, node_modules_env

RECORDER = textwrap.dedent(
    """
    import json, os

    def setup(pi):
        log = os.path.join(os.path.dirname(__file__), "events.log")

        def record(name):
            def handler(event, ctx):
                with open(log, "a") as fh:
                    fh.write(json.dumps({"ext": NAME, "event": name,
                                         "reason": event.get("reason")}) + "\\n")
            return handler

        for name in ("session_start", "session_shutdown"):
            pi.on(name, record(name))
        pi.register_command(NAME, {"description": "from " + NAME, "handler": lambda args, ctx: None})
    """
)


def recorder(name: str) -> str:
    return f"NAME = {name!r}\n" + RECORDER


def test_discovery_order_and_places(pi) -> None:
    proc = pi(
        files={
            "agent/extensions/user_ext.py": recorder("user"),
            "agent/extensions/_helper.py": "raise RuntimeError('helpers are not extensions')\n",
            "agent/extensions/pkg/__init__.py": "from .impl import setup\n",
            "agent/extensions/pkg/impl.py": recorder("pkg"),
            # upstream's TypeScript extensions take their place in the same ordered list
            "agent/extensions/legacy.ts": (
                'export default function (pi) { pi.registerCommand("ts", { description: "from ts", handler: () => {} }); }\n'
            ),
            "cwd/.pi/extensions/project_ext.py": recorder("project"),
            "elsewhere/cli_ext.py": recorder("cli"),
            "agent/settings.json": json.dumps({"extensions": ["../elsewhere/from_settings.py"]}),
            "elsewhere/from_settings.py": recorder("settings"),
        },
        args=("-e", "../elsewhere/cli_ext.py", "--approve"),
        env=node_modules_env() if node_available() else {"PI_NODE": "/nonexistent/node"},
    )
    commands = proc.ok("get_commands")["commands"]
    names = [c["name"] for c in commands if c["source"] == "extension"]
    # -e first, then settings entries, the trusted project's .pi/extensions, <agentDir>/extensions.
    # The built-ins load after user extensions (upstream lists its built-in `mcp` last too).
    ts = ["ts"] if node_available() else []
    assert names == ["cli", "settings", "project", *ts, "pkg", "user", "mcp"]
    info = {c["name"]: c["sourceInfo"] for c in commands}
    assert info["cli"] == {
        "path": str(proc.root / "elsewhere/cli_ext.py"),
        "source": "cli",
        "scope": "temporary",
        "origin": "top-level",
    }
    assert info["user"] == {
        "path": str(proc.agent_dir / "extensions/user_ext.py"),
        "source": "auto",
        "scope": "user",
        "origin": "top-level",
        "baseDir": str(proc.agent_dir),
    }
    assert info["pkg"]["path"] == str(proc.agent_dir / "extensions/pkg/__init__.py")
    assert info["project"]["scope"] == "project"
    assert info["settings"]["source"] == "local"
    if not node_available():
        assert stderr_contains(proc, "Skipping 1 TypeScript/JavaScript extension") and "legacy.ts" in proc.stderr
    assert proc.close() == 0


def test_project_extensions_need_trust_and_no_extensions_keeps_explicit_ones(pi) -> None:
    files = {
        "cwd/.pi/extensions/project_ext.py": recorder("project"),
        "agent/extensions/user_ext.py": recorder("user"),
        "ext/explicit.py": recorder("explicit"),
    }
    untrusted = pi(files=files, args=("--no-approve",))
    names = [c["name"] for c in untrusted.ok("get_commands")["commands"]]
    assert names == ["user", "mcp"]  # the built-in mcp comes last, as upstream
    off = pi(files=files, args=("--no-extensions", "-e", "../ext/explicit.py"))
    assert [c["name"] for c in off.ok("get_commands")["commands"]] == ["explicit"]


def test_startup_failure_exits_1_naming_file_cause_and_remedy(pi) -> None:
    proc = pi(args=("-e", str(FIXTURES / "fail_setup.py")))
    assert proc.popen.wait(20) == 1
    assert proc.popen.stdout is not None and proc.close() == 1
    assert proc.records == []  # nothing on the protocol stream
    assert stderr_contains(proc, "pi -ne")
    err = proc.stderr
    assert (
        f'Error: Failed to load extension "{FIXTURES / "fail_setup.py"}": Failed to load extension: this gate could not start'
        in err
    )
    assert 'Start without extensions using "pi -ne"' in err and "-e/--extension" in err


def test_startup_failure_of_a_discovered_extension_and_of_missing_or_typescript_files(pi) -> None:
    discovered = pi(files={"agent/extensions/broken.py": "def setup(pi):\n    pi.on('tool_call')(1/0)\n"})
    assert discovered.popen.wait(20) == 1
    assert stderr_contains(discovered, 'Hint: Start without extensions using "pi -ne".')
    assert "Failed to load extension: division by zero" in discovered.stderr
    assert discovered.stderr.rstrip().endswith('Hint: Start without extensions using "pi -ne".')

    missing = pi(args=("-e", "nope.py"))
    assert missing.popen.wait(20) == 1
    assert stderr_contains(missing, f"Extension path does not exist: {missing.cwd / 'nope.py'}")

    if node_available():  # upstream's text for a module without a default-exported factory
        typescript = pi(
            files={"ext/nofactory.ts": "export const x = 1;\n"},
            args=("-e", "../ext/nofactory.ts"),
            env=node_modules_env(),
        )
        assert typescript.popen.wait(60) == 1
        assert stderr_contains(
            typescript, f"Extension does not export a valid factory function: {typescript.root / 'ext/nofactory.ts'}"
        )

    no_setup = pi(files={"ext/empty.py": "X = 1\n"}, args=("-e", "../ext/empty.py"))
    assert no_setup.popen.wait(20) == 1
    assert stderr_contains(no_setup, "Extension does not define a setup(pi) function")


def test_startup_failure_in_print_mode(tmp_path: Path, pi_environ) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pi_rpc", "-p", "-e", str(FIXTURES / "fail_setup.py"), "hello"],
        capture_output=True,
        text=True,
        env=pi_environ(),
        cwd=tmp_path,
        timeout=60,
    )
    assert run.returncode == 1 and run.stdout == ""
    assert "this gate could not start" in run.stderr and "pi -ne" in run.stderr


def test_setup_runs_again_on_replacement_and_a_failure_there_is_only_reported(pi) -> None:
    flaky = textwrap.dedent(
        """
        import os
        FLAG = os.path.join(os.path.dirname(__file__), "fail-now")

        def setup(pi):
            if os.path.exists(FLAG):
                raise RuntimeError("flaky extension failed on re-creation")
            pi.register_command("flaky", {"handler": lambda args, ctx: None})
        """
    )
    proc = pi(
        files={"ext/flaky.py": flaky, "ext/steady.py": recorder("steady")},
        args=("-e", "../ext/flaky.py", "-e", "../ext/steady.py"),
    )
    assert [c["name"] for c in proc.ok("get_commands")["commands"]] == ["flaky", "steady", "mcp"]
    (proc.root / "ext" / "fail-now").write_text("1")
    assert proc.ok("new_session") == {"cancelled": False}
    assert [c["name"] for c in proc.ok("get_commands")["commands"]] == ["steady", "mcp"]
    assert stderr_contains(
        proc,
        f'Error: Failed to load extension "{proc.root / "ext/flaky.py"}": Failed to load extension: flaky extension failed on re-creation',
    )
    events = [json.loads(line) for line in (proc.root / "ext" / "events.log").read_text().splitlines()]
    assert [(e["event"], e["reason"]) for e in events] == [
        ("session_start", "startup"),
        ("session_shutdown", "new"),
        ("session_start", "new"),
    ]
    # The session goes on: the surviving extension still works and prompts run.
    assert proc.ok("prompt", message="hello")["disposition"] == "started"
    proc.wait_for("agent_settled")
    assert proc.close() == 0
    events = [json.loads(line) for line in (proc.root / "ext" / "events.log").read_text().splitlines()]
    assert events[-1] == {"ext": "steady", "event": "session_shutdown", "reason": "quit"}


def test_no_extensions_imports_nothing_of_the_extension_runtime(tmp_path: Path, pi_environ) -> None:
    def imported(*extra: str) -> set[str]:
        run = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "pi_rpc", "--mode", "rpc", "--no-session", *extra],
            input=b'{"id":"s","type":"get_state"}\n',
            capture_output=True,
            env=pi_environ(),
            cwd=tmp_path,
            timeout=60,
        )
        assert b'"id":"s"' in run.stdout
        names = set()
        for line in run.stderr.decode().splitlines():
            if line.startswith("import time:") and "|" in line:
                names.add(line.rsplit("|", 1)[1].strip())
        return names

    plain = imported()
    assert not {n for n in plain if n.startswith(("pi_rpc.extensions.", "pi_rpc.runtime.extension_"))} - {
        "pi_rpc.extensions.discovery",
        "pi_rpc.extensions.builtin",
        "pi_rpc.extensions.types",
    }
    ext = tmp_path / "noop.py"
    ext.write_text("def setup(pi):\n    pass\n")
    loaded = imported("-e", str(ext))
    assert {"pi_rpc.extensions.runner", "pi_rpc.runtime.extension_host", "pi_rpc.runtime.extension_actions"} <= loaded


def test_readme_shows_the_permission_gate_example_verbatim() -> None:
    from .ext_support import EXAMPLES, REPO

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "```python\n" + (EXAMPLES / "permission_gate.py").read_text(encoding="utf-8") + "```" in readme

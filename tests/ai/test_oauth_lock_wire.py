"""The OAuth refresh and upstream's ``auth.json`` lock between processes, through the real
program: a foreign lock is waited on (and what its holder wrote is used, with no refresh), a
stale one is taken at once, upstream pi and pi_rpc started together on one expired credential
make exactly one token request between them, a rotated token is on disk before the process
exits, and no token ever reaches stdout, stderr or the session files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.ai.oauth_wire import HOSTS, anthropic_sse, json_reply
from tests.ai.provider_wire import UPSTREAM, needs_upstream
from tests.ai.stub_server import ReplayServer, Reply
from tests.ai.tls_intercept import Interceptor
from tests.support.pi_process import OURS, PiProcess, isolated_env

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl CLI is not installed")

TOKEN = ("platform.claude.com", "/v1/oauth/token")
NEW = {"access_token": "sk-ant-oat01-SENTINEL-NEW", "refresh_token": "rt-SENTINEL-NEW", "expires_in": 28800}


def _now() -> int:
    return int(time.time() * 1000)


def _expired() -> dict[str, Any]:
    return {
        "anthropic": {
            "type": "oauth",
            "refresh": "rt-SENTINEL-OLD",
            "access": "sk-ant-oat01-SENTINEL-OLD",
            "expires": _now() - 1000,
        }
    }


class Setup:
    """An agent dir with the expired credential, models.json at a loopback Anthropic stub, and
    the token endpoint behind the TLS interceptor (``delay_s`` before it answers)."""

    def __init__(self, root: Path, delay_s: float = 0.0, answer: Reply | None = None) -> None:
        self.root = root
        self.reply = answer or json_reply(NEW, delay_s=delay_s)
        self.box = Interceptor(root / "tls", HOSTS, [Reply(b"{}", 404)], route=self._route)
        self.stub = ReplayServer([Reply(anthropic_sse())], repeat_last=True)

    def _route(self, request: dict[str, Any]) -> Reply | None:
        if (request["host"], request["path"]) == TOKEN:
            return self.reply
        return Reply(b"{}", 404, content_type="application/json")

    def __enter__(self) -> Setup:
        self.box.__enter__()
        self.stub.__enter__()
        self.env = isolated_env(self.root, self.box.proxy_env(), faux=False)
        self.agent = Path(self.env["PI_CODING_AGENT_DIR"])
        self.cwd = self.root / "cwd"
        self.cwd.mkdir(exist_ok=True)
        (self.agent / "models.json").write_text(json.dumps({"providers": {"anthropic": {"baseUrl": self.stub.url}}}))
        self.auth = self.agent / "auth.json"
        self.auth.write_text(json.dumps(_expired(), indent=2))
        self.auth.chmod(0o600)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stub.__exit__(*exc)
        self.box.__exit__(*exc)

    def token_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.box.requests if (r["host"], r["path"]) == TOKEN]

    def start(self, argv: list[str], *, session: bool = False) -> PiProcess:
        extra = [] if session else ["--no-session"]
        proc = PiProcess([*argv, "--mode", "rpc", *extra], self.env, self.cwd, root=self.root)
        proc.ok("set_model", timeout=30, provider="anthropic", modelId="claude-sonnet-4-5")
        return proc


def _prompt(proc: PiProcess, text: str = "hello", timeout: float = 90) -> dict[str, Any]:
    before = proc.mark()
    proc.ok("prompt", timeout=timeout, message=text)
    end: dict[str, Any] = proc.wait_for(
        lambda r: isinstance(r, dict) and r.get("type") == "agent_end", timeout=timeout, start=before
    )
    return end


def _stored(setup: Setup) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(setup.auth.read_text())["anthropic"]
    return data


PROGRAMS = [pytest.param("ours", id="ours"), pytest.param("upstream", id="upstream", marks=needs_upstream)]


def _argv(program: str) -> list[str]:
    argv = OURS if program == "ours" else UPSTREAM
    assert argv is not None
    return argv


@pytest.mark.parametrize("program", PROGRAMS)
def test_foreign_lock_waited_on_and_its_write_used(tmp_path: Path, program: str) -> None:
    """A fresh lock directory held by another process: the program waits; the holder writes a
    refreshed credential and releases; it is used without a token request of the program's."""
    with Setup(tmp_path) as setup:
        lock = Path(os.path.realpath(setup.auth)).with_name("auth.json.lock")
        proc = setup.start(_argv(program))
        lock.mkdir()  # after set_model, which upstream answers only once it can read under the lock
        try:

            def holder() -> None:
                time.sleep(1.5)
                fresh = {"anthropic": {"type": "oauth", "refresh": "rt-foreign", "access": "sk-ant-oat01-foreign"}}
                fresh["anthropic"]["expires"] = _now() + 3600_000  # type: ignore[index]
                setup.auth.write_text(json.dumps(fresh, indent=2))
                lock.rmdir()

            thread = threading.Thread(target=holder)
            started = time.monotonic()
            thread.start()
            end = _prompt(proc)
            thread.join()
            assert time.monotonic() - started >= 1.4
        finally:
            proc.close()
        assert setup.token_requests() == []
        assert [r.headers.get("authorization") for r in setup.stub.requests] == ["Bearer sk-ant-oat01-foreign"]
        assert end["messages"][-1]["stopReason"] == "stop"


@pytest.mark.parametrize("program", PROGRAMS)
def test_stale_lock_taken(tmp_path: Path, program: str) -> None:
    """A lock directory whose mtime is a minute old is taken at once and the refresh runs."""
    with Setup(tmp_path) as setup:
        lock = Path(os.path.realpath(setup.auth)).with_name("auth.json.lock")
        proc = setup.start(_argv(program))
        lock.mkdir()
        old = time.time() - 60
        os.utime(lock, (old, old))
        try:
            started = time.monotonic()
            _prompt(proc)
            assert time.monotonic() - started < 10
        finally:
            proc.close()
        assert len(setup.token_requests()) == 1
        assert _stored(setup)["access"] == NEW["access_token"]
        assert not lock.exists()


@needs_upstream
def test_upstream_and_ours_refresh_once_between_them(tmp_path: Path) -> None:
    """Both programs on one expired credential, prompted at the same moment, a slow token
    endpoint: exactly one token request; both send the new token."""
    assert UPSTREAM is not None
    with Setup(tmp_path, delay_s=1.5) as setup:
        procs = [setup.start(UPSTREAM), setup.start(OURS)]
        try:
            ends: list[Any] = [None, None]

            def run(i: int) -> None:
                ends[i] = _prompt(procs[i])

            threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
        finally:
            for proc in procs:
                proc.close()
        assert len(setup.token_requests()) == 1
        assert [r.headers.get("authorization") for r in setup.stub.requests] == [f"Bearer {NEW['access_token']}"] * 2
        assert all(end is not None and end["messages"][-1]["stopReason"] == "stop" for end in ends)
        assert _stored(setup)["refresh"] == NEW["refresh_token"]


def test_rotated_token_written_before_exit(tmp_path: Path) -> None:
    """stdin closes while the token endpoint takes longer than the shutdown grace: the process exits only after
    the rotated token is on disk (upstream's ``settleCredentialWrites``)."""
    with Setup(tmp_path, delay_s=8.0) as setup:
        proc = setup.start(OURS)
        proc.request("prompt", message="hello")
        deadline = time.monotonic() + 20
        while not setup.token_requests() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert setup.token_requests(), "no token request was made"
        proc.close_stdin()
        code = proc.wait(timeout=30)
        assert code == 0
        assert _stored(setup)["refresh"] == NEW["refresh_token"]
        lock = Path(os.path.realpath(setup.auth)).with_name("auth.json.lock")
        assert not lock.exists()


@pytest.mark.parametrize("outcome", ["refreshed", "refused"])
def test_tokens_never_written_anywhere_else(tmp_path: Path, outcome: str) -> None:
    """Sentinel tokens (old and new) appear nowhere but auth.json: not on stdout (events,
    get_state, get_messages), not on stderr, not in the session files."""
    # A refusing endpoint that echoes the tokens (upstream would quote them in the error).
    echo = b'{"error":"invalid_grant","refresh_token":"rt-SENTINEL-OLD","note":"sk-ant-oat01-SENTINEL-OLD"}'
    answer = None if outcome == "refreshed" else Reply(echo, 400, "application/json")
    with Setup(tmp_path, answer=answer) as setup:
        proc = setup.start(OURS, session=True)
        try:
            _prompt(proc)
            proc.ok("get_state")
            proc.ok("get_messages")
        finally:
            proc.close()
        out = b"".join(proc.raw_lines).decode("utf-8", "replace")
        written = [out, proc.stderr]
        for path in setup.root.rglob("*"):
            if path.is_file() and path != setup.auth and "tls" not in path.parts:
                written.append(path.read_bytes().decode("utf-8", "replace"))
        assert any("sessions" in str(p) for p in setup.agent.rglob("*.jsonl")), "no session file was written"
        for text in written:
            assert "SENTINEL" not in text


def _abort_during_lock_wait(argv: list[str], root: Path) -> tuple[dict[str, Any], float, int]:
    with Setup(root) as setup:
        lock = Path(os.path.realpath(setup.auth)).with_name("auth.json.lock")
        proc = setup.start(argv)
        lock.mkdir()  # after set_model, which upstream answers only once it can read under the lock
        try:
            before = proc.mark()
            proc.ok("prompt", timeout=30, message="hello")
            time.sleep(1.0)
            started = time.monotonic()
            proc.ok("abort", timeout=30)
            end: dict[str, Any] = proc.wait_for(
                lambda r: isinstance(r, dict) and r.get("type") == "agent_end", timeout=30, start=before
            )
            waited = time.monotonic() - started
        finally:
            proc.close()
            lock.rmdir()
        return end["messages"][-1], waited, len(setup.token_requests())


def test_abort_cancels_the_lock_wait(tmp_path: Path) -> None:
    """``abort`` while the refresh waits for a foreign lock ends the run at once, aborted,
    with no token request."""
    message, waited, token_requests = _abort_during_lock_wait(OURS, tmp_path)
    assert message["stopReason"] == "aborted"
    assert waited < 5
    assert token_requests == 0


@needs_upstream
def test_abort_during_lock_wait_as_upstream(tmp_path: Path) -> None:
    assert UPSTREAM is not None
    theirs, _, their_requests = _abort_during_lock_wait(UPSTREAM, tmp_path / "upstream")
    ours, _, our_requests = _abort_during_lock_wait(OURS, tmp_path / "ours")
    assert (ours["stopReason"], ours.get("errorMessage")) == (theirs["stopReason"], theirs.get("errorMessage"))
    assert our_requests == their_requests == 0


@pytest.mark.parametrize("program", PROGRAMS)
def test_print_mode_refreshes_and_writes_before_exit(tmp_path: Path, program: str) -> None:
    """``pi -p`` with an expired credential: one token request, the answer printed, the rotated
    token on disk when the process has exited."""
    with Setup(tmp_path, delay_s=0.5) as setup:
        done = subprocess.run(
            [*_argv(program), "-p", "--no-session", "--model", "anthropic/claude-sonnet-4-5", "hello"],
            env=setup.env,
            cwd=setup.cwd,
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.decode().strip() == "Hi."
        assert len(setup.token_requests()) == 1
        assert _stored(setup)["refresh"] == NEW["refresh_token"]
        assert b"SENTINEL" not in done.stdout + done.stderr

"""``pi auth login`` in a terminal (a pseudo-terminal here, as upstream requires one): the
account sign-in with the browser played by a ``BROWSER`` program that follows the redirect to
the localhost callback, the device code shown, the API key read without echo; the messages are
upstream's (``coding-agent/dist/cli/auth-login.js``). Side by side with upstream for the API key
login, which needs no network."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.ai.stub_server import Reply
from tests.ai.tls_intercept import Interceptor
from tests.support.pi_process import OURS, isolated_env, upstream_argv

ACCESS = "SENTINEL-TTY-ACCESS-1234"
REFRESH = "SENTINEL-TTY-REFRESH-5678"


class Terminal:
    """A program on a pseudo-terminal: ``expect`` text, ``send`` a line."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        master, slave = pty.openpty()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, close_fds=True)
        os.close(slave)
        self.master = master
        self.output = b""

    def expect(self, text: str, timeout: float = 30) -> str:
        deadline = time.time() + timeout
        while text.encode() not in self.output:
            if time.time() > deadline:
                raise AssertionError(f"{text!r} not seen in {self.output.decode(errors='replace')!r}")
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk and self.proc.poll() is not None:
                    raise AssertionError(f"exited; {text!r} not in {self.output.decode(errors='replace')!r}")
                self.output += chunk
        return self.output.decode(errors="replace")

    def send(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def finish(self, timeout: float = 30) -> int:
        code = self.proc.wait(timeout)
        while True:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if not ready:
                break
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                break
            if not chunk:
                break
            self.output += chunk
        os.close(self.master)
        return code


BROWSER_SCRIPT = """
import sys, urllib.parse, urllib.request
query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(sys.argv[1]).query))
target = query["redirect_uri"].replace("localhost", "127.0.0.1")
urllib.request.urlopen(target + "?" + urllib.parse.urlencode({"code": "tty-code", "state": query["state"]})).read()
"""


def test_browser_sign_in_with_the_localhost_callback(tmp_path: Path) -> None:
    (tmp_path / "browser.py").write_text(BROWSER_SCRIPT)
    tokens = Reply(
        body=json.dumps({"access_token": ACCESS, "refresh_token": REFRESH, "expires_in": 3600}).encode(),
        content_type="application/json",
    )
    with Interceptor(tmp_path / "tls", ["platform.claude.com"], [tokens]) as box:
        env = isolated_env(tmp_path, {**box.proxy_env(), "BROWSER": f"{sys.executable} {tmp_path / 'browser.py'} %s"})
        term = Terminal([*OURS, "auth", "login", "anthropic"], env, tmp_path)
        term.expect("Open this URL to sign in:\r\n  https://claude.ai/oauth/authorize?")
        term.expect('To use "Copy code login (headless)" instead, run "pi auth login anthropic --no-browser"')
        code = term.finish()
    text = term.output.decode(errors="replace")
    auth = tmp_path / "agent" / "auth.json"
    assert code == 0, text
    assert f"Logged in to Anthropic. Credentials saved to {auth}" in text
    assert json.loads(auth.read_text())["anthropic"]["access"] == ACCESS
    assert json.loads(box.requests[0]["body"])["code"] == "tty-code"
    assert ACCESS not in text and REFRESH not in text


def test_no_browser_takes_the_copy_code_method(tmp_path: Path) -> None:
    tokens = Reply(
        body=json.dumps({"access_token": ACCESS, "refresh_token": REFRESH, "expires_in": 3600}).encode(),
        content_type="application/json",
    )
    with Interceptor(tmp_path / "tls", ["platform.claude.com"], [tokens]) as box:
        env = isolated_env(tmp_path, box.proxy_env())
        term = Terminal([*OURS, "auth", "login", "anthropic", "--no-browser"], env, tmp_path)
        term.expect("Select Anthropic login method: Copy code login (headless)")
        screen = term.expect("Paste the code Anthropic shows after you sign in: (code#state): ")
        state = screen.split("state=")[1].split("&")[0].split()[0]
        term.send(f"pasted#{state}")
        code = term.finish()
    assert code == 0, term.output
    assert json.loads(box.requests[0]["body"])["code"] == "pasted"


def test_device_code_and_a_failed_poll(tmp_path: Path) -> None:
    device = {
        "device_code": "D",
        "user_code": "XY-99",
        "verification_uri": "https://accounts.x.ai/device",
        "expires_in": 60,
        "interval": 1,
    }
    replies = [
        Reply(body=json.dumps(device).encode(), content_type="application/json"),
        Reply(body=b'{"error":"access_denied"}', status=400, content_type="application/json"),
    ]
    with Interceptor(tmp_path / "tls", ["auth.x.ai"], replies) as box:
        term = Terminal(
            [*OURS, "auth", "login", "xai", "--no-browser"], isolated_env(tmp_path, box.proxy_env()), tmp_path
        )
        term.expect("Open https://accounts.x.ai/device and enter code: XY-99\r\nWaiting for authentication...")
        code = term.finish()
    assert code == 1
    assert "Failed to log in to xAI: xAI device authorization was denied" in term.output.decode()
    assert not (tmp_path / "agent" / "auth.json").exists()


def _api_key_login(argv: list[str], root: Path) -> tuple[int, str, bytes]:
    env = isolated_env(root, faux=False)
    term = Terminal([*argv, "auth", "login", "groq"], env, root)
    term.expect("Enter Groq API key: ")
    term.send("gsk-typed-key")
    code = term.finish()
    text = term.output.decode(errors="replace").replace(str(root), "<root>")
    return code, text, (root / "agent" / "auth.json").read_bytes()


def test_api_key_login_reads_the_key_without_echo(tmp_path: Path) -> None:
    code, text, stored = _api_key_login(OURS, tmp_path)
    assert code == 0
    assert "gsk-typed-key" not in text
    assert "Saved API key for Groq. Credentials saved to <root>/agent/auth.json" in text
    assert stored == json.dumps({"groq": {"type": "api_key", "key": "gsk-typed-key"}}, indent=2).encode()
    assert (tmp_path / "agent" / "auth.json").stat().st_mode & 0o777 == 0o600


@pytest.mark.skipif(upstream_argv() is None, reason="upstream pi 1.6 is not installed")
def test_api_key_login_same_as_upstream(tmp_path: Path) -> None:
    up = upstream_argv()
    assert up is not None
    ours = _api_key_login(OURS, tmp_path / "ours")
    theirs = _api_key_login(up, tmp_path / "up")
    assert (ours[0], ours[2]) == (theirs[0], theirs[2])
    assert "Saved API key for Groq. Credentials saved to <root>/agent/auth.json" in theirs[1]


def test_a_sign_in_pi_rpc_does_not_run_yet_says_so(tmp_path: Path) -> None:
    term = Terminal([*OURS, "auth", "login", "openai"], isolated_env(tmp_path), tmp_path)
    code = term.finish()
    assert code == 1
    assert term.output.decode().strip() == (
        "Failed to log in to OpenAI: pi_rpc cannot run this sign-in yet "
        "(save an API key with: pi auth login openai --api-key)"
    )

"""``pi auth`` subcommands: outputs, exit codes and auth.json bytes, against fixed expectations
and side by side with upstream pi 1.6 on copies of the same agent dir (skipped without it)."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.ai.stub_server import Reply
from tests.ai.tls_intercept import Interceptor
from tests.support.pi_process import OURS, isolated_env, upstream_argv

HOUR_MS = 3_600_000


def _auth_json(now_ms: int) -> str:
    return json.dumps(
        {
            "anthropic": {
                "type": "oauth",
                "access": "sk-ant-oat-ACCESS",
                "refresh": "REFRESH",
                "expires": now_ms + HOUR_MS,
            },
            "openai": {"type": "api_key", "key": "sk-openai-KEY"},
            "groq": {"type": "api_key", "key": ""},
            "mistral": {"type": "oauth", "access": "x", "refresh": "y", "expires": 1},
            "cerebras": {"type": "api_key", "key": "!printf cmdkey"},
        },
        indent=2,
    )


# (argv after "auth", expected stdout, expected stderr, exit code)
CASES: list[tuple[str, str, str, int]] = [
    ("check --provider anthropic", "ready\n", "", 0),
    (
        "check --provider anthropic --json --no-refresh",
        '{"status":"ready","provider":"anthropic","authType":"oauth"}\n',
        "",
        0,
    ),
    ("check --provider openai --json", '{"status":"ready","provider":"openai","authType":"api_key"}\n', "", 0),
    (
        "check --provider groq --json --no-refresh",
        '{"status":"not_ready","provider":"groq","reason":"credentials_not_configured"}\n',
        "",
        1,
    ),
    (
        "check --provider mistral --json",
        '{"status":"not_ready","provider":"mistral","reason":"credentials_not_configured"}\n',
        "",
        1,
    ),
    ("check --provider nope --json", '{"status":"not_ready","provider":"nope","reason":"provider_not_found"}\n', "", 1),
    ("check --provider xai", "not_ready\n", "", 1),
    ("check", "", "Error: Auth checks require --provider <provider> or --model <model>\n", 2),
    ("check --provider anthropic extra", "", "Error: Auth commands only accept --provider and --model\n", 2),
    ("check --provider anthropic --credentials --no-refresh", "sk-ant-oat-ACCESS\n", "", 0),
    (
        "check --provider openai --credentials --json",
        '{"status":"ready","provider":"openai","authType":"api_key","credentials":"sk-openai-KEY"}\n',
        "",
        0,
    ),
    ("check --min-expiry 1h", "", "Error: --min-expiry is only supported by print-bearer-token\n", 1),
    (
        "check --provider anthropic --bogus",
        "",
        'Unknown option --bogus for "auth check".\nUse "pi --help" or "pi auth check --provider <provider> [--json] [--credentials] [--no-refresh]".\n',
        1,
    ),
    ("print-api-key --provider openai", "sk-openai-KEY\n", "", 0),
    ("print-api-key --provider cerebras", "cmdkey\n", "", 0),
    (
        "print-api-key --provider anthropic",
        "",
        'Error: Provider "anthropic" is configured with OAuth, not an API key\n',
        1,
    ),
    ("print-api-key --provider groq", "", "Error: No usable API key is configured\n", 1),
    (
        "print-api-key --provider nope",
        "",
        'Error: Unknown provider "nope". Use --list-models to see available providers.\n',
        1,
    ),
    ("print-api-key", "", "Error: Credential printing requires --provider <provider> or --model <model>\n", 1),
    ("print-api-key --provider openai --json", "", "Error: --json is only supported by auth check\n", 1),
    ("print-bearer-token --provider anthropic", "sk-ant-oat-ACCESS\n", "", 0),
    (
        "print-bearer-token --provider openai",
        "",
        'Error: Provider "openai" is not configured with an OAuth bearer token\n',
        1,
    ),
    (
        "print-bearer-token --provider anthropic --min-expiry 5x",
        "",
        "Error: --min-expiry must use a duration such as 30m or 1h\n",
        1,
    ),
    (
        "foo",
        "",
        'Error: Unknown auth command "foo". Use "pi auth login", "pi auth logout", "pi auth print-api-key", "pi auth print-bearer-token", or "pi auth check".\n',
        1,
    ),
    ("logout", "", "Usage: pi auth logout <provider>\n", 1),
    (
        "logout nope",
        "",
        'Unknown provider "nope".\nStored credentials: anthropic, cerebras, groq, mistral, openai\n',
        1,
    ),
    (
        "logout xai",
        "No stored credentials for xAI. Environment variables and models.json config are unchanged.\n",
        "",
        0,
    ),
    (
        "logout groq",
        "Removed stored API key for Groq. Environment variables and models.json config are unchanged.\n",
        "",
        0,
    ),
    ("logout anthropic", "Logged out of Anthropic.\n", "", 0),
    ("login", "", "Usage: pi auth login <provider> [--api-key] [--no-browser]\n", 1),
    (
        "login anthropic",
        "",
        '"pi auth login <provider> [--api-key] [--no-browser]" requires an interactive terminal\n',
        1,
    ),
    (
        "login anthropic --api-key --no-browser",
        "",
        "--no-browser only applies to account sign-in; omit it with --api-key.\n",
        1,
    ),
]


def _run(argv: list[str], root: Path, args: str, now_ms: int) -> tuple[str, str, int, bytes]:
    env = isolated_env(root, faux=False)
    auth = root / "agent" / "auth.json"
    auth.write_text(_auth_json(now_ms))
    done = subprocess.run(
        [*argv, "auth", *args.split()],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.stdout, done.stderr, done.returncode, auth.read_bytes()


@pytest.mark.parametrize(("args", "stdout", "stderr", "code"), CASES, ids=[c[0] for c in CASES])
def test_auth_subcommand(tmp_path: Path, args: str, stdout: str, stderr: str, code: int) -> None:
    now = int(time.time() * 1000)
    out, err, rc, after = _run(OURS, tmp_path, args, now)
    assert (out, err, rc) == (stdout, stderr, code)
    data = json.loads(after)
    if args.startswith("logout ") and code == 0 and args.split()[1] in ("groq", "anthropic"):
        removed = args.split()[1]
        expected = {k: v for k, v in json.loads(_auth_json(now)).items() if k != removed}
        assert after == json.dumps(expected, indent=2).encode()  # upstream's bytes: no newline
        assert removed not in data
    else:
        assert after == _auth_json(now).encode()


def test_help_lists_the_subcommands(tmp_path: Path) -> None:
    done = subprocess.run(
        [*OURS, "auth", "--help"], env=isolated_env(tmp_path), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert done.stdout.startswith("Usage:\n  pi auth login <provider> [--api-key] [--no-browser]\n")
    assert "check                   Print ready, not_ready, or invalid; exit with 0, 1, or 2" in done.stdout


def test_broken_auth_json_is_an_invalid_state(tmp_path: Path) -> None:
    env = isolated_env(tmp_path, faux=False)
    (tmp_path / "agent" / "auth.json").write_text("{bad")
    check = subprocess.run(
        [*OURS, "auth", "check", "--provider", "openai", "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert (check.stdout, check.returncode) == (
        '{"status":"invalid","provider":"openai","reason":"invalid_state"}\n',
        2,
    )
    key = subprocess.run(
        [*OURS, "auth", "print-api-key", "--provider", "openai"], env=env, capture_output=True, text=True, timeout=60
    )
    assert (key.stderr, key.returncode) == ("Error: Failed to resolve credential\n", 1)


UPSTREAM = upstream_argv()


@pytest.mark.skipif(UPSTREAM is None, reason="upstream pi 1.6 is not installed (/tmp/pi-node or $PI_UPSTREAM_NODE_DIR)")
@pytest.mark.parametrize("args", [c[0] for c in CASES], ids=[c[0] for c in CASES])
def test_same_as_upstream(tmp_path: Path, args: str) -> None:
    assert UPSTREAM is not None
    now = int(time.time() * 1000)
    ours = _run(OURS, tmp_path / "ours", args, now)
    theirs = _run(UPSTREAM, tmp_path / "up", args, now)
    assert ours == theirs


REFRESHED = {"access_token": "sk-ant-oat-NEW", "refresh_token": "REFRESH-NEW", "expires_in": 28800}


def _refresh_run(argv: list[str], root: Path, args: str, expires: int, reply: Reply) -> tuple[Any, ...]:
    """Run ``pi auth <args>`` on an Anthropic OAuth credential expiring at ``expires``, the
    token endpoint behind the TLS interceptor; (stdout, stderr, rc, token request bodies,
    auth.json with ``expires`` masked, the stored expiry)."""
    with Interceptor(root / "tls", ["platform.claude.com"], [reply]) as box:
        env = isolated_env(root, box.proxy_env(), faux=False)
        auth = root / "agent" / "auth.json"
        stored = {
            "anthropic": {"type": "oauth", "access": "sk-ant-oat-OLD", "refresh": "REFRESH-OLD", "expires": expires}
        }
        auth.write_text(json.dumps(stored, indent=2))
        done = subprocess.run(
            [*argv, "auth", *args.split()],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        bodies = [json.loads(r["body"]) for r in box.requests]
    text = auth.read_text()
    expiry = json.loads(text)["anthropic"]["expires"]
    masked = re.sub(r'("expires": )\d+', r"\1<t>", text)
    # The error's tail is a Node stack upstream (not portable): compared up to "; stack=".
    return done.stdout, done.stderr.split("; stack=")[0], done.returncode, bodies, masked, expiry


REFRESH_CASES = [
    # (args, expires in ms from now, token endpoint answer, expected stdout, rc, refreshed?)
    (
        "check --provider anthropic --json",
        -1000,
        200,
        '{"status":"ready","provider":"anthropic","authType":"oauth"}\n',
        0,
        True,
    ),
    (
        "check --provider anthropic --json --no-refresh",
        -1000,
        200,
        '{"status":"ready","provider":"anthropic","authType":"oauth"}\n',
        0,
        False,
    ),
    (
        "check --provider anthropic --json",
        -1000,
        400,
        '{"status":"invalid","provider":"anthropic","reason":"invalid_state"}\n',
        2,
        False,
    ),
    ("print-bearer-token --provider anthropic", 10 * 60_000, 200, "sk-ant-oat-NEW\n", 0, True),
    ("print-bearer-token --provider anthropic --min-expiry 5m", 10 * 60_000, 200, "sk-ant-oat-OLD\n", 0, False),
    ("print-bearer-token --provider anthropic --min-expiry 9h", 10 * 60_000, 200, "", 1, True),
    ("check --provider anthropic --credentials", 60_000, 200, "sk-ant-oat-NEW\n", 0, True),
]


def _reply(status: int) -> Reply:
    body = REFRESHED if status == 200 else {"error": "invalid_grant"}
    return Reply(body=json.dumps(body).encode(), status=status, content_type="application/json")


@pytest.mark.parametrize(("args", "offset", "status", "stdout", "code", "refreshed"), REFRESH_CASES)
def test_refresh(tmp_path: Path, args: str, offset: int, status: int, stdout: str, code: int, refreshed: bool) -> None:
    now = int(time.time() * 1000)
    out, err, rc, bodies, masked, expiry = _refresh_run(OURS, tmp_path, args, now + offset, _reply(status))
    assert (out, rc) == (stdout, code)
    if code == 1:
        assert err == "Error: Failed to resolve credential\n"
    tried = (
        []
        if offset > 30 * 60_000 or "--no-refresh" in args or "5m" in args
        else [
            {
                "grant_type": "refresh_token",
                "client_id": "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
                "refresh_token": "REFRESH-OLD",
            }
        ]
    )
    assert bodies == tried
    if refreshed:
        assert '"access": "sk-ant-oat-NEW"' in masked and list(json.loads(masked.replace("<t>", "0"))["anthropic"]) == [
            "type",
            "refresh",
            "access",
            "expires",
        ]
        assert abs(expiry - (now + 28_800_000 - 300_000)) < 30_000
    else:
        assert expiry == now + offset


@pytest.mark.skipif(UPSTREAM is None, reason="upstream pi 1.6 is not installed (/tmp/pi-node or $PI_UPSTREAM_NODE_DIR)")
@pytest.mark.parametrize(("args", "offset", "status"), [(c[0], c[1], c[2]) for c in REFRESH_CASES])
def test_refresh_same_as_upstream(tmp_path: Path, args: str, offset: int, status: int) -> None:
    assert UPSTREAM is not None
    now = int(time.time() * 1000)
    ours = _refresh_run(OURS, tmp_path / "ours", args, now + offset, _reply(status))
    theirs = _refresh_run(UPSTREAM, tmp_path / "up", args, now + offset, _reply(status))
    assert ours[:5] == theirs[:5]

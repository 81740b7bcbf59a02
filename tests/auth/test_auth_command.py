"""``pi auth`` subcommands: outputs, exit codes and auth.json bytes, against fixed expectations
and side by side with upstream pi 1.6 on copies of the same agent dir (skipped without it)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

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

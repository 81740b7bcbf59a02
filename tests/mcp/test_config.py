"""``mcp.json``: validation texts, global and project files, overrides, and the writers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_rpc.mcp.config import add_server_config, load_mcp_config, remove_server_config, validate_server_config


@pytest.mark.parametrize(
    ("name", "raw", "expected"),
    [
        ("bad name", {"command": "x"}, 'invalid server name "bad name" (use letters, digits, "_" and "-")'),
        ("s", "x", 'server "s" must be an object'),
        ("s", {"command": "x", "enabled": "yes"}, 'server "s": enabled must be a boolean'),
        ("s", {"command": "x", "timeout": 0}, 'server "s": timeout must be a positive number of seconds'),
        ("s", {"command": "x", "timeout": True}, 'server "s": timeout must be a positive number of seconds'),
        ("s", {"command": "x", "description": 3}, 'server "s": description must be a string'),
        (
            "s",
            {"url": "http://x/sse", "type": "sse"},
            'server "s": legacy SSE transport is not supported; use the streamable HTTP URL',
        ),
        (
            "s",
            {"type": "stdio", "url": "http://x"},
            'server "s" needs either "command" (stdio) or "url" (streamable HTTP)',
        ),
        ("s", {}, 'server "s" needs either "command" (stdio) or "url" (streamable HTTP)'),
        ("s", {"url": "ftp://x"}, 'server "s": url must be an http or https URL'),
        ("s", {"url": "http://x", "headers": {"A": 1}}, 'server "s": headers must map names to strings'),
        ("s", {"command": "x", "args": "a b"}, 'server "s": args must be an array of strings'),
        ("s", {"command": "x", "env": {"A": 1}}, 'server "s": env must map names to strings'),
        ("s", {"command": "x", "cwd": 1}, 'server "s": cwd must be a string'),
        (
            "s",
            {"command": "x", "exposure": "loud"},
            'server "s": exposure must be one of "codemode", "deferred", "direct", "hidden"',
        ),
        ("s", {"command": "x", "toolExposure": []}, 'server "s": toolExposure must map tool names to exposures'),
        (
            "s",
            {"command": "x", "toolExposure": {"a": "x"}},
            'server "s": toolExposure "a" must be one of "codemode", "deferred", "direct", "hidden"',
        ),
        (
            "s",
            {"url": "http://x", "oauth": {"callbackPort": 0}},
            'server "s": oauth.callbackPort must be a port number',
        ),
        (
            "s",
            {"url": "http://x", "oauth": {"callbackUrl": "http://example.com/cb"}},
            'server "s": oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment',
        ),
        (
            "s",
            {"url": "http://x", "oauth": {"clientRegistration": "cimd", "clientId": "c"}},
            'server "s": oauth.clientRegistration "cimd" cannot be combined with oauth.clientId or oauth.clientName',
        ),
        ("s", {"url": "http://x", "auth": {}}, 'server "s": auth.provider must be a provider name'),
        (
            "s",
            {"url": "http://example.com", "auth": {"provider": "p"}},
            'server "s": auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]',
        ),
    ],
)
def test_invalid_entries_are_reported_with_upstreams_texts(name: str, raw: object, expected: str) -> None:
    assert validate_server_config(name, raw) == expected


def test_valid_entries_and_exposure_alias() -> None:
    config = validate_server_config("fs-1", {"command": "npx", "args": ["a"], "exposure": "codemode-deferred"})
    assert config == {"command": "npx", "args": ["a"], "exposure": "codemode"}
    assert validate_server_config("web", {"url": "https://x.example/mcp", "type": "streamable-http"}) == {
        "url": "https://x.example/mcp",
        "type": "streamable-http",
    }


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_project_entries_replace_and_override_global_ones(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "cwd"
    _write(
        agent / "mcp.json",
        {
            "autoEnableCodemode": True,
            "mcpServers": {
                "a": {"command": "a", "env": {"TOKEN": "${T}"}},
                "b": {"url": "https://b.example/mcp"},
                "c": {"command": "c"},
                "dev-x": {"command": "d"},
            },
        },
    )
    _write(
        cwd / ".pi" / "mcp.json",
        {
            "autoEnableCodemode": False,
            "mcpServers": {
                "a": {"enabled": False, "exposure": "direct"},
                "b": {"command": "local-b"},
                "c": {"enabled": False, "env": {"X": "1"}},
                "nobase": {"enabled": False},
                "dev_x": {"command": "clash"},
            },
        },
    )
    trusted = load_mcp_config(agent, cwd, project_trusted=True)
    by_name = {s.name: s for s in trusted.servers}
    assert [s.name for s in trusted.servers] == ["a", "b", "c", "dev-x"]
    assert by_name["a"].config == {"command": "a", "env": {"TOKEN": "${T}"}, "enabled": False, "exposure": "direct"}
    assert by_name["a"].scope == "global" and by_name["a"].override == str(cwd / ".pi" / "mcp.json")
    assert by_name["b"].config == {"command": "local-b"} and by_name["b"].scope == "project"
    assert by_name["c"].config == {"command": "c"}
    project = str(cwd / ".pi" / "mcp.json")
    assert trusted.errors == [
        f'{project}: server "c": an override can only set enabled, exposure, toolExposure',
        f'{project}: server "nobase" needs "command" or "url", or a global server to override',
        f'{project}: server "dev_x" conflicts with "dev-x"',
    ]
    assert trusted.auto_enable_codemode is False
    untrusted = load_mcp_config(agent, cwd, project_trusted=False)
    assert [s.config for s in untrusted.servers][0] == {"command": "a", "env": {"TOKEN": "${T}"}}
    assert untrusted.errors == [] and untrusted.auto_enable_codemode is True


def test_broken_files_are_reported_and_skipped(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "mcp.json").write_text("{not json")
    config = load_mcp_config(agent, tmp_path, project_trusted=False)
    assert (
        config.servers == [] and len(config.errors) == 1 and config.errors[0].startswith(str(agent / "mcp.json") + ": ")
    )
    (agent / "mcp.json").write_text('{"mcpServers": [], "autoEnableCodemode": 1}')
    assert load_mcp_config(agent, tmp_path, False).errors == [
        f'{agent / "mcp.json"}: expected an object with an "mcpServers" object'
    ]
    (agent / "mcp.json").write_text(
        '\ufeff{"autoEnableCodemode": 1, "mcpServers": {"ok": {"command": "x"}, "bad": {"command": 1}}}'
    )
    config = load_mcp_config(agent, tmp_path, False)
    assert [s.name for s in config.servers] == ["ok"]
    assert config.errors == [
        f"{agent / 'mcp.json'}: autoEnableCodemode must be a boolean",
        f'{agent / "mcp.json"}: server "bad" needs either "command" (stdio) or "url" (streamable HTTP)',
    ]


def test_project_files_cannot_send_provider_credentials(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "cwd"
    _write(
        cwd / ".pi" / "mcp.json", {"mcpServers": {"x": {"url": "https://x.example", "auth": {"provider": "anthropic"}}}}
    )
    config = load_mcp_config(agent, cwd, True)
    assert config.servers == []
    assert config.errors == [f'{cwd / ".pi" / "mcp.json"}: server "x": auth is only allowed in the global mcp.json']


def test_writers_keep_unrelated_content_and_indentation(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{\n\t"other": {"keep": [1, 2.5]},\n\t"mcpServers": {\n\t\t"old": {"command": "o"}\n\t}\n}\n')
    assert add_server_config(str(path), "new", {"url": "https://n.example/mcp"}) is False
    assert add_server_config(str(path), "old", {"command": "o2"}) is True
    text = path.read_text()
    assert text.startswith('{\n\t"other": {\n\t\t"keep": [\n\t\t\t1,\n\t\t\t2.5\n')
    assert json.loads(text) == {
        "other": {"keep": [1, 2.5]},
        "mcpServers": {"old": {"command": "o2"}, "new": {"url": "https://n.example/mcp"}},
    }
    assert remove_server_config(str(path), "old") is True
    assert remove_server_config(str(path), "old") is False
    assert list(json.loads(path.read_text())["mcpServers"]) == ["new"]
    fresh = tmp_path / "dir" / "mcp.json"
    add_server_config(str(fresh), "x", {"command": "x"})
    assert fresh.read_text() == '{\n  "mcpServers": {\n    "x": {\n      "command": "x"\n    }\n  }\n}\n'
    assert remove_server_config(str(tmp_path / "missing.json"), "x") is False

"""Agent dir, session dir encoding/precedence, settings merge/trust/typed getters/writers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_rpc.config import children, paths
from pi_rpc.config.settings import Settings, deep_merge


def test_agent_dir_env_tilde_and_default(tmp_path: Path) -> None:
    home = os.path.expanduser("~")
    assert paths.agent_dir({"PI_CODING_AGENT_DIR": "~/x/agent"}) == Path(home) / "x" / "agent"
    assert paths.agent_dir({"PI_CODING_AGENT_DIR": str(tmp_path)}) == tmp_path
    assert paths.agent_dir({}) == Path(home) / ".pi" / "agent"


def test_encode_cwd_matches_upstream() -> None:
    assert paths.encode_cwd("/home/me/t8/cwd") == "--home-me-t8-cwd--"
    assert paths.encode_cwd("/a:b\\c") == "--a-b-c--"


def test_session_dir_precedence(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    cwd = tmp_path / "proj"
    env = {"PI_CODING_AGENT_SESSION_DIR": str(tmp_path / "envdir")}
    cli = paths.resolve_session_dir(cwd=cwd, agent=agent, cli_session_dir="rel", settings_session_dir="s", env=env)
    assert cli.path == cwd / "rel" and cli.custom and cli.source == "cli"
    e = paths.resolve_session_dir(cwd=cwd, agent=agent, settings_session_dir="s", env=env)
    assert e.path == tmp_path / "envdir" and e.source == "env"
    s = paths.resolve_session_dir(cwd=cwd, agent=agent, settings_session_dir="s", env={})
    assert s.path == cwd / "s" and s.source == "settings"
    d = paths.resolve_session_dir(cwd=cwd, agent=agent, env={})
    assert d.path == agent / "sessions" / paths.encode_cwd(cwd) and not d.custom


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


def test_defaults_without_files(tmp_path: Path) -> None:
    s = Settings.load(agent_dir=tmp_path / "agent", cwd=tmp_path)
    assert s.default_thinking_level == "medium"
    assert s.steering_mode == "one-at-a-time" and s.follow_up_mode == "one-at-a-time"
    assert s.compaction_enabled is True and s.compaction_reserve_tokens == 16384
    assert s.compaction_keep_recent_tokens == 20000
    assert s.retry_enabled is True and s.retry_max_retries == 3 and s.retry_base_delay_ms == 2000
    assert s.retry_max_agent_delay_ms == 60000 and s.retry_provider_max_retries == 0
    assert s.images_auto_resize is True and s.transport == "auto" and s.http_idle_timeout_ms == 300000
    assert s.default_project_trust == "ask" and s.default_tools is None


def test_project_settings_only_when_trusted(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    _write(agent / "settings.json", {"compaction": {"enabled": True, "reserveTokens": 1}, "steeringMode": "all"})
    _write(cwd / ".pi" / "settings.json", {"compaction": {"enabled": False}, "followUpMode": "all"})
    untrusted = Settings.load(agent_dir=agent, cwd=cwd)
    assert untrusted.compaction_enabled is True and untrusted.follow_up_mode == "one-at-a-time"
    trusted = Settings.load(agent_dir=agent, cwd=cwd, approve=True)
    assert trusted.compaction_enabled is False and trusted.compaction_reserve_tokens == 1  # one-level deep merge
    assert trusted.steering_mode == "all" and trusted.follow_up_mode == "all"
    _write(agent / "settings.json", {"defaultProjectTrust": "always"})
    assert Settings.load(agent_dir=agent, cwd=cwd).follow_up_mode == "all"
    assert Settings.load(agent_dir=agent, cwd=cwd, approve=False).follow_up_mode == "one-at-a-time"


def test_invalid_json_warns_and_uses_defaults(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    _write(agent / "settings.json", "{broken")
    warnings: list[str] = []
    s = Settings.load(agent_dir=agent, cwd=tmp_path, warn=warnings.append)
    assert s.compaction_enabled is True
    assert len(warnings) == 1 and "settings.json" in warnings[0]


def test_writers_persist_to_global_and_keep_other_keys(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    _write(agent / "settings.json", {"defaultModel": "m", "compaction": {"reserveTokens": 5}})
    _write(cwd / ".pi" / "settings.json", {"retry": {"enabled": True}})
    s = Settings.load(agent_dir=agent, cwd=cwd, approve=True)
    s.set_steering_mode("all")
    s.set_follow_up_mode("bogus")  # upstream stores whatever it is given
    s.set_compaction_enabled(False)
    s.set_retry_enabled(False)
    on_disk = json.loads((agent / "settings.json").read_text())
    assert on_disk == {
        "defaultModel": "m",
        "compaction": {"reserveTokens": 5, "enabled": False},
        "steeringMode": "all",
        "followUpMode": "bogus",
        "retry": {"enabled": False},
    }
    assert json.loads((cwd / ".pi" / "settings.json").read_text()) == {"retry": {"enabled": True}}
    assert s.steering_mode == "all" and s.compaction_enabled is False
    assert s.retry_enabled is True  # the project file still wins in the merged view (upstream quirk)


def test_writer_creates_agent_dir(tmp_path: Path) -> None:
    s = Settings.load(agent_dir=tmp_path / "new" / "agent", cwd=tmp_path)
    s.set_retry_enabled(False)
    assert json.loads((tmp_path / "new" / "agent" / "settings.json").read_text()) == {"retry": {"enabled": False}}


def test_deep_merge_is_one_level() -> None:
    assert deep_merge({"a": {"b": {"c": 1}, "d": 1}, "l": [1]}, {"a": {"b": {"e": 2}}, "l": [2]}) == {
        "a": {"b": {"e": 2}, "d": 1},
        "l": [2],
    }


def test_children_registry_kills_tracked_groups() -> None:
    import subprocess

    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        children.register(proc.pid, pgid=proc.pid)
        assert any(c.pid == proc.pid for c in children.tracked())
        assert children.kill_all() == 1
        assert proc.wait(timeout=5) != 0
        assert children.tracked() == []
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("value", ["1", "true", "YES"])
def test_offline_env(value: str) -> None:
    assert paths.is_offline({"PI_OFFLINE": value})
    assert not paths.is_offline({"PI_OFFLINE": "0"})

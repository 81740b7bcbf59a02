"""The refresh machinery in-process (``pi_rpc.ai.auth.oauth``): when a credential is due,
double-checked locking, an abort cancelling only the wait for the lock, failures in upstream's
words with the stored credential kept, and the JavaScript behaviours the refresh requests
reproduce (``URLSearchParams``, ``atob``)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from pi_rpc.ai.abort import AbortController
from pi_rpc.ai.auth.oauth import (
    OAUTH_PROVIDER_IDS,
    OAuthError,
    expires_within,
    get_oauth_provider,
    pending_credential_writes,
    resolve_stored_oauth,
)
from pi_rpc.ai.auth.oauth.base import atob, decode_jwt_payload, form_body
from pi_rpc.ai.auth.oauth.github_copilot import available_model_ids, base_url
from pi_rpc.ai.auth.store import AuthStore
from pi_rpc.ai.auth.types import Credential, LoginInteraction, OAuthAuth, OAuthProvider
from pi_rpc.ai.errors import AbortedError

pytestmark = pytest.mark.anyio


def _now() -> int:
    return int(time.time() * 1000)


async def _no_login(interaction: LoginInteraction) -> Credential:
    raise AssertionError("these tests refresh; they never sign in")


class Counting:
    """A provider whose refresh is counted (and may be slow or fail)."""

    def __init__(self, delay_s: float = 0.0, fail: bool = False) -> None:
        self.calls = 0
        self.delay_s = delay_s
        self.fail = fail
        self.finished = False

    async def refresh(self, credential: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        self.calls += 1
        assert timeout_s == 15.0
        await anyio.sleep(self.delay_s)
        if self.fail:
            raise RuntimeError("token endpoint said no")
        self.finished = True
        return {"type": "oauth", "refresh": "r2", "access": "a2", "expires": _now() + 3600_000}

    def provider(self) -> OAuthProvider:
        return OAuthProvider("anthropic", "Test", True, self.refresh, lambda c: OAuthAuth(c["access"]), _no_login)


def _store(tmp_path: Path, expires_in_ms: int) -> tuple[AuthStore, dict[str, Any]]:
    path = tmp_path / "auth.json"
    entry = {"type": "oauth", "refresh": "r1", "access": "a1", "expires": _now() + expires_in_ms}
    path.write_text(json.dumps({"other": {"type": "api_key", "key": "k"}, "anthropic": entry}, indent=2))
    store = AuthStore(path)
    store.reload()
    return store, entry


def test_registry_has_every_upstream_provider() -> None:
    assert OAUTH_PROVIDER_IDS == (
        "anthropic", "openai-codex", "openai", "github-copilot", "xai", "kimi-coding", "meta", "openrouter", "radius"
    )  # fmt: skip
    for provider_id in OAUTH_PROVIDER_IDS:
        provider = get_oauth_provider(provider_id)
        assert provider is not None and provider.id == provider_id
    assert get_oauth_provider("groq") is None


def test_one_module_per_provider_matches_the_display_table() -> None:
    # Each provider's module defines its sign-in, refresh and key derivation in one object; the
    # display table (upstream's lazyOAuth names, read without loading a provider module) names
    # an account sign-in for exactly these providers, under the provider object's name.
    import inspect

    from pi_rpc.ai.auth.login.providers import PROVIDERS

    assert sorted(p for p, info in PROVIDERS.items() if info.oauth_name) == sorted(OAUTH_PROVIDER_IDS)
    for provider_id in OAUTH_PROVIDER_IDS:
        provider = get_oauth_provider(provider_id)
        assert provider is not None
        assert provider.name == PROVIDERS[provider_id].oauth_name
        assert inspect.iscoroutinefunction(provider.login) and inspect.iscoroutinefunction(provider.refresh)
        assert provider.login.__module__ == provider.refresh.__module__ == provider.to_auth.__module__


def test_due_within_five_minutes() -> None:
    assert expires_within({"expires": _now() + 4 * 60_000})
    assert not expires_within({"expires": _now() + 6 * 60_000})
    assert expires_within({"expires": _now() + 60 * 60_000}, min_validity_ms=2 * 3600_000)


async def test_valid_credential_not_refreshed(tmp_path: Path) -> None:
    store, entry = _store(tmp_path, 3600_000)
    counting = Counting()
    assert await resolve_stored_oauth(store, counting.provider(), entry) is entry
    assert counting.calls == 0


async def test_refreshed_and_written_keeping_other_entries(tmp_path: Path) -> None:
    store, entry = _store(tmp_path, -1)
    counting = Counting()
    result = await resolve_stored_oauth(store, counting.provider(), entry)
    assert result is not None and result["access"] == "a2"
    data = json.loads(store.path.read_text())
    assert list(data) == ["other", "anthropic"] and data["anthropic"]["access"] == "a2"


async def test_concurrent_requests_refresh_once(tmp_path: Path) -> None:
    """Two requests in one process: the second finds the refreshed credential under the lock."""
    store, entry = _store(tmp_path, -1)
    counting = Counting(delay_s=0.2)
    results: list[Any] = []

    async def one() -> None:
        results.append(await resolve_stored_oauth(store, counting.provider(), entry))

    async with anyio.create_task_group() as tg:
        tg.start_soon(one)
        tg.start_soon(one)
    assert counting.calls == 1
    assert [r["access"] for r in results] == ["a2", "a2"]


async def test_logged_out_meanwhile(tmp_path: Path) -> None:
    store, entry = _store(tmp_path, -1)
    store.path.write_text(json.dumps({"other": {"type": "api_key", "key": "k"}}))
    counting = Counting()
    assert await resolve_stored_oauth(store, counting.provider(), entry) is None
    assert counting.calls == 0


async def test_failure_keeps_credential_with_upstream_message(tmp_path: Path) -> None:
    store, entry = _store(tmp_path, -1)
    before = store.path.read_bytes()
    with pytest.raises(OAuthError) as caught:
        await resolve_stored_oauth(store, Counting(fail=True).provider(), entry)
    assert str(caught.value) == "OAuth refresh failed for anthropic: token endpoint said no"
    assert caught.value.code == "oauth"
    assert store.path.read_bytes() == before
    assert not Path(str(store.path) + ".lock").exists()


async def test_too_short_after_explicit_minimum(tmp_path: Path) -> None:
    store, entry = _store(tmp_path, -1)
    with pytest.raises(OAuthError, match="OAuth refresh returned a token that expires too soon for anthropic"):
        await resolve_stored_oauth(store, Counting().provider(), entry, min_validity_ms=2 * 3600_000)


async def test_abort_cancels_only_the_lock_wait(tmp_path: Path) -> None:
    store, entry = _store(tmp_path, -1)
    lock = Path(os.path.realpath(store.path) + ".lock")
    lock.mkdir()  # a foreign holder
    controller = AbortController()
    counting = Counting()
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(lambda: _abort_after(controller, 0.3))
            with pytest.raises(AbortedError):
                await resolve_stored_oauth(store, counting.provider(), entry, signal=controller.signal)
    assert counting.calls == 0
    lock.rmdir()


async def test_abort_after_refresh_started_does_not_cancel_it(tmp_path: Path) -> None:
    store, entry = _store(tmp_path, -1)
    controller = AbortController()
    counting = Counting(delay_s=0.5)
    pending: list[int] = []

    async def abort_later() -> None:
        await _abort_after(controller, 0.2)
        pending.append(pending_credential_writes())

    async with anyio.create_task_group() as tg:
        tg.start_soon(abort_later)
        result = await resolve_stored_oauth(store, counting.provider(), entry, signal=controller.signal)
    assert counting.finished and result is not None and result["access"] == "a2"
    assert pending == [1] and pending_credential_writes() == 0
    assert json.loads(store.path.read_text())["anthropic"]["access"] == "a2"


async def _abort_after(controller: AbortController, seconds: float) -> None:
    await anyio.sleep(seconds)
    controller.abort()


def test_form_body_is_url_search_params() -> None:
    # URLSearchParams leaves only * - . _ and alphanumerics; space is +; ~ is escaped.
    assert form_body({"a b": "x~y*z!é/+="}) == b"a+b=x%7Ey*z%21%C3%A9%2F%2B%3D"


def test_atob_forgiving_base64() -> None:
    assert atob("aGk") == "hi"
    assert atob("aGk=") == "hi"
    with pytest.raises(ValueError):
        atob("a-_b")  # base64url is not base64 for atob
    assert decode_jwt_payload("x.eyJhIjoxfQ.y") == {"a": 1}
    assert decode_jwt_payload("x.y") is None


def test_copilot_base_url_and_model_ids() -> None:
    assert base_url("tid=1;proxy-ep=proxy.enterprise.githubcopilot.com;x=y", None) == (
        "https://api.enterprise.githubcopilot.com"
    )
    assert base_url("tid=1", "ghe.example.com") == "https://copilot-api.ghe.example.com"
    assert base_url(None, None) == "https://api.individual.githubcopilot.com"
    raw = {
        "data": [
            {"id": "a", "model_picker_enabled": True},
            {"id": "b", "model_picker_enabled": True, "policy": {"state": "disabled"}},
            {"id": "c", "model_picker_enabled": False, "policy": {"state": "enabled"}},
        ]
    }
    assert available_model_ids(raw, True) == ["a"]
    fallback = {"data": [{"id": "c", "policy": {"state": "enabled"}}, {"id": "d"}]}
    assert available_model_ids(fallback, True) == ["c"]
    assert available_model_ids(fallback, False) == []


async def test_failure_message_redacts_tokens(tmp_path: Path) -> None:
    """A token endpoint that echoes tokens: the error keeps upstream's wording, the tokens are
    ``[redacted]`` (the message reaches stdout and the session file)."""
    store, entry = _store(tmp_path, -1)
    entry = {**entry, "refresh": "rt-stored-secret"}
    store.path.write_text(json.dumps({"anthropic": entry}))

    async def echo(credential: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        body = '{"refresh_token": "rt-other", "access_token":"zzzz"}'
        raise RuntimeError(f"HTTP 400; body={body}; sent rt-stored-secret; form refresh_token=abc&x=1")

    provider = OAuthProvider("anthropic", "Test", True, echo, lambda c: OAuthAuth(c["access"]), _no_login)
    with pytest.raises(OAuthError) as caught:
        await resolve_stored_oauth(store, provider, entry)
    assert str(caught.value) == (
        'OAuth refresh failed for anthropic: HTTP 400; body={"refresh_token": "[redacted]", '
        '"access_token":"[redacted]"}; sent [redacted]; form refresh_token=[redacted]&x=1'
    )

"""What the first request does not pay for: a plain-http model server gets a client without
the CA bundle (which costs tens of milliseconds to load), in a way that fails closed, and the
warm-up prepares the same things off the request path."""

from __future__ import annotations

import ssl

import pytest

from pi_rpc.ai import http


def test_tls_is_possible_for_https_and_behind_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    assert http.tls_possible("https://api.openai.com/v1/chat/completions")
    assert http.tls_possible("HTTPS://example.com")
    assert not http.tls_possible("http://127.0.0.1:11434/v1/chat/completions")
    assert not http.tls_possible("HTTP://localhost:8080")
    monkeypatch.setenv("HTTPS_PROXY", "https://proxy.example:3128")
    assert http.tls_possible("http://127.0.0.1:11434/v1")
    monkeypatch.delenv("HTTPS_PROXY")
    monkeypatch.setenv("all_proxy", "socks5://proxy.example:1080")
    assert http.tls_possible("http://127.0.0.1:11434/v1")


def test_the_context_for_plain_http_trusts_nothing() -> None:
    context = http._unused_tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0  # any certificate fails verification
    verified = http._ssl_context()
    assert verified is not context and verified.cert_store_stats()["x509_ca"] > 0


def test_warm_up_imports_the_provider_without_registering_it() -> None:
    import importlib
    import sys

    from pi_rpc.ai import warmup
    from pi_rpc.ai.stream import _LAZY, get_provider

    get_provider("faux")  # loads the built-in table (lazy entries)
    lazy_before = dict(_LAZY)
    warmup.warm_up("anthropic-messages", "http://127.0.0.1:9")
    assert "pi_rpc.ai.providers.anthropic_messages" in sys.modules
    assert _LAZY == lazy_before  # still resolved through the registry on first use
    assert get_provider("anthropic-messages") is importlib.import_module(
        "pi_rpc.ai.providers.anthropic_messages"
    ).stream_anthropic_messages

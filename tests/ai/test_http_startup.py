"""What the first request does not pay for: a plain-http model server gets a client without
the CA bundle (which costs tens of milliseconds to load), in a way that fails closed, and the
warm-up prepares the same things off the request path; httpx is imported without its
command-line tool (click, pygments, rich)."""

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
    assert (
        get_provider("anthropic-messages")
        is importlib.import_module("pi_rpc.ai.providers.anthropic_messages").stream_anthropic_messages
    )


HTTPX_CLI_PROBE = """
import importlib.util, json, sys
installed = [m for m in ("click", "pygments") if importlib.util.find_spec(m) is not None]
import pi_rpc.ai.http as http
loaded = [m for m in ("click", "pygments", "rich") if m in sys.modules]
stub_main = callable(http.httpx.main)
try:
    import httpx._main
    by_name = "imported"
except ModuleNotFoundError as exc:
    by_name = "missing " + str(exc.name)
print(json.dumps({"installed": installed, "loaded": loaded, "stub_main": stub_main, "by_name": by_name}))
"""


def test_httpx_is_imported_without_its_command_line_tool() -> None:
    import json
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", HTTPX_CLI_PROBE], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    probe = json.loads(run.stdout)
    assert probe["installed"], "the test environment has click/pygments (uvicorn, pytest): the case that costs"
    assert probe["loaded"] == [] and probe["stub_main"]
    # Asked for by name afterwards, the CLI module is imported normally (not blocked): it
    # loads, or fails on a package of its own that is missing (rich is not a dependency).
    assert probe["by_name"] == "imported" or (
        probe["by_name"].startswith("missing ") and probe["by_name"] != "missing httpx._main"
    )

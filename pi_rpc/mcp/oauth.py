"""OAuth for HTTP MCP servers (upstream's ``extensions/mcp/oauth`` on the ``mcp`` SDK's client).

- Credentials live in ``<agentDir>/mcp-auth.json``, keyed by ``mcp__<server>|<url>`` (upstream's
  key and state shape: ``serverUrl``, ``clientInformation``, ``tokens``, ``tokensExpireAt``,
  ``discovery``), written atomically under a file lock, readable only by the user.
- Connections never start a browser flow (``SessionAuth``): they send the stored access token,
  refresh it when it is about to expire or after a 401, and otherwise fail with
  ``McpSignInRequired`` so the session reports that the server needs sign-in and goes on.
  More scope (``insufficient_scope``) always needs a new sign-in.
- ``pi mcp login`` (``login``) runs the SDK's ``OAuthClientProvider``: protected resource and
  authorization server discovery (or ``oauth.authServerMetadataUrl``), a configured client or
  dynamic client registration (``clientRegistration: "cimd"`` uses pi's Client ID Metadata
  Document), PKCE, and a loopback callback on ``127.0.0.1`` (``callbackPort``/``callbackUrl``)
  that the browser is redirected to; the pasted redirect URL works too in a terminal.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import threading
import time
import webbrowser
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import anyio
from anyio.abc import SocketAttribute

from pi_rpc.mcp.configvalue import resolve_or_raise
from pi_rpc.mcp.naming import mcp_namespace

if TYPE_CHECKING:
    import httpx

    from pi_rpc.mcp.config import ServerEntry
    from pi_rpc.mcp.connection import McpConnection

REFRESH_SKEW_S = 30.0
CALLBACK_HEADERS_TIMEOUT_S = 10.0  # for the browser's redirect to send its request head
CLIENT_NAME = "pi"
CLIENT_METADATA_DOCUMENT = "https://pi.dev/oauth/client.json"


def normalize_url(url: str) -> str:
    """The URL as WHATWG ``String(new URL(url))`` writes it for http(s) URLs."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    if port is not None and not ((scheme == "http" and port == 80) or (scheme == "https" and port == 443)):
        host = f"{host}:{port}"
    userinfo = ""
    if parts.username is not None:
        userinfo = parts.username + (f":{parts.password}" if parts.password is not None else "") + "@"
    return urlunsplit((scheme, userinfo + host, parts.path or "/", parts.query, parts.fragment))


def store_keys(name: str, url: str) -> tuple[str, str]:
    legacy = normalize_url(url)
    return f"{mcp_namespace(name)}|{legacy}", legacy


class CredentialStore:
    """Per-server OAuth state in one JSON file shared with other pi processes."""

    def __init__(self, path: str) -> None:
        self.path = path

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        os.makedirs(os.path.dirname(self.path) or ".", mode=0o700, exist_ok=True)
        with open(self.path + ".lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield self._read()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _read(self) -> dict[str, object]:
        try:
            with open(self.path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            return {}
        if not text.strip():
            return {}
        parsed = json.loads(text)
        return parsed if isinstance(parsed, dict) else {}

    def _write(self, states: dict[str, object]) -> None:
        from pi_rpc.config.safe_write import replace_file

        # (a temp file no one can plant: a link at a guessable name never redirects the write)
        replace_file(self.path, (json.dumps(states, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))

    def load(self, name: str, url: str) -> dict[str, Any]:
        """The server's state (taking over a legacy URL-keyed entry), scoped to its URL."""
        key, legacy = store_keys(name, url)
        with self._locked() as states:
            if key not in states and legacy in states:
                states[key] = states.pop(legacy)
                self._write(states)
            state = states.get(key)
        server_url = normalize_url(url)
        if not isinstance(state, dict) or state.get("serverUrl") not in (None, server_url):
            return {"serverUrl": server_url}
        return dict(state)

    def update(
        self, name: str, url: str, change: Callable[[dict[str, object]], dict[str, object]]
    ) -> dict[str, object]:
        key, _legacy = store_keys(name, url)
        server_url = normalize_url(url)
        with self._locked() as states:
            current = states.get(key)
            if not isinstance(current, dict) or current.get("serverUrl") not in (None, server_url):
                current = {"serverUrl": server_url}
            states[key] = change({**current, "serverUrl": server_url})
            self._write(states)
            return dict(states[key])

    def tokens(self, name: str, url: str) -> object:
        key, legacy = store_keys(name, url)
        with self._locked() as states:
            state = states.get(key) or states.get(legacy)
        return state.get("tokens") if isinstance(state, dict) else None

    def remove(self, name: str, url: str) -> bool:
        key, legacy = store_keys(name, url)
        with self._locked() as states:
            stored = key if key in states else legacy if legacy in states else None
            if stored is None:
                return False
            del states[stored]
            self._write(states)
            return True


def _save_tokens(state: dict[str, object], tokens: dict[str, object]) -> dict[str, object]:
    next_state = {**state, "tokens": tokens}
    expires = tokens.get("expires_in")
    if isinstance(expires, (int, float)):
        next_state["tokensExpireAt"] = int(time.time() * 1000 + expires * 1000)
    else:
        next_state.pop("tokensExpireAt", None)
    return next_state


def parse_www_authenticate(header: str | None) -> dict[str, str]:
    """The ``Bearer`` challenge parameters (``error``, ``scope``, ``resource_metadata``)."""
    if not header:
        return {}
    params: dict[str, str] = {}
    for match in re.finditer(r'(\w+)=(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))', header):
        params[match.group(1)] = match.group(2) if match.group(2) is not None else match.group(3)
    return params


def _raise_sign_in(name: str) -> None:
    from pi_rpc.mcp.connection import McpSignInRequired

    raise McpSignInRequired(f'MCP server "{name}" requires sign-in.')


def client_credentials(state: dict[str, Any], settings: dict[str, Any]) -> tuple[str, str | None] | None:
    """The client the tokens were issued to: the configured one, else the registered one."""
    if settings.get("clientId"):
        return str(settings["clientId"]), settings.get("clientSecret")
    info = state.get("clientInformation") or {}
    if info.get("client_id"):
        return str(info["client_id"]), info.get("client_secret")
    return None


def session_auth(store: CredentialStore, name: str, url: str, settings: Callable[[], dict[str, object]]) -> object:
    """An ``httpx.Auth`` for a connection: the stored token, refreshed when it is about to expire
    or after a 401; otherwise ``McpSignInRequired``. Never a browser."""
    import httpx

    def expired(state: dict[str, object]) -> bool:
        expires = state.get("tokensExpireAt")
        return isinstance(expires, (int, float)) and expires / 1000 - REFRESH_SKEW_S <= time.time()

    def refresh_request(state: dict[str, Any]) -> httpx.Request | None:
        tokens = state.get("tokens") or {}
        metadata = (state.get("discovery") or {}).get("authorizationServerMetadata") or {}
        client = client_credentials(state, settings())
        if not tokens.get("refresh_token") or not metadata.get("token_endpoint") or client is None:
            return None
        form = {
            "grant_type": "refresh_token",
            "refresh_token": tokens["refresh_token"],
            "client_id": client[0],
            "resource": url,
        }
        if client[1]:
            form["client_secret"] = client[1]
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        return httpx.Request("POST", metadata["token_endpoint"], content=urlencode(form).encode(), headers=headers)

    async def refreshed(response: httpx.Response, state: dict[str, Any]) -> dict[str, Any]:
        await response.aread()
        try:
            tokens = response.json() if response.status_code == 200 else None
        except ValueError:
            tokens = None
        if not isinstance(tokens, dict) or not tokens.get("access_token"):
            return state
        if not tokens.get("refresh_token") and (state.get("tokens") or {}).get("refresh_token"):
            tokens["refresh_token"] = state["tokens"]["refresh_token"]
        return store.update(name, url, lambda current: _save_tokens(current, tokens))

    class SessionAuth(httpx.Auth):
        async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
            state = store.load(name, url)
            if expired(state):
                refresh = refresh_request(state)
                if refresh is not None:  # a failed refresh falls through: the 401 decides
                    state = await refreshed((yield refresh), state)
            token = (state.get("tokens") or {}).get("access_token")
            if token:
                request.headers["Authorization"] = f"Bearer {token}"
            response = yield request
            challenge = parse_www_authenticate(response.headers.get("www-authenticate"))
            insufficient = challenge.get("error") == "insufficient_scope"
            if response.status_code == 401 or (response.status_code == 403 and insufficient):
                refresh = None if insufficient else refresh_request(state)
                if refresh is None:
                    _raise_sign_in(name)
                assert refresh is not None
                state = await refreshed((yield refresh), state)
                token = (state.get("tokens") or {}).get("access_token")
                if not token:
                    _raise_sign_in(name)
                request.headers["Authorization"] = f"Bearer {token}"
                response = yield request
                if response.status_code == 401:
                    _raise_sign_in(name)

    return SessionAuth()


class OAuthSupport:
    """OAuth of one process: the credential store and the auth of each connection."""

    def __init__(self, store: CredentialStore) -> None:
        self.store = store

    def settings(self, entry: ServerEntry) -> dict[str, object]:
        oauth = dict(entry.config.get("oauth") or {})
        if "clientSecret" in oauth:
            oauth["clientSecret"] = resolve_or_raise(
                oauth["clientSecret"], f'MCP server "{entry.name}" oauth.clientSecret'
            )
        return oauth

    def httpx_auth(self, connection: McpConnection) -> object:
        entry = connection.entry
        return session_auth(self.store, entry.name, str(entry.config["url"]), lambda: self.settings(entry))


# --------------------------------------------------------------------------- sign-in


class _Callback:
    """The loopback redirect target: ``http://127.0.0.1:<port>/callback``."""

    def __init__(self, host: str, port: int, path: str) -> None:
        self.host = host
        self.port = port
        self.path = path
        self.result: anyio.Event = anyio.Event()
        self.params: dict[str, str] = {}
        self._listener: Any = None

    @property
    def redirect_url(self) -> str:
        host = "localhost" if self.host == "localhost" else self.host
        return f"http://{host}:{self.port}{self.path}"

    async def start(self, tg: Any) -> None:
        self._listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=self.port)
        if self.port == 0:
            self.port = self._listener.extra(SocketAttribute.local_port)
        tg.start_soon(self._serve)

    async def _serve(self) -> None:
        await self._listener.serve(self._handle)

    async def _handle(self, stream: Any) -> None:
        async with stream:
            data = b""
            with anyio.move_on_after(CALLBACK_HEADERS_TIMEOUT_S):
                while b"\r\n\r\n" not in data and len(data) < 65536:
                    chunk = await stream.receive()
                    if not chunk:
                        break
                    data += chunk
            line = data.split(b"\r\n", 1)[0].decode("latin-1")
            target = line.split(" ")[1] if len(line.split(" ")) > 1 else "/"
            parts = urlsplit(target)
            if parts.path != self.path:
                await stream.send(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            params = {k: v[0] for k, v in parse_qs(parts.query).items()}
            ok = "code" in params
            body = (
                "<html><body><p>Signed in to the MCP server. You may now close this page.</p></body></html>"
                if ok
                else f"<html><body><p>Sign-in failed: {params.get('error', 'no authorization code')}</p></body></html>"
            ).encode()
            await stream.send(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\nContent-Length: "
                + str(len(body)).encode()
                + b"\r\n\r\n"
                + body
            )
            if not self.result.is_set():
                self.params = params
                self.result.set()

    async def close(self) -> None:
        if self._listener is not None:
            await self._listener.aclose()


def _callback_target(settings: dict[str, Any]) -> tuple[str, int, str]:
    url = settings.get("callbackUrl")
    port = settings.get("callbackPort")
    if isinstance(url, str):
        parts = urlsplit(url)
        host = parts.hostname or "127.0.0.1"
        return host, parts.port or port or 0, parts.path or "/"
    return "127.0.0.1", int(port) if port else 0, "/callback"


def _registered_redirect(state: dict[str, Any], host: str, path: str) -> int | None:
    """The port of the stored client's loopback redirect URI on ``host`` and ``path``."""
    for uri in (state.get("clientInformation") or {}).get("redirect_uris") or []:
        parts = urlsplit(str(uri))
        if parts.hostname == host and (parts.path or "/") == path and parts.port:
            return parts.port
    return None


class _Storage:
    """The SDK's ``TokenStorage`` over the credential store (a configured client wins)."""

    def __init__(self, store: CredentialStore, name: str, url: str, settings: dict[str, object]) -> None:
        self.store, self.name, self.url, self.settings = store, name, url, settings

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        tokens = self.store.load(self.name, self.url).get("tokens")
        return OAuthToken.model_validate(tokens) if tokens else None

    async def set_tokens(self, tokens: Any) -> None:
        data = tokens.model_dump(mode="json", exclude_none=True)
        self.store.update(self.name, self.url, lambda state: _save_tokens(state, data))

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        if self.settings.get("clientId"):
            info: dict[str, Any] = {"client_id": self.settings["clientId"], "redirect_uris": None}
            if self.settings.get("clientSecret"):
                info["client_secret"] = self.settings["clientSecret"]
            return OAuthClientInformationFull.model_validate({k: v for k, v in info.items() if v is not None})
        stored = self.store.load(self.name, self.url).get("clientInformation")
        return OAuthClientInformationFull.model_validate(stored) if stored else None

    async def set_client_info(self, client_info: Any) -> None:
        if self.settings.get("clientId"):
            return
        data = client_info.model_dump(mode="json", exclude_none=True)
        self.store.update(self.name, self.url, lambda state: {**state, "clientInformation": data})


def open_browser(url: str) -> None:
    """Open the authorization page without blocking: a browser command may wait for the page,
    which needs our loopback callback to answer."""

    def run() -> None:
        with contextlib.suppress(Exception):
            webbrowser.open(url)

    threading.Thread(target=run, name="open-browser", daemon=True).start()


async def sign_in(
    entry: ServerEntry,
    store: CredentialStore,
    settings: dict[str, object],
    show_url: Callable[[str], None],
) -> None:
    """Run the authorization code flow against the server; tokens end up in ``store``."""
    import httpx
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    url = str(entry.config["url"])
    host, port, path = _callback_target(settings)
    registered = _registered_redirect(store.load(entry.name, url), host, path)
    if not port and registered is not None:
        port = registered  # a client registered before stays in use while its redirect URI matches
    callback = _Callback(host, port, path)
    try:
        async with anyio.create_task_group() as tg:
            try:
                await callback.start(tg)
            except OSError:
                if port != registered:
                    raise
                callback = _Callback(host, 0, path)  # that port is taken: register again
                await callback.start(tg)
            if registered is not None and callback.port != registered and not settings.get("clientId"):
                store.update(
                    entry.name, url, lambda state: {k: v for k, v in state.items() if k != "clientInformation"}
                )
            try:
                metadata = {
                    "client_name": settings.get("clientName") or CLIENT_NAME,
                    "redirect_uris": [callback.redirect_url],
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                    "token_endpoint_auth_method": "client_secret_post" if settings.get("clientSecret") else "none",
                }
                if settings.get("scope"):
                    metadata["scope"] = settings["scope"]

                async def redirect_handler(authorization_url: str) -> None:
                    show_url(authorization_url)

                async def callback_handler() -> tuple[str, str | None]:
                    await callback.result.wait()
                    if "code" not in callback.params:
                        raise RuntimeError(
                            callback.params.get("error_description")
                            or callback.params.get("error")
                            or "no authorization code"
                        )
                    return callback.params["code"], callback.params.get("state")

                provider = OAuthClientProvider(
                    server_url=url,
                    client_metadata=OAuthClientMetadata.model_validate(metadata),
                    storage=_Storage(store, entry.name, url, settings),
                    redirect_handler=redirect_handler,
                    callback_handler=callback_handler,
                    client_metadata_url=CLIENT_METADATA_DOCUMENT
                    if settings.get("clientRegistration") == "cimd"
                    else None,
                )
                # Any request to the server answered 401 runs the flow in-band; an MCP ping is enough.
                async with httpx.AsyncClient(auth=provider, timeout=30.0) as client:
                    response = await client.post(
                        url,
                        json={"jsonrpc": "2.0", "id": 0, "method": "ping"},
                        headers={"Accept": "application/json, text/event-stream"},
                    )
                    await response.aread()
                context = provider.context
                if context.oauth_metadata is None or context.current_tokens is None:
                    raise RuntimeError(f"the server answered {response.status_code} without an OAuth challenge")
                discovery = {
                    "authorizationServerUrl": str(context.auth_server_url or ""),
                    "authorizationServerMetadata": context.oauth_metadata.model_dump(mode="json", exclude_none=True),
                }
                store.update(entry.name, url, lambda state: {**state, "discovery": discovery})
            finally:
                tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await callback.close()


async def login(
    entry: ServerEntry,
    cwd: str,
    agent_dir: str,
    store: CredentialStore,
    timeout_s: float,
    log: Callable[[str], None],
    error: Callable[[str], None],
    open_url: Callable[[str], None] | None = None,
) -> int:
    """``pi mcp login <server>``."""
    from pi_rpc.mcp.connection import McpConnection
    from pi_rpc.mcp.log import ServerLog

    name = entry.name
    support = OAuthSupport(store)
    async with anyio.create_task_group() as tg:
        connection = McpConnection(entry, cwd, tg, log=ServerLog(os.path.join(agent_dir, "mcp.log")), oauth=support)
        try:
            await connection.get_session()
            log(f'Already signed in to MCP server "{name}" ({len(connection.tools)} tools).')
            await connection.close()
            return 0
        except Exception:  # noqa: BLE001 - the state says what happened
            if connection.state != "needs-auth":
                error(f'MCP server "{name}" failed to connect: {connection.error or "unknown error"}')
                await connection.close()
                return 1
        opener = open_url or open_browser

        def show(url: str) -> None:
            log(f'Sign in to MCP server "{name}" in your browser:\n{url}')
            opener(url)

        try:
            settings = support.settings(entry)
            with anyio.fail_after(timeout_s):
                await sign_in(entry, store, settings, show)
        except TimeoutError:
            error(f'Sign-in to MCP server "{name}" was cancelled or not completed within {round(timeout_s)} seconds.')
            await connection.close()
            return 1
        except Exception as exc:  # noqa: BLE001
            from pi_rpc.mcp.connection import error_message

            error(f'Sign-in to MCP server "{name}" failed: {error_message(exc)}')
            await connection.close()
            return 1
        try:
            await connection.reconnect()
        except Exception as exc:  # noqa: BLE001
            from pi_rpc.mcp.connection import error_message

            error(f"Signed in, but {error_message(exc)}")
            await connection.close()
            return 1
        log(f'Signed in to MCP server "{name}" ({len(connection.tools)} tools).')
        await connection.close()
        tg.cancel_scope.cancel()
    return 0

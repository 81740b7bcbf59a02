"""The loopback OAuth redirect handler of the browser sign-ins (``pi-ai/dist/auth/oauth/
callback-server.js``): one HTTP server on 127.0.0.1 that answers ``GET <path>?code=…&state=…``
(404 for another route, 400 for a state mismatch or a missing code, 409 once handled) and hands
the code to the waiting flow. The browser -- or whoever requests the URL -- completes the step."""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.abc

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.types import CANCELLED


def _page(title: str, detail: str | None = None) -> bytes:
    body = f"<!doctype html><html><body><h1>{html.escape(title)}</h1>"
    if detail:
        body += f"<p>{html.escape(detail)}</p>"
    return (body + "</body></html>").encode()


Complete = Callable[[str], Awaitable[object]]
# A flow's own check of the callback's query (OpenAI's issued client id): an error text answers
# 400 with it and the server keeps waiting, as upstream's per-flow servers do.
Check = Callable[[dict[str, str]], "str | None"]

T = TypeVar("T")


class CallbackServer:
    """``await CallbackServer.start(...)``; ``redirect_uri``; ``await wait()`` gives the code, or
    what ``complete(code)`` made of it before the page was answered (None when ``cancel()``ed);
    ``aclose()`` stops it."""

    def __init__(
        self,
        listener: anyio.abc.Listener[anyio.abc.SocketStream],
        provider_name: str,
        path: str,
        state: str | None,
        complete: Complete | None = None,
        check: Check | None = None,
    ) -> None:
        self._complete = complete
        self._check = check
        self.query: dict[str, str] = {}  # the accepted callback's query (a flow may need more than the code)
        self._listener = listener
        self._name = provider_name
        self._path = path
        self._state = state
        self._done = anyio.Event()
        self._result: tuple[object, str | None] = (None, None)  # (code or completed value, error)
        self._claimed = False
        self._pending_code = ""
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        self.redirect_uri = f"http://localhost:{port}{path}"

    @classmethod
    async def start(
        cls,
        tg: anyio.abc.TaskGroup,
        provider_name: str,
        port: int,
        path: str,
        state: str | None,
        complete: Complete | None = None,
        *,
        host: str = "127.0.0.1",
        check: Check | None = None,
    ) -> CallbackServer:
        listener = await anyio.create_tcp_listener(local_host=host, local_port=port)
        server = cls(listener, provider_name, path, state, complete, check)
        tg.start_soon(server._serve)
        return server

    async def _serve(self) -> None:
        async with self._listener:
            await self._listener.serve(self._handle)

    async def _handle(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            data = b""
            with anyio.move_on_after(10):
                while b"\r\n\r\n" not in data and len(data) < 65536:
                    chunk = await stream.receive()
                    if not chunk:
                        break
                    data += chunk
            line = data.split(b"\r\n", 1)[0].decode("latin-1")
            parts = line.split()
            status, page = self._answer(parts[0] if parts else "", parts[1] if len(parts) > 1 else "/")
            if status == 200 and self._complete is not None:
                status, page = await self._run_complete()
            head = f"HTTP/1.1 {status} X\r\ncontent-type: text/html; charset=utf-8\r\ncache-control: no-store\r\n"
            await stream.send(
                head.encode() + f"content-length: {len(page)}\r\nconnection: close\r\n\r\n".encode() + page
            )

    def _answer(self, method: str, target: str) -> tuple[int, bytes]:
        url = urlsplit(target)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        if method != "GET" or url.path != self._path:
            return 404, _page("Callback route not found.")
        if self._state is not None and query.get("state") != self._state:
            return 400, _page("State mismatch.")
        if self._claimed or self._done.is_set():
            return 409, _page("This sign-in has already been handled.")
        if query.get("error"):
            description = query.get("error_description") or query["error"]
            self._finish(None, f"{self._name} authorization failed: {description}")
            return 400, _page(f"{self._name} authorization failed.", description)
        code = query.get("code")
        if not code:
            return 400, _page("Missing authorization code.")
        problem = self._check(query) if self._check is not None else None
        if problem is not None:
            return 400, _page(problem)
        self.query = query
        self._claimed = True
        if self._complete is not None:
            self._pending_code = code
            return 200, b""  # answered by _run_complete
        self._finish(code, None)
        return 200, _page(f"Signed in to {self._name}. You may now close this page.")

    async def _run_complete(self) -> tuple[int, bytes]:
        """The flow's step that needs the code (a token exchange) before the page is answered,
        so that the page says whether the sign-in worked (upstream's ``complete``)."""
        assert self._complete is not None
        try:
            value = await self._complete(self._pending_code)
        except LoginError as exc:
            self._finish(None, str(exc))
            return 502, _page(f"{self._name} sign-in failed.", str(exc))
        self._finish(value, None)
        return 200, _page(f"Signed in to {self._name}. You may now close this page.")

    def _finish(self, code: object, error: str | None) -> None:
        if not self._done.is_set():
            self._result = (code, error)
            self._done.set()

    def cancel(self) -> None:
        if not self._claimed:
            self._finish(None, None)

    async def wait(self) -> Any:
        await self._done.wait()
        code, error = self._result
        if error:
            raise LoginError(error)
        return code

    async def aclose(self) -> None:
        self._finish(None, "OAuth callback server closed")
        await self._listener.aclose()


async def run_with_callback_server(
    provider_name: str,
    ports: Sequence[int],
    path: str,
    state: str | None,
    steps: Callable[[CallbackServer | None], Awaitable[T]],
    *,
    complete: Complete | None = None,
    check: Check | None = None,
    host: str = "127.0.0.1",
    port_taken: str | None = None,
) -> T:
    """``steps(callback)`` with a callback server on the first of ``ports`` that binds, the
    server stopped after. When none binds: with ``port_taken`` the login fails with that text,
    else ``steps(None)`` runs (the pasted redirect URL is then the only way in). ``complete``
    and ``check`` are the server's (``CallbackServer``). A ``LoginError`` from ``steps`` is
    raised as it is; a cancelled flow is ``Login cancelled``. Every browser sign-in runs here:
    the one place that owns the server's lifetime and the race with the pasted answer."""
    outcome: list[T] = []
    failure: list[LoginError] = []
    async with anyio.create_task_group() as tg:
        callback: CallbackServer | None = None
        for port in ports:
            try:
                callback = await CallbackServer.start(
                    tg, provider_name, port, path, state, complete, host=host, check=check
                )
                break
            except OSError:
                continue
        if callback is None and port_taken is not None:
            failure.append(LoginError(port_taken))
        else:
            try:
                outcome.append(await steps(callback))
            except LoginError as exc:
                # Kept out of the task group: its exception group would hide the message.
                failure.append(exc)
            finally:
                if callback is not None:
                    await callback.aclose()
        tg.cancel_scope.cancel()
    if failure:
        raise failure[0]
    if not outcome:
        raise LoginError(CANCELLED)
    return outcome[0]


async def wait_for_callback_or_manual(
    interaction: Any, callback: CallbackServer | None, message: str, placeholder: str
) -> tuple[str, Any]:
    """(``"callback"``, the code or what ``complete`` made of it) when the browser reached the server first, else (``"manual"``,
    pasted text): the pasted-code prompt runs alongside and whichever ends first wins."""
    result: list[tuple[str, object]] = []
    failure: list[BaseException] = []
    async with anyio.create_task_group() as tg:

        async def manual() -> None:
            try:
                question: dict[str, object] = {"type": "manual_code", "message": message, "placeholder": placeholder}
                if callback is not None:
                    question["alternative"] = True  # the browser's callback completes it too
                text = await interaction.prompt(question)
                result.append(("manual", text))
            except LoginError as exc:
                failure.append(exc)
            if callback is not None:
                callback.cancel()
            tg.cancel_scope.cancel()

        async def browser() -> None:
            assert callback is not None
            try:
                code = await callback.wait()
            except LoginError as exc:
                failure.append(exc)
                tg.cancel_scope.cancel()
                return
            if code is not None:
                result.append(("callback", code))
                tg.cancel_scope.cancel()

        tg.start_soon(manual)
        if callback is not None:
            tg.start_soon(browser)
    if result:
        return result[0]
    if failure:
        raise failure[0]
    raise LoginError(CANCELLED)

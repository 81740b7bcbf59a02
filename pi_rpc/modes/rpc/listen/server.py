"""The process lifecycle of ``pi --mode rpc --listen <address>…``.

Startup: the addresses are checked (``address``), the token read or made (``auth``), the TLS
context loaded, every listener bound (a live Unix socket or any other file at its path refuses
startup; a stale socket is replaced), then the sessions are built, and only then is the one line
``{"listening":[…]}`` written on stderr (with ``"tokenFile"`` when a TCP/WebSocket listener
needs the token): a client that reads it can connect at once.

Serving: each connection (``connection.Connection``) runs in its own task; their commands run in
one task group of the process, so a connection that goes away cancels nothing it started.
stdio is a connection too when ``--stdio`` is given (its EOF detaches it; the process goes on).

Ending: SIGTERM 143, SIGHUP 129 (the stdio server's rules, ``RpcServer``); ``--exit-when-idle
<s>``: no connection and no run for that long -> every session is flushed and closed, exit 0; an
extension's ``ctx.shutdown()`` on ``"default"`` ends the process the same way.
"""

from __future__ import annotations

import os
import socket
import stat
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio
from anyio.abc import SocketAttribute

from pi_rpc.errors import StartupError
from pi_rpc.log import logger
from pi_rpc.modes.rpc.backend import Backend, ServerHandle
from pi_rpc.modes.rpc.events import EventEmitter
from pi_rpc.modes.rpc.listen.address import ListenAddress, ListenError, check_bindable, parse_address
from pi_rpc.modes.rpc.listen.auth import FailureThrottle, load_token, token_matches
from pi_rpc.modes.rpc.listen.commands import ConnectionCommands, ConnectionRegistry
from pi_rpc.modes.rpc.listen.connection import AUTH_FAILED, AUTH_TIMEOUT_S, Connection
from pi_rpc.modes.rpc.listen.hub import CURRENT_CONNECTION, Hub
from pi_rpc.modes.rpc.listen.transport import StdioTransport, StreamTransport, Transport, WebSocketTransport, peer_of
from pi_rpc.modes.rpc.server import RpcServer
from pi_rpc.modes.wire.jsonout import dumps_line
from pi_rpc.modes.wire.protocol.names import DEFAULT_HANDLE

if TYPE_CHECKING:
    import ssl

    from anyio.abc import ByteStream, Listener

    from pi_rpc.config.cli_args import CliArgs

TLS_HANDSHAKE_TIMEOUT_S = 10.0


class _Discard:
    """The stdio event stream's stand-in: on --listen every session writes to the hub."""

    async def send(self, record: object) -> None:
        return None

    def send_nowait(self, record: object) -> None:
        return None

    async def send_bounded(self, record: object) -> None:
        return None


class _CurrentOptions:
    """``ServerHandle.event_options`` on --listen: the options of the connection whose command
    is running (``prompt`` answers ``runId`` when that connection turned it on)."""

    @property
    def run_id(self) -> bool:
        connection = CURRENT_CONNECTION.get()
        return connection is not None and connection.run_id_on

    @property
    def seq(self) -> bool:
        connection = CURRENT_CONNECTION.get()
        return connection is not None and connection.seq_on

    @property
    def handle(self) -> bool:
        connection = CURRENT_CONNECTION.get()
        return connection is not None and connection.tag_default


# ---------------------------------------------------------------------------------- binding


def check_unix_path(path: str) -> None:
    """Refuse a socket path in a directory others can write to, or where a file that is not a
    socket, or a live socket, is in the way; a stale socket (nothing answers) is removed."""
    parent = os.path.dirname(path) or "."
    try:
        info = os.stat(parent)
    except OSError as exc:
        raise ListenError(f"Error: --listen unix:{path}: its directory cannot be used ({exc.strerror})") from None
    if info.st_mode & stat.S_IWOTH:
        raise ListenError(
            f"Error: --listen unix:{path}: its directory {parent} is world-writable; put the socket in a "
            "directory only you can write to"
        )
    try:
        existing = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(existing.st_mode):
        raise ListenError(f"Error: --listen unix:{path}: a file that is not a socket is in the way")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        try:
            os.unlink(path)  # stale: nothing answers on it
        except FileNotFoundError:
            pass
    except OSError as exc:
        raise ListenError(f"Error: --listen unix:{path}: cannot tell whether it is in use ({exc})") from None
    else:
        raise ListenError(f"Error: --listen unix:{path}: another server is listening on it")
    finally:
        probe.close()


async def bind_unix(path: str) -> Listener[object]:
    """A Unix socket listener at ``path``, created 0600 (``check_unix_path`` first)."""
    check_unix_path(path)
    old = os.umask(0o177)  # created 0600: no moment where others could connect
    try:
        return await anyio.create_unix_listener(path, mode=0o600)
    except OSError as exc:
        raise ListenError(f"Error: --listen unix:{path}: {exc.strerror or exc}") from None
    finally:
        os.umask(old)


async def bind_tcp(address: ListenAddress) -> tuple[Listener[object], int]:
    host = "127.0.0.1" if address.host == "localhost" else address.host
    try:
        listener = await anyio.create_tcp_listener(local_host=host, local_port=address.port)
    except OSError as exc:
        raise ListenError(f"Error: --listen {address.text}: {exc.strerror or exc}") from None
    return listener, int(listener.extra(SocketAttribute.local_port))


def _socket_listeners(listener: Listener[Any]) -> list[Any]:
    """The accepting listeners inside ``listener`` (a host may name an IPv4 and an IPv6 one)."""
    inner = getattr(listener, "listeners", None)
    if inner is None:
        return [listener]
    return [leaf for item in inner for leaf in _socket_listeners(item)]


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise ListenError(f"Error: --tls-cert/--tls-key: cannot load them ({exc})") from None
    return context


# ---------------------------------------------------------------------------------- WebSocket


async def _reject(stream: ByteStream, protocol: Any, status: int, text: str) -> None:
    protocol.send_response(protocol.reject(status, text + "\n"))
    try:
        await stream.send(b"".join(protocol.data_to_send()))
    finally:
        await stream.aclose()


async def websocket_handshake(
    stream: ByteStream, address: ListenAddress, server: ListenServer
) -> tuple[Transport, bool] | None:
    """The HTTP upgrade: the path, ``Origin`` (``--allow-origin``), a token in the URL (refused)
    and an ``Authorization: Bearer`` header (401 when wrong). None: refused and closed."""
    from urllib.parse import parse_qs

    from websockets.http11 import Request
    from websockets.server import ServerProtocol

    protocol = ServerProtocol(max_size=(None, server.max_frame_bytes))
    request: Request | None = None
    pending: list[object] = []
    with anyio.move_on_after(AUTH_TIMEOUT_S):
        while request is None:
            try:
                data = await stream.receive(64 * 1024)
            except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                break
            protocol.receive_data(data)
            for event in protocol.events_received():
                if request is None and isinstance(event, Request):
                    request = event
                elif request is not None:
                    pending.append(event)
            if request is None and protocol.handshake_exc is not None:
                try:
                    await stream.send(b"".join(protocol.data_to_send()))
                except Exception:  # noqa: BLE001 - the peer is gone
                    pass
                break
    if request is None:
        await stream.aclose()
        return None
    path, _, query = request.path.partition("?")
    if query and any(key.lower() in ("token", "access_token", "auth") for key in parse_qs(query)):
        await _reject(
            stream,
            protocol,
            400,
            "Tokens are not accepted in the URL (they end up in logs): send the Authorization: Bearer header, "
            'or the first message {"type":"authenticate","token":"…"}',
        )
        return None
    if path != address.ws_path:
        await _reject(stream, protocol, 404, f"Not found: the WebSocket endpoint is {address.ws_path}")
        return None
    origin = request.headers.get("Origin")
    if origin is not None and origin not in server.allow_origins:
        await _reject(stream, protocol, 403, "Origin not allowed: start the server with --allow-origin <origin>")
        return None
    authenticated = False
    header = request.headers.get("Authorization")
    if header is not None:
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer" or not token_matches(server.token or "", value.strip()):
            delay = server.throttle.failed(peer_of(stream))
            if delay:
                await anyio.sleep(delay)
            await _reject(stream, protocol, 401, AUTH_FAILED)
            return None
        server.throttle.succeeded(peer_of(stream))
        authenticated = True
    response = protocol.accept(request)
    protocol.send_response(response)
    await stream.send(b"".join(protocol.data_to_send()))
    if response.status_code != 101:
        await stream.aclose()
        return None
    transport = WebSocketTransport(stream, protocol, max_frame_bytes=server.max_frame_bytes, pending=pending)
    return transport, authenticated


# ---------------------------------------------------------------------------------- the server


class ListenServer(RpcServer):
    def __init__(
        self,
        backend: Backend,
        args: CliArgs,
        *,
        output_fd: int,
        addresses: list[ListenAddress],
        token: str | None,
        token_path: Path | None,
        ssl_context: ssl.SSLContext | None,
        handle_signals: bool = True,
        announce: Callable[[dict[str, object]], None] | None = None,
    ) -> None:
        super().__init__(
            backend,
            output_fd=output_fd,
            max_frame_bytes=args.max_frame_bytes,
            verbose=args.verbose,
            handle_signals=handle_signals,
            event_buffer=args.event_buffer,
            max_sessions=args.max_sessions,
        )
        self.args = args
        self.addresses = addresses
        self.token = token
        self.token_path = token_path
        self.ssl_context = ssl_context
        self.allow_origins = frozenset(args.allow_origin)
        self.max_connection_buffer = args.max_connection_buffer
        self.max_connections = args.max_connections
        self.hub = Hub(args.event_buffer)
        self.throttle = FailureThrottle()
        self.connections: set[Connection] = set()
        self.stdio_connection: Connection | None = None
        kinds = (["stdio"] if args.stdio else []) + [address.kind for address in addresses]
        self.transport_kinds = tuple(dict.fromkeys(kinds))
        known = getattr(backend, "known_handle", None)
        self.known_handle: Callable[[str], bool] = known if known is not None else (lambda h: h == DEFAULT_HANDLE)
        self._stop = anyio.Event()
        self._commands: anyio.abc.TaskGroup | None = None
        self._connection_group: anyio.abc.TaskGroup | None = None
        self.accepted = 0
        # Where the {"listening":[…]} record goes (None: one line on stderr); the interactive
        # mode shows it in the conversation instead, stderr being the terminal's screen.
        self._announce_to = announce
        self._bound: list[tuple[Listener[object], ListenAddress, str]] | None = None

    # ------------------------------------------------------------------ for connections

    def connection_registry(self, connection: Connection) -> ConnectionRegistry:
        return ConnectionRegistry(self.registry, ConnectionCommands(self, connection).handlers())

    def spawn(self, fn: Callable[..., Coroutine[object, object, object]], *args: object) -> None:
        if self._commands is not None:
            self._commands.start_soon(fn, *args)

    def forget(self, connection: Connection) -> None:
        self.connections.discard(connection)
        if connection is self.stdio_connection:
            self.stdio_connection = None

    # ------------------------------------------------------------------ lifecycle

    async def serve(self) -> int:
        self.events = EventEmitter(_Discard())
        async with anyio.create_task_group() as root:
            if self.handle_signals:
                root.start_soon(self._watch_signals)
            with anyio.CancelScope() as scope:
                self._main_scope = scope
                await self._main()
            await self._finish()
            root.cancel_scope.cancel()
        return self.exit_code

    async def bind(self) -> list[str]:
        """Bind every listener now, before ``serve`` (``ListenError`` on a problem): the
        interactive mode refuses to start rather than fail behind the screen. The addresses
        as bound (port 0 resolved)."""
        self._bound = await self._bind()
        return [shown for _, _, shown in self._bound]

    async def unbind(self) -> None:
        """Close what ``bind`` bound when ``serve`` will not run (startup failed after it)."""
        bound, self._bound = self._bound or [], None
        await self._close_listeners(bound)

    async def _close_listeners(self, bound: list[tuple[Listener[object], ListenAddress, str]]) -> None:
        for listener, address, _ in bound:
            try:
                await listener.aclose()
            except Exception:  # noqa: BLE001 - closing at exit
                pass
            self._unlink(address)

    async def _bind(self) -> list[tuple[Listener[object], ListenAddress, str]]:
        bound: list[tuple[Listener[object], ListenAddress, str]] = []
        try:
            for address in self.addresses:
                if address.kind == "unix":
                    bound.append((await bind_unix(address.path), address, address.display()))
                else:
                    listener, port = await bind_tcp(address)
                    bound.append((listener, address, address.display(port)))
        except BaseException:
            for listener, address, _ in bound:
                await listener.aclose()
                self._unlink(address)
            raise
        return bound

    async def _main(self) -> None:
        try:
            bound = self._bound if self._bound is not None else await self._bind()
        except StartupError as exc:
            logger().error(exc.message)
            self.exit_code = exc.exit_code
            self._flush_on_exit = False
            self._shutting_down = True
            self._backend_closed = True  # never started
            return
        try:
            async with anyio.create_task_group() as backend_tg:
                handle = ServerHandle(
                    self.events,
                    backend_tg,
                    self.request_shutdown,
                    event_options=cast(Any, _CurrentOptions()),
                    session_events=self.hub.session_events,
                )
                try:
                    await self.backend.start(handle)
                except StartupError as exc:
                    logger().error(exc.message)
                    self.exit_code = exc.exit_code
                    self._flush_on_exit = False
                    self._shutting_down = True
                    await self._close_backend()
                    backend_tg.cancel_scope.cancel()
                    return
                async with anyio.create_task_group() as commands:
                    self._commands = commands
                    async with anyio.create_task_group() as group:
                        self._connection_group = group
                        for listener, address, _ in bound:
                            for leaf in _socket_listeners(listener):
                                group.start_soon(self._accept_loop, leaf, address)
                        if self.args.stdio:
                            group.start_soon(self._serve_stdio)
                        if self.args.exit_when_idle is not None:
                            group.start_soon(self._exit_when_idle, self.args.exit_when_idle)
                        self._announce([shown for _, _, shown in bound])
                        await self._stop.wait()
                        group.cancel_scope.cancel()
                    commands.cancel_scope.cancel()
                input_closed = getattr(self.backend, "input_closed", None)
                if input_closed is not None:
                    input_closed()
                self._shutting_down = True
                self.events.close()
                await self._close_backend()
                backend_tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self._close_listeners(bound)

    def _announce(self, shown: list[str]) -> None:
        line: dict[str, Any] = {"listening": shown}
        if self.token_path is not None:
            line["tokenFile"] = str(self.token_path)
        if self._announce_to is not None:
            self._announce_to(line)
            return
        try:
            os.write(2, dumps_line(line))
        except OSError:
            pass

    @staticmethod
    def _unlink(address: ListenAddress) -> None:
        if address.kind == "unix":
            try:
                if stat.S_ISSOCK(os.lstat(address.path).st_mode):
                    os.unlink(address.path)
            except OSError:
                pass

    async def _finish(self) -> None:
        self._shutting_down = True
        self.events.close()
        for connection in list(self.connections):
            connection.abort()
        await self._close_backend()

    def request_shutdown(self) -> None:
        """ctx.shutdown() of "default", or --exit-when-idle: flush every session and exit 0."""
        self._stop.set()

    # ------------------------------------------------------------------ connections

    async def _accept_loop(self, listener: Listener[object], address: ListenAddress) -> None:
        accept = cast(Any, listener).accept
        while True:
            try:
                stream = await accept()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return
            except OSError as exc:  # e.g. EMFILE: keep serving the connections there are
                logger().error(f"pi_rpc: accepting on {address.text} failed: {exc}")
                await anyio.sleep(0.1)
                continue
            self.accepted += 1
            assert self._connection_group is not None
            self._connection_group.start_soon(self._connection, stream, address)

    async def _connection(self, stream: ByteStream, address: ListenAddress) -> None:
        try:
            if address.tls:
                from anyio.streams.tls import TLSStream

                assert self.ssl_context is not None
                with anyio.fail_after(TLS_HANDSHAKE_TIMEOUT_S):
                    stream = await TLSStream.wrap(
                        stream, server_side=True, ssl_context=self.ssl_context, standard_compatible=False
                    )
            transport: Transport
            if address.kind == "ws":
                shaken = await websocket_handshake(stream, address, self)
                if shaken is None:
                    return
                transport, authenticated = shaken
            else:
                transport = StreamTransport(stream, kind=address.kind, max_frame_bytes=self.max_frame_bytes)
                authenticated = address.kind == "unix"  # the socket's permissions are the check
            if len(self.connections) >= self.max_connections or self._stop.is_set():
                await self._refuse(transport)
                return
            connection = Connection(self, transport, authenticated=authenticated)
            self.connections.add(connection)
            await connection.run()
        except Exception as exc:  # noqa: BLE001 - one client's fault (TLS, handshake) is its own
            logger().debug(f"pi_rpc: connection on {address.text} failed: {exc!r}")
            with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                try:
                    await stream.aclose()
                except Exception:  # noqa: BLE001
                    pass

    async def _refuse(self, transport: Transport) -> None:
        why = (
            "The server is shutting down"
            if self._stop.is_set()
            else f"Too many connections: this server accepts {self.max_connections} at once (--max-connections)"
        )
        record = {"type": "response", "command": "connection", "success": False, "error": why}
        try:
            with anyio.move_on_after(2):
                await transport.send_lines([dumps_line(record)])
        except Exception:  # noqa: BLE001 - the peer is gone
            pass
        await transport.aclose()

    async def _serve_stdio(self) -> None:
        transport = StdioTransport(self.input_fd, self.output_fd, max_frame_bytes=self.max_frame_bytes)
        connection = Connection(self, transport, authenticated=True)
        self.stdio_connection = connection
        await connection.run()

    async def _exit_when_idle(self, seconds: float) -> None:
        """No connection and no run for ``seconds``: shut down (exit 0)."""
        idle_since = time.monotonic()
        step = min(1.0, max(0.02, seconds / 4))
        while True:
            await anyio.sleep(step)
            now = time.monotonic()
            if self.connections or self.stdio_connection is not None or self._busy():
                idle_since = now
            elif now - idle_since >= seconds:
                self.request_shutdown()
                return

    def _busy(self) -> bool:
        for slot in getattr(self.backend, "slots", {}).values():
            session = slot.session
            if session.is_streaming or session.is_compacting:
                return True
        return False


# ---------------------------------------------------------------------------------- entry


def listen_setup(args: CliArgs) -> tuple[list[ListenAddress], str | None, Path | None, ssl.SSLContext | None]:
    """Check the listen flags before anything else starts: the addresses, what may bind, the
    token and the TLS context (``StartupError`` on any problem)."""
    if bool(args.tls_cert) != bool(args.tls_key):
        raise ListenError("Error: --tls-cert and --tls-key go together")
    tls = bool(args.tls_cert and args.tls_key)
    addresses = [parse_address(text, tls_configured=tls) for text in args.listen]
    for address in addresses:
        check_bindable(address, allow_remote=args.listen_allow_remote)
        if address.kind == "unix":
            check_unix_path(address.path)  # (again when binding: refused before sessions are built)
    token: str | None = None
    token_path: Path | None = None
    if any(address.kind != "unix" for address in addresses):
        from pi_rpc.config.paths import agent_dir

        token, token_path = load_token(args.listen_token_file, agent_dir())
    context = None
    if any(address.tls for address in addresses):
        assert args.tls_cert is not None and args.tls_key is not None
        context = tls_context(args.tls_cert, args.tls_key)
    return addresses, token, token_path, context


def run_listen_mode(args: CliArgs) -> int:
    from pi_rpc.modes.rpc.backend_factory import create_backend
    from pi_rpc.modes.startup_gc import freeze_startup, pause_for_startup, resume_collecting
    from pi_rpc.modes.wire.output import take_over_stdout

    collecting = pause_for_startup()
    takeover = take_over_stdout()
    try:
        addresses, token, token_path, context = listen_setup(args)
        from pi_rpc.modes.rpc.early import exit_on_signals
        from pi_rpc.runtime.project_trust import pending_trust_pass

        exit_on_signals()  # until the server's signal handling runs
        trust_pass = pending_trust_pass(args)
        options: Any = None
        if trust_pass is None:
            from pi_rpc.runtime.factory import build_runtime_options

            options = build_runtime_options(args)
    except StartupError as exc:
        resume_collecting(collecting)
        logger().error(exc.message)
        return exc.exit_code

    async def main() -> int:
        nonlocal options
        try:
            if options is None:
                from pi_rpc.runtime.factory import build_runtime_options
                from pi_rpc.runtime.project_trust import run_trust_pass

                trust = await run_trust_pass(trust_pass, "rpc")  # type: ignore[arg-type]
                try:
                    options = build_runtime_options(args, trust=trust)
                except StartupError as exc:
                    logger().error(exc.message)
                    return exc.exit_code
            server = ListenServer(
                create_backend(args, options),
                args,
                output_fd=takeover.protocol_fd,
                addresses=addresses,
                token=token,
                token_path=token_path,
                ssl_context=context,
            )
        finally:
            freeze_startup(collecting)
        return await server.serve()

    from pi_rpc.modes.exit import run_to_exit_code

    return run_to_exit_code(main)

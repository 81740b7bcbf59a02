"""Listen addresses: ``unix:<path>``, ``tcp:<host>:<port>``, ``ws://<host>:<port>[/path]`` and
``wss://...``, and the rules for what may bind: a non-loopback host only with
``--listen-allow-remote`` and TLS."""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass

from pi_rpc.errors import StartupError


class ListenError(StartupError):
    """A listen address that is malformed or may not be bound (startup refused, exit 1)."""


@dataclass(frozen=True)
class ListenAddress:
    kind: str  # "unix" | "tcp" | "ws"
    text: str  # as given
    path: str = ""  # unix: the socket path (absolute)
    host: str = ""
    port: int = 0
    tls: bool = False  # wss://, or tcp: with --tls-cert
    ws_path: str = "/"  # ws: the request path served (others get 404)

    def display(self, port: int | None = None) -> str:
        """The bound address as printed in the ``{"listening":[…]}`` line."""
        if self.kind == "unix":
            return f"unix:{self.path}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        bound = self.port if port is None else port
        if self.kind == "tcp":
            return f"tcp:{host}:{bound}"
        scheme = "wss" if self.tls else "ws"
        return f"{scheme}://{host}:{bound}{self.ws_path}"


def _host_port(rest: str, text: str) -> tuple[str, int]:
    if rest.startswith("["):
        end = rest.find("]")
        if end < 0 or rest[end + 1 : end + 2] != ":":
            raise ListenError(f'Error: Invalid --listen address "{text}": expected [<ipv6>]:<port>')
        host, port_text = rest[1:end], rest[end + 2 :]
    else:
        host, sep, port_text = rest.rpartition(":")
        if not sep or not host:
            raise ListenError(f'Error: Invalid --listen address "{text}": expected <host>:<port>')
    if not (port_text.isascii() and port_text.isdigit()) or int(port_text) > 65535:
        raise ListenError(f'Error: Invalid --listen address "{text}": the port must be 0-65535 (0: any free port)')
    return host, int(port_text)


def parse_address(text: str, *, tls_configured: bool) -> ListenAddress:
    if text.startswith("unix:"):
        raw = text[5:]
        if not raw:
            raise ListenError(f'Error: Invalid --listen address "{text}": expected unix:<path>')
        return ListenAddress("unix", text, path=os.path.abspath(os.path.expanduser(raw)))
    if text.startswith("tcp:"):
        host, port = _host_port(text[4:], text)
        return ListenAddress("tcp", text, host=host, port=port, tls=tls_configured)
    for scheme, tls in (("ws://", False), ("wss://", True)):
        if text.startswith(scheme):
            rest = text[len(scheme) :]
            slash = rest.find("/")
            authority, path = (rest, "/") if slash < 0 else (rest[:slash], rest[slash:])
            if "?" in path or "#" in path:
                raise ListenError(f'Error: Invalid --listen address "{text}": no query or fragment in the path')
            host, port = _host_port(authority, text)
            if tls and not tls_configured:
                raise ListenError(f"Error: --listen {text} needs --tls-cert and --tls-key")
            return ListenAddress("ws", text, host=host, port=port, tls=tls, ws_path=path)
    raise ListenError(
        f'Error: Invalid --listen address "{text}": expected unix:<path>, tcp:<host>:<port>, '
        "ws://<host>:<port>[/path] or wss://<host>:<port>[/path]"
    )


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback one (``localhost`` and 127/8, ::1)."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


def check_bindable(address: ListenAddress, *, allow_remote: bool) -> None:
    """Refuse a non-loopback bind unless ``--listen-allow-remote``, and then without TLS."""
    if address.kind == "unix" or is_loopback(address.host):
        return
    if not allow_remote:
        raise ListenError(
            f"Error: --listen {address.text} is not a loopback address: remote clients need "
            "--listen-allow-remote (and TLS: --tls-cert/--tls-key)"
        )
    if not address.tls:
        raise ListenError(
            f"Error: --listen {address.text} accepts remote clients: it needs TLS "
            "(--tls-cert/--tls-key; wss:// for WebSocket)"
        )

"""A local HTTPS interceptor for endpoints a program hard-codes (Google's OAuth token endpoint):
a CONNECT proxy on 127.0.0.1 that terminates TLS with a leaf certificate signed by a CA made
for the test, and answers the decrypted HTTP/1.1 requests with scripted replies (the recipe of
auth-and-providers §3.1). Nothing is resolved and nothing leaves the machine.

The program under test gets ``proxy_env()``: ``HTTPS_PROXY`` at the proxy, ``NO_PROXY`` for
the loopback stubs, and the CA through ``SSL_CERT_FILE`` (httpx) and ``NODE_EXTRA_CA_CERTS``
(Node).
"""

from __future__ import annotations

import atexit
import shutil
import socket
import socketserver
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.ai.provider_wire import Reply

# The certificates made so far in this test process, by their hosts: five openssl runs cost
# 0.05 s of CPU (most of a second on a loaded machine) and over a hundred tests start an
# interceptor for the same few host lists.
_made: dict[tuple[str, ...], Path] = {}


def make_certificates(directory: Path, hosts: list[str]) -> tuple[Path, Path, Path]:
    """(ca.pem, leaf.pem, leaf.key) in ``directory``: a P-256 CA and one leaf for ``hosts``, made
    with the openssl CLI once per test process for each list of hosts and copied from there."""
    source = _made.get(tuple(hosts))
    if source is None or not (source / "leaf.key").exists():
        source = Path(tempfile.mkdtemp(prefix="pi-rpc-tls-"))
        atexit.register(shutil.rmtree, source, True)
        _generate_certificates(source, hosts)
        _made[tuple(hosts)] = source
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("ca.pem", "leaf.pem", "leaf.key"):
        shutil.copyfile(source / name, directory / name)
    return directory / "ca.pem", directory / "leaf.pem", directory / "leaf.key"


def _generate_certificates(directory: Path, hosts: list[str]) -> None:
    """Run openssl: the CA's key and certificate, the leaf's key, request and certificate."""
    ca_key, ca_pem = directory / "ca.key", directory / "ca.pem"
    leaf_key, leaf_csr, leaf_pem = directory / "leaf.key", directory / "leaf.csr", directory / "leaf.pem"
    ext = directory / "leaf.ext"
    ext.write_text(
        "basicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\n"
        "extendedKeyUsage=serverAuth\n"
        f"subjectAltName={','.join('DNS:' + h for h in hosts)}\n"
    )

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

    run("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(ca_key))
    run(
        "req", "-x509", "-new", "-key", str(ca_key), "-out", str(ca_pem), "-days", "2", "-subj", "/CN=pi-rpc test CA",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    )  # fmt: skip
    run("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(leaf_key))
    run("req", "-new", "-key", str(leaf_key), "-out", str(leaf_csr), "-subj", f"/CN={hosts[0]}")
    run(
        "x509", "-req", "-in", str(leaf_csr), "-CA", str(ca_pem), "-CAkey", str(ca_key), "-CAcreateserial",
        "-out", str(leaf_pem), "-days", "2", "-extfile", str(ext),
    )  # fmt: skip


class Interceptor:
    """``with Interceptor(dir, hosts, replies) as box``: every request seen in ``box.requests``
    (host, method, path, headers, body as text); replies in order, the last one repeating.
    ``route(request)`` given: its reply wins when it returns one (per-host answers); a reply's
    ``delay_s`` is waited before it is sent."""

    def __init__(
        self,
        directory: Path,
        hosts: list[str],
        replies: list[Reply],
        route: Callable[[dict[str, Any]], Reply | None] | None = None,
    ) -> None:
        self.route = route
        self.ca, leaf, key = make_certificates(directory, hosts)
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(str(leaf), str(key))
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        box = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                line = self.rfile.readline().decode("latin-1")
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                method, target = (line.split() + ["", ""])[:2]
                if method != "CONNECT":
                    self.wfile.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                    return
                self.wfile.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                self.wfile.flush()
                try:
                    tls = box.context.wrap_socket(self.connection, server_side=True)
                except (ssl.SSLError, OSError):
                    return
                box._serve(tls, target.split(":")[0])

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def _serve(self, tls: ssl.SSLSocket, host: str) -> None:
        stream = tls.makefile("rwb")
        try:
            while True:  # keep-alive: a client may send several requests on one tunnel
                line = stream.readline().decode("latin-1")
                if not line.strip():
                    return
                method, path = line.split()[:2]
                headers: dict[str, str] = {}
                while (raw := stream.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = raw.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = stream.read(int(headers.get("content-length") or 0)).decode("utf-8", "replace")
                seen = {"host": host, "method": method, "path": path, "headers": headers, "body": body}
                with self.lock:
                    self.requests.append(seen)
                    routed = self.route(seen) if self.route is not None else None
                    if routed is not None:
                        reply = routed
                    else:
                        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                head = (
                    f"HTTP/1.1 {reply.status} X\r\nContent-Type: {reply.content_type}\r\n"
                    f"Content-Length: {len(reply.body)}\r\n\r\n"
                )
                stream.write(head.encode() + reply.body)
                stream.flush()
        except (OSError, ValueError):
            return
        finally:
            try:
                tls.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            tls.close()

    def proxy_env(self) -> dict[str, str]:
        proxy = f"http://127.0.0.1:{self.port}"
        return {
            "HTTPS_PROXY": proxy,
            "https_proxy": proxy,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "SSL_CERT_FILE": str(self.ca),
            "NODE_EXTRA_CA_CERTS": str(self.ca),
        }

    def __enter__(self) -> Interceptor:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

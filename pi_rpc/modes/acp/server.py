"""The stdio lifecycle of ``pi --mode acp``: the RPC mode's server (framing with the frame cap,
stdout owned at the fd level, one serialised writer, signals, EPIPE) with JSON-RPC 2.0 instead
of pi's command dispatcher. At stdin EOF the client's unanswered requests fail and running
turns are cancelled, so the in-flight ``session/prompt`` requests end (``cancelled``) before
the process exits 0."""

from __future__ import annotations

from pi_rpc.modes.acp.agent import AcpAgent
from pi_rpc.modes.acp.jsonrpc import JsonRpcPeer
from pi_rpc.modes.rpc.server import RpcServer


class AcpServer(RpcServer):
    backend: AcpAgent

    def _make_dispatcher(self) -> object:
        peer = JsonRpcPeer(self.writer, verbose=self.verbose)
        self.backend.attach(peer)
        return peer

    async def _input_ended(self) -> None:
        await self.backend.input_ended()

"""pi_rpc_client: a stdlib-only client for ``pi --mode rpc`` (pi 1.6 wire protocol).

    from pi_rpc_client import RpcClient
    with RpcClient(["pi", "--mode", "rpc", "--no-session"]) as pi:
        result = pi.prompt_and_wait("hello", timeout=60)
        print(result.text())
"""

from .client import EventStream, PromptResult, RpcClient
from .commands import COMMAND_TYPES
from .errors import RpcCommandError, RpcError, RpcProcessExited, RpcProtocolError, RpcTimeoutError
from .framing import LineSplitter, decode_record, encode_record

__all__ = [
    "COMMAND_TYPES",
    "EventStream",
    "LineSplitter",
    "PromptResult",
    "RpcClient",
    "RpcCommandError",
    "RpcError",
    "RpcProcessExited",
    "RpcProtocolError",
    "RpcTimeoutError",
    "decode_record",
    "encode_record",
]

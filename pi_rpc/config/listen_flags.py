"""The command-line flags of ``pi --mode rpc --listen`` (protocol/README §11 "Listeners"):
parsed here so the main flag table stays small. ``parse_listen_flag`` consumes one flag (and
its value) and records it in the parse's ``values``; ``cli_args.parse_args`` calls it for every
flag in ``LISTEN_FLAGS``."""

from __future__ import annotations

from collections.abc import Sequence

from pi_rpc.errors import StartupError

DEFAULT_MAX_CONNECTION_BUFFER = 16 * 1024 * 1024  # bytes queued for one connection before it is dropped
DEFAULT_MAX_CONNECTIONS = 64  # connections at once (stdio not counted)

# flag -> (CliArgs field, kind): "append" (repeatable value), "str", "bool", "seconds", "bytes", "count"
LISTEN_FLAGS: dict[str, tuple[str, str]] = {
    "--listen": ("listen", "append"),
    "--stdio": ("stdio", "bool"),
    "--listen-token-file": ("listen_token_file", "str"),
    "--listen-allow-remote": ("listen_allow_remote", "bool"),
    "--tls-cert": ("tls_cert", "str"),
    "--tls-key": ("tls_key", "str"),
    "--allow-origin": ("allow_origin", "append"),
    "--exit-when-idle": ("exit_when_idle", "seconds"),
    "--max-connection-buffer": ("max_connection_buffer", "bytes"),
    "--max-connections": ("max_connections", "count"),
}


class ListenFlagError(StartupError):
    """A listen flag with a value that cannot be used (exit code 1)."""


def parse_listen_flag(args: Sequence[str], i: int, values: dict[str, object], appends: dict[str, list[str]]) -> int:
    """Consume ``args[i]`` (a flag of ``LISTEN_FLAGS``) and its value; returns the index of the
    last argument consumed. A value flag with nothing after it is ignored, as upstream's are."""
    flag = args[i]
    name, kind = LISTEN_FLAGS[flag]
    if kind == "bool":
        values[name] = True
        return i
    if i + 1 >= len(args):
        return i
    raw = args[i + 1]
    if kind == "append":
        appends.setdefault(name, []).append(raw)
    elif kind == "str":
        values[name] = raw
    elif kind == "seconds":
        try:
            seconds = float(raw)
        except ValueError:
            seconds = -1.0
        if not seconds >= 0 or seconds == float("inf"):
            raise ListenFlagError(f'Error: Invalid {flag} "{raw}": expected a non-negative number of seconds')
        values[name] = seconds
    else:
        count = int(raw) if raw.isascii() and raw.isdigit() else 0
        if count < 1:
            raise ListenFlagError(f'Error: Invalid {flag} "{raw}": expected a positive integer')
        values[name] = count
    return i + 1

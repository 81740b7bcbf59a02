"""The root of pi_rpc's exceptions, and the two kinds every layer shares.

Every error pi_rpc raises on purpose derives from ``PiError``, and its ``str`` is the text a
user or client sees (upstream pi 1.6's text where upstream has one), so a boundary never has
to rewrite a message. This module is a leaf: it imports nothing from pi_rpc, and any layer may
import it (``tests/test_layering.py``). The subtrees live with the layer that raises them::

    PiError
    ├── CommandError              a command was refused: the failed response's ``error``
    │                             (alias ``pi_rpc.runtime.RuntimeCommandError`` in the SDK)
    ├── StartupError              the process must not start: ``message`` on stderr, ``exit_code``
    │   │                         (alias ``pi_rpc.runtime.StartupProblem`` in the SDK; an
    │   │                         extension that fails to load raises it too)
    │   └── CliError              a fatal command-line error          (config.cli_args)
    ├── SessionError              the session store                    (session.errors)
    │   ├── SessionInvalidError       not a pi session file
    │   ├── SessionLockedError        another pi process holds the file
    │   ├── SessionLockFileError      a FIFO or device where the lock file goes
    │   ├── SessionNotAFileError      a FIFO, device or directory named as a session
    │   ├── SessionReadOnlyError      opened read-only
    │   ├── EntryNotFoundError        no such entry (also a ``KeyError``)
    │   ├── SessionNotFoundError      ``--session``/``--fork`` matches nothing
    │   └── MissingSessionCwdError    the stored cwd is gone
    ├── CompactionError           no complete summary; nothing written (compaction.errors)
    │   └── CompactionCancelled       the abort signal fired while summarizing
    └── McpClientError            one MCP server's connection or request (mcp.connection)
        ├── McpConnectFailed          could not connect (also a ``ConnectionError``)
        ├── McpConnectionClosed       the transport ended
        ├── McpTimeout                no answer (nor progress) within the server's timeout
        ├── McpAborted                the caller's abort signal fired
        ├── McpRequestError           a JSON-RPC error the server answered (``code``)
        ├── McpSignInRequired         the server needs an OAuth sign-in
        └── McpListingError           a listing that pages forever or repeats a cursor

Where errors become wire errors: the RPC backend maps the tree onto failed responses in one
place (``modes/rpc/runtime_backend.RuntimeBackend._wrap``): a ``CommandError`` keeps its text,
a ``SessionError`` from the store is answered with its own text. Anything else that escapes a
handler is a bug: the dispatcher answers it with the exception's text and a traceback on stderr.
"""

from __future__ import annotations

# How much of a client's input an error message quotes (``echo``).
ECHO_MAX_CHARS = 200


def echo(value: str, limit: int = ECHO_MAX_CHARS) -> str:
    """Client input quoted in an error message: at most ``limit`` characters, the rest cut
    with ``… (N more characters)``, so a 900 kB handle or path does not come back whole."""
    if len(value) <= limit:
        return value
    return f"{value[:limit]}… ({len(value) - limit} more characters)"


class PiError(Exception):
    """Base class of every error pi_rpc raises on purpose; ``str(err)`` is user-facing."""


class CommandError(PiError):
    """A command could not be carried out; ``message`` is the response's ``error`` verbatim."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class StartupError(PiError):
    """A fatal problem before the process serves anything (an unknown model, a session that is
    not found, an extension that did not load: a security gate that did not load must not be
    skipped). ``message`` goes to stderr as is; the process exits with ``exit_code``."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code

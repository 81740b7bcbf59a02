"""pi's one logger: everything pi_rpc itself writes to stderr goes through ``logger()``.

``logger()`` is the standard ``logging.getLogger("pi")``, configured on first use with one
handler that writes each record's message, exactly as given, plus a newline to the current
``sys.stderr`` and flushes it. So the bytes are the ones pi always wrote: upstream's texts
(``Warning: …``, ``Error: …``, an extension's failure) keep their own wording, pi's own notices
their ``pi:`` prefix, and ``exc_info`` appends the traceback as ``traceback.print_exc`` would.
The record does not propagate to the root logger (an extension or an embedding application
that configures logging must not see each line twice); such an application may replace the
handler of ``logging.getLogger("pi")`` to send the lines elsewhere.

A leaf (``tests/test_layering.py``): any layer may use it. ``logging`` is imported on the first
record, not at startup (RPC mode loads it later anyway, through asyncio; ``--help`` never).
A handler never raises: stderr may already be gone (a closed pipe at exit).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # (not typing's: ``pi --version`` does not import typing otherwise)
if TYPE_CHECKING:
    import logging

LOGGER_NAME = "pi"

_logger: logging.Logger | None = None


def logger() -> logging.Logger:
    """The ``pi`` logger, with its stderr handler installed (once)."""
    global _logger
    if _logger is None:
        _logger = _configure()
    return _logger


def _configure() -> logging.Logger:
    import logging

    class StderrHandler(logging.Handler):
        """One write of ``message + "\\n"`` to the ``sys.stderr`` of the moment (tests swap it;
        RPC mode points fd 1 at it too), flushed, so lines from threads never interleave."""

        def emit(self, record: logging.LogRecord) -> None:
            try:
                stream = sys.stderr
                stream.write(self.format(record) + "\n")
                stream.flush()
            except Exception:  # noqa: BLE001 - logging must never fail the code that logs
                pass

    configured = logging.getLogger(LOGGER_NAME)
    handler = StderrHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    configured.addHandler(handler)
    configured.setLevel(logging.INFO)
    configured.propagate = False
    return configured

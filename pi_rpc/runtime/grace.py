"""How long the runtime and the modes wait for work to wind down before they stop waiting.

A grace period bounds a wait that should end by itself (a run stopping after an abort, the
output draining); past it, pi goes on without it rather than hang. The modes import these from
here (``modes/exit.py`` re-exports the shutdown one), so the SDK and the CLI wait alike.

Not bounded by these: a started OAuth refresh and the write of its rotated token
(``pi_rpc.ai.auth.oauth.refresh``). They are shielded from cancellation and bounded by the
refresh's own 15 s timeout, so the process never exits with a rotated token unwritten (upstream's
``settleCredentialWrites``).
"""

from __future__ import annotations

#: An orderly shutdown: the run to stop, extensions' ``session_shutdown``, the output to drain
#: (each step at most this long; rpc, json and print modes, and ``PiSession`` on exit).
SHUTDOWN_GRACE_SECONDS = 5.0

#: An aborted run to settle, or a cancelled retry sleep (and the response the run waits for
#: before ``agent_settled``) to end.
SETTLE_GRACE_SECONDS = 5.0

"""runtime layer: the session facade every mode drives, and the in-process SDK.

Curated exports (loaded lazily, so ``import pi_rpc.runtime.<module>`` stays cheap):
``open_session``, ``PiSession``, ``PromptResult`` (pi_rpc.runtime.sdk), ``AgentSession``
(pi_rpc.runtime.session), ``StartupProblem``, ``build_runtime_options``
(pi_rpc.runtime.factory), ``RuntimeCommandError`` (pi_rpc.runtime.errors),
``RuntimeOptions`` (pi_rpc.runtime.options).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc._lazy import lazy_exports

_EXPORTS = {
    "open_session": "pi_rpc.runtime.sdk",
    "PiSession": "pi_rpc.runtime.sdk",
    "PromptResult": "pi_rpc.runtime.sdk",
    "AgentSession": "pi_rpc.runtime.session",
    "StartupProblem": "pi_rpc.runtime.factory",
    "build_runtime_options": "pi_rpc.runtime.factory",
    "RuntimeCommandError": "pi_rpc.runtime.errors",
    "RuntimeOptions": "pi_rpc.runtime.options",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from pi_rpc.runtime.errors import RuntimeCommandError
    from pi_rpc.runtime.factory import StartupProblem, build_runtime_options
    from pi_rpc.runtime.options import RuntimeOptions
    from pi_rpc.runtime.sdk import PiSession, PromptResult, open_session
    from pi_rpc.runtime.session import AgentSession

__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

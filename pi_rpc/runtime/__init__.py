"""runtime layer: the session facade every mode drives, and the in-process SDK.

Curated exports (loaded lazily, so ``import pi_rpc.runtime.<module>`` stays cheap):
``open_session``, ``PiSession``, ``PromptResult`` (pi_rpc.runtime.sdk), ``AgentSession``
(pi_rpc.runtime.session), ``StartupProblem``, ``build_runtime_options``
(pi_rpc.runtime.factory), ``RuntimeCommandError`` (pi_rpc.runtime.errors),
``RuntimeOptions`` (pi_rpc.runtime.options).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pi_rpc.runtime' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))

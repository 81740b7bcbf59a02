"""The seam between extensions and the session runtime.

``ExtensionHost`` is what the runtime provides so ``pi`` and ``ctx`` can act on the live session
(upstream binds the same actions into its extension runner with ``bindCore`` and
``bindCommandContext``); what they only read of it is one ``SessionView`` (``host.view``), read
directly, with no host method in between. ``ModeBinding`` is what the running mode provides: the mode name, its
``ctx.ui`` bridge, where extension errors go and how ``ctx.shutdown()`` is honoured.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pi_rpc.extensions.ui import NO_UI, ExtensionUI

if TYPE_CHECKING:
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.models import ModelRegistry
    from pi_rpc.ai.types import Model
    from pi_rpc.extensions.context import ReadonlySessionManager
    from pi_rpc.extensions.types import ExtensionErrorRecord


class SessionView(Protocol):
    """What extensions read of the live session (``ctx.model``, ``ctx.cwd``, ``pi.get_settings()``
    ...): read-only, current at each read (the runtime's port implements it)."""

    @property
    def cwd(self) -> str: ...
    @property
    def session_manager(self) -> ReadonlySessionManager:
        """The current session store, read-only (``ctx.session_manager``)."""

    @property
    def model(self) -> Model | None: ...
    @property
    def thinking_level(self) -> str: ...
    @property
    def registry(self) -> ModelRegistry: ...
    @property
    def signal(self) -> AbortSignal | None:
        """The running run's abort signal (``ctx.signal``)."""

    @property
    def is_streaming(self) -> bool: ...
    @property
    def is_compacting(self) -> bool: ...
    @property
    def pending_message_count(self) -> int: ...
    @property
    def project_trusted(self) -> bool: ...
    def active_tool_names(self) -> list[str]: ...
    def settings(self) -> dict[str, Any]:
        """A copy of the effective settings."""

    def commands(self) -> list[dict[str, Any]]: ...
    def session_stats(self) -> dict[str, Any]: ...


class ExtensionHost(Protocol):
    """Actions of the live session that extensions may use (implemented by the runtime)."""

    @property
    def view(self) -> SessionView:
        """What ``pi`` and ``ctx`` read of the session."""

    # ------------------------------------------------------------------ pi.*
    def send_message(self, message: dict[str, Any], options: dict[str, Any] | None) -> None: ...
    def send_user_message(self, content: Any, options: dict[str, Any] | None) -> None: ...
    def append_entry(self, custom_type: str, data: Any) -> None: ...
    def set_session_name(self, name: str) -> None: ...
    def set_label(self, entry_id: str, label: str | None) -> None: ...
    def get_all_tools(self) -> list[dict[str, Any]]: ...
    def set_active_tools(self, names: list[str]) -> None: ...
    def refresh_tools(self) -> None: ...
    def get_callable_tools(self) -> list[dict[str, Any]]: ...
    async def execute_tool(
        self, caller_id: str, name: str, args: Any, signal: AbortSignal | None, on_update: Any
    ) -> dict[str, Any]: ...
    async def set_model(self, model: dict[str, Any]) -> bool: ...
    def set_thinking_level(self, level: str) -> None: ...
    def register_provider(self, name: str, config: dict[str, Any]) -> None: ...
    def unregister_provider(self, name: str) -> None: ...
    def register_virtual_model(self, definition: dict[str, Any]) -> None: ...
    def unregister_virtual_model(self, provider: str, model_id: str) -> None: ...

    # ------------------------------------------------------------------ ctx.*
    def abort(self) -> None: ...
    def compact(self, options: dict[str, Any] | None) -> None: ...
    def get_system_prompt(self) -> str: ...
    def get_system_prompt_options(self) -> dict[str, Any]: ...

    # ------------------------------------------------------------------ command ctx.*
    async def wait_for_idle(self) -> None: ...
    async def new_session(self, options: dict[str, Any] | None) -> dict[str, Any]: ...
    async def fork(self, entry_id: str, options: dict[str, Any] | None) -> dict[str, Any]: ...
    async def navigate_tree(self, target_id: str, options: dict[str, Any] | None) -> dict[str, Any]: ...
    async def switch_session(self, session_path: str, options: dict[str, Any] | None) -> dict[str, Any]: ...
    async def reload(self) -> None: ...

    # ------------------------------------------------------------------ plumbing
    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` in the background (fire-and-forget work such as ``pi.send_message``)."""


def _ignore_error(_error: ExtensionErrorRecord) -> None:
    return None


def _no_shutdown() -> None:
    return None


@dataclass
class ModeBinding:
    """What the running mode gives extensions. ``ui=None`` means no user (``ctx.has_ui`` is
    false and dialogs return their defaults at once)."""

    mode: str = "print"  # "tui" | "rpc" | "acp" | "json" | "print" (upstream's ctx.mode values, and ACP)
    ui: ExtensionUI | None = None
    on_error: Callable[[ExtensionErrorRecord], None] = field(default=_ignore_error)
    shutdown: Callable[[], None] = field(default=_no_shutdown)

    @property
    def effective_ui(self) -> ExtensionUI:
        return self.ui if self.ui is not None else NO_UI

"""The interactive ``/reload``: what upstream's reloads — the extensions (their ``setup`` runs
again, ``session_shutdown``/``session_start`` with reason ``reload``), the settings' packages
and extensions discovered again, skills, prompt templates, themes and context files.

With extensions the session's own extension reload does it all (the same as ``ctx.reload()``).
A session that started without any has no extension runtime to reload into (one is made only
when extensions are discovered, so a session without them costs nothing): its resources are
reloaded, and extensions found since startup are named in a warning (they load at the next
start), a deliberate difference (protocol/README §8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc.runtime.errors import RuntimeCommandError

if TYPE_CHECKING:
    from pi_rpc.runtime.session import AgentSession

# upstream's words (``extension_actions`` gives ``ctx.reload()`` the same ones)
ERR_RELOAD_STREAMING = "Wait for the current response to finish before reloading."
ERR_RELOAD_COMPACTING = "Wait for compaction to finish before reloading."


async def reload_session(session: AgentSession) -> list[str]:
    """Reload everything upstream's ``/reload`` does; returns warnings to show. Raises
    ``RuntimeCommandError`` while a response streams or a compaction runs (upstream's words)."""
    if session.is_streaming:
        raise RuntimeCommandError(ERR_RELOAD_STREAMING)
    if session.is_compacting:
        raise RuntimeCommandError(ERR_RELOAD_COMPACTING)
    if session.ext is not None:
        await session.ext.actions.reload()
        return []
    sources = await session.reload_sources()
    from pi_rpc.extensions.builtin import BUILTIN_PREFIX

    found = [source.path for source in sources or [] if not source.path.startswith(BUILTIN_PREFIX)]
    if not found:
        return []
    return [f"Extensions found since startup load when pi starts again: {', '.join(found)}"]

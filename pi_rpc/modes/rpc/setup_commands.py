"""The session-setup commands beyond upstream (``get_scoped_models``, ``set_scoped_models``,
``reload``), a collaborator of ``RuntimeBackend``: what the interactive ``/scoped-models`` and
``/reload`` do in-process, for a client in another process (``pi attach``). The scope is a
list of ``"provider/id"`` keys; ``set_scoped_models`` takes them in any order and keeps the
available models' order, as the interactive picker does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_rpc.modes.rpc.registry import CommandContext, CommandError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pi_rpc.runtime.session import AgentSession


def model_key(model: Mapping[str, Any]) -> str:
    """A model's ``"provider/id"`` (an id may itself hold slashes: keys are compared whole)."""
    return f"{model['provider']}/{model['id']}"


class SetupCommands:
    """The model-cycling scope and the reload of one session."""

    def __init__(self, session: AgentSession) -> None:
        self._holder = session.holder

    @property
    def session(self) -> AgentSession:
        """The holder's current session (a replacement never leaves these commands on an old one)."""
        return self._holder.current

    def _scope(self) -> dict[str, list[str]]:
        return {"models": [model_key(m) for m in self.session.models.scoped_models]}

    async def cmd_get_scoped_models(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        return self._scope()

    async def cmd_set_scoped_models(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        session = self.session
        available = session.get_available_models()
        known = {model_key(m) for m in available}
        wanted: list[str] = list(cmd["models"])
        unknown = [key for key in wanted if key not in known]
        if unknown:
            listed = ", ".join(f'"{key}"' for key in unknown)
            raise CommandError(
                f"Unknown or unavailable model{'s' if len(unknown) > 1 else ''} {listed}: "
                'expected "provider/id" keys of get_available_models'
            )
        chosen = set(wanted)
        scoped = [m for m in available if model_key(m) in chosen]
        session.models.set_scoped_models(scoped)
        if cmd.get("save"):
            # The interactive picker's "Save": settings.json's enabledModels (cleared: all models).
            if scoped:
                session.settings.set_global("enabledModels", [model_key(m) for m in scoped])
            else:
                session.settings.unset_global("enabledModels")
        return self._scope()

    async def cmd_reload(self, ctx: CommandContext, cmd: dict[str, Any]) -> Any:
        from pi_rpc.runtime.session_reload import reload_session

        # Refused while a response streams or a compaction runs (upstream's words, as /reload).
        warnings = await reload_session(self.session)
        return {"warnings": warnings}

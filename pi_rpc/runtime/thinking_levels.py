"""Checking and setting a session's thinking level, shared by the ``set_thinking_level``
command (``model_control``) and an extension's ``pi.set_thinking_level`` (``extension_actions``):
one check with one error text, one clamp to what the model supports, one way to record it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_rpc.ai.thinking import clamp_thinking_level
from pi_rpc.ai.types import THINKING_LEVELS, Model
from pi_rpc.runtime.errors import RuntimeCommandError

if TYPE_CHECKING:
    from pi_rpc.agent.agent import Agent
    from pi_rpc.session.manager import SessionManager


def check_thinking_level(level: str) -> None:
    """Raise ``RuntimeCommandError`` for a level that is not one of ``THINKING_LEVELS``."""
    # Deliberate difference: upstream silently clamps unknown strings (usually to "off").
    if level not in THINKING_LEVELS:
        raise RuntimeCommandError(f'Invalid thinking level "{level}". Valid values: {", ".join(THINKING_LEVELS)}')


def effective_thinking_level(model: Model | None, level: str) -> str:
    """``level`` clamped to what ``model`` supports (unchanged without a model)."""
    return level if model is None else clamp_thinking_level(model, level)


def record_thinking_level(agent: Agent, store: SessionManager, level: str) -> str | None:
    """Make ``level`` the agent's and record the change in the session; returns the previous
    level, or None when ``level`` was already set (nothing is recorded)."""
    previous = agent.thinking_level
    if level == previous:
        return None
    agent.thinking_level = level
    store.append_thinking_level_change(level)
    return previous

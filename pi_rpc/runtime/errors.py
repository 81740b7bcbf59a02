"""The texts of the errors the session runtime raises (``CommandError``, see ``pi_rpc.errors``):
the exact text a client sees in a failed response (upstream pi 1.6's strings where upstream
has one)."""

from __future__ import annotations

from pi_rpc.errors import CommandError

RuntimeCommandError = CommandError
"""The SDK's name for ``pi_rpc.errors.CommandError`` (one type; the runtime raises it)."""


ERR_ALREADY_PROCESSING = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)
ERR_COMPACTING = "Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and retry."
ERR_SESSION_NAME_EMPTY = "Session name cannot be empty"
ERR_EXPORT_IN_MEMORY = "Cannot export in-memory session to HTML"
ERR_EXPORT_NOTHING = "Nothing to export yet - start a conversation first"
ERR_INVALID_FORK_ENTRY = "Invalid entry ID for forking"
ERR_NAVIGATE_WHILE_STREAMING = "Wait for the current response to finish before navigating the session tree."
ERR_NAVIGATE_WHILE_COMPACTING = (
    "Wait for the current compaction or tree navigation to finish before navigating the session tree."
)


def command_not_queueable(name: str) -> str:
    """``steer``/``follow_up`` of an extension command (upstream's text)."""
    return f'Extension command "/{name}" cannot be queued. Use prompt() or execute the command when not streaming.'


# Upstream's first sentences are kept verbatim (clients and adapters match on them); the help
# that follows points at what exists here (no /login, no providers.md) instead of upstream's docs.
LOGIN_HELP = (
    "Configure a provider key (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY), "
    "add a provider to <agent dir>/models.json, or use the built-in offline model with "
    "--model faux/faux-1."
)


def no_models_available_message() -> str:
    """Upstream's startup warning (and ``--list-models`` output) when no provider is configured."""
    return f"No models available. {LOGIN_HELP}"


def no_api_key_error(provider: str) -> str:
    """The prompt preflight's error; ``unknown`` is the placeholder model of a runtime with no
    model (upstream's wording: "No API key found for the selected model.")."""
    who = "the selected model" if provider == "unknown" else provider
    return f"No API key found for {who}.\n\n{LOGIN_HELP}"

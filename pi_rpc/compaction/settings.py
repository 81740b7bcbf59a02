"""Settings the compaction layer consumes: compaction, branch summary and retry policy.

Each dataclass can be built from the matching ``settings.json`` section (camelCase keys,
upstream defaults for anything absent) so callers need not translate keys themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_RESERVE_TOKENS = 16384
DEFAULT_KEEP_RECENT_TOKENS = 20000
DEFAULT_BRANCH_RESERVE_TOKENS = 16384


def _int(value: object, default: int) -> int:
    # bool is an int subclass; a JSON true must not become 1 token.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return int(value)


@dataclass(frozen=True)
class CompactionSettings:
    """The ``compaction`` settings: whether it runs and its token budgets."""

    enabled: bool = True
    reserve_tokens: int = DEFAULT_RESERVE_TOKENS
    keep_recent_tokens: int = DEFAULT_KEEP_RECENT_TOKENS

    @classmethod
    def from_dict(cls, section: dict[str, object] | None, model_key: str | None = None) -> CompactionSettings:
        """Build from the ``compaction`` object of settings.json.

        ``model_key`` ("provider/modelId") selects a ``modelOverrides`` entry whose
        ``reserveTokens``/``keepRecentTokens`` win; ``enabled`` is never overridden per model.
        """
        section = section if isinstance(section, dict) else {}
        enabled = section.get("enabled", True)
        reserve = _int(section.get("reserveTokens"), DEFAULT_RESERVE_TOKENS)
        keep = _int(section.get("keepRecentTokens"), DEFAULT_KEEP_RECENT_TOKENS)
        overrides = section.get("modelOverrides")
        if model_key and isinstance(overrides, dict) and isinstance(overrides.get(model_key), dict):
            override = overrides[model_key]
            reserve = _int(override.get("reserveTokens"), reserve)
            keep = _int(override.get("keepRecentTokens"), keep)
        return cls(enabled=enabled is not False, reserve_tokens=reserve, keep_recent_tokens=keep)


@dataclass(frozen=True)
class RetrySettings:
    """Retry policy for summary requests (the same policy as turn retries)."""

    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2000
    max_delay_ms: int = 60000

    @classmethod
    def from_dict(cls, section: dict[str, object] | None) -> RetrySettings:
        section = section if isinstance(section, dict) else {}
        return cls(
            enabled=section.get("enabled", True) is not False,
            max_retries=_int(section.get("maxRetries"), 3),
            base_delay_ms=_int(section.get("baseDelayMs"), 2000),
            max_delay_ms=_int(section.get("maxAgentDelayMs"), 60000),
        )

    def delay_ms(self, attempt: int) -> int:
        """Backoff before retry number ``attempt`` (1-based): min(base·2^(attempt−1), max)."""
        return int(min(self.base_delay_ms * 2 ** (attempt - 1), self.max_delay_ms))


DEFAULT_COMPACTION_SETTINGS = CompactionSettings()
DEFAULT_RETRY_SETTINGS = RetrySettings()
NO_RETRY = RetrySettings(enabled=False, max_retries=0)

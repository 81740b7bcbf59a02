"""One-shot CLI commands that run no session: ``--list-models [search]`` and
``--export <session.jsonl> [out.html]`` (upstream's output formats)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_rpc.ai.types import Model

from pi_rpc.log import logger


def format_token_count(count: int) -> str:
    """200000 -> "200K", 1000000 -> "1M", 1500000 -> "1.5M" (upstream's formatting)."""
    if count >= 1_000_000:
        millions = count / 1_000_000
        return f"{int(millions)}M" if millions % 1 == 0 else f"{millions:.1f}M"
    if count >= 1_000:
        thousands = count / 1_000
        return f"{int(thousands)}K" if thousands % 1 == 0 else f"{thousands:.1f}K"
    return str(count)


# ICU's root collation (what upstream's ``String.prototype.localeCompare`` applies to ASCII in
# the en/de/... locales): spaces, punctuation and symbols first, in this order, then digits, then
# letters; case only breaks ties, lowercase first. Checked against Node's ``localeCompare`` over
# every provider and model id of the catalogue and all ASCII pairs (tests/cli/test_list_models.py).
# Other characters sort after the letters by code point.
_COLLATION_ORDER = "\t\n\v\f\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY_WEIGHT = {c: i for i, c in enumerate(_COLLATION_ORDER)}


def locale_sort_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A key that orders ASCII strings as upstream's ``a.localeCompare(b)`` does."""
    primary = tuple(_PRIMARY_WEIGHT.get(c.lower(), 1000 + ord(c)) for c in text)
    return primary, tuple(1 if c.isupper() else 0 for c in text)


def _fuzzy_match(pattern: str, text: str) -> bool:
    """Every character of the pattern appears in order (case-insensitive), like upstream's
    ``fuzzyFilter`` for each whitespace-separated token."""
    haystack = text.lower()
    for token in pattern.lower().split():
        position = 0
        for char in token:
            position = haystack.find(char, position)
            if position < 0:
                return False
            position += 1
    return True


def list_models(search: str | None, *, faux: bool = False) -> int:
    """``--list-models [search]``: the models with auth (``faux`` only when opted in)."""
    from pi_rpc.ai.models.registry import ModelRegistry
    from pi_rpc.config import paths
    from pi_rpc.runtime.errors import no_models_available_message

    registry = ModelRegistry(paths.agent_dir(), faux=faux)
    if registry.errors:
        logger().warning("Warning: errors loading models.json:\n" + "\n".join(registry.errors))
    models: list[Model] = registry.get_available()
    if not models:
        # As upstream: the startup warning on stderr, the same text as the listing.
        logger().warning(f"Warning: {no_models_available_message()}")
        print(no_models_available_message())
        return 0
    if search:
        models = [m for m in models if _fuzzy_match(search, f"{m['provider']} {m['id']}")]
        if not models:
            print(f'No models matching "{search}"')
            return 0
    # Upstream sorts with localeCompare (provider, then id), not by code point.
    models.sort(key=lambda m: (locale_sort_key(m["provider"]), locale_sort_key(m["id"])))
    headers = ["provider", "model", "context", "max-out", "thinking", "images"]
    rows = [
        [
            m["provider"],
            m["id"],
            format_token_count(int(m.get("contextWindow") or 0)),
            format_token_count(int(m.get("maxTokens") or 0)),
            "yes" if m.get("reasoning") else "no",
            "yes" if "image" in (m.get("input") or []) else "no",
        ]
        for m in models
    ]
    widths = [max(len(headers[i]), *(len(r[i]) for r in rows)) for i in range(len(headers))]
    for row in [headers, *rows]:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)))
    return 0


def export_session(input_path: str, output_path: str | None) -> int:
    from pi_rpc.runtime.errors import RuntimeCommandError
    from pi_rpc.runtime.export_html import export_session_file
    from pi_rpc.session.errors import SessionError

    try:
        path = export_session_file(input_path, output_path)
    except (RuntimeCommandError, SessionError, OSError) as exc:
        logger().error(f"Error: {exc}")
        return 1
    print(f"Exported to: {path}")
    return 0

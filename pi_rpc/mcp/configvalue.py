"""``env``, ``headers`` and ``oauth.clientSecret`` values of ``mcp.json``: ``${VAR}``/``$VAR``
templates or a whole-value ``!command``, resolved when a server connects (never cached, so a
rotated token is picked up on reconnect), failing with upstream's texts."""

from __future__ import annotations

from collections.abc import Mapping

from pi_rpc.ai.models.config_value import env_var_names, is_command, resolve_config_value


def resolve_or_raise(value: str, description: str) -> str:
    resolved = resolve_config_value(value, cached=False)
    if resolved is not None:
        return resolved
    if is_command(value):
        raise ValueError(f"Failed to resolve {description} from shell command: {value[1:]}")
    missing = [name for name in env_var_names(value) if resolve_config_value("${" + name + "}") is None]
    if len(missing) == 1:
        raise ValueError(f"Failed to resolve {description} from environment variable: {missing[0]}")
    if missing:
        raise ValueError(f"Failed to resolve {description} from environment variables: {', '.join(missing)}")
    raise ValueError(f"Failed to resolve {description}")


def resolve_headers_or_raise(headers: Mapping[str, str] | None, description: str) -> dict[str, str] | None:
    if not headers:
        return None
    resolved = {key: resolve_or_raise(value, f'{description} header "{key}"') for key, value in headers.items()}
    return resolved or None

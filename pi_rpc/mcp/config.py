"""``mcp.json``: the ``mcpServers`` configuration shared with other MCP clients, as upstream pi
reads and writes it.

- ``<agentDir>/mcp.json`` (scope ``global``) and, for a trusted project, ``<cwd>/.pi/mcp.json``
  (scope ``project``). A project entry replaces a global one of the same name; a project entry
  without ``command``, ``url`` and ``type`` is an *override* that may set only ``enabled``,
  ``exposure`` and ``toolExposure`` of the global server (credentials stay global).
- Stdio servers: ``command``, ``args``, ``env``, ``cwd``; streamable HTTP servers: ``url``,
  ``headers``, ``oauth``, ``auth`` (global file only). Both: ``type``, ``enabled``, ``timeout``
  (seconds), ``description``, ``exposure``, ``toolExposure``. The top-level
  ``autoEnableCodemode`` (boolean) applies to the whole file; a project value wins.
- Invalid entries are reported (upstream's texts) and skipped; the others still load.

Writers (``pi mcp add|remove``) keep unrelated content and the file's indentation.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pi_rpc.config.paths import CONFIG_DIR_NAME
from pi_rpc.mcp.naming import EXPOSURES, mcp_namespace, resolve_exposure_alias
from pi_rpc.tools._js import js_stringify

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
OVERRIDE_KEYS = ("enabled", "exposure", "toolExposure")
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
MCP_FILE_NAME = "mcp.json"


@dataclass
class ServerEntry:
    """One configured server: its validated config and where it came from."""

    name: str
    config: dict[str, Any]
    source: str  # the file (or extension) that defines it
    scope: str  # "global" | "project" | "extension"
    override: str | None = None  # the project file that overrides enabled/exposure/toolExposure

    @property
    def is_http(self) -> bool:
        return "url" in self.config

    @property
    def enabled(self) -> bool:
        return self.config.get("enabled") is not False


@dataclass
class McpConfig:
    servers: list[ServerEntry] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    auto_enable_codemode: bool | None = None
    project_config: str | None = None


def global_config_path(agent_dir: Path | str) -> str:
    return os.path.join(str(agent_dir), MCP_FILE_NAME)


def project_config_path(cwd: Path | str) -> str:
    return os.path.join(str(cwd), CONFIG_DIR_NAME, MCP_FILE_NAME)


# --------------------------------------------------------------------------- validation


def _is_record(value: object) -> bool:
    return isinstance(value, dict)


def _is_string_record(value: Any) -> bool:
    return _is_record(value) and all(isinstance(v, str) for v in value.values())


def _url_host(parsed: Any) -> str:
    host = parsed.hostname or ""
    return f"[{host}]" if ":" in host else host


def _is_http_url(value: str) -> bool:
    try:
        parsed = urlsplit(value)
        parsed.port  # noqa: B018 - raises on a bad port
    except ValueError:
        return False
    return parsed.scheme in ("http", "https") and bool(parsed.hostname)


def _is_loopback_redirect(value: str) -> bool:
    try:
        parsed = urlsplit(value)
        parsed.port  # noqa: B018 - raises on a bad port
    except ValueError:
        return False
    return (
        parsed.scheme == "http"
        and _url_host(parsed) in LOOPBACK_HOSTS
        and not parsed.query
        and not parsed.fragment
        and "?" not in value
        and "#" not in value
    )


def is_metadata_document_callback(callback_url: str | None) -> bool:
    """Whether pi's Client ID Metadata Documents list the loopback ``callbackUrl``."""
    if callback_url is None:
        return True
    parsed = urlsplit(callback_url)
    return _url_host(parsed) != "[::1]" and (parsed.path or "/") == "/callback"


def _check_base_fields(entry: Mapping[str, object]) -> str | None:
    enabled, timeout, description = entry.get("enabled"), entry.get("timeout"), entry.get("description")
    if "enabled" in entry and not isinstance(enabled, bool):
        return "enabled must be a boolean"
    if "description" in entry and not isinstance(description, str):
        return "description must be a string"
    if "timeout" in entry and not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0):
        return "timeout must be a positive number of seconds"
    return None


def _check_oauth(value: Any) -> str | None:
    if value is None:
        return None
    if not _is_record(value):
        return "oauth must be an object"
    if "clientId" in value and not isinstance(value["clientId"], str):
        return "oauth.clientId must be a string"
    if "clientSecret" in value and not isinstance(value["clientSecret"], str):
        return "oauth.clientSecret must be a string"
    port = value.get("callbackPort")
    if "callbackPort" in value and not (isinstance(port, int) and not isinstance(port, bool) and 1 <= port <= 65535):
        return "oauth.callbackPort must be a port number"
    callback = value.get("callbackUrl")
    if "callbackUrl" in value:
        if not isinstance(callback, str) or not _is_loopback_redirect(callback):
            return "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment"
        url_port = urlsplit(callback).port
        if url_port is not None and port is not None and url_port != port:
            return "oauth.callbackUrl and oauth.callbackPort name different ports"
    if "scope" in value and not isinstance(value["scope"], str):
        return "oauth.scope must be a string"
    if "clientName" in value and not (isinstance(value["clientName"], str) and value["clientName"].strip()):
        return "oauth.clientName must be a non-empty string"
    registration = value.get("clientRegistration")
    if "clientRegistration" in value and registration not in ("auto", "dcr"):
        if registration != "cimd":
            return 'oauth.clientRegistration must be "auto", "dcr", or "cimd"'
        if "clientId" in value or "clientName" in value:
            return 'oauth.clientRegistration "cimd" cannot be combined with oauth.clientId or oauth.clientName'
        if not is_metadata_document_callback(callback if isinstance(callback, str) else None):
            return (
                'oauth.clientRegistration "cimd" requires oauth.callbackUrl on localhost or 127.0.0.1 '
                "with path /callback"
            )
    if "authServerMetadataUrl" in value:
        metadata = value["authServerMetadataUrl"]
        ok = False
        if isinstance(metadata, str) and _is_http_url(metadata):
            parsed = urlsplit(metadata)
            ok = parsed.scheme == "https" or _url_host(parsed) in LOOPBACK_HOSTS
        if not ok:
            return "oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]"
    return None


def _check_exposures(entry: Mapping[str, Any]) -> str | None:
    allowed = ", ".join(f'"{value}"' for value in EXPOSURES)
    if "exposure" in entry and entry["exposure"] not in EXPOSURES:
        return f"exposure must be one of {allowed}"
    if "toolExposure" in entry:
        overrides = entry["toolExposure"]
        if not _is_record(overrides):
            return "toolExposure must map tool names to exposures"
        for tool, value in overrides.items():
            if value not in EXPOSURES:
                return f'toolExposure "{tool}" must be one of {allowed}'
    return None


def _check_auth(auth: Any, url: str) -> str | None:
    if auth is None:
        return None
    if not _is_record(auth) or not isinstance(auth.get("provider"), str) or not auth["provider"]:
        return "auth.provider must be a provider name"
    parsed = urlsplit(url)
    if parsed.scheme != "https" and _url_host(parsed) not in LOOPBACK_HOSTS:
        return "auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]"
    return None


def _resolve_aliases(raw: dict[str, Any]) -> dict[str, Any]:
    resolved = dict(raw)
    if "exposure" in resolved:
        resolved["exposure"] = resolve_exposure_alias(resolved["exposure"])
    if _is_record(resolved.get("toolExposure")):
        resolved["toolExposure"] = {k: resolve_exposure_alias(v) for k, v in resolved["toolExposure"].items()}
    return resolved


def validate_server_config(name: str, raw: Any) -> dict[str, Any] | str:
    """A copy of the entry with exposure aliases resolved, or upstream's error text."""
    if not SERVER_NAME.match(name):
        return f'invalid server name "{name}" (use letters, digits, "_" and "-")'
    if not _is_record(raw):
        return f'server "{name}" must be an object'
    entry = _resolve_aliases(raw)
    error = _check_base_fields(entry)
    if error:
        return f'server "{name}": {error}'
    kind, url, command = entry.get("type"), entry.get("url"), entry.get("command")
    if kind == "sse":
        return f'server "{name}": legacy SSE transport is not supported; use the streamable HTTP URL'
    if isinstance(url, str) and kind in (None, "http", "streamable-http"):
        if not _is_http_url(url):
            error = "url must be an http or https URL"
        elif "headers" in entry and not _is_string_record(entry["headers"]):
            error = "headers must map names to strings"
        else:
            error = _check_oauth(entry.get("oauth")) or _check_exposures(entry) or _check_auth(entry.get("auth"), url)
    elif isinstance(command, str) and kind in (None, "stdio"):
        args, env, cwd = entry.get("args"), entry.get("env"), entry.get("cwd")
        if "args" in entry and not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            error = "args must be an array of strings"
        elif "env" in entry and not _is_string_record(env):
            error = "env must map names to strings"
        elif "cwd" in entry and not isinstance(cwd, str):
            error = "cwd must be a string"
        else:
            error = _check_exposures(entry)
    else:
        return f'server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)'
    if error:
        return f'server "{name}": {error}'
    return entry


def is_override(entry: Mapping[str, object]) -> bool:
    """An entry that overrides a server defined elsewhere: no ``command``, ``url`` or ``type``."""
    return "command" not in entry and "url" not in entry and "type" not in entry


# --------------------------------------------------------------------------- loading


def _strip_bom(text: str) -> str:
    return text[1:] if text.startswith("\ufeff") else text


def _json_error(exc: ValueError) -> str:
    return str(exc)


def _read_file(path: str, scope: str, state: McpConfig, servers: dict[str, ServerEntry]) -> None:
    if not os.path.exists(path):
        return
    try:
        with open(path, encoding="utf-8") as f:
            parsed = json.loads(_strip_bom(f.read()))
    except (OSError, ValueError) as exc:
        state.errors.append(f"{path}: {exc.strerror if isinstance(exc, OSError) else _json_error(exc)}")
        return
    if not _is_record(parsed) or ("mcpServers" in parsed and not _is_record(parsed["mcpServers"])):
        state.errors.append(f'{path}: expected an object with an "mcpServers" object')
        return
    auto = parsed.get("autoEnableCodemode")
    if isinstance(auto, bool):
        state.auto_enable_codemode = auto
    elif "autoEnableCodemode" in parsed:
        state.errors.append(f"{path}: autoEnableCodemode must be a boolean")
    for name, value in (parsed.get("mcpServers") or {}).items():
        if scope == "project" and _is_record(value) and is_override(value):
            base = servers.get(name)
            extra = [key for key in value if key not in OVERRIDE_KEYS]
            if base is None:
                state.errors.append(f'{path}: server "{name}" needs "command" or "url", or a global server to override')
            elif extra:
                state.errors.append(f'{path}: server "{name}": an override can only set {", ".join(OVERRIDE_KEYS)}')
            else:
                merged = validate_server_config(name, {**base.config, **value})
                if isinstance(merged, str):
                    state.errors.append(f"{path}: {merged}")
                else:
                    servers[name] = ServerEntry(name, merged, base.source, base.scope, override=path)
            continue
        config = validate_server_config(name, value)
        if isinstance(config, str):
            state.errors.append(f"{path}: {config}")
            continue
        clash = next(
            (other for other in servers if other != name and mcp_namespace(other) == mcp_namespace(name)), None
        )
        if clash is not None:
            state.errors.append(f'{path}: server "{name}" conflicts with "{clash}"')
            continue
        if scope == "project" and "url" in config and config.get("auth"):
            state.errors.append(f'{path}: server "{name}": auth is only allowed in the global mcp.json')
            continue
        # Python dicts keep insertion order; a replaced name keeps its first position as in JS Maps.
        servers[name] = ServerEntry(name, config, path, scope)


def load_mcp_config(agent_dir: Path | str, cwd: Path | str, project_trusted: bool) -> McpConfig:
    """Global and (when trusted) project servers; disabled servers are included."""
    state = McpConfig()
    servers: dict[str, ServerEntry] = {}
    _read_file(global_config_path(agent_dir), "global", state, servers)
    if project_trusted:
        state.project_config = project_config_path(cwd)
        _read_file(state.project_config, "project", state, servers)
    state.servers = list(servers.values())
    return state


# --------------------------------------------------------------------------- writing


def _detect_indent(text: str | None) -> str:
    if text:
        match = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
        if match:
            return match.group(1)
    return "  "


def _edit_servers(path: str, edit: Callable[[dict[str, object] | None, dict[str, object]], bool]) -> None:
    text: str | None = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text = _strip_bom(f.read())
    parsed = {} if text is None else json.loads(text)
    if not _is_record(parsed) or ("mcpServers" in parsed and not _is_record(parsed["mcpServers"])):
        raise ValueError(f'{path}: expected an object with an "mcpServers" object')
    servers = parsed["mcpServers"] if _is_record(parsed.get("mcpServers")) else None
    if not edit(servers, parsed):
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    body = js_stringify(parsed, indent=_detect_indent(text))
    with open(path, "w", encoding="utf-8") as f:
        f.write(body + "\n")


def add_server_config(path: str, name: str, config: dict[str, object]) -> bool:
    """Add or replace a server; creates the file. Returns True when an entry was replaced."""
    replaced = False

    def edit(servers: dict[str, object] | None, parsed: dict[str, object]) -> bool:
        nonlocal replaced
        target = servers if servers is not None else {}
        replaced = name in target
        target[name] = config
        parsed["mcpServers"] = target
        return True

    _edit_servers(path, edit)
    return replaced


def remove_server_config(path: str, name: str) -> bool:
    """Remove a server; False when the file does not define it."""
    if not os.path.exists(path):
        return False
    removed = False

    def edit(servers: dict[str, object] | None, _parsed: dict[str, object]) -> bool:
        nonlocal removed
        if servers is None or name not in servers:
            return False
        del servers[name]
        removed = True
        return True

    _edit_servers(path, edit)
    return removed

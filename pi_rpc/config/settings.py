"""settings.json: global ``<agentDir>/settings.json`` merged with the project's
``<cwd>/.pi/settings.json`` (only when the project is trusted), typed getters with upstream
defaults (protocol reference §7.4) and writers that persist single keys to the GLOBAL file.

Invalid JSON in either file is reported once on stderr and treated as ``{}``, like upstream.
"""

from __future__ import annotations

import copy
import json
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TypeVar, cast

from pi_rpc.config import paths
from pi_rpc.log import logger

THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
DEFAULT_THINKING_LEVEL = "medium"
DEFAULT_QUEUE_MODE = "one-at-a-time"
DEFAULT_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")

_MISSING = object()
_T = TypeVar("_T")
_D = TypeVar("_D")

Warn = Callable[[str], None]


def _stderr_warn(message: str) -> None:
    logger().warning(message)


def deep_merge(base: Mapping[str, object], override: Mapping[str, object]) -> dict[str, object]:
    """Upstream's settings merge: override wins; when both sides hold a plain object the two
    objects are merged one level deep (arrays are replaced, not concatenated)."""
    merged: dict[str, object] = dict(base)
    for key, value in override.items():
        current = merged.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            merged[key] = {**current, **value}
        else:
            merged[key] = value
    return merged


def read_json_object(path: Path, warn: Warn | None = _stderr_warn) -> dict[str, object]:
    """Read a JSON object from ``path``; missing file -> ``{}``; invalid -> warning + ``{}``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        if warn:
            warn(f"Warning: Could not read settings from {path}: {exc.strerror or exc}")
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        if warn:
            warn(f"Warning: Invalid JSON in {path}: {exc}. Using defaults.")
        return {}
    if not isinstance(data, dict):
        if warn:
            warn(f"Warning: Settings file {path} does not contain a JSON object. Using defaults.")
        return {}
    return data


_TRUE_WORDS = {"true", "trust", "trusted", "always", "yes", "allow", "approved"}
_FALSE_WORDS = {"false", "untrusted", "never", "no", "deny", "denied"}


def _decision(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    if isinstance(value, dict):
        for key in ("trusted", "trust", "decision", "value"):
            if key in value:
                return _decision(value[key])
    return None


def saved_trust_decision(agent: Path, cwd: Path | str) -> bool | None:
    """A saved decision for ``cwd`` in ``<agentDir>/trust.json``, if any: the entry of the
    nearest ancestor (upstream's ``{"<path>": true|false}``; also read under ``projects`` /
    ``decisions``, with words such as ``"trusted"``/``"never"`` or ``{"trusted": ...}``)."""
    from pi_rpc.config.trust import nearest_decision

    data = read_json_object(paths.trust_path(agent), warn=None)
    for container in (data, data.get("projects"), data.get("decisions")):
        if isinstance(container, dict):
            found = nearest_decision(container, cwd, _decision)
            if found is not None:
                return found
    return None


def resolve_project_trust(
    *,
    agent: Path,
    cwd: Path | str,
    global_settings: Mapping[str, object],
    approve: bool | None,
) -> bool:
    """Upstream's order without a user to ask: ``-a`` -> trusted; ``-na`` -> untrusted; a
    project with nothing that needs trust -> a saved decision, else trusted; else a saved
    decision; else ``defaultProjectTrust`` (``always`` trusts; ``ask`` (default) and ``never``
    do not). (Extensions' ``project_trust`` handlers decide before the saved decision:
    ``pi_rpc.runtime.project_trust`` passes their answer as ``approve``.)"""
    from pi_rpc.config.trust import needs_trust

    if approve is True:
        return True
    if approve is False:
        return False
    saved = saved_trust_decision(agent, cwd)
    if saved is not None:
        return saved
    if not needs_trust(cwd):
        return True
    default: object = global_settings.get("defaultProjectTrust", "ask")
    return default == "always"


class Settings:
    """Effective settings plus writers to the global file.

    ``get("compaction.enabled", True)`` reads dotted paths from the merged view. Writers update
    the global file (re-read from disk first so concurrent edits by other processes survive)
    and the in-memory view. Writes are serialised with a lock and done atomically
    (temp file + rename).
    """

    def __init__(
        self,
        *,
        agent_dir: Path,
        cwd: Path,
        global_data: dict[str, object],
        project_data: dict[str, object],
        project_trusted: bool,
        warn: Warn | None = _stderr_warn,
    ) -> None:
        self.agent_dir = agent_dir
        self.cwd = cwd
        self.project_trusted = project_trusted
        self._global = global_data
        self._project = project_data if project_trusted else {}
        self._warn = warn
        self._lock = threading.Lock()
        self._merged = deep_merge(self._global, self._project)

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(
        cls,
        *,
        agent_dir: Path | None = None,
        cwd: Path | str | None = None,
        approve: bool | None = None,
        warn: Warn | None = _stderr_warn,
    ) -> Settings:
        agent = agent_dir if agent_dir is not None else paths.agent_dir()
        where = Path(os.path.abspath(str(cwd if cwd is not None else os.getcwd())))
        global_data = read_json_object(paths.settings_path(agent), warn)
        trusted = resolve_project_trust(agent=agent, cwd=where, global_settings=global_data, approve=approve)
        project_data = read_json_object(paths.project_settings_path(where), warn) if trusted else {}
        return cls(
            agent_dir=agent,
            cwd=where,
            global_data=global_data,
            project_data=project_data,
            project_trusted=trusted,
            warn=warn,
        )

    @classmethod
    def in_memory(cls, data: Mapping[str, object] | None = None, *, agent_dir: Path | None = None) -> Settings:
        """Settings not backed by a readable file (tests); writers still target ``agent_dir``."""
        import tempfile

        agent = agent_dir if agent_dir is not None else Path(tempfile.gettempdir()) / "pi-rpc-settings"
        return cls(
            agent_dir=agent,
            cwd=Path(os.getcwd()),
            global_data=dict(data or {}),
            project_data={},
            project_trusted=False,
            warn=None,
        )

    # ------------------------------------------------------------------ raw access

    @property
    def path(self) -> Path:
        return paths.settings_path(self.agent_dir)

    def as_dict(self) -> dict[str, object]:
        return copy.deepcopy(self._merged)

    def global_dict(self) -> dict[str, object]:
        return copy.deepcopy(self._global)

    def project_dict(self) -> dict[str, object]:
        """The project's settings (empty for an untrusted project)."""
        return copy.deepcopy(self._project)

    def get(self, dotted: str, default: object = None) -> object:
        node: object = self._merged
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node

    def _typed(self, dotted: str, kind: type[_T], default: _D) -> _T | _D:
        value = self.get(dotted, _MISSING)
        if value is _MISSING or value is None:
            return default
        # bool is an int subclass; never accept it where a number is wanted.
        if isinstance(value, bool) and kind is not bool:
            return default
        return value if isinstance(value, kind) else default

    def _number(self, dotted: str, default: _D) -> int | _D:
        """A JSON number (never a bool). Typed ``int`` for the callers, but a float such as
        ``1.5`` passes through unchanged, as upstream's JS number would."""
        value = self.get(dotted, _MISSING)
        if value is _MISSING or value is None or isinstance(value, bool):
            return default
        return cast(int, value) if isinstance(value, (int, float)) else default

    # ------------------------------------------------------------------ typed getters

    @property
    def default_provider(self) -> str | None:
        return self._typed("defaultProvider", str, None)

    @property
    def default_model(self) -> str | None:
        return self._typed("defaultModel", str, None)

    @property
    def default_thinking_level(self) -> str:
        level = self._typed("defaultThinkingLevel", str, DEFAULT_THINKING_LEVEL)
        return level if level in THINKING_LEVELS else DEFAULT_THINKING_LEVEL

    @property
    def has_default_thinking_level(self) -> bool:
        return isinstance(self.get("defaultThinkingLevel"), str)

    @property
    def model_thinking_levels(self) -> dict[str, str]:
        raw = self._typed("modelThinkingLevels", dict, {})
        return {k: v for k, v in raw.items() if isinstance(v, str)}

    @property
    def enabled_models(self) -> list[str] | None:
        raw = self._typed("enabledModels", list, None)
        return None if raw is None else [str(x) for x in raw if isinstance(x, str)]

    @property
    def steering_mode(self) -> str:
        # Upstream stores whatever set_steering_mode was given; report it back verbatim.
        return self._typed("steeringMode", str, DEFAULT_QUEUE_MODE)

    @property
    def follow_up_mode(self) -> str:
        return self._typed("followUpMode", str, DEFAULT_QUEUE_MODE)

    @property
    def compaction_enabled(self) -> bool:
        return self._typed("compaction.enabled", bool, True)

    @property
    def compaction_reserve_tokens(self) -> int:
        return self._number("compaction.reserveTokens", 16384)

    @property
    def compaction_keep_recent_tokens(self) -> int:
        return self._number("compaction.keepRecentTokens", 20000)

    @property
    def branch_summary_reserve_tokens(self) -> int:
        return self._number("branchSummary.reserveTokens", 16384)

    @property
    def retry_enabled(self) -> bool:
        return self._typed("retry.enabled", bool, True)

    @property
    def retry_max_retries(self) -> int:
        return self._number("retry.maxRetries", 3)

    @property
    def retry_base_delay_ms(self) -> int:
        return self._number("retry.baseDelayMs", 2000)

    @property
    def retry_max_agent_delay_ms(self) -> int:
        return self._number("retry.maxAgentDelayMs", 60000)

    @property
    def retry_provider_timeout_ms(self) -> int | None:
        return self._number("retry.provider.timeoutMs", None)

    @property
    def retry_provider_max_retries(self) -> int:
        return self._number("retry.provider.maxRetries", 0)

    @property
    def retry_provider_max_retry_delay_ms(self) -> int:
        return self._number("retry.provider.maxRetryDelayMs", 60000)

    @property
    def session_dir(self) -> str | None:
        return self._typed("sessionDir", str, None)

    @property
    def session_store(self) -> object:
        """``sessionStore`` as written ("jsonl", "sqlite" or "postgres"; checked where it is used)."""
        return self.get("sessionStore", None)

    @property
    def session_database(self) -> str | None:
        return self._typed("sessionDatabase", str, None)

    @property
    def shell_path(self) -> str | None:
        return self._typed("shellPath", str, None)

    @property
    def shell_command_prefix(self) -> str | None:
        return self._typed("shellCommandPrefix", str, None)

    @property
    def default_tools(self) -> list[str] | str | None:
        """Raw ``defaultTools`` (a list or a comma string with ``+x``/``-x`` modifiers); None
        means upstream's default set ``read,bash,edit,write`` (see ``DEFAULT_TOOLS``)."""
        value = self.get("defaultTools")
        return value if isinstance(value, (list, str)) else None

    @property
    def images_auto_resize(self) -> bool:
        return self._typed("images.autoResize", bool, True)

    @property
    def images_block_images(self) -> bool:
        return self._typed("images.blockImages", bool, False)

    @property
    def transport(self) -> str:
        """``auto`` | ``sse`` | ``websocket`` | ``websocket-cached`` (providers with more than
        one transport: openai-codex-responses). The legacy ``websockets`` boolean, when
        ``transport`` is absent, means ``websocket`` / ``sse`` (upstream's settings migration)."""
        value = self.get("transport")
        if value is None:
            legacy = self.get("websockets")
            if isinstance(legacy, bool):
                return "websocket" if legacy else "sse"
        return value if isinstance(value, str) else "auto"

    @property
    def websocket_connect_timeout_ms(self) -> int | None:
        """``websocketConnectTimeoutMs``: a number, ``"disabled"`` (0: no limit), or None (the
        provider's default, 15 s)."""
        value = self.get("websocketConnectTimeoutMs")
        if value == "disabled":
            return 0
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            return int(value)
        return None

    @property
    def http_proxy(self) -> str | None:
        return self._typed("httpProxy", str, None)

    @property
    def http_idle_timeout_ms(self) -> int:
        return self._number("httpIdleTimeoutMs", 300000)

    @property
    def default_project_trust(self) -> str:
        return self._typed("defaultProjectTrust", str, "ask")

    # ------------------------------------------------------------------ writers (global file)

    def set_global(self, dotted: str, value: object) -> None:
        """Persist one key (dotted path, intermediate objects created) to the global
        settings.json, keeping every other key; refresh the merged view."""
        parts = dotted.split(".")
        with self._lock:
            on_disk = read_json_object(self.path, self._warn) if self.path.exists() else {}
            for data in (on_disk, self._global):
                node = data
                for part in parts[:-1]:
                    child = node.get(part)
                    if not isinstance(child, dict):
                        child = {}
                        node[part] = child
                    node = child
                node[parts[-1]] = value
            self._write_atomic(on_disk)
            self._global = on_disk
            self._merged = deep_merge(self._global, self._project)

    def unset_global(self, key: str) -> None:
        """Remove one top-level key from the global settings.json (upstream's ``set…(undefined)``:
        the key disappears rather than becoming ``null``)."""
        with self._lock:
            on_disk = read_json_object(self.path, self._warn) if self.path.exists() else {}
            if key not in on_disk and key not in self._global:
                return
            on_disk.pop(key, None)
            self._global.pop(key, None)
            self._write_atomic(on_disk)
            self._global = on_disk
            self._merged = deep_merge(self._global, self._project)

    def _write_atomic(self, data: dict[str, object]) -> None:
        import tempfile

        self.path.parent.mkdir(parents=True, exist_ok=True)
        # upstream's SettingsManager writes JSON.stringify(settings, null, 2): no trailing newline
        text = json.dumps(data, indent=2, ensure_ascii=False)
        fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".json", dir=str(self.path.parent))
        try:
            with os.fdopen(fd, "wb") as fh:
                # A lone surrogate can only sit inside a JSON string here: written as the
                # \\udXXX escape JSON.stringify would use, the file stays valid UTF-8 JSON.
                fh.write(text.encode("utf-8", "backslashreplace"))
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def set_steering_mode(self, mode: str) -> None:
        self.set_global("steeringMode", mode)

    def set_follow_up_mode(self, mode: str) -> None:
        self.set_global("followUpMode", mode)

    def set_compaction_enabled(self, enabled: bool) -> None:
        self.set_global("compaction.enabled", enabled)

    def set_retry_enabled(self, enabled: bool) -> None:
        self.set_global("retry.enabled", enabled)

"""``<agentDir>/auth.json``, read and written exactly as upstream pi 1.6 does
(``coding-agent/dist/core/auth-storage.js``: ``AuthStorage``, ``FileAuthStorageBackend``,
``ReadOnlyAuthStorage``).

The file is one JSON object keyed by provider id, one credential per provider::

    {"type": "api_key", "key"?: str, "env"?: {str: str}}
    {"type": "oauth", "access": str, "refresh": str, "expires": <epoch ms>, ...extra fields}

Reading (``AuthStore.reload``): UTF-8, a leading BOM stripped, ``JSON.parse``; a write in
progress is never taken for the file's content (see ``reload``). A file that
cannot be read or parsed leaves the last good snapshot in place (``{}`` at first), as
upstream's ``AuthStorage.reload``. ``validate`` is the strict check upstream's
``ReadOnlyAuthStorage`` applies (its error texts).

Writing (``AuthStore.modify`` / ``delete``): the parent directory is created 0700 and a
missing file as ``{}`` with mode 0600; then, under upstream's lock (``lockfile.acquire_async``:
``proper-lockfile`` with stale 30 s and a 30 s deadline), the file is re-read, ``fn`` gets the
provider's current entry and returns the new one (or ``None``: nothing is written), the one
entry is replaced (other entries and their order kept, a new provider appended) and the whole
file rewritten in place as ``JSON.stringify(data, null, 2)``: two-space indent, no trailing
newline, no temp file, no fsync; mode 0600 only applies when the file is created. A lock lost
while ``fn`` ran (another process took it as stale) aborts the write. ``modify`` is the
"update under lock" an OAuth refresh needs: ``fn`` sees what is stored *now* (another process
may have refreshed meanwhile).

Secrets: nothing here logs, prints or copies an entry anywhere but the file.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from pi_rpc.ai.jsjson import dumps_normalized, js_normalize, to_utf8
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.errors import PiError

if TYPE_CHECKING:
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.auth.lockfile import HeldLock

AUTH_FILE_NAME = "auth.json"
_BOM = "\ufeff"
_ARRAY_INDEX_LIMIT = 2**32 - 1

Entry = dict[str, object]
ModifyFn = Callable[[Entry | None], "Awaitable[Entry | None] | Entry | None"]


class AuthFileError(PiError):
    """auth.json is unreadable or does not hold valid credentials (upstream's texts)."""


def parse_auth_text(text: str) -> object:
    """``JSON.parse(stripBom(content))`` of the file's text; empty text is ``{}``
    (``AuthStorage.parseStorageData``). Raises ``ValueError`` on malformed JSON."""
    if not text:
        return {}
    if text.startswith(_BOM):
        text = text[1:]
    data: object = js_loads(text)
    return data  # whatever JSON.parse gave; callers check for an object


def credential_valid(credential: object) -> bool:
    """``ReadOnlyAuthStorage.load``'s rule for one entry: ``api_key`` with ``key`` absent or a
    string and ``env`` absent or an object of strings; ``oauth`` with string ``access`` and
    ``refresh`` and a finite number ``expires``."""
    if not isinstance(credential, dict):
        return False
    kind = credential.get("type")
    if kind == "api_key":
        # ``undefined`` passes; JSON ``null`` is not undefined and fails, as upstream.
        env = credential.get("env")
        valid_key = "key" not in credential or isinstance(credential["key"], str)
        valid_env = "env" not in credential or (isinstance(env, dict) and all(isinstance(v, str) for v in env.values()))
        return valid_key and valid_env
    if kind == "oauth":
        expires = credential.get("expires")
        return (
            isinstance(credential.get("access"), str)
            and isinstance(credential.get("refresh"), str)
            and isinstance(expires, (int, float))
            and not isinstance(expires, bool)
            and math.isfinite(expires)
        )
    return False


def validate(data: object) -> dict[str, object]:
    """The whole file as ``ReadOnlyAuthStorage.load`` checks it; raises ``AuthFileError``
    with upstream's text for the first problem."""
    if not isinstance(data, dict):
        raise AuthFileError("Invalid auth.json: expected an object")
    for provider_id, credential in data.items():
        if not credential_valid(credential):
            raise AuthFileError(f'Invalid auth.json credential for provider "{provider_id}"')
    return data


def load_validated(path: str | os.PathLike[str]) -> dict[str, object]:
    """``ReadOnlyAuthStorage.load``: a missing file is ``{}``; an unreadable or malformed one
    raises ``Failed to read auth.json: <reason>`` (the reason is Python's parser's, not V8's);
    invalid content raises ``validate``'s errors."""
    try:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise AuthFileError(f"Failed to read auth.json: {exc}") from None
    try:
        parsed = parse_auth_text(text)
    except ValueError as exc:
        raise AuthFileError(f"Failed to read auth.json: {exc}") from None
    return validate(parsed)


def _js_key_order(value: object) -> object:
    """Objects with JavaScript's property order: integer-like keys (array indices) first in
    ascending order, then the others in insertion order, as ``JSON.stringify`` walks them."""
    if isinstance(value, dict):
        indices = sorted((k for k in value if _is_array_index(k)), key=int)
        if indices:
            ordered = {k: value[k] for k in indices}
            ordered.update((k, v) for k, v in value.items() if k not in ordered)
            value = ordered
        return {k: _js_key_order(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_js_key_order(v) for v in value]
    return value


def _is_array_index(key: object) -> bool:
    return isinstance(key, str) and key.isdigit() and str(int(key)) == key and int(key) < _ARRAY_INDEX_LIMIT


def serialize(data: Mapping[str, object]) -> bytes:
    """``JSON.stringify(data, null, 2)`` as UTF-8: two-space indent, no trailing newline."""
    ordered = _js_key_order(dict(data))
    try:
        return dumps_normalized(ordered, orjson.OPT_INDENT_2)
    except (TypeError, orjson.JSONEncodeError):
        # Lone surrogates or huge integers: the stdlib writes them; node would write the
        # surrogate as an escape, which the stdlib's ASCII-safe form does too.
        return to_utf8(json.dumps(js_normalize(ordered), indent=2, ensure_ascii=True))


def resolve_stored_key(credential: Mapping[str, object], env: Mapping[str, str] | None = None) -> str | None:
    """The stored ``api_key`` credential's key as ``AuthStorage.read`` resolves it: a config
    value (``!command``, ``$VAR``/``${VAR}``, literal) read with the credential's ``env`` over
    the process environment (``env`` when given). ``None`` when absent or unresolved."""
    # Imported here: ``pi_rpc.ai.models`` imports this module (its registry reads auth.json).
    from pi_rpc.ai.models.config_value import resolve_config_value

    key = credential.get("key")
    if not isinstance(key, str):
        return None
    overlay = dict(os.environ if env is None else env)
    stored_env = credential.get("env")
    if isinstance(stored_env, dict):
        overlay.update({str(k): str(v) for k, v in stored_env.items() if v})
    return resolve_config_value(key, overlay)


def _write_in_place(path: Path, content: bytes) -> None:
    # writeFileSync(path, next, {mode: 0o600}): truncate and write in place; the mode only
    # applies when the file is created (administrator-managed modes stay).
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(content)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)


class AuthStore:
    """One auth.json file: a snapshot for reads, ``modify``/``delete`` for writes."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(os.path.expanduser(os.fspath(path)))
        self._data: dict[str, object] = {}

    @property
    def data(self) -> dict[str, Any]:
        """The last snapshot read (do not mutate)."""
        return self._data

    def entry(self, provider: str) -> Entry | None:
        value = self._data.get(provider)
        return value if isinstance(value, dict) else None

    def reload(self) -> dict[str, object]:
        """Re-read the file; on any failure keep the last snapshot. A missing file is ``{}`` and
        is not created (upstream creates ``{}`` here; pi_rpc leaves an agent dir it only reads
        untouched).

        Upstream reads under the lock so as never to see a write in progress (writes truncate
        and rewrite in place). The same guarantee costs less: every proper prefix of the JSON
        text of an object is invalid JSON except the empty one, so a read that parses and is
        not empty saw a whole file; only an empty or unparsable read is repeated under the
        lock (``lockfile.acquire_sync``; ~1.5 ms of mkdir/rmdir against ~15 us for a read).
        When the lock cannot be taken at all (a read-only directory) the first read stands."""
        try:
            text = self.path.read_bytes().decode("utf-8", errors="replace")
        except FileNotFoundError:
            self._data = {}
            return self._data
        except OSError:
            return self._data
        try:
            parsed = parse_auth_text(text) if text else None
        except ValueError:
            parsed = None
        if parsed is None:
            parsed = self._read_locked(text)
        if isinstance(parsed, dict):
            self._data = parsed
        return self._data

    def _read_locked(self, first: str) -> object:
        """The file read under the lock (None: keep the snapshot)."""
        from pi_rpc.ai.auth import lockfile  # only here and for writes: not on every startup

        held: HeldLock | None
        try:
            held = lockfile.acquire_sync(self.path, heartbeat=False)
        except lockfile.LockError:
            return None  # held by a writer for 200 ms: keep the snapshot (upstream)
        except OSError:
            held = None
        try:
            text = self.path.read_bytes().decode("utf-8", errors="replace") if held is not None else first
            return parse_auth_text(text)
        except (OSError, ValueError):
            return None
        finally:
            if held is not None:
                held.release()

    def _ensure_file(self) -> None:
        parent = self.path.parent
        if not parent.exists():
            os.makedirs(parent, mode=0o700, exist_ok=True)
        if not self.path.exists():
            _write_in_place(self.path, b"{}")

    async def _locked(
        self,
        change: Callable[[dict[str, object]], Awaitable[tuple[object, dict[str, object] | None]]],
        signal: AbortSignal | None = None,
    ) -> Any:
        """``withLockAsync``: lock, re-read, let ``change`` decide, write, unlock. ``signal``
        cancels only the wait for the lock (``AbortedError``), never ``change`` or the write."""
        from pi_rpc.ai.auth import lockfile

        self._ensure_file()
        if signal is None:
            held = await lockfile.acquire_async(self.path)
        else:
            from pi_rpc.ai.errors import FETCH_ABORTED, AbortedError

            acquired: HeldLock | None = None
            with signal.scope():
                acquired = await lockfile.acquire_async(self.path)
            if acquired is None:
                raise AbortedError(FETCH_ABORTED)
            held = acquired
        try:
            held.check()
            text = self.path.read_bytes().decode("utf-8", errors="replace")
            current = parse_auth_text(text)
            if not isinstance(current, dict):
                current = {}
            result, merged = await change(current)
            held.check()
            if merged is not None:
                _write_in_place(self.path, serialize(merged))
                held.check()
                self._data = merged
            else:
                self._data = current
            return result
        finally:
            held.release()

    async def modify(self, provider: str, fn: ModifyFn, *, signal: AbortSignal | None = None) -> Entry | None:
        """Replace ``provider``'s entry with what ``fn`` returns for the stored one, under the
        lock. ``fn`` may be async; ``None`` writes nothing. Returns the entry now stored.
        ``signal`` cancels only the wait for the lock (upstream's ``modify(..., {signal})``)."""

        async def change(current: dict[str, object]) -> tuple[object, dict[str, object] | None]:
            previous = current.get(provider)
            produced = fn(previous if isinstance(previous, dict) else None)
            nxt = await produced if isinstance(produced, Awaitable) else produced
            if nxt is None:
                return previous, None
            return nxt, {**current, provider: nxt}

        result: Entry | None = await self._locked(change, signal)
        return result

    async def delete(self, provider: str) -> None:
        """Remove ``provider``'s entry (the file is rewritten even when it had none, as upstream)."""

        async def change(current: dict[str, object]) -> tuple[object, dict[str, object] | None]:
            rest = {k: v for k, v in current.items() if k != provider}
            return None, rest

        await self._locked(change)

"""``pi auth``: log in to and out of providers, print their credentials for other programs, or
check that they are ready -- upstream pi 1.6's subcommands, flags, texts and exit codes
(``coding-agent/dist/cli/auth-command.js``, ``auth-check.js``, ``credential-print.js``,
``auth-logout.js``, ``auth-login.js`` and ``main.js`` ``runAuthCommand``).

* ``check --provider P|--model M [--json] [--credentials] [--no-refresh]``: prints ``ready``,
  ``not_ready`` or ``invalid`` (or the JSON object) and exits 0, 1 or 2.
* ``print-api-key`` / ``print-bearer-token [--min-expiry D]``: the resolved credential on
  stdout, or ``Error: …`` on stderr and exit 1.
* ``logout <provider>``: removes the stored entry under upstream's lock.
* ``login <provider> [--api-key] [--no-browser]``: needs a terminal (upstream's rule); the flows
  are ``pi_rpc.ai.auth.login``'s.

Credentials only ever reach stdout when the command exists to print them; errors never carry
one. A refresh (``check`` without ``--no-refresh``, ``print-bearer-token``) goes through
``pi_rpc.ai.auth.login.refresh``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from pi_rpc.ai.auth.store import AuthStore
    from pi_rpc.ai.models.registry import ModelRegistry

APP = "pi"

HELP = """Usage:
  pi auth login <provider> [--api-key] [--no-browser]
  pi auth logout <provider>
  pi auth print-api-key [--provider <provider>] [--model <model>]
  pi auth print-bearer-token [--provider <provider>] [--model <model>] [--min-expiry <duration>]
  pi auth check [--provider <provider>] [--model <model>] [--json] [--credentials] [--no-refresh]

Log in to and out of model providers, print their credentials for external clients, or check that they are ready.
Credentials are stored in ~/.pi/agent/auth.json.

Commands:
  login <provider>        Sign in with an account in the browser, or save an API key, then exit
  logout <provider>       Remove the stored credentials; environment variables and models.json stay
  print-api-key           Print the resolved API key
  print-bearer-token      Print a resolved OAuth bearer token (refreshes if expired)
  check                   Print ready, not_ready, or invalid; exit with 0, 1, or 2

Options for print-api-key, print-bearer-token, and check (at least one is required):
  --provider <provider>   Resolve credentials for a provider
  --model <model>         Resolve credentials from a model

Options for login:
  --api-key               Save an API key instead of signing in with an account
  --no-browser            Do not open a browser; use another sign-in method, e.g. device code

Other options:
  --min-expiry <duration> Minimum remaining token lifetime for print-bearer-token, e.g. 30m or 1h
  --json                  Print the check result as JSON
  --credentials           Emit the credential from check, or include it in JSON output
  --no-refresh            Do not refresh expired OAuth credentials during check
"""

_USAGE = {
    "check": f"{APP} auth check --provider <provider> [--json] [--credentials] [--no-refresh]",
    "api_key": f"{APP} auth print-api-key --provider <provider> [--model <model>]",
    "bearer_token": f"{APP} auth print-bearer-token --provider <provider> [--model <model>] [--min-expiry <duration>]",
}
_NAME = {"check": "auth check", "api_key": "auth print-api-key", "bearer_token": "auth print-bearer-token"}
_KINDS = {"check": "check", "print-api-key": "api_key", "print-bearer-token": "bearer_token"}
# print-bearer-token refreshes a token with less than this left unless --min-expiry says otherwise.
DEFAULT_BEARER_MIN_EXPIRY_MS = 30 * 60_000


class AuthCommandError(Exception):
    """A usage or resolution error, printed as ``Error: <message>``."""


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _agent_dir() -> str:
    from pi_rpc.config.paths import agent_dir

    return str(agent_dir())


def _registry() -> ModelRegistry:
    from pi_rpc.ai.models.registry import ModelRegistry

    return ModelRegistry(_agent_dir())


def run_auth_command(argv: Sequence[str]) -> int:
    """``pi auth …`` (``argv`` without ``auth``); returns the exit code."""
    args = list(argv)
    if not args or args[0] == "help" or "--help" in args or "-h" in args:
        sys.stdout.write(HELP)
        return 0
    sub, rest = args[0], [a for a in args[1:] if a != "--offline"]
    if sub == "login":
        from pi_rpc.modes.auth_login import run_auth_login

        return run_auth_login(rest)
    if sub == "logout":
        return run_auth_logout(rest)
    kind = _KINDS.get(sub)
    if kind is None:
        _err(
            f'Error: Unknown auth command "{sub}". Use "{APP} auth login", "{APP} auth logout", '
            f'"{APP} auth print-api-key", "{APP} auth print-bearer-token", or "{APP} auth check".'
        )
        return 1
    try:
        options = _parse(kind, args[1:])
    except AuthCommandError as exc:
        _err(f"Error: {exc.args[0]}")
        # parseAuthCommand's errors exit 1; the later argument checks exit as the command does.
        return 2 if kind == "check" and exc.args[1:] == ("validate",) else 1
    if options.get("unknown"):
        _err(f'Unknown option --{options["unknown"]} for "{_NAME[kind]}".')
        _err(f'Use "{APP} --help" or "{_USAGE[kind]}".')
        return 1
    if kind == "check":
        return _run_check(options)
    try:
        credential = _resolve_for_print(options, kind)
    except AuthCommandError as exc:
        _err(f"Error: {exc}")
        return 1
    except Exception:  # noqa: BLE001 - upstream: any other failure is this one line, no detail
        _err("Error: Failed to resolve credential")
        return 1
    _out(credential)
    return 0


def parse_duration_ms(value: str | None) -> int | None:
    """``--min-expiry``'s ``<n>(ms|s|m|h)`` (case-insensitive), or None when malformed."""
    match = re.fullmatch(r"(\d+)(ms|s|m|h)", value or "", re.IGNORECASE)
    if match is None:
        return None
    unit = match.group(2).lower()
    return int(match.group(1)) * {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000}[unit]


def _parse(kind: str, args: list[str]) -> dict[str, object]:
    """``parseAuthCommand`` then the regular argument parser's part (``--provider``,
    ``--model``, unknown flags, stray messages)."""
    options: dict[str, Any] = {"json": False, "credentials": False, "no_refresh": False, "min_expiry": None}
    rest: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--min-expiry":
            if kind != "bearer_token":
                raise AuthCommandError("--min-expiry is only supported by print-bearer-token")
            index += 1
            ms = parse_duration_ms(args[index] if index < len(args) else None)
            if ms is None:
                raise AuthCommandError("--min-expiry must use a duration such as 30m or 1h")
            options["min_expiry"] = ms
        elif arg in ("--json", "--credentials", "--no-refresh"):
            if kind != "check":
                raise AuthCommandError(f"{arg} is only supported by auth check")
            options[arg[2:].replace("-", "_")] = True
        else:
            rest.append(arg)
        index += 1
    stray = False
    index = 0
    while index < len(rest):
        arg = rest[index]
        if arg in ("--provider", "--model") and index + 1 < len(rest):
            options[arg[2:]] = rest[index + 1]
            index += 2
            continue
        if arg.startswith("--"):
            options.setdefault("unknown", arg[2:].split("=", 1)[0])
        else:
            stray = True
        index += 1
    if options.get("unknown"):
        return options
    if stray:
        raise AuthCommandError("Auth commands only accept --provider and --model", "validate")
    provider = (options.get("provider") or "").strip() or None
    model = (options.get("model") or "").strip() or None
    options["provider"], options["model"] = provider, model
    if kind == "check":
        if not provider and not model:
            raise AuthCommandError("Auth checks require --provider <provider> or --model <model>", "validate")
    elif not provider and not model:
        raise AuthCommandError("Credential printing requires --provider <provider> or --model <model>")
    return options


# ---------------------------------------------------------------------------------- check


def _run_check(options: dict[str, object]) -> int:
    credential: str | None = None
    try:
        result = check_provider(options, refresh=not options["no_refresh"])
        if options["credentials"] and result["status"] == "ready":
            credential = _check_credential(result["provider"], refresh=not options["no_refresh"])
            if not credential:
                result = {"status": "not_ready", "provider": result["provider"], "reason": "credential_not_available"}
    except Exception:  # noqa: BLE001 - upstream: any failure of the check is "invalid"
        result = {"status": "invalid", "provider": options["provider"] or options["model"], "reason": "invalid_state"}
    if options["json"]:
        shown = {**result, **({"credentials": credential} if credential else {})}
        _out(orjson.dumps(shown).decode())
    else:
        _out(credential or result["status"])
    return {"ready": 0, "not_ready": 1}.get(result["status"], 2)


def known_provider(registry: ModelRegistry, provider: str) -> bool:
    from pi_rpc.ai.auth.login.providers import PROVIDERS

    return provider in PROVIDERS or provider in registry.providers()


def check_provider(options: dict[str, Any], *, refresh: bool) -> dict[str, Any]:
    """``checkProviderAuth``. ``--model`` is resolved against an empty offline catalogue
    upstream (``createAuthCheckModelRuntime``), so it never resolves: ``invalid``."""
    from pi_rpc.ai.auth.store import load_validated

    if options["model"]:
        raise AuthCommandError(f'Model "{options["model"]}" not found')
    provider: str = options["provider"]
    registry = _registry()
    if registry.error:
        return {"status": "invalid", "provider": provider, "reason": "invalid_state"}
    load_validated(registry.auth_json_path)  # an unreadable auth.json is an invalid state
    if not known_provider(registry, provider):
        return {"status": "not_ready", "provider": provider, "reason": "provider_not_found"}
    if not registry.has_auth(provider):
        return {"status": "not_ready", "provider": provider, "reason": "credentials_not_configured"}
    entry = registry.auth_store.entry(provider)
    auth_type = "oauth" if entry is not None and entry.get("type") == "oauth" else "api_key"
    if refresh and auth_type == "oauth":
        _fresh_oauth(registry.auth_store, provider, None)
    elif refresh and not registry.get_api_key(provider) and not registry.resolve_auth(provider)[1]:
        return {"status": "not_ready", "provider": provider, "reason": "credentials_not_configured"}
    return {"status": "ready", "provider": provider, "authType": auth_type}


def _check_credential(provider: str, *, refresh: bool) -> str | None:
    """``getProviderCredential``: the stored access token as is without a refresh, else the
    resolved credential."""
    registry = _registry()
    entry = registry.auth_store.entry(provider)
    if entry is not None and entry.get("type") == "oauth":
        if refresh:
            entry = _fresh_oauth(registry.auth_store, provider, None)
        access = entry.get("access")
        return access if isinstance(access, str) and access else None
    return _bearer(registry, provider)


def _bearer(registry: ModelRegistry, provider: str) -> str | None:
    """``getAuthCredential``: the API key, else the token of an ``Authorization: Bearer``."""
    key, headers = registry.resolve_auth(provider)
    if key:
        return key
    for name, value in headers.items():
        if name.lower() == "authorization":
            match = re.fullmatch(r"Bearer\s+(.+)", value, re.IGNORECASE)
            if match:
                return match.group(1)
    return None


def _fresh_oauth(store: AuthStore, provider: str, min_validity_ms: int | None) -> dict[str, Any]:
    """The stored OAuth credential, refreshed under the lock when it expires within
    ``max(5 min, min_validity_ms)`` (``resolveStoredOAuth``); raises when it cannot be."""
    from pi_rpc.ai.auth.login.refresh import ensure_fresh

    return ensure_fresh(store, provider, min_validity_ms)


# ---------------------------------------------------------------------------------- print


def _resolve_for_print(options: dict[str, Any], kind: str) -> str:
    """``resolveCredentialForPrint`` for ``--provider`` (and ``--model`` within it) or
    ``--model`` alone (every provider with a stored credential whose model matches)."""
    from pi_rpc.ai.auth.store import load_validated

    registry = _registry()
    stored = load_validated(registry.auth_json_path)
    types = {p: e.get("type") for p, e in stored.items() if isinstance(e, dict)}
    provider, model = options["provider"], options["model"]
    candidates: list[str] = []
    if provider:
        if not known_provider(registry, provider):
            raise AuthCommandError(f'Unknown provider "{provider}". Use --list-models to see available providers.')
        if (
            model
            and registry.find(provider, model) is None
            and "model" not in registry.resolve(model, provider=provider)
        ):
            raise AuthCommandError(f'Model "{model}" not found. Use --list-models to see available models.')
        candidates.append(provider)
    else:
        for pid in registry.providers():
            if pid in types and "model" in registry.resolve(model, provider=pid):
                candidates.append(pid)
        if not candidates:
            raise AuthCommandError(f'Model "{model}" not found. Use --list-models to see available models.')
    found: list[tuple[str, str]] = []
    for pid in candidates:
        kind_of = types.get(pid)
        if kind == "api_key" and kind_of == "oauth":
            continue
        if kind == "bearer_token" and kind_of != "oauth":
            continue
        if kind == "bearer_token":
            min_ms = options["min_expiry"] if options["min_expiry"] is not None else DEFAULT_BEARER_MIN_EXPIRY_MS
            entry = _fresh_oauth(registry.auth_store, pid, min_ms)
            value = entry.get("access") if isinstance(entry.get("access"), str) else None
        else:
            value = _bearer(registry, pid)
        if value:
            found.append((pid, value))
    if len(found) == 1:
        return found[0][1]
    if not found:
        first = candidates[0]
        if provider and kind == "api_key" and types.get(first) == "oauth":
            raise AuthCommandError(f'Provider "{first}" is configured with OAuth, not an API key')
        if provider and kind == "bearer_token" and types.get(first) != "oauth":
            raise AuthCommandError(f'Provider "{first}" is not configured with an OAuth bearer token')
        what = "API key" if kind == "api_key" else "OAuth bearer token"
        raise AuthCommandError(f"No usable {what} is configured")
    names = ", ".join(pid for pid, _ in found)
    raise AuthCommandError(f"Multiple configured providers matched ({names}). Specify --provider.")


# ---------------------------------------------------------------------------------- logout


def run_auth_logout(args: list[str]) -> int:
    """``runAuthLogout``: remove the stored entry (the environment and models.json stay)."""
    import anyio

    from pi_rpc.ai.auth.login.providers import display_name
    from pi_rpc.ai.auth.store import load_validated

    if len(args) != 1 or args[0].startswith("-"):
        _err(f"Usage: {APP} auth logout <provider>")
        return 1
    ref = args[0]
    registry = _registry()
    try:
        stored = load_validated(registry.auth_json_path)
    except Exception as exc:  # noqa: BLE001 - upstream reports any read failure this way
        _err(f"Could not read stored credentials: {exc}")
        return 1
    provider = _match_provider(registry, ref)
    pid = provider or ref
    entry = stored.get(pid)
    if provider is None and entry is None:
        _err(f'Unknown provider "{_printable(ref)}".')
        _err(f"Stored credentials: {', '.join(sorted(stored)) or 'none'}")
        return 1
    name = display_name(pid) if provider else ref
    if entry is None:
        _out(f"No stored credentials for {name}. Environment variables and models.json config are unchanged.")
        return 0
    try:
        anyio.run(registry.auth_store.delete, pid)
    except Exception as exc:  # noqa: BLE001 - upstream reports any write failure this way
        _err(f"Logout failed: {exc}")
        return 1
    if isinstance(entry, dict) and entry.get("type") == "oauth":
        _out(f"Logged out of {name}.")
    else:
        _out(f"Removed stored API key for {name}. Environment variables and models.json config are unchanged.")
    return 0


def _match_provider(registry: ModelRegistry, ref: str) -> str | None:
    """``findMatchingProviders(...)[0]``: the provider with that id, case-insensitively."""
    from pi_rpc.ai.auth.login.providers import PROVIDERS

    ids = list(dict.fromkeys([*PROVIDERS, *registry.providers()]))
    for pid in ids:
        if pid == ref:
            return pid
    lowered = ref.lower()
    for pid in ids:
        if pid.lower() == lowered:
            return pid
    return None


def _printable(text: str) -> str:
    """``replaceControlCharacters``: control characters shown as their escape."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)

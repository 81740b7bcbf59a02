"""Provider catalogues saved by upstream's model refreshes: ``models-store.json`` beside
models.json (upstream 1.6's ``FileModelsStore``), and what each built-in provider shows from it
when the models are composed (the restore phase of ``Models.refresh``, which needs no network):

* ``radius`` (``providers/radius.js``): the gateway's catalogue for the account replaces the
  shipped models once one is saved (even an empty one: an org owner may disable models); before
  that, a catalogue cached in the Radius OAuth credential's ``gatewayConfig`` by older versions;
* ``openrouter`` (``withPersonalizedCatalog``): a saved, non-empty list replaces the catalogue;
* every other built-in provider (``withRemoteCatalog``): a pi.dev catalogue saved with a
  ``lastModified`` newer than the shipped data overlays it (same type and id replaced in place,
  new models appended; chat models only).

The Radius gateways' own refresh is here too (``fetch_gateway_models``, ``save_entry``: what
RPC mode does in the background once started); pi.dev's catalogues and OpenRouter's
personalised list are not fetched (protocol/README §8, 29), so for those a file written by
upstream pi is shown as upstream shows it, and without one the shipped catalogue stands.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from pi_rpc.ai.jsjson import loads as js_loads

STORE_NAME = "models-store.json"
DEFAULT_RADIUS_GATEWAY = "https://radius.pi.dev"
_KNOWN_TYPES = ("chat", "image", "classifier")


def read_models_store(agent_dir: Path) -> dict[str, object]:
    """The saved entries by provider id; {} when the file is missing or unreadable (upstream's
    refresh then fails for each provider and the shipped models stand)."""
    try:
        text = (agent_dir / STORE_NAME).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    try:
        data = js_loads(text.removeprefix("\ufeff")) if text else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _type(model: dict[str, object]) -> object:
    return model.get("type") if model.get("type") is not None else "chat"


def _stored_models(entry: object, provider: str) -> list[dict[str, object]] | None:
    """The entry's models of ``provider`` whose type this version knows; None without an entry
    (JavaScript-truthy object with a ``models`` array)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("models"), list):
        return None
    return [
        m for m in entry["models"] if isinstance(m, dict) and m.get("provider") == provider and _type(m) in _KNOWN_TYPES
    ]


def gateway_models(provider: str, config: object) -> list[dict[str, object]] | None:
    """``sanitizeRadiusGatewayConfig`` + ``getRadiusModelsFromConfig``: a gateway config's valid
    models as ``pi-messages`` models of ``provider``; None when the config is not one."""
    if not isinstance(config, dict) or not isinstance(config.get("baseUrl"), str):
        return None
    models = config.get("models")
    if not isinstance(models, list):
        return None
    valid = [
        m
        for m in models
        if isinstance(m, dict)
        and isinstance(m.get("id"), str)
        and isinstance(m.get("name"), str)
        and isinstance(m.get("reasoning"), bool)
        and isinstance(m.get("input"), list)
        and isinstance(m.get("cost"), dict)
        and isinstance(m.get("contextWindow"), (int, float))
        and not isinstance(m.get("contextWindow"), bool)
        and isinstance(m.get("maxTokens"), (int, float))
        and not isinstance(m.get("maxTokens"), bool)
    ]
    return [{**m, "api": "pi-messages", "provider": provider, "baseUrl": config["baseUrl"]} for m in valid]


def _radius_gateway_models(provider: str, credential: object) -> list[dict[str, object]]:
    """``getRadiusModels``: the catalogue an older Radius login cached in its credential."""
    if not isinstance(credential, dict) or credential.get("type") != "oauth":
        return []
    return gateway_models(provider, credential.get("gatewayConfig")) or []


async def fetch_gateway_models(provider: str, gateway: str, api_key: str | None) -> list[dict[str, object]]:
    """``loadRadiusGatewayConfig``: ``GET <gateway>/v1/config`` (bearer key when there is one),
    as ``provider``'s models; raises on a failed or invalid answer."""
    from urllib.parse import urljoin

    import httpx

    headers = {"accept": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    async with httpx.AsyncClient(timeout=15.0) as client:
        response = await client.get(urljoin(gateway, "/v1/config"), headers=headers)
    if response.status_code < 200 or response.status_code >= 300:
        body = response.text.strip()
        body = body[:512] + "\u2026" if len(body) > 512 else body
        raise RuntimeError(f"Could not load Radius config from {gateway}: {response.status_code}: {body}")
    models = gateway_models(provider, js_loads(response.text))
    if models is None:
        raise RuntimeError(f"Invalid Radius config from {gateway}")
    return models


async def save_entry(agent_dir: Path, provider: str, entry: dict[str, object]) -> None:
    """``FileModelsStore.write``: under the file's lock (auth.json's protocol), re-read the file
    and replace ``provider``'s entry; written as ``JSON.stringify(data, null, 2)``."""
    import json
    import os

    from pi_rpc.ai.auth import lockfile

    path = agent_dir / STORE_NAME
    if not path.exists():
        os.makedirs(agent_dir, mode=0o700, exist_ok=True)
        _write(path, b"{}")
    held = await lockfile.acquire_async(path)
    try:
        held.check()
        current = read_models_store(agent_dir)
        current[provider] = entry
        _write(path, json.dumps(current, indent=2, ensure_ascii=False).encode())
        held.check()
    finally:
        held.release()


def _write(path: Path, content: bytes) -> None:
    import os

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def radius_gateway(config: object) -> str | None:
    """The gateway of a models.json provider with ``"oauth": "radius"`` and a ``baseUrl`` (its
    ``/v1`` dropped, ``https://`` added when no scheme, trailing slashes dropped), else None."""
    if not isinstance(config, dict) or config.get("oauth") != "radius":
        return None
    base = config.get("baseUrl")
    if not isinstance(base, str) or not base:
        return None
    base = re.sub(r"/v1/?$", "", base)
    if not re.match(r"^https?://", base, re.IGNORECASE):
        base = f"https://{base}"
    return re.sub(r"/+$", "", base)


def generated_at_ms(value: object) -> float | None:
    """``Date.parse`` of the catalogue's ``dataGeneratedAt`` (ISO 8601), None when absent."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return None


def overlay(
    provider: str,
    shipped: list[dict[str, object]],
    entry: Any,
    credential: Any,
    generated_at: float | None,
    *,
    radius: bool = False,
) -> list[dict[str, object]]:
    """The models ``provider`` shows, given the shipped ones and its saved ``entry``
    (``radius``: the provider is a Radius gateway)."""
    stored = _stored_models(entry, provider)
    if radius:
        if stored is not None:
            return stored
        legacy = _radius_gateway_models(provider, credential)
        return legacy or shipped
    if provider == "openrouter":
        chat = [m for m in stored or [] if _type(m) == "chat"]
        return chat if stored else shipped
    if not stored:
        return shipped
    last_modified = entry.get("lastModified")
    newer = generated_at is None or (
        isinstance(last_modified, (int, float)) and not isinstance(last_modified, bool) and last_modified > generated_at
    )
    if not newer:
        return shipped
    merged: dict[tuple[object, object], dict[str, object]] = {}
    for m in [*shipped, *(m for m in stored if _type(m) == "chat")]:
        merged[(_type(m), m.get("id"))] = m
    return list(merged.values())

"""Virtual models (upstream's ``pi.registerVirtualModel``): selectable catalogue entries whose
router picks a physical model and thinking level for each request.

A virtual model has the api ``pi-virtual``; it is listed under its provider next to (and hiding
a physical model of) the same id, and a provider that only lists virtual models needs no
credentials. ``VirtualModels`` keeps the definitions of one registry and asks a router for a
route (``route``): the router must answer with a physical model whose provider has
credentials, and the thinking level is clamped to that model. Errors use upstream's words.
Router state lives on the session branch as ``pi.virtual-model-state`` custom entries
(``latest_state``); a resumed branch's selection is read with ``branch_selection``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

VIRTUAL_MODEL_API = "pi-virtual"
VIRTUAL_MODEL_STATE_ENTRY = "pi.virtual-model-state"
_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")

Router = Callable[[dict[str, object]], object]


def is_virtual(model: Mapping[str, object] | None) -> bool:
    """Whether a model (or an assistant message) names a virtual model."""
    return model is not None and model.get("api") == VIRTUAL_MODEL_API


def create_virtual_model(definition: Mapping[str, Any]) -> dict[str, Any]:
    """The catalogue entry of a virtual model definition (upstream's ``createVirtualModel``)."""
    levels = definition.get("thinkingLevels") or ["off"]
    return {
        "id": definition["id"],
        "name": definition.get("name") or definition["id"],
        "api": VIRTUAL_MODEL_API,
        "provider": definition["provider"],
        "baseUrl": "",
        "reasoning": any(level != "off" for level in levels),
        "thinkingLevelMap": {level: (level if level in levels else None) for level in _LEVELS},
        "input": list(definition.get("input") or ["text", "image"]),
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": definition.get("contextWindow") or 0,
        "maxTokens": definition.get("maxTokens") or 0,
    }


def latest_response(messages: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The latest successful assistant response (failed and aborted ones are skipped)."""
    for message in reversed(messages):
        if message.get("role") == "assistant" and message.get("stopReason") not in ("error", "aborted"):
            found: Mapping[str, object] = message
            return found
    return None


def latest_state(branch: Sequence[Mapping[str, object]], provider: str, model_id: str) -> object:
    """The router state a session branch last stored for ``provider/model_id``."""
    for entry in reversed(branch):
        if entry.get("type") != "custom" or entry.get("customType") != VIRTUAL_MODEL_STATE_ENTRY:
            continue
        data = entry.get("data")
        if isinstance(data, Mapping) and data.get("provider") == provider and data.get("modelId") == model_id:
            return data.get("state")
    return None


def branch_selection(
    branch: Sequence[Mapping[str, Any]], find: Callable[[str, str], Mapping[str, object] | None]
) -> dict[str, Any] | None:
    """The model selection a session branch records, as upstream reads it on resume
    (``getBranchSelection``): the latest ``model_change``, unless a physical response came
    after it; then that response's model, except that a ``model_change`` naming a virtual
    model still registered (``find``) holds, because responses name the routed models. A
    virtual model no longer registered so falls back to the physical model that answered
    last. Replies that name a virtual model (failed routing) are skipped."""
    for index in range(len(branch) - 1, -1, -1):
        entry = branch[index]
        if entry.get("type") == "model_change":
            return {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, Mapping) and message.get("role") == "assistant" and not is_virtual(message):
            change = next((e for e in reversed(branch[:index]) if e.get("type") == "model_change"), None)
            if change is not None:
                model = find(str(change.get("provider")), str(change.get("modelId")))
                if model is not None and is_virtual(model):
                    return {"provider": change.get("provider"), "modelId": change.get("modelId")}
            return {"provider": message.get("provider"), "modelId": message.get("model")}
    return None


@dataclass
class Route:
    """What a router decided for one request."""

    model: Any  # pi_rpc.ai.types.Model
    thinking_level: str
    state: Any = None
    has_state: bool = False


@dataclass
class _Entry:
    model: dict[str, Any]
    route: Router


class VirtualModels:
    """The virtual models of one model registry, by provider and id."""

    def __init__(self) -> None:
        self._by_provider: dict[str, dict[str, _Entry]] = {}

    def providers(self) -> list[str]:
        return list(self._by_provider)

    def models(self, provider: str) -> list[dict[str, Any]]:
        return [entry.model for entry in self._by_provider.get(provider, {}).values()]

    def ids(self, provider: str) -> set[str]:
        return set(self._by_provider.get(provider, {}))

    def register(self, definition: Mapping[str, object], physical: Mapping[str, object] | None) -> None:
        """Add or replace a virtual model; ``physical``: the provider's physical model with
        that id, if any (a conflict, refused as upstream)."""
        provider = definition.get("provider")
        model_id = definition.get("id")
        if (
            not isinstance(provider, str)
            or not isinstance(model_id, str)
            or not provider.strip()
            or not model_id.strip()
        ):
            raise ValueError("Virtual model provider and id must not be empty.")
        route = definition.get("route")
        if not callable(route):
            raise ValueError(f"Virtual model {provider}/{model_id} needs a route function.")
        if physical is not None:
            raise ValueError(f"Virtual model {provider}/{model_id} conflicts with a physical model.")
        self._by_provider.setdefault(provider, {})[model_id] = _Entry(create_virtual_model(definition), route)

    def unregister(self, provider: str, model_id: str) -> bool:
        models = self._by_provider.get(provider)
        if models is None or models.pop(model_id, None) is None:
            return False
        if not models:
            del self._by_provider[provider]
        return True

    async def route(
        self,
        model: Mapping[str, object],
        request: dict[str, Any],
        *,
        physical: Callable[[str, str], Mapping[str, Any] | None],
        has_auth: Callable[[str], bool],
    ) -> Route:
        """Ask ``model``'s router for one request (``request``: upstream's fields but the
        model, which is added). Raises ``RuntimeError`` with upstream's texts."""
        from pi_rpc.ai.thinking import clamp_thinking_level

        name = f"Virtual model {model.get('provider')}/{model.get('id')}"
        entry = self._by_provider.get(str(model.get("provider")), {}).get(str(model.get("id")))
        if entry is None:
            raise RuntimeError(f"{name} is not registered.")
        answer = entry.route({**request, "model": dict(entry.model)})
        if inspect.isawaitable(answer):
            answer = await answer
        if not isinstance(answer, Mapping) or not isinstance(answer.get("model"), Mapping):
            raise RuntimeError(f"{name} returned no model.")
        chosen = answer["model"]
        target = physical(str(chosen.get("provider")), str(chosen.get("id")))
        routed = f"{name} routed to {chosen.get('provider')}/{chosen.get('id')}"
        if target is None:
            raise RuntimeError(f"{routed}, which is not a physical model.")
        if not has_auth(target["provider"]):
            raise RuntimeError(f"{routed}, which has no credentials.")
        level = answer.get("thinkingLevel")
        return Route(
            model=target,
            thinking_level=clamp_thinking_level(target, level if isinstance(level, str) else "off"),
            state=answer.get("state"),
            has_state="state" in answer and answer.get("state") is not None,
        )

"""``ModelRegistry``: built-in catalogue + ``<agentDir>/models.json`` (+ faux when opted in), and
auth resolution.

models.json (protocol §7.3, upstream 1.6 provider-composer): a provider id naming a built-in
provider modifies it (``baseUrl``/``compat`` applied to all its models, ``models`` entries replace
by id or are added, ``modelOverrides`` patch built-in models); a new provider needs ``baseUrl`` and
an ``api`` (provider or model level). Model defaults: name = id, reasoning false, input
["text"], zero cost, contextWindow 128000, maxTokens 16384. Model key order follows upstream's
``modelFromJson``. A broken file leaves the built-ins loaded and sets ``error``.

Credential order (upstream 1.6 ``pi-ai/dist/auth/resolve.js`` ``resolveProviderAuth`` and
``coding-agent/dist/core/provider-composer.js`` ``composeApiKeyAuth``; ``resolve_auth``):

1. the runtime ``--api-key`` override;
2. the provider's ``auth.json`` entry (``pi_rpc.ai.auth.store``), which *owns* the provider:
   ``oauth`` (only for a provider with an OAuth login) gives its access token; ``api_key``
   gives its resolved ``key`` (``!command``, ``$VAR``, literal, with the entry's ``env`` over
   the environment), and when that is empty the provider's environment variables -- never
   models.json's ``apiKey``; any other entry leaves the provider unconfigured;
3. models.json ``apiKey`` (only without a stored entry; unresolved means no key, no fallback);
4. the environment: the provider's variables in upstream's order. Anthropic's
   ``ANTHROPIC_AUTH_TOKEN`` is not a key: it is sent as ``Authorization: Bearer`` (a header of
   ``request_auth``/``get_headers``), before ``ANTHROPIC_OAUTH_TOKEN`` and ``ANTHROPIC_API_KEY``.

Values go through ``config_value`` (literal, ``$VAR``/``${VAR}``, ``!command``). ``faux`` needs no key.
Keys are only returned by ``get_api_key``/``request_auth``; nothing here logs or stores them.

The offline ``faux`` provider is opt-in, so that with nothing configured pi behaves as upstream
(no models): its models exist only when ``PI_FAUX_SCRIPT`` is set, models.json has a ``faux``
provider entry, or the caller asked for it (``faux=True`` / ``enable_faux()``: the command line's
``--faux-script`` or ``--model faux/…``).
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import orjson

from pi_rpc.ai.auth.oauth import OAUTH_PROVIDER_IDS
from pi_rpc.ai.auth.store import AuthStore, resolve_stored_key
from pi_rpc.ai.jsjson import loads as js_loads
from pi_rpc.ai.models.catalog import (
    builtin_labels,
    builtin_models,
    builtin_providers,
    builtin_providers_with_models,
    catalogue_source,
    providers_with_id,
)
from pi_rpc.ai.models.config_value import is_configured, resolve_config_value
from pi_rpc.ai.models.models_store import (
    DEFAULT_RADIUS_GATEWAY,
    generated_at_ms,
    overlay,
    radius_gateway,
    read_models_store,
)
from pi_rpc.ai.models.patterns import resolve_model_reference, select_reference, split_provider_prefix
from pi_rpc.ai.providers.faux_script import ENV_VAR as FAUX_ENV_VAR
from pi_rpc.ai.providers.faux_script import FAUX_MODELS, set_faux_config_script

if TYPE_CHECKING:
    from pi_rpc.ai.abort import AbortSignal
    from pi_rpc.ai.models.virtual import VirtualModels
    from pi_rpc.ai.types import Model

# Upstream 1.6's environment variables per provider, first set one wins (``pi-ai/dist/
# env-api-keys.js`` and each provider's ``auth`` in ``pi-ai/dist/providers/<id>.js``).
# ANTHROPIC_AUTH_TOKEN is sent as ``Authorization: Bearer``, not as a key (pi-ai's anthropic.js).
ENV_API_KEYS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "ant-ling": ("ANT_LING_API_KEY",),
    "qwen-token-plan": ("QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-cn": ("QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "qwen-token-plan-individual": ("QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-individual-cn": ("QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "openai": ("OPENAI_API_KEY",),
    "azure": ("AZURE_OPENAI_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "typesafe": ("TYPESAFE_API_KEY",),
    "radius": ("RADIUS_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "zai-coding-cn": ("ZAI_CODING_CN_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "baseten": ("BASETEN_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "kimi-coding": ("KIMI_API_KEY",),
    "meta": ("META_API_KEY",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
}

# Providers with an OAuth login upstream (auth-and-providers §1.5): a stored ``oauth`` credential
# configures only these (under any other provider upstream treats it as not configured).
OAUTH_PROVIDERS = frozenset(OAUTH_PROVIDER_IDS)

# Configuration besides the key that a provider needs before upstream counts it as configured
# (``cloudflare-auth.js``: the account, and for the gateway the gateway id; from the stored
# credential's ``env`` or the environment).
_REQUIRED_PROVIDER_ENV: dict[str, tuple[str, ...]] = {
    "cloudflare-workers-ai": ("CLOUDFLARE_ACCOUNT_ID",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID"),
}

_BEDROCK_AMBIENT = (
    ("AWS_BEARER_TOKEN_BEDROCK",),
    ("AWS_PROFILE",),
    ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"),
    ("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",),
    ("AWS_CONTAINER_CREDENTIALS_FULL_URI",),
    ("AWS_WEB_IDENTITY_TOKEN_FILE",),
)
_ANTHROPIC_FEDERATION = ("ANTHROPIC_FEDERATION_RULE_ID", "ANTHROPIC_ORGANIZATION_ID", "ANTHROPIC_IDENTITY_TOKEN_FILE")
_VERTEX_ADC_PATH = "~/.config/gcloud/application_default_credentials.json"


def ambient_auth(provider: str, value: Callable[[str], str | None]) -> bool:
    """Credentials upstream finds without a key variable (``value`` reads the provider's
    environment): Amazon Bedrock's AWS chain markers (``amazon-bedrock.js``), Vertex's
    Application Default Credentials with a project and a location (``google-vertex.js``), and
    Anthropic's workload-identity federation (``anthropic.js``)."""
    if provider == "amazon-bedrock":
        return any(all(value(name) for name in group) for group in _BEDROCK_AMBIENT)
    if provider == "google-vertex":
        path = value("GOOGLE_APPLICATION_CREDENTIALS") or os.path.expanduser(_VERTEX_ADC_PATH)
        project = value("GOOGLE_CLOUD_PROJECT") or value("GCLOUD_PROJECT")
        return bool(project and value("GOOGLE_CLOUD_LOCATION") and os.path.exists(path))
    if provider == "anthropic":
        return all(value(name) for name in _ANTHROPIC_FEDERATION)
    return False


FAUX_PROVIDER = "faux"
MODEL_DEFAULTS = {"contextWindow": 128000, "maxTokens": 16384}
_NESTED_COMPAT = ("openRouterRouting", "vercelGatewayRouting", "chatTemplateKwargs", "chatTemplateArgs")


def strip_json_comments(text: str) -> str:
    """Drop // and /* */ comments outside strings (models.json may carry them)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_str = False
            i += 1
            continue
        if c == '"':
            in_str = True
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _merge_compat(base: Any, override: Any) -> Any:
    if not override:
        return base
    merged = {**(base or {}), **override}
    for key in _NESTED_COMPAT:
        b, o = (base or {}).get(key), override.get(key)
        if isinstance(b, dict) or isinstance(o, dict):
            merged[key] = {**(b or {}), **(o or {})}
    return merged


def _put(model: dict[str, object], key: str, value: object) -> None:
    if value is not None:
        model[key] = value


def model_from_json(provider_id: str, definition: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    api = definition.get("api") or config.get("api")
    if not api:
        raise ValueError(
            f'Provider {provider_id}, model {definition.get("id")}: no "api" specified. Set at provider or model level.'
        )
    base_url = definition.get("baseUrl") or config.get("baseUrl")
    if not base_url:
        raise ValueError(f'Provider {provider_id}: "baseUrl" is required when defining custom models.')
    for key in ("contextWindow", "maxTokens"):
        if key in definition and not (isinstance(definition[key], (int, float)) and definition[key] > 0):
            raise ValueError(f"Provider {provider_id}, model {definition.get('id')}: invalid {key}")
    model: dict[str, object] = {
        "id": definition["id"],
        "name": definition.get("name") or definition["id"],
        "api": api,
        "provider": provider_id,
        "baseUrl": base_url,
        "reasoning": bool(definition.get("reasoning", False)),
    }
    _put(model, "thinkingLevelMap", definition.get("thinkingLevelMap"))
    model["input"] = list(definition.get("input") or ["text"])
    _put(model, "inputLimits", definition.get("inputLimits"))
    model["cost"] = definition.get("cost") or {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    _put(model, "promptCache", definition.get("promptCache"))
    model["contextWindow"] = definition.get("contextWindow", MODEL_DEFAULTS["contextWindow"])
    model["maxTokens"] = definition.get("maxTokens", MODEL_DEFAULTS["maxTokens"])
    _put(model, "samplingParams", definition.get("samplingParams"))
    _put(model, "samplingParamsByThinkingLevel", definition.get("samplingParamsByThinkingLevel"))
    _put(model, "compat", _merge_compat(config.get("compat"), definition.get("compat")))
    return model


def apply_model_override(model: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(model)
    for key in ("name", "reasoning", "input", "contextWindow", "maxTokens"):
        if override.get(key) is not None:
            out[key] = override[key]
    if override.get("thinkingLevelMap"):
        out["thinkingLevelMap"] = {**(model.get("thinkingLevelMap") or {}), **override["thinkingLevelMap"]}
    if override.get("inputLimits"):
        out["inputLimits"] = {**(model.get("inputLimits") or {}), **override["inputLimits"]}
    if override.get("cost"):
        base = model.get("cost") or {}
        cost = {k: override["cost"].get(k, base.get(k, 0)) for k in ("input", "output", "cacheRead", "cacheWrite")}
        tiers = override["cost"].get("tiers", base.get("tiers"))
        if tiers is not None:
            cost["tiers"] = tiers
        out["cost"] = cost
    if override.get("promptCache"):
        out["promptCache"] = {**(model.get("promptCache") or {}), **override["promptCache"]}
    if override.get("samplingParams"):
        out["samplingParams"] = {**(model.get("samplingParams") or {}), **override["samplingParams"]}
    merged = _merge_compat(model.get("compat"), override.get("compat"))
    if merged is not None:
        out["compat"] = merged
    return out


class ModelRegistry:
    """All models pi can use and how to authenticate them. Construct with the agent dir."""

    def __init__(
        self,
        agent_dir: Path | str,
        *,
        env: Mapping[str, str] | None = None,
        include_builtins: bool = True,
        faux: bool = False,
    ) -> None:
        self.agent_dir = Path(agent_dir)
        self._env = env
        self._include_builtins = include_builtins
        self._faux_requested = faux
        self._runtime_keys: dict[str, str] = {}
        self.error: str | None = None
        self.errors: list[str] = []
        self._config: dict[str, dict[str, Any]] = {}
        self._file_config: dict[str, dict[str, object]] = {}
        # Providers registered by extensions (pi.register_provider), models.json shape; the
        # models.json entry of the same provider still applies above them.
        self._extension_config: dict[str, dict[str, object]] = {}
        self._auth_store = AuthStore(self.agent_dir / "auth.json")
        self._auth: dict[str, object] = {}
        self._order: list[str] = []
        self._composed: dict[str, list[Model]] = {}
        self._builtin_with_models: set[str] = set()
        self._stored_catalogues: dict[str, object] = {}
        self._all_models: list[Model] | None = None
        # Virtual models extensions registered (pi.register_virtual_model); made on first use.
        self.virtual: VirtualModels | None = None
        self.reload()

    # ------------------------------------------------------------------ loading

    @property
    def models_json_path(self) -> Path:
        return self.agent_dir / "models.json"

    @property
    def auth_json_path(self) -> Path:
        return self.agent_dir / "auth.json"

    def reload(self) -> None:
        """Re-read models.json and auth.json (upstream reloads when the model list is needed)."""
        self.error = None
        self.errors = []
        self._file_config = self._load_models_json()
        self._config = self._merged_config()
        self._auth = self._load_auth_json()
        self._stored_catalogues = read_models_store(self.agent_dir) if self._include_builtins else {}
        faux_cfg = self._config.get(FAUX_PROVIDER) or {}
        script = faux_cfg.get("script")
        if isinstance(script, str) and script:
            path = Path(os.path.expanduser(script))
            if not path.is_absolute():
                path = self.agent_dir / path
            set_faux_config_script(str(path))
        else:
            set_faux_config_script(None)
        self._compose()

    def _merged_config(self) -> dict[str, dict[str, object]]:
        merged = {name: dict(config) for name, config in self._extension_config.items()}
        for name, config in self._file_config.items():
            merged[name] = {**merged.get(name, {}), **config}
        return merged

    def register_provider(self, name: str, config: Mapping[str, object]) -> None:
        """Register or override provider ``name`` at run time (an extension's
        ``pi.register_provider``), with the models.json provider shape."""
        if not isinstance(name, str) or not name:
            raise ValueError("Provider name must be a non-empty string")
        config = dict(config)
        oauth = config.get("oauth")
        login = None
        if isinstance(oauth, Mapping):
            # An extension's OAuth login (``pi_rpc.ai.auth.oauth.extension``): its functions
            # stay there; the config keeps a plain marker, as models.json's ``oauth`` is.
            if not config.get("baseUrl"):
                raise ValueError(f'Provider {name}: "baseUrl" is required when "oauth" is set.')
            from pi_rpc.ai.auth.oauth.extension import from_extension

            login = from_extension(name, oauth)
            config["oauth"] = {"name": login.name}
        problems = _validate({"providers": {name: config}})
        if problems:
            raise ValueError("Invalid provider config: " + "; ".join(problems))
        self._extension_config[name] = copy.deepcopy(config)
        if login is not None:
            from pi_rpc.ai.auth.oauth.extension import register

            register(login)
        self._config = self._merged_config()
        self._compose()

    def unregister_provider(self, name: str) -> None:
        """Remove a provider registered at run time; built-in models it overrode come back."""
        removed = self._extension_config.pop(name, None)
        if removed is not None:
            if isinstance(removed.get("oauth"), Mapping):
                from pi_rpc.ai.auth.oauth.extension import unregister

                unregister(name)
            self._config = self._merged_config()
            self._compose()

    def register_virtual_model(self, definition: Mapping[str, Any]) -> None:
        """Add or replace a virtual model (``pi_rpc.ai.models.virtual``); refused when the id is
        a physical model of that provider."""
        from pi_rpc.ai.models.virtual import VirtualModels, is_virtual

        if self.virtual is None:
            self.virtual = VirtualModels()
        provider, model_id = definition.get("provider"), definition.get("id")
        existing = self.find(provider, model_id) if isinstance(provider, str) and isinstance(model_id, str) else None
        self.virtual.register(definition, existing if existing is not None and not is_virtual(existing) else None)
        self._refresh_provider(str(provider))

    def unregister_virtual_model(self, provider: str, model_id: str) -> None:
        if self.virtual is not None and self.virtual.unregister(provider, model_id):
            self._refresh_provider(provider)

    def _refresh_provider(self, provider: str) -> None:
        self._composed.pop(provider, None)
        self._all_models = None
        if provider not in self._order:
            self._order.append(provider)

    def physical_model(self, provider: str, model_id: str) -> Model | None:
        """A catalogue model that is not virtual (what a router may pick)."""
        from pi_rpc.ai.models.virtual import is_virtual

        found = self.find(provider, model_id)
        return None if found is None or is_virtual(found) else found

    @property
    def faux_enabled(self) -> bool:
        """Whether the offline ``faux`` models are offered (see the module docstring)."""
        return self._faux_requested or bool(self._env_value(FAUX_ENV_VAR)) or FAUX_PROVIDER in self._file_config

    def enable_faux(self) -> None:
        """Offer the ``faux`` models from now on (the command line opted in)."""
        if not self._faux_requested:
            self._faux_requested = True
            self._compose()

    def _load_models_json(self) -> dict[str, dict[str, object]]:
        path = self.models_json_path
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self.error = f"Failed to load models.json: {exc}\n\nFile: {path}"
            return {}
        try:
            data = js_loads(strip_json_comments(text))
        except orjson.JSONDecodeError as exc:
            self.error = f"Failed to parse models.json: {exc}\n\nFile: {path}"
            return {}
        problems = _validate(data)
        if problems:
            self.error = "Invalid models.json schema:\n" + "\n".join(f"  - {p}" for p in problems) + f"\n\nFile: {path}"
            return {}
        return dict(data["providers"])

    def _load_auth_json(self) -> dict[str, object]:
        # Under upstream's lock, BOM stripped; a broken file keeps the last snapshot.
        return self._auth_store.reload()

    @property
    def auth_store(self) -> AuthStore:
        """The ``auth.json`` store this registry reads (writes go through its ``modify``)."""
        return self._auth_store

    def _stored_entry(self, provider: str) -> tuple[bool, dict[str, Any] | None]:
        """(whether a stored entry owns ``provider``, the entry when it is an object). An entry
        is stored when it is truthy in JavaScript's sense (upstream's ``if (stored)``)."""
        entry = self._auth.get(provider)
        if entry is None or entry is False or entry == 0 or entry == "":
            return False, None
        return True, entry if isinstance(entry, dict) else None

    def _compose(self) -> None:
        """Start over from the catalogue and the merged config. Built-in providers are composed
        lazily, one at a time when first asked for (``_provider_models``), so a session that
        uses one provider never parses the others' part of the catalogue; providers named in
        the config are composed at once, so that their errors are known right away, and so is
        faux: every model that is not in the catalogue file is composed from the start
        (``resolve`` relies on it)."""
        order = builtin_providers() if self._include_builtins else []
        if self.faux_enabled and FAUX_PROVIDER not in order:
            order.append(FAUX_PROVIDER)
        order.extend(p for p in self._config if p not in order and p != FAUX_PROVIDER)
        if self.virtual is not None:
            order.extend(p for p in self.virtual.providers() if p not in order)
        self._order = order
        self._builtin_with_models = set(builtin_providers_with_models()) if self._include_builtins else set()
        self._composed = {}
        self._all_models = None
        # Providers whose saved catalogue (models-store.json) changes their models are composed
        # at once too: the catalogue's labels no longer describe them.
        restored = [p for p in self._stored_catalogues if p in self._builtin_with_models]
        if "radius" in self._auth:
            restored.append("radius")
        for provider_id in [*self._config, *restored]:
            if provider_id != FAUX_PROVIDER:
                self._provider_models(provider_id)
        if self.faux_enabled:
            self._provider_models(FAUX_PROVIDER)

    def _provider_models(self, provider_id: str) -> list[Model]:
        """One provider's models: built-ins (fresh copies), then models.json / extension
        config, then ``modelOverrides``; composed once per ``_compose``."""
        composed = self._composed.get(provider_id)
        if composed is not None:
            return composed
        models: list[dict[str, object]] = builtin_models(provider_id) if self._include_builtins else []
        config = self._config.get(provider_id)
        gateway = radius_gateway(config) if self._include_builtins and provider_id != FAUX_PROVIDER else None
        if gateway is not None:
            # A models.json Radius gateway (upstream's configureRadiusProviders): Radius's shipped
            # models at the default gateway, none elsewhere, until its catalogue is saved.
            shipped = builtin_models("radius") if gateway == DEFAULT_RADIUS_GATEWAY else []
            models = [{**m, "provider": provider_id} for m in shipped]
        if (
            gateway is not None
            or provider_id in self._stored_catalogues
            or (provider_id == "radius" and "radius" in self._auth)
        ):
            models = overlay(
                provider_id,
                models,
                self._stored_catalogues.get(provider_id),
                self._auth.get(provider_id),
                generated_at_ms(catalogue_source().get("dataGeneratedAt")),
                radius=gateway is not None or provider_id == "radius",
            )
        if provider_id == FAUX_PROVIDER:
            models = [copy.deepcopy(m) for m in FAUX_MODELS] if self.faux_enabled else []
        if config is not None and provider_id != FAUX_PROVIDER:
            try:
                # A Radius gateway's baseUrl names the gateway; its models keep the base URL
                # the gateway's config gave them (upstream's configureRadiusProviders).
                applied = {k: v for k, v in config.items() if k != "baseUrl"} if gateway is not None else config
                models = self._apply_models_json(provider_id, models, applied)
            except ValueError as exc:
                self.errors.append(str(exc))
        overrides = (config or {}).get("modelOverrides") or {}
        if overrides:
            models = [apply_model_override(m, overrides[m["id"]]) if m["id"] in overrides else m for m in models]
        if self.virtual is not None and provider_id in self.virtual.providers():
            # A virtual model hides a physical one of the same id (upstream's withVirtualModels).
            hidden = self.virtual.ids(provider_id)
            models = [m for m in models if m["id"] not in hidden] + [dict(m) for m in self.virtual.models(provider_id)]
        # Catalogue entries and validated models.json definitions: the ``Model`` shape (plus any
        # extra keys upstream's catalogue carries, read with ``.get``).
        typed = cast("list[Model]", models)
        self._composed[provider_id] = typed
        return typed

    @property
    def _models(self) -> list[Model]:
        """Every provider's models, in provider order (composes all of them)."""
        if self._all_models is None:
            self._all_models = [m for p in self._order for m in self._provider_models(p)]
        return self._all_models

    @staticmethod
    def _apply_models_json(
        provider_id: str, base: list[dict[str, Any]], config: dict[str, Any]
    ) -> list[dict[str, object]]:
        has_any = (
            any(config.get(k) for k in ("models", "baseUrl", "headers", "compat", "modelOverrides", "apiKey", "oauth"))
            or "authHeader" in config
        )
        if not has_any:
            raise ValueError(
                f'Provider {provider_id}: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".'
            )
        models = []
        for m in base:
            m = dict(m)
            if config.get("baseUrl"):
                m["baseUrl"] = config["baseUrl"]
            merged = _merge_compat(m.get("compat"), config.get("compat"))
            if merged is not None:
                m["compat"] = merged
            models.append(m)
        for definition in config.get("models") or []:
            model = model_from_json(provider_id, definition, config)
            for i, existing in enumerate(models):
                if existing["id"] == model["id"]:
                    models[i] = model
                    break
            else:
                models.append(model)
        return models

    # ------------------------------------------------------------------ queries

    def all_models(self) -> list[Model]:
        """Every known model (with or without auth), faux included when it is enabled."""
        return list(self._models)

    def providers(self) -> list[str]:
        seen: list[str] = []
        for m in self._models:
            if m["provider"] not in seen:
                seen.append(m["provider"])
        return seen

    def find(self, provider: str, model_id: str) -> Model | None:
        if provider not in self._order:
            return None
        for m in self._provider_models(provider):
            if m["provider"] == provider and m["id"] == model_id:
                return m
        return None

    def has_auth(self, provider: str) -> bool:
        """Whether upstream would count ``provider`` as configured, without running commands:
        a runtime key, a stored credential (an ``oauth`` one only for a provider with an OAuth
        login), models.json ``apiKey``, the environment variables, ambient credentials; plus the
        account/gateway ids Cloudflare needs (``_REQUIRED_PROVIDER_ENV``)."""
        if provider == FAUX_PROVIDER:
            return True
        if provider in self._runtime_keys:
            return True
        if self.virtual is not None and provider in self.virtual.providers() and self._only_virtual(provider):
            return True  # a provider of only virtual models needs no credentials (upstream)
        stored, entry = self._stored_entry(provider)
        config = self._config.get(provider) or {}
        if stored:
            kind = entry.get("type") if entry is not None else None
            if kind == "oauth":
                return provider in OAUTH_PROVIDERS or bool(config.get("oauth"))
            if kind != "api_key":
                return False  # a type the provider has no handler for: not configured
        config_key = config.get("apiKey")
        if not stored and isinstance(config_key, str) and config_key:
            return is_configured(config_key, self._env)
        value = self._provider_env_reader(provider)
        if (entry is not None and entry.get("key")) or any(value(name) for name in self._env_key_names(provider)):
            return all(value(name) for name in _REQUIRED_PROVIDER_ENV.get(provider, ()))
        return ambient_auth(provider, value)

    def _only_virtual(self, provider: str) -> bool:
        from pi_rpc.ai.models.virtual import is_virtual

        return provider not in self._config and all(is_virtual(m) for m in self._provider_models(provider))

    def provider_env(self, provider: str) -> dict[str, str]:
        """The stored credential's ``env`` for ``provider`` (auth.json ``{"type":"api_key",
        "env":{...}}``): provider-scoped configuration such as ``CLOUDFLARE_ACCOUNT_ID``."""
        entry = self._auth.get(provider)
        env = entry.get("env") if isinstance(entry, dict) else None
        return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}

    def _provider_env_reader(self, provider: str) -> Callable[[str], str | None]:
        overlay = self.provider_env(provider)

        def value(name: str) -> str | None:
            return overlay.get(name) or self._env_value(name)

        return value

    def get_available(self) -> list[Model]:
        """Models whose provider has auth (faux, when enabled, needs none), in provider order;
        only the providers with auth are composed. A GitHub Copilot OAuth login that recorded
        ``availableModelIds`` narrows Copilot's models to those (upstream's ``filterModels``)."""
        out: list[Model] = []
        for provider_id in self._order:
            if self.has_auth(provider_id):
                models = self._provider_models(provider_id)
                entry = self._auth.get(provider_id)
                if provider_id == "github-copilot" and isinstance(entry, dict) and entry.get("type") == "oauth":
                    ids = entry.get("availableModelIds")
                    if isinstance(ids, list) and all(isinstance(i, str) for i in ids):
                        models = [m for m in models if m["id"] in set(ids)]
                out.extend(models)
        return out

    def set_runtime_api_key(self, provider: str, key: str | None) -> None:
        """The ``--api-key`` override for the selected provider (not persisted)."""
        if key:
            self._runtime_keys[provider] = key
        else:
            self._runtime_keys.pop(provider, None)

    def _env_value(self, name: str) -> str | None:
        source = os.environ if self._env is None else self._env
        return source.get(name) or None

    def resolve_auth(self, provider: str) -> tuple[str | None, dict[str, str]]:
        """(API key, auth headers) for ``provider`` in upstream's order (module docstring).
        The headers carry credentials that are not keys (``ANTHROPIC_AUTH_TOKEN``)."""
        if provider == FAUX_PROVIDER:
            return None, {}
        if provider in self._runtime_keys:
            return self._runtime_keys[provider], {}
        stored, entry = self._stored_entry(provider)
        if stored:
            kind = entry.get("type") if entry is not None else None
            config = self._config.get(provider) or {}
            if entry is not None and kind == "oauth" and (provider in OAUTH_PROVIDERS or config.get("oauth")):
                access = entry.get("access")
                return (access if isinstance(access, str) and access else None), {}
            if entry is not None and kind == "api_key":
                key = resolve_stored_key(entry, self._env)
                if key:
                    return key, {}
                # An empty stored key: the provider's environment, not models.json's apiKey.
                return self._ambient_key(provider)
            return None, {}
        config_key = (self._config.get(provider) or {}).get("apiKey")
        if isinstance(config_key, str) and config_key:
            # Upstream throws when a configured key does not resolve; no environment fallback.
            return resolve_config_value(config_key, self._env), {}
        return self._ambient_key(provider)

    def stored_oauth(self, provider: str) -> dict[str, object] | None:
        """The stored OAuth credential that resolution uses for ``provider`` (no runtime key,
        an ``oauth`` entry, a provider with an OAuth login), else ``None``."""
        if provider in self._runtime_keys:
            return None
        _stored, entry = self._stored_entry(provider)
        if entry is None or entry.get("type") != "oauth":
            return None
        return entry if provider in OAUTH_PROVIDERS or self._extension_oauth(provider) else None

    def _extension_oauth(self, provider: str) -> bool:
        """Whether an extension registered ``provider`` with an OAuth login."""
        return isinstance((self._extension_config.get(provider) or {}).get("oauth"), Mapping)

    async def resolve_auth_async(
        self, provider: str, signal: AbortSignal | None = None
    ) -> tuple[str | None, dict[str, str]]:
        """``resolve_auth`` for a request about to be sent: a stored OAuth credential that
        expires within 5 minutes is refreshed first, under the ``auth.json`` lock
        (``pi_rpc.ai.auth.oauth.resolve_stored_oauth``), and the snapshot follows what is now
        stored. Raises ``OAuthError`` when the refresh fails (no other key is tried) and
        ``AbortedError`` when ``signal`` fires while waiting for the lock."""
        if provider == FAUX_PROVIDER or provider in self._runtime_keys:
            return self.resolve_auth(provider)
        _stored, entry = self._stored_entry(provider)
        if entry is None or entry.get("type") != "oauth":
            return self.resolve_auth(provider)
        from pi_rpc.ai.auth.oauth import get_oauth_provider, resolve_stored_oauth, to_auth_async

        oauth = get_oauth_provider(provider)
        if oauth is None:
            return self.resolve_auth(provider)
        credential = await resolve_stored_oauth(self._auth_store, oauth, entry, signal=signal)
        if credential is not entry:
            # What the lock-holder left in the file (our refresh, or another process's).
            self._auth = dict(self._auth_store.data)
        if credential is None:
            return None, {}  # logged out meanwhile
        auth = await to_auth_async(oauth, credential)
        return (auth.api_key or None), dict(auth.headers)

    async def get_api_key_async(self, provider: str, signal: AbortSignal | None = None) -> str | None:
        """``get_api_key`` after ``resolve_auth_async`` (a due OAuth refresh done first)."""
        return (await self.resolve_auth_async(provider, signal))[0]

    def radius_refresh_targets(self) -> list[tuple[str, str, str | None]]:
        """``(provider, gateway, bearer key)`` of each Radius gateway whose catalogue upstream
        refreshes over the network: the built-in one and models.json's ``"oauth": "radius"``
        providers, with an unexpired OAuth login (its access token) or an API key."""
        targets: list[tuple[str, str, str | None]] = []
        for provider in self._order:
            gateway = radius_gateway(self._config.get(provider))
            if gateway is None and provider == "radius" and self._include_builtins:
                gateway = DEFAULT_RADIUS_GATEWAY
            if gateway is None:
                continue
            _, entry = self._stored_entry(provider)
            if entry is not None and entry.get("type") == "oauth":
                # An expired login would need its refresh first (not done here): skipped.
                expires = entry.get("expires")
                if isinstance(expires, (int, float)) and time.time() * 1000 < expires:
                    targets.append((provider, gateway, entry.get("access")))
                continue
            key = self.get_api_key(provider)
            if key:
                targets.append((provider, gateway, key))
        return targets

    def restore_catalogue(self, provider: str, entry: dict[str, object]) -> None:
        """Show ``provider``'s newly saved catalogue (``entry`` as in models-store.json)."""
        self._stored_catalogues[provider] = entry
        self._composed.pop(provider, None)
        self._all_models = None
        self._provider_models(provider)

    def _env_key_names(self, provider: str) -> tuple[str, ...]:
        """The provider's key variables; a models.json Radius gateway (``"oauth": "radius"``)
        takes Radius's (upstream's ``radiusProvider`` keeps ``RADIUS_API_KEY`` for every id)."""
        if radius_gateway(self._config.get(provider)) is not None:
            return ENV_API_KEYS["radius"]
        return ENV_API_KEYS.get(provider, ())

    def _ambient_key(self, provider: str) -> tuple[str | None, dict[str, str]]:
        """The provider's environment variables, first set one wins (``ctx.env``: the process
        environment, not the stored entry's ``env``)."""
        for name in self._env_key_names(provider):
            value = self._env_value(name)
            if value:
                if provider == "anthropic" and name == "ANTHROPIC_AUTH_TOKEN":
                    return None, {"Authorization": f"Bearer {value}"}
                return value, {}
        return None, {}

    def get_api_key(self, provider: str) -> str | None:
        """The key for ``provider`` (``resolve_auth``); None if none, or when the credential
        is a header (``ANTHROPIC_AUTH_TOKEN``, see ``get_headers``)."""
        return self.resolve_auth(provider)[0]

    def get_headers(self, model: Model, api_key: str | None = None) -> dict[str, str]:
        """Resolved request headers for ``model``: the credential's own headers
        (``ANTHROPIC_AUTH_TOKEN``'s ``Authorization``), then provider headers, modelOverrides
        headers, the models.json model headers, and ``Authorization: Bearer`` when
        ``authHeader`` is set (upstream's ``withConfiguredAuth`` order)."""
        config = self._config.get(model["provider"]) or {}
        raw: dict[str, str] = dict(config.get("headers") or {})
        raw.update(((config.get("modelOverrides") or {}).get(model["id"]) or {}).get("headers") or {})
        for definition in config.get("models") or []:
            if definition.get("id") == model["id"]:
                raw.update(definition.get("headers") or {})
        resolved_key, auth_headers = self.resolve_auth(model["provider"])
        headers: dict[str, str] = dict(auth_headers)
        # Header values read the stored credential's ``env`` over the environment (upstream's
        # ``configContextEnv(..., explicitEnv)``).
        overlay = self.provider_env(model["provider"])
        env = {**(os.environ if self._env is None else self._env), **overlay} if overlay else self._env
        for key, value in raw.items():
            resolved = resolve_config_value(str(value), env, cached=False)
            if resolved:
                headers[key] = resolved
        if config.get("authHeader"):
            auth_key = api_key if api_key is not None else resolved_key
            if not auth_key:
                raise RuntimeError("authHeader requires a resolved API key")
            headers["Authorization"] = f"Bearer {auth_key}"
        return headers

    def request_auth(self, model: Model) -> tuple[str | None, dict[str, str]]:
        """(api key, headers) to put into ``StreamOptions`` right before a request."""
        key = self.get_api_key(model["provider"])
        return key, self.get_headers(model, key)

    def resolve(self, pattern: str, *, provider: str | None = None, fuzzy: bool = True) -> dict[str, Any]:
        """Resolve ``--model`` text (``provider/id[:thinking]``, bare id, fuzzy) against all models;
        ties between providers go to one with auth. See ``patterns.resolve_model_reference``.

        ``provider/id`` and exact ids (the usual ``--model``) are first resolved among the models
        that can decide them (``patterns.select_reference``): the named provider's, those with
        that id, and the providers composed already; only text that needs fuzzy matching over
        everything composes every provider (parsing the whole catalogue)."""
        if self._all_models is None:
            split = self._split(pattern) if provider is None else None
            if split is not None:
                # A model of the named provider whose provider has auth wins over any other
                # provider's model with the same id (``patterns._select``): try it alone first.
                found = select_reference(pattern, _plain(self._provider_models(split)), self.has_auth, fuzzy=fuzzy)
                if found is not None and found.get("model", {}).get("provider") == split and self.has_auth(split):
                    return found
            found = select_reference(
                pattern,
                _plain(self._deciding_models(pattern, provider, split)),
                self.has_auth,
                provider=provider,
                fuzzy=fuzzy,
            )
            if found is not None:
                return found
            labelled = self._resolve_on_labels(pattern, provider, fuzzy)
            if labelled is not None:
                return labelled
        return resolve_model_reference(pattern, _plain(self._models), self.has_auth, provider=provider, fuzzy=fuzzy)

    def _resolve_on_labels(self, pattern: str, provider: str | None, fuzzy: bool) -> dict[str, object] | None:
        """``resolve_model_reference`` over every model, where the built-in providers not yet
        composed stand as their catalogue labels (provider, id, name: all the matcher reads)
        and the models it answers with are then composed: the same answer without parsing the
        whole catalogue. None when the catalogue has no labels."""
        labels = builtin_labels()
        if labels is None:
            return None
        pool: list[dict[str, Any]] = []
        origin: dict[int, tuple[str, int]] = {}
        for p in self._order:
            if p in self._composed or p not in labels:
                pool.extend(_plain(self._provider_models(p)))
                continue
            for i, (model_id, name) in enumerate(labels[p]):
                light = {"provider": p, "id": model_id, "name": name}
                origin[id(light)] = (p, i)
                pool.append(light)
        found = resolve_model_reference(pattern, pool, self.has_auth, provider=provider, fuzzy=fuzzy)

        def full(m: dict[str, object]) -> dict[str, object]:
            at = origin.get(id(m))
            return m if at is None else _plain(self._provider_models(at[0]))[at[1]]

        if "model" in found:
            found["model"] = full(found["model"])
        if "candidates" in found:
            found["candidates"] = [full(m) for m in found["candidates"]]
        return found

    def _split(self, pattern: str) -> str | None:
        """The provider ``provider/id`` text names (the longest matching id among providers
        with models), without composing any provider."""
        names = [
            p for p in self._order if (self._composed[p] if p in self._composed else p in self._builtin_with_models)
        ]
        split = split_provider_prefix(pattern.strip(), names)
        return split[0] if split else None

    def _deciding_models(self, pattern: str, provider: str | None, split: str | None) -> list[Model]:
        """The models ``select_reference`` needs for ``pattern`` (see ``resolve``), in order."""
        if provider is not None:
            wanted = {p for p in self._order if p.lower() == provider.lower()}
        else:
            with_id = providers_with_id(pattern.strip())
            if with_id is None:
                return self._models
            wanted = {*with_id, *self._composed, *([split] if split else [])}
        return [m for p in self._order if p in wanted for m in self._provider_models(p)]


def _plain(models: list[Model]) -> list[dict[str, object]]:
    """The models as the pattern matcher reads them: plain objects, key by key."""
    return cast("list[dict[str, Any]]", models)


def _validate(data: object) -> list[str]:
    problems: list[str] = []
    if not isinstance(data, dict):
        return ["root: Expected object"]
    providers = data.get("providers")
    if not isinstance(providers, dict):
        return ["providers: Expected object"]
    for pid, cfg in providers.items():
        if not isinstance(cfg, dict):
            problems.append(f"providers.{pid}: Expected object")
            continue
        for key in ("baseUrl", "apiKey", "api", "name"):
            if key in cfg and not (isinstance(cfg[key], str) and cfg[key]):
                problems.append(f"providers.{pid}.{key}: Expected non-empty string")
        models = cfg.get("models", [])
        if not isinstance(models, list):
            problems.append(f"providers.{pid}.models: Expected array")
            continue
        for i, m in enumerate(models):
            if not isinstance(m, dict) or not isinstance(m.get("id"), str) or not m.get("id"):
                problems.append(f"providers.{pid}.models.{i}.id: Expected string")
        if "modelOverrides" in cfg and not isinstance(cfg["modelOverrides"], dict):
            problems.append(f"providers.{pid}.modelOverrides: Expected object")
    return problems

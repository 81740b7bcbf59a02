"""What upstream pi 1.6 knows about logging in to each built-in provider: its display name, the
name of its account (OAuth) sign-in and of its API key (``pi-ai/dist/providers/<id>.js``:
``createProvider({id, name, auth: {apiKey: envApiKeyAuth(name, …), oauth: lazyOAuth({name,
loginLabel})}})``, read by loading each provider module of the 1.6.0 package).

``pi auth`` prints these names (``Logged out of xAI.``), ``get_auth_status`` and ACP's
``authMethods`` list them. Every built-in provider has an API key login except
``openai-codex`` (OAuth only); the account sign-in exists for the nine OAuth providers.
"""

from __future__ import annotations

from typing import NamedTuple


class ProviderAuth(NamedTuple):
    name: str  # the provider's display name
    oauth_name: str | None  # its account sign-in (None: no OAuth login)
    login_label: str | None  # the sign-in's button label, when upstream gives one
    api_key_name: str | None  # its API key (None: no API key login)


PROVIDERS: dict[str, ProviderAuth] = {
    "amazon-bedrock": ProviderAuth("Amazon Bedrock", None, None, "AWS credentials or bearer token"),
    "ant-ling": ProviderAuth("Ant Ling", None, None, "Ant Ling API key"),
    "anthropic": ProviderAuth("Anthropic", "Anthropic (Claude Pro/Max)", None, "Anthropic API key"),
    "azure": ProviderAuth("Azure", None, None, "Azure OpenAI API key"),
    "baseten": ProviderAuth("Baseten", None, None, "Baseten API key"),
    "cerebras": ProviderAuth("Cerebras", None, None, "Cerebras API key"),
    "cloudflare-ai-gateway": ProviderAuth("Cloudflare AI Gateway", None, None, "Cloudflare API key"),
    "cloudflare-workers-ai": ProviderAuth("Cloudflare Workers AI", None, None, "Cloudflare API key"),
    "deepseek": ProviderAuth("DeepSeek", None, None, "DeepSeek API key"),
    "fireworks": ProviderAuth("Fireworks", None, None, "Fireworks API key"),
    "github-copilot": ProviderAuth("GitHub Copilot", "GitHub Copilot", None, "GitHub Copilot token"),
    "google-vertex": ProviderAuth("Google Vertex AI", None, None, "Google Cloud credentials"),
    "google": ProviderAuth("Google", None, None, "Gemini API key"),
    "groq": ProviderAuth("Groq", None, None, "Groq API key"),
    "huggingface": ProviderAuth("Hugging Face", None, None, "Hugging Face token"),
    "kimi-coding": ProviderAuth(
        "Kimi For Coding", "Kimi Code (subscription)", "Sign in with Kimi Code", "Kimi API key"
    ),
    "meta": ProviderAuth("Meta", "Meta (Muse subscription)", "Sign in with Meta", "Meta Model API key"),
    "minimax-cn": ProviderAuth("MiniMax CN", None, None, "MiniMax CN API key"),
    "minimax": ProviderAuth("MiniMax", None, None, "MiniMax API key"),
    "mistral": ProviderAuth("Mistral", None, None, "Mistral API key"),
    "moonshotai-cn": ProviderAuth("Moonshot AI CN", None, None, "Moonshot AI API key"),
    "moonshotai": ProviderAuth("Moonshot AI", None, None, "Moonshot AI API key"),
    "nvidia": ProviderAuth("NVIDIA", None, None, "NVIDIA API key"),
    "openai-codex": ProviderAuth("OpenAI Codex", "OpenAI (ChatGPT Plus/Pro)", None, None),
    "openai": ProviderAuth("OpenAI", "OpenAI (ChatGPT subscription)", "Sign in with ChatGPT", "OpenAI API key"),
    "opencode-go": ProviderAuth("OpenCode Go", None, None, "OpenCode API key"),
    "opencode": ProviderAuth("OpenCode Zen", None, None, "OpenCode API key"),
    "openrouter": ProviderAuth("OpenRouter", "OpenRouter OAuth", "Sign in with OpenRouter", "OpenRouter API key"),
    "qwen-token-plan-cn": ProviderAuth("Qwen Token Plan Team CN", None, None, "Qwen Token Plan Team CN API key"),
    "qwen-token-plan-individual-cn": ProviderAuth(
        "Qwen Token Plan Individual CN", None, None, "Qwen Token Plan Individual CN API key"
    ),
    "qwen-token-plan-individual": ProviderAuth(
        "Qwen Token Plan Individual", None, None, "Qwen Token Plan Individual API key"
    ),
    "qwen-token-plan": ProviderAuth("Qwen Token Plan Team", None, None, "Qwen Token Plan Team API key"),
    "radius": ProviderAuth("Radius", "Radius", None, "Radius API key"),
    "together": ProviderAuth("Together", None, None, "Together API key"),
    "typesafe": ProviderAuth("TypeSafe", None, None, "TypeSafe API key"),
    "vercel-ai-gateway": ProviderAuth("Vercel AI Gateway", None, None, "Vercel AI Gateway API key"),
    "xai": ProviderAuth("xAI", "xAI (Grok/X subscription)", "Sign in with SuperGrok or X Premium", "xAI API key"),
    "xiaomi-token-plan-ams": ProviderAuth("Xiaomi Token Plan AMS", None, None, "Xiaomi Token Plan AMS API key"),
    "xiaomi-token-plan-cn": ProviderAuth("Xiaomi Token Plan CN", None, None, "Xiaomi Token Plan CN API key"),
    "xiaomi-token-plan-sgp": ProviderAuth("Xiaomi Token Plan SGP", None, None, "Xiaomi Token Plan SGP API key"),
    "xiaomi": ProviderAuth("Xiaomi", None, None, "Xiaomi API key"),
    "zai-coding-cn": ProviderAuth("Z.AI Coding CN", None, None, "Z.AI Coding CN API key"),
    "zai": ProviderAuth("Z.AI", None, None, "Z.AI API key"),
}


def provider_auth(provider: str) -> ProviderAuth | None:
    return PROVIDERS.get(provider)


def display_name(provider: str) -> str:
    info = PROVIDERS.get(provider)
    if info is not None:
        return info.name
    from pi_rpc.ai.auth.oauth.extension import registered

    login = registered(provider)  # an extension's provider names its login
    return login.name if login is not None else provider


def login_providers() -> list[str]:
    """Providers ``pi auth login`` accepts (an OAuth or an API key login, extensions' OAuth
    logins included), sorted as upstream lists them after ``Unknown provider``."""
    from pi_rpc.ai.auth.oauth.extension import registered_ids

    builtin = [p for p, info in PROVIDERS.items() if info.oauth_name or info.api_key_name]
    return sorted({*builtin, *registered_ids()})

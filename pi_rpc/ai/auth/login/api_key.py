"""API key logins of the providers whose credential is more than one value, as upstream 1.6's
own ``login`` of their API key auth (``pi-ai/dist/providers/amazon-bedrock.js`` ``bedrockAuth``,
``google-vertex.js`` ``vertexAuth``, ``cloudflare-auth.js``): the same questions in the same
order, the same ``auth.json`` entry (``{type: "api_key", key?, env?}``; ``env`` overlays the
provider's environment when the credential is resolved).

Every other provider's API key login is one ``secret`` question (``envApiKeyAuth``)."""

from __future__ import annotations

from pi_rpc.ai.auth.errors import LoginError
from pi_rpc.ai.auth.types import LoginInteraction

MULTI_VALUE_PROVIDERS = frozenset({"amazon-bedrock", "google-vertex", "cloudflare-ai-gateway", "cloudflare-workers-ai"})


async def _bedrock(interaction: LoginInteraction) -> dict[str, object]:
    method = await interaction.prompt(
        {
            "type": "select",
            "message": "Select Amazon Bedrock authentication method:",
            "options": [
                {"id": "bearer-token", "label": "Bearer token"},
                {"id": "aws-profile", "label": "AWS profile"},
                {"id": "credential-chain", "label": "Existing AWS credential chain"},
            ],
        }
    )
    if method == "bearer-token":
        key = await interaction.prompt({"type": "secret", "message": "Enter Amazon Bedrock bearer token"})
        return {"type": "api_key", "key": key}
    interaction.notify(
        {
            "type": "info",
            "message": "Amazon Bedrock supports AWS profiles, IAM credentials, and role-based credentials.",
            "links": [
                {
                    "label": "AWS credential provider chain",
                    "url": "https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html",
                }
            ],
        }
    )
    if method == "aws-profile":
        profile = await interaction.prompt({"type": "text", "message": "Enter AWS profile name"})
        return {"type": "api_key", "env": {"AWS_PROFILE": profile}}
    if method != "credential-chain":
        raise LoginError(f"Unknown Amazon Bedrock auth method: {method}")
    await interaction.prompt({"type": "text", "message": "Configure AWS credentials, then press Enter to continue"})
    return {"type": "api_key"}


async def _vertex(interaction: LoginInteraction) -> dict[str, object]:
    method = await interaction.prompt(
        {
            "type": "select",
            "message": "Select Google Vertex AI authentication method:",
            "options": [
                {"id": "api-key", "label": "Google Cloud API key"},
                {"id": "adc", "label": "Application Default Credentials"},
                {"id": "service-account", "label": "Service account credentials file"},
            ],
        }
    )
    if method == "api-key":
        key = await interaction.prompt({"type": "secret", "message": "Enter Google Cloud API key"})
        return {"type": "api_key", "key": key}
    if method not in ("adc", "service-account"):
        raise LoginError(f"Unknown Google Vertex AI auth method: {method}")
    interaction.notify(
        {
            "type": "info",
            "message": "Run `gcloud auth application-default login`, then provide the project and location."
            if method == "adc"
            else "Provide a service account credentials file, project, and location.",
            "links": [
                {
                    "label": "Application Default Credentials",
                    "url": "https://cloud.google.com/docs/authentication/provide-credentials-adc",
                }
            ],
        }
    )
    project = await interaction.prompt({"type": "text", "message": "Enter Google Cloud project ID"})
    location = await interaction.prompt({"type": "text", "message": "Enter Google Cloud location"})
    path = (
        await interaction.prompt({"type": "text", "message": "Enter service account credentials file path"})
        if method == "service-account"
        else ""
    )
    env = {"GOOGLE_CLOUD_PROJECT": project, "GOOGLE_CLOUD_LOCATION": location}
    if path:  # upstream spreads it in only when non-empty
        env["GOOGLE_APPLICATION_CREDENTIALS"] = path
    return {"type": "api_key", "env": env}


async def _cloudflare(interaction: LoginInteraction, gateway: bool) -> dict[str, object]:
    key = await interaction.prompt({"type": "secret", "message": "Enter Cloudflare API key"})
    account = await interaction.prompt({"type": "text", "message": "Enter Cloudflare account ID"})
    env = {"CLOUDFLARE_ACCOUNT_ID": account}
    if gateway:
        env["CLOUDFLARE_GATEWAY_ID"] = await interaction.prompt(
            {"type": "text", "message": "Enter Cloudflare AI Gateway ID"}
        )
    return {"type": "api_key", "key": key, "env": env}


async def login_multi_value_api_key(provider: str, interaction: LoginInteraction) -> dict[str, object]:
    if provider == "amazon-bedrock":
        return await _bedrock(interaction)
    if provider == "google-vertex":
        return await _vertex(interaction)
    if provider in ("cloudflare-ai-gateway", "cloudflare-workers-ai"):
        return await _cloudflare(interaction, gateway=provider == "cloudflare-ai-gateway")
    raise LoginError(f"pi_rpc has no API key login for {provider}")

"""Built-in providers, one module per ``api`` value; ``pi_rpc.ai.stream`` registers
this table on first use (this package imports nothing of the dispatcher)."""

from __future__ import annotations

BUILTIN_APIS: dict[str, tuple[str, str]] = {
    "faux": ("pi_rpc.ai.providers.faux", "stream_faux"),
    "openai-completions": ("pi_rpc.ai.providers.openai_completions", "stream_openai_completions"),
    "anthropic-messages": ("pi_rpc.ai.providers.anthropic_messages", "stream_anthropic_messages"),
    "openai-responses": ("pi_rpc.ai.providers.openai_responses", "stream_openai_responses"),
    "google-generative-ai": ("pi_rpc.ai.providers.google_generative_ai", "stream_google_generative_ai"),
    "google-vertex": ("pi_rpc.ai.providers.google_vertex", "stream_google_vertex"),
    "mistral-conversations": ("pi_rpc.ai.providers.mistral_conversations", "stream_mistral_conversations"),
    "azure-openai-responses": ("pi_rpc.ai.providers.azure_openai_responses", "stream_azure_openai_responses"),
    "pi-messages": ("pi_rpc.ai.providers.pi_messages", "stream_pi_messages"),
    "bedrock-converse-stream": (
        "pi_rpc.ai.providers.bedrock_converse_stream",
        "stream_bedrock_converse_stream",
    ),
    "openai-codex-responses": ("pi_rpc.ai.providers.openai_codex_responses", "stream_openai_codex_responses"),
}

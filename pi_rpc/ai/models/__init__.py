"""Models: the built-in catalogue, models.json composition, auth resolution, pattern parsing."""

from pi_rpc.ai.models.catalog import builtin_models, builtin_providers
from pi_rpc.ai.models.patterns import find_exact_model, resolve_model_reference, split_thinking_suffix
from pi_rpc.ai.models.registry import ENV_API_KEYS, ModelRegistry

__all__ = [
    "ENV_API_KEYS",
    "ModelRegistry",
    "builtin_models",
    "builtin_providers",
    "find_exact_model",
    "resolve_model_reference",
    "split_thinking_suffix",
]

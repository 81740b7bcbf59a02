"""ai/providers layer."""

"""config layer."""

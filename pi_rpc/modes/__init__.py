"""modes layer."""

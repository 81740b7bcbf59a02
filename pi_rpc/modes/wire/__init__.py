"""modes/wire layer."""

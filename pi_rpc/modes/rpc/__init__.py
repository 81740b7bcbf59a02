"""modes/rpc layer."""

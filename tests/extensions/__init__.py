"""Tests of Python extensions and of the extension API against the real RPC process."""

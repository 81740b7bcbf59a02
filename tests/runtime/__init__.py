"""Tests of the session runtime through the real RPC process."""

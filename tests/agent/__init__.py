"""Tests of the agent loop (``pi_rpc.agent``), in process."""

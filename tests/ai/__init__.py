"""Tests of the providers and model registry (``pi_rpc.ai``)."""

"""Tests of session files (``pi_rpc.session``)."""

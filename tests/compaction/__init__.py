"""Tests of compaction (``pi_rpc.compaction``)."""

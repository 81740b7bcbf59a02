"""Tests of the client libraries in ``clients/`` against a real server."""

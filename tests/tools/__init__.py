"""Tests of the built-in tools."""

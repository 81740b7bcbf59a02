"""Tests of the command line and one-shot commands."""

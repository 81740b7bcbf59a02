"""Tests of ``--mode acp`` driven by the official ACP client SDK."""

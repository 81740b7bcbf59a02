"""config layer: agent-dir paths, settings.json, CLI arguments and the child-process registry.

A leaf utility: every other layer may import it, it imports nothing from pi_rpc except itself.
Submodules are imported explicitly (``from pi_rpc.config.settings import Settings``) so that
importing the package stays cheap at startup.
"""

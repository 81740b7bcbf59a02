"""pi_rpc: a Python re-implementation of the pi coding agent's RPC mode.

Layers, from the outside in (each imports only the layers inside it):
  modes/ (rpc, json, print) and modes/wire/ (framing, stdout ownership, protocol models)
  -> runtime/ (the session facade every mode uses)
  -> agent/, tools/, session/, compaction/, resources/
  -> ai/ (LLM types, streaming providers, model registry)
  config/ (agent dir, settings) is a leaf utility used by every layer, and so are errors.py
  (the root of the exception tree, documented there) and log.py (the one stderr logger).
"""

__version__ = "0.1.0"
# The upstream pi release whose RPC protocol, flags and session format we implement; what
# `pi --version` prints (our own version is in `pi --version --verbose`).
COMPATIBLE_PI_VERSION = "1.6.0"

"""Interoperability with upstream pi 1.6 and third-party clients."""

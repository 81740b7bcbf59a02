"""The conformance runner (``protocol/conformance``) against our server."""

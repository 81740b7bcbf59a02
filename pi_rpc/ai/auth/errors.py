"""The login's error (its own module so that the provider modules and the login helpers raise
it without importing the login dispatcher)."""

from __future__ import annotations

from pi_rpc.errors import PiError


class LoginError(PiError):
    """The login failed (its message is safe to show: tokens are redacted)."""

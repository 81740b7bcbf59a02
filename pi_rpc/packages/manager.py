"""Install, remove, update, list and resolve pi packages as upstream pi 1.6 does
(``dist/core/package-manager.js``), so both implementations share one on-disk layout:

- npm: ``<agentDir>/npm`` (project: ``<cwd>/.pi/npm``), a private ``package.json`` named
  ``pi-extensions``; ``npm install <spec> --prefix <root> --legacy-peer-deps --no-audit
  --no-fund``; the package lives in ``<root>/node_modules/<name>``.
- git: ``<agentDir>/git/<host>/<path>`` (project: ``<cwd>/.pi/git/...``): ``git clone``,
  ``git checkout <ref>``, then ``npm install --omit=dev --legacy-peer-deps --no-audit
  --no-fund`` when it has a ``package.json``; updates fetch and ``reset --hard`` to the ref or
  the tracked branch.
- ``-e`` sources: ``<agentDir>/tmp/extensions/{npm,git-<host>}/<hash>/...`` (upstream's hash).
- pypi (pi_rpc only): see :mod:`pi_rpc.packages.pypi`.
- local paths: never copied; stored in settings relative to the settings file's folder.

``settings.json`` entries are written as upstream writes them (the file re-read, the
``packages`` key replaced, ``JSON.stringify(settings, null, 2)``).

npm and git run as subprocesses whose output passes through: to the terminal for the CLI
commands, to stderr when stdout carries a protocol (``stdout_is_protocol``), captured (kept
for the error message) in the interactive mode. ``npmCommand`` in the global settings replaces
``npm`` as upstream. ``PI_OFFLINE`` skips every network step.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pi_rpc.packages import collect
from pi_rpc.packages.records import InstallFailure, PackageError, Resolved, Resource, offline
from pi_rpc.packages.sources import (
    GitSource,
    LocalSource,
    NpmSource,
    PypiSource,
    Source,
    identity,
    parse_source,
    resolve_path,
)

CONFIG_DIR_NAME = ".pi"
NETWORK_TIMEOUT_S = 10.0
_GIT_IGNORE = "*\n!.gitignore\n"

Progress = Callable[[str, str], None]  # (kind: start|progress|result, message)


def _source_string(pkg: object) -> str | None:
    if isinstance(pkg, str):
        return pkg
    if isinstance(pkg, dict) and isinstance(pkg.get("source"), str):
        return str(pkg["source"])
    return None


def read_settings_file(path: str) -> dict[str, object]:
    try:
        with open(path, encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise PackageError(f"Invalid settings file {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise PackageError(f"Settings file {path} does not contain a JSON object")
    return data


def write_settings_key(path: str, key: str, value: object) -> None:
    """Set one key as upstream's ``persistScopedSettings`` does (other keys and their order
    kept, two-space indentation, no trailing newline)."""
    data = read_settings_file(path)
    data[key] = value
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=2, ensure_ascii=False))
    os.replace(tmp, path)


def _installed_version(root: str) -> str | None:
    try:
        with open(os.path.join(root, "package.json"), encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


def _version_key(version: str) -> tuple[object, ...]:
    core, _, pre = version.lstrip("v=").partition("-")
    nums = []
    for part in core.split("+")[0].split("."):
        try:
            nums.append(int(part))
        except ValueError:
            nums.append(0)
    while len(nums) < 3:
        nums.append(0)
    # a prerelease sorts before its release
    return (*nums[:3], 0 if pre else 1, pre)


def version_gt(a: str, b: str) -> bool:
    return _version_key(a) > _version_key(b)


def version_satisfies(version: str, spec: str | None) -> bool:
    """The subset of npm ranges pi_rpc checks at startup: exact versions, ``^``, ``~``,
    ``x``-ranges; other ranges count as satisfied (the installed copy is kept)."""
    if not spec or spec in ("*", "latest", "x"):
        return True
    spec = spec.strip()
    have = _version_key(version)
    if spec[0] in "^~":
        want = _version_key(spec[1:])
        if have < want:
            return False
        if spec[0] == "~":
            return have[:2] == want[:2]
        if want[0] != 0:
            return have[0] == want[0]
        return have[:2] == want[:2] if want[1] != 0 else have[:3] == want[:3]
    parts = spec.lstrip("v=").split(".")
    if all(p.isdigit() or p in ("x", "X", "*") for p in parts) and 1 <= len(parts) <= 3:
        return all(p in ("x", "X", "*") or int(p) == have[i] for i, p in enumerate(parts))
    if collect_exact(spec):
        return have == _version_key(spec)
    return True


def collect_exact(spec: str) -> bool:
    from pi_rpc.packages.sources import is_exact_version

    return is_exact_version(spec)


class PackageManager:
    """One command's or one startup's view of the configured packages.

    ``global_settings``/``project_settings``: the two files' contents (the project's only when
    trusted; ``None`` reads them from disk). ``output``: ``inherit`` (CLI), ``stderr`` (stdout
    carries a protocol) or ``capture``."""

    def __init__(
        self,
        *,
        cwd: str,
        agent_dir: str,
        project_trusted: bool,
        global_settings: Mapping[str, object] | None = None,
        project_settings: Mapping[str, object] | None = None,
        output: str = "inherit",
        progress: Progress | None = None,
    ) -> None:
        self.cwd = os.path.abspath(cwd)
        self.agent_dir = os.path.abspath(agent_dir)
        self.project_trusted = project_trusted
        self.global_path = os.path.join(self.agent_dir, "settings.json")
        self.project_path = os.path.join(self.cwd, CONFIG_DIR_NAME, "settings.json")
        self._global = dict(global_settings) if global_settings is not None else None
        self._project = dict(project_settings) if project_settings is not None else None
        self.output = output
        self.progress = progress

    # ------------------------------------------------------------------ settings

    def settings(self, scope: str) -> dict[str, object]:
        if scope == "project":
            if not self.project_trusted:
                return {}
            if self._project is None:
                self._project = read_settings_file(self.project_path)
            return self._project
        if self._global is None:
            self._global = read_settings_file(self.global_path)
        return self._global

    def packages(self, scope: str) -> list[Any]:
        value = self.settings(scope).get("packages")
        return list(value) if isinstance(value, list) else []

    def set_packages(self, scope: str, packages: list[Any]) -> None:
        """Write the ``packages`` array of ``scope``'s settings file."""
        path = self.project_path if scope == "project" else self.global_path
        write_settings_key(path, "packages", packages)
        self.settings(scope)["packages"] = packages

    def base_dir(self, scope: str) -> str:
        if scope == "project":
            self._assert_trusted(scope)
            return os.path.join(self.cwd, CONFIG_DIR_NAME)
        if scope == "user":
            return self.agent_dir
        return self.cwd

    def _assert_trusted(self, scope: str) -> None:
        if scope == "project" and not self.project_trusted:
            raise PackageError("Project is not trusted; refusing to access project package storage")

    def _input_key(self, source: str) -> str:
        return identity(source, self.cwd)

    def _settings_key(self, source: str, scope: str) -> str:
        return identity(source, self.base_dir(scope))

    def normalize_for_settings(self, source: str, scope: str) -> str:
        parsed = parse_source(source)
        if not isinstance(parsed, LocalSource):
            return source
        resolved = resolve_path(parsed.path, self.cwd)
        return os.path.relpath(resolved, self.base_dir(scope)) or "."

    def add_to_settings(self, source: str, scope: str) -> bool:
        current = self.packages(scope)
        normalized = self.normalize_for_settings(source, scope)
        key = self._input_key(source)
        for index, existing in enumerate(current):
            existing_source = _source_string(existing)
            if existing_source is None or self._settings_key(existing_source, scope) != key:
                continue
            if existing_source == normalized:
                return False
            current[index] = normalized if isinstance(existing, str) else {**existing, "source": normalized}
            self.set_packages(scope, current)
            return True
        self.set_packages(scope, [*current, normalized])
        return True

    def remove_from_settings(self, source: str, scope: str) -> bool:
        current = self.packages(scope)
        key = self._input_key(source)
        kept = [p for p in current if (s := _source_string(p)) is None or self._settings_key(s, scope) != key]
        if len(kept) == len(current):
            return False
        self.set_packages(scope, kept)
        return True

    # ------------------------------------------------------------------ paths

    def npm_root(self, scope: str) -> str:
        if scope == "temporary":
            return self._temporary_dir("npm")
        if scope == "project":
            self._assert_trusted(scope)
            return os.path.join(self.cwd, CONFIG_DIR_NAME, "npm")
        return os.path.join(self.agent_dir, "npm")

    def npm_path(self, source: NpmSource, scope: str) -> str:
        return os.path.join(self.npm_root(scope), "node_modules", source.name)

    def git_root(self, scope: str) -> str | None:
        if scope == "temporary":
            return None
        if scope == "project":
            self._assert_trusted(scope)
            return os.path.join(self.cwd, CONFIG_DIR_NAME, "git")
        return os.path.join(self.agent_dir, "git")

    def git_path(self, source: GitSource, scope: str) -> str:
        if scope == "temporary":
            return self._temporary_dir(f"git-{source.host}", source.path, source.ref)
        root = self.git_root(scope)
        assert root is not None
        return _managed(root, source.host, source.path)

    def _temporary_dir(self, prefix: str, suffix: str | None = None, ref: str | None = None) -> str:
        import hashlib

        temp = os.path.join(self.agent_dir, "tmp", "extensions")
        os.makedirs(temp, mode=0o700, exist_ok=True)
        root = _managed(temp, prefix)
        digest = hashlib.sha256(f"{prefix}-{suffix or ''}{'@' + ref if ref else ''}".encode()).hexdigest()[:8]
        return _managed(root, digest, suffix or "")

    def installed_path(self, source: str, scope: str) -> str | None:
        parsed = parse_source(source)
        if isinstance(parsed, NpmSource):
            path = self.npm_path(parsed, scope)
        elif isinstance(parsed, GitSource):
            path = self.git_path(parsed, scope)
        elif isinstance(parsed, PypiSource):
            from pi_rpc.packages import pypi

            return pypi.installed_location(self, parsed, scope)
        else:
            path = resolve_path(parsed.path, self.base_dir(scope))
        return path if os.path.exists(path) else None

    # ------------------------------------------------------------------ subprocesses

    def _npm_command(self) -> list[str]:
        configured = self.settings("user").get("npmCommand")
        if isinstance(configured, list) and configured:
            if not isinstance(configured[0], str) or not configured[0]:
                raise PackageError("Invalid npmCommand: first array entry must be a non-empty command")
            return [str(part) for part in configured]
        return ["npm"]

    def run(self, argv: Sequence[str], cwd: str | None = None, env: Mapping[str, str] | None = None) -> None:
        """Run a command with its output passed through (or captured); raise on failure."""
        import subprocess  # only installs and updates run commands: not on the startup path

        full_env = {**os.environ, **(env or {})}
        try:
            if self.output == "capture":
                full_env.setdefault("GIT_TERMINAL_PROMPT", "0")
                full_env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
                done = subprocess.run(
                    list(argv), cwd=cwd, env=full_env, stdin=subprocess.DEVNULL, capture_output=True, check=False
                )
                if done.returncode != 0:
                    tail = (done.stdout + done.stderr).decode("utf-8", "replace").strip()[-8000:]
                    raise PackageError(
                        f"{' '.join(argv)} failed with code {done.returncode}" + (f":\n{tail}" if tail else "")
                    )
                return
            sys.stdout.flush()
            sys.stderr.flush()
            stdout = sys.stderr.fileno() if self.output == "stderr" else None
            stdin = subprocess.DEVNULL if self.output == "stderr" else None
            code = subprocess.run(list(argv), cwd=cwd, env=full_env, stdin=stdin, stdout=stdout, check=False).returncode
        except FileNotFoundError as exc:
            raise PackageError(f"{argv[0]} {' '.join(argv[1:])} failed: {exc.strerror}: {argv[0]}") from exc
        if code != 0:
            raise PackageError(f"{' '.join(argv)} failed with code {code}")

    def capture(self, argv: Sequence[str], cwd: str | None = None) -> str:
        import subprocess

        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
        try:
            done = subprocess.run(
                list(argv),
                cwd=cwd or self.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=NETWORK_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise PackageError(f"{' '.join(argv)} timed out after {int(NETWORK_TIMEOUT_S * 1000)}ms") from exc
        except FileNotFoundError as exc:
            raise PackageError(f"{argv[0]}: {exc.strerror}") from exc
        if done.returncode != 0:
            raise PackageError(
                f"{' '.join(argv)} failed with code {done.returncode}: {done.stderr.decode('utf-8', 'replace')}"
            )
        return done.stdout.decode("utf-8", "replace").strip()

    def _emit(self, kind: str, message: str) -> None:
        if self.progress is not None:
            self.progress(kind, message)

    # ------------------------------------------------------------------ npm

    def _ensure_npm_project(self, root: str) -> None:
        os.makedirs(root, exist_ok=True)
        _ensure_git_ignore(root)
        package_json = os.path.join(root, "package.json")
        if not os.path.exists(package_json):
            with open(package_json, "w", encoding="utf-8") as fh:
                fh.write(json.dumps({"name": "pi-extensions", "private": True}, indent=2))

    def install_npm(self, specs: Sequence[str], scope: str) -> None:
        root = self.npm_root(scope)
        self._ensure_npm_project(root)
        real = os.path.realpath(root)
        self.run(
            [*self._npm_command(), "install", *specs, "--prefix", real, "--legacy-peer-deps", "--no-audit", "--no-fund"]
        )

    def uninstall_npm(self, source: NpmSource, scope: str) -> None:
        root = self.npm_root(scope)
        if not os.path.exists(root):
            return
        real = os.path.realpath(root)
        self.run(
            [
                *self._npm_command(),
                "uninstall",
                source.name,
                "--prefix",
                real,
                "--legacy-peer-deps",
                "--no-audit",
                "--no-fund",
            ]
        )

    def latest_npm_version(self, source: NpmSource) -> str:
        raw = self.capture(
            [*self._npm_command(), "view", source.spec if source.version else source.name, "version", "--json"]
        )
        if not raw:
            raise PackageError("Empty response from npm view")
        value = json.loads(raw)
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            versions = [v for v in value if isinstance(v, str) and v]
            if source.version:
                versions = [v for v in versions if version_satisfies(v, source.version)]
            if versions:
                return max(versions, key=_version_key)
        raise PackageError("Unexpected response from npm view")

    # ------------------------------------------------------------------ git

    def install_git(self, source: GitSource, scope: str) -> None:
        target = self.git_path(source, scope)
        if os.path.exists(target):
            self._reconcile_git(source, target)
            return
        root = self.git_root(scope)
        if root is not None:
            _ensure_git_ignore(root)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        _remove(_marker(target))
        try:
            self.run(["git", "clone", source.repo, target])
            if source.ref:
                self.run(["git", "checkout", source.ref], cwd=target)
            if os.path.exists(os.path.join(target, "package.json")):
                self.run(
                    [*self._npm_command(), "install", "--omit=dev", "--legacy-peer-deps", "--no-audit", "--no-fund"],
                    cwd=target,
                )
        except BaseException:
            import shutil

            shutil.rmtree(target, ignore_errors=True)
            _prune_empty_parents(target, root)
            raise

    def _reconcile_git(self, source: GitSource, target: str) -> None:
        if source.ref:
            self._ensure_git_ref(target, ["fetch", "origin", source.ref], "FETCH_HEAD")
            return
        try:
            upstream = self.capture(["git", "rev-parse", "--abbrev-ref", "@{upstream}"], cwd=target)
            if not upstream.startswith("origin/") or not upstream[len("origin/") :]:
                raise PackageError(f"Unsupported upstream remote: {upstream}")
            branch = upstream[len("origin/") :]
            fetch = ["fetch", "--prune", "--no-tags", "origin", f"+refs/heads/{branch}:refs/remotes/origin/{branch}"]
            self._ensure_git_ref(target, fetch, "@{upstream}")
        except PackageError:
            self._ensure_git_ref(
                target, ["fetch", "--prune", "--no-tags", "origin", "+HEAD:refs/remotes/origin/HEAD"], "origin/HEAD"
            )

    def _ensure_git_ref(self, target: str, fetch_args: list[str], ref: str) -> None:
        self.run(["git", *fetch_args], cwd=target)
        local = self.capture(["git", "rev-parse", "HEAD"], cwd=target)
        wanted = self.capture(["git", "rev-parse", f"{ref}^{{commit}}"], cwd=target)
        marker = _marker(target)
        if local == wanted and not os.path.exists(marker):
            return
        with open(marker, "w", encoding="utf-8"):
            pass
        self.run(["git", "reset", "--hard", f"{ref}^{{commit}}"], cwd=target)
        self.run(["git", "clean", "-fdx"], cwd=target)
        if os.path.exists(os.path.join(target, "package.json")):
            self.run(
                [*self._npm_command(), "install", "--omit=dev", "--legacy-peer-deps", "--no-audit", "--no-fund"],
                cwd=target,
            )
        _remove(marker)

    def git_head(self, target: str) -> str | None:
        if not os.path.exists(target):
            return None
        try:
            return self.capture(["git", "rev-parse", "HEAD"], cwd=target) or None
        except PackageError:
            return None

    def remove_git(self, source: GitSource, scope: str) -> None:
        import shutil

        target = self.git_path(source, scope)
        shutil.rmtree(target, ignore_errors=True)
        _remove(_marker(target))
        _prune_empty_parents(target, self.git_root(scope))

    # ------------------------------------------------------------------ commands

    def install(self, source: str, *, local: bool = False) -> None:
        parsed = parse_source(source)
        scope = "project" if local else "user"
        self._assert_trusted(scope)
        self._emit("start", f"Installing {source}...")
        self._install_parsed(parsed, scope, source)

    def _install_parsed(self, parsed: Source, scope: str, source: str) -> None:
        if isinstance(parsed, NpmSource):
            self.install_npm([parsed.spec], scope)
        elif isinstance(parsed, GitSource):
            self.install_git(parsed, scope)
        elif isinstance(parsed, PypiSource):
            from pi_rpc.packages import pypi

            pypi.install(self, [parsed.requirement], scope)
        else:
            resolved = resolve_path(parsed.path, self.cwd)
            if not os.path.exists(resolved):
                raise PackageError(f"Path does not exist: {resolved}")

    def install_and_persist(self, source: str, *, local: bool = False) -> None:
        self.install(source, local=local)
        self.add_to_settings(source, "project" if local else "user")

    def remove(self, source: str, *, local: bool = False) -> None:
        parsed = parse_source(source)
        scope = "project" if local else "user"
        self._assert_trusted(scope)
        self._emit("start", f"Removing {source}...")
        if isinstance(parsed, NpmSource):
            self.uninstall_npm(parsed, scope)
        elif isinstance(parsed, GitSource):
            self.remove_git(parsed, scope)
        elif isinstance(parsed, PypiSource):
            from pi_rpc.packages import pypi

            pypi.uninstall(self, parsed, scope)

    def remove_and_persist(self, source: str, *, local: bool = False) -> bool:
        self.remove(source, local=local)
        return self.remove_from_settings(source, "project" if local else "user")

    def list_configured(self) -> list[dict[str, Any]]:
        found = []
        for scope in ("user", "project"):
            for pkg in self.packages(scope):
                source = _source_string(pkg)
                if source is None:
                    continue
                found.append(
                    {
                        "source": source,
                        "scope": scope,
                        "filtered": isinstance(pkg, dict),
                        "installedPath": self.installed_path(source, scope),
                    }
                )
        return found

    def no_match_message(self, source: str) -> str:
        trimmed = source.strip()
        for scope in ("user", "project"):
            for pkg in self.packages(scope):
                configured = _source_string(pkg)
                if configured is None:
                    continue
                parsed = parse_source(configured)
                if isinstance(parsed, NpmSource) and trimmed in (parsed.name, parsed.spec):
                    return f"No matching package found for {source}. Did you mean {configured}?"
                if isinstance(parsed, GitSource):
                    short = f"{parsed.host}/{parsed.path}"
                    if trimmed == short or (parsed.ref and trimmed == f"{short}@{parsed.ref}"):
                        return f"No matching package found for {source}. Did you mean {configured}?"
        return f"No matching package found for {source}"

    def update(self, source: str | None = None) -> list[str]:
        """Update the configured packages (or the one matching ``source``); returns upstream's
        result lines (``npm:foo 1.0.0 -> 1.1.0``)."""
        entries = self._update_entries(source)
        if source and not entries:
            raise PackageError(self.no_match_message(source))
        if offline() or not entries:
            return []
        results: list[str] = []
        npm_updates: dict[str, list[tuple[str, NpmSource, str | None, str | None]]] = {"user": [], "project": []}
        git_entries: list[tuple[str, GitSource, str]] = []
        pypi_entries: list[tuple[str, PypiSource, str]] = []
        for configured, scope in entries:
            parsed = parse_source(configured)
            if isinstance(parsed, NpmSource) and not parsed.pinned:
                installed, target, should = self._npm_update_check(parsed, scope)
                if should:
                    npm_updates[scope].append((configured, parsed, installed, target))
            elif isinstance(parsed, GitSource):
                git_entries.append((configured, parsed, scope))
            elif isinstance(parsed, PypiSource) and not parsed.pinned:
                pypi_entries.append((configured, parsed, scope))
        for scope, batch in npm_updates.items():
            if batch:
                results += self._update_npm(scope, batch)
        for configured, parsed_git, scope in git_entries:
            results += self._update_git(configured, parsed_git, scope)
        if pypi_entries:
            from pi_rpc.packages import pypi

            results += pypi.update(self, pypi_entries)
        return results

    def _update_entries(self, source: str | None) -> list[tuple[str, str]]:
        """(configured source, scope) of every package ``update`` touches: all, or those
        matching ``source``."""
        key = self._input_key(source) if source else None
        entries: list[tuple[str, str]] = []
        for scope in ("user", "project"):
            for pkg in self.packages(scope):
                configured = _source_string(pkg)
                if configured is None:
                    continue
                if key is not None and self._settings_key(configured, scope) != key:
                    continue
                entries.append((configured, scope))
        return entries

    def _npm_update_check(self, parsed: NpmSource, scope: str) -> tuple[str | None, str | None, bool]:
        """(installed version, registry's latest, whether to update): a package not installed,
        or whose latest cannot be learned, is updated."""
        path = self.npm_path(parsed, scope)
        installed = _installed_version(path) if os.path.exists(path) else None
        if installed is None:
            return None, None, True
        target: str | None = None
        try:
            target = self.latest_npm_version(parsed)
            return installed, target, version_gt(target, installed)
        except (PackageError, ValueError):
            return installed, target, True

    def _update_npm(self, scope: str, batch: list[tuple[str, NpmSource, str | None, str | None]]) -> list[str]:
        """One ``npm install`` for a scope's packages; the result line of each that changed."""
        results: list[str] = []
        label = f"Updating {batch[0][0]}..." if len(batch) == 1 else f"Updating {scope} npm packages..."
        self._emit("start", label)
        self.install_npm([p.spec if p.version else f"{p.name}@latest" for _, p, _, _ in batch], scope)
        for configured, parsed, installed, target in batch:
            after = _installed_version(self.npm_path(parsed, scope))
            if installed and target and after == installed:
                self._emit(
                    "progress",
                    f"{configured} is still {after} (registry reports {target}); npm registry metadata may be stale, try again in a few minutes",
                )
            elif after != installed:
                suffix = " (project)" if scope == "project" else ""
                results.append(f"{configured}{suffix} {installed or '(none)'} -> {after or '(none)'}")
        return results

    def _update_git(self, configured: str, parsed_git: GitSource, scope: str) -> list[str]:
        self._emit("start", f"Updating {configured}...")
        target_dir = self.git_path(parsed_git, scope)
        before = self.git_head(target_dir)
        if os.path.exists(target_dir):
            self._reconcile_git(parsed_git, target_dir)
        else:
            self.install_git(parsed_git, scope)
        after_head = self.git_head(target_dir)
        if before == after_head:
            return []
        suffix = " (project)" if scope == "project" else ""
        return [
            f"{configured}{suffix} {before[:7] if before else '(none)'} -> {after_head[:7] if after_head else '(none)'}"
        ]

    # ------------------------------------------------------------------ resolving

    def configured_sources(self) -> list[tuple[object, str]]:
        """(entry, scope), project first, de-duplicated by identity as upstream: a project
        entry replaces the user's, except an ``autoload: false`` one, which is kept before it
        as a delta."""
        all_entries = [(p, "project") for p in self.packages("project")] + [(p, "user") for p in self.packages("user")]
        result: list[tuple[object, str]] = []
        seen: dict[str, int] = {}
        for pkg, scope in all_entries:
            source = _source_string(pkg)
            if source is None:
                continue
            key = self._settings_key(source, scope)
            index = seen.get(key)
            if index is None:
                seen[key] = len(result)
                result.append((pkg, scope))
                continue
            existing_pkg, existing_scope = result[index]
            if existing_scope == "project" and scope == "user":
                if isinstance(existing_pkg, dict) and existing_pkg.get("autoload") is False:
                    result.append((pkg, scope))
            elif scope == "project":
                result[index] = (pkg, scope)
        return result

    def resolve(self, *, install_missing: bool = True) -> Resolved:
        return self.resolve_sources(self.configured_sources(), install_missing=install_missing)

    def resolve_temporary(self, sources: Sequence[str]) -> Resolved:
        """``-e npm:…``/``-e git:…``/``-e pypi:…`` sources, cached under ``<agentDir>/tmp``."""
        # a local folder is named by its absolute path, as upstream resolves -e paths first
        named = [s if not isinstance(parse_source(s), LocalSource) else resolve_path(s, self.cwd) for s in sources]
        return self.resolve_sources([(s, "temporary") for s in named], install_missing=True)

    def resolve_sources(self, entries: Sequence[tuple[object, str]], *, install_missing: bool) -> Resolved:
        resolved = Resolved()
        seen: set[str] = set()

        def add(resource_type: str, path: str, enabled: bool, source: str, scope: str, root: str | None) -> None:
            if path in seen_by_type[resource_type]:
                return
            seen_by_type[resource_type].add(path)
            resource = Resource(path, enabled, source, scope, root, root)
            if resource_type == "extensions" and root is not None and root in resolved.site_dirs:
                rel = os.path.relpath(path, root)
                rel = os.path.dirname(rel) if os.path.basename(rel) == "__init__.py" else rel[: -len(".py")]
                resource.module = rel.replace(os.sep, ".")
            resolved.of(resource_type).append(resource)

        seen_by_type: dict[str, set[str]] = {t: set() for t in collect.RESOURCE_TYPES}
        for pkg, scope in entries:
            source = _source_string(pkg)
            if source is None:
                continue
            filter_entry = pkg if isinstance(pkg, dict) else None
            base_source, base_scope = source, scope
            if scope == "project" and filter_entry is not None and filter_entry.get("autoload") is False:
                key = self._settings_key(source, scope)
                for other, other_scope in entries:
                    other_source = _source_string(other)
                    if other_scope == "user" and other_source and self._settings_key(other_source, "user") == key:
                        base_source, base_scope = other_source, "user"
                        break
            parsed = parse_source(base_source)
            seen.add(source)
            if isinstance(parsed, LocalSource):
                path = resolve_path(parsed.path, self.base_dir(base_scope))
                if os.path.isfile(path):
                    add("extensions", path, True, source, scope, os.path.dirname(path))
                elif os.path.isdir(path):
                    found = collect.package_resources(path, filter_entry, resolved.warnings)
                    if found is None:
                        for entry in collect.extension_entries_of_dir(path, resolved.warnings) or []:
                            add("extensions", entry, True, source, scope, path)
                    else:
                        for resource_type, files in found.items():
                            for file_path, enabled in files:
                                add(resource_type, file_path, enabled, source, scope, path)
                continue
            if isinstance(parsed, PypiSource):
                from pi_rpc.packages import pypi

                pypi.resolve_into(self, resolved, parsed, source, base_scope, scope, filter_entry, install_missing, add)
                continue
            root = self._ensure_installed(parsed, base_source, base_scope, install_missing, resolved)
            if root is None:
                continue
            found = collect.package_resources(root, filter_entry, resolved.warnings) or {}
            for resource_type, files in found.items():
                for file_path, enabled in files:
                    add(resource_type, file_path, enabled, source, scope, root)
        return resolved

    def _ensure_installed(
        self, parsed: Source, source: str, scope: str, install_missing: bool, resolved: Resolved
    ) -> str | None:
        if isinstance(parsed, NpmSource):
            path = self.npm_path(parsed, scope)
            installed = _installed_version(path) if os.path.exists(path) else None
            needs = installed is None or not version_satisfies(installed, parsed.version)
            if not needs and scope == "temporary" and not parsed.pinned and not offline():
                try:
                    if version_gt(self.latest_npm_version(parsed), installed or "0.0.0"):
                        spec = parsed.spec if parsed.version else f"{parsed.name}@latest"
                        self.install_npm([spec], scope)
                except (PackageError, ValueError):
                    pass  # keep the cached copy
            if needs and not self._install_missing(parsed, source, scope, install_missing, resolved):
                return None
            return path if os.path.exists(path) else None
        if isinstance(parsed, GitSource):
            path = self.git_path(parsed, scope)
            if not os.path.exists(path):
                if not self._install_missing(parsed, source, scope, install_missing, resolved):
                    return None
            elif scope == "temporary" and not offline():
                self._refresh_temporary_git(parsed, source, path)
            return path
        return None

    def _install_missing(self, parsed: Source, source: str, scope: str, install: bool, resolved: Resolved) -> bool:
        if offline() or not install:
            return False
        try:
            self._emit("start", f"Installing {source}...")
            self._install_parsed(parsed, scope, source)
            return True
        except PackageError as exc:
            resolved.install_failures.append(InstallFailure(source, scope, str(exc)))
            return False

    def _refresh_temporary_git(self, source: GitSource, configured: str, path: str) -> None:
        try:
            if source.ref and all(c in "0123456789abcdefABCDEF" for c in source.ref) and 7 <= len(source.ref) <= 64:
                head = self.git_head(path) or ""
                if head.lower().startswith(source.ref.lower()):
                    return
            self._emit("start", f"Refreshing {configured}...")
            self._reconcile_git(source, path)
        except PackageError:
            pass  # keep the cached checkout


def _managed(root: str, *parts: str) -> str:
    resolved_root = os.path.abspath(root)
    path = os.path.abspath(os.path.join(resolved_root, *parts))
    if path != resolved_root and not path.startswith(resolved_root + os.sep):
        raise PackageError(f"Refusing to use path outside package install root: {path}")
    return path


def _ensure_git_ignore(directory: str) -> None:
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, ".gitignore")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(_GIT_IGNORE)


def _marker(target: str) -> str:
    return os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.pi-update-incomplete")


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _prune_empty_parents(target: str, root: str | None) -> None:
    if root is None:
        return
    resolved_root = os.path.abspath(root)
    current = os.path.dirname(target)
    while current.startswith(resolved_root) and current != resolved_root:
        if os.path.exists(current):
            if os.listdir(current):
                break
            try:
                os.rmdir(current)
            except OSError:
                break
        current = os.path.dirname(current)

"""Package sources as upstream pi 1.6 parses them, plus ``pypi:`` (ours).

- ``npm:<spec>``: ``name`` and optional ``version``; a version that is an exact semver is
  *pinned* (``pi update`` leaves it alone).
- ``git:<host>/<path>[@ref]``, ``git:git@host:path``, ``git:`` + URL, and bare
  ``http(s)://``/``ssh://``/``git://`` URLs: a git repository; ``host`` and ``path`` (without
  ``.git``, scheme, port or ref) name it; a ref pins it. Shorthands without a scheme are cloned
  over ``https://``.
- ``pypi:<requirement>``: a Python distribution (pi_rpc only).
- anything else: a local path, loaded in place.

Identity (which entries are "the same package"): ``npm:<name>``, ``git:<host>/<path>``,
``pypi:<normalised name>``, ``local:<resolved absolute path>``.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple, Union
from urllib.parse import unquote, urlsplit

# compiled on first use (re caches it): resolving packages at startup rarely needs it
_EXACT_SEMVER = (
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
_NPM_SPEC = re.compile(r"^(@?[^@]+(?:/[^@]+)?)(?:@(.+))?$")
_PYPI_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_NON_LOCAL_PREFIXES = ("npm:", "git:", "github:", "http:", "https:", "ssh:", "builtin:", "pypi:")


class NpmSource(NamedTuple):
    spec: str
    name: str
    version: str | None
    pinned: bool
    type: str = "npm"


class GitSource(NamedTuple):
    repo: str
    host: str
    path: str
    ref: str | None
    pinned: bool
    type: str = "git"


class LocalSource(NamedTuple):
    path: str
    type: str = "local"


class PypiSource(NamedTuple):
    requirement: str
    name: str
    pinned: bool
    type: str = "pypi"


Source = Union[NpmSource, GitSource, LocalSource, PypiSource]


def is_local_path(value: str) -> bool:
    return not value.strip().startswith(_NON_LOCAL_PREFIXES)


def parse_npm_spec(spec: str) -> tuple[str, str | None]:
    match = _NPM_SPEC.match(spec)
    if match is None:
        return spec, None
    return match.group(1), match.group(2)


def is_exact_version(version: str | None) -> bool:
    return bool(version) and re.match(_EXACT_SEMVER, version or "") is not None


def normalize_pypi_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _split_ref(url: str) -> tuple[str, str | None]:
    scp = re.match(r"^git@([^:]+):(.+)$", url)
    if scp:
        rest = scp.group(2)
        at = rest.find("@")
        if at < 0 or not rest[:at] or not rest[at + 1 :]:
            return url, None
        return f"git@{scp.group(1)}:{rest[:at]}", rest[at + 1 :]
    if "://" in url:
        parts = urlsplit(url)
        path = parts.path.lstrip("/")
        at = path.find("@")
        if at < 0 or not path[:at] or not path[at + 1 :]:
            return url, None
        return parts._replace(path="/" + path[:at]).geturl().rstrip("/"), path[at + 1 :]
    slash = url.find("/")
    if slash < 0:
        return url, None
    host, rest = url[:slash], url[slash + 1 :]
    at = rest.find("@")
    if at < 0 or not rest[:at] or not rest[at + 1 :]:
        return url, None
    return f"{host}/{rest[:at]}", rest[at + 1 :]


def _unsafe(value: str, allow_slash: bool) -> bool:
    try:
        decoded = unquote(value, errors="strict")
    except UnicodeDecodeError:
        return True
    for candidate in (value, decoded):
        if "\0" in candidate or "\\" in candidate or candidate.startswith("/"):
            return True
        if not allow_slash and "/" in candidate:
            return True
        if ".." in candidate.split("/"):
            return True
    return False


def _git_source(repo: str, host: str, path: str, ref: str | None) -> GitSource | None:
    if path.startswith("/"):
        return None
    normalized = re.sub(r"\.git$", "", path).lstrip("/")
    if not host or not normalized or len(normalized.split("/")) < 2:
        return None
    if _unsafe(host, False) or _unsafe(normalized, True):
        return None
    return GitSource(repo=repo, host=host, path=normalized, ref=ref or None, pinned=bool(ref))


def parse_git_url(source: str) -> GitSource | None:
    """Upstream's ``parseGitUrl``: with ``git:`` every shorthand, without only explicit
    protocol URLs."""
    trimmed = source.strip()
    has_prefix = trimmed.startswith("git:")
    url = trimmed[4:].strip() if has_prefix else trimmed
    if not has_prefix and not re.match(r"^(https?|ssh|git)://", url, re.IGNORECASE):
        return None
    repo, ref = _split_ref(url)
    scp = re.match(r"^git@([^:]+):(.+)$", repo)
    if scp:
        return _git_source(repo, scp.group(1), scp.group(2), ref)
    if re.match(r"^(https?|ssh|git)://", repo):
        try:
            parts = urlsplit(repo)
            host = parts.hostname or ""
        except ValueError:
            return None
        return _git_source(repo, host, parts.path.lstrip("/"), ref)
    slash = repo.find("/")
    if slash < 0:
        return None
    host, path = repo[:slash], repo[slash + 1 :]
    if "." not in host and host != "localhost":
        return None
    return _git_source(f"https://{repo}", host, path, ref)


def parse_source(source: str) -> Source:
    if source.startswith("npm:"):
        spec = source[len("npm:") :].strip()
        name, version = parse_npm_spec(spec)
        return NpmSource(spec=spec, name=name, version=version, pinned=is_exact_version(version))
    if source.startswith("pypi:"):
        requirement = source[len("pypi:") :].strip()
        match = _PYPI_NAME.match(requirement)
        name = normalize_pypi_name(match.group(1)) if match else requirement
        pinned = bool(re.search(r"===?\s*[^,;*]+$", requirement)) and "," not in requirement
        return PypiSource(requirement=requirement, name=name, pinned=pinned)
    if is_local_path(source):
        return LocalSource(path=source)
    git = parse_git_url(source)
    if git is not None:
        return git
    return LocalSource(path=source)


def resolve_path(raw: str, base: str, home: str | None = None) -> str:
    """Upstream's ``resolvePath``: trimmed, ``~`` expanded, ``file:`` URLs accepted, relative
    to ``base``; symlinks kept."""
    text = raw.strip()
    if text.startswith("file://"):
        text = unquote(urlsplit(text).path)
    home_dir = home or os.environ.get("HOME") or os.path.expanduser("~")
    if text == "~":
        text = home_dir
    elif text.startswith("~/"):
        text = os.path.join(home_dir, text[2:])
    if not os.path.isabs(text):
        text = os.path.join(base, text)
    return os.path.normpath(text)


def identity(source: str, base_dir: str) -> str:
    """Which configured entries are the same package (``base_dir`` resolves local paths)."""
    parsed = parse_source(source)
    if isinstance(parsed, NpmSource):
        return f"npm:{parsed.name}"
    if isinstance(parsed, GitSource):
        return f"git:{parsed.host}/{parsed.path}"
    if isinstance(parsed, PypiSource):
        return f"pypi:{parsed.name}"
    return f"local:{resolve_path(parsed.path, base_dir)}"

"""Path resolution for tool arguments: ``@`` prefix, Unicode spaces, ``~``, cwd-relative.

``resolve_read_path`` adds the read tool's fallbacks for macOS file names (narrow no-break
space before AM/PM, NFD normalisation, curly apostrophes).
"""

from __future__ import annotations

import os
import re
import unicodedata

from pi_rpc.ai.jsjson import fs_path

_UNICODE_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_AM_PM = re.compile(r" (AM|PM)\.", re.IGNORECASE)


def expand_path(file_path: str) -> str:
    normalized = _UNICODE_SPACES.sub(" ", file_path)
    if normalized.startswith("@"):
        normalized = normalized[1:]
    home = os.path.expanduser("~")
    if normalized == "~":
        return home
    if normalized.startswith("~/"):
        return os.path.join(home, normalized[2:])
    if normalized.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(normalized).path)
    return normalized


def resolve_to_cwd(file_path: str, cwd: str) -> str:
    expanded = fs_path(expand_path(file_path))
    if os.path.isabs(expanded):
        return os.path.normpath(expanded)
    return os.path.normpath(os.path.join(os.path.abspath(cwd), expanded))


def _exists(path: str) -> bool:
    return os.path.lexists(path)


def resolve_read_path(file_path: str, cwd: str) -> str:
    resolved = resolve_to_cwd(file_path, cwd)
    if _exists(resolved):
        return resolved
    am_pm = _AM_PM.sub(lambda m: f"\u202f{m.group(1)}.", resolved)
    if am_pm != resolved and _exists(am_pm):
        return am_pm
    nfd = unicodedata.normalize("NFD", resolved)
    if nfd != resolved and _exists(nfd):
        return nfd
    curly = resolved.replace("'", "\u2019")
    if curly != resolved and _exists(curly):
        return curly
    nfd_curly = nfd.replace("'", "\u2019")
    if nfd_curly != resolved and _exists(nfd_curly):
        return nfd_curly
    return resolved

"""What the package manager reports and raises: the resolved resources, an install failure, the
error type, and whether the network is off (``PI_OFFLINE``). A leaf of ``pi_rpc.packages``, so
the manager and the pypi backend it calls share these without importing each other."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


class PackageError(Exception):
    """A package command failed; the message is shown as upstream shows it (``Error: ...``)."""


def offline() -> bool:
    value = os.environ.get("PI_OFFLINE", "")
    return value == "1" or value.lower() in ("true", "yes")


@dataclass
class Resource:
    """One resolved resource file: whether it is enabled and upstream's ``sourceInfo``
    (``source`` is the settings entry, e.g. ``npm:foo``; ``origin`` ``package``)."""

    path: str
    enabled: bool
    source: str
    scope: str
    package_root: str | None = None
    base_dir: str | None = None
    cli: bool = False  # from a -e source: upstream's sourceInfo says "cli", "top-level"
    module: str | None = None  # a pypi extension: imported by module name (relative imports work)

    def source_info(self) -> dict[str, str]:
        if self.cli:
            return {"path": self.path, "source": "cli", "scope": "temporary", "origin": "top-level"}
        info = {"path": self.path, "source": self.source, "scope": self.scope, "origin": "package"}
        if self.base_dir is not None:
            info["baseDir"] = self.base_dir
        return info


@dataclass
class InstallFailure:
    source: str
    scope: str
    message: str

    def warning(self) -> str:
        """Upstream's ``formatPackageInstallWarning``."""
        if self.scope == "temporary":
            hint = "Check the source and try again."
        else:
            local = " --local" if self.scope == "project" else ""
            hint = f'Run "pi remove {self.source}{local}" to remove it from settings.json.'
        return f'Extension package "{self.source}": failed to install ({self.message}). {hint}'


@dataclass
class Resolved:
    extensions: list[Resource] = field(default_factory=list)
    skills: list[Resource] = field(default_factory=list)
    prompts: list[Resource] = field(default_factory=list)
    themes: list[Resource] = field(default_factory=list)
    install_failures: list[InstallFailure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # pypi: (module name, source, scope) of each ``pi.extensions`` entry point, and site dirs
    python_entry_points: list[tuple[str, str, str, str]] = field(default_factory=list)
    site_dirs: list[str] = field(default_factory=list)

    def of(self, resource_type: str) -> list[Resource]:
        return {"extensions": self.extensions, "skills": self.skills, "prompts": self.prompts, "themes": self.themes}[
            resource_type
        ]

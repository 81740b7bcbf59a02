"""Enabling or disabling one resource of an installed package in settings (upstream's
``togglePackageResource``), shared by ``pi config`` and its full-screen picker: a module of its
own so the picker need not import the command that opens it."""

from __future__ import annotations

import os
from typing import Any

from pi_rpc.packages.records import PackageError


def toggle_package_resource(manager: Any, kind: str, resource: Any, enable: bool, scope: str) -> None:
    """Upstream's ``togglePackageResource``: the package entry becomes the object form with a
    ``+path``/``-path`` entry (relative to the package root) for this resource."""
    packages = manager.packages(scope)
    index = next(
        (i for i, p in enumerate(packages) if (p if isinstance(p, str) else p.get("source")) == resource.source), None
    )
    if index is None:
        if scope != "project":
            raise PackageError(f"{resource.source} is not configured in {scope} settings")
        # a project override of a user package: an autoload:false delta entry
        packages.append({"source": resource.source, "autoload": False})
        index = len(packages) - 1
    pkg = packages[index]
    if isinstance(pkg, str):
        pkg = {"source": pkg}
    pattern = os.path.relpath(resource.path, resource.base_dir or os.path.dirname(resource.path))
    current = [p for p in (pkg.get(kind) or []) if (p[1:] if p[:1] in "!+-" else p) != pattern]
    current.append(("+" if enable else "-") + pattern)
    pkg[kind] = current
    packages[index] = pkg
    manager.set_packages(scope, packages)

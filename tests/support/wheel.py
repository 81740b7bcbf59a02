"""A minimal wheel builder for the test suite (no ``wheel``/``build`` package needed offline):
packs a ``src``-layout project's ``pyproject.toml`` metadata, entry points and package files
into ``<name>-<version>-py3-none-any.whl``, which pip installs like any other wheel."""

from __future__ import annotations

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(project: Path, out_dir: Path) -> Path:
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name, version = meta["name"], meta["version"]
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for path in sorted((project / "src").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[path.relative_to(project / "src").as_posix()] = path.read_bytes()
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {meta.get('description', '')}\n"
    files[f"{info}/METADATA"] = metadata.encode()
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tests.support.wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    groups = meta.get("entry-points", {})
    entry_points = "".join(
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in table.items()) + "\n"
        for group, table in groups.items()
    )
    files[f"{info}/entry_points.txt"] = entry_points.encode()
    record = [_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, d in files.items():
            zf.writestr(n, d)
    return target

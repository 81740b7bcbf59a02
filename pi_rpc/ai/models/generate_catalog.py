"""Regenerate ``catalog.json`` (the built-in provider and model catalogue) from upstream's
published npm packages::

    python -m pi_rpc.ai.models.generate_catalog --pi-ai node_modules/@earendil-works/pi-ai

What it reads, all from the installed packages (never from the network):

- ``pi-ai/dist/models.generated.js``: the built-in providers, in upstream's order (``MODELS``);
- ``pi-ai/dist/providers/<id>.models.js`` -> ``data/<file>.json``: each provider's catalogue,
  flattened as upstream's ``flattenChatModelCatalog`` does (``model-catalog.js``): the chat
  models of every API group, keyed by id (``Object.fromEntries``: a later duplicate replaces the
  value at the first one's position; integer-like ids come first, as JS orders such keys);
- ``pi-coding-agent/dist/core/model-resolver.js``: ``defaultModelPerProvider``, the model the
  agent picks first when a provider is configured (``defaults``; key order is upstream's search
  order).

Every chat model is kept, also those of APIs pi_rpc does not implement yet: upstream lists them
(``--list-models``, ``get_available_models``) whenever their provider is configured, and
choosing one ends the request with upstream's ``No API provider registered for api: …`` error.

The output keeps one model per line (so a regeneration diffs model by model) in a layout
``catalog.py`` can index without parsing: it slices one provider's array out of the file and
parses only that (see ``catalog.py``). Only the standard library and orjson are used.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import orjson

CATALOG_PATH = Path(__file__).with_name("catalog.json")

_MODELS_BLOCK = re.compile(r"export const MODELS = \{(.*?)\n\};", re.S)
_MODELS_ENTRY = re.compile(r'^\s*"([^"]+)"\s*:\s*[A-Z0-9_]+,?\s*$', re.M)
_DATA_IMPORT = re.compile(r'import\s+\w+\s+from\s+"\./(data/[^"]+\.json)"')
_DEFAULTS_BLOCK = re.compile(r"export const defaultModelPerProvider = \{(.*?)\n\};", re.S)
_DEFAULTS_ENTRY = re.compile(r'^\s*(?:"([^"]+)"|([A-Za-z_$][\w$]*))\s*:\s*"([^"]*)",?\s*$', re.M)
_ARRAY_INDEX = re.compile(r"^(0|[1-9][0-9]*)$")


def _js_key_order(keys: list[str]) -> list[str]:
    """JS own-property order: array-index keys (canonical integers below 2**32 - 1) ascending,
    then the others in insertion order."""
    index = [k for k in keys if _ARRAY_INDEX.match(k) and int(k) < 2**32 - 1]
    rest = [k for k in keys if k not in set(index)]
    return sorted(index, key=int) + rest


def flatten_chat_models(groups: dict[str, dict[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Upstream's ``flattenChatModelCatalog``: every group's models of type ``chat``, one per id."""
    by_id: dict[str, dict[str, object]] = {}
    for models in groups.values():
        for model in models.values():
            if model.get("type") == "chat":
                by_id[model["id"]] = model  # a dict keeps the first position, as Object.fromEntries
    return [by_id[key] for key in _js_key_order(list(by_id))]


def provider_order(pi_ai: Path) -> list[str]:
    """Provider ids in ``MODELS`` order (``models.generated.js``)."""
    text = (pi_ai / "dist" / "models.generated.js").read_text(encoding="utf-8")
    block = _MODELS_BLOCK.search(text)
    if block is None:
        raise SystemExit("models.generated.js: no `export const MODELS = {...}` block (upstream layout changed?)")
    return _MODELS_ENTRY.findall(block.group(1))


def provider_data_file(pi_ai: Path, provider: str) -> Path:
    """The JSON file ``providers/<id>.models.js`` imports (``data/<id>.json`` by convention)."""
    providers = pi_ai / "dist" / "providers"
    module = providers / f"{provider}.models.js"
    if module.exists():
        found = _DATA_IMPORT.search(module.read_text(encoding="utf-8"))
        if found:
            return providers / found.group(1)
    return providers / "data" / f"{provider}.json"


def default_models(coding_agent: Path) -> dict[str, str]:
    """``defaultModelPerProvider`` of ``core/model-resolver.js``, in its key order."""
    text = (coding_agent / "dist" / "core" / "model-resolver.js").read_text(encoding="utf-8")
    block = _DEFAULTS_BLOCK.search(text)
    if block is None:
        raise SystemExit("model-resolver.js: no `defaultModelPerProvider` block (upstream layout changed?)")
    return {quoted or bare: model for quoted, bare, model in _DEFAULTS_ENTRY.findall(block.group(1))}


def _version(package: Path) -> str:
    return str(orjson.loads((package / "package.json").read_bytes()).get("version", "?"))


def build_catalog(pi_ai: Path, coding_agent: Path) -> dict[str, object]:
    manifest_path = pi_ai / "dist" / "providers" / "data" / ".manifest.json"
    manifest = orjson.loads(manifest_path.read_bytes()) if manifest_path.exists() else {}
    providers: dict[str, list[dict[str, object]]] = {}
    for provider in provider_order(pi_ai):
        groups = orjson.loads(provider_data_file(pi_ai, provider).read_bytes())
        providers[provider] = flatten_chat_models(groups)
    source = {
        "package": f"@earendil-works/pi-ai {_version(pi_ai)} (MIT)",
        "defaultsFrom": f"@earendil-works/pi-coding-agent {_version(coding_agent)} dist/core/model-resolver.js",
        "dataGeneratedAt": manifest.get("generatedAt"),
        "structureHash": manifest.get("structureHash"),
        "generator": "python -m pi_rpc.ai.models.generate_catalog --pi-ai <dir>",
    }
    return {"_source": source, "defaults": default_models(coding_agent), "providers": providers}


def render(catalog: dict[str, Any]) -> bytes:
    """The file layout ``catalog.py`` indexes: a header line each for ``_source``, ``defaults``
    and ``labels`` (per provider the ``[id, name]`` of each model, what fuzzy ``--model``
    matching reads, so it need not parse the models), then per provider a ``"<id>":[`` line,
    one model per line, and a ``]`` line."""
    labels = {name: [[m["id"], m.get("name")] for m in models] for name, models in catalog["providers"].items()}
    out = [
        b'{"_source":' + orjson.dumps(catalog["_source"]) + b",\n",
        b'"defaults":' + orjson.dumps(catalog["defaults"]) + b",\n",
        b'"labels":' + orjson.dumps(labels) + b",\n",
        b'"providers":{\n',
    ]
    names = list(catalog["providers"])
    for i, name in enumerate(names):
        out.append(orjson.dumps(name) + b":[\n")
        out.append(b",\n".join(orjson.dumps(m) for m in catalog["providers"][name]))
        out.append(b"\n]" + (b",\n" if i < len(names) - 1 else b"\n"))
    out.append(b"}}\n")
    return b"".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pi_rpc.ai.models.generate_catalog", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--pi-ai", required=True, type=Path, help="the installed @earendil-works/pi-ai package directory"
    )
    parser.add_argument(
        "--coding-agent", type=Path, help="the @earendil-works/pi-coding-agent package (default: next to --pi-ai)"
    )
    parser.add_argument("--out", type=Path, default=CATALOG_PATH, help=f"output file (default: {CATALOG_PATH})")
    parser.add_argument("--check", action="store_true", help="exit 1 if the output file differs instead of writing it")
    args = parser.parse_args(argv)
    pi_ai: Path = args.pi_ai
    coding_agent: Path = args.coding_agent or pi_ai.parent / "pi-coding-agent"
    data = render(build_catalog(pi_ai, coding_agent))
    if args.check:
        same = args.out.exists() and args.out.read_bytes() == data
        print(f"{args.out}: {'up to date' if same else 'differs from the packages'}")
        return 0 if same else 1
    args.out.write_bytes(data)
    parsed = orjson.loads(data)
    count = sum(len(models) for models in parsed["providers"].values())
    print(f"wrote {args.out}: {len(parsed['providers'])} providers, {count} models", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

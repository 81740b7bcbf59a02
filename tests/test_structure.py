"""Structural gates of the code's shape (issue 26): the session is composed, not mixed; no class
grows past 60 methods; ``runtime/`` and ``ai/auth/`` have no import cycle (``TYPE_CHECKING`` imports count: the
dependency is there either way), and neither has the whole package nor the Python client, counting
function-local imports (issue 32 item 6); tests reach their helpers as packages, not through
``sys.path`` edits."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pi_rpc"
MAX_METHODS = 60


def _trees(folder: Path) -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(folder.rglob("*.py"))}


# The repository's own trees, parsed once for every gate that reads them (planted packages in
# a test's tmp_path are read fresh with ``_trees``).
_source_trees = functools.cache(_trees)


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_modules(
    path: Path, tree: ast.Module, root: Path = ROOT, modules: set[str] | None = None, type_checking: bool = True
) -> set[str]:
    """Every module (and ``module.name``) an import statement anywhere in the file names
    (inside functions too; inside ``TYPE_CHECKING`` blocks unless ``type_checking`` is False).
    Given the ``modules`` there are, ``from package import submodule`` names the submodule
    only: it imports the package's ``__init__`` as every ``import package.submodule`` does,
    which is no edge of its own."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend(node.orelse)
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if modules is None:
                    found.update((module, sub))
                else:
                    found.add(sub if sub in modules else module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        pending.extend(ast.iter_child_nodes(node))
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_agent_session_is_composed_not_mixed() -> None:
    tree = ast.parse((PACKAGE / "runtime" / "session.py").read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "AgentSession"]
    assert cls.bases == []
    assert not (PACKAGE / "runtime" / "host.py").exists()


def test_no_class_defines_more_than_60_methods() -> None:
    large = []
    for path, tree in _source_trees(PACKAGE).items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                count = sum(isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef) for b in node.body)
                if count > MAX_METHODS:
                    large.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {count} methods")
    assert large == []


def _import_graph(folder: Path, root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of ``folder`` it imports (anywhere in the file)."""
    trees = _trees(folder)
    names = {_module_name(p, root): p for p in trees}
    return {
        name: {m for m in _imported_modules(path, trees[path], root) if m in names and m != name}
        for name, path in names.items()
    }


def _runtime_import_graph(
    folders: list[tuple[Path, Path]], read: Callable[[Path], dict[Path, ast.Module]] = _trees
) -> dict[str, set[str]]:
    """Module -> the modules it imports when it runs (module level and function-local
    imports; not ``TYPE_CHECKING`` ones), over the packages ``folders`` (folder, the root
    its module names start from)."""
    sources: dict[str, tuple[Path, Path, ast.Module]] = {}
    for folder, root in folders:
        for path, tree in read(folder).items():
            sources[_module_name(path, root)] = (path, root, tree)
    names = set(sources)
    return {
        name: {
            m
            for m in _imported_modules(path, tree, root, modules=names, type_checking=False)
            if m in names and m != name
        }
        for name, (path, root, tree) in sources.items()
    }


def test_runtime_has_no_import_cycle() -> None:
    assert _cycles(_import_graph(PACKAGE / "runtime")) == []


def test_auth_has_no_import_cycle() -> None:
    # Issue 32 item 4: the login modules formed one circle through the dispatcher; each OAuth
    # provider is now one module that imports the shared types, never the dispatcher.
    assert _cycles(_import_graph(PACKAGE / "ai" / "auth")) == []


def test_import_graph_sees_a_planted_circle(tmp_path: Path) -> None:
    # The gates above read import statements anywhere in a file: a circle closed only by a
    # function-local import (or a relative one) is still a circle.
    package = tmp_path / "fake"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "dispatch.py").write_text("from fake.flow import run\n")
    (package / "flow.py").write_text("def run() -> None:\n    from fake.helpers import ask\n")
    (package / "helpers.py").write_text("def ask() -> None:\n    from . import dispatch\n")
    (package / "leaf.py").write_text("import fake.helpers\n")
    assert _cycles(_import_graph(package, tmp_path)) == [["fake.dispatch", "fake.flow", "fake.helpers"]]
    (package / "helpers.py").write_text("def ask() -> None:\n    pass\n")
    assert _cycles(_import_graph(package, tmp_path)) == []


def test_no_import_cycle_in_the_package_or_the_clients() -> None:
    # Issue 32 item 6: no circle anywhere, counting the imports made inside functions (a
    # circle closed only when a function runs is still one); ``TYPE_CHECKING`` imports, which
    # never run, may close one.
    client = ROOT / "clients" / "python"
    graph = _runtime_import_graph([(PACKAGE, ROOT), (client, client)], read=_source_trees)
    assert "pi_rpc.ai.stream" in graph and "pi_rpc_client.client" in graph
    assert _cycles(graph) == []


def test_runtime_import_graph_sees_a_planted_circle(tmp_path: Path) -> None:
    package = tmp_path / "fake"
    package.mkdir()
    (package / "__init__.py").write_text("from fake.leaf import VALUE\n")
    (package / "leaf.py").write_text("VALUE = 1\n")
    (package / "stream.py").write_text("def get() -> None:\n    from fake.providers import TABLE\n")
    (package / "providers.py").write_text("from fake import leaf\nTABLE = {}\n")
    (package / "output.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fake.stream import get\n"
    )
    graph = _runtime_import_graph([(package, tmp_path)])
    # ``from fake import leaf`` is an edge to the submodule, not to the package's __init__;
    # the TYPE_CHECKING import is no edge.
    assert graph["fake.providers"] == {"fake.leaf"} and graph["fake.output"] == set()
    assert _cycles(graph) == []
    # A function-local import back to the dispatcher closes a circle.
    (package / "providers.py").write_text("def table() -> None:\n    from fake.stream import get\n")
    assert _cycles(_runtime_import_graph([(package, tmp_path)])) == [["fake.providers", "fake.stream"]]
    # And so does importing a name the package's __init__ holds, from a module it imports.
    (package / "providers.py").write_text("TABLE = {}\n")
    (package / "leaf.py").write_text("def value() -> None:\n    from fake import VALUE\n")
    assert _cycles(_runtime_import_graph([(package, tmp_path)])) == [["fake", "fake.leaf"]]


def test_cycle_finder_finds_a_cycle() -> None:
    # The gate above is only as good as this search: it must see a three-module circle.
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_tests_do_not_edit_sys_path() -> None:
    offenders = []
    for path, tree in _trees(ROOT / "tests").items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name):
                if node.value.id == "sys":
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []

"""Structural gates of the code's shape (issue 26): the session is composed, not mixed; no class
grows past 60 methods; ``runtime/`` and ``ai/auth/`` have no import cycle (``TYPE_CHECKING`` imports count: the
dependency is there either way); tests reach their helpers as packages, not through
``sys.path`` edits; session parts take the store as a plain value (issue 32 item 1)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pi_rpc"
MAX_METHODS = 60


def _trees(folder: Path) -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(folder.rglob("*.py"))}


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported_modules(path: Path, tree: ast.Module, root: Path = ROOT) -> set[str]:
    """Every module (and ``module.name``) an import statement anywhere in the file names
    (inside functions and ``TYPE_CHECKING`` blocks too)."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
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
    for path, tree in _trees(PACKAGE).items():
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


# Issue 32 item 1: a session's store is replaced by the holder (``runtime/holder.py``), and the
# parts working on it take it (and the cwd) as plain values: no part is wired with a getter of
# the store or the cwd, nor with a reset callback for the replacement.
_GETTER_NAMES = {"store", "cwd"}


def _store_getters(tree: ast.Module) -> list[str]:
    """Parameters named ``store``/``cwd`` annotated as a callable, and ``self._store()`` /
    ``self._cwd()`` calls: how a part reads what a replacement changes through a getter."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.arg in _GETTER_NAMES and node.annotation is not None:
            if "Callable" in ast.unparse(node.annotation):
                found.append(f"{node.lineno}: parameter {node.arg}: {ast.unparse(node.annotation)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
            target = node.func
            if target.attr in {"_store", "_cwd"} and isinstance(target.value, ast.Name) and target.value.id == "self":
                found.append(f"{node.lineno}: self.{target.attr}()")
    return found


def test_runtime_parts_take_the_store_as_a_plain_value() -> None:
    offenders = {}
    for path, tree in _trees(PACKAGE / "runtime").items():
        name = str(path.relative_to(ROOT))
        if found := _store_getters(tree):
            offenders[name] = found
    assert offenders == {}
    assert not (PACKAGE / "runtime" / "replacement.py").exists()


def test_the_holder_is_wired_with_no_callable() -> None:
    tree = ast.parse((PACKAGE / "runtime" / "holder.py").read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SessionHolder"]
    (init,) = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    params = [a for a in init.args.args + init.args.kwonlyargs if a.arg != "self"]
    assert [a.arg for a in params] == ["session"]
    assert all("Callable" not in ast.unparse(a.annotation) for a in params if a.annotation is not None)


def test_store_getter_gate_sees_a_planted_getter() -> None:
    planted = ast.parse(
        "class Part:\n"
        "    def __init__(self, *, store: Callable[[], SessionManager], cwd: str) -> None:\n"
        "        self._store = store\n"
        "    def run(self) -> None:\n"
        "        self._store().sync()\n"
    )
    assert _store_getters(planted) == ["2: parameter store: Callable[[], SessionManager]", "5: self._store()"]
    plain = ast.parse(
        "class Part:\n"
        "    def __init__(self, *, store: SessionManager, cwd: str) -> None:\n"
        "        self._store = store\n"
        "    def run(self) -> None:\n"
        "        self._store.sync()\n"
    )
    assert _store_getters(plain) == []

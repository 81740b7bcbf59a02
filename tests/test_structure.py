"""Structural gates of the code's shape (issue 26): the session is composed, not mixed; no class
grows past 60 methods; ``runtime/`` and ``ai/auth/`` have no import cycle (``TYPE_CHECKING`` imports count: the
dependency is there either way); tests reach their helpers as packages, not through
``sys.path`` edits."""

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


# ---------------------------------------------------------------- the extensions' port (issue 32)
# Extensions reach the live session only through ``SessionPort``'s verbs: the port has no member
# that hands out the agent or the session store, and nothing on the extensions' side reads an
# ``agent`` / ``session`` attribute or imports the runtime's session objects.

PORT_MODULE = PACKAGE / "runtime" / "extension_port.py"
PORT_IMPLEMENTATION = PACKAGE / "runtime" / "session_port.py"
RUNTIME_PORT_USERS = (
    "extension_host",
    "extension_actions",
    "extension_hooks",
    "extension_state",
    "boundaries",
    "nested_tools",
    "tool_loadout",
)
INTERNAL_NAMES = {"agent", "session"}
INTERNAL_TYPES = {"Agent", "AgentSession", "SessionManager", "SessionParts", "ModelControl", "CompactionRunner"}
# What no module of ``pi_rpc/extensions`` may import (the runtime's extension modules may import
# other runtime modules, but not the session, the port's implementation or the agent).
INTERNAL_MODULES = ("pi_rpc.runtime", "pi_rpc.agent.agent")
RUNTIME_INTERNAL_MODULES = ("pi_rpc.runtime.session", "pi_rpc.runtime.session_port", "pi_rpc.agent.agent")


def _names_in(node: ast.AST | None) -> set[str]:
    if node is None:
        return set()
    found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    found |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    for constant in ast.walk(node):  # string annotations ("Agent | None")
        if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
            found |= set(constant.value.replace("|", " ").replace("[", " ").replace("]", " ").split())
    return found


def _exposed_internals(tree: ast.Module, class_name: str) -> list[str]:
    """Members of ``class_name`` named like, or typed as, the session's internals (methods,
    properties, class-level annotations and public ``self.x`` attributes)."""
    found: list[str] = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name):
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if item.name in INTERNAL_NAMES or _names_in(item.returns) & INTERNAL_TYPES:
                    found.append(item.name)
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                if item.target.id in INTERNAL_NAMES or _names_in(item.annotation) & INTERNAL_TYPES:
                    found.append(item.target.id)
        for node in ast.walk(cls):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and node.attr in INTERNAL_NAMES
            ):
                found.append(f"self.{node.attr}")
    return found


def _reaches_past_the_port(path: Path, tree: ast.Module, root: Path = ROOT) -> list[str]:
    """Where a module on the extensions' side reads ``.agent`` / ``.session`` or imports the
    session's objects."""
    found = [
        f"{path.name}:{node.lineno} .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in INTERNAL_NAMES
    ]
    forbidden = RUNTIME_INTERNAL_MODULES if path.parent.name == "runtime" else INTERNAL_MODULES
    for module in sorted(_imported_modules(path, tree, root)):
        if any(module == m or module.startswith(m + ".") for m in forbidden):
            found.append(f"{path.name} imports {module}")
    return found


def _extension_side() -> dict[Path, ast.Module]:
    trees = _trees(PACKAGE / "extensions")
    for name in RUNTIME_PORT_USERS:
        path = PACKAGE / "runtime" / f"{name}.py"
        trees[path] = ast.parse(path.read_text(encoding="utf-8"))
    return trees


def test_the_extensions_port_has_no_agent_or_session() -> None:
    tree = ast.parse(PORT_MODULE.read_text(encoding="utf-8"))
    members = [n for cls in tree.body if isinstance(cls, ast.ClassDef) and cls.name == "SessionPort" for n in cls.body]
    assert len(members) > 10  # the class is there and was read
    assert _exposed_internals(tree, "SessionPort") == []
    implementation = ast.parse(PORT_IMPLEMENTATION.read_text(encoding="utf-8"))
    assert _exposed_internals(implementation, "LiveSessionPort") == []


def test_no_extension_module_reaches_past_the_port() -> None:
    found = [hit for path, tree in _extension_side().items() for hit in _reaches_past_the_port(path, tree)]
    assert found == []
    # MCP (a built-in extension) talks MCP sessions (``.session`` there is the MCP client's):
    # it imports nothing of the runtime either.
    mcp = _trees(PACKAGE / "mcp")
    assert [
        f"{path.name} imports {m}"
        for path, tree in mcp.items()
        for m in _imported_modules(path, tree)
        if any(m == i or m.startswith(i + ".") for i in INTERNAL_MODULES)
    ] == []


def test_port_gates_see_planted_violations(tmp_path: Path) -> None:
    port = ast.parse(
        "class SessionPort(Protocol):\n"
        "    @property\n    def cwd(self) -> str: ...\n"
        "    @property\n    def agent(self) -> Agent: ...\n"
        "    def store(self) -> 'SessionManager | None': ...\n"
        "    parts: ModelControl\n"
    )
    assert _exposed_internals(port, "SessionPort") == ["agent", "store", "parts"]
    implementation = ast.parse("class LiveSessionPort:\n    def __init__(self, s):\n        self.session = s\n")
    assert _exposed_internals(implementation, "LiveSessionPort") == ["self.session"]
    clean = ast.parse("class SessionPort(Protocol):\n    def steer(self, message: Message) -> None: ...\n")
    assert _exposed_internals(clean, "SessionPort") == []

    package = tmp_path / "pi_rpc" / "extensions"
    package.mkdir(parents=True)
    reader = package / "reader.py"
    reader.write_text("def act(host):\n    return host.port.session.append_custom_entry('x', None)\n")
    importer = package / "importer.py"
    importer.write_text("def act():\n    from pi_rpc.runtime.session import AgentSession\n")
    runtime = tmp_path / "pi_rpc" / "runtime"
    runtime.mkdir()
    user = runtime / "extension_actions.py"
    user.write_text(
        "from pi_rpc.runtime.errors import RuntimeCommandError\nfrom pi_rpc.runtime.session_port import P\n"
    )
    assert _reaches_past_the_port(user, ast.parse(user.read_text()), tmp_path) == [
        "extension_actions.py imports pi_rpc.runtime.session_port",
        "extension_actions.py imports pi_rpc.runtime.session_port.P",
    ]
    fine = package / "fine.py"
    fine.write_text("def act(host):\n    return host.session_manager.get_branch()\n")
    hits = {
        path.name: _reaches_past_the_port(path, ast.parse(path.read_text()), tmp_path)
        for path in (reader, importer, fine)
    }
    assert hits == {
        "reader.py": ["reader.py:2 .session"],
        "importer.py": [
            "importer.py imports pi_rpc.runtime.session",
            "importer.py imports pi_rpc.runtime.session.AgentSession",
        ],
        "fine.py": [],
    }

"""Structural gates of the code's shape (issue 26): the session is composed, not mixed; no class
grows past 60 methods; ``runtime/`` and ``ai/auth/`` have no import cycle (``TYPE_CHECKING`` imports count: the
dependency is there either way), and neither has the whole package nor the Python client, counting
function-local imports (issue 32 item 6); tests reach their helpers as packages, not through
``sys.path`` edits; session parts take the store as a plain value, and a replacement builds a
fresh session and disposes the old one (issue 32 item 1); ``Any`` per kloc does not rise, and the
session entries, the provider stream events and the extension events have their shape (issue 32
item 3)."""

from __future__ import annotations

import ast
import functools
import importlib
import io
import tokenize
import typing
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pi_rpc"
MAX_METHODS = 60


def _trees(folder: Path) -> dict[Path, ast.Module]:
    return {p: _parse(p) for p in sorted(folder.rglob("*.py"))}


def _parse(path: Path) -> ast.Module:
    """A repository file is parsed once for every gate that reads it (the gates only read the
    trees); a file planted in a test's tmp_path is read fresh."""
    if path.is_relative_to(ROOT):
        return _parse_repository_file(path)
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _parse_repository_file(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


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
    graph = _runtime_import_graph([(PACKAGE, ROOT), (client, client)], read=_trees)
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


# ---------------------------------------------------------------- one place per RPC command
# Issue 32 item 5: a command is one row of ``modes/wire/protocol/table.py``; the names, the
# validation, the schema and the handler registration are derived from it.

RPC = PACKAGE / "modes" / "rpc"
PROTOCOL = PACKAGE / "modes" / "wire" / "protocol"
# A --listen connection answers the stream's rows (and wraps some of the session host's) with
# its own ``ConnectionCommands``.
LISTEN_STREAM = "ConnectionCommands"


def _cmd_methods(folder: Path) -> dict[str, dict[str, str]]:
    """Class name -> {command name: where} for every ``cmd_<name>`` method defined (or assigned)
    in a class under ``folder``."""
    found: dict[str, dict[str, str]] = {}
    for path, tree in _trees(folder).items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for item in node.body:
                names: list[str] = []
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names = [item.name]
                elif isinstance(item, ast.Assign):
                    names = [t.id for t in item.targets if isinstance(t, ast.Name)]
                for name in names:
                    if name.startswith("cmd_"):
                        where = f"{path.relative_to(folder.parent)}:{item.lineno}"
                        found.setdefault(node.name, {})[name.removeprefix("cmd_")] = where
    return found


def _command_name_lists(folders: list[Path], names: set[str], skip: set[Path]) -> list[str]:
    """Collection literals (tuple, list, set, dict keys) holding two or more command names: a
    second list of commands beside the table."""
    found = []
    for folder in folders:
        for path, tree in _trees(folder).items():
            if path in skip:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Tuple | ast.List | ast.Set):
                    items: list[ast.expr | None] = list(node.elts)
                elif isinstance(node, ast.Dict):
                    items = list(node.keys)
                else:
                    continue
                hits = [i.value for i in items if isinstance(i, ast.Constant) and i.value in names]
                if len(hits) >= 2:
                    found.append(f"{path.relative_to(folder.parent)}:{node.lineno} lists {hits}")
    return found


def _command_table_problems(rows: tuple[object, ...], handler_folder: Path, request_classes: set[str]) -> list[str]:
    """Everything that breaks "one place per command" for the table ``rows``: a name declared
    twice, a row whose handler class lacks its ``cmd_<name>``, a ``cmd_*`` method no row
    reaches (or in another class than its row names), a request model no row names."""
    from pi_rpc.modes.wire.protocol.table import HOST, STREAM, CommandSpec, request_model_name

    specs = [row for row in rows if isinstance(row, CommandSpec)]
    problems = []
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            problems.append(f"command {spec.name!r} is declared twice")
        seen.add(spec.name)
    by_name = {spec.name: spec for spec in specs}
    methods = _cmd_methods(handler_folder)
    for spec in specs:
        if spec.name not in methods.get(spec.by, {}):
            problems.append(f"command {spec.name!r}: {spec.by} has no cmd_{spec.name}")
        if spec.by == STREAM and spec.name not in methods.get(LISTEN_STREAM, {}):
            problems.append(f"command {spec.name!r}: {LISTEN_STREAM} (--listen) has no cmd_{spec.name}")
    for owner, defined in methods.items():
        for name, where in defined.items():
            spec = by_name.get(name)
            if spec is None:
                problems.append(f"{where} {owner}.cmd_{name}: no command {name!r} in the table")
            elif owner != spec.by and not (owner == LISTEN_STREAM and spec.by in (STREAM, HOST)):
                problems.append(f"{where} {owner}.cmd_{name}: the table has {spec.by} answer {name!r}")
    named = [spec.request for spec in specs if spec.request is not None]
    for model in sorted(request_classes - set(named)):
        problems.append(f"request model {model} is named by no command")
    for model in sorted({m for m in named if named.count(m) > 1}):
        problems.append(f"request model {model} is named by more than one command")
    generated = {request_model_name(spec) for spec in specs if spec.request is None}
    for model in sorted(generated & request_classes):
        problems.append(f"request model {model} is declared although its command has no fields (request=None)")
    return problems


def _request_classes(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(isinstance(base, ast.Name) and base.id == "CommandBase" for base in node.bases)
    }


def test_every_rpc_command_is_one_row_of_the_command_table() -> None:
    from pi_rpc.modes.wire.protocol import commands, names, responses
    from pi_rpc.modes.wire.protocol.table import COMMANDS, HOST, SESSION_PARTS, STREAM

    assert _command_table_problems(COMMANDS, RPC, _request_classes(PROTOCOL / "commands.py")) == []
    assert {spec.by for spec in COMMANDS} <= {STREAM, HOST, *SESSION_PARTS}
    # What is derived from the rows is exactly the rows.
    assert [spec.name for spec in COMMANDS] == list(commands.INBOUND_MODELS)
    assert set(names.ACCEPTED_COMMAND_TYPES) | names.UNANSWERED_RECORD_TYPES == {spec.name for spec in COMMANDS}
    for spec in COMMANDS:
        if spec.answered:
            data = {**responses.RESPONSE_DATA, **responses.BEYOND_UPSTREAM_RESPONSE_DATA}[spec.name]
            assert (data.__name__ if data is not None else None) == spec.response, spec.name
        else:
            assert spec.response is None, spec.name
    # A row's fast check may only shortcut its model: it names model fields, and every field
    # the model requires (a command without it must never pass the fast check).
    for spec in COMMANDS:
        if spec.fast is None:
            continue
        model = commands.INBOUND_MODELS[spec.name]
        fields = {info.alias or name: info for name, info in model.model_fields.items()}
        listed = {key for key, _kind, _required in spec.fast}
        required = {key for key, _kind, req in spec.fast if req}
        assert listed <= set(fields), (spec.name, listed - set(fields))
        assert {k for k, info in fields.items() if info.is_required() and k != "type"} <= required, spec.name
    # No second list of command names beside the table (a parallel table would drift from it).
    names_set = {spec.name for spec in COMMANDS}
    folders = [RPC, PACKAGE / "modes" / "wire"]
    assert _command_name_lists(folders, names_set, {PROTOCOL / "table.py"}) == []


def test_command_table_gate_fails_on_planted_violations(tmp_path: Path) -> None:
    from pi_rpc.modes.wire.protocol.table import COMMANDS, CommandSpec

    request_classes = _request_classes(PROTOCOL / "commands.py")
    # A row declared twice, and a row without a handler.
    rows = (*COMMANDS, COMMANDS[0], CommandSpec("nap", None, None, "RuntimeBackend"))
    problems = _command_table_problems(rows, RPC, request_classes)
    assert "command 'prompt' is declared twice" in problems
    assert "command 'nap': RuntimeBackend has no cmd_nap" in problems
    # A handler no row reaches, one in another class than its row names, an orphan model, a
    # generated model also declared, a second list of names.
    planted = tmp_path / "rpc"
    planted.mkdir()
    (planted / "extra.py").write_text(
        "class RuntimeBackend:\n"
        "    async def cmd_nap(self, ctx, cmd):\n        return None\n"
        "class CatalogCommands:\n"
        "    async def cmd_get_state(self, ctx, cmd):\n        return None\n"
        'SESSION_ONLY = frozenset({"prompt", "steer"})\n'
        'ROUTES = {"abort": 1, "bash": 2}\n'
    )
    problems = _command_table_problems(COMMANDS, planted, request_classes | {"NapCommand", "GetStateCommand"})
    assert any("RuntimeBackend.cmd_nap: no command 'nap' in the table" in p for p in problems)
    assert any("CatalogCommands.cmd_get_state: the table has RuntimeBackend answer 'get_state'" in p for p in problems)
    assert "request model NapCommand is named by no command" in problems
    assert "request model GetStateCommand is declared although its command has no fields (request=None)" in problems
    lists = _command_name_lists([planted], {spec.name for spec in COMMANDS}, set())
    assert len(lists) == 2 and "['prompt', 'steer']" in lists[0] + lists[1]


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


# A replacement puts a FRESH session in place (upstream's ``AgentSessionRuntime``): no method of
# ``AgentSession`` but ``__init__`` binds what one session is made of (its store, cwd, agent and
# holder; the options change in place on an extension reload, as upstream's), and the holder's one replacement path builds the successor through the
# factory, disposes the old session and only then holds the new one.
_SESSION_IDENTITY = {"session", "cwd", "agent", "holder"}


def _rebinding_methods(cls: ast.ClassDef) -> list[str]:
    """``method: self.<name> = ...`` for every method other than ``__init__`` that rebinds one
    of the attributes that make a session what it is."""
    found = []
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name == "__init__":
            continue
        for inner in ast.walk(node):
            targets = inner.targets if isinstance(inner, ast.Assign) else []
            if isinstance(inner, ast.AnnAssign | ast.AugAssign):
                targets = [inner.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                    and target.attr in _SESSION_IDENTITY
                ):
                    found.append(f"{node.name}: self.{target.attr} = ...")
    return found


def _replacement_steps(cls: ast.ClassDef) -> list[str]:
    """The steps of the holder's ``_replace`` in their order: ``build`` (the factory's
    ``successor_session``), ``dispose`` (a ``.dispose()`` call) and ``hold`` (``self._session = ...``)."""
    (replace,) = [n for n in cls.body if isinstance(n, ast.AsyncFunctionDef) and n.name == "_replace"]
    steps: list[tuple[int, int, str]] = []
    for node in ast.walk(replace):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "successor_session":
                steps.append((node.end_lineno or 0, node.end_col_offset or 0, "build"))
            if isinstance(node.func, ast.Attribute) and node.func.attr == "dispose":
                steps.append((node.end_lineno or 0, node.end_col_offset or 0, "dispose"))
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "_session":
                    # (once its value is built: after the calls it ends with)
                    steps.append((node.end_lineno or 0, (node.end_col_offset or 0) + 1, "hold"))
    return [step for _line, _col, step in sorted(steps)]


def _class(path: Path, name: str) -> ast.ClassDef:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    return cls


def test_a_replacement_builds_a_fresh_session_and_disposes_the_old_one() -> None:
    assert _rebinding_methods(_class(PACKAGE / "runtime" / "session.py", "AgentSession")) == []
    assert _replacement_steps(_class(PACKAGE / "runtime" / "holder.py", "SessionHolder")) == [
        "build",
        "hold",
        "dispose",
    ]
    factory = ast.parse((PACKAGE / "runtime" / "factory.py").read_text(encoding="utf-8"))
    assert any(isinstance(n, ast.FunctionDef) and n.name == "successor_session" for n in factory.body)


def test_replacement_gates_see_planted_violations() -> None:
    # Today's shape before issue 32 item 1: the session adopted the new store in place.
    (mutating,) = ast.parse(
        "class AgentSession:\n"
        "    def __init__(self, options):\n"
        "        self.session = options.session\n"
        "    def adopt_store(self, store):\n"
        "        self.session = store\n"
        "    def move_to_cwd(self, cwd: str) -> None:\n"
        "        self.cwd: str = cwd\n"
    ).body
    assert isinstance(mutating, ast.ClassDef)
    assert _rebinding_methods(mutating) == ["adopt_store: self.session = ...", "move_to_cwd: self.cwd = ..."]
    (in_place,) = ast.parse(
        "class SessionHolder:\n    async def _replace(self, make):\n        self._session.adopt_store(make())\n"
    ).body
    assert isinstance(in_place, ast.ClassDef)
    assert _replacement_steps(in_place) == []
    (undisposed,) = ast.parse(
        "class SessionHolder:\n"
        "    async def _replace(self, make):\n"
        "        self._session = successor_session(self._session, make(), '.')\n"
    ).body
    assert isinstance(undisposed, ast.ClassDef)
    assert _replacement_steps(undisposed) == ["build", "hold"]


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
    for protocol in ("SessionPort", "SessionStateView", "SessionWiring"):
        assert _exposed_internals(tree, protocol) == [], protocol
    host = ast.parse((PACKAGE / "extensions" / "host.py").read_text(encoding="utf-8"))
    assert _exposed_internals(host, "SessionView") == []
    implementation = ast.parse(PORT_IMPLEMENTATION.read_text(encoding="utf-8"))
    assert _exposed_internals(implementation, "LiveSessionPort") == []
    assert _exposed_internals(implementation, "LiveSessionState") == []


# Issue 32 item 2: the port is the verbs extensions act with, plus ONE read-only view
# (``state``); what only the runtime's extension parts need is ``SessionWiring``.
PORT_MEMBERS_CEILING = 20


def _protocol_members(tree: ast.Module, class_name: str) -> list[str]:
    """The members ``class_name`` declares: methods and properties (a property with a setter
    counts once) and class-level annotations; its docstring does not count."""
    names: list[str] = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name):
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = item.name
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                name = item.target.id
            else:
                continue
            if name not in names:
                names.append(name)
    return names


def test_the_extensions_port_is_narrow() -> None:
    members = _protocol_members(ast.parse(PORT_MODULE.read_text(encoding="utf-8")), "SessionPort")
    assert "state" in members  # the read-only view is one member
    assert len(members) <= PORT_MEMBERS_CEILING, members
    # Plumbing is no extension's verb: it is ``SessionWiring``'s.
    assert not {"spawn", "emit", "emit_now", "install_tools", "tool_gate", "argument_validator"} & set(members)


def test_port_size_gate_sees_a_planted_violation() -> None:
    verbs = "".join(f"    def verb_{i}(self) -> None: ...\n" for i in range(PORT_MEMBERS_CEILING))
    wide = ast.parse(
        "class SessionPort(Protocol):\n"
        '    """Doc."""\n'
        "    @property\n    def state(self) -> View: ...\n"
        "    @state.setter\n    def state(self, value: View) -> None: ...\n"
        f"{verbs}"
    )
    members = _protocol_members(wide, "SessionPort")
    assert len(members) == PORT_MEMBERS_CEILING + 1  # the setter is not a second member
    assert len(members) > PORT_MEMBERS_CEILING  # the gate's assertion would fail
    narrow = ast.parse("class SessionPort(Protocol):\n    state: View\n    def steer(self) -> None: ...\n")
    assert _protocol_members(narrow, "SessionPort") == ["state", "steer"]


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


# --------------------------------------------------------------------------- Any per kloc
# Issue 32 item 3: ``Any`` hides the shape of data. The figure is the number of ``Any`` name
# tokens (``tokenize``: annotations, ``typing.Any``, imports; not strings or comments) over every
# ``pi_rpc/**/*.py`` file, per 1,000 physical lines of those files. It may only go down: lower
# the ceiling when it does. (An alias such as ``Json = dict[str, Any]`` still counts its one
# ``Any``, but every use of it hides one more: give the data its shape instead.)

ANY_PER_KLOC_CEILING = 24.2  # 47.4 before issue 32 item 3; 24.86 when this gate came; 24.16 typed entries/events


def _any_tokens(text: str) -> int:
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return sum(1 for tok in tokens if tok.type == tokenize.NAME and tok.string == "Any")


def _any_count(folder: Path) -> tuple[int, int, dict[str, int]]:
    """``Any`` tokens, physical lines, and the tokens per file, over ``folder``'s ``.py`` files."""
    count = lines = 0
    per_file: dict[str, int] = {}
    for path in sorted(folder.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found = _any_tokens(text)
        per_file[str(path.relative_to(folder))] = found
        count += found
        lines += len(text.splitlines())
    return count, lines, per_file


def _any_gate_failure(folder: Path, ceiling: float) -> str | None:
    count, lines, per_file = _any_count(folder)
    figure = count * 1000 / max(lines, 1)
    if figure <= ceiling:
        return None
    worst = sorted(per_file.items(), key=lambda item: -item[1])[:10]
    return f"Any per kloc is {figure:.2f} ({count} in {lines} lines), over {ceiling}; most in: {worst}"


def test_any_per_kloc_does_not_rise() -> None:
    count, lines, _ = _any_count(PACKAGE)
    assert lines > 50_000 and count > 0  # the package was read
    assert _any_gate_failure(PACKAGE, ANY_PER_KLOC_CEILING) is None


def test_any_gate_sees_a_planted_any(tmp_path: Path) -> None:
    package = tmp_path / "pi_rpc"
    package.mkdir()
    clean = package / "clean.py"
    clean.write_text('"""Any in a docstring is no token."""\n\n# Any in a comment neither\nX = "Any"\n')
    assert _any_count(package)[:2] == (0, 4)
    assert _any_gate_failure(package, 0.0) is None
    planted = package / "planted.py"
    planted.write_text(
        "import typing\nfrom typing import Any\n\n\ndef f(x: Any) -> dict[str, typing.Any]:\n    return {'k': x}\n"
    )
    assert _any_count(package)[:2] == (3, 10)
    failure = _any_gate_failure(package, ANY_PER_KLOC_CEILING)
    assert failure is not None and "planted.py" in failure


# --------------------------------------------------------------------------- shaped data
# Issue 32 item 3: the session entries, the provider stream events and the extension events are
# unions of TypedDicts, one per ``type``, not ``dict[str, Any]`` (nor any other open dict) under
# a name; the runner's ``emit`` takes the extension events. And no module brings back a local
# ``Entry = dict[...]`` (or one of the other names) next to the shaped one.

SHAPED_TYPES = {
    "pi_rpc.session.entries": ("Entry", "SessionHeader", "SessionLine"),
    "pi_rpc.ai.types": ("AssistantMessageEvent",),
    "pi_rpc.extensions.events": ("ExtensionEvent", "BoundaryEvent", "ToolExecutionEvent"),
}
SHAPED_NAMES = frozenset(name for names in SHAPED_TYPES.values() for name in names)
# Where these names mean the shaped types (``ai/auth`` and ``packages`` have their own ``Entry``).
SHAPED_FOLDERS = ("session", "compaction", "runtime", "modes", "extensions", "ai/types.py", "ai/providers", "agent")


def _open_members(alias: object) -> list[str]:
    """The parts of a type (a union's members, recursively) that are not TypedDicts."""
    if typing.get_origin(alias) is typing.Union:
        return [bad for member in typing.get_args(alias) for bad in _open_members(member)]
    return [] if typing.is_typeddict(alias) else [repr(alias)]


def _shape_failures(modules: dict[str, ModuleType | SimpleNamespace], names: dict[str, tuple[str, ...]]) -> list[str]:
    failures = []
    for module_name, aliases in names.items():
        module = modules[module_name]
        for alias in aliases:
            value = getattr(module, alias, None)
            if value is None:
                failures.append(f"{module_name}.{alias} is missing")
                continue
            failures.extend(f"{module_name}.{alias} has an open member: {bad}" for bad in _open_members(value))
    return failures


def _local_open_aliases(folder: Path, parts: tuple[str, ...]) -> list[str]:
    """``<shaped name> = dict[...]`` / ``Mapping[...]`` / ``Any`` assignments under ``parts`` of ``folder``."""
    found = []
    for part in parts:
        target = folder / part
        files = [target] if target.suffix == ".py" else sorted(target.rglob("*.py"))
        for path in files:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    value = node.value
                    if value is None or not any(isinstance(t, ast.Name) and t.id in SHAPED_NAMES for t in targets):
                        continue
                    head = value.value if isinstance(value, ast.Subscript) else value
                    if isinstance(head, ast.Name) and head.id in ("dict", "Dict", "Mapping", "Any"):
                        found.append(f"{path.relative_to(folder)}:{node.lineno} {ast.unparse(node)}")
    return found


def test_entries_and_events_have_their_shape() -> None:
    modules = {name: importlib.import_module(name) for name in SHAPED_TYPES}
    assert _shape_failures(modules, SHAPED_TYPES) == []
    assert _local_open_aliases(PACKAGE, SHAPED_FOLDERS) == []


def test_the_runner_emits_the_extension_events() -> None:
    from pi_rpc.extensions import events
    from pi_rpc.extensions.runner import ExtensionRunner

    hints = typing.get_type_hints(ExtensionRunner.emit, localns=vars(events))
    assert hints["event"] == events.ExtensionEvent
    boundary = typing.get_type_hints(ExtensionRunner.emit_boundary, localns=vars(events))
    assert boundary["base_event"] == events.BoundaryEvent


def test_shape_gates_see_planted_violations(tmp_path: Path) -> None:
    class Shaped(typing.TypedDict):
        type: typing.Literal["shaped"]

    planted = SimpleNamespace(
        Entry=dict[str, typing.Any],  # the alias the issue names
        AssistantMessageEvent=typing.Union[Shaped, dict[str, object]],  # one open member hides in a union
        ExtensionEvent=typing.Union[Shaped, Shaped],
    )
    names = {"planted": ("Entry", "AssistantMessageEvent", "ExtensionEvent", "BoundaryEvent")}
    assert _shape_failures({"planted": planted}, names) == [
        "planted.Entry has an open member: dict[str, typing.Any]",
        "planted.AssistantMessageEvent has an open member: dict[str, object]",
        "planted.BoundaryEvent is missing",
    ]
    package = tmp_path / "pi_rpc"
    (package / "session").mkdir(parents=True)
    (package / "session" / "local.py").write_text(
        "from typing import Any\n\nEntry = dict[str, Any]\nExtensionEvent: object = Mapping[str, object]\nOther = dict[str, Any]\n"
    )
    (package / "session" / "fine.py").write_text("from pi_rpc.session.entries import Entry\n\nRows = list[Entry]\n")
    assert _local_open_aliases(package, ("session",)) == [
        "session/local.py:3 Entry = dict[str, Any]",
        "session/local.py:4 ExtensionEvent: object = Mapping[str, object]",
    ]

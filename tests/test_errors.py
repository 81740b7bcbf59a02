"""The exception tree drawn in ``pi_rpc.errors``'s docstring is the one the classes form, and
every exception class of the modules that hold its branches is drawn in it."""

from __future__ import annotations

import importlib
import inspect
import re

import pi_rpc.errors

# The modules the docstring names for the branches (and the root module itself).
MODULES = (
    "pi_rpc.errors",
    "pi_rpc.config.cli_args",
    "pi_rpc.session.errors",
    "pi_rpc.compaction.errors",
    "pi_rpc.mcp.connection",
)


def _classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                found[attr] = value
    return found


def _drawn_tree() -> dict[str, str | None]:
    """name -> parent name, from the docstring's drawing (4 columns per level)."""
    doc = pi_rpc.errors.__doc__ or ""
    lines = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    parents: dict[str, str | None] = {}
    stack: list[str] = []
    for line in lines:
        body = line[4:]  # the block's indentation
        match = re.search(r"([├└]── )?([A-Z][A-Za-z]+)", body)
        if match is None or (match.group(1) is None and match.start() != 0):
            continue  # a continuation line
        depth = match.start(2) // 4
        name = match.group(2)
        del stack[depth:]
        parents[name] = stack[-1] if stack else None
        stack.append(name)
    return parents


def test_the_drawn_tree_is_the_class_tree() -> None:
    classes = _classes()
    tree = _drawn_tree()
    assert tree["PiError"] is None and len(tree) > 20
    assert set(tree) <= set(classes), set(tree) - set(classes)
    for name, parent in tree.items():
        if parent is not None:
            assert classes[parent] in classes[name].__bases__, (name, parent)


def test_every_exception_of_the_branch_modules_is_drawn() -> None:
    tree = _drawn_tree()
    missing = [name for name, cls in _classes().items() if issubclass(cls, pi_rpc.errors.PiError) and name not in tree]
    assert missing == []
    outside = [name for name, cls in _classes().items() if not issubclass(cls, pi_rpc.errors.PiError)]
    assert outside == []  # no exception of these modules outside the tree


def test_the_sdk_names_are_the_same_types() -> None:
    from pi_rpc.modes.rpc.registry import CommandError
    from pi_rpc.runtime import RuntimeCommandError, StartupProblem

    assert RuntimeCommandError is CommandError is pi_rpc.errors.CommandError
    assert StartupProblem is pi_rpc.errors.StartupError

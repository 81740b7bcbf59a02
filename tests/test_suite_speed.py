"""The suite's own speed helpers (issue 32 item 7): the long tests spread over the xdist workers'
first shares (``tests.support.long_tests``) and pytest's rewritten modules written once before
the workers start (``tests.support.assert_cache``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.assert_cache import write_rewritten_modules
from tests.support.long_tests import LONG_TESTS, order_for_workers, slice_sizes


def test_slice_sizes_are_worksteals_first_distribution() -> None:
    assert slice_sizes(10, 4) == [2, 2, 3, 3]
    assert slice_sizes(2742, 4) == [685, 685, 686, 686]
    assert sum(slice_sizes(7, 3)) == 7


def test_each_workers_share_starts_with_its_part_of_the_long_tests() -> None:
    long = sorted(LONG_TESTS, key=lambda name: -LONG_TESTS[name])[:8]
    items = [f"tests/a.py::t{i}" for i in range(100)] + long + [f"tests/b.py::t{i}" for i in range(40)]
    ordered = order_for_workers(items, lambda name: name, 4)
    assert sorted(ordered) == sorted(items)
    starts, shares = 0, []
    for size in slice_sizes(len(items), 4):
        shares.append(ordered[starts : starts + size])
        starts += size
    loads = []
    for share in shares:
        heads = [name for name in share if name in LONG_TESTS]
        assert heads and heads == share[: len(heads)]  # the long tests first
        assert heads == sorted(heads, key=lambda name: -LONG_TESTS[name])
        loads.append(sum(LONG_TESTS[name] for name in heads))
    assert max(loads) - min(loads) <= LONG_TESTS[long[0]]  # balanced by their seconds
    # the longest test and the next go to different workers; the rest keep their order
    assert shares[0][0] == long[0] and long[1] not in shares[0]
    rest = [name for name in ordered if name not in LONG_TESTS]
    assert rest == [name for name in items if name not in LONG_TESTS]


def test_one_worker_keeps_the_collected_order() -> None:
    items = ["x", *LONG_TESTS, "y"]
    assert order_for_workers(items, lambda name: name, 1) == items
    assert order_for_workers(["x", "y"], lambda name: name, 4) == ["x", "y"]


def test_rewritten_modules_are_written_where_pytest_reads_them(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, get_cache_dir

    module = tmp_path / "test_planted.py"
    module.write_text("def test_x():\n    value = 1\n    assert value == 2\n")
    helper = tmp_path / "helper.py"  # not a test module: left alone
    helper.write_text("X = 1\n")
    if request.config.getoption("assertmode") != "rewrite":
        pytest.skip("assertions are not rewritten in this run (--assert=plain)")
    assert write_rewritten_modules(request.config, [tmp_path]) >= 1
    pyc = get_cache_dir(module) / (module.name[:-3] + PYC_TAIL)
    code = _read_pyc(module, pyc)
    assert code is not None
    function = next(c for c in code.co_consts if getattr(c, "co_name", None) == "test_x")
    assert any(name.startswith("@py_assert") for name in function.co_varnames)  # rewritten
    assert not list(get_cache_dir(helper).glob("helper*" + PYC_TAIL))
    assert write_rewritten_modules(request.config, [tmp_path]) == 0  # already there: nothing to do


def test_each_worker_writes_only_its_share(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    from _pytest.assertion.rewrite import PYC_TAIL, get_cache_dir

    if request.config.getoption("assertmode") != "rewrite":
        pytest.skip("assertions are not rewritten in this run (--assert=plain)")
    modules = [tmp_path / f"test_m{i}.py" for i in range(4)]
    for module in modules:
        module.write_text("def test_x():\n    assert 1\n")

    def cached() -> set[str]:
        return {p.name.split(".")[0] for p in get_cache_dir(modules[0]).glob("test_m*" + PYC_TAIL)}

    # the plugin packages are the run's own (already written or not): count only the planted
    write_rewritten_modules(request.config, [tmp_path], (1, 2))
    assert len(cached()) == 2
    write_rewritten_modules(request.config, [tmp_path], (0, 2))
    assert cached() == {"test_m0", "test_m1", "test_m2", "test_m3"}

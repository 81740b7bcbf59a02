"""Fixtures every test folder can use (helpers live in ``tests/support`` and are imported from
there, ``from tests.support.pi_process import ...``, never from a conftest):

- ``spawn_pi(*args, env=None, mode="rpc", faux=True)``: the REAL ``python -m pi_rpc`` with an
  isolated ``PI_CODING_AGENT_DIR``/HOME/cwd under tmp (``tests.support.pi_process.PiProcess``).
- ``pi(**kwargs)``: ``pi --mode rpc`` in its own dir under tmp, with settings, models, a faux
  script and files written there first (``tests.support.pi_process.start_in``). ``tests/runtime``
  overrides it with the same server run in the test process (``tests.support.in_process``) and
  keeps the real process as ``pi_process``.
- ``pi_environ(extra=None, faux=True)``: the isolated environment ``spawn_pi`` uses.
- ``store_kind``: a test taking it runs once per session backend, the JSONL files, a SQLite session
  database in tmp and a database of its own on a real PostgreSQL server
  (``tests.support.session_stores.StoreKind``; a module runs its subprocess tests on each by
  overriding ``pi`` with ``store_kind.starter(pi)``).
- ``postgres_server``: one real PostgreSQL server per test worker (``tests.support.
  postgres_server``), started on first use; skipped, with the reason, when no server binary
  is installed.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import npm_registry, upstream
from tests.support.assert_cache import write_rewritten_modules
from tests.support.long_tests import order_for_workers
from tests.support.pi_process import PiProcess, isolated_env, start_in

_UPSTREAM_INSTALL = pytest.StashKey[upstream.PendingInstall]()
_REGISTRY_INSTALL = pytest.StashKey[threading.Thread | None]()
# set while the controlling process installs upstream: the lock its install holds
_INSTALL_LOCK_VAR = "PI_RPC_TEST_UPSTREAM_INSTALL_LOCK"


def pytest_configure(config: pytest.Config) -> None:
    """Install upstream pi 1.6 for the side-by-side tests (once, in the controlling process: xdist
    workers and every subprocess inherit ``PI_UPSTREAM_NODE_DIR``), and the package tests' npm
    registry when the run includes them. An xdist worker writes its share of pytest's rewritten
    modules before it collects (``tests.support.assert_cache``)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        worker = int("".join(ch for ch in str(workerinput["workerid"]) if ch.isdigit()) or 0)
        write_rewritten_modules(config, [Path(__file__).resolve().parent], (worker, int(workerinput["workercount"])))
        return
    install = upstream.start_install()  # (in a thread: npm fetches while the rest starts)
    if install.folder is not None:
        os.environ[upstream.ENV_VAR] = str(install.folder)
    if install.lock_path is not None:
        os.environ[_INSTALL_LOCK_VAR] = str(install.lock_path)
    if _runs_tests_under(config, Path(__file__).resolve().parent / "packages"):
        # (the package tests' registry: npm ci on the core the upstream install leaves idle)
        config.stash[_REGISTRY_INSTALL] = npm_registry.start_install()
    _compile_the_sources()
    config.stash[_UPSTREAM_INSTALL] = install


def _runs_tests_under(config: pytest.Config, folder: Path) -> bool:
    """Whether one of the run's paths is ``folder``, inside it or holds it (no paths: the
    whole suite)."""
    paths = [Path(str(arg).split("::")[0]).resolve() for arg in config.args] or [Path(str(config.rootpath))]
    return any(path == folder or folder in path.parents or path in folder.parents for path in paths)


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """Before any test module is imported (their skip conditions look for upstream), wait for
    the install ``pytest_configure`` started: in each xdist worker, after it started and wrote
    its rewritten modules, and in a run without workers."""
    lock_path = os.environ.get(_INSTALL_LOCK_VAR)
    if lock_path:
        upstream.wait_for_install(lock_path)


def _compile_the_sources() -> None:
    """Byte-compile this checkout once, before any worker starts. The suite spawns well over a
    thousand ``python -m pi_rpc`` processes; an editable install leaves the package uncompiled,
    and where ``PYTHONDONTWRITEBYTECODE`` is set (as on the CI machines) no process would ever
    write the cache, so each one compiled the whole package from source again: measured 1.6 s of
    CPU per start against 0.3 s with the cache. Files already compiled and unchanged are skipped."""
    import compileall
    import re

    root = Path(__file__).resolve().parents[1]
    fixtures = re.compile(r"[/\\]fixtures[/\\]")  # copied into tests as they are: no __pycache__ in them
    for folder in ("pi_rpc", "clients/python", "tests", "bench", "protocol"):
        if (root / folder).is_dir():
            compileall.compile_dir(root / folder, quiet=2, workers=0, rx=fixtures)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """One loud line, the run's last, when the comparisons with upstream did not run, with how
    many were skipped."""
    registry_install = config.stash.get(_REGISTRY_INSTALL, None)
    if registry_install is not None:
        registry_install.join()  # (a short run may end first: npm ci is not left half done)
    terminalreporter = config.pluginmanager.get_plugin("terminalreporter")
    install = config.stash.get(_UPSTREAM_INSTALL, None)
    status = install.result()[1] if install is not None else None
    if terminalreporter is None:
        return
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "upstream" in str(getattr(r, "longrepr", ""))]
    if status is None or (upstream.available() and not skipped):
        return
    terminalreporter.write_line(
        f"UPSTREAM COMPARISONS NOT RUN: {len(skipped)} tests skipped because upstream pi 1.6 is missing ({status})",
        red=True,
        bold=True,
    )


@pytest.fixture
def pi_environ(tmp_path: Path) -> Callable[..., dict[str, str]]:
    """``pi_environ(extra=None, faux=True)`` -> the isolated environment ``spawn_pi`` uses."""
    return lambda extra=None, faux=True: isolated_env(tmp_path, extra, faux=faux)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (the project's default): three workers per usable core. Most tests spend their
    time waiting on a subprocess (a spawned pi, a stub server, upstream's Node), so a core
    serves several: on 2 cores the suite took 457 s with 4 workers against 586 s with 2, and
    later 338.7 s with 6 against 367.9 s with 4 (the CPU busy 95% of the run against 79%)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 3 * cores


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist's ``worksteal`` (pyproject's addopts) each worker's slice of the tests starts
    with its share of the known long ones (``tests.support.long_tests``), so no minute-long test
    starts when the others are done. Every worker computes the same order (xdist requires it)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get("pi_dist") == "worksteal":
        items[:] = order_for_workers(items, lambda item: item.nodeid, int(workerinput["workercount"]))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Tell each xdist worker the distribution mode (a worker's own ``--dist`` reads "no")."""
    node.workerinput["pi_dist"] = node.config.getoption("dist", None)


@pytest.fixture
def spawn_pi(tmp_path: Path) -> Iterator[Callable[..., PiProcess]]:
    """``spawn_pi(*args, env=None, mode="rpc", faux=True)`` -> ``PiProcess`` (killed at teardown)."""
    procs: list[PiProcess] = []

    def spawn(*args: str, env: dict[str, str] | None = None, mode: str | None = "rpc", faux: bool = True) -> PiProcess:
        cwd = tmp_path / "cwd"
        cwd.mkdir(exist_ok=True)
        argv = [sys.executable, "-m", "pi_rpc"]
        if mode is not None:
            argv += ["--mode", mode]
        argv += list(args)
        proc = PiProcess(argv, isolated_env(tmp_path, env, faux=faux), cwd, agent_dir=tmp_path / "agent")
        procs.append(proc)
        return proc

    yield spawn
    for proc in procs:
        proc.kill()


@pytest.fixture
def pi(tmp_path: Path) -> Iterator[Callable[..., PiProcess]]:
    """``pi(**kwargs)`` starts ``start_in(tmp_path / "p<n>", **kwargs)``; all are killed at teardown."""
    procs: list[PiProcess] = []

    def start(**kwargs: Any) -> PiProcess:
        proc = start_in(tmp_path / f"p{len(procs)}", **kwargs)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        proc.kill()


@pytest.fixture
def anyio_backend() -> str:
    """Every anyio test runs on asyncio (the backend pi_rpc runs on)."""
    return "asyncio"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """A real PostgreSQL server for this worker (stopped at the end)."""
    from tests.support.postgres_server import SKIP_REASON, PostgresServer, find_binaries

    if find_binaries() is None:
        pytest.skip(SKIP_REASON)
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.destroy()


_pg_databases = iter(range(1, 1 << 30))


@pytest.fixture
def postgres_empty_url(request: pytest.FixtureRequest) -> str:
    """An empty database on the worker's server (pi creates its schema): its URL, password
    included."""
    server = request.getfixturevalue("postgres_server")
    name = f"t{next(_pg_databases)}"
    server.psql(f"CREATE DATABASE {name} OWNER pi")
    return str(server.url(database=name))


@pytest.fixture
def postgres_url(request: pytest.FixtureRequest) -> str:
    """A fresh database with pi's schema (copied from a template pi migrated once per worker:
    creating the schema and pg_trgm for every test would cost seconds on a loaded machine)."""
    server = request.getfixturevalue("postgres_server")
    if not getattr(server, "pi_template", False):
        from pi_rpc.session.postgres_locator import target_from_conninfo
        from pi_rpc.session.postgres_store import connect, migrate

        server.psql("CREATE DATABASE pi_template OWNER pi")
        target = target_from_conninfo(server.url(database="pi_template"))
        with connect(target) as conn:
            migrate(conn, target.display)
        server.pi_template = True
    name = f"t{next(_pg_databases)}"
    server.psql(f"CREATE DATABASE {name} TEMPLATE pi_template OWNER pi")
    return str(server.url(database=name))


@pytest.fixture(params=("jsonl", "sqlite", "postgres"))
def store_kind(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The JSONL files, a session database at ``tmp_path/sessions.db``, a PostgreSQL database."""
    from tests.support.session_stores import StoreKind  # (loads the session package)

    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    return StoreKind(request.param, tmp_path, url)

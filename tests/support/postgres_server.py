"""A real PostgreSQL server for the tests (and ``bench/``): ``initdb`` into a temp dir, started
with ``pg_ctl`` on 127.0.0.1 at a free port (and a Unix socket in the same dir), stopped after.

The binaries come from Debian's ``postgresql`` package (``/usr/lib/postgresql/<v>/bin``, which
``.ci/run`` installs when missing) or from ``PATH``. PostgreSQL refuses to run as root: as root
the cluster is created and run as the ``postgres`` system user (``runuser``), its folder handed
to that user. ``find_binaries()`` is None when no server can be found: the tests that need one
skip with that reason.

The cluster has a password-protected role ``pi`` (password ``PASSWORD``, md5/scram over TCP)
owning the database ``pi``: the URLs tests give pi carry that password, so a test can check
it never comes out again.

Standard library only (``bench/`` imports it with the repository root on ``sys.path``).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PASSWORD = "pg-Secret-7c1f9e"  # a sentinel a test can grep for
ROLE = "pi"
DATABASE = "pi"


def find_binaries() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``, newest version first."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version_key, reverse=True)
    found = shutil.which("pg_ctl")
    if found:
        candidates.append(str(Path(found).parent))
    for folder in candidates:
        if all(os.access(os.path.join(folder, name), os.X_OK) for name in ("initdb", "pg_ctl", "postgres")):
            return Path(folder)
    return None


def _version_key(path: str) -> int:
    try:
        return int(Path(path).parent.name)
    except ValueError:
        return 0


SKIP_REASON = (
    "no PostgreSQL server binaries (initdb/pg_ctl/postgres) found in /usr/lib/postgresql/*/bin or PATH:"
    " install Debian's postgresql package (.ci/run does)"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One throwaway cluster. ``start()`` / ``stop()`` / ``start()`` again keep its data and port."""

    def __init__(self, root: Path | None = None, *, bin_dir: Path | None = None, durable: bool = False) -> None:
        found = bin_dir or find_binaries()
        if found is None:
            raise RuntimeError(SKIP_REASON)
        self.bin = found
        self._own_root = root is None
        self.root = Path(root or tempfile.mkdtemp(prefix="pi-pg-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.data = self.root / "data"
        self.port = _free_port()
        self.host = "127.0.0.1"
        # As root the server runs as the postgres system user.
        self._user = "postgres" if os.geteuid() == 0 else None
        self._initialised = False
        # Tests turn fsync off (a throwaway cluster); a benchmark keeps the server's durability.
        self._durable = durable

    # ------------------------------------------------------------------ urls

    def url(self, *, password: bool = True, database: str = DATABASE) -> str:
        """``postgresql://pi:<password>@127.0.0.1:<port>/<database>`` (without the password: a
        URL that needs ``PGPASSWORD`` or ``~/.pgpass``)."""
        auth = f"{ROLE}:{PASSWORD}" if password else ROLE
        return f"postgresql://{auth}@{self.host}:{self.port}/{database}"

    def conninfo(self) -> str:
        return f"host={self.host} port={self.port} dbname={DATABASE} user={ROLE} password={PASSWORD}"

    # ------------------------------------------------------------------ lifecycle

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = list(argv)
        if self._user is not None:
            cmd = ["runuser", "-u", self._user, "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120)
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[:2])} failed ({done.returncode}): {done.stderr.strip()}")
        return done

    def _init(self) -> None:
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
            os.chmod(self.root, 0o700)
        pwfile = self.root / "pw"
        pwfile.write_text("bootstrap\n")
        if self._user is not None:
            os.chown(pwfile, pwd.getpwnam(self._user).pw_uid, -1)
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            f"--pwfile={pwfile}",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        pwfile.unlink()
        conf = (
            f"listen_addresses = '{self.host}'\n"
            f"unix_socket_directories = '{self.root}'\n"
            # A throwaway cluster: the machine's durability is not under test.
            + ("" if self._durable else "fsync = off\nfull_page_writes = off\n")
            + "max_connections = 200\n"
            "shared_buffers = 64MB\n"
            "logging_collector = off\n"
        )
        with open(self.data / "postgresql.conf", "a") as f:
            f.write(conf)
        self._initialised = True

    def start(self) -> PostgresServer:
        if not self._initialised:
            self._init()
            fresh = True
        else:
            fresh = False
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-o",
            f"-p {self.port}",
            "-w",
            "-t",
            "60",
            "start",
        )
        if fresh:
            self.psql(f"CREATE ROLE {ROLE} LOGIN PASSWORD '{PASSWORD}'")
            self.psql(f"CREATE DATABASE {DATABASE} OWNER {ROLE}")
        return self

    def psql(self, sql: str, *, database: str = "postgres") -> str:
        """Run SQL as the superuser over the Unix socket; stdout."""
        done = self._run(
            str(self.bin / "psql"),
            "-h",
            str(self.root),
            "-p",
            str(self.port),
            "-U",
            "postgres",
            "-d",
            database,
            "-v",
            "ON_ERROR_STOP=1",
            "-qAtc",
            sql,
        )
        return done.stdout

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def running(self) -> bool:
        return self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "status", check=False).returncode == 0

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((self.host, self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"PostgreSQL on port {self.port} did not come up")

    def destroy(self) -> None:
        self.stop("immediate")
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def reset_database(self) -> None:
        """Drop and recreate the ``pi`` database (a clean store for the next test)."""
        self.psql(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{DATABASE}'"
            " AND pid <> pg_backend_pid()"
        )
        self.psql(f"DROP DATABASE IF EXISTS {DATABASE}")
        self.psql(f"CREATE DATABASE {DATABASE} OWNER {ROLE}")

    def log_text(self) -> str:
        try:
            return (self.root / "server.log").read_text(errors="replace")
        except OSError:
            return ""


__all__ = ["DATABASE", "PASSWORD", "ROLE", "SKIP_REASON", "PostgresServer", "find_binaries"]

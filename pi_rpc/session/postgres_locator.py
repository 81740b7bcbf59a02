"""Naming sessions on a PostgreSQL server without naming a credential.

A locator is ``postgres://<host>[:<port>]/<dbname>#<session id>``: the server and database a
session lives in, never the user or password (a locator is shown to clients and written into
session files; a credential never is). The host is percent-encoded when it is a Unix socket
folder (``postgres://%2Fvar%2Frun%2Fpostgresql/pi#<id>``); the port is left out when it is 5432.

A ``Target`` is how to connect: the conninfo the operator configured (``--session-db`` /
``sessionDatabase``: a URL or a ``key=value`` string, with libpq's environment,
``PGSERVICE`` and ``~/.pgpass`` filling the rest) and the identity it resolves to (host, port,
database), which the locator shows. A locator naming a database nobody configured connects
with libpq's defaults (its host, port and database, and whatever ``PGUSER``/``~/.pgpass`` say).

Nothing here imports psycopg until a conninfo is parsed, so recognising a locator is cheap.
"""

from __future__ import annotations

import configparser
import getpass
import hashlib
import os
import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

LOCATOR_PREFIX = "postgres://"
DEFAULT_PORT = 5432
# Debian's (and most builds') compiled-in socket folder: libpq's host when none is given.
DEFAULT_SOCKET_DIR = "/var/run/postgresql"


def is_locator(value: str) -> bool:
    return value.startswith(LOCATOR_PREFIX)


def looks_like_conninfo(value: str) -> bool:
    """A PostgreSQL conninfo: a ``postgres(ql)://`` URL or ``key=value`` pairs."""
    return value.startswith(("postgres://", "postgresql://")) or bool(re.match(r"^\s*\w+\s*=", value))


@dataclass(frozen=True)
class Target:
    """A database to connect to: ``conninfo`` (may hold a password: never shown) and the
    identity a locator names it by."""

    host: str
    port: int
    dbname: str
    conninfo: str
    password: str | None = None

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.host, self.port, self.dbname)

    @property
    def display(self) -> str:
        """``postgres://<host>[:port]/<dbname>``: how messages name the database."""
        return _base(self.host, self.port, self.dbname)


def _base(host: str, port: int, dbname: str) -> str:
    shown = quote(host, safe="") if "/" in host or "@" in host or "#" in host else host
    if ":" in host and not host.startswith("["):
        shown = f"[{host}]"  # IPv6
    port_part = "" if port == DEFAULT_PORT else f":{port}"
    return f"{LOCATOR_PREFIX}{shown}{port_part}/{quote(dbname, safe='')}"


def make_locator(target: Target, session_id: str) -> str:
    return f"{target.display}#{session_id}"


def parse_locator(locator: str) -> tuple[tuple[str, int, str], str]:
    """``((host, port, dbname), session id)``. A locator carrying a user or password is
    refused (without echoing it)."""
    if not is_locator(locator):
        raise ValueError("not a PostgreSQL session locator")
    rest = locator[len(LOCATOR_PREFIX) :]
    where, sep, session_id = rest.partition("#")
    if not sep or not session_id:
        raise ValueError("PostgreSQL session locator without '#<session id>'")
    authority, slash, dbname = where.partition("/")
    if "@" in authority:
        raise ValueError("a PostgreSQL session locator names no user or password: postgres://<host>[:port]/<db>#<id>")
    if not slash or not dbname or not authority:
        raise ValueError("PostgreSQL session locator must be postgres://<host>[:port]/<dbname>#<session id>")
    host, port = _split_host_port(authority)
    return (host, port, unquote(dbname)), session_id


def _split_host_port(authority: str) -> tuple[str, int]:
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, colon, port_text = authority.rpartition(":")
        if not colon:
            host, port_text = authority, ""
    if port_text and not port_text.isdigit():
        raise ValueError("PostgreSQL session locator with a bad port")
    return unquote(host), int(port_text) if port_text else DEFAULT_PORT


def canonical(locator: str) -> str:
    (host, port, dbname), session_id = parse_locator(locator)
    return f"{_base(host, port, dbname)}#{session_id}"


def advisory_key(session_id: str) -> int:
    """The signed 64-bit key of a session's writer lock (``pg_try_advisory_lock(bigint)``)."""
    digest = hashlib.sha256(b"pi-session:" + session_id.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def redact(text: str, target: Target | None = None) -> str:
    """``text`` with the password of ``target`` (and any ``user:password@`` of a URL, any
    ``password=...`` pair) replaced by ``***``."""
    if target is not None and target.password:
        text = text.replace(target.password, "***")
    text = re.sub(r"(postgres(?:ql)?://[^:/@\s]*):[^@/\s]*@", r"\1:***@", text)
    return re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", text, flags=re.IGNORECASE)


# ---------------------------------------------------------------------- conninfo -> target


def _service_params(name: str) -> dict[str, str]:
    """The keys of service ``name`` from the service files libpq reads (user file first)."""
    files = []
    if os.environ.get("PGSERVICEFILE"):
        files.append(os.environ["PGSERVICEFILE"])
    else:
        files.append(os.path.expanduser("~/.pg_service.conf"))
    sysconf = os.environ.get("PGSYSCONFDIR", "/etc/postgresql-common")
    files.append(os.path.join(sysconf, "pg_service.conf"))
    for path in files:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(path)
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        if parser.has_section(name):
            return {key: value for key, value in parser.items(name)}
    return {}


def target_from_conninfo(conninfo: str) -> Target:
    """The database ``conninfo`` names, filled in as libpq fills it (service file, then the
    ``PG*`` environment, then compiled defaults). Raises ``ValueError`` for a conninfo libpq
    cannot parse (the message carries no password)."""
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = {k: str(v) for k, v in conninfo_to_dict(conninfo).items() if v is not None}
    except ProgrammingError as exc:
        raise ValueError(f"invalid PostgreSQL conninfo: {redact(str(exc).splitlines()[0])}") from None
    service = params.get("service") or os.environ.get("PGSERVICE")
    if service:
        for key, value in _service_params(service).items():
            params.setdefault(key, value)
    host = params.get("host") or params.get("hostaddr") or os.environ.get("PGHOST") or os.environ.get("PGHOSTADDR")
    user = params.get("user") or os.environ.get("PGUSER") or _os_user()
    dbname = params.get("dbname") or os.environ.get("PGDATABASE") or user
    port_text = params.get("port") or os.environ.get("PGPORT") or str(DEFAULT_PORT)
    try:
        port = int(port_text.split(",")[0])
    except ValueError:
        raise ValueError("invalid PostgreSQL conninfo: bad port") from None
    return Target(
        host=host or DEFAULT_SOCKET_DIR,
        port=port,
        dbname=dbname,
        conninfo=conninfo,
        password=params.get("password") or None,
    )


def target_for_locator(key: tuple[str, int, str]) -> Target:
    """A database only a locator names: libpq's defaults supply user and password."""
    from psycopg.conninfo import make_conninfo

    host, port, dbname = key
    return Target(host=host, port=port, dbname=dbname, conninfo=make_conninfo(host=host, port=port, dbname=dbname))


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "postgres"


__all__ = [
    "LOCATOR_PREFIX",
    "Target",
    "advisory_key",
    "canonical",
    "is_locator",
    "looks_like_conninfo",
    "make_locator",
    "parse_locator",
    "redact",
    "target_for_locator",
    "target_from_conninfo",
]

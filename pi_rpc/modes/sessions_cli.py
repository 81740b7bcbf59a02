"""``pi sessions``: move sessions between JSONL files and a session database without
starting a session (``session.transfer`` does the work; this module reads the arguments
and the settings, prints one line per session and sets the exit code).

- ``import [--db PATH] SRC...``: session files, or folders of them (a sessions root), into
  the database; ``imported <id> from <file>``, or ``skipped <id> from <file>: already in
  <db>``.
- ``export [--db PATH] --out DIR [SESSION_ID...]``: sessions (all when none is named) as
  JSONL files under ``DIR``, named and foldered as under the JSONL store's sessions root;
  ``exported <id> to <file>``.

The database is ``--db``, else the ``sessionDatabase`` setting, else
``<agentDir>/sessions.db``. Errors go to stderr as ``error: ...``; the exit code is 1 when
anything failed, 2 for a usage error, 0 otherwise.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pi_rpc.config import paths
from pi_rpc.config.settings import Settings

USAGE = """Usage:
  pi sessions import [--db PATH|URL] SRC...
  pi sessions export [--db PATH|URL] --out DIR [SESSION_ID...]

Move sessions between JSONL files and a session database (SQLite, or PostgreSQL), losslessly.

Commands:
  import SRC...        Import session files, or every *.jsonl file under a folder
                       (e.g. ~/.pi/agent/sessions); a session already in the database is skipped
  export               Write sessions as JSONL files under DIR, named and foldered as pi's
                       sessions folder (<DIR>/--<cwd>--/<timestamp>_<id>.jsonl); all when no id is given

Options:
  --db PATH|URL        The session database: a SQLite file, or a PostgreSQL URL or conninfo
                       (postgres://host/db, "host=... dbname=..."; credentials from it, PGPASSWORD
                       or ~/.pgpass, never printed). Default: the sessionDatabase setting (with
                       sessionStore "postgres": that conninfo, else libpq's PG* environment),
                       else <agentDir>/sessions.db
  --out DIR            export: the folder to write into (it plays pi's sessions folder)
  -h, --help           Show this help
"""


class _Usage(Exception):
    pass


def _parse(argv: Sequence[str]) -> tuple[str, str | None, str | None, list[str]]:
    """``(command, db, out, positionals)``."""
    if not argv:
        raise _Usage("missing subcommand (import or export)")
    if argv[0] in ("-h", "--help", "help"):
        raise _Usage("")
    command, rest = argv[0], list(argv[1:])
    if command not in ("import", "export"):
        raise _Usage(f"unknown subcommand {command!r}")
    db: str | None = None
    out: str | None = None
    positionals: list[str] = []
    options_done = False
    i = 0
    while i < len(rest):
        arg = rest[i]
        if options_done or not arg.startswith("-") or arg == "-":
            positionals.append(arg)
        elif arg == "--":
            options_done = True
        elif arg in ("-h", "--help"):
            raise _Usage("")
        elif arg in ("--db", "--out") or arg.startswith(("--db=", "--out=")):
            name, eq, value = arg.partition("=")
            if not eq:
                if i + 1 >= len(rest):
                    raise _Usage(f"{name} needs a value")
                i += 1
                value = rest[i]
            if name == "--db":
                db = value
            elif command == "export":
                out = value
            else:
                raise _Usage("--out is an option of export")
        else:
            raise _Usage(f"unknown option {arg}")
        i += 1
    if command == "import" and not positionals:
        raise _Usage("import needs at least one session file or folder")
    if command == "export" and out is None:
        raise _Usage("export needs --out DIR")
    return command, db, out, positionals


def _resolve(path: str, cwd: str) -> str:
    expanded = paths.expand_tilde(path)
    return os.path.abspath(expanded if os.path.isabs(expanded) else os.path.join(cwd, expanded))


def default_database(settings: Settings, agent: Path, cwd: str) -> str:
    """The ``sessionDatabase`` setting (a SQLite path relative to the cwd, or a PostgreSQL
    conninfo as written), else libpq's environment (``sessionStore: "postgres"``: the empty
    conninfo), else ``<agentDir>/sessions.db``."""
    from pi_rpc.session.postgres_locator import looks_like_conninfo

    typed = getattr(settings, "session_database", None)
    value = typed if isinstance(typed, str) else settings.get("sessionDatabase")
    if isinstance(value, str) and value:
        return value if looks_like_conninfo(value) else _resolve(value, cwd)
    if settings.get("sessionStore") == "postgres":
        return POSTGRES_ENVIRONMENT
    return str(agent / "sessions.db")


# The conninfo that leaves everything to libpq's environment (PGHOST, PGSERVICE, ...): "",
# spelled so ``looks_like_conninfo`` knows it.
POSTGRES_ENVIRONMENT = "postgresql://"


def _warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def run_sessions_command(argv: Sequence[str]) -> int:
    try:
        command, db, out, positionals = _parse(argv)
    except _Usage as exc:
        if str(exc):
            sys.stderr.write(f"error: {exc}\n\n{USAGE}")
            return 2
        sys.stdout.write(USAGE)
        return 0

    from pi_rpc.session import transfer  # (the session layer only when a command runs)
    from pi_rpc.session.errors import SessionError

    cwd = os.getcwd()
    agent = paths.agent_dir()
    settings = Settings.load(agent_dir=agent, cwd=cwd, warn=_warn)
    from pi_rpc.session.postgres_locator import looks_like_conninfo, redact

    if db is None:
        db = default_database(settings, agent, cwd)
        if command == "import" and not looks_like_conninfo(db):
            os.makedirs(os.path.dirname(db), exist_ok=True)
    elif not looks_like_conninfo(db):
        db = _resolve(db, cwd)

    def report(outcome: transfer.Outcome) -> None:
        # Whatever is printed, a password in a URL given as a path is not.
        outcome = transfer.Outcome(outcome.status, outcome.session_id, redact(outcome.source), redact(outcome.detail))
        who = outcome.session_id or outcome.source
        if outcome.status == "error":
            where = f" ({outcome.source})" if outcome.session_id and outcome.source else ""
            sys.stderr.write(f"error: {who}{where}: {outcome.detail}\n")
        elif outcome.status == "imported":
            sys.stdout.write(
                f"imported {who} from {outcome.source}{f' ({outcome.detail})' if outcome.detail else ''}\n"
            )
        elif outcome.status == "exported":
            sys.stdout.write(f"exported {who} to {outcome.source}\n")
        elif outcome.session_id:
            preposition = "from" if command == "import" else "to"
            sys.stdout.write(f"skipped {who} {preposition} {outcome.source}: {outcome.detail}\n")
        else:
            sys.stdout.write(f"skipped {outcome.source}: {outcome.detail}\n")
        sys.stdout.flush()

    try:
        if command == "import":
            session_dir_of = _session_dir_chooser(agent, settings)
            errors = transfer.import_sessions(db, positionals, session_dir_of, report)
        else:
            assert out is not None
            errors = transfer.export_sessions(db, _resolve(out, cwd), positionals, report)
    except (transfer.TransferError, SessionError) as exc:
        # SessionError: the database is not a pi session database (refused unchanged).
        sys.stderr.write(f"error: {redact(str(exc))}\n")
        return 1
    except ImportError as exc:  # a PostgreSQL database without the pi-rpc[postgres] extra
        sys.stderr.write(
            f"error: a PostgreSQL session database needs psycopg 3 ({exc.name}): pip install 'pi-rpc[postgres]'\n"
        )
        return 1
    return 1 if errors else 0


def _session_dir_chooser(agent: Path, settings: Settings) -> Callable[[Mapping[str, object]], str | None]:
    """The session directory an imported session is listed under: where pi started in the
    session's cwd keeps its sessions (``sessionDir`` / ``$PI_CODING_AGENT_SESSION_DIR``, else
    ``<agentDir>/sessions/--<cwd>--``)."""

    def session_dir_of(header: Mapping[str, object]) -> str | None:
        cwd = header.get("cwd")
        if not isinstance(cwd, str) or not cwd:
            return None
        choice = paths.resolve_session_dir(cwd=cwd, agent=agent, settings_session_dir=settings.session_dir)
        return os.path.normpath(str(choice.path))

    return session_dir_of

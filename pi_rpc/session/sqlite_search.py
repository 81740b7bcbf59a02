"""The search index of the SQLite session store (schema version 2) and the listing query
that answers ``list_sessions`` with ``limit`` and ``query`` from it.

A ``query`` keeps the sessions whose name, or one of whose user/assistant message texts,
contains it, case-insensitively (``listing.SessionInfo.matches``: ``needle in
text.casefold()``, text by text). The index holds exactly what that test reads:

- ``texts``: one row per user/assistant text of every session (the texts
  ``info_scan.absorb_entry`` collects when searching), stored casefolded by Python, so the
  database's own case rules never decide a match;
- ``sessions.name_folded``: the session's name, casefolded;
- ``texts_fts`` (only when the SQLite build has FTS5 with the trigram tokenizer): a
  contentless FTS5 index of ``texts.folded`` padded with two U+0001 (so a needle of one or
  two characters is the prefix of a trigram at each of its occurrences: ``texts_vocab``
  lists those trigrams), ``case_sensitive 1`` (the text is folded already), ``detail=none``
  (smallest; a candidate is always re-checked), kept in step by triggers.

Every match is decided by ``instr(folded, needle) > 0``, the SQL form of ``needle in
folded``; the trigram index only narrows which rows are checked. Without the index (or for
a needle too common for it to help) the sessions are tested one by one, still exactly.

Lone surrogates (a JS client's strings can put them in a session) cannot be stored as SQL
text: they are stored as U+FFFD. That can only add candidates for a needle containing U+FFFD
or a surrogate, so such a query re-checks each candidate against the session's real texts.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Generator, Iterable, Iterator, Mapping
from contextlib import contextmanager

from pi_rpc.session.ids import iso_to_ms
from pi_rpc.session.info_scan import ScannedSession, message_text, scan_session

FTS_TABLE = "texts_fts"
# A needle of this many characters or more is looked up by its trigrams; a shorter one by
# the trigrams it starts.
TRIGRAM = 3

SCHEMA_V2 = (
    "ALTER TABLE sessions ADD COLUMN name_folded TEXT",
    # The header's time as epoch ms (``created`` of a listing without parsing the ISO text).
    "ALTER TABLE sessions ADD COLUMN created_ms REAL",
    "CREATE TABLE texts (session_id TEXT NOT NULL, folded TEXT NOT NULL)",
    "CREATE INDEX texts_by_session ON texts(session_id)",
    # A session deleted (or rewritten: deleted and stored again) takes its texts with it.
    "CREATE TRIGGER sessions_drop_texts AFTER DELETE ON sessions BEGIN"
    " DELETE FROM texts WHERE session_id = old.id; END",
    # Listings are ordered newest first with the JSONL listing's tie order (a folder's file
    # names, newest first: creation time, then id); the indexes hold the whole order so a
    # page of 50 is read off the index without sorting 100,000 rows.
    "DROP INDEX sessions_by_dir_modified",
    "CREATE INDEX sessions_by_dir_modified ON sessions(dir, modified DESC, created_at DESC, id DESC)",
    "CREATE INDEX sessions_by_modified ON sessions(modified DESC, created_at DESC, id DESC)",
    # The named sessions only (a search tests every name; most sessions have none).
    "CREATE INDEX sessions_named ON sessions(name_folded) WHERE name_folded IS NOT NULL",
)

# Each text is indexed with two padding characters after it, so every position of the text
# starts a trigram: a needle of one or two characters is then a prefix of the trigrams at its
# occurrences, found through the index's term list (``texts_vocab``).
PAD = "\x01\x01"
_PADDED = "folded || char(1, 1)"
_FTS_SCHEMA = (
    # Contentless: the padded text is not kept twice; matches are checked against ``texts``.
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5(folded, content='',"
    " tokenize='trigram case_sensitive 1', detail=none)",
    f"CREATE TRIGGER texts_fts_insert AFTER INSERT ON texts BEGIN"
    f" INSERT INTO {FTS_TABLE}(rowid, folded) VALUES (new.rowid, new.{_PADDED}); END",
    f"CREATE TRIGGER texts_fts_delete AFTER DELETE ON texts BEGIN"
    f" INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, folded) VALUES ('delete', old.rowid, old.{_PADDED}); END",
    f"CREATE VIRTUAL TABLE texts_vocab USING fts5vocab({FTS_TABLE}, 'row')",
)


def fold(text: str) -> str:
    """``text.casefold()`` as SQL can store it (lone surrogates become U+FFFD)."""
    folded = text.casefold()
    try:
        folded.encode("utf-8")
    except UnicodeEncodeError:
        folded = folded.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return folded


def fold_or_none(text: str | None) -> str | None:
    return fold(text) if text is not None else None


def entry_text(entry: Mapping[str, object]) -> str | None:
    """The text a search reads from this entry (``info_scan.absorb_entry``'s rule with
    ``with_texts``): a user or assistant message's non-empty text, else None."""
    if entry.get("type") != "message":
        return None
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant") or "content" not in message:
        return None
    return message_text(message) or None


def fts_available(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite build has FTS5 with the trigram tokenizer."""
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.pi_trigram_probe USING fts5(x, tokenize='trigram')")
    except sqlite3.OperationalError:
        return False
    conn.execute("DROP TABLE temp.pi_trigram_probe")
    return True


def has_fts(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (FTS_TABLE,)).fetchone()
        is not None
    )


def migrate_to_v2(conn: sqlite3.Connection) -> None:
    """Schema 1 -> 2 inside the caller's write transaction: the tables and indexes above
    (the FTS index when the build has one), then every stored session's texts and name."""
    with_fts = fts_available(conn)
    for statement in SCHEMA_V2:
        conn.execute(statement)
    if with_fts:
        for statement in _FTS_SCHEMA:
            conn.execute(statement)
    sessions = conn.execute("SELECT id, header FROM sessions").fetchall()
    for session_id, header in sessions:
        scanned = _scan_stored(conn, session_id, header)
        if scanned is None:
            continue
        insert_texts(conn, session_id, scanned.texts)
        conn.execute(
            "UPDATE sessions SET name_folded = ?, created_ms = ? WHERE id = ?",
            (fold_or_none(scanned.name), iso_to_ms(scanned.header.get("timestamp")), session_id),
        )


def _scan_stored(conn: sqlite3.Connection, session_id: str, header: str) -> ScannedSession | None:
    """The session's name and texts, read from the lines that hold them (messages and
    ``session_info`` entries, in order) as the JSONL listing reads the file."""
    lines = [
        line
        for (line,) in conn.execute(
            "SELECT line FROM entries WHERE session_id = ? AND type IN ('message', 'session_info') ORDER BY seq",
            (session_id,),
        )
    ]
    return scan_session("".join((header, *lines)).encode("utf-8"), with_texts=True)


def insert_texts(conn: sqlite3.Connection, session_id: str, texts: Iterable[str]) -> None:
    conn.executemany(
        "INSERT INTO texts (session_id, folded) VALUES (?, ?)", [(session_id, fold(text)) for text in texts]
    )


@contextmanager
def deferred_fts(conn: sqlite3.Connection) -> Iterator[None]:
    """Bulk loading: texts inserted in the block are indexed at its end, in one statement
    (several times faster than indexing row by row). Run it inside one write transaction,
    so no other writer's texts can slip past the index."""
    if not has_fts(conn):
        yield
        return
    last = conn.execute("SELECT coalesce(max(rowid), 0) FROM texts").fetchone()[0]
    conn.execute("DROP TRIGGER texts_fts_insert")
    try:
        yield
    finally:
        conn.execute(
            f"INSERT INTO {FTS_TABLE}(rowid, folded) SELECT rowid, {_PADDED} FROM texts WHERE rowid > ?", (last,)
        )
        conn.execute(_FTS_SCHEMA[1])


# ---------------------------------------------------------------------- the listing query

LISTING_COLUMNS = "s.id, s.cwd, s.created_ms, s.parent_session, s.name, s.message_count, s.first_message, s.modified"
_ORDER = "ORDER BY s.modified DESC, s.created_at DESC, s.id DESC"


def _term(text: str) -> str:
    """An FTS5 string: one trigram token (``detail=none`` refuses phrases of several)."""
    return '"' + text.replace('"', '""') + '"'


def _fts_query(conn: sqlite3.Connection, needle: str) -> str | None:
    """A MATCH expression whose rows include every text containing ``needle`` (each is then
    checked with ``instr``); None when the needle is too common for the index to help.

    Three characters or more: every trigram of the needle. One or two: any trigram that
    starts with it (the padding makes one start at every position), from the term list,
    given the documents they are in number at most ``CANDIDATE_CAP``. A needle with a NUL
    cannot be written as an FTS5 query (its parser ends the string there): None."""
    if "\x00" in needle:
        return None
    if len(needle) >= TRIGRAM:
        trigrams = dict.fromkeys(needle[i : i + TRIGRAM] for i in range(len(needle) - TRIGRAM + 1))
        return " AND ".join(_term(t) for t in trigrams)
    if not needle:
        return None
    terms: list[str] = []
    documents = 0
    for term, count in conn.execute(
        "SELECT term, doc FROM texts_vocab WHERE term >= ? AND term < ?", (needle, _after_prefix(needle))
    ):
        documents += count
        if documents > CANDIDATE_CAP:
            return None
        terms.append(term)
    return " OR ".join(_term(t) for t in terms) if terms else _term(needle + PAD[: TRIGRAM - len(needle)])


def _after_prefix(prefix: str) -> str:
    """The least string above every string that starts with ``prefix`` (code point order,
    which is UTF-8 byte order); surrogates cannot be stored, so they are skipped."""
    last = ord(prefix[-1]) + 1
    if 0xD800 <= last <= 0xDFFF:
        last = 0xE000
    return prefix[:-1] + chr(min(last, 0x10FFFF))


def listing_rows(
    conn: sqlite3.Connection, session_dir: str | None, query: str | None
) -> Generator[tuple[object, ...], None, None]:
    """Rows (``LISTING_COLUMNS``) of the sessions of ``session_dir`` (None: every session),
    newest first, those matching ``query`` only when one is given. Rows are produced as the
    caller reads them: a caller that wants 50 stops after 50.

    A query is answered one of two ways. When the trigram index finds at most
    ``CANDIDATE_CAP`` matching texts, the matching sessions are those and the named
    sessions whose name matches (a small index of named sessions), read by id and sorted.
    Otherwise the needle is common (or too short to index): the sessions are walked newest
    first and each is tested (its name, then its texts, by session), which finds a page of
    a common needle's sessions after reading little more than that page."""
    scope = "s.dir = ? AND " if session_dir is not None else ""
    scope_params: list[object] = [session_dir] if session_dir is not None else []
    rows: sqlite3.Cursor
    if query is None:
        where = f" WHERE {scope[:-5]}" if scope else ""
        rows = conn.execute(f"SELECT {LISTING_COLUMNS} FROM sessions s{where} {_ORDER}", scope_params)
    else:
        needle = fold(query)
        candidates = _indexed_candidates(conn, needle)
        if candidates is not None:
            # ``+s.dir``: look the few candidates up by id, never walk the directory's index.
            rows = conn.execute(
                f"SELECT {LISTING_COLUMNS} FROM sessions s WHERE {'+' + scope if scope else ''}"
                "s.id IN (SELECT value FROM json_each(?))"
                f" {_ORDER}",
                [*scope_params, json.dumps(sorted(candidates))],
            )
        else:
            rows = conn.execute(
                f"SELECT {LISTING_COLUMNS} FROM sessions s WHERE {scope}(instr(s.name_folded, ?) > 0"
                " OR EXISTS (SELECT 1 FROM texts t WHERE t.session_id = s.id AND instr(t.folded, ?) > 0))"
                f" {_ORDER}",
                [*scope_params, needle, needle],
            )
    if query is None or not _needs_recheck(query):
        yield from rows
        return
    for row in rows.fetchall():
        if _really_matches(conn, row[0], query):
            yield row


# More matching texts than this: the needle is common, walking the sessions is faster.
CANDIDATE_CAP = 5000


def _indexed_candidates(conn: sqlite3.Connection, needle: str) -> set[str] | None:
    """The ids of every session whose name or a text contains ``needle``, from the
    trigram index; None when the needle cannot use it or matches too many texts."""
    if not has_fts(conn):
        return None
    match = _fts_query(conn, needle)
    if match is None:
        return None
    found = conn.execute(
        f"SELECT t.session_id FROM {FTS_TABLE} f JOIN texts t ON t.rowid = f.rowid"
        f" WHERE {FTS_TABLE} MATCH ? AND instr(t.folded, ?) > 0 LIMIT ?",
        (match, needle, CANDIDATE_CAP + 1),
    ).fetchall()
    if len(found) > CANDIDATE_CAP:
        return None
    ids = {session_id for (session_id,) in found}
    ids.update(
        session_id
        for (session_id,) in conn.execute(
            "SELECT id FROM sessions WHERE name_folded IS NOT NULL AND instr(name_folded, ?) > 0", (needle,)
        )
    )
    return ids


def _needs_recheck(query: str) -> bool:
    return "\ufffd" in query or any("\ud800" <= ch <= "\udfff" for ch in query)


def _really_matches(conn: sqlite3.Connection, session_id: str, query: str) -> bool:
    """``SessionInfo.matches`` on the session's real texts, read from its stored lines."""
    header = conn.execute("SELECT header FROM sessions WHERE id = ?", (session_id,)).fetchone()
    scanned = _scan_stored(conn, session_id, header[0]) if header is not None else None
    if scanned is None:
        return False
    needle = query.casefold()
    if scanned.name is not None and needle in scanned.name.casefold():
        return True
    return any(needle in text.casefold() for text in scanned.texts)


__all__ = [
    "FTS_TABLE",
    "LISTING_COLUMNS",
    "deferred_fts",
    "entry_text",
    "fold",
    "fold_or_none",
    "fts_available",
    "has_fts",
    "insert_texts",
    "listing_rows",
    "migrate_to_v2",
]

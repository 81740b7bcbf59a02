"""modes/wire: the byte level of the JSONL protocols.

- ``framing``: stdin bytes -> records (LF only, one trailing CR stripped, size cap).
- ``jsonparse``: record bytes -> JSON value, or a parse failure with V8-style text.
- ``jsonout``: JSON value -> one output line (JS number formatting, U+2028/9 escaped).
- ``output``: stdout ownership (fd-level takeover) and the serialised record writer.
- ``protocol``: pydantic models of the 33 commands, responses and 24 events (schema source).

Nothing here imports pydantic at module import time; ``protocol`` is loaded on first use.
"""

"""modes/rpc: ``pi --mode rpc``.

- ``registry``: handler registry, ``CommandContext``, ``CommandError``, ``JSON_NULL``.
- ``dispatch``: transport-agnostic dispatcher (records in -> responses/events out via a sink).
- ``validation``: command validation with field-naming error texts.
- ``backend``: the ``Backend`` protocol the runtime implements, and a small in-memory backend.
- ``server``: the stdio transport and process lifecycle (EOF, signals, EPIPE).
- ``memory``: an in-memory transport for fast tests.
- ``main``: ``run_rpc_mode(args)`` used by the CLI.
"""

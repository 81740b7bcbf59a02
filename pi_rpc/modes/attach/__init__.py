"""``pi attach``'s pieces: the terminal app driving a session that a ``--listen`` server holds.

- ``connection``: one client connection to a listening server (``unix:``, ``tcp:``, ``ws://``),
  its authentication, id-correlated requests and the records that are not responses;
- ``remote_session``: ``RemoteSession``, the session interface the interactive app uses
  (``PiApp``), implemented over that connection instead of an in-process ``AgentSession``.

Nothing here is imported by the other modes.
"""

"""``pi attach``'s pieces: the terminal app driving a session that a ``--listen`` server holds.

- ``connection``: one client connection to a listening server (``unix:``, ``tcp:``, ``ws://``),
  its authentication, id-correlated requests and the records that are not responses;
- ``remote_session``: ``RemoteSession``, the session interface the interactive app uses
  (``PiApp``), implemented over that connection instead of an in-process ``AgentSession``; its
  mirror of the session follows the events;
- ``extension_ui``: the server's extension dialogs and notices in this terminal;
- ``commands``: the slash commands whose work is the server's (``/tree``, ``/resume``,
  ``/export``, ``/login`` …), looked up before the interactive mode's own;
- ``reconnect``: making a dropped connection again and catching up with ``since``.

Nothing here is imported by the other modes.
"""
